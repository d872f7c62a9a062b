" Opens run.sh, waits for the server's diagnostics, lists them, sets num_workers=1 (a change
" the editor sends as didChange) and waits for the new count; writes what it saw to $OUT_FILE.
let g:out = []
func Total()
  let c = lsp#lsp#ErrorCount()
  return c.Error + c.Warn + c.Info + c.Hint
endfunc
func WaitDiags(cond)
  for i in range(200)
    if eval(a:cond) | return 1 | endif
    sleep 50m
  endfor
  return 0
endfunc
try
  edit run.sh
  call WaitDiags('Total() > 0')
  call add(g:out, 'after open: ' .. string(lsp#lsp#ErrorCount()))
  silent LspDiag show
  for item in getloclist(0)
    call add(g:out, printf('  %d:%d %s %s', item.lnum, item.col, item.type, item.text[:70]))
  endfor
  lclose
  let before = lsp#lsp#ErrorCount().Warn
  call setline(search('^num_workers='), 'num_workers=1')
  call listener_flush()
  call WaitDiags('lsp#lsp#ErrorCount().Warn != ' .. before)
  call add(g:out, 'after num_workers=1: ' .. string(lsp#lsp#ErrorCount()))
catch
  call add(g:out, 'error: ' .. v:exception .. ' at ' .. v:throwpoint)
endtry
call writefile(g:out, $OUT_FILE)
qall!
