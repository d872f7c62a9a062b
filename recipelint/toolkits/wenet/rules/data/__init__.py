"""Data rules: the data.list files a recipe trains on."""

TOOLKITS = ("wenet",)
