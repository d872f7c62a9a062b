"""DeepSpeed rules: the JSON config, alone and as WeNet uses it."""
