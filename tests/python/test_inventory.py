"""axl.open() on every simulated node and every recorded tree equals `axl list --json`."""

from __future__ import annotations

import os

import pytest

import axl
from conftest import SIMS, TREES, cli_json


def _compare(inv: axl.Inventory, doc: dict) -> None:
    assert inv.raw == doc
    assert [d.id for d in inv.devices] == [d["id"] for d in doc["devices"]]
    for dev, raw in zip(inv.devices, doc["devices"]):
        assert dev.raw == raw
        assert dev.index == raw.get("index")
        assert dev.family == raw["family"]
        assert dev.uuid == raw.get("uuid")
        assert dev.model == raw.get("model")
        assert dev.memory_total_bytes == raw.get("memory", {}).get("total_bytes")
        assert dev.pci_address == raw.get("pci", {}).get("address")
        if "vendor_id" in raw:
            assert dev.vendor_id == int(raw["vendor_id"], 16)
        else:
            assert dev.vendor_id is None
        assert dev.sources == raw["sources"]
        for key, src in raw.get("field_sources", {}).items():
            assert dev.source(key) == src
        assert [c.id for c in dev.children] == [c["id"] for c in raw.get("children", [])]
        assert inv.device(dev.id) is dev
        mem = raw.get("memory", {})
        for key in ("total_bytes", "type", "bus_width_bits", "bandwidth_gbps", "l2_cache_bytes",
                    "l1_cache_bytes_per_unit", "shared_memory_bytes_per_unit", "channels", "stacks"):
            assert getattr(dev.memory, key) == mem.get(key), key
        assert [(u.name, u.count, u.source) for u in dev.compute_units] == \
            [(u["name"], u.get("count"), u.get("source")) for u in raw.get("compute_units", [])]
        assert [(p.format, p.support, p.peak_tflops) for p in dev.precision] == \
            [(p["format"], p.get("support"), p.get("peak_tflops")) for p in raw.get("precision", [])]
        for p in raw.get("precision", []):
            assert dev.precision_of(p["format"].lower()) == p.get("support")
        assert [(p.technology, p.max_partitions, p.profiles) for p in dev.partitioning] == \
            [(p["technology"], p.get("max_partitions"), p.get("profiles", [])) for p in raw.get("partitioning", [])]
    assert [(l.a, l.b, l.kind) for l in inv.links] == [(l["a"], l["b"], l["kind"]) for l in doc["links"]]
    assert [n.name for n in inv.nics] == [n["name"] for n in doc.get("nics", [])]
    assert [n.rate_gbps for n in inv.nics] == [n.get("rate_gbps") for n in doc.get("nics", [])]
    assert inv.host.hostname == doc["host"].get("hostname")
    assert inv.host.memory_total_bytes == doc["host"].get("memory", {}).get("total_bytes")
    assert len(inv.warnings) == len(doc["warnings"])


@pytest.mark.parametrize("sim", SIMS, ids=[os.path.basename(s)[:-5] for s in SIMS])
def test_sim_node(sim):
    with axl.open(sim=sim) as inv:
        _compare(inv, cli_json("list", "--json", "--sim", sim))
        assert inv.simulated
        assert inv.json() == inv.json()


@pytest.mark.parametrize("sim", SIMS[:1])
def test_all_has_cpu(sim):
    with axl.open(sim=sim, all=True) as inv:
        _compare(inv, cli_json("list", "--json", "--all", "--sim", sim))


@pytest.mark.parametrize("spec", TREES, ids=[os.path.basename(s)[:-5] for s in TREES])
def test_tree_node(spec, tree_dir):
    root = tree_dir(spec)
    with axl.open(root) as inv:
        _compare(inv, cli_json("list", "--json", "--sysroot", root))
        assert inv.rerooted
        assert inv.sysroot.rstrip("/") == os.path.realpath(root).rstrip("/") or inv.sysroot


def test_backends_and_env(sim_h100x2):
    assert "nvidia" in axl.backends()
    env = {"CUDA_VISIBLE_DEVICES": "1"}
    with axl.open(sim=sim_h100x2, env=env) as inv:
        doc = cli_json("list", "--json", "--sim", sim_h100x2, "--env", "CUDA_VISIBLE_DEVICES=1")
        assert inv.raw == doc
        assert inv.device("nvidia:0").visible is False
        assert inv.device("nvidia:1").visible is True
    with axl.open(sim=sim_h100x2, backends=["nvidia"]) as inv:
        assert len(inv.devices) == 2


def test_version():
    assert axl.version().startswith("0.")
    assert os.path.basename(axl.library_path()).startswith("libaxl")


def test_bep1000_facts(sim_h100x2):
    """The device database's BEP-1000 facts reach the typed fields: an H100's memory
    hierarchy and its Tensor Cores; FP4 is none (no NVIDIA architecture before Blackwell
    has it); a format no document settles (an MI300X's INT4) is unknown."""
    with axl.open(sim=sim_h100x2) as inv:
        d = inv.devices[0]
        assert d.memory.l1_cache_bytes_per_unit == 256 * 1024
        assert d.memory.shared_memory_bytes_per_unit == 228 * 1024
        assert d.memory.stacks == 5 and d.memory.channels == 10
        assert ("Tensor Core", 528) in [(u.name, u.count) for u in d.compute_units]
        assert d.precision_of("FP8") == "native"
        assert d.precision_of("INT4") == "none"
        assert d.precision_of("FP4") == "none"
        assert d.partitioning[0].technology == "MIG" and "1g.10gb" in d.partitioning[0].profiles
    with axl.open(sim=os.path.join(os.path.dirname(sim_h100x2), "mi300x8.json")) as inv:
        d = inv.devices[0]
        assert d.precision_of("FP8") == "native" and d.precision_of("FP4") == "none"
        assert d.precision_of("INT4") is None


# the registry questions: select/best/total_memory agree with `axl list`'s filters on every sim
@pytest.mark.parametrize("sim", SIMS, ids=[os.path.basename(s)[:-5] for s in SIMS])
def test_select_matches_cli(sim):
    with axl.open(sim=sim) as inv:
        for args, kw in ((["--family", "gpu"], {"family": "gpu"}),
                         (["--min-memory", "40GiB"], {"min_memory": 40 << 30}),
                         (["--precision", "fp8"], {"precision": "fp8"}),
                         (["--visible"], {"visible": True}),
                         (["--family", "gpu", "--precision", "bf16", "--min-memory", "16GiB"],
                          {"family": "gpu", "precision": "bf16", "min_memory": 16 << 30})):
            doc = cli_json("list", "--json", "--sim", sim, *args)
            got = inv.select(**kw)
            assert [d.id for d in got] == [d["id"] for d in doc["devices"]], args
            assert all(isinstance(d, axl.Device) for d in got)
            total, unknown = inv.total_memory(**kw)
            assert total == doc["selection"]["total_memory"]["bytes"]
            assert unknown == doc["selection"]["total_memory"]["devices_unknown"]
            assert total == sum(d.memory_total_bytes or 0 for d in got)
            assert unknown == sum(1 for d in got if d.memory_total_bytes is None)
        gpus = inv.select(family="gpu")
        if gpus and all(d.memory_total_bytes for d in gpus):
            best = inv.best("memory", family="gpu")
            assert best.memory_total_bytes == max(d.memory_total_bytes for d in gpus)
            assert best is gpus[[d.memory_total_bytes for d in gpus].index(best.memory_total_bytes)]


def test_select_bad_input(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv:
        with pytest.raises(ValueError):
            inv.select(family="dsp")
        with pytest.raises(ValueError):
            inv.select(precision="fp9")
        with pytest.raises(ValueError):
            inv.select(min_memory=-1)
        with pytest.raises(ValueError):
            inv.best("speed")
        with pytest.raises(TypeError):
            inv.total_memory(colour="red")
        assert inv.select(min_memory=1 << 50) == []
        with pytest.raises(axl.NotFoundError):
            inv.best("memory", min_memory=1 << 50)


def test_nic_rate_units():
    """Every rate in axl's JSON is GB/s in a key ending _gbps (docs/json.md "Units"); an
    axl.inventory of schema_version 1 gave the NIC's port rate in Gb/s as rate_gbit."""
    from axl.inventory import Nic
    assert Nic.from_json({"name": "mlx5_0", "rate_gbps": 50}).rate_gbps == 50
    assert Nic.from_json({"name": "mlx5_0", "rate_gbit": 400}).rate_gbps == 50
    assert Nic.from_json({"name": "mlx5_0", "rate_gbit": 100}).rate_gbps == 12.5
    assert Nic.from_json({"name": "mlx5_0"}).rate_gbps is None
