"""axl.exo: exo's asynchronous GPU backend interface on axl (docs/exo.md).

    import asyncio
    from axl.exo import GPUBackendFactory

    async def main():
        b = await GPUBackendFactory.create_backend()     # CUDA, ROCm, Vulkan, else CPU
        dev = b.list_devices()[0]
        h = await b.allocate(dev.device_id, 1 << 20)
        await b.copy_to_device(b"tensor data", h)
        print(await b.copy_from_device(h, 0, 11))
        await b.deallocate(h)
        await b.shutdown()

    asyncio.run(main())
"""

from __future__ import annotations

from .backend import (EXO_TO_AXL, AxlGPUBackend, HostBuffer, cuda_compute_capability,
                      device_telemetry, inventory_facts)
from .backends import CPUBackend, CUDABackend
from .discovery import (GPUDiscoveryService, discover_gpu_devices, get_peak_flops,
                        get_total_gpu_memory, inventory_device, peak_flops_known)
from .factory import GPUBackendFactory, detect_available_backends, get_gpu_backend_info
from .interface import (CLOCK_UNKNOWN_MHZ, EXO_INTERFACE, SOFTWARE_VENDOR, UNKNOWN_FLOAT,
                        UNKNOWN_INT, UNKNOWN_STR, AxlGPUDevice, GPUBackend, GPUDevice,
                        MemoryHandle)
from .monitoring import (GPUMetricsCollector, GPUMetricsSnapshot, GPUMetricsSummary,
                         GPUMonitoringService)
from .node import exo_node_profile

__all__ = ["AxlGPUBackend", "AxlGPUDevice", "CLOCK_UNKNOWN_MHZ", "CPUBackend", "CUDABackend",
           "EXO_INTERFACE", "EXO_TO_AXL", "GPUBackend", "GPUBackendFactory", "GPUDevice",
           "GPUDiscoveryService", "GPUMetricsCollector", "GPUMetricsSnapshot",
           "GPUMetricsSummary", "GPUMonitoringService", "HostBuffer", "MemoryHandle",
           "SOFTWARE_VENDOR", "UNKNOWN_FLOAT", "UNKNOWN_INT", "UNKNOWN_STR", "cuda_compute_capability",
           "detect_available_backends", "device_telemetry", "discover_gpu_devices",
           "exo_node_profile", "get_gpu_backend_info", "get_peak_flops",
           "get_total_gpu_memory", "inventory_device", "inventory_facts", "peak_flops_known"]
