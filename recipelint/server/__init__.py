"""`recipelint server`: a Language Server Protocol server over stdio (pygls), the `server` extra.

`workspace.py` holds the open documents and what each check read (no LSP types there),
`positions.py` converts byte offsets to the editor's lines and UTF-16 columns, `convert.py`
turns findings and edits into LSP objects, `actions.py` the fixes and suppressions into code
actions, `hover.py` says what `show` knows about a value, and `app.py` wires them to pygls.
Nothing here is imported by `check` or `fix`."""
