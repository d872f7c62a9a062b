"""Rules of trainers recipelint does not judge: the launch, said as such."""

TOOLKITS = ("unjudged",)
