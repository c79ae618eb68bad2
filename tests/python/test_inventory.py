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
    assert [(l.a, l.b, l.kind) for l in inv.links] == [(l["a"], l["b"], l["kind"]) for l in doc["links"]]
    assert [n.name for n in inv.nics] == [n["name"] for n in doc.get("nics", [])]
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
