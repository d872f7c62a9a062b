"""Format readers below the model: byte spans, the file cache, YAML/JSON trees with spans, shell
(tree-sitter-bash), Python read with `ast`, Markdown code blocks, git checkouts. Nothing here
imports the model, a toolkit, a rule or the runner."""

from __future__ import annotations

from pathlib import Path

# What a file is read as, by its suffix: the one table discovery, a fix's re-parse, hardware
# profiles and inline suppressions go by (a toolkit may ask for more: recipelint.toolkits).
KINDS = {".sh": "script", ".yaml": "yaml", ".yml": "yaml", ".json": "json", ".md": "markdown", ".py": "python"}


def kind_of(path: Path) -> str | None:
    """The kind of file the suffix says (None: a suffix of no known format)."""
    return KINDS.get(path.suffix)
