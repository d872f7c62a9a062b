"""Format readers below the model: byte spans, the file cache, YAML/JSON trees with spans, shell
(tree-sitter-bash), Python read with `ast`, Markdown code blocks, git checkouts. Nothing here
imports the model, a toolkit, a rule or the runner."""
