"""Timeout rules: the join timeout WeNet gives its per-batch barrier, against data stalls and the process-group timeout."""

TOOLKITS = ("wenet",)
