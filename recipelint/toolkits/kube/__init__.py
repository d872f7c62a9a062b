"""Kubernetes: a Kubeflow training-operator `PyTorchJob`, or a plain Job or Pod, whose container
runs a training launch; its replicas, resources and /dev/shm volume give the launch's
allocation (docs/toolkits/kube.md).

The container's command is read as a launch (a `bash -c "..."` script with the shell reader)
and handed to the toolkit that claims it; each recipe gets the pod's allocation.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from recipelint.toolkits import Toolkit

if TYPE_CHECKING:
    from recipelint.context import Context
    from recipelint.model import Recipe
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import ShellScript
    from recipelint.toolkits import Target


class Kube(Toolkit):
    name = "kube"
    suffixes: tuple[str, ...] = ()
    rules: tuple[str, ...] = ("recipelint.toolkits.kube.rules",)
    # its workloads described; a diagnosis reads their launches and allocation; tune: its launches' DataLoader plan (recipelint.rulekit.workers)
    offers: tuple[str, ...] = ("show", "diagnose", "tune")
    preload: tuple[str, ...] = (
        "recipelint.toolkits.kube.frontend",
        "recipelint.toolkits.kube.manifest",
        "recipelint.toolkits.kube.operators",
    )

    def plan(self, ctx: Context) -> list[str]:
        """The launch's DataLoader plan (recipelint.rulekit.workers)."""
        from recipelint.rulekit.workers import plan

        return plan(ctx).lines()

    def claims(self, target: Target, script: ShellScript | None) -> float:
        # On the manifest's own evidence (apiVersion and a kind it reads), ahead of a train YAML's reader.
        if target.kind != "yaml":
            return 0.0
        from recipelint.toolkits.kube.manifest import is_manifest

        return 1.0 if is_manifest(target.path) else 0.0

    def load(self, target: Target, files: FileCache, script: ShellScript | None) -> list[Recipe]:
        from recipelint.toolkits.kube.frontend import load_manifest

        return load_manifest(self, target, files)


KUBE = Kube()
