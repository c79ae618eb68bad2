/* SPDX-License-Identifier: MIT */
/**
 * @file axl/metrics.h
 * Live metrics: what each device is doing now, and which processes use it.
 *
 * A sampler is made once for an inventory and then asked for samples as often as the
 * caller likes (a TensorFusion limiter every 500 ms, a Prometheus scrape, `axl top`):
 *
 *     axl_sampler *s;
 *     axl_sampler_open(&s, inv, AXL_SAMPLER_PROCESSES);
 *     axl_sample *smp;
 *     axl_sampler_sample(s, &smp);
 *     double w; axl_source src;
 *     if (axl_sample_get(smp, 0, AXL_METRIC_POWER, &w, &src) == 0) ...
 *     axl_sample_free(smp);
 *     axl_sampler_free(s);
 *
 * Every value has a validity bit: axl_sample_get() answers AXL_EUNKNOWN when the device
 * or its driver does not say (unknown is not zero). Rates (utilisation from busy-time
 * counters, PCIe throughput from byte counters, power from an energy counter, per-process
 * utilisation from the kernel's DRM client statistics) come from the difference between
 * this sample and the sampler's previous one, never from one reading: in a sampler's
 * first sample they are unknown unless the device reports them directly. A counter that
 * goes backwards or wraps gives an unknown rate, never a negative or huge one.
 *
 * A device that disappears or errors during a sample (fell off the bus, driver reset)
 * is AXL_SAMPLE_LOST in that sample, with no values; the other devices are unaffected.
 *
 * The sampler reads files it opened once (sysfs attributes are read again from offset
 * 0), so one device costs microseconds. A sampler is not thread-safe: sample from one
 * thread at a time. Samples are independent of the sampler and of each other; they
 * point into the inventory, which must outlive them.
 */
#ifndef AXL_METRICS_H
#define AXL_METRICS_H

#include "common.h"
#include "device.h"
#include "inventory.h"

AXL_BEGIN_DECLS

/**
 * The metrics, as X(NAME, json_key, unit, kind):
 *  - json_key: the key in "axl.metrics" documents (a dot nests: "ecc_errors.corrected");
 *  - unit: the base unit ("percent", "bytes", "watts", "joules", "celsius", "megahertz",
 *    "bytes_per_second", "errors", "bits"; Prometheus output converts megahertz to hertz);
 *  - kind: 'g' a gauge, 'c' a counter (only ever grows, until a reset).
 * Append only: the numbers are part of the ABI.
 */
#define AXL_METRIC_LIST(X)                                                                   \
	X(UTILIZATION, "utilization_percent", "percent", 'g')       /* compute / graphics busy */ \
	X(MEMORY_UTILIZATION, "memory_utilization_percent", "percent", 'g') /* memory controller */ \
	X(ENCODER_UTILIZATION, "encoder_utilization_percent", "percent", 'g')                 \
	X(DECODER_UTILIZATION, "decoder_utilization_percent", "percent", 'g')                 \
	X(MEMORY_USED, "memory_used_bytes", "bytes", 'g')                                     \
	X(MEMORY_TOTAL, "memory_total_bytes", "bytes", 'g')                                   \
	X(POWER, "power_watts", "watts", 'g')                                                 \
	X(POWER_LIMIT, "power_limit_watts", "watts", 'g')                                     \
	X(ENERGY, "energy_joules", "joules", 'c')        /* since the driver loaded */        \
	X(TEMPERATURE, "temperature_celsius", "celsius", 'g') /* the GPU / edge sensor */     \
	X(TEMPERATURE_HOTSPOT, "temperature_hotspot_celsius", "celsius", 'g') /* junction */  \
	X(TEMPERATURE_MEMORY, "temperature_memory_celsius", "celsius", 'g')                   \
	X(SM_CLOCK, "sm_clock_mhz", "megahertz", 'g')   /* SM / graphics / core clock */     \
	X(MEMORY_CLOCK, "memory_clock_mhz", "megahertz", 'g')                                 \
	X(PCIE_RX, "pcie_rx_bytes_per_s", "bytes_per_second", 'g')                       \
	X(PCIE_TX, "pcie_tx_bytes_per_s", "bytes_per_second", 'g')                       \
	X(ECC_CORRECTED, "ecc_errors.corrected", "errors", 'c')   /* volatile: since boot */  \
	X(ECC_UNCORRECTED, "ecc_errors.uncorrected", "errors", 'c')                           \
	X(THROTTLE_REASONS, "throttle_reasons", "bits", 'g')   /* AXL_THROTTLE_* bits */     \
	X(FAN, "fan_speed_percent", "percent", 'g')

typedef enum {
#define AXL_METRIC_ENUM_(name, key, unit, kind) AXL_METRIC_##name,
	AXL_METRIC_LIST(AXL_METRIC_ENUM_)
#undef AXL_METRIC_ENUM_
	AXL_METRIC__COUNT
} axl_metric;

/** "utilization_percent"; NULL for an unknown metric. */
AXL_API const char *axl_metric_name(axl_metric m);
/** "percent", "bytes", ...; NULL for an unknown metric. */
AXL_API const char *axl_metric_unit(axl_metric m);
/** Non-zero when the metric is a counter. */
AXL_API int axl_metric_is_counter(axl_metric m);

/** Why a device runs slower than it could (AXL_METRIC_THROTTLE_REASONS). The bits are
 *  NVML's clock-event reasons; other vendors' reasons are mapped onto them. */
enum {
	AXL_THROTTLE_IDLE = 1u << 0,           /**< nothing to do */
	AXL_THROTTLE_APP_CLOCKS = 1u << 1,     /**< application clocks setting */
	AXL_THROTTLE_SW_POWER_CAP = 1u << 2,   /**< the power limit */
	AXL_THROTTLE_HW_SLOWDOWN = 1u << 3,    /**< hardware slowdown (heat or power brake) */
	AXL_THROTTLE_SYNC_BOOST = 1u << 4,     /**< synchronised with other devices */
	AXL_THROTTLE_SW_THERMAL = 1u << 5,     /**< the driver's thermal limit */
	AXL_THROTTLE_HW_THERMAL = 1u << 6,     /**< the hardware's thermal limit */
	AXL_THROTTLE_HW_POWER_BRAKE = 1u << 7, /**< external power brake */
	AXL_THROTTLE_DISPLAY_CLOCKS = 1u << 8, /**< display clock setting */
	AXL_THROTTLE_CURRENT = 1u << 9         /**< a current (TDC / EDC) limit (not NVML) */
};
/** "idle", "app_clocks", "sw_power_cap", ...; NULL for a bit that is not one. */
AXL_API const char *axl_throttle_name(unsigned bit);

typedef struct axl_sampler axl_sampler;
typedef struct axl_sample axl_sample;

/** Flags of axl_sampler_open(). */
enum {
	/** Also list the processes that use each device (vendor libraries' process lists
	 *  and the kernel's DRM client statistics in /proc/<pid>/fdinfo). */
	AXL_SAMPLER_PROCESSES = 1u << 0,
	/** Also watch each device's health: the errors its vendor reports as they happen
	 *  (NVML's Xid and double-bit ECC events; amdgpu's RAS counts of uncorrectable
	 *  errors), each sample holding those seen since the sampler's previous sample
	 *  (axl_sample_health_event()). What happened before the sampler was opened is not
	 *  reported. */
	AXL_SAMPLER_HEALTH = 1u << 1,
	/** Read no metric values, processes or limited workloads: a sample holds the
	 *  devices' states and, with AXL_SAMPLER_HEALTH, their health events. For a watcher
	 *  of health alone (a device plugin), whose samples then cost a few calls per device.
	 *  Backends that watch no health are not asked at all (their devices: AXL_SAMPLE_NONE,
	 *  or AXL_SAMPLE_LOST when their PCI function left the bus). */
	AXL_SAMPLER_NO_METRICS = 1u << 2
};

/** A sampler for the devices of inv (and their partitions that exist now). Opens what
 *  it will read; devices it cannot read are sampled with no values. inv must outlive
 *  the sampler and its samples. */
AXL_API int axl_sampler_open(axl_sampler **out, const axl_inventory *inv, unsigned flags);
AXL_API void axl_sampler_free(axl_sampler *s);

/** Take a sample of every device now. Fails only on AXL_ENOMEM. */
AXL_API int axl_sampler_sample(axl_sampler *s, axl_sample **out);
AXL_API void axl_sample_free(axl_sample *smp);

/** When the sample was taken: nanoseconds since the Unix epoch. */
AXL_API int64_t axl_sample_time_ns(const axl_sample *smp);
/** Milliseconds since the sampler's previous sample (the interval rates are over);
 *  < 0 in the first sample. */
AXL_API double axl_sample_interval_ms(const axl_sample *smp);
/** How long taking the sample took, in microseconds. */
AXL_API double axl_sample_cost_us(const axl_sample *smp);

/** The state of a device in a sample. */
typedef enum {
	AXL_SAMPLE_OK = 0,    /**< read (values may still be unknown one by one) */
	AXL_SAMPLE_LOST = 1,  /**< gone or failing now: no values */
	AXL_SAMPLE_NONE = 2   /**< nothing to read it with (no driver, no library) */
} axl_sample_state;

/** The devices in a sample: the inventory's, each followed by its partitions. */
AXL_API size_t axl_sample_device_count(const axl_sample *smp);
AXL_API const axl_device *axl_sample_device(const axl_sample *smp, size_t i);
AXL_API axl_sample_state axl_sample_device_state(const axl_sample *smp, size_t i);
/** "ok", "lost", "none". */
AXL_API const char *axl_sample_state_name(axl_sample_state st);

/** A metric of device i: 0 with the value (in the metric's base unit) and where it came
 *  from (src may be NULL), AXL_EUNKNOWN when not known, AXL_EINVAL for a bad index. */
AXL_API int axl_sample_get(const axl_sample *smp, size_t i, axl_metric m, double *value,
			   axl_source *src);

/** A process using a device. A process on several devices appears once per device.
 *  Numbers are < 0 when not known; strings NULL. */
struct axl_process {
	int pid;
	const char *device;      /**< the device's id ("nvidia:0", "amdgpu:1") */
	const char *name;        /**< the command name (/proc/<pid>/comm) */
	const char *type;        /**< "compute", "graphics", "compute+graphics" (NVML),
				      "drm" (a DRM / accel client) */
	int64_t memory_used_bytes; /**< device memory it holds (resident, where told) */
	double utilization_percent; /**< of the device's compute, over the interval */
	double encoder_utilization_percent;
	double decoder_utilization_percent;
	const char *cgroup;      /**< its cgroup v2 path */
	const char *container_id; /**< the container it runs in (64 hex digits) */
	axl_source source;
};
/** Processes, ordered by device then pid. Empty without AXL_SAMPLER_PROCESSES. */
AXL_API size_t axl_sample_process_count(const axl_sample *smp);
AXL_API const struct axl_process *axl_sample_process(const axl_sample *smp, size_t i);

/** A limited workload's use of one device: a row per device of each LD_PRELOAD limiter
 *  shared region the sampler finds (docs/limits.md, "Observability"): $AXL_LIMITER_REGION,
 *  <state dir>/limiter.region and <state dir>/limiter/NAME.region. Read-only; a region
 *  that is truncated, corrupted or of a newer version gives a warning
 *  (axl_sample_warning()) and no rows. Numbers are < 0 when not known or not limited. */
struct axl_workload {
	const char *region;            /**< the region file's path */
	const char *uuid;              /**< the device as the region names it (UUID or id) */
	const char *device;            /**< the sample's device id it matched ("nvidia:0"), or NULL */
	int64_t memory_used_bytes;     /**< held by the workload's live processes */
	int64_t memory_limit_bytes;    /**< < 0: no memory limit */
	int compute_limit_percent;     /**< < 0: no compute limit */
	double compute_used_percent;   /**< its live processes' utilisation of the device, < 0 unknown */
	int processes;                 /**< live processes attached to the region */
};
/** Workload rows, ordered by region path then the region's device order. Only a sampler
 *  of the live system (or one whose context names AXL_STATE_DIR) finds regions. */
AXL_API size_t axl_sample_workload_count(const axl_sample *smp);
AXL_API const struct axl_workload *axl_sample_workload(const axl_sample *smp, size_t i);
/** Problems met while sampling that left a value out (a corrupted limiter region), one
 *  message each; the sample holds them. */
AXL_API size_t axl_sample_warning_count(const axl_sample *smp);
AXL_API const char *axl_sample_warning(const axl_sample *smp, size_t i);

/** What a health event is (struct axl_health_event). Append only. */
typedef enum {
	/** The driver reported an error by number: NVIDIA's Xid (code: the Xid). */
	AXL_HEALTH_DRIVER_ERROR = 1,
	/** Uncorrectable hardware errors: NVML's double-bit ECC event (code 0), an amdgpu
	 *  RAS block's count of uncorrectable errors that grew (code: by how much). */
	AXL_HEALTH_UNCORRECTABLE = 2,
	/** The vendor's watch itself failed, so health is not known (NVML's event
	 *  registration or wait answered an error; code: its return code). */
	AXL_HEALTH_WATCH_FAILED = 3
} axl_health_kind;

/** An error a device's vendor reported between the sampler's previous sample and this
 *  one (AXL_SAMPLER_HEALTH). An error of a whole GPU names the GPU, not its partitions;
 *  one the vendor attributes to a partition (a MIG device) names the partition. */
struct axl_health_event {
	size_t device;        /**< the device's index in the sample (axl_sample_device()) */
	axl_health_kind kind;
	/** Non-zero when the vendor's own tools take the device out of service for it
	 *  (NVIDIA's device plugin: every Xid but those an application causes, 13, 31, 43,
	 *  45, 68 and 109; a double-bit ECC error; uncorrectable RAS errors; a failed watch). */
	int critical;
	int64_t code;         /**< see the kind; 0 when it has none */
	const char *message;  /**< "Xid 79 (GPU has fallen off the bus)"; held by the sample */
	axl_source source;
};
/** Health events, in the order they were seen. Empty without AXL_SAMPLER_HEALTH. */
AXL_API size_t axl_sample_health_count(const axl_sample *smp);
AXL_API const struct axl_health_event *axl_sample_health_event(const axl_sample *smp, size_t i);

/** Flags of axl_sample_json() and axl_sample_prometheus(). */
enum {
	AXL_METRICS_PRETTY = 1u << 0, /**< JSON: indent */
	AXL_METRICS_DCGM = 1u << 1    /**< Prometheus: also DCGM-exporter names (docs/metrics.md) */
};
/** The "axl.metrics" document of a sample (schema/axl-metrics.schema.json). *out is
 *  NUL-terminated, malloc'd: free it with axl_free(). len may be NULL. */
AXL_API int axl_sample_json(const axl_sample *smp, unsigned flags, char **out, size_t *len);

/** The sample in the Prometheus text exposition format 0.0.4 (docs/metrics.md,
 *  "Prometheus"): families axl_* in base units (ratios 0..1, bytes, watts, joules,
 *  celsius, hertz), one series per device that has the value, with the device's labels;
 *  with AXL_METRICS_DCGM also dcgm-exporter's DCGM_FI_* families for every device.
 *  Processes (when the sample has them) as axl_process_*, limited workloads as axl_workload_*. *out is NUL-terminated,
 *  malloc'd: free it with axl_free(). len may be NULL. */
AXL_API int axl_sample_prometheus(const axl_sample *smp, unsigned flags, char **out, size_t *len);

AXL_END_DECLS

#endif
