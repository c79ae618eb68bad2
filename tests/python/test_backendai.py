"""axl.backendai driven the way the Backend.AI agent drives a compute plugin.

The agent's classes are the stand-in in tests/python/backendai_agent (each file mirrors
the upstream file and commit it names), or, with AXL_BACKENDAI_UPSTREAM set, upstream's
own (tests/compat/backendai/run_upstream.py puts lablup/backend.ai and aiodocker on the
path); the plugins are loaded through the backendai_accelerator_v21 entry
points read from python/pyproject.toml. Nodes: tests/sim/*.json, h100x8-mig2.json (8 H100,
2 in MIG mode) with MIG devices created in a temporary AXL_STATE_DIR.
"""

from __future__ import annotations

import asyncio
import importlib
import inspect
import json
import os
import subprocess
import sys
import tomllib
from decimal import Decimal

import jsonschema
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("AXL_BACKENDAI_UPSTREAM"):
    sys.path.insert(0, os.path.join(HERE, "backendai_agent"))

import axl  # noqa: E402
from conftest import SIMS, TESTS  # noqa: E402

ROOT = os.path.dirname(TESTS)
MIG2 = os.path.join(TESTS, "sim", "h100x8-mig2.json")


def run(coro):
    return asyncio.run(coro)


def entry_points() -> dict[str, type]:
    with open(os.path.join(ROOT, "python", "pyproject.toml"), "rb") as f:
        eps = tomllib.load(f)["project"]["entry-points"]["backendai_accelerator_v21"]
    out = {}
    for name, ref in eps.items():
        # "axl-<key>": never an upstream plugin's name (test_entry_points_never_collide)
        assert name.startswith("axl-"), name
        mod, attr = ref.split(":")
        out[name.removeprefix("axl-")] = getattr(importlib.import_module(mod), attr)
    return out


def schema_validator(name: str) -> jsonschema.Draft202012Validator:
    docs = {}
    for n in ("backendai-device-info.schema.json", "backendai-resource-spec.schema.json"):
        with open(os.path.join(ROOT, "schema", n)) as f:
            docs[n] = json.load(f)
    store = {d["$id"]: d for d in docs.values()}
    resolver = jsonschema.RefResolver.from_schema(docs[name], store=store)
    jsonschema.Draft202012Validator.check_schema(docs[name])
    return jsonschema.Draft202012Validator(docs[name], resolver=resolver)


@pytest.fixture(scope="module")
def mig_state(tmp_path_factory) -> str:
    """AXL_STATE_DIR with MIG devices on the 2 MIG-mode GPUs of h100x8-mig2."""
    st = str(tmp_path_factory.mktemp("state"))
    with axl.open(sim=MIG2, env={"AXL_STATE_DIR": st}) as inv:
        axl.create_partition(inv, "nvidia:0", "3g.40gb")
        axl.create_partition(inv, "nvidia:0", "3g.40gb")
        axl.create_partition(inv, "nvidia:1", "1g.10gb")
        axl.create_partition(inv, "nvidia:1", "1g.10gb")
    return st


def test_entry_points_subclass_the_agent_interface():
    from ai.backend.agent.resources import AbstractComputePlugin
    eps = entry_points()
    # upstream's keys (lablup/backend.ai c0032c47, src/ai/backend/accelerator/*/plugin.py)
    assert {"cuda", "rocm", "gaudi2", "gaudi3", "neuron", "tpu", "tt-n300", "tenstorrent", "ascend",
            "xpu"} <= set(eps)
    import axl.backendai as b
    assert b.HAVE_AGENT
    for name, cls in eps.items():
        assert issubclass(cls, AbstractComputePlugin) and cls.key == name
        assert not inspect.isabstract(cls), name
        # sync/async exactly as the interface declares them
        for m, want_async in (("get_metadata", False), ("get_version", False),
                              ("get_additional_gids", False), ("get_additional_allowed_syscalls", False),
                              ("list_devices", True), ("available_slots", True), ("extra_info", True),
                              ("gather_node_measures", True), ("gather_container_measures", True),
                              ("gather_process_measures", True), ("create_alloc_map", True),
                              ("get_hooks", True), ("generate_docker_args", True),
                              ("generate_resource_data", True), ("restore_from_container", True),
                              ("get_attached_devices", True), ("get_node_hwinfo", True),
                              ("get_docker_networks", True), ("generate_mounts", True),
                              ("init", True), ("cleanup", True), ("update_plugin_config", True)):
            assert inspect.iscoroutinefunction(getattr(cls, m)) == want_async, (name, m)
        base = getattr(AbstractComputePlugin, "generate_docker_args")
        assert list(inspect.signature(cls.generate_docker_args).parameters) == \
            list(inspect.signature(base).parameters)


def test_mixed_mig_node(mig_state):
    cls = entry_points()["cuda"]
    p = cls({"sim": MIG2, "state_dir": mig_state}, {})
    run(p.init())
    devs = list(run(p.list_devices()))
    whole = [d for d in devs if not d.is_partition]
    migs = [d for d in devs if d.is_partition]
    assert [d.device_id for d in whole] == ["2", "3", "4", "5", "6", "7"]
    assert len(migs) == 4 and all(d.device_id.startswith("MIG-") for d in migs)
    for d in whole:
        assert d.hw_location.startswith("0000:") and d.numa_node == 1
        assert d.memory_size == 80 << 30 and d.processing_units == 132
        assert d.model_name == "NVIDIA H100 80GB HBM3" and d.uuid.startswith("GPU-")
        assert d.device_name == "cuda"
    slots = run(p.available_slots())
    assert {str(k): v for k, v in slots.items()} == {
        "cuda.device": Decimal(6), "cuda.device:3g.40gb-mig": Decimal(2),
        "cuda.device:1g.10gb-mig": Decimal(2)}
    spec = p.get_resource_spec()
    schema_validator("backendai-resource-spec.schema.json").validate(spec)
    names = [s["slot_name"] for s in spec["slots"]]
    assert names == ["cuda.device", "cuda.shares", "cuda.device:1g.10gb-mig", "cuda.device:3g.40gb-mig"]
    assert [s["allocatable"] for s in spec["slots"]] == [True, False, True, True]
    assert len(spec["partitioned_devices"]) == 2
    meta = p.get_metadata()
    assert meta["slot_name"] == "cuda.device" and meta["number_format"]["round_length"] == 0

    amap = run(p.create_alloc_map())
    got = amap.allocate({"cuda.device": Decimal(2)})
    assert sum(got["cuda.device"].values()) == 2
    mig = amap.allocate({"cuda.device:3g.40gb-mig": Decimal(1)})
    (mig_id,) = mig["cuda.device:3g.40gb-mig"]
    from ai.backend.agent.alloc_map import InsufficientResource, InvalidResourceArgument, InvalidResourceCombination
    with pytest.raises(InvalidResourceArgument):
        amap.allocate({"cuda.device:1g.10gb-mig": Decimal(2)})
    with pytest.raises(InvalidResourceCombination):
        amap.allocate({"cuda.device": Decimal(1), "cuda.device:1g.10gb-mig": Decimal(1)})
    with pytest.raises(InsufficientResource):
        amap.allocate({"cuda.device": Decimal(5)})

    alloc = {"cuda.device": got["cuda.device"], "cuda.device:3g.40gb-mig": mig["cuda.device:3g.40gb-mig"]}
    # NVIDIA driver: ordinals for whole GPUs, the MIG UUID for the MIG device
    class Docker:
        class system:
            @staticmethod
            async def info():
                return {"Runtimes": {"runc": {}, "nvidia": {}}}

        @staticmethod
        async def version():
            return {"Components": [{"Name": "Engine"}]}
    args = run(p.generate_docker_args(Docker(), alloc))
    req = args["HostConfig"]["DeviceRequests"][0]
    assert req["Driver"] == "nvidia" and req["DeviceIDs"] == sorted(got["cuda.device"]) + [mig_id]
    assert "all" not in req["Capabilities"][0]
    # Podman: CDI names as axl cdi writes them
    class Podman(Docker):
        @staticmethod
        async def version():
            return {"Components": [{"Name": "Podman Engine"}]}
    cdi = run(p.generate_docker_args(Podman(), alloc))["HostConfig"]["DeviceRequests"][0]
    assert cdi["Driver"] == "cdi"
    cli_names = set(json.loads(subprocess.run(
        [os.environ.get("AXL_CLI", os.path.join(os.path.dirname(os.environ["AXL_LIBRARY"]), "axl")),
         "--sim", MIG2, "cdi", "list", "--json"], capture_output=True, text=True,
        env={**os.environ, "AXL_STATE_DIR": mig_state}).stdout))
    assert set(cdi["DeviceIDs"]) <= cli_names, (cdi["DeviceIDs"], sorted(cli_names)[:8])
    # plain device nodes: the MIG device brings its GPU's node and its caps
    nodes = [d["PathOnHost"] for d in run(p.generate_docker_args(None, alloc))["HostConfig"]["Devices"]]
    assert "/dev/nvidiactl" in nodes and any("nvidia-caps" in n for n in nodes)
    assert all(d["CgroupPermissions"] == "mrw"
               for d in run(p.generate_docker_args(None, alloc))["HostConfig"]["Devices"])

    data = run(p.generate_resource_data(alloc))
    assert data["CUDA_RESOURCE_VIRTUALIZED"] == "0"
    assert data["CUDA_GLOBAL_DEVICE_IDS"].split(",")[-1] == "2:%s" % mig_id
    assert data["CUDA_PARTITION_PROFILES"] == "%s:3g.40gb" % mig_id
    attached = run(p.get_attached_devices(alloc))
    assert len(attached) == 3 and attached[-1]["data"]["smp"] == 60

    # restart: the agent clears the map and restores from the container's resource.txt
    return_to = amap.allocations
    assert sum(return_to["cuda.device"].values()) == 2
    run(p.cleanup())


def test_restore_from_resource_txt(mig_state, tmp_path):
    """After an agent restart: the docker agent hands restore_from_container its Container,
    whose backend_obj is an aiodocker DockerContainer (subscriptable, not a Mapping), and
    the container's resource.txt is what KernelResourceSpec wrote, byte slots with units."""
    from ai.backend.agent.resources import KernelResourceSpec, known_slot_types
    from ai.backend.agent.types import Container
    from aiodocker.containers import DockerContainer
    from axl.backendai import BackendAIPluginError, ResourceTxtError
    cls = entry_points()["cuda"]
    p = cls({"sim": MIG2, "state_dir": mig_state}, {})
    run(p.init())
    amap = run(p.create_alloc_map())
    mig_id = next(d.device_id for d in p.devices if d.is_partition and d.partition_profile == "1g.10gb")
    mig_slot = "cuda.device:1g.10gb-mig"
    # what the agent knows of slot types (docker/resources.py fills it from every plugin)
    known_slot_types.update({"cpu": "count", "mem": "bytes"})
    known_slot_types.update({str(s): str(getattr(t, "value", t)) for s, t in p.slot_types})
    spec = KernelResourceSpec(
        slots={"cpu": "1", "mem": str(8 << 30), "cuda.device": "2"},
        allocations={"cpu": {"cpu": {"0": Decimal(1)}}, "mem": {"mem": {"root": Decimal(8 << 30)}},
                     "cuda": {"cuda.device": {"3": Decimal(1), "5": Decimal(1)}, mig_slot: {mig_id: Decimal(1)}}},
        scratch_disk_size=0)
    cfg = tmp_path / "config"
    cfg.mkdir()
    text = spec.write_to_string() + "CUDA_GLOBAL_DEVICE_IDS=0:3,1:5\n"
    assert "MEM_SHARES=root:8g" in text  # the agent's own writer: units on byte slots
    (cfg / "resource.txt").write_text(text)
    inspect_data = {"Id": "c1", "State": {"Status": "running"}, "Config": {"Image": "x", "Labels": {}},
                    "HostConfig": {"Mounts": [{"Type": "bind", "Source": str(cfg), "Target": "/home/config"}]},
                    "Mounts": [{"Type": "bind", "Source": str(cfg), "Destination": "/home/config"}]}
    dc = DockerContainer(None, **inspect_data)
    assert not hasattr(dc, "get") and not hasattr(dc, "keys")  # not a Mapping, as upstream's
    container = Container(id="c1", status="running", image="x", labels={}, ports=[], backend_obj=dc)
    run(p.restore_from_container(container, amap))
    assert amap.allocations["cuda.device"]["3"] == 1 and amap.allocations["cuda.device"]["5"] == 1
    assert amap.allocations["cuda.device"]["2"] == 0
    assert amap.allocations[mig_slot][mig_id] == 1
    # the docker API's other layout (Mounts with Destination only), and a bare inspect dict
    amap = run(p.create_alloc_map())
    del inspect_data["HostConfig"]
    run(p.restore_from_container(Container(id="c1", status="running", image="x", labels={}, ports=[],
                                           backend_obj=DockerContainer(None, **inspect_data)), amap))
    assert amap.allocations["cuda.device"]["3"] == 1
    amap = run(p.create_alloc_map())
    run(p.restore_from_container(Container(id="c1", status="running", image="x", labels={}, ports=[],
                                           backend_obj=inspect_data), amap))
    assert amap.allocations["cuda.device"]["5"] == 1
    # device ids are matched as written: an id this node does not have is an error
    (cfg / "resource.txt").write_text("CUDA.DEVICE_SHARES=3:1,5:1\n%s_SHARES=%s:1\n" % (mig_slot.upper(), mig_id.upper()))
    with pytest.raises(BackendAIPluginError):
        run(p.restore_from_container(container, amap))
    # a container without a /home/config mount, or without a resource.txt, is skipped
    run(p.restore_from_container(Container(id="c2", status="running", image="x", labels={}, ports=[],
                                           backend_obj=DockerContainer(None, Id="c2", Mounts=[])), amap))
    # what the agent's reader skips is skipped (a line without "=", an entry without an
    # amount); what it cannot read is an error
    amap = run(p.create_alloc_map())
    (cfg / "resource.txt").write_text("garbage line\nCUDA.DEVICE_SHARES=3,5:1\n")
    run(p.restore_from_container(container, amap))
    assert amap.allocations["cuda.device"]["5"] == 1 and amap.allocations["cuda.device"]["3"] == 0
    for bad in ("CUDA.DEVICE_SHARES=3:x\n", "CUDA.DEVICE_SHARES=3:-1\n", "CUDA.DEVICE_SHARES=99:1\n",
                "CUDA.NOPE_SHARES=3:1\n", "CUDA.DEVICE_SHARES=3:NaN\n", "MEM_SHARES=root:8q\n",
                "CUDA.DEVICE_SHARES=3:1e999999999\n", "MEM_SHARES=root:1e999999999g\n"):
        (cfg / "resource.txt").write_text(bad)
        with pytest.raises(BackendAIPluginError):
            run(p.restore_from_container(container, amap))
    (cfg / "resource.txt").write_bytes(b"\xff\xfe\x00")
    with pytest.raises(ResourceTxtError):
        run(p.restore_from_container(container, amap))


def test_resource_txt_amounts(tmp_path):
    """Every amount the agent writes reads back as the agent reads it (BinarySize)."""
    from ai.backend.agent.resources import KernelResourceSpec, known_slot_types
    from axl.backendai import read_resource_txt
    known_slot_types.update({"mem": "bytes", "cuda.mem": "bytes", "cpu": "count", "cuda.shares": "count"})
    sizes = [0, 1, 1023, 1024, 1536, 8 << 30, 3 * (1 << 29), (80 << 30) + (1 << 20), 1 << 40]
    for size in sizes:
        spec = KernelResourceSpec(slots={}, allocations={"mem": {"mem": {"root": Decimal(size)}},
                                                         "cuda": {"cuda.shares": {"0": Decimal("0.25")}}},
                                  scratch_disk_size=0)
        f = tmp_path / "resource.txt"
        f.write_text(spec.write_to_string())
        got = read_resource_txt(f)
        want = Decimal(size)
        line = [ln for ln in f.read_text().splitlines() if ln.startswith("MEM_SHARES")][0]
        # the writer rounds to two decimals of its unit; the reader takes what was written
        from decimal import Decimal as D
        written = line.split(":", 1)[1]
        assert got["mem"]["mem"]["root"] == (want if written.isdigit() else got["mem"]["mem"]["root"]), line
        assert abs(got["mem"]["mem"]["root"] - want) <= max(want / 100, D(0)), (line, got)
        assert got["cuda"]["cuda.shares"]["0"] == Decimal("0.25")


def test_fractional_shares():
    p = entry_points()["cuda"]({"sim": MIG2, "allocation_mode": "fractional", "quantum_size": "0.5"}, {})
    run(p.init())
    slots = {str(k): v for k, v in run(p.available_slots()).items()}
    # min(80 GiB / 2 GiB, 132 SMs / 8) = 16.5 per H100 not in MIG mode (6 of 8; no MIG
    # device exists in this state: the MIG-mode GPUs give nothing)
    assert slots == {"cuda.shares": Decimal("99.00")}
    assert p.get_metadata()["display_unit"] == "fGPU"
    # 16.5 shares / quantum 0.5 = 33 fractional partitions, next to the device's MIG row
    parts = {r["technology"]: r for r in p.devices[0].device_info()["partitioning_support"]}
    assert parts["fGPU"]["max_partitions"] == 33 and parts["fGPU"]["mode"] == "enabled"
    assert parts["MIG"]["max_partitions"] == 7
    amap = run(p.create_alloc_map())
    got = amap.allocate({"cuda.shares": Decimal("2.7")})
    assert sum(got["cuda.shares"].values()) == Decimal("2.5")
    data = run(p.generate_resource_data(got))
    (dev,) = got["cuda.shares"]
    assert data["CUDA_RESOURCE_VIRTUALIZED"] == "1"
    # as upstream's mock plugin computes a share (_share_to_spec): memory unit_mem x share,
    # processors max(unit_proc x share, 4), and CUDA_RESERVED_MEMORY (64 MiB by default)
    assert data["CUDA_MEMORY_LIMITS"] == "%s:%d" % (dev, int((2 << 30) * Decimal("2.5")))
    assert data["CUDA_PROCESSOR_LIMITS"] == "%s:%d" % (dev, 20)
    assert data["CUDA_RESERVED_MEMORY"] == str(64 << 20)
    assert data["CUDA_COMPUTE_PERCENT"].startswith("%s:15.15" % dev)
    small = run(p.generate_resource_data({"cuda.shares": {dev: Decimal("0.25")}}))
    assert small["CUDA_PROCESSOR_LIMITS"] == "%s:4" % dev  # never fewer than 4 (MIN_SMP_COUNT)
    q = entry_points()["cuda"]({"sim": MIG2, "allocation_mode": "fractional", "reserved_memory": str(256 << 20)}, {})
    run(q.init())
    assert run(q.generate_resource_data({"cuda.shares": {dev: Decimal(1)}}))["CUDA_RESERVED_MEMORY"] == str(256 << 20)


def test_measurements(tmp_path):
    p = entry_points()["cuda"]({"sim": MIG2}, {})
    run(p.init())
    ms = {m.key: m for m in run(p.gather_node_measures(None))}
    from ai.backend.agent.stats import MetricTypes
    assert ms["cuda_mem"].unit_hint == "bytes" and ms["cuda_mem"].stats_filter == frozenset({"max"})
    assert ms["cuda_util"].type == MetricTypes.UTILIZATION and ms["cuda_util"].unit_hint == "percent"
    for m in ms.values():
        assert "." not in m.key and m.key.startswith("cuda_")
        assert isinstance(m.per_node.value, Decimal)
        for v in m.per_device.values():
            assert isinstance(v.value, Decimal)
    assert set(ms["cuda_util"].per_device) == {"2", "3", "4", "5", "6", "7"}
    assert ms["cuda_util"].per_node.capacity == 600
    assert ms["cuda_mem"].per_node.capacity == 6 * (80 << 30)
    with axl.open(sim=MIG2) as inv:
        axl_mem = {d.id: d.get("memory_used_bytes") for d in axl.sample(inv).devices}
    assert all(v.value > 0 for v in ms["cuda_mem"].per_device.values()) and len(axl_mem) == 8
    # a simulated node has no processes: no per-container / per-process rows, no error
    assert run(p.gather_container_measures(None, ["abc"])) == []
    assert run(p.gather_process_measures(None, {os.getpid(): "abc"})) == []


def test_container_measures_from_process_rows(monkeypatch):
    """Per-container sums from axl's per-process rows (container id or cgroup)."""
    import axl.backendai as b
    from axl.metrics import Process, Sample
    p = entry_points()["cuda"]({"sim": MIG2}, {})
    run(p.init())

    def proc(pid, dev, mem, util, cid=None, cg=None):
        return Process(pid=pid, device=dev, name="python", type="compute", memory_used_bytes=mem,
                       utilization_percent=util, encoder_utilization_percent=None,
                       decoder_utilization_percent=None, cgroup=cg, container_id=cid, source="nvml")
    smp = Sample(time_ns=1, interval_ms=None, cost_us=0, devices=[], raw={}, prometheus="",
                 processes=[proc(10, "nvidia:2", 1 << 30, 40.0, cid="aaaa1111"),
                            proc(11, "nvidia:3", 2 << 30, None, cg="/system.slice/docker-aaaa1111ffff.scope"),
                            proc(12, "nvidia:3", 4 << 30, 10.0, cid="bbbb"),
                            proc(13, "amdgpu:0", 8 << 30, 10.0, cid="aaaa1111")])
    monkeypatch.setattr(b.AxlComputePlugin, "_sample", lambda self, processes: smp)
    cm = {m.key: m for m in run(p.gather_container_measures(None, ["aaaa1111ffff", "cccc"]))}
    assert cm["cuda_mem"].per_container["aaaa1111ffff"].value == 3 << 30
    assert cm["cuda_mem"].per_container["aaaa1111ffff"].capacity == 2 * (80 << 30)
    assert cm["cuda_util"].per_container["aaaa1111ffff"].capacity == 200
    assert "cccc" not in cm["cuda_mem"].per_container
    pm = {m.key: m for m in run(p.gather_process_measures(None, {10: "a", 12: "b", 13: "a"}))}
    assert set(pm["cuda_mem"].per_process) == {10, 12}
    assert pm["cuda_util"].per_process[12].value == Decimal("10.0")


@pytest.mark.parametrize("sim", SIMS, ids=[os.path.basename(s) for s in SIMS])
def test_every_sim_every_plugin(sim):
    """Every plugin on every simulated node: device info valid against the schema, the
    BEP-1000 facts equal to axl's own."""
    dv = schema_validator("backendai-device-info.schema.json")
    rv = schema_validator("backendai-resource-spec.schema.json")
    with axl.open(sim=sim) as inv:
        axl_devs = {d.id: d for d in inv.devices}
    seen = 0
    for name, cls in entry_points().items():
        p = cls({"sim": sim}, {})
        run(p.init())
        spec = p.get_resource_spec()
        rv.validate(spec)
        for d in p.devices + p.mig_parents:
            info = d.device_info()
            dv.validate(info)
            raw = axl_devs.get(d.axl_device.id)
            if raw is None or d.is_partition:
                continue
            seen += 1
            mem = raw.raw.get("memory", {})
            assert info["memory_spec"]["total_memory"] == mem.get("total_bytes")
            assert info["memory_spec"]["l2_cache"] == mem.get("l2_cache_bytes")
            assert info["memory_spec"]["l1_cache_per_core"] == mem.get("l1_cache_bytes_per_unit")
            if mem.get("bandwidth_gbps") is not None:
                assert abs(info["memory_spec"]["bandwidth"] * (1 << 30) / 1e9 - mem["bandwidth_gbps"]) < 0.01
            else:
                assert info["memory_spec"]["bandwidth"] is None
            fmts = {r["format"]: r["support"] for r in raw.raw.get("precision", [])}
            assert {r["format"]: r["support"] for r in info["precision_support"]} == fmts
            # unknown is not none: a format axl does not list is reported unknown
            assert set(info["precision_unknown"]) == {f for f in
                ("FP64", "FP32", "TF32", "BF16", "FP16", "FP8", "FP6", "FP4", "INT8", "INT4") if f not in fmts}
            assert [c["name"] for c in info["compute_units"]] == [c["name"] for c in raw.raw.get("compute_units", [])]
        run(p.cleanup())
    assert seen == len(axl_devs)


@pytest.mark.parametrize("sim, plugin", [("h100x8-nvswitch.json", "cuda"),
                                         ("a100-mig-off.json", "cuda"),
                                         ("mi300x8.json", "rocm")])
def test_precision_support_names_fp4(sim, plugin):
    """BEP-1000's formats on a pre-Blackwell / pre-CDNA 4 device: FP4 (and FP6) are
    `none` from the architecture documents, never left out; the H100 has all eight."""
    p = entry_points()[plugin]({"sim": os.path.join(TESTS, "sim", sim)}, {})
    run(p.init())
    info = p.devices[0].device_info()
    sup = {r["format"]: r["support"] for r in info["precision_support"]}
    assert sup["FP4"] == "none" and sup["FP6"] == "none"
    assert "FP4" not in info["precision_unknown"]
    if sim.startswith("h100"):
        assert {f: sup.get(f) for f in ("FP32", "TF32", "BF16", "FP16", "FP8", "INT8", "INT4", "FP4")} == {
            "FP32": "native", "TF32": "native", "BF16": "native", "FP16": "native",
            "FP8": "native", "INT8": "native", "INT4": "none", "FP4": "none"}
        assert info["precision_unknown"] == []
    run(p.cleanup())


def test_rtx_4090_names_all_eight():
    """The RTX 4090 (mixed.json): INT4 native from the Ada whitepaper's INT4 Tensor TOPS,
    so every BEP-1000 format has its row."""
    p = entry_points()["cuda"]({"sim": os.path.join(TESTS, "sim", "mixed.json")}, {})
    run(p.init())
    ada = [d for d in p.devices if "4090" in (d.axl_device.model or "")]
    assert ada
    info = ada[0].device_info()
    sup = {r["format"]: r["support"] for r in info["precision_support"]}
    assert {f: sup.get(f) for f in ("FP32", "TF32", "BF16", "FP16", "FP8", "INT8", "INT4", "FP4")} == {
        "FP32": "native", "TF32": "native", "BF16": "native", "FP16": "native",
        "FP8": "native", "INT8": "native", "INT4": "native", "FP4": "none"}
    assert set(info["precision_unknown"]) <= {"FP64"}  # not a BEP-1000 format; the documents are silent
    run(p.cleanup())


def test_rocm_device_nodes_and_groups():
    p = entry_points()["rocm"]({"sim": os.path.join(TESTS, "sim", "mi300x8.json"),
                                "device_injector": "devices"}, {})
    run(p.init())
    assert len(p.devices) == 8 and {str(k) for k in run(p.available_slots())} == {"rocm.device"}
    info = p.devices[0].device_info()
    assert info["memory_spec"]["memory_type"] == "HBM3"
    assert abs(info["memory_spec"]["bandwidth"] - 5300e9 / (1 << 30)) < 0.01
    dev_nodes = p.devices[0].axl_device.device_nodes
    if not dev_nodes:
        with pytest.raises(ValueError):
            run(p.generate_docker_args(None, {"rocm.device": {"0": Decimal(1)}}))
    else:
        args = run(p.generate_docker_args(None, {"rocm.device": {"0": Decimal(1)}}))
        assert {d["PathOnHost"] for d in args["HostConfig"]["Devices"]} >= set(dev_nodes)


def test_bad_input():
    from axl.backendai import BackendAIPluginError
    cls = entry_points()["cuda"]
    with pytest.raises(BackendAIPluginError):
        cls({"allocation_mode": "bogus"}, {})
    with pytest.raises(BackendAIPluginError):
        cls({"quantum_size": "abc"}, {})
    with pytest.raises(BackendAIPluginError):
        cls({"unit_mem": 0}, {})
    p = cls({"sim": MIG2}, {})
    run(p.init())
    for alloc in ({"cuda.device": {"9": 1}}, {"cuda.device": {"0": 1}}, {"rocm.device": {"2": 1}},
                  {"cuda.device": {"2": "x"}}, {"cuda.device": {"2": -1}}, {"cuda.device": 3},
                  ["cuda.device"]):
        for m in (p.generate_docker_args(None, alloc), p.generate_resource_data(alloc),
                  p.get_attached_devices(alloc), p.get_docker_networks(alloc)):
            with pytest.raises(BackendAIPluginError):
                run(m)
    magic = cls({"sim": MIG2, "device_injector": "magic"}, {})
    run(magic.init())
    with pytest.raises(BackendAIPluginError):
        run(magic.generate_docker_args(None, {"cuda.device": {"2": 1}}))
    assert run(p.generate_docker_args(None, {"cuda.device": {"2": 0}})) == {}
    # the MIG-mode GPUs without MIG devices offer no slot; h100x2 is all MIG mode
    h = cls({"sim": os.path.join(TESTS, "sim", "h100x2.json")}, {})
    run(h.init())
    assert run(h.available_slots()) == {} and len(h.mig_parents) == 2
    with pytest.raises(axl.AxlError):
        run(cls({"sim": os.path.join(TESTS, "sim", "no-such-node.json")}, {}).init())
    # a kind absent from the node: no devices, no slots, no error
    q = entry_points()["tpu"]({"sim": os.path.join(TESTS, "sim", "h100x2.json")}, {})
    run(q.init())
    assert run(q.available_slots()) == {} and run(q.gather_node_measures(None)) == []
    assert run(q.get_node_hwinfo())["status"] == "offline"


def test_without_the_agent():
    """Without ai.backend.agent the plugins present the same methods over stand-ins."""
    code = ("import asyncio, axl.backendai as b\n"
            "assert not b.HAVE_AGENT\n"
            "p = b.CUDAPlugin({'sim': %r}, {})\n"
            "asyncio.run(p.init())\n"
            "m = asyncio.run(p.create_alloc_map())\n"
            "a = m.allocate({'cuda.device': 1})\n"
            "print(asyncio.run(p.generate_resource_data(a))['CUDA_GLOBAL_DEVICE_IDS'])\n"
            % MIG2)
    env = {k: v for k, v in os.environ.items()}
    env["PYTHONPATH"] = os.path.join(ROOT, "python")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() in ["0:%d" % i for i in range(2, 8)]


def test_generate_mounts_are_the_agents(tmp_path):
    """generate_mounts hands the agent MountInfo(MountTypes.BIND, ...): the agent mounts each
    read-only of type mode (agent.py's _mount: get_runner_mount of the docker agent's
    DockerKernelCreationContext) and reads mode.value (its process_mounts); the plugin's configuration comes from etcd as strings,
    so mount_libraries = "false" is false."""
    import dataclasses
    from ai.backend.agent.docker.agent import DockerKernelCreationContext
    from ai.backend.agent.types import MountInfo
    from ai.backend.common.types import MountPermission, MountTypes
    from axl.backendai import BackendAIPluginError

    def plugin(**cfg):
        p = entry_points()["cuda"]({"sim": MIG2, "device_injector": "devices", **cfg}, {})
        run(p.init())
        # the vendor's user-space libraries, found in a folder of this host
        for d in p.devices:
            if d.runtime:
                d.runtime = dataclasses.replace(d.runtime, library_dirs=[str(tmp_path)])
        return p
    pattern = next(d.runtime for d in plugin().devices if d.runtime).libraries[0]
    (tmp_path / pattern.replace("*", ".1")).write_bytes(b"")
    p = plugin(mount_libraries="true")
    alloc = run(p.create_alloc_map()).allocate({"cuda.device": Decimal(1)})
    mounts = run(p.generate_mounts(tmp_path, alloc))
    assert mounts, "no library mounted"
    agent = DockerKernelCreationContext.__new__(DockerKernelCreationContext)  # two methods only
    agent.container_configs = []
    for m in mounts:
        assert isinstance(m, MountInfo) and m.mode is MountTypes.BIND
    # as agent.py's _mount(mount_info.mode, mount_info.src_path, mount_info.dst_path.as_posix())
    run(agent.process_mounts([agent.get_runner_mount(m.mode, m.src_path, m.dst_path.as_posix(),
                                                     MountPermission.READ_ONLY) for m in mounts]))
    made = agent.container_configs[0]["HostConfig"]["Mounts"]
    assert [x["Type"] for x in made] == ["bind"] * len(mounts)
    assert all(x["ReadOnly"] for x in made)
    assert {x["Source"] for x in made} == {str(m.src_path) for m in mounts}
    for off in ("false", "False", "0", "no", "off", False):
        assert run(plugin(mount_libraries=off).generate_mounts(tmp_path, alloc)) == []
    assert run(plugin(mount_libraries=True).generate_mounts(tmp_path, alloc))
    with pytest.raises(BackendAIPluginError):
        run(plugin(mount_libraries="maybe").generate_mounts(tmp_path, alloc))


def test_broken_agent_is_said_and_refused(tmp_path):
    """An agent that is installed but does not import: axl says so (a warning and an error
    log) and makes no plugin on stand-ins, which the agent would skip without a word."""
    stub = tmp_path / "agent" / "ai" / "backend" / "agent"
    stub.mkdir(parents=True)
    for d in (tmp_path / "agent" / "ai", tmp_path / "agent" / "ai" / "backend"):
        (d / "__init__.py").write_text("")
    (stub / "__init__.py").write_text("")
    (stub / "resources.py").write_text("import a_dependency_that_is_missing\n")
    code = ("import warnings, sys\n"
            "warnings.simplefilter('always')\n"
            "with warnings.catch_warnings(record=True) as w:\n"
            "    import axl.backendai as b\n"
            "assert not b.HAVE_AGENT and 'a_dependency_that_is_missing' in b.AGENT_IMPORT_ERROR\n"
            "assert any('NOT available' in str(x.message) for x in w), [str(x.message) for x in w]\n"
            "try:\n"
            "    b.CUDAPlugin({'sim': %r}, {})\n"
            "except b.BackendAIPluginError as e:\n"
            "    assert 'does not import' in str(e)\n"
            "    print('refused')\n" % MIG2)
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(tmp_path / "agent"), os.path.join(ROOT, "python")])}
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "refused", (r.stdout, r.stderr[-2000:])
    assert "axl.backendai" in r.stderr  # the error log line


def test_mig_slot_never_gets_a_whole_gpu(mig_state):
    """8 x H100, 2 in MIG mode with MIG devices (NUMA 0), 6 whole GPUs (NUMA 1): the agent
    allocates a MIG slot with an affinity hint, and upstream's get_current_allocations reads
    allocations[slot][device] for every cuda device, which (a defaultdict) books whole GPUs
    under the MIG slot. axl's map keeps each device under its own slot, and no whole GPU is
    ever handed out for a MIG slot, whatever an allocation says."""
    from ai.backend.agent.affinity_map import AffinityHint, AffinityMap, AffinityPolicy
    from axl.backendai import BackendAIPluginError
    p = entry_points()["cuda"]({"sim": MIG2, "state_dir": mig_state}, {})
    run(p.init())
    mig_slot = "cuda.device:1g.10gb-mig"
    migs = {d.device_id for d in p.devices if d.is_partition and d.partition_profile == "1g.10gb"}
    wholes = {d.device_id for d in p.devices if not d.is_partition}
    assert migs and wholes
    for policy in (AffinityPolicy.PREFER_SINGLE_NODE, AffinityPolicy.INTERLEAVED):
        amap = run(p.create_alloc_map())
        hint = AffinityHint(None, AffinityMap.build(p.devices), policy)
        got = amap.allocate({mig_slot: Decimal(1)}, affinity_hint=hint)
        assert set(got[mig_slot]) <= migs, got
        assert not set(amap.allocations[mig_slot]) & wholes, dict(amap.allocations[mig_slot])
        # and the whole-GPU slot after it, on the same map (another allocation run: a
        # hint whose devices are of the same name is upstream's "logic error")
        got2 = amap.allocate({"cuda.device": Decimal(2)},
                             affinity_hint=AffinityHint(None, AffinityMap.build(p.devices), policy))
        assert set(got2["cuda.device"]) <= wholes
    # an allocation that names a whole GPU under the MIG slot is refused, never handed out
    whole = sorted(wholes)[-1]
    for call in (p.generate_docker_args(None, {mig_slot: {whole: Decimal(1)}}),
                 p.generate_resource_data({mig_slot: {whole: Decimal(1)}}),
                 p.get_attached_devices({mig_slot: {whole: Decimal(1)}})):
        with pytest.raises(BackendAIPluginError):
            run(call)
    mig = sorted(migs)[0]
    with pytest.raises(BackendAIPluginError):
        run(p.generate_docker_args(None, {"cuda.device": {mig: Decimal(1)}}))


GROUP = "backendai_accelerator_v21"


def installed(where, dists):
    """Packages installed in where, as pip leaves them: NAME-1.0.dist-info with its
    entry_points.txt (group GROUP), which importlib.metadata reads."""
    for dist, eps in dists.items():
        info = where / ("%s-1.0.dist-info" % dist)
        info.mkdir(parents=True)
        (info / "METADATA").write_text("Metadata-Version: 2.1\nName: %s\nVersion: 1.0\n" % dist)
        (info / "entry_points.txt").write_text(
            "[%s]\n" % GROUP + "".join("%s = %s\n" % kv for kv in eps.items()))


def test_entry_points_never_collide(tmp_path):
    """With upstream's accelerator plugins installed too and no allowlist, the agent's
    scan_entrypoints (ai.backend.plugin.entrypoint, lablup/backend.ai c0032c47) raises on
    two entry points of one name: axl's names are axl-<key>. Its allow-/block-compute-
    plugins match module prefixes of the entry points' values: ["axl.backendai"] selects
    axl's, ["ai.backend.accelerator"] blocks upstream's."""
    from ai.backend.plugin.entrypoint import scan_entrypoints
    with open(os.path.join(ROOT, "python", "pyproject.toml"), "rb") as f:
        ours = tomllib.load(f)["project"]["entry-points"]["backendai_accelerator_v21"]
    # upstream's, as their BUILD files declare them
    upstream = {"cuda": "ai.backend.accelerator.cuda_open.plugin:CUDAPlugin",
                "rocm": "ai.backend.accelerator.rocm.plugin:ROCmPlugin",
                "gaudi2": "ai.backend.accelerator.habana.gaudi2.plugin:Gaudi2Plugin",
                "gaudi3": "ai.backend.accelerator.habana.gaudi3.plugin:Gaudi3Plugin",
                "mock": "ai.backend.accelerator.mock.plugin:MockPlugin"}
    group = GROUP
    site = tmp_path / "site"
    installed(site, {"backend.ai_accelerator_upstream": upstream, "axl_plugins": ours})
    sys.path.insert(0, str(site))
    try:
        names = [e.name for e in scan_entrypoints(group)]
        assert len(names) == len(set(names))
        assert set(upstream) | set(ours) <= set(names)
        assert {e.name for e in scan_entrypoints(group, allowlist={"axl.backendai"})} == set(ours)
        assert {e.name for e in scan_entrypoints(group, blocklist={"ai.backend.accelerator"})} == set(ours)
        # an axl plugin under an upstream name would stop the agent
        installed(site, {"clash": {"cuda": "axl.backendai:CUDAPlugin"}})
        with pytest.raises(RuntimeError, match="duplicate plugin entrypoint name 'cuda'"):
            list(scan_entrypoints(group))
    finally:
        sys.path.remove(str(site))


def test_plugin_context_makes_every_plugin(tmp_path):
    """The agent's own loader: ComputePluginContext (ai.backend.agent.resources, over
    BasePluginContext of ai.backend.common.plugin) with allow-compute-plugins =
    ["axl.backendai"] finds every axl entry point in the installed package's metadata,
    makes each with its etcd configuration (config/plugins/accelerator/<entry point
    name>/) and initialises it, keyed by the entry point's name; upstream's plugins beside
    them are not loaded."""
    from ai.backend.agent.resources import AbstractComputePlugin, ComputePluginContext
    with open(os.path.join(ROOT, "python", "pyproject.toml"), "rb") as f:
        ours = tomllib.load(f)["project"]["entry-points"][GROUP]
    site = tmp_path / "site"
    installed(site, {"axl_plugins": ours,
                     "backend.ai_accelerator_cuda_open": {
                         "cuda": "ai.backend.accelerator.cuda_open.plugin:CUDAPlugin"}})

    class Etcd:
        """What the context asks of etcd: get_prefix, every value a string."""

        def __init__(self):
            self.asked = []

        async def get_prefix(self, key):
            self.asked.append(key)
            return {"sim": MIG2}

    etcd = Etcd()
    sys.path.insert(0, str(site))
    try:
        ctx = ComputePluginContext(etcd, {})
        run(ctx.init(allowlist={"axl.backendai"}))
    finally:
        sys.path.remove(str(site))
    assert set(ctx.plugins) == set(ours), set(ours) ^ set(ctx.plugins)
    assert all(isinstance(p, AbstractComputePlugin) for p in ctx.plugins.values())
    assert sorted(etcd.asked) == sorted("config/plugins/accelerator/%s/" % n for n in ours)
    # the H100 node's plugin found its GPUs through the configuration etcd gave it
    direct = entry_points()["cuda"]({"sim": MIG2}, {})
    run(direct.init())
    got = ctx.plugins["axl-cuda"].devices
    assert got and [d.device_id for d in got] == [d.device_id for d in direct.devices]
    run(ctx.cleanup())


def test_upstream_keys_per_model(tree_dir):
    """Gaudi 2 under gaudi2.device, an n300 under tt-n300.device, as upstream's plugins
    name them; other Tenstorrent cards under axl's own tenstorrent key, no card twice."""
    eps = entry_points()
    gaudi = tree_dir(os.path.join(TESTS, "trees", "nodes", "gaudi2-8x.json"))
    g2 = eps["gaudi2"]({"sysroot": gaudi}, {})
    run(g2.init())
    assert len(g2.devices) == 8
    assert {str(k) for k in run(g2.available_slots())} == {"gaudi2.device"}
    for other in ("gaudi3", "gaudi"):
        p = eps[other]({"sysroot": gaudi}, {})
        run(p.init())
        assert p.devices == [], other
    tt = tree_dir(os.path.join(TESTS, "trees", "nodes", "tenstorrent-host.json"))
    n300 = eps["tt-n300"]({"sysroot": tt}, {})
    rest = eps["tenstorrent"]({"sysroot": tt}, {})
    run(n300.init())
    run(rest.init())
    assert [d.model_name for d in n300.devices] == ["Tenstorrent Wormhole n300"]
    assert {str(k): v for k, v in run(n300.available_slots()).items()} == {"tt-n300.device": 1}
    assert [d.model_name for d in rest.devices] == ["Tenstorrent Wormhole n150"]


def _plugin_for(mig_state, **cfg):
    p = entry_points()["cuda"]({"sim": MIG2, "state_dir": mig_state, **cfg}, {})
    run(p.init())
    return p


def test_metadata_per_slot(mig_state):
    """BEP-1000: one AcceleratorMetadata per slot (MIG and shares slots included);
    get_metadata() still returns the one the current agent takes."""
    p = _plugin_for(mig_state)
    per = p.get_metadata_per_slot()
    assert set(per) == {"cuda.device", "cuda.shares", "cuda.device:1g.10gb-mig", "cuda.device:3g.40gb-mig"}
    assert per["cuda.device:1g.10gb-mig"]["slot_name"] == "cuda.device:1g.10gb-mig"
    assert p.get_metadata() == per["cuda.device"]


def test_bep1016_interface(mig_state):
    """BEP-1016: configurable_slots, create_lifecycle_hook, alloc_to_devices, get_node_info."""
    from axl.backendai import BackendAIPluginError, Workload, WorkloadConfig
    p = _plugin_for(mig_state, device_injector="devices")
    slots = {s["slot_name"]: s["slot_type"] for s in p.configurable_slots()}
    assert slots == {"cuda.device": "count", "cuda.shares": "count",
                     "cuda.device:1g.10gb-mig": "unique", "cuda.device:3g.40gb-mig": "unique"}
    alloc = {"cuda.device": {"3": Decimal(1)}}
    devs = run(p.alloc_to_devices(alloc))
    assert [d["device_id"] for d in devs] == ["3"] and devs[0]["slot_name"] == "cuda.device"
    hook = p.create_lifecycle_hook(Workload("c1"), alloc)
    cfg = run(hook.pre_create())
    assert isinstance(cfg, WorkloadConfig)
    docker = run(p.generate_docker_args(None, alloc))["HostConfig"]["Devices"]
    assert [m.source for m in cfg.mounts if m.kind == "device"] == [d["PathOnHost"] for d in docker]
    assert cfg.resource_data == dict(run(p.generate_resource_data(alloc)))
    with pytest.raises(BackendAIPluginError):
        p.create_lifecycle_hook(Workload("c2"), {"cuda.device:1g.10gb-mig": {"7": Decimal(1)}})
    with pytest.raises(BackendAIPluginError):
        Workload("c3", "vm")
    info = run(p.get_node_info())
    assert info["plugin"] == "cuda" and info["hardware"]["status"] in ("healthy", "degraded")


def test_resource_txt_garbage(tmp_path):
    """Random and truncated resource.txt files: a dict or ResourceTxtError, nothing else,
    and quickly (huge exponents are refused before they become integers)."""
    import random
    import time
    from axl.backendai import ResourceTxtError, read_resource_txt
    rng = random.Random(25)
    good = "SCRATCH_SIZE=0m\nMEM_SHARES=root:8g\nCUDA.DEVICE_SHARES=0:1,1:1\nCUDA.SHARES=0:0.5\n"
    alphabet = "=:,.\n_-e9g0 xSHARESk\x00\xff"
    f = tmp_path / "resource.txt"
    t0 = time.monotonic()
    for i in range(3000):
        if i % 3 == 0:
            text = good[:rng.randrange(len(good) + 1)]
        elif i % 3 == 1:
            b = list(good)
            for _ in range(rng.randrange(1, 6)):
                b[rng.randrange(len(b))] = rng.choice(alphabet)
            text = "".join(b)
        else:
            text = "".join(rng.choice(alphabet) for _ in range(rng.randrange(60)))
        f.write_bytes(text.encode("utf-8", "surrogatepass"))
        try:
            out = read_resource_txt(f)
        except ResourceTxtError:
            continue
        assert isinstance(out, dict)
    assert time.monotonic() - t0 < 60
