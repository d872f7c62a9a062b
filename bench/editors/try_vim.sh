#!/bin/bash
# Vim 9 with yegappan/lsp against `recipelint server`, headless: the plugin starts servers at
# VimEnter, so the script runs from a timer; stdin is a pipe that stays open (at EOF Vim quits).
#   LSP_PACK=/path/with/pack/x/start/lsp bench/editors/try_vim.sh RECIPE_FOLDER [python]
set -eu
here=$(cd "$(dirname "$0")" && pwd)
export RECIPELINT_PYTHON=${2:-python3} LSP_PACK OUT_FILE=$(mktemp)
cd "$1"
(sleep 30 | timeout 40 vim -u "$here/vimrc" -U NONE -i NONE -N --not-a-term \
  -c "call timer_start(300, {-> execute('source $here/try_vim.vim')})" >/dev/null 2>&1) || true
cat "$OUT_FILE"
