"""Front ends: one reader per file format or toolkit, each producing the typed model with spans."""
