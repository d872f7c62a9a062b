"""WeNet's use of DeepSpeed: the JSON its run.sh names, against the train YAML."""

TOOLKITS = ("wenet",)
