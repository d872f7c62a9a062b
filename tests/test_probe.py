"""The probe on fake procfs/sysfs/cgroup trees and a fake NVML."""

from __future__ import annotations

from pathlib import Path

from recipelint.hardware.probe import probe, probe_gpus
from recipelint.hardware.profile import dump_profile, load_profile
from tests.helpers import FakeNvml, RecipeSpec, fake_root, lint


def test_cgroup_v2_quota_wins_over_affinity(tmp_path: Path) -> None:
    hw = probe(fake_root(tmp_path, {"cpu.max": "400000 100000\n", "memory.max": str(16 * 1024**3)}))
    assert hw.value("cpus") == 4 and hw.value("host_cpus") == 96
    assert hw.fact("cpus").source == "cgroup cpu.max (400000 100000)"
    assert hw.value("memory_gib") == 16.0 and hw.fact("memory_gib").source == "cgroup memory.max"


def test_cgroup_v1_quota_and_unlimited_values(tmp_path: Path) -> None:
    root = fake_root(tmp_path, {})
    v1 = root / "sys/fs/cgroup/cpu,cpuacct"
    v1.mkdir(parents=True)
    (v1 / "cpu.cfs_quota_us").write_text("250000\n")
    (v1 / "cpu.cfs_period_us").write_text("100000\n")
    mem = root / "sys/fs/cgroup/memory"
    mem.mkdir(parents=True)
    (mem / "memory.limit_in_bytes").write_text("9223372036854771712\n")  # v1's "no limit"
    hw = probe(root)
    assert hw.value("cpus") == 3  # ceil(2.5)
    assert hw.value("memory_gib") == 512.0 and hw.fact("memory_gib").source == "/proc/meminfo"


def test_no_quota_uses_affinity(tmp_path: Path) -> None:
    hw = probe(fake_root(tmp_path, {"cpu.max": "max 100000\n"}, cpus="0-3,8-11"))
    assert hw.value("cpus") == 8 and "Cpus_allowed_list" in hw.fact("cpus").source


def test_infiniband_and_interfaces(tmp_path: Path) -> None:
    root = fake_root(tmp_path, {})
    port = root / "sys/class/infiniband/mlx5_0/ports/1"
    port.mkdir(parents=True)
    (port / "state").write_text("4: ACTIVE\n")
    (port / "rate").write_text("200 Gb/sec (4X HDR)\n")
    (port / "link_layer").write_text("InfiniBand\n")
    for name, state in (("eth0", "up"), ("ib0", "up"), ("eth1", "down")):
        (root / f"sys/class/net/{name}").mkdir(parents=True)
        (root / f"sys/class/net/{name}/operstate").write_text(state + "\n")
    hw = probe(root)
    assert hw.value("inter_node_network") == "infiniband"
    assert hw.value("infiniband") == {"mlx5_0/1": {"state": "ACTIVE", "rate": "200 Gb/sec (4X HDR)", "link_layer": "InfiniBand"}}
    assert hw.value("interfaces") == {"eth0": "up", "eth1": "down", "ib0": "up"}
    (port / "state").write_text("1: DOWN\n")
    assert probe(root).value("inter_node_network") == "ethernet"


def test_fake_nvml(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES", raising=False)
    facts = probe_gpus(FakeNvml(4))
    assert {k: f.value for k, f in facts.items()} == {
        "gpus": 4,
        "gpu_model": "Tesla V100-SXM2-32GB",
        "gpu_memory_gib": 32.0,
        "gpu_compute_capability": "7.0",
        "gpu_driver": "550.54.15",
        "nvlink": 6,
    }
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "1,3")
    assert probe_gpus(FakeNvml(4))["gpus"].value == 2


def test_nvml_failures_become_unknown_with_reason() -> None:
    for fail, reason in (
        ("init", "NVML init failed: NVML Shared Library Not Found"),
        ("count", "NVML query failed: Insufficient Permissions"),
    ):
        facts = probe_gpus(FakeNvml(fail=fail))
        assert facts["gpus"].value is None and facts["gpus"].reason == reason


def test_nvml_is_only_loaded_when_a_gpu_fact_is_needed(tmp_path: Path) -> None:
    nvml = FakeNvml()
    hw = probe(fake_root(tmp_path, {}), nvml)
    assert hw.value("cpus") == 96 and nvml.calls == []
    assert hw.value("gpus") == 2 and nvml.calls == ["init", "shutdown"]


def test_profile_round_trip_gives_the_same_findings(tmp_path: Path) -> None:
    live = probe(fake_root(tmp_path, {"cpu.max": "400000 100000\n"}), FakeNvml(4))
    saved = tmp_path / "node.yaml"
    saved.write_text(dump_profile(live))
    loaded = load_profile(saved)
    assert loaded.value("cpus") == 4 and loaded.value("gpus") == 4
    script = RecipeSpec().write(tmp_path / "r")
    from recipelint import engine

    with_live = engine.check([script], hardware=lambda: live).diagnostics
    with_saved = engine.check([script], hardware=lambda: loaded).diagnostics
    assert [(d.code, d.message) for d in with_live] == [(d.code, d.message) for d in with_saved]


def test_cpu_rule_uses_the_cgroup_and_says_why(tmp_path: Path) -> None:
    hw = probe(fake_root(tmp_path, {"cpu.max": "400000 100000\n"}), FakeNvml(4))
    script = RecipeSpec(devices="0,1").write(tmp_path / "r")
    profile = hw.to_dict()
    found = [d for d in lint(script, profile) if d.code == "RL102"]
    assert found and "only 4 CPUs are usable" in found[0].message
    assert "cpus 4 from profile test.yaml (cgroup cpu.max (400000 100000)), host has 96" in found[0].evidence


def test_merge_takes_the_weakest_node_and_reports_differences(tmp_path: Path) -> None:
    from recipelint.hardware.merge import merge
    from recipelint.hardware.profile import from_mapping

    a = from_mapping(
        {
            "cpus": 96,
            "memory_gib": 512,
            "gpus": 8,
            "gpu_model": "NVIDIA H100",
            "gpu_compute_capability": "9.0",
            "inter_node_network": "infiniband",
            "interfaces": {"eth0": "up", "ib0": "up"},
        },
        "a",
    )
    b = from_mapping(
        {
            "cpus": 64,
            "memory_gib": 512,
            "gpus": 4,
            "gpu_model": "Tesla V100",
            "gpu_compute_capability": "7.0",
            "inter_node_network": "ethernet",
            "interfaces": {"eth0": "up"},
        },
        "b",
    )
    merged = merge([(Path("a.yaml"), a), (Path("b.yaml"), b)])
    assert merged.value("nodes") == 2
    assert (merged.value("cpus"), merged.value("gpus"), merged.value("gpu_compute_capability")) == (64, 4, "7.0")
    assert merged.value("inter_node_network") == "ethernet" and merged.value("interfaces") == {"eth0": "up"}
    assert merged.differs == [
        "cpus: a.yaml=96, b.yaml=64",
        "gpu_compute_capability: a.yaml=9.0, b.yaml=7.0",
        "gpu_model: a.yaml=NVIDIA H100, b.yaml=Tesla V100",
        "gpus: a.yaml=8, b.yaml=4",
        "inter_node_network: a.yaml=infiniband, b.yaml=ethernet",
    ]


def test_probe_merge_cli_writes_a_valid_profile(tmp_path: Path) -> None:
    from tests.helpers import cli

    for name, cpus in (("a.yaml", 96), ("b.yaml", 48)):
        (tmp_path / name).write_text(f"cpus: {cpus}\nmemory_gib: 256\ngpus: 8\n")
    out = tmp_path / "cluster.yaml"
    result = cli("probe", "--merge", str(tmp_path / "a.yaml"), str(tmp_path / "b.yaml"), "--output", str(out))
    assert result.returncode == 0 and "nodes differ in cpus: a.yaml=96, b.yaml=48" in result.stderr
    merged = load_profile(out)
    assert merged.value("cpus") == 48 and merged.value("nodes") == 2 and merged.differs


def test_missing_shm_and_unimportable_pynvml_are_unknown_with_reason(tmp_path: Path, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    import builtins
    import shutil

    root = fake_root(tmp_path, {})
    shutil.rmtree(root / "dev")
    hw = probe(root)
    assert hw.value("shm_gib") is None and "No such file or directory" in (hw.fact("shm_gib").reason or "")
    real_import = builtins.__import__

    def no_pynvml(name, *args, **kwargs):  # type: ignore[no-untyped-def]
        if name == "pynvml":
            raise ImportError("libnvidia-ml.so.1: cannot open shared object file")
        return real_import(name, *args, **kwargs)

    monkeypatch.setattr(builtins, "__import__", no_pynvml)
    facts = probe_gpus()
    assert (
        facts["gpus"].value is None and facts["gpus"].reason == "pynvml not importable: libnvidia-ml.so.1: cannot open shared object file"
    )
