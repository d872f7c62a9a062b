"""DataLoader rules: worker processes and prefetched batches against the node's CPUs and memory."""

TOOLKITS = ("wenet",)
