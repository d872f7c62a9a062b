"""Flag rules: the arguments the training script accepts."""

TOOLKITS = ("wenet",)
