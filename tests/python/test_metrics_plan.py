"""Sampler on a simulated node; the planner equals `axl plan --json`."""

from __future__ import annotations

import pytest

import axl
from conftest import SIMS, cli_json


def test_sampler(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv, axl.Sampler(inv, processes=True) as s:
        first = s.sample()
        assert first.interval_ms is None
        second = s.sample()
        assert second.interval_ms is not None and second.interval_ms >= 0
        assert second.time_ns >= first.time_ns
        ids = [d.id for d in inv.devices]
        assert [d.id for d in second.devices][: len(ids)] == ids
        d0 = second.device("nvidia:0")
        assert d0.state == "ok"
        assert d0.get("memory_total_bytes") == inv.devices[0].memory_total_bytes
        assert set(d0.metrics) <= set(axl.metric_names())
        assert all(src for src in d0.sources.values())
        assert second.raw["schema"] == "axl.metrics"
        assert "axl_" in second.prometheus
        cli = cli_json("metrics", "--json", "--sim", sim_h100x2)
        assert [d["id"] for d in cli["devices"]] == [d["id"] for d in second.raw["devices"]]
    assert axl.metric_unit("power_watts") == "watts"
    with pytest.raises(KeyError):
        axl.metric_unit("nope")


@pytest.mark.parametrize("sim", SIMS)
def test_plan_equals_cli(sim):
    with axl.open(sim=sim) as inv:
        p = axl.plan("llama3.1-8b", inv)
        doc = cli_json("plan", "llama3.1-8b", "--json", "--sim", sim)
        assert p.raw == doc
        assert p.fits == doc.get("fits", p.fits)
        assert p.text
        p2 = axl.plan("llama3.1-8b", inv, quantization="int4", context_tokens=4096, batch=4)
        doc2 = cli_json("plan", "llama3.1-8b", "--json", "--sim", sim, "--quant", "int4",
                        "--ctx", "4096", "--batch", "4")
        assert p2.raw == doc2


def test_plan_nodes_json(sim_h100x2):
    with axl.open(sim=sim_h100x2) as inv:
        a = axl.plan("llama3.1-70b", [inv.raw, inv.json()])
        assert a.raw["schema"] == "axl.plan"


def test_model_info_and_catalog():
    cat = axl.catalog()
    assert ("meta-llama/Llama-3.1-8B", "llama3.1-8b") in cat
    info = axl.model_info("llama3.1-8b")
    assert info.name == "meta-llama/Llama-3.1-8B"
    assert info.params and info.params > 7_000_000_000
    with pytest.raises(axl.NotFoundError) as e:
        axl.model_info("no-such-model-xyz")
    assert e.value.name == "ENOENT"
