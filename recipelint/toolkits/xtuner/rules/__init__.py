"""XTuner rules: launch commands, environment, timeouts and the mmengine config."""

TOOLKITS = ("xtuner",)
