"""axl.backendai against BEP-1000's own interface, as the seed document writes it.

The interface is built from the code blocks of the seed document
shared/seeds/backendai-bep1000-accelerator-metadata.md (original seed file
000_42134254c9b136f6.txt; lablup/backend.ai proposals/BEP-1000-redefining-accelerator-
metadata.md, "Redefining Accelerator Metadata", Draft, Joongi Kim), copied below as they
are there: section "Current structure" (the v21 interface) and section "Proposed
structure (WIP)" (the BEP's types and the changed AbstractComputePlugin, whose trailing
"..." keeps the rest of the current one), and the method names of its table
"Translation of existing APIs". Where the seed is on this machine the copies are checked
against it.

Checks: every method of the BEP's interface is on axl's BEP-1000 plugin classes
(axl.backendai.bep1000) with a compatible signature (sync/async as declared, the
BEP's parameters by name, order and kind, anything more optional); the v21 classes keep
the current interface; each method's answer has the BEP's type on simulated nodes
(tests/sim/h100x8-mig2.json with MIG devices, tests/sim/mixed.json); the devices carry
the BEP's attributes and convert into the BEP's own attrs classes; a translated method
answers what the v21 method it renames or unifies answers.
"""

from __future__ import annotations

import __future__
import abc
import asyncio
import enum
import inspect
import json
import os
import re
import sys
import typing
from collections.abc import Collection, Mapping, Sequence
from decimal import Decimal
from pathlib import Path

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
if not os.environ.get("AXL_BACKENDAI_UPSTREAM"):
    sys.path.insert(0, os.path.join(HERE, "backendai_agent"))

import axl  # noqa: E402
import axl.backendai as bai  # noqa: E402
from axl.backendai import bep1000  # noqa: E402
from conftest import TESTS  # noqa: E402

MIG2 = os.path.join(TESTS, "sim", "h100x8-mig2.json")
MIXED = os.path.join(TESTS, "sim", "mixed.json")
SEED = "/work/shared/seeds/backendai-bep1000-accelerator-metadata.md"

# ---- copied from the seed document, section "## Current structure" -----------------------
BEP_CURRENT = '''\
# ai.backend.common.types
# -----------------------
class ResourceSlotReprFormat(TypedDict):
    # I'd propose to rename this from AcceleratorNumberFormat.
    binary: bool
    round_length: int


class AcceleratorMetadata(TypedDict):
    slot_name: str
    description: str
    human_readable_name: str
    display_unit: str
    display_icon: str
    number_format: ResourceSlotReprFormat


# ai.backend.agent.resources
# --------------------------
class AbstractComputeDevice:
    device_id: DeviceId
    hw_location: str  # either PCI bus ID or arbitrary string
    memory_size: int  # bytes of available per-accelerator memory
    processing_units: int  # number of processing units (e.g., cores, SMP)
    numa_node: Optional[int]  # NUMA node ID (None if not applicable)

    ...

class AbstractComputePlugin(AbstractPlugin, metaclass=ABCMeta):
    key: DeviceName = DeviceName("accelerator")
    slot_types: Sequence[tuple[SlotName, SlotTypes]]
    exclusive_slot_types: set[str]

    @abstractmethod
    def get_metadata(self) -> AcceleratorMetadata: ...

    @abstractmethod
    async def list_devices(self) -> Collection[AbstractComputeDevice]: ...

    @abstractmethod
    async def available_slots(self) -> Mapping[SlotName, Decimal]: ...

    @abstractmethod
    def get_version(self) -> str: ...

    @abstractmethod
    async def extra_info(self) -> Mapping[str, str]: ...

    @abstractmethod
    async def gather_node_measures(self, ctx: StatContext) -> Sequence[NodeMeasurement]: ...

    @abstractmethod
    async def gather_container_measures(
        self,
        ctx: StatContext,
        container_ids: Sequence[str],
    ) -> Sequence[ContainerMeasurement]: ...

    @abstractmethod
    async def gather_process_measures(
        self, ctx: StatContext, pid_map: Mapping[int, str]
    ) -> Sequence[ProcessMeasurement]: ...

    @abstractmethod
    async def create_alloc_map(self) -> AbstractAllocMap: ...

    @abstractmethod
    async def get_hooks(self, distro: str, arch: str) -> Sequence[Path]: ...

    @abstractmethod
    async def generate_docker_args(
        self,
        docker: aiodocker.docker.Docker,
        device_alloc: DeviceAllocation,
    ) -> Mapping[str, Any]: ...

    async def generate_resource_data(self, device_alloc: DeviceAllocation) -> Mapping[str, str]: ...

    @abstractmethod
    async def restore_from_container(
        self,
        container: SessionContainer,
        alloc_map: AbstractAllocMap,
    ) -> None: ...

    @abstractmethod
    async def get_attached_devices(
        self,
        device_alloc: DeviceAllocation,
    ) -> Sequence[DeviceModelInfo]: ...

    async def get_node_hwinfo(self) -> HardwareMetadata: ...

    @abstractmethod
    async def get_docker_networks(
        self,
        device_alloc: DeviceAllocation,
    ) -> list[str]: ...

    @abstractmethod
    async def generate_mounts(
        self,
        source_path: Path,
        device_alloc: DeviceAllocation,
    ) -> list[MountInfo]: ...

    def get_additional_gids(self) -> list[int]: ...

    def get_additional_allowed_syscalls(self) -> list[str]: ...
'''

# ---- copied from the seed document, section "## Proposed structure (WIP)" ----------------
BEP_PROPOSED = '''\
# ai.backend.common.types
# -----------------------
class ComputePrecisionSupportLevel(enum.StrEnum):
    NATIVE = enum.auto()
    EMULATED = enum.auto()
    NONE = enum.auto()


@attrs.define(auto_attribs=True)
class ComputePrecisionSupport:
    format: str  # e.g., "FP32", "TF32", "BF16", "FP16", "FP8", "INT8", "INT4", "FP4"
    support: ComputePrecisionSupportLevel


@attrs.define(auto_attribs=True)
class ComputeUnit:
    name: str  # e.g., "SM", "Tensor Core", "GPC", "CU", "TPC", "AI Core"
    count: int  # Number of such units in the device


@attrs.define(auto_attribs=True)
class MemorySpec:
    total_memory: int  # Total on-device memory capacity in bytes
    memory_type: str   # e.g., "HBM2", "HBM3", "GDDR6", "DDR5"
    bandwidth: Optional[float] = None          # Peak memory bandwidth in GiB/s
    l1_cache_per_core: Optional[int] = None    # L1 cache size per compute unit (bytes)
    l2_cache: Optional[int] = None             # L2 cache size (bytes, chip-wide or per die)
    shared_mem_per_core: Optional[int] = None  # Size of programmable shared memory per core (bytes)
    memory_channels: Optional[int] = None      # Number of memory channels or HBM stacks


@attrs.define(auto_attribs=True)
class PartitioningCapability:
    max_partitions: int = 1           # Maximum number of slices/partitions
    technology: Optional[str] = None  # Name of partitioning method (e.g., "MIG", "fGPU")


# ai.backend.agent.resources
# --------------------------
class AbstractComputeDevice:
    device_id: DeviceId
    hw_location: str          # either PCI bus ID or arbitrary string
    numa_node: Optional[int]  # NUMA node ID (None if not applicable)
    memory_size: int          # (legacy-compat) size of the on-device memory (bytes)
    processing_units: int     # (legacy-compat) number of the representative compute units
    memory_spec: MemorySpec   # (new) detailed memory specification
    compute_units: Sequence[ComputeUnit]  # (new) detailed compute unit specification
    precision_support: Sequence[ComputePrecisionSupport]
    partioning_support: Sequence[PartitioningCapability]

    ...

class AbstractComputePlugin(AbstractPlugin, metaclass=ABCMeta):
    key: DeviceName = DeviceName("accelerator")
    slot_types: Sequence[tuple[SlotName, SlotTypes]]
    exclusive_slot_types: set[str]

    # CHANGED: now returns a list of AcceleratorMetadata
    @abstractmethod
    def get_metadata(self) -> Sequence[AcceleratorMetadata]: ...

    @abstractmethod
    async def list_devices(self) -> Collection[AbstractComputeDevice]: ...

    @abstractmethod
    async def available_slots(self) -> Mapping[SlotName, Decimal]: ...

    @abstractmethod
    def get_version(self) -> str: ...

    @abstractmethod
    async def extra_info(self) -> Mapping[str, str]: ...

    ...
'''

# ---- the seed's table "### Translation of existing APIs" (method -> resolution) -----------
BEP_TRANSLATION = '''\
| `get_metadata()`                    | redesigned as `get_resource_spec()` with explicit schema | metadata |
| `list_devices()`                    | redesigned to use more detailed device-info schema       | device-info |
| `get_version()`                     | kept as-is                           | metadata |
| `gather_node_measures(...)`         | kept as-is                           | metric |
| `gather_container_measures(...)`    | kept as-is                           | metric |
| `gather_process_measures(...)`      | kept as-is                           | metric |
| `create_alloc_map()`                | kept as-is                           | resource-control |
| `restore_from_container(...)`       | renamed to `reconstruct_from_kernel(...)` | agent-state |
| `generate_resource_data(...)`       | renamed to `write_into_kernel(...)`       | container-creation, agent-state |
| `available_slots()`                 | unified into `get_resource_spec()`        | device-info |
| `get_attached_devices(...)`         | renamed to `to_device_list(...)`          | device-info |
| `get_hooks()`                       | unified into `query_workload_config(...)` | container-creation |
| `generate_docker_args(...)`         | unified into `query_workload_config(...)` | container-creation |
| `get_docker_networks(...)`          | unified into `query_workload_config(...)` | container-creation |
| `generate_mounts(...)`              | unified into `query_workload_config(...)` | container-creation |
| `get_additional_gids()`             | unified into `query_workload_config(...)` | container-creation |
| `get_additional_allowed_syscalls()` | unified into `query_workload_config(...)` | container-creation |
'''


def run(coro):
    return asyncio.run(coro)


def _python_blocks(md: str) -> list[str]:
    return re.findall(r"```python\n(.*?)```", md, re.S)


def test_copies_are_the_seeds():
    """The code blocks and the table above are the seed document's, character for
    character (skipped where the seed is not on this machine)."""
    if not os.path.exists(SEED):
        pytest.skip("the seed document is not here: %s" % SEED)
    with open(SEED, encoding="utf-8") as f:
        md = f.read()
    blocks = _python_blocks(md)
    assert blocks == [BEP_CURRENT, BEP_PROPOSED]
    assert md.index("## Current structure") < md.index(BEP_CURRENT) < md.index("## Proposed structure (WIP)") \
        < md.index(BEP_PROPOSED) < md.index("### Translation of existing APIs") < md.index(BEP_TRANSLATION)


class _AbstractPlugin:
    """The code block's AbstractPlugin (ai.backend.common.plugin): only a base here."""


def build_interface(block: str) -> dict[str, typing.Any]:
    """The classes of one code block, executed as the BEP writes them (annotations kept
    as strings, as the names they use are the agent's)."""
    import attrs
    ns: dict[str, typing.Any] = {
        "enum": enum, "attrs": attrs, "TypedDict": typing.TypedDict, "Optional": typing.Optional,
        "Any": typing.Any, "Sequence": Sequence, "Collection": Collection, "Mapping": Mapping,
        "Decimal": Decimal, "Path": Path, "ABCMeta": abc.ABCMeta, "abstractmethod": abc.abstractmethod,
        "AbstractPlugin": _AbstractPlugin, "DeviceName": str,
    }
    code = compile(block, "<BEP-1000 seed block>", "exec", flags=__future__.annotations.compiler_flag,
                   dont_inherit=True)
    exec(code, ns)
    return ns


CURRENT = build_interface(BEP_CURRENT)
PROPOSED = build_interface(BEP_PROPOSED)


def translated() -> dict[str, str]:
    """{v21 method: its BEP-1000 name} for the table's renamed and unified rows."""
    out = {}
    for m in re.finditer(r"^\| `(\w+)\(.*?\)`\s*\| (renamed to|unified into|redesigned as) `(\w+)\(", BEP_TRANSLATION, re.M):
        out[m.group(1)] = m.group(3)
    return out


def bep_methods() -> dict[str, typing.Any]:
    """The BEP's AbstractComputePlugin: the proposed block's methods over the current
    block's (the proposed class ends in "..."; the rest is kept, as the table says)."""
    out = {}
    for block in (CURRENT, PROPOSED):
        for name, fn in vars(block["AbstractComputePlugin"]).items():
            if inspect.isfunction(fn):
                out[name] = fn
    return out


def check_signature(bep_fn, ours, name):
    assert ours is not None, "%s is missing" % name
    assert inspect.iscoroutinefunction(bep_fn) == inspect.iscoroutinefunction(ours), \
        "%s: %s in the BEP" % (name, "async" if inspect.iscoroutinefunction(bep_fn) else "sync")
    bp = list(inspect.signature(bep_fn).parameters.values())
    op = list(inspect.signature(ours).parameters.values())
    assert len(op) >= len(bp), "%s%s takes fewer parameters than the BEP's %s" % (
        name, inspect.signature(ours), inspect.signature(bep_fn))
    for b, o in zip(bp, op):
        assert (b.name, b.kind) == (o.name, o.kind), "%s: parameter %s, the BEP has %s" % (name, o, b)
    for o in op[len(bp):]:
        assert o.default is not inspect.Parameter.empty or o.kind in (o.VAR_POSITIONAL, o.VAR_KEYWORD), \
            "%s: an extra parameter %s without a default" % (name, o)


def test_the_interface_built_from_the_seed():
    """The blocks build: the BEP's interface is what the rest of this file checks against."""
    m = bep_methods()
    assert set(m) >= {"get_metadata", "list_devices", "available_slots", "get_version", "extra_info",
                      "restore_from_container", "generate_resource_data", "get_attached_devices",
                      "generate_mounts", "get_additional_allowed_syscalls"}
    assert m["get_metadata"].__annotations__["return"] == "Sequence[AcceleratorMetadata]"
    assert CURRENT["AbstractComputePlugin"].get_metadata.__annotations__["return"] == "AcceleratorMetadata"
    assert [x.value for x in PROPOSED["ComputePrecisionSupportLevel"]] == ["native", "emulated", "none"]
    assert translated() == {
        "get_metadata": "get_resource_spec", "restore_from_container": "reconstruct_from_kernel",
        "generate_resource_data": "write_into_kernel", "available_slots": "get_resource_spec",
        "get_attached_devices": "to_device_list", "get_hooks": "query_workload_config",
        "generate_docker_args": "query_workload_config", "get_docker_networks": "query_workload_config",
        "generate_mounts": "query_workload_config", "get_additional_gids": "query_workload_config",
        "get_additional_allowed_syscalls": "query_workload_config"}


@pytest.mark.parametrize("key", sorted(bai.PLUGINS))
def test_every_method_with_a_compatible_signature(key):
    """Each plugin's BEP-1000 class has every method of the BEP's interface (the proposed
    block over the current one), the v21 class every method of the current block, and
    both the table's new names, each with the signature of the method it renames."""
    bep_cls, v21_cls = bep1000.BEP1000_PLUGINS[key], bai.PLUGINS[key]
    assert issubclass(bep_cls, v21_cls) and bep_cls.__name__ == v21_cls.__name__
    assert getattr(bep1000, bep_cls.__name__) is bep_cls
    for name, fn in bep_methods().items():
        check_signature(fn, getattr(bep_cls, name, None), name)
    for name, fn in vars(CURRENT["AbstractComputePlugin"]).items():
        if inspect.isfunction(fn):
            check_signature(fn, getattr(v21_cls, name, None), name)
    for old, new in translated().items():
        for cls in (bep_cls, v21_cls):
            ours = getattr(cls, new, None)
            assert callable(ours), "%s has no %s" % (cls.__name__, new)
            if new not in ("get_resource_spec", "query_workload_config"):
                # renamed: the signature of the method it renames
                check_signature(bep_methods()[old], ours, new)
    for cls in (bep_cls, v21_cls):
        # unified: one call for what several methods took (their allocation first)
        sig = inspect.signature(cls.query_workload_config)
        assert list(sig.parameters)[:2] == ["self", "device_alloc"]
        for p in ("docker", "source_path", "distro", "arch"):
            assert sig.parameters[p].kind == inspect.Parameter.KEYWORD_ONLY
        assert not inspect.iscoroutinefunction(cls.get_resource_spec)
        assert inspect.iscoroutinefunction(cls.query_workload_config)
    for attr in ("key", "slot_types", "exclusive_slot_types"):
        assert hasattr(bep_cls, attr)


def check_typed_dict(td: type, value, where: str) -> None:
    """value has every key of the BEP's TypedDict td, each of the annotated type."""
    # a TypedDict keeps its string annotations as ForwardRefs
    hints = {k: getattr(a, "__forward_arg__", a) for k, a in td.__annotations__.items()}
    assert isinstance(value, Mapping), where
    assert set(value) >= set(hints), "%s: %s lacks %s" % (where, sorted(value), sorted(set(hints) - set(value)))
    for k, ann in hints.items():
        if ann in ("str", "bool", "int"):
            assert type(value[k]).__name__ == ann, "%s.%s: %r is not %s" % (where, k, value[k], ann)
        else:
            check_typed_dict(CURRENT[ann], value[k], "%s.%s" % (where, k))


def check_device(dev, where: str) -> None:
    """The BEP's proposed AbstractComputeDevice: every attribute, of its type; the BEP's
    own attrs classes made from axl's values."""
    hints = PROPOSED["AbstractComputeDevice"].__annotations__
    for k in hints:
        assert hasattr(dev, k), "%s has no %s" % (where, k)
    assert isinstance(dev.device_id, str) and dev.device_id and isinstance(dev.hw_location, str)
    assert dev.numa_node is None or isinstance(dev.numa_node, int)
    for k in ("memory_size", "processing_units"):
        assert getattr(dev, k) is None or (isinstance(getattr(dev, k), int) and getattr(dev, k) > 0), (where, k)
    import attrs
    ms_fields = [f.name for f in attrs.fields(PROPOSED["MemorySpec"])]
    ms = PROPOSED["MemorySpec"](**{f: getattr(dev.memory_spec, f) for f in ms_fields})
    assert ms.total_memory == dev.memory_size
    assert ms.bandwidth is None or ms.bandwidth > 0
    for cu in dev.compute_units:
        x = PROPOSED["ComputeUnit"](name=cu.name, count=cu.count)
        assert isinstance(x.name, str) and x.name and isinstance(x.count, int) and x.count >= 0
    level = PROPOSED["ComputePrecisionSupportLevel"]
    for p in dev.precision_support:
        x = PROPOSED["ComputePrecisionSupport"](format=p.format, support=level(p.support))
        assert x.support in (level.NATIVE, level.EMULATED, level.NONE) and p.support == x.support
    assert dev.partioning_support is dev.partitioning_support
    for p in dev.partioning_support:
        x = PROPOSED["PartitioningCapability"](max_partitions=p.max_partitions, technology=p.technology)
        assert x.technology and (x.max_partitions is None or x.max_partitions >= 1)


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


def test_mixed_mig_node(mig_state, tmp_path):
    """h100x8-mig2 (6 whole H100s, 2 in MIG mode with two 3g.40gb and two 1g.10gb MIG
    devices): get_metadata() one AcceleratorMetadata per slot type on the BEP's class,
    one on the v21 class; every method's answer of the BEP's type."""
    p = bep1000.CUDAPlugin({"sim": MIG2, "state_dir": mig_state}, {})
    v21 = bai.CUDAPlugin({"sim": MIG2, "state_dir": mig_state}, {})
    run(p.init())
    run(v21.init())
    metas = p.get_metadata()
    assert isinstance(metas, Sequence) and not isinstance(metas, (str, Mapping))
    for i, m in enumerate(metas):
        check_typed_dict(CURRENT["AcceleratorMetadata"], m, "get_metadata()[%d]" % i)
    assert [m["slot_name"] for m in metas] == ["cuda.device", "cuda.device:1g.10gb-mig", "cuda.device:3g.40gb-mig"]
    assert [m["slot_name"] for m in metas] == [str(s) for s, _ in p.slot_types]
    assert len({json.dumps(m, sort_keys=True) for m in metas}) == 3
    one = v21.get_metadata()
    check_typed_dict(CURRENT["AcceleratorMetadata"], one, "v21 get_metadata()")
    assert one == metas[0] and json.loads(json.dumps(one))["slot_name"] == "cuda.device"

    devs = list(run(p.list_devices()))
    assert isinstance(run(p.list_devices()), Collection) and len(devs) == 10
    for d in devs:
        check_device(d, d.device_id)
    whole = [d for d in devs if not d.is_partition]
    migs = [d for d in devs if d.is_partition]
    assert len(whole) == 6 and len(migs) == 4
    h = whole[0]
    assert h.memory_spec.total_memory == 80 << 30 and h.memory_spec.memory_type == "HBM3"
    sup = {x.format: x.support for x in h.precision_support}
    assert sup["FP64"] == bai.ComputePrecisionSupportLevel.NATIVE and sup["FP4"] == "none"
    assert {c.name for c in h.compute_units} >= {"SM"}
    for d in migs:
        assert 0 < d.memory_spec.total_memory < h.memory_spec.total_memory
        assert d.memory_spec.bandwidth is None  # a slice's share of the GPU's is not known
    # the MIG-mode GPUs' partitioning: MIG with 7 partitions, under both spellings
    parent = p.mig_parents[0]
    assert [(x.technology, x.max_partitions) for x in parent.partioning_support][:1] == [("MIG", 7)]
    info = parent.device_info()
    assert info["partioning_support"] == info["partitioning_support"] and info["partitioning_support"]

    slots = run(p.available_slots())
    assert all(isinstance(v, Decimal) for v in slots.values())
    assert {str(k): v for k, v in slots.items()} == {
        "cuda.device": 6, "cuda.device:1g.10gb-mig": 2, "cuda.device:3g.40gb-mig": 2}
    assert isinstance(p.get_version(), str) and p.get_version()
    extra = run(p.extra_info())
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in extra.items()) and extra["cuda_support"] == "true"

    # get_resource_spec: what get_metadata and available_slots gave, in one document
    spec = p.get_resource_spec()
    by = {s["slot_name"]: s for s in spec["slots"]}
    for m in metas:
        s = by[m["slot_name"]]
        assert {k: s[k] for k in m} == m and s["allocatable"]
        assert Decimal(s["capacity"]) == slots[m["slot_name"]]
    assert len(spec["devices"]) == 10

    mig_id = next(d.device_id for d in migs if d.partition_profile == "1g.10gb")
    alloc = {"cuda.device": {"3": Decimal(1), "5": Decimal(1)}, "cuda.device:1g.10gb-mig": {mig_id: Decimal(1)}}
    # write_into_kernel is generate_resource_data
    data = run(p.write_into_kernel(alloc))
    assert data == run(p.generate_resource_data(alloc))
    assert data["CUDA_GLOBAL_DEVICE_IDS"] == "0:3,1:5,2:%s" % mig_id
    assert all(isinstance(k, str) and isinstance(v, str) for k, v in data.items())
    # to_device_list is get_attached_devices: DeviceModelInfo rows
    rows = run(p.to_device_list(alloc))
    assert rows == run(p.get_attached_devices(alloc))
    assert [r["device_id"] for r in rows] == ["3", "5", mig_id]
    assert all(set(r) == {"device_id", "model_name", "data"} for r in rows)
    assert [r["model_name"] for r in rows] == ["NVIDIA H100 80GB HBM3"] * 2 + ["NVIDIA H100 80GB HBM3 MIG 1g.10gb"]
    assert rows[2]["data"]["mem"] < rows[0]["data"]["mem"] == 80 << 30
    # query_workload_config: what the six methods it unifies answer
    src = tmp_path / "src"
    src.mkdir()
    for inj in ("nvidia", "cdi", "devices"):
        q = bep1000.CUDAPlugin({"sim": MIG2, "state_dir": mig_state, "device_injector": inj}, {})
        run(q.init())
        wc = run(q.query_workload_config(alloc, docker=None, source_path=src, distro="ubuntu22.04", arch="x86_64"))
        assert isinstance(wc, bai.AcceleratorWorkloadConfig)
        assert wc.docker_args == run(q.generate_docker_args(None, alloc)) and wc.docker_args
        assert wc.mounts == run(q.generate_mounts(src, alloc))
        assert wc.hooks == list(run(q.get_hooks("ubuntu22.04", "x86_64")))
        assert wc.networks == run(q.get_docker_networks(alloc))
        assert wc.additional_gids == q.get_additional_gids()
        assert wc.additional_allowed_syscalls == q.get_additional_allowed_syscalls()
        if inj == "nvidia":
            (req,) = wc.docker_args["HostConfig"]["DeviceRequests"]
            assert req["DeviceIDs"] == ["3", "5", p.device(mig_id).uuid]
        run(q.cleanup())
    with pytest.raises(bai.BackendAIPluginError):
        run(p.query_workload_config({"cuda.device": {"99": 1}}))
    with pytest.raises(bai.BackendAIPluginError):  # a whole GPU under a MIG slot
        run(p.to_device_list({"cuda.device:1g.10gb-mig": {"3": 1}}))

    # reconstruct_from_kernel is restore_from_container: a kernel's resource.txt back
    from ai.backend.agent.types import Container
    from aiodocker.containers import DockerContainer
    cfg = tmp_path / "config"
    cfg.mkdir()
    (cfg / "resource.txt").write_text("CUDA.DEVICE_SHARES=3:1,5:1\nCUDA.DEVICE:1G.10GB-MIG_SHARES=%s:1\n" % mig_id)
    dc = DockerContainer(None, Id="c1", Mounts=[{"Type": "bind", "Source": str(cfg), "Destination": "/home/config"}])
    container = Container(id="c1", status="running", image="x", labels={}, ports=[], backend_obj=dc)
    a, b = run(p.create_alloc_map()), run(p.create_alloc_map())
    assert run(p.reconstruct_from_kernel(container, a)) is None
    run(p.restore_from_container(container, b))
    assert a.allocations == b.allocations
    assert a.allocations["cuda.device"]["3"] == 1 and a.allocations["cuda.device"]["2"] == 0
    assert a.allocations["cuda.device:1g.10gb-mig"][mig_id] == 1

    hw = run(p.get_node_hwinfo())
    assert hw["status"] in ("healthy", "degraded") and isinstance(hw["metadata"], Mapping)
    assert isinstance(p.get_additional_allowed_syscalls(), list) and isinstance(p.get_additional_gids(), list)
    for x in (p, v21):
        run(x.cleanup())


@pytest.mark.parametrize("key", ["cuda", "rocm"])
def test_mixed_node(key):
    """mixed.json (2 H100, 2 L4, an RTX 4090, an MI300X): one slot type per plugin, so
    one AcceleratorMetadata; every device of the BEP's type, with its facts."""
    p = bep1000.BEP1000_PLUGINS[key]({"sim": MIXED}, {})
    run(p.init())
    metas = p.get_metadata()
    assert [m["slot_name"] for m in metas] == ["%s.device" % key]
    check_typed_dict(CURRENT["AcceleratorMetadata"], metas[0], "get_metadata()[0]")
    devs = list(run(p.list_devices()))
    assert len(devs) == {"cuda": 5, "rocm": 1}[key]
    for d in devs:
        check_device(d, d.device_id)
        assert d.memory_spec.total_memory and d.compute_units and d.precision_support
    assert {str(k): v for k, v in run(p.available_slots()).items()} == {"%s.device" % key: len(devs)}
    alloc = {"%s.device" % key: {devs[0].device_id: Decimal(1)}}
    assert [r["device_id"] for r in run(p.to_device_list(alloc))] == [devs[0].device_id]
    assert run(p.write_into_kernel(alloc))["%s_GLOBAL_DEVICE_IDS" % key.upper()] == "0:%s" % devs[0].device_id
    wc = run(p.query_workload_config(alloc))
    assert wc.docker_args == run(p.generate_docker_args(None, alloc))
    if key == "rocm":
        mi = devs[0]
        assert mi.memory_spec.memory_type == "HBM3" and mi.memory_spec.total_memory == 192 << 30
    run(p.cleanup())


def test_emulated_precision(tmp_path):
    """A format a vendor documents as supported through emulation is "emulated": Intel's
    compute-runtime gives DG2 (Arc A770, A750, Flex 170, 140) no FP64 hardware and FP64
    emulation (data/devices.db cites hw_info_dg2.cpp and opencl/doc/FAQ.md)."""
    level = PROPOSED["ComputePrecisionSupportLevel"]
    for model in ("Intel(R) Arc(TM) A770 Graphics", "Intel(R) Data Center GPU Flex 170"):
        sim = tmp_path / "arc.json"
        sim.write_text(json.dumps({"schema": "axl.sim", "schema_version": 1,
                                   "devices": [{"model": model, "count": 1}]}))
        p = bep1000.IntelGPUPlugin({"sim": str(sim)}, {})
        run(p.init())
        (d,) = run(p.list_devices())
        check_device(d, model)
        sup = {x.format: x.support for x in d.precision_support}
        assert sup["FP64"] == bai.ComputePrecisionSupportLevel.EMULATED
        assert level(sup["FP64"]) is level.EMULATED
        info = d.device_info()
        assert {"format": "FP64", "support": "emulated"} in info["precision_support"]
        assert "FP64" not in info["precision_unknown"]
        run(p.cleanup())


def test_gpc_and_ai_core(tmp_path):
    """The BEP's own examples of a compute unit, "GPC" and "AI Core", as the vendors name
    them: GPCs where NVIDIA's whitepapers give a count (H100 SXM5: 8; A100: 7; V100: 6),
    after the SMs; an Ascend 310's 2 AI Cores (Huawei's CANN guides). Where a count is not
    published for the model (H100 PCIe: "7 or 8 GPCs"), there is none."""
    cases = [("cuda", "NVIDIA H100 80GB HBM3", [("SM", 132), ("Tensor Core", 528), ("GPC", 8)]),
             ("cuda", "NVIDIA A100-SXM4-80GB", [("SM", 108), ("Tensor Core", 432), ("GPC", 7)]),
             ("cuda", "NVIDIA H100 PCIe", None),
             ("ascend", "Huawei Ascend 310", [("AI Core", 2)])]
    for key, model, want in cases:
        sim = tmp_path / "cu.json"
        sim.write_text(json.dumps({"schema": "axl.sim", "schema_version": 1,
                                   "devices": [{"model": model, "count": 1}]}))
        p = bep1000.BEP1000_PLUGINS[key]({"sim": str(sim)}, {})
        run(p.init())
        (d,) = run(p.list_devices())
        check_device(d, model)
        got = [(c.name, c.count) for c in d.compute_units]
        for c in d.compute_units:
            x = PROPOSED["ComputeUnit"](name=c.name, count=c.count)
            assert (x.name, x.count) == (c.name, c.count)
        if want is None:
            assert got and "GPC" not in [n for n, _ in got], (model, got)
        else:
            assert got == want, (model, got)
            assert d.device_info()["compute_units"] == [{"name": n, "count": c} for n, c in want]
        run(p.cleanup())


def test_partioning_support_either_spelling():
    """read_partitioning_support reads the corrected key, the BEP's spelling, or both
    when they agree; a document with neither has none."""
    rows = [{"technology": "MIG", "max_partitions": 7, "mode": "enabled", "profiles": ["1g.10gb"]}]
    want = [bai.PartitioningCapability(max_partitions=7, technology="MIG", mode="enabled", profiles=["1g.10gb"])]
    assert bai.read_partitioning_support({"partitioning_support": rows}) == want
    assert bai.read_partitioning_support({"partioning_support": rows}) == want
    assert bai.read_partitioning_support({"partitioning_support": rows, "partioning_support": rows}) == want
    assert bai.read_partitioning_support({}) == []
    # a BEP PartitioningCapability as the BEP writes it (attrs, only its two fields)
    bep = PROPOSED["PartitioningCapability"](max_partitions=4, technology="fGPU")
    got = bai.read_partitioning_support({"partioning_support": [{"technology": bep.technology,
                                                                  "max_partitions": bep.max_partitions}]})
    assert got == [bai.PartitioningCapability(max_partitions=4, technology="fGPU")]
    with pytest.raises(bai.BackendAIPluginError):
        bai.read_partitioning_support({"partitioning_support": rows, "partioning_support": []})
    for bad in ([{"max_partitions": 2}], [{"technology": "MIG", "max_partitions": 0}],
                [{"technology": "MIG", "max_partitions": "7"}], ["MIG"]):
        with pytest.raises(bai.BackendAIPluginError):
            bai.read_partitioning_support({"partioning_support": bad})
    # and a device's document read back gives the device's rows
    p = bep1000.CUDAPlugin({"sim": MIG2}, {})
    run(p.init())
    d = p.mig_parents[0] if p.mig_parents else p.devices[0]
    assert bai.read_partitioning_support(d.device_info()) == d.partitioning_support
    assert bai.read_partitioning_support(d) == d.partitioning_support
    run(p.cleanup())
