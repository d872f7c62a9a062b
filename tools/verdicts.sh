#!/usr/bin/env bash
# Every verdict recipelint gives on the real files the tests carry, written to one folder so two
# revisions can be diffed before a rule changes (`diff -r before/ after/`): check (text, json),
# show and fix (the diff), each without a profile and with the 8 x A100 profile.
# Usage: tools/verdicts.sh OUT_DIR  (run from the repository root, recipelint on PATH)
set -u
out=${1:?usage: tools/verdicts.sh OUT_DIR}
mkdir -p "$out"
profile=tests/data/profiles/a100-8x-96cpu-ib.yaml
targets=(examples/* tests/data/field/* tests/data/upstream/wenet tests/data/upstream/xtuner tests/data/upstream/deepspeed/* tests/data/upstream/trainer/* tests/data/corpus/*)
for target in "${targets[@]}"; do
  [ -e "$target" ] || continue
  name=$(printf '%s' "$target" | tr '/' '_')
  for hw in none a100; do
    args=(--no-cache)
    [ "$hw" = a100 ] && args+=(--hardware "$profile")
    base="$out/$name.$hw"
    recipelint check "${args[@]}" "$target" >"$base.check.txt" 2>&1; echo "exit $?" >>"$base.check.txt"
    recipelint check "${args[@]}" --format json "$target" 2>/dev/null | sed -E 's/"taken_at": "[^"]*"/"taken_at": "-"/' >"$base.check.json"
    recipelint show "${args[@]:1}" "$target" >"$base.show.txt" 2>&1
    recipelint fix "${args[@]:1}" "$target" >"$base.fix.diff" 2>&1
  done
done
