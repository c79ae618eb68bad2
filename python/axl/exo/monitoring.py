"""exo's GPU monitoring (the fork's ``exo.gpu.monitoring``, HautlyS/exo 1c6dd01
src/exo/gpu/monitoring.py; the seed's "platform-specific device detection and
monitoring"): GPUMetricsSnapshot, GPUMetricsSummary, GPUMetricsCollector and
GPUMonitoringService, with the fork's names, fields and methods, over any exo backend.

On an axl backend every reading comes from axl: memory from the runtime
(``get_device_memory_info``), temperature, power and utilisation from axl's sampler
(``get_device_temperature``, ``get_device_power_usage``, ``get_device_utilization``).
Where the fork writes 0 for a reading it does not have (and, for utilisation, the share
of memory in use as a "placeholder"), a reading not known here is UNKNOWN_FLOAT (-1.0,
what the fork's DeviceGPUState documents for a temperature "unavailable"): summaries
average the known readings only, and an unknown reading raises no alert.

``get_device_gpu_state()`` returns exo's ``DeviceGPUState`` (``exo.shared.types.state``)
when exo is importable, else this module's dataclass of the same fields and defaults."""

from __future__ import annotations

import asyncio
import contextlib
import logging
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, Callable, Optional

from .interface import UNKNOWN_FLOAT, GPUBackend, GPUDevice

__all__ = ["DeviceGPUState", "GPUMetricsCollector", "GPUMetricsSnapshot", "GPUMetricsSummary",
           "GPUMonitoringService"]

log = logging.getLogger("axl.exo")

try:  # exo's own state type, when exo is installed
    from exo.shared.types.state import DeviceGPUState  # type: ignore[import-not-found]
except Exception:  # ImportError, or an exo without it

    @dataclass(frozen=True)
    class DeviceGPUState:  # type: ignore[no-redef]
        """exo's DeviceGPUState (exo.shared.types.state): one device's state for
        placement and monitoring; node_id is exo's NodeId (a str)."""

        device_id: str
        node_id: str
        memory_used_bytes: int
        memory_total_bytes: int
        compute_utilization_percent: float
        thermal_temperature_c: float
        thermal_throttle_threshold_c: float = 85.0
        is_thermal_throttling: bool = False
        battery_percent: float = 100.0
        is_plugged_in: bool = True
        last_update: datetime = field(default_factory=datetime.now)

        @property
        def memory_available_bytes(self) -> int:
            return max(0, self.memory_total_bytes - self.memory_used_bytes)

        @property
        def memory_utilization_percent(self) -> float:
            if self.memory_total_bytes == 0:
                return 0.0
            return 100.0 * self.memory_used_bytes / self.memory_total_bytes


@dataclass
class GPUMetricsSnapshot:
    """One point-in-time reading of a device (unknown readings: UNKNOWN_FLOAT)."""

    timestamp: datetime
    device_id: str
    memory_used_bytes: int
    memory_total_bytes: int
    compute_utilization_percent: float
    temperature_c: float
    power_usage_w: float


@dataclass
class GPUMetricsSummary:
    """Statistics over the collector's window (of the known readings; UNKNOWN_FLOAT when
    none was known)."""

    device_id: str
    window_seconds: float
    memory_avg_used_bytes: int
    memory_peak_used_bytes: int
    memory_current_used_bytes: int
    compute_avg_utilization_percent: float
    compute_peak_utilization_percent: float
    compute_current_utilization_percent: float
    temperature_avg_c: float
    temperature_peak_c: float
    temperature_current_c: float
    power_avg_w: float
    power_peak_w: float
    power_current_w: float
    high_memory_alerts: int = 0
    high_temperature_alerts: int = 0
    thermal_throttle_detected: bool = False


def _reading(v: Any) -> float:
    """A telemetry answer as a float: None (not available) is UNKNOWN_FLOAT."""
    return UNKNOWN_FLOAT if v is None else float(v)


def _stats(values: list[float]) -> tuple[float, float, float]:
    """(average, peak, current) of the known readings (>= 0), UNKNOWN_FLOAT for each
    when none is known."""
    known = [v for v in values if v >= 0]
    if not known:
        return UNKNOWN_FLOAT, UNKNOWN_FLOAT, UNKNOWN_FLOAT
    return sum(known) / len(known), max(known), values[-1]


class GPUMetricsCollector:
    """Collects one device's readings from a backend and aggregates them over a window."""

    def __init__(self, device: GPUDevice, backend: GPUBackend,
                 window_size_seconds: float = 60.0) -> None:
        self.device = device
        self.backend = backend
        self.window_size_seconds = window_size_seconds
        self.snapshots: list[GPUMetricsSnapshot] = []
        # the fork's thresholds: 90% of the device's memory, 75 °C
        self.high_memory_threshold_bytes = (int(0.9 * device.memory_bytes)
                                            if device.memory_bytes > 0 else None)
        self.high_temperature_threshold_c = 75.0

    async def collect_snapshot(self) -> GPUMetricsSnapshot:
        """Read the device once (memory, temperature, power, utilisation) and keep it."""
        did = self.device.device_id
        memory_info = await self.backend.get_device_memory_info(did)
        temperature = await self.backend.get_device_temperature(did)
        power = await self.backend.get_device_power_usage(did)
        util_fn = getattr(self.backend, "get_device_utilization", None)
        util = await util_fn(did) if util_fn is not None else None
        used = int(memory_info.get("used_bytes", 0) or 0)
        total = int(memory_info.get("total_bytes", 0) or 0)
        snap = GPUMetricsSnapshot(timestamp=datetime.now(), device_id=did,
                                  memory_used_bytes=used, memory_total_bytes=total,
                                  compute_utilization_percent=_reading(util),
                                  temperature_c=_reading(temperature),
                                  power_usage_w=_reading(power))
        self.snapshots.append(snap)
        cutoff = datetime.now() - timedelta(seconds=self.window_size_seconds)
        self.snapshots = [s for s in self.snapshots if s.timestamp > cutoff]
        return snap

    def high_memory(self, snap: GPUMetricsSnapshot) -> bool:
        t = self.high_memory_threshold_bytes
        return t is not None and snap.memory_used_bytes > t

    def high_temperature(self, snap: GPUMetricsSnapshot) -> bool:
        return snap.temperature_c > self.high_temperature_threshold_c

    def get_summary(self) -> Optional[GPUMetricsSummary]:
        """Aggregates over the window; None before the first snapshot."""
        if not self.snapshots:
            return None
        mem = [s.memory_used_bytes for s in self.snapshots]
        u_avg, u_peak, u_cur = _stats([s.compute_utilization_percent for s in self.snapshots])
        t_avg, t_peak, t_cur = _stats([s.temperature_c for s in self.snapshots])
        p_avg, p_peak, p_cur = _stats([s.power_usage_w for s in self.snapshots])
        high_temp = sum(1 for s in self.snapshots if self.high_temperature(s))
        return GPUMetricsSummary(
            device_id=self.device.device_id, window_seconds=self.window_size_seconds,
            memory_avg_used_bytes=int(sum(mem) / len(mem)), memory_peak_used_bytes=max(mem),
            memory_current_used_bytes=mem[-1],
            compute_avg_utilization_percent=u_avg, compute_peak_utilization_percent=u_peak,
            compute_current_utilization_percent=u_cur,
            temperature_avg_c=t_avg, temperature_peak_c=t_peak, temperature_current_c=t_cur,
            power_avg_w=p_avg, power_peak_w=p_peak, power_current_w=p_cur,
            high_memory_alerts=sum(1 for s in self.snapshots if self.high_memory(s)),
            high_temperature_alerts=high_temp,
            thermal_throttle_detected=high_temp > 3)  # the fork's threshold

    def get_device_gpu_state(self, node_id: Optional[str] = None) -> Optional[DeviceGPUState]:
        """The latest snapshot as exo's DeviceGPUState; None before the first."""
        if not self.snapshots:
            return None
        s = self.snapshots[-1]
        return DeviceGPUState(device_id=self.device.device_id,
                              node_id=node_id or self.device.device_id,
                              memory_used_bytes=s.memory_used_bytes,
                              memory_total_bytes=s.memory_total_bytes,
                              compute_utilization_percent=s.compute_utilization_percent,
                              thermal_temperature_c=s.temperature_c)


class GPUMonitoringService:
    """Monitors every device of a backend in a background task."""

    def __init__(self, backend: GPUBackend) -> None:
        self.backend = backend
        self.collectors: dict[str, GPUMetricsCollector] = {}
        self._monitoring_task: Optional[asyncio.Task[None]] = None
        self._collection_interval_seconds = 1.0
        self._alert_callback: Optional[Callable[[dict[str, Any]], Any]] = None

    async def start(self, collection_interval_seconds: float = 1.0) -> None:
        """A collector per device, and the collection loop (every interval)."""
        self._collection_interval_seconds = collection_interval_seconds
        for device in self.backend.list_devices():
            self.collectors[device.device_id] = GPUMetricsCollector(device, self.backend)
        self._monitoring_task = asyncio.create_task(self._monitor_loop())
        log.info("started GPU monitoring of %d device(s)", len(self.collectors))

    async def stop(self) -> None:
        if self._monitoring_task:
            self._monitoring_task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._monitoring_task
            self._monitoring_task = None

    async def _alert(self, alert: dict[str, Any]) -> None:
        if self._alert_callback is not None:
            r = self._alert_callback(alert)
            if asyncio.iscoroutine(r):  # the fork's callbacks are async; a plain one works
                await r

    async def _monitor_loop(self) -> None:
        while True:
            try:
                for c in self.collectors.values():
                    s = await c.collect_snapshot()
                    if c.high_memory(s):
                        log.warning("high GPU memory on %s: %.1f GB", s.device_id,
                                    s.memory_used_bytes / 1e9)
                        await self._alert({"type": "high_memory", "device_id": s.device_id,
                                           "memory_gb": s.memory_used_bytes / 1e9})
                    if c.high_temperature(s):
                        log.warning("high GPU temperature on %s: %.1f C", s.device_id,
                                    s.temperature_c)
                        await self._alert({"type": "high_temperature", "device_id": s.device_id,
                                           "temperature_c": s.temperature_c})
                await asyncio.sleep(self._collection_interval_seconds)
            except asyncio.CancelledError:
                break
            except Exception as e:  # a failed reading: logged, the loop goes on
                log.error("GPU monitoring: %s", e)
                await asyncio.sleep(self._collection_interval_seconds)

    def set_alert_callback(self, callback: Callable[[dict[str, Any]], Any]) -> None:
        self._alert_callback = callback

    def get_device_states(self) -> dict[str, DeviceGPUState]:
        out = {}
        for did, c in self.collectors.items():
            st = c.get_device_gpu_state()
            if st is not None:
                out[did] = st
        return out

    def get_summaries(self) -> dict[str, GPUMetricsSummary]:
        out = {}
        for did, c in self.collectors.items():
            s = c.get_summary()
            if s is not None:
                out[did] = s
        return out

    def get_prometheus_metrics(self) -> str:
        """The fork's exposition (gpu_memory_used_bytes, gpu_memory_total_bytes,
        gpu_utilization_percent, gpu_temperature_celsius, gpu_power_watts, labelled by
        device_id); a reading not known is left out rather than written as a number."""
        lines: list[str] = []
        for did, c in self.collectors.items():
            s = c.get_summary()
            if s is None:
                continue
            lab = '{device_id="%s"}' % did
            lines.append("gpu_memory_used_bytes%s %d" % (lab, s.memory_current_used_bytes))
            if c.device.memory_bytes >= 0:
                lines.append("gpu_memory_total_bytes%s %d" % (lab, c.device.memory_bytes))
            for name, v in (("gpu_utilization_percent", s.compute_current_utilization_percent),
                            ("gpu_temperature_celsius", s.temperature_current_c),
                            ("gpu_power_watts", s.power_current_w)):
                if v >= 0:
                    lines.append("%s%s %s" % (name, lab, v))
        return "\n".join(lines) + "\n" if lines else ""
