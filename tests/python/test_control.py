"""Limits and partitions with AXL_STATE_DIR in a temporary directory."""

from __future__ import annotations

import os

import pytest

import axl
from conftest import TESTS, cli_json


def test_limits(sim_h100x2, tmp_path):
    env = {"AXL_STATE_DIR": str(tmp_path / "state")}
    with axl.open(sim=sim_h100x2, env=env) as inv:
        assert inv.state_dir == env["AXL_STATE_DIR"]
        assert axl.limits(inv) == []
        axl.set_limit(inv, "nvidia:0", memory_bytes=1 << 30, compute_percent=50)
        axl.set_limit(inv, "nvidia:1", compute_percent=25)
        ls = axl.limits(inv)
        assert [(l.device, l.memory_bytes, l.compute_percent) for l in ls] == [
            ("nvidia:0", 1 << 30, 50), ("nvidia:1", None, 25)]
        assert ls[0].pid == os.getpid()
        cli = cli_json("limit", "list", "--json", "--sim", sim_h100x2,
                       env={**os.environ, **env})
        assert [l["device"] for l in cli["limits"]] == ["nvidia:0", "nvidia:1"]
        e = axl.limit_env(inv, ["nvidia:0", "nvidia:1"])
        assert e["AXL_LIMIT_VERSION"] == "1"
        assert e["AXL_LIMIT_COMPUTE_PERCENT"] == "50,25"
        assert e["CUDA_DEVICE_MEMORY_LIMIT_0"] == str(1 << 30)
        assert axl.clear_limit(inv, "nvidia:0") == 1
        assert axl.clear_limit(inv, "nvidia:0") == 0
        assert [l.device for l in axl.limits(inv)] == ["nvidia:1"]
        with pytest.raises(axl.NotFoundError):
            axl.set_limit(inv, "nvidia:9", compute_percent=10)
        with pytest.raises(ValueError):
            axl.set_limit(inv, "nvidia:0", compute_percent=101)
        with pytest.raises(axl.AxlError):
            axl.set_limit(inv, "nvidia:0")
        with pytest.raises(TypeError):
            axl.set_limit(inv, "nvidia:0", memory_bytes="1G")
        with pytest.raises(axl.OutOfRangeError):
            axl.set_limit(inv, "nvidia:0", memory_bytes=1 << 62)


def test_partitions(tmp_path):
    sim = os.path.join(TESTS, "sim", "a100-mig-off.json")
    env = {"AXL_STATE_DIR": str(tmp_path / "state")}
    with axl.open(sim=sim, env=env) as inv:
        migdevs = [d for d in inv.devices
                   if any(p.get("mode") == "enabled" for p in d.raw.get("partitioning", []))]
        offdevs = [d for d in inv.devices
                   if any(p.get("mode") == "disabled" for p in d.raw.get("partitioning", []))]
        if offdevs:
            with pytest.raises(axl.NotSupportedError):
                axl.create_partition(inv, offdevs[0].id, "1g.10gb")
        if not migdevs:
            pytest.skip("no device in MIG mode in %s" % sim)
        dev = migdevs[0].id
        before = axl.partitions(inv)
        p = axl.create_partition(inv, dev, "1g.10gb")
        assert p.parent == dev and p.profile == "1g.10gb" and p.owner_pid == os.getpid()
        assert p.owner == "workload"
        assert ":" not in p.id and "," not in p.id
        assert any(v.startswith("MIG-") for v in p.env.values())
        assert len(axl.partitions(inv)) == len(before) + 1
    with axl.open(sim=sim, env=env) as inv:
        # a new inventory lists the partition as a device
        assert inv.device(p.device).id == p.device
        assert axl.destroy_partition(inv, p.id) == 1
        assert axl.destroy_partition(inv, p.id) == 0
        with pytest.raises(axl.NotFoundError):
            axl.create_partition(inv, dev, "99g.1tb")
        assert axl.cleanup_partitions(inv) >= 0
