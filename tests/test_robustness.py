"""Never execute, never crash: payloads that would leave a trace, and hostile inputs."""

from __future__ import annotations

import http.server
import os
import threading
from pathlib import Path

import pytest

from recipelint import engine
from recipelint.hardware.profile import from_mapping
from recipelint.settings import Resolver
from tests.helpers import NODE, RecipeSpec, cli


def run(*paths: Path) -> engine.Result:
    profile = from_mapping(dict(NODE), "p")
    return engine.check(list(paths), hardware=lambda: profile, resolver=Resolver(isolated=True))


def test_payloads_leave_nothing_behind(tmp_path: Path) -> None:
    marker = tmp_path / "pwned"
    (tmp_path / "a.yaml").write_text(f"encoder: !!python/object/apply:os.system ['touch {marker}']\ndataset_conf: {{}}\naccum_grad: 1\n")
    (tmp_path / "cfg.py").write_text(
        f"import os\nos.system('touch {marker}')\ntrain_dataloader = dict(num_workers=__import__('os').system('touch {marker}'))\n"
    )
    (tmp_path / "run.sh").write_text(
        f"touch {marker}\n$(touch {marker})\npython wenet/bin/train.py --config conf/x.yaml --num_workers $(touch {marker}; echo 4)\n"
    )
    (tmp_path / "train.sh").write_text(f"NPROC_PER_NODE=$(touch {marker}) xtuner train cfg.py\n")
    result = cli("check", str(tmp_path), "--isolated")
    assert result.returncode in (0, 1, 2) and "Traceback" not in result.stderr
    assert not marker.exists()


class _Recorder(http.server.BaseHTTPRequestHandler):
    hits: list[str] = []

    def do_GET(self) -> None:  # noqa: N802
        _Recorder.hits.append(self.path)
        self.send_response(200)
        self.end_headers()

    def log_message(self, *args: object) -> None:
        pass


def test_data_list_urls_are_never_fetched(tmp_path: Path) -> None:
    server = http.server.HTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{server.server_port}/shard"
        spec = RecipeSpec(shards=[f"{url}_{i}.tar" for i in range(16)])
        found = run(spec.write(tmp_path)).diagnostics
        assert "RL203" in {d.code for d in found}  # classified as remote by its scheme
        assert _Recorder.hits == []
    finally:
        server.shutdown()


@pytest.mark.parametrize(
    ("name", "content", "expected"),
    [
        ("bad.yaml", b"encoder: [unclosed\n", ":2:1: invalid YAML"),
        ("ds_bad.json", b'{"a": 1,, }', ":1:9: invalid JSON"),  # named as a DeepSpeed config: meant as one
        ("bad.py", b"train_dataloader = dict(\n", "invalid Python"),
        ("bad.sh", b"if then fi ((( $(\n", ":1:1: shell syntax the parser cannot read"),
        ("binary.yaml", b"\x00\x01\x02\x03", "binary file"),
        ("latin1.yaml", b"encoder: caf\xe9\n", ":1:13: not valid UTF-8"),
        ("ds_deep.json", b"[" * 5000 + b"]" * 5000, "nested more than 200 levels"),
        ("deep.yaml", b"a: " + b"[" * 5000 + b"]" * 5000 + b"\n", "nested more than 200 levels"),
        # ruamel's C composer recursed without a check on these and killed the interpreter (exit 139)
        ("deeper.yaml", b"a: " + b"[" * 30000 + b"\n", "nested more than 200 levels"),
        ("flowmaps.yaml", b"a: " + b"{b: " * 30000 + b"\n", "nested more than 200 levels"),
        ("dashes.yaml", b"a:\n" + b"- " * 30000 + b"x\n", "nested more than 200 levels"),
        ("deep.py", b"train_dataloader = " + b"(" * 5000 + b"1" + b")" * 5000 + b"\n", "invalid Python"),
        pytest.param(
            "bomb.yaml",
            b"a: &a [x,x,x,x,x,x,x,x,x,x]\n"
            + b"".join(b"%c: &%c [" % (97 + i, 97 + i) + b", ".join([b"*%c" % (96 + i)] * 10) + b"]\n" for i in range(1, 9)),
            "alias bomb",
            marks=pytest.mark.slow,  # the walk up to the real 200,000-node budget
        ),
    ],
)
def test_bad_input_is_one_line_and_others_are_still_checked(tmp_path: Path, name: str, content: bytes, expected: str) -> None:
    (tmp_path / name).write_bytes(content)
    (tmp_path / "good.yaml").write_text("encoder: conformer\ngrad_clipp: 5\ndataset_conf: {}\nmax_epoch: 1\n")
    result = cli("check", str(tmp_path / name), str(tmp_path / "good.yaml"), "--isolated")
    assert result.returncode == 2
    assert "Traceback" not in result.stderr + result.stdout
    lines = [line for line in result.stderr.splitlines() if line.strip()]
    assert len(lines) == 1 and lines[0].startswith(str(tmp_path / name)) and expected in lines[0], lines
    assert "RL701" in result.stdout


def test_large_file_is_refused_quickly(tmp_path: Path) -> None:
    big = tmp_path / "big.yaml"
    with open(big, "wb") as handle:
        handle.write(b"a: ")
        handle.write(b"x" * (50 * 1024 * 1024))
    result = cli("check", str(big), "--isolated")
    assert result.returncode == 2 and "50 MiB, over the 1 MiB limit" in result.stderr


def test_bom_crlf_and_empty_yaml_are_read(tmp_path: Path) -> None:
    (tmp_path / "bom.yaml").write_bytes(b"\xef\xbb\xbfencoder: conformer\r\ngrad_clipp: 5\r\ndataset_conf: {}\r\nmax_epoch: 1\r\n")
    (tmp_path / "empty.yaml").write_bytes(b"")
    result = run(tmp_path / "bom.yaml", tmp_path / "empty.yaml")
    assert result.errors == []
    found = [d for d in result.diagnostics if d.code == "RL701"]
    assert (found[0].span.line, found[0].span.column) == (2, 1)


def test_symlink_loop_and_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    os.symlink(tmp_path / "loop_b", tmp_path / "loop_a")
    os.symlink(tmp_path / "loop_a", tmp_path / "loop_b")
    (tmp_path / "secret.yaml").write_text("encoder: x\n")
    (tmp_path / "good.yaml").write_text("encoder: conformer\ngrad_clipp: 5\ndataset_conf: {}\nmax_epoch: 1\n")
    real_open = os.open

    def guarded(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        if str(path).endswith("secret.yaml"):  # root reads a chmod 000 file, so refuse it here
            raise PermissionError(13, "Permission denied")
        return real_open(path, *args, **kwargs)

    monkeypatch.setattr(os, "open", guarded)
    result = run(tmp_path / "loop_a", tmp_path / "secret.yaml", tmp_path / "good.yaml", tmp_path)
    messages = sorted(str(e) for e in result.errors)
    assert any("loop_a: a symlink loop or a link to nothing" in m for m in messages)
    assert any("secret.yaml: permission denied" in m for m in messages)
    assert "RL701" in {d.code for d in result.diagnostics}


def test_python_config_with_lone_carriage_returns(tmp_path: Path) -> None:
    # Found by the long fuzz run: Python ends lines at a lone \r too, so spans must count them.
    from recipelint.parse.files import FileCache
    from recipelint.parse.pyconfig import parse_pyconfig

    path = tmp_path / "cfg.py"
    path.write_bytes(b"\r\rdataloader_num_workers = 4\r\nbatch_size = 2\rtrain_dataloader = dict(num_workers=dataloader_num_workers)\n")
    config = parse_pyconfig(FileCache().read(path))
    workers = config.get("train_dataloader.num_workers")
    assert workers is not None and workers.value == 4
    assert config.source.data[workers.span.start : workers.span.end] == b"4"  # lines are numbered by LF, as everywhere
    assert run(path).errors == []


def test_a_link_to_nothing_in_a_folder_says_where_it_leads(tmp_path: Path) -> None:
    """modelscope/FunASR@3c58cb5's examples/wenetspeech/conformer/demo_infer.sh links to
    ../paraformer/demo_infer.sh, which that folder lacks: `ls` shows the file, so 'no such file'
    read as a bug of recipelint's; the line says where the link leads."""
    os.symlink("../paraformer/demo_infer.sh", tmp_path / "demo_infer.sh")
    (tmp_path / "gone.sh").write_text("true\n")
    result = run(tmp_path, tmp_path / "gone.sh")
    messages = [str(e) for e in result.errors]
    assert messages == [f"{tmp_path / 'demo_infer.sh'}: a link to ../paraformer/demo_infer.sh, which does not exist"]
    (tmp_path / "gone.sh").unlink()
    assert [str(e) for e in run(tmp_path / "gone.sh").errors] == [f"{tmp_path / 'gone.sh'}: no such file or directory"]
