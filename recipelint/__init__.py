"""recipelint: a linter and auto-tuner for deep-learning training recipes."""

__version__ = "0.1.0"
