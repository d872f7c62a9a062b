"""Kubernetes rules: a launch against the pod its manifest gives it. They apply to any toolkit's
recipe that runs inside a manifest (`Recipe.allocation` of scheduler Kubernetes)."""
