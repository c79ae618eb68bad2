"""The plugin classes of :mod:`axl.backendai`, one per device kind Backend.AI knows
(its key, axl's id prefixes), and ``PLUGINS``, every class by its key (the names of
the ``backendai_accelerator_v21`` entry points)."""

from __future__ import annotations

from .plugin import AxlComputePlugin


# One plugin class per device kind: Backend.AI's key, axl's id prefixes.
class CUDAPlugin(AxlComputePlugin):
    """NVIDIA GPUs (cuda.device, cuda.shares, cuda.device:<profile>-mig)."""
    key = "cuda"
    id_prefixes = ("nvidia",)
    human_readable_name, display_unit, display_icon = "GPU", "GPU", "gpu1"


class ROCmPlugin(AxlComputePlugin):
    """AMD Instinct / Radeon GPUs."""
    key = "rocm"
    id_prefixes = ("amdgpu",)
    families = ("gpu",)
    human_readable_name, display_unit, display_icon = "ROCm GPU", "GPU", "rocm"
    default_groups = ("video", "render")


class AMDNPUPlugin(AxlComputePlugin):
    """AMD Ryzen AI NPUs (amdxdna)."""
    key = "amd-npu"
    id_prefixes = ("amdxdna",)
    human_readable_name, display_unit = "AMD NPU", "NPU"
    default_groups = ("render",)


class HabanaPlugin(AxlComputePlugin):
    """Intel Gaudi (Habana) accelerators."""
    key = "habana"
    id_prefixes = ("habana",)
    human_readable_name, display_unit = "Gaudi", "HPU"


class NeuronPlugin(AxlComputePlugin):
    """AWS Inferentia / Trainium (Neuron) devices."""
    key = "neuron"
    id_prefixes = ("neuron",)
    human_readable_name, display_unit = "Neuron", "NeuronDevice"


class TPUPlugin(AxlComputePlugin):
    """Google TPUs."""
    key = "tpu"
    id_prefixes = ("tpu",)
    human_readable_name, display_unit, display_icon = "TPU", "TPU", "tpu"


class TenstorrentPlugin(AxlComputePlugin):
    """Tenstorrent cards."""
    key = "tenstorrent"
    id_prefixes = ("tenstorrent",)
    human_readable_name, display_unit = "Tenstorrent", "Card"


class AscendPlugin(AxlComputePlugin):
    """Huawei Ascend NPUs."""
    key = "ascend"
    id_prefixes = ("ascend",)
    human_readable_name, display_unit = "Ascend", "NPU"


class IntelGPUPlugin(AxlComputePlugin):
    """Intel GPUs (Data Center GPU Max / Flex, Arc)."""
    key = "xpu"
    id_prefixes = ("intel",)
    families = ("gpu",)
    human_readable_name, display_unit = "Intel GPU", "GPU"
    default_groups = ("video", "render")


class IntelNPUPlugin(AxlComputePlugin):
    """Intel NPUs (intel_vpu)."""
    key = "intel-npu"
    id_prefixes = ("intelnpu",)
    human_readable_name, display_unit = "Intel NPU", "NPU"
    default_groups = ("render",)


class QAICPlugin(AxlComputePlugin):
    """Qualcomm Cloud AI accelerators."""
    key = "qaic"
    id_prefixes = ("qaic",)
    human_readable_name, display_unit = "Cloud AI", "Card"


#: Every plugin class by its key (the entry-point names).
PLUGINS: dict[str, type[AxlComputePlugin]] = {c.key: c for c in (
    CUDAPlugin, ROCmPlugin, AMDNPUPlugin, HabanaPlugin, NeuronPlugin, TPUPlugin,
    TenstorrentPlugin, AscendPlugin, IntelGPUPlugin, IntelNPUPlugin, QAICPlugin)}
