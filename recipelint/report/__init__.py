"""Printing diagnostics: one module per output format."""
