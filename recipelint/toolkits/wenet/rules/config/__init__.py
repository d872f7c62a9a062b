"""Config rules: the train YAML against schemas/wenet and the data pipeline's own constraints."""

TOOLKITS = ("wenet",)
