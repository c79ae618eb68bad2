"""The plugin classes of :mod:`axl.backendai`, one per device kind Backend.AI knows
(its key, axl's id prefixes), and ``PLUGINS``, every class by its key.

The keys (and so the slot names, ``<key>.device``) are upstream's own plugins' where
upstream has one (lablup/backend.ai c0032c47, src/ai/backend/accelerator/: cuda, rocm,
tpu, gaudi2, gaudi3, tt-n300), so that a cluster can swap plugins without renaming slots.
The entry-point names are ``axl-<key>``: never one of upstream's (``cuda``, ``rocm``,
``tpu``, ...), so that both packages can be installed side by side (the agent's
scan_entrypoints refuses two entry points of one name); docs/backendai.md says how the
agent's allow-/block-compute-plugins then choose."""

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


class GaudiPlugin(AxlComputePlugin):
    """Intel Gaudi (Habana) accelerators that neither Gaudi2Plugin nor Gaudi3Plugin
    takes (first-generation Gaudi): upstream's habana base plugin's key, "gaudi"."""
    key = "gaudi"
    id_prefixes = ("habana",)
    exclude_db_keys = ("habana-gaudi2", "intel-gaudi3")
    human_readable_name, display_unit = "Gaudi", "HPU"


class Gaudi2Plugin(AxlComputePlugin):
    """Habana Gaudi2 (upstream's gaudi2 plugin: gaudi2.device)."""
    key = "gaudi2"
    id_prefixes = ("habana",)
    db_keys = ("habana-gaudi2",)
    human_readable_name, display_unit = "Gaudi 2", "HPU"


class Gaudi3Plugin(AxlComputePlugin):
    """Intel Gaudi 3 (upstream's gaudi3 plugin: gaudi3.device)."""
    key = "gaudi3"
    id_prefixes = ("habana",)
    db_keys = ("intel-gaudi3",)
    human_readable_name, display_unit = "Gaudi 3", "HPU"


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


class TTn300Plugin(AxlComputePlugin):
    """Tenstorrent Wormhole n300 cards (upstream's tt-n300 plugin: tt-n300.device)."""
    key = "tt-n300"
    id_prefixes = ("tenstorrent",)
    db_keys = ("tenstorrent-wormhole-n300",)
    human_readable_name, display_unit = "Tenstorrent n300", "Card"


class TenstorrentPlugin(AxlComputePlugin):
    """Tenstorrent cards other than the n300 (upstream has a plugin for the n300 only)."""
    key = "tenstorrent"
    id_prefixes = ("tenstorrent",)
    exclude_db_keys = ("tenstorrent-wormhole-n300",)
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


#: Every plugin class by its key (the entry-point names are "axl-" + key).
PLUGINS: dict[str, type[AxlComputePlugin]] = {c.key: c for c in (
    CUDAPlugin, ROCmPlugin, AMDNPUPlugin, GaudiPlugin, Gaudi2Plugin, Gaudi3Plugin, NeuronPlugin,
    TPUPlugin, TTn300Plugin, TenstorrentPlugin, AscendPlugin, IntelGPUPlugin, IntelNPUPlugin,
    QAICPlugin)}

#: The entry-point name of a plugin class.
ENTRY_PREFIX = "axl-"
