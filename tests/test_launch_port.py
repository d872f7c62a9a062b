"""RL507: a rendezvous port past 65535 stops the launch (torch 2.13.0's parse_rendezvous_endpoint,
TCPStore's 16-bit port)."""

from __future__ import annotations

from pathlib import Path

from recipelint.diagnostics import Severity
from tests.helpers import assert_snapshot, clone, lint


def ports(path: Path) -> list:  # type: ignore[type-arg]
    return [d for d in lint(path) if d.code == "RL507"]


def test_a_port_past_65535_in_an_upstream_script(tmp_path: Path) -> None:
    """DeepSpeedExamples' compression/cifar/run_compress.sh: step 1 `--master_port 6665` (quiet),
    step 2 `--master_port 66665`."""
    root = clone("deepspeed/DeepSpeedExamples", tmp_path)
    (finding,) = ports(root / "compression/cifar/run_compress.sh")
    assert finding.severity is Severity.ERROR and (finding.span.line, finding.setting, finding.current) == (14, "master_port", 66665)
    assert "must be an integer between 0 and 65536" in finding.message
    assert_snapshot("RL507", [finding], tmp_path)


def test_the_deepspeed_launcher_fails_in_the_ranks(tmp_path: Path) -> None:
    (tmp_path / ".git").mkdir()
    (tmp_path / "train.py").write_text("import deepspeed\n")
    script = tmp_path / "run.sh"
    script.write_text("deepspeed --num_gpus 8 --master_port 70000 train.py\n")
    (finding,) = ports(script)
    assert "init_process_group fails" in finding.message and finding.current == 70000
    script.write_text("deepspeed --num_gpus 8 --master_port 29501 train.py\n")
    assert ports(script) == []
