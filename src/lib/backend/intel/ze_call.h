/* SPDX-License-Identifier: MIT */
/*
 * Calls into Level Zero sysman, live, recorded or replayed (vrec.h). Every call axl makes
 * goes through one of the functions below, which
 *   live:    call the function resolved from libze_loader.so.1 (NULL: the loader lacks
 *            it, answered AXL_ZE_NO_FUNCTION);
 *   record:  also append the answer as one JSON line to the capture
 *            {"f":"zesMemoryGetProperties","d":"0/mem1","r":0,"o":{"type":0,...}};
 *   replay:  answer from such lines (a call nobody recorded answers
 *            ZE_RESULT_ERROR_UNSUPPORTED_FEATURE).
 * Handles are named in records: drivers "drv0", devices by their order over all drivers
 * ("0", "1", ...), components by device and kind ("0/mem1", "0/freq0", "0/pwr0",
 * "0/eng3", "0/port2"), so a replay needs no real handles.
 */
#ifndef AXL_ZE_CALL_H
#define AXL_ZE_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "ze_api.h"
#include "vdrv.h"

#define AXL_ZEQ_MAX_HANDLES 2048
#define AXL_ZE_MAX_LIMITS 8 /* power limit descriptors read per domain */

/* The calls' state: the generic job head (vdrv.h) and how sysman came up. A Level Zero
 * job starts with it. */
struct axl__zeq {
	struct axl__vwork w;
	bool legacy;              /* zeInit + core handles (no zesInit) */
	bool legacy_ok;           /* input: ZES_ENABLE_SYSMAN=1, so zeInit may serve */
	ze_result_t zes_init_rc;  /* what zesInit said, when it was called */
	bool zes_init_called;
};
/* The library's table (live, recording; NULL replaying). */
#define AXL_ZEF(q) ((const struct axl__ze_fns *)(q)->w.q.lib)

/* The library: libze_loader.so.1, or the one named; loaded by the driver (vdrv.h). */
extern const struct axl__vlibrary axl__ze_library;

/* The specification's name for a result ("ZE_RESULT_ERROR_DEVICE_LOST"), for warnings. */
const char *axl__ze_strerror(ze_result_t r);

/* zesInit(0), once per process; when the loader has no zesInit or it fails, the legacy
 * zeInit(0) if q->legacy_ok (ZES_ENABLE_SYSMAN=1 was in the environment: without it
 * sysman stays down and zeInit would only cost the driver's start), else AXL_ZE_NEED_ENV;
 * q->legacy says which path the calls below take. A replay without any init record
 * answers AXL_ZE_NO_FUNCTION (the capture had no Level Zero). */
ze_result_t axl__zeq_init(struct axl__zeq *q);
/* Drivers and devices (the zes or the ze variant, as initialised). *n in: room, out: how
 * many were written. Devices get the ids first, first + 1, ... */
ze_result_t axl__zeq_drivers(struct axl__zeq *q, ze_driver_handle_t *out, uint32_t *n);
ze_result_t axl__zeq_devices(struct axl__zeq *q, ze_driver_handle_t drv, unsigned first, ze_device_handle_t *out,
			     uint32_t *n);
/* A device's components of one kind, named "mem", "freq", "pwr", "eng" and "port" in
 * records. *n in: room, out: how many were written. */
ze_result_t axl__zeq_memory_modules(struct axl__zeq *q, ze_device_handle_t dev, zes_mem_handle_t *out, uint32_t *n);
ze_result_t axl__zeq_frequency_domains(struct axl__zeq *q, ze_device_handle_t dev, zes_freq_handle_t *out,
				       uint32_t *n);
ze_result_t axl__zeq_power_domains(struct axl__zeq *q, ze_device_handle_t dev, zes_pwr_handle_t *out, uint32_t *n);
ze_result_t axl__zeq_engine_groups(struct axl__zeq *q, ze_device_handle_t dev, zes_engine_handle_t *out, uint32_t *n);
ze_result_t axl__zeq_fabric_ports(struct axl__zeq *q, ze_device_handle_t dev, zes_fabric_port_handle_t *out,
				  uint32_t *n);

ze_result_t axl__zeq_device_props(struct axl__zeq *q, ze_device_handle_t d, zes_device_properties_t *out);
ze_result_t axl__zeq_pci_props(struct axl__zeq *q, ze_device_handle_t d, zes_pci_properties_t *out);
ze_result_t axl__zeq_pci_state(struct axl__zeq *q, ze_device_handle_t d, zes_pci_state_t *out);
ze_result_t axl__zeq_mem_props(struct axl__zeq *q, zes_mem_handle_t h, zes_mem_properties_t *out);
ze_result_t axl__zeq_mem_state(struct axl__zeq *q, zes_mem_handle_t h, zes_mem_state_t *out);
ze_result_t axl__zeq_freq_props(struct axl__zeq *q, zes_freq_handle_t h, zes_freq_properties_t *out);
/* Power domain properties with the extension (domain, factory default limit) chained;
 * *ext false when the library filled only the base struct. */
ze_result_t axl__zeq_power_props(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_properties_t *p,
				 zes_power_ext_properties_t *e, zes_power_limit_ext_desc_t *def, bool *ext);
/* Up to AXL_ZE_MAX_LIMITS limit descriptors; *n how many. */
ze_result_t axl__zeq_power_limits_ext(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_limit_ext_desc_t *out,
				      unsigned *n);
ze_result_t axl__zeq_power_limits(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_sustained_limit_t *out);
ze_result_t axl__zeq_engine_props(struct axl__zeq *q, zes_engine_handle_t h, zes_engine_properties_t *out);
ze_result_t axl__zeq_port_props(struct axl__zeq *q, zes_fabric_port_handle_t h, zes_fabric_port_properties_t *out);
ze_result_t axl__zeq_port_state(struct axl__zeq *q, zes_fabric_port_handle_t h, zes_fabric_port_state_t *out);

#endif
