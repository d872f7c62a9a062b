"""Slurm's rules: the launches of a job against the allocation its script asks for. They apply
to any toolkit's recipe that runs inside a Slurm job (`Recipe.allocation`)."""
