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

from .backend import EXO_TO_AXL, AxlGPUBackend, device_telemetry
from .discovery import GPUDiscoveryService, inventory_device
from .factory import GPUBackendFactory
from .interface import EXO_INTERFACE, GPUBackend, GPUDevice, MemoryHandle

__all__ = ["AxlGPUBackend", "EXO_INTERFACE", "EXO_TO_AXL", "GPUBackend", "GPUBackendFactory",
           "GPUDevice", "GPUDiscoveryService", "MemoryHandle", "device_telemetry",
           "inventory_device"]
