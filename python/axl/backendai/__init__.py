"""Backend.AI compute plugins (entry-point group ``backendai_accelerator_v21``) on axl.

One plugin class per device kind Backend.AI knows (``cuda``, ``rocm``, ``habana``,
``neuron``, ``tpu``, ``tenstorrent``, ``ascend``, ``xpu``, ...), all on one generic
implementation, :class:`AxlComputePlugin`. When ``ai.backend.agent`` is importable the
plugins subclass its ``AbstractComputePlugin`` and build its alloc maps and measurement
types; otherwise they present the same methods with the same signatures (sync/async as
the interface declares them) over small stand-ins (``_agent``).

Slots (docs/backendai.md): ``<key>.device`` (whole devices, count, discrete map),
``<key>.shares`` (fractional shares, count, fraction map; ``allocation_mode =
"fractional"``), ``<key>.device:<profile>-mig`` (one existing MIG device / partition,
unique). BEP-1000: :meth:`AxlComputePlugin.get_resource_spec` lists every slot
definition of the node and the device-info documents (schema/backendai-*.schema.json);
the BEP's translated methods sit beside the v21 ones, and ``bep1000`` has the classes
whose ``get_metadata()`` is the BEP's (a sequence, one per slot type).

Modules: ``_agent`` (the agent's base classes or stand-ins), ``errors``
(:class:`BackendAIPluginError`), ``spec`` (BEP-1000 facts), ``device``
(:class:`AxlComputeDevice`), ``resource_txt`` (:func:`read_resource_txt`), ``plugin``
(:class:`AxlComputePlugin`), ``kinds`` (one plugin class per device kind, ``PLUGINS``),
``bep1000`` (the BEP-1000 interface: ``BEP1000_PLUGINS``).
"""

from __future__ import annotations

from ._agent import (AGENT_IMPORT_ERROR, HAVE_AGENT, ContainerMeasurement, DeviceSlotInfo,
                     DiscretePropertyAllocMap, FractionAllocMap, Measurement, MetricTypes,
                     MountInfo, MountTypes, NodeMeasurement, ProcessMeasurement, SlotName,
                     SlotTypes)
from .device import AxlComputeDevice
from .errors import BackendAIPluginError
from .kinds import (ENTRY_PREFIX, PLUGINS, AMDNPUPlugin, AscendPlugin, CUDAPlugin, GaudiPlugin,
                    Gaudi2Plugin, Gaudi3Plugin, TTn300Plugin,
                    IntelGPUPlugin, IntelNPUPlugin, NeuronPlugin, QAICPlugin, ROCmPlugin,
                    TenstorrentPlugin, TPUPlugin)
from .plugin import AxlComputePlugin
from .resource_txt import ResourceTxtError, read_resource_txt
from .v2 import AxlLifecycleHook, Workload, WorkloadConfig, WorkloadMount
from .spec import (BEP_PRECISIONS, ComputePrecisionSupport, ComputePrecisionSupportLevel,
                   ComputeUnit, MemorySpec, PartitioningCapability, gbps_to_gibps,
                   read_partitioning_support)
from .bep1000 import BEP1000_PLUGINS, AcceleratorWorkloadConfig, BEP1000Interface

__all__ = [
    "HAVE_AGENT", "ContainerMeasurement", "DeviceSlotInfo", "DiscretePropertyAllocMap",
    "FractionAllocMap", "Measurement", "MetricTypes", "MountInfo", "MountTypes", "NodeMeasurement",
    "AGENT_IMPORT_ERROR",
    "ProcessMeasurement", "SlotName", "SlotTypes",
    "AxlComputeDevice", "BackendAIPluginError", "ResourceTxtError", "read_resource_txt",
    "AxlLifecycleHook", "Workload", "WorkloadConfig", "WorkloadMount",
    "BEP_PRECISIONS", "gbps_to_gibps", "AxlComputePlugin", "PLUGINS",
    "ComputePrecisionSupport", "ComputePrecisionSupportLevel", "ComputeUnit", "MemorySpec",
    "PartitioningCapability", "read_partitioning_support",
    "BEP1000_PLUGINS", "AcceleratorWorkloadConfig", "BEP1000Interface",
    "CUDAPlugin", "ROCmPlugin", "AMDNPUPlugin", "GaudiPlugin", "Gaudi2Plugin", "Gaudi3Plugin",
    "NeuronPlugin", "TPUPlugin", "TTn300Plugin", "ENTRY_PREFIX",
    "TenstorrentPlugin", "AscendPlugin", "IntelGPUPlugin", "IntelNPUPlugin", "QAICPlugin",
]
