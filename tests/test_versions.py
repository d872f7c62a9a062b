"""Which releases a run imports (recipelint.versions, recipelint.parse.pins) and how the
version-dependent rules grade their findings over that range, on WeNet v3.0.1 as released."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from recipelint import engine, tuner, versions
from recipelint.diagnostics import Diagnostic
from recipelint.hardware.profile import from_mapping
from recipelint.parse import pins
from recipelint.parse.checkout import ranges_beside
from recipelint.settings import Resolver
from recipelint.toolkits.deepspeed.knowledge import schema_node
from recipelint.toolkits.xtuner.rules.slurm_env_conflict import FIXED_IN
from tests.helpers import DS_JSON, NODE, UPSTREAM, RecipeSpec, describe, item

V301 = UPSTREAM / "wenet-v3.0.1"
WHISPER = "examples/wenetspeech/whisper/run.sh"


def write(root: Path, files: dict[str, str]) -> None:
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content)


def release(tmp_path: Path) -> Path:
    """WeNet v3.0.1 as a clone: its files unmodified, a .git folder at the top."""
    root = tmp_path / "wenet"
    shutil.copytree(V301, root)
    (root / ".git").mkdir()
    return root


def check(path: Path, config: Path | None = None) -> list[Diagnostic]:
    profile = from_mapping(dict(NODE), "profile test")
    result = engine.check([path], hardware=lambda: profile, resolver=Resolver(config) if config else Resolver(isolated=True))
    assert result.errors == []
    return [d for d in result.diagnostics if d.code == "RL303"]


# -- RL303 on WeNet v3.0.1's wenetspeech whisper recipe (--timeout 1200 under deepspeed) -----------


def test_v3_0_1_pins_deepspeed_below_0_13_so_the_join_timeout_fits(tmp_path: Path) -> None:
    root = release(tmp_path)
    assert check(root / WHISPER) == []  # deepspeed<0.13.0: 30 min, and 1200 s < 1800 s
    (described,), _ = describe([root / WHISPER])
    assert item(described, "run", "deepspeed version").value == "<0.13.0"
    assert item(described, "run", "deepspeed version").source == f"{root / 'requirements.txt'}:19"
    assert item(described, "run", "torch version").value == ">=2.1.2"
    assert item(described, "run", "wenet version").value == "v3.0.1"


def test_a_pin_from_0_19_6_makes_it_an_error(tmp_path: Path) -> None:
    root = release(tmp_path)
    (root / "examples/wenetspeech/whisper/requirements.txt").write_text("deepspeed>=0.19.6\n")  # nearer than the release's
    (found,) = check(root / WHISPER)
    assert str(found.severity) == "error" and found.suggested == 300
    assert "process-group timeout of 600s (deepspeed.init_distributed default 10 min (" in found.message
    assert "whisper/requirements.txt:1 allows deepspeed>=0.19.6" in found.message


def test_v3_1_0_requirements_straddle_0_19_6_so_it_is_a_warning(tmp_path: Path) -> None:
    root = release(tmp_path)
    shutil.copyfile(UPSTREAM / "wenet-v3.1.0/requirements.txt", root / "requirements.txt")  # deepspeed>=0.14.0
    (found,) = check(root / WHISPER)
    assert str(found.severity) == "warning"
    assert f"with deepspeed >= 0.19.6 ({root / 'requirements.txt'}:21 allows deepspeed>=0.14.0)" in found.message
    assert any("default 30 min with deepspeed < 0.19.6" in line for line in found.evidence)


@pytest.mark.parametrize(
    ("settings", "severity"),
    [
        ('target-versions = {deepspeed = ">=0.19.6"}\n', "error"),
        ('target-versions = {deepspeed = "0.19.5"}\n', None),
        ('deepspeed-version = "0.19.5"\n', None),  # the older key, a synonym
        ('deepspeed-version = "0.19.6"\n', "error"),
        ('target-versions = {deepspeed = ">=0.19,<0.20"}\n', "warning"),
        ("", "error"),  # the newest known, 0.19.8
    ],
)
def test_target_versions_when_nothing_pins_it(tmp_path: Path, settings: str, severity: str | None) -> None:
    root = release(tmp_path)
    (root / "requirements.txt").unlink()
    config = tmp_path / "recipelint.toml"
    config.write_text(settings)
    assert [str(d.severity) for d in check(root / WHISPER, config)] == ([severity] if severity else [])


def test_target_versions_is_checked(tmp_path: Path) -> None:
    from recipelint.parse.files import SourceError
    from recipelint.settings import load_settings

    config = tmp_path / "recipelint.toml"
    config.write_text('target-versions = {deepspeed = "newest"}\n')
    with pytest.raises(SourceError, match="not a version specifier"):
        load_settings(config)
    config.write_text('target-versions = {DeepSpeed = "0.14", torch = ">=2.1, <2.3"}\n')
    assert load_settings(config).target_versions == {"deepspeed": "==0.14", "torch": ">=2.1,<2.3"}


# -- where a range is read -------------------------------------------------------------------------


def test_the_environment_the_script_activates(tmp_path: Path) -> None:
    """`source ../envs/train/bin/activate`: that environment's dist-info, before the pins."""
    repo = tmp_path / "repo"
    write(
        repo,
        {
            ".git/HEAD": "ref: refs/heads/main\n",
            "requirements.txt": "deepspeed>=0.19.6\n",
            "envs/train/pyvenv.cfg": "",
            "envs/train/bin/activate": "VIRTUAL_ENV=here\n",
            "envs/train/lib/python3.10/site-packages/deepspeed-0.12.6.dist-info/METADATA": "",
        },
    )
    script = RecipeSpec(flags=["--train_engine deepspeed", "--deepspeed_config conf/ds.json", "--timeout 1200"], ds=DS_JSON).write(
        repo / "recipe"
    )
    text = script.read_text().replace(". ./path.sh || exit 1;", ". ../envs/train/bin/activate")
    assert check(script) != []  # requirements.txt: >=0.19.6
    script.write_text(text)
    assert check(script) == []
    found = ranges_beside(script.parent, _parsed(script))["deepspeed"]
    assert found.exact == "0.12.6" and found.source.endswith("deepspeed-0.12.6.dist-info (activated by the script)")


def _parsed(script: Path):  # type: ignore[no-untyped-def]
    from recipelint.parse.files import FileCache
    from recipelint.parse.shell import parse_shell

    files = FileCache()
    return parse_shell(files.read(script), files.read)


def test_the_toolkit_checkouts_own_requirements(tmp_path: Path) -> None:
    """A WeNet checkout elsewhere (PYTHONPATH) brings its requirements.txt when the recipe's
    repository pins nothing."""
    checkout = tmp_path / "wenet-src"
    shutil.copytree(V301 / "wenet", checkout / "wenet")
    shutil.copyfile(V301 / "requirements.txt", checkout / "requirements.txt")
    repo = tmp_path / "repo"
    write(repo, {".git/HEAD": "ref: refs/heads/main\n"})
    script = RecipeSpec(flags=["--train_engine deepspeed", "--deepspeed_config conf/ds.json", "--timeout 1200"], ds=DS_JSON).write(repo)
    (repo / "path.sh").write_text(f"export PYTHONPATH={checkout}:$PYTHONPATH\n")
    assert check(script) == []
    (described,), _ = describe([script])
    assert item(described, "run", "deepspeed version").source == f"{checkout / 'requirements.txt'}:19 (WeNet release's requirements)"
    assert item(described, "run", "wenet version").value == "v3.0.1"


# -- the pin readers -----------------------------------------------------------------------------


def read(tmp_path: Path, name: str, text: str) -> list[tuple[str, str, int]]:
    path = tmp_path / name
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    return [(pin.name, pin.specifier, pin.line) for pin in pins.read(path)]


def test_requirements_txt(tmp_path: Path) -> None:
    (tmp_path / "base.txt").write_text("torch==2.1.2\n-r requirements-loop.txt\n")
    (tmp_path / "requirements-loop.txt").write_text("-r base.txt\n")  # a loop stops at MAX_INCLUDES
    found = read(
        tmp_path,
        "requirements.txt",
        "# comment\n-r base.txt\nDeep_Speed[1bit] >= 0.14, != 0.15.1 ; python_version > '3.8'  # pinned\n"
        "accelerate\ngit+https://x/y.git\n-e .\ntransformers @ https://x/t.whl\n",
    )
    assert ("torch", "==2.1.2", 1) in found
    assert ("deep-speed", ">=0.14,!=0.15.1", 3) in found
    assert ("accelerate", "", 4) in found
    assert not [n for n, _, _ in found if n in ("transformers", "git")]


def test_setup_py_read_with_ast(tmp_path: Path) -> None:
    text = (
        "import os\nfrom setuptools import setup\nREQS = ['deepspeed>=0.12.3', 'torch']\nos.system('never run')\n"
        "setup(name='x', install_requires=REQS,\n      extras_require={'ds': ['transformers==4.40.0']})\n"
    )
    assert read(tmp_path, "setup.py", text) == [("deepspeed", ">=0.12.3", 3), ("torch", "", 3), ("transformers", "==4.40.0", 6)]
    assert read(tmp_path / "bad", "setup.py", "setup(install_requires=[\n") == []


def test_setup_cfg(tmp_path: Path) -> None:
    text = "[metadata]\nname = x\n[options]\ninstall_requires =\n    deepspeed<0.13\n    torch>=2.1\n[options.extras_require]\nhf = transformers>=4.38\n"
    assert read(tmp_path, "setup.cfg", text) == [("deepspeed", "<0.13", 5), ("torch", ">=2.1", 6), ("transformers", ">=4.38", 8)]


def test_pyproject_dependencies(tmp_path: Path) -> None:
    text = (
        '[project]\nname = "x"\ndependencies = [\n  "deepspeed~=0.14.0",\n]\n[project.optional-dependencies]\nhf = ["accelerate>=0.30"]\n'
    )
    assert read(tmp_path, "pyproject.toml", text) == [("deepspeed", "~=0.14.0", 4), ("accelerate", ">=0.30", 7)]
    assert read(tmp_path / "bad", "pyproject.toml", "[project\n") == []


def test_poetry_dependencies_of_yi() -> None:
    """01-ai/Yi's pyproject.toml pins its releases in Poetry's table (`deepspeed = "0.12.2"`, an
    exact version to Poetry) while its requirements.txt names deepspeed bare: the run imports 0.12.2
    (it was 'newest known', 0.19.8)."""
    root = UPSTREAM / "deepspeed" / "Yi"
    found = ranges_beside(root / "finetune" / "scripts")
    assert found["deepspeed"].specifier == "==0.12.2" and found["deepspeed"].source.endswith("pyproject.toml:13")
    assert found["torch"].specifier == "==2.0.1"  # conda's `pytorch` is torch
    assert "python" not in found


@pytest.mark.parametrize(
    ("constraint", "specifier"),
    [("0.12.2", "==0.12.2"), ("^1.2.3", ">=1.2.3,<2.0.0"), ("^0.12.2", ">=0.12.2,<0.13.0"), ("^0.0.3", ">=0.0.3,<0.0.4")]
    + [("~1.2.3", ">=1.2.3,<1.3.0"), ("~1", ">=1,<2"), ("*", ""), (">=1.2, <2", ">=1.2,<2"), ("1.2.*", "==1.2.*"), (">=1 || <0", None)],
)
def test_poetry_constraints(constraint: str, specifier: str | None) -> None:
    assert pins.poetry_specifier(constraint) == specifier


def test_poetry_groups(tmp_path: Path) -> None:
    text = (
        '[tool.poetry.dependencies]\npython = "^3.10"\ntorch = {version = "~2.1", source = "pytorch"}\n'
        '[tool.poetry.group.train.dependencies]\ndeepspeed = "^0.14.0"\n'
        '[tool.poetry.group.docs]\noptional = true\n[tool.poetry.group.docs.dependencies]\naccelerate = "0.30.0"\n'
    )
    assert read(tmp_path, "pyproject.toml", text) == [("torch", ">=2.1,<2.2", 3), ("deepspeed", ">=0.14.0,<0.15.0", 5)]


def test_environment_yml(tmp_path: Path) -> None:
    text = (
        "name: train\nchannels:\n  - pytorch\ndependencies:\n  - python=3.10\n  - pytorch::pytorch=2.1.2=py3.10_cuda12.1_0\n"
        "  - pip\n  - pip:\n    - deepspeed==0.12.6\n    - -r requirements.txt\n  - numpy\n"
    )
    found = read(tmp_path, "environment.yml", text)
    assert ("torch", "==2.1.2.*", 6) in found and ("deepspeed", "==0.12.6", 9) in found
    assert ("python", "==3.10.*", 5) in found and ("numpy", "", 11) in found


def test_the_nearest_folder_wins_and_a_bare_name_is_passed_over(tmp_path: Path) -> None:
    write(
        tmp_path,
        {
            ".git/HEAD": "",
            "requirements.txt": "deepspeed<0.13.0\ntorch==2.1.2\n",
            "sub/setup.py": "setup(install_requires=['deepspeed>=0.19.6', 'torch'])\n",
        },
    )
    found = ranges_beside(tmp_path / "sub")
    assert found["deepspeed"].specifier == ">=0.19.6" and found["deepspeed"].source.endswith("sub/setup.py:1")
    assert found["torch"].specifier == "==2.1.2"  # setup.py names torch without a version


# -- specifiers and the evaluation over a range ------------------------------------------------------


@pytest.mark.parametrize(
    ("specifier", "inside", "outside"),
    [
        ("<0.13.0", ["0.12.6", "0.7"], ["0.13.0", "0.19.8"]),
        (">=0.14,<0.17", ["0.14.0", "0.16.9"], ["0.13.9", "0.17.0"]),
        ("~=0.14.0", ["0.14.0", "0.14.9"], ["0.15.0"]),
        ("~=2.1", ["2.1", "2.9"], ["3.0", "2.0"]),
        ("==2.1.*", ["2.1.0", "2.1.2"], ["2.2.0"]),
        ("!=0.15.1", ["0.15.0", "0.15.2"], ["0.15.1"]),
        ("===0.12.6", ["0.12.6"], ["0.12.7"]),
        ("<=0.19.5", ["0.19.5"], ["0.19.6"]),
        (">0.19.5", ["0.19.6"], ["0.19.5"]),
    ],
)
def test_specifiers(specifier: str, inside: list[str], outside: list[str]) -> None:
    rng = versions.Range("deepspeed", specifier, "test")
    assert all(rng.admits(versions.parse(v)) for v in inside)
    assert not any(rng.admits(versions.parse(v)) for v in outside)


def test_evaluate_all_some_none() -> None:
    def newer(version: versions.Version) -> bool:
        return version >= (0, 19, 6)

    assert versions.evaluate(versions.Range("deepspeed", "<0.13.0", "r:1"), newer).holds == "none"
    assert versions.evaluate(versions.Range("deepspeed", "==0.19.8", "r:1"), newer).holds == "all"
    some = versions.evaluate(versions.Range("deepspeed", ">=0.14.0", "r:1"), newer)
    assert (some.holds, some.condition) == ("some", "deepspeed >= 0.19.6")
    assert some.says() == "with deepspeed >= 0.19.6; r:1 allows deepspeed>=0.14.0"
    older = versions.evaluate(versions.Range("deepspeed", ">=0.14.0", "r:1"), lambda v: not newer(v))
    assert older.condition == "deepspeed < 0.19.6"
    assert versions.newest("deepspeed").exact == "0.19.8" and versions.newest("transformers").specifier == ""


def test_every_release_a_rule_keys_on_is_in_the_known_table() -> None:
    """split() evaluates at the known releases: a threshold missing there would be stepped over."""
    known = {versions.parse(v) for v, _ in versions.KNOWN["deepspeed"]}
    schema = json.loads((Path(versions.__file__).parent.parent / "schemas/deepspeed/ds_config.schema.json").read_text())
    thresholds = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key in ("x-removed-in", "x-strict-since"):
                if isinstance(node.get(key), str):
                    thresholds.add(versions.parse(node[key]))
            for value in node.get("x-removed-values", {}).values() if isinstance(node.get("x-removed-values"), dict) else []:
                thresholds.add(versions.parse(value))
            for value in node.values():
                walk(value)
        elif isinstance(node, list):
            for value in node:
                walk(value)

    walk(schema)
    assert thresholds and thresholds <= known
    assert {tuner.DEEPSPEED_PG_TIMEOUT_CHANGED, tuner.DEEPSPEED_TIMEOUT_SINCE} <= known
    assert tuner.TORCH_NCCL_TIMEOUT_CHANGED + (0,) in {versions.parse(v) for v, _ in versions.KNOWN["torch"]}
    assert FIXED_IN in {versions.parse(v) for v, _ in versions.KNOWN["xtuner"]}
    assert schema_node("optimizer.type") is not None
