"""The hooks in .pre-commit-hooks.yaml, run for real by pre-commit's `try-repo`.

pre-commit builds the hook's environment from this checkout with pip (from PyPI), so the
test needs pre-commit installed (it is in the `test` extra) and a package index: the tests are
marked `network` and run with `pytest --network` (or RECIPELINT_NETWORK=1); they take about a
minute the first time.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.helpers import NODE, REPO, RecipeSpec

# pre-commit installs the hook from this checkout with pip, which needs a package index.
pytestmark = [pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed"), pytest.mark.network]


def _pre_commit() -> list[str]:
    try:
        import pre_commit  # noqa: F401
    except ImportError:
        pytest.skip("pre-commit is not installed (pip install '.[test]')")
    return [sys.executable, "-m", "pre_commit"]


def git(cwd: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True)


@pytest.fixture(scope="module")
def hook_repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A snapshot of this checkout as a git repository (try-repo needs a commit to install)."""
    repo = tmp_path_factory.mktemp("hooks") / "recipelint"
    shutil.copytree(
        REPO,
        repo,
        ignore=shutil.ignore_patterns(
            ".git", ".venv", ".ci-venv", "__pycache__", "*.egg-info", ".pytest_cache", ".mypy_cache", ".ruff_cache"
        ),
    )
    git(repo, "init", "-q")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(repo, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "snapshot")
    return repo


def project(tmp_path: Path, cpus: int) -> Path:
    root = tmp_path / "project"
    RecipeSpec().write(root / "recipe")
    (root / "recipe" / "conf" / "ds.json").write_text('{"train_micro_batch_size_per_gpu": 1}\n')
    (root / "node.yaml").write_text("".join(f"{k}: {json.dumps(v)}\n" for k, v in {**NODE, "cpus": cpus}.items()))
    (root / "recipelint.toml").write_text('hardware = "node.yaml"\n')
    git(root, "init", "-q")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "recipe")
    return root


def try_repo(hook_repo: Path, root: Path, hook: str, *files: str) -> subprocess.CompletedProcess[str]:
    # CUDA_VISIBLE_DEVICES="" hides any GPU: the hooks run as on a laptop or a CI runner.
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(hook_repo.parent / "cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    return subprocess.run(
        [*_pre_commit(), "try-repo", str(hook_repo), hook, "--files", *files],
        cwd=root,
        capture_output=True,
        text=True,
        env=env,
        timeout=900,
    )


def test_check_hook_fails_on_a_bad_recipe_and_passes_on_a_clean_one(hook_repo: Path, tmp_path: Path) -> None:
    bad = project(tmp_path / "bad", cpus=12)
    # Only the YAML changed: the hook still lints it together with the run.sh that uses it.
    result = try_repo(hook_repo, bad, "recipelint", "recipe/conf/train.yaml")
    assert result.returncode == 1, result.stdout + result.stderr
    assert "RL102" in result.stdout and "Failed" in result.stdout
    clean = project(tmp_path / "clean", cpus=64)
    result = try_repo(hook_repo, clean, "recipelint", "recipe/conf/train.yaml", "recipe/conf/ds.json")
    assert result.returncode == 0, result.stdout + result.stderr


def test_fix_hook_rewrites_and_pre_commit_reports_the_change(hook_repo: Path, tmp_path: Path) -> None:
    root = project(tmp_path, cpus=12)
    result = try_repo(hook_repo, root, "recipelint-fix", "recipe/run.sh")
    assert result.returncode == 1
    assert "files were modified by this hook" in result.stdout
    assert "num_workers=3\n" in (root / "recipe" / "run.sh").read_text()


def test_hooks_pass_on_xtuner_docs(hook_repo: Path, tmp_path: Path) -> None:
    """XTuner's own Markdown docs, on a machine without a GPU and no profile configured: every
    finding is info (RL809 for configs given by name, RL004 for the host), so both hooks pass."""
    from tests.helpers import UPSTREAM

    root = tmp_path / "xtuner"
    shutil.copytree(UPSTREAM / "xtuner", root)
    git(root, "init", "-q")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "add", "-A")
    git(root, "-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "docs")
    docs = sorted(str(p.relative_to(root)) for p in root.rglob("*.md"))
    assert len(docs) >= 37
    for hook in ("recipelint", "recipelint-fix"):
        result = try_repo(hook_repo, root, hook, *docs)
        assert result.returncode == 0, result.stdout + result.stderr
        assert "Passed" in result.stdout
    assert subprocess.run(["git", "status", "--porcelain"], cwd=root, capture_output=True, text=True).stdout == ""


def test_the_documented_local_hook_runs(hook_repo: Path, tmp_path: Path) -> None:
    """The block docs/usage.md gives for .pre-commit-config.yaml (the one the README shows), with
    its `file:///opt/recipelint` pointed at this checkout: pre-commit installs recipelint into the
    hook's environment and the hook fails on a recipe with too many workers."""
    usage = (REPO / "docs" / "usage.md").read_text()
    block = usage.split("## pre-commit\n", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    assert "repo: local" in block and "rev:" not in block
    root = project(tmp_path, cpus=12)
    (root / ".pre-commit-config.yaml").write_text(block.replace("file:///opt/recipelint", hook_repo.as_uri()))
    git(root, "add", ".pre-commit-config.yaml")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(hook_repo.parent / "cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    result = subprocess.run(
        [*_pre_commit(), "run", "--files", "recipe/conf/train.yaml"], cwd=root, capture_output=True, text=True, env=env, timeout=900
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert "RL102" in result.stdout and "recipelint check" in result.stdout and "Failed" in result.stdout


def test_a_diff_hook_lets_an_untouched_launchs_old_finding_pass(hook_repo: Path, tmp_path: Path) -> None:
    """The documented local hook with `--diff HEAD` (docs/usage.md, adopting on an existing
    repository): the launch has an old RL102 warning; a commit that changes only the train YAML
    it names (a comment added) passes, while the plain hook blocks it."""
    usage = (REPO / "docs" / "usage.md").read_text()
    block = usage.split("## pre-commit\n", 1)[1].split("```yaml\n", 1)[1].split("```", 1)[0]
    root = project(tmp_path, cpus=12)
    train = root / "recipe" / "conf" / "train.yaml"
    train.write_text(train.read_text() + "# tuned for the new node\n")
    env = {
        **os.environ,
        "PRE_COMMIT_HOME": str(hook_repo.parent / "cache"),
        "PIP_DISABLE_PIP_VERSION_CHECK": "1",
        "CUDA_VISIBLE_DEVICES": "",
    }
    outcomes = []
    for entry in ("recipelint check", "recipelint check --diff HEAD"):
        config = block.replace("file:///opt/recipelint", hook_repo.as_uri()).replace("entry: recipelint check\n", f"entry: {entry}\n", 1)
        (root / ".pre-commit-config.yaml").write_text(config)
        git(root, "add", "-A")
        run = subprocess.run(
            [*_pre_commit(), "run", "--files", "recipe/conf/train.yaml"], cwd=root, capture_output=True, text=True, env=env, timeout=900
        )
        outcomes.append(run)
    assert outcomes[0].returncode == 1 and "RL102" in outcomes[0].stdout, outcomes[0].stdout
    assert outcomes[1].returncode == 0, outcomes[1].stdout + outcomes[1].stderr
