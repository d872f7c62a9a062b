"""The Hugging Face Trainer and the DeepSpeed config it is given: the values its
HfTrainerDeepSpeedConfig compares with TrainingArguments, and what the JSON replaces (RL460-RL479).
An Accelerate config's inline `deepspeed_config` runs DeepSpeed without a JSON file: such a
launch is a "torch" recipe, so the family covers both."""

TOOLKITS = ("deepspeed", "torch")
