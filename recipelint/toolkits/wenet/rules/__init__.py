"""WeNet's rules, one family per package: loader, data, timeout, config, flags, and its DeepSpeed use."""
