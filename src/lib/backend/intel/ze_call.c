/* SPDX-License-Identifier: MIT */
/* Level Zero sysman calls: loading the library, and every call live, recorded or replayed
 * (see ze_call.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ze_call.h"
#include "vlib.h"
#include "util/json.h"

/* ---- loading ------------------------------------------------------------------------ */

#define F(member) offsetof(struct axl__ze_fns, member), {#member}
static const struct axl__vsym symbols[] = {
	{F(zesInit)},
	{F(zesDriverGet)},
	{F(zesDeviceGet)},
	{F(zeInit)},
	{F(zeDriverGet)},
	{F(zeDeviceGet)},
	{F(zesDeviceGetProperties)},
	{F(zesDevicePciGetProperties)},
	{F(zesDevicePciGetState)},
	{F(zesDeviceEnumMemoryModules)},
	{F(zesDeviceEnumFrequencyDomains)},
	{F(zesDeviceEnumPowerDomains)},
	{F(zesDeviceEnumEngineGroups)},
	{F(zesDeviceEnumFabricPorts)},
	{F(zesMemoryGetProperties)},
	{F(zesMemoryGetState)},
	{F(zesFrequencyGetProperties)},
	{F(zesPowerGetProperties)},
	{F(zesPowerGetLimitsExt)},
	{F(zesPowerGetLimits)},
	{F(zesEngineGetProperties)},
	{F(zesFabricPortGetProperties)},
	{F(zesFabricPortGetState)},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;
enum { ZES_INITED = 0, ZE_INITED = 1 }; /* the cache's flags */

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__ze_fns *fns = table;
	bool zes = fns->zesInit && fns->zesDriverGet && fns->zesDeviceGet;
	bool legacy = fns->zeInit && fns->zeDriverGet && fns->zeDeviceGet;
	if ((zes || legacy) && fns->zesDeviceGetProperties && fns->zesDevicePciGetProperties)
		return true;
	snprintf(why, cap, "%s lacks zesInit/zesDriverGet/zesDeviceGet (or zeInit/zeDriverGet/zeDeviceGet) "
		 "or zesDevicePciGetProperties", name);
	return false;
}

const struct axl__ze_fns *axl__ze_load(const char *path, char *why, size_t cap)
{
	const char *name = path ? path : "libze_loader.so.1";
	return axl__vlib_load(&cache, name, &name, 1, symbols, sizeof symbols / sizeof *symbols,
			      sizeof(struct axl__ze_fns), usable, why, cap, NULL);
}

const char *axl__ze_strerror(ze_result_t r)
{
	switch (r) {
	case ZE_RESULT_SUCCESS: return "ZE_RESULT_SUCCESS";
	case ZE_RESULT_NOT_READY: return "ZE_RESULT_NOT_READY";
	case ZE_RESULT_ERROR_DEVICE_LOST: return "ZE_RESULT_ERROR_DEVICE_LOST";
	case ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_HOST_MEMORY";
	case ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY: return "ZE_RESULT_ERROR_OUT_OF_DEVICE_MEMORY";
	case ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET: return "ZE_RESULT_ERROR_DEVICE_REQUIRES_RESET";
	case ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE: return "ZE_RESULT_ERROR_DEVICE_IN_LOW_POWER_STATE";
	case ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS: return "ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS";
	case ZE_RESULT_ERROR_NOT_AVAILABLE: return "ZE_RESULT_ERROR_NOT_AVAILABLE";
	case ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE: return "ZE_RESULT_ERROR_DEPENDENCY_UNAVAILABLE";
	case ZE_RESULT_ERROR_UNINITIALIZED: return "ZE_RESULT_ERROR_UNINITIALIZED";
	case ZE_RESULT_ERROR_UNSUPPORTED_VERSION: return "ZE_RESULT_ERROR_UNSUPPORTED_VERSION";
	case ZE_RESULT_ERROR_UNSUPPORTED_FEATURE: return "ZE_RESULT_ERROR_UNSUPPORTED_FEATURE";
	case ZE_RESULT_ERROR_INVALID_ARGUMENT: return "ZE_RESULT_ERROR_INVALID_ARGUMENT";
	case ZE_RESULT_ERROR_INVALID_NULL_HANDLE: return "ZE_RESULT_ERROR_INVALID_NULL_HANDLE";
	case ZE_RESULT_ERROR_INVALID_NULL_POINTER: return "ZE_RESULT_ERROR_INVALID_NULL_POINTER";
	case ZE_RESULT_ERROR_INVALID_SIZE: return "ZE_RESULT_ERROR_INVALID_SIZE";
	case ZE_RESULT_ERROR_INVALID_ENUMERATION: return "ZE_RESULT_ERROR_INVALID_ENUMERATION";
	case ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION: return "ZE_RESULT_ERROR_UNSUPPORTED_ENUMERATION";
	case ZE_RESULT_ERROR_UNKNOWN: return "ZE_RESULT_ERROR_UNKNOWN";
	case AXL_ZE_NO_FUNCTION: return "not exported by the loader";
	case AXL_ZE_NEED_ENV: return "sysman needs ZES_ENABLE_SYSMAN=1";
	default: return "unknown result";
	}
}

/* ---- handles ----------------------------------------------------------------------- */

static const char *hid(const struct axl__zeq *q, const void *h)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (q->handles[i].h == h)
			return q->handles[i].id;
	return "?";
}

/* Register a handle under an id; in replay the handle is made up. NULL when full. */
static void *add_handle(struct axl__zeq *q, void *h, const char *id)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (strcmp(q->handles[i].id, id) == 0)
			return q->handles[i].h;
	if (q->nhandles == AXL_ZEQ_MAX_HANDLES)
		return NULL;
	size_t i = q->nhandles++;
	if (q->v.mode == AXL__VREC_REPLAY)
		h = &q->handles[i];
	q->handles[i].h = h;
	snprintf(q->handles[i].id, sizeof q->handles[i].id, "%s", id);
	return h;
}

/* ---- struct fields, for records ------------------------------------------------------ */

#define FU(T, m) AXL__VF_UINT(T, m)
#define FB(T, m) AXL__VF_BYTE(T, m)
#define FI(T, m) AXL__VF_INT(T, m)
#define FL(T, m) AXL__VF_ULL(T, m)
#define FLL(T, m) AXL__VF_LL(T, m)
#define FD(T, m) AXL__VF_DBL(T, m)
#define FS(T, m) AXL__VF_CHARS(T, m)
#define FH(T, m) AXL__VF_HEX(T, m)
#define DP zes_device_properties_t
static const struct axl__vfield dev_fields[] = {
	FU(DP, core.type), FU(DP, core.vendorId), FU(DP, core.deviceId), FU(DP, core.flags),
	FU(DP, core.subdeviceId), FU(DP, core.coreClockRate), FL(DP, core.maxMemAllocSize),
	FU(DP, core.numThreadsPerEU), FU(DP, core.physicalEUSimdWidth), FU(DP, core.numEUsPerSubslice),
	FU(DP, core.numSubslicesPerSlice), FU(DP, core.numSlices), FH(DP, core.uuid), FS(DP, core.name),
	FU(DP, numSubdevices), FS(DP, serialNumber), FS(DP, boardNumber), FS(DP, brandName),
	FS(DP, modelName), FS(DP, vendorName), FS(DP, driverVersion), AXL__VF_END};
#undef DP
static const struct axl__vfield pci_fields[] = {
	FU(zes_pci_properties_t, address.domain), FU(zes_pci_properties_t, address.bus),
	FU(zes_pci_properties_t, address.device), FU(zes_pci_properties_t, address.function),
	FI(zes_pci_properties_t, maxSpeed.gen), FI(zes_pci_properties_t, maxSpeed.width),
	FLL(zes_pci_properties_t, maxSpeed.maxBandwidth), AXL__VF_END};
static const struct axl__vfield pci_state_fields[] = {
	FU(zes_pci_state_t, status), FI(zes_pci_state_t, speed.gen), FI(zes_pci_state_t, speed.width),
	FLL(zes_pci_state_t, speed.maxBandwidth), AXL__VF_END};
static const struct axl__vfield mem_fields[] = {
	FU(zes_mem_properties_t, type), FB(zes_mem_properties_t, onSubdevice),
	FU(zes_mem_properties_t, subdeviceId), FU(zes_mem_properties_t, location),
	FL(zes_mem_properties_t, physicalSize), FI(zes_mem_properties_t, busWidth),
	FI(zes_mem_properties_t, numChannels), AXL__VF_END};
static const struct axl__vfield mem_state_fields[] = {
	FU(zes_mem_state_t, health), FL(zes_mem_state_t, free), FL(zes_mem_state_t, size), AXL__VF_END};
static const struct axl__vfield freq_fields[] = {
	FU(zes_freq_properties_t, type), FB(zes_freq_properties_t, onSubdevice),
	FU(zes_freq_properties_t, subdeviceId), FB(zes_freq_properties_t, canControl),
	FD(zes_freq_properties_t, min), FD(zes_freq_properties_t, max), AXL__VF_END};
/* zesPowerGetProperties with its extension chained: all three structs in one record */
struct pwr_rec {
	zes_power_properties_t p;
	zes_power_ext_properties_t e;
	zes_power_limit_ext_desc_t d;
};
static const struct axl__vfield pwr_fields[] = {
	FB(struct pwr_rec, p.onSubdevice), FU(struct pwr_rec, p.subdeviceId), FB(struct pwr_rec, p.canControl),
	FI(struct pwr_rec, p.defaultLimit), FI(struct pwr_rec, p.minLimit), FI(struct pwr_rec, p.maxLimit),
	AXL__VF_END};
static const struct axl__vfield pwr_ext_fields[] = {
	FB(struct pwr_rec, p.onSubdevice), FU(struct pwr_rec, p.subdeviceId), FB(struct pwr_rec, p.canControl),
	FI(struct pwr_rec, p.defaultLimit), FI(struct pwr_rec, p.minLimit), FI(struct pwr_rec, p.maxLimit),
	FU(struct pwr_rec, e.domain), FU(struct pwr_rec, d.level), FU(struct pwr_rec, d.limitUnit),
	FB(struct pwr_rec, d.enabled), FI(struct pwr_rec, d.interval), FI(struct pwr_rec, d.limit), AXL__VF_END};
static const struct axl__vfield limit_fields[] = {
	FU(zes_power_limit_ext_desc_t, level), FU(zes_power_limit_ext_desc_t, source),
	FU(zes_power_limit_ext_desc_t, limitUnit), FB(zes_power_limit_ext_desc_t, enabledStateLocked),
	FB(zes_power_limit_ext_desc_t, enabled), FB(zes_power_limit_ext_desc_t, intervalValueLocked),
	FI(zes_power_limit_ext_desc_t, interval), FB(zes_power_limit_ext_desc_t, limitValueLocked),
	FI(zes_power_limit_ext_desc_t, limit), AXL__VF_END};
static const struct axl__vfield sustained_fields[] = {
	FB(zes_power_sustained_limit_t, enabled), FI(zes_power_sustained_limit_t, power),
	FI(zes_power_sustained_limit_t, interval), AXL__VF_END};
static const struct axl__vfield engine_fields[] = {
	FU(zes_engine_properties_t, type), FB(zes_engine_properties_t, onSubdevice),
	FU(zes_engine_properties_t, subdeviceId), AXL__VF_END};
#define PP zes_fabric_port_properties_t
static const struct axl__vfield port_fields[] = {
	FS(PP, model), FB(PP, onSubdevice), FU(PP, subdeviceId), FU(PP, portId.fabricId),
	FU(PP, portId.attachId), FB(PP, portId.portNumber), FLL(PP, maxRxSpeed.bitRate),
	FI(PP, maxRxSpeed.width), FLL(PP, maxTxSpeed.bitRate), FI(PP, maxTxSpeed.width), AXL__VF_END};
#undef PP
#define PS zes_fabric_port_state_t
static const struct axl__vfield port_state_fields[] = {
	FU(PS, status), FU(PS, qualityIssues), FU(PS, failureReasons), FU(PS, remotePortId.fabricId),
	FU(PS, remotePortId.attachId), FB(PS, remotePortId.portNumber), FLL(PS, rxSpeed.bitRate),
	FI(PS, rxSpeed.width), FLL(PS, txSpeed.bitRate), FI(PS, txSpeed.width), AXL__VF_END};
#undef PS

/* ---- the calls ------------------------------------------------------------------------ */

#define LIVE(fnptr, ...) ((q->fn && (fnptr)) ? (fnptr)(__VA_ARGS__) : AXL_ZE_NO_FUNCTION)
#define FN(member) (q->fn ? q->fn->member : NULL)
#define MISSING ZE_RESULT_ERROR_UNSUPPORTED_FEATURE

static void record_plain(struct axl__zeq *q, const char *f, const char *d, const unsigned *args, int nargs,
			 ze_result_t r)
{
	struct axl__json w;
	axl__vrec_begin(&q->v, &w, f, d, NULL, args, nargs, r);
	axl__vrec_end(&q->v, &w);
}

ze_result_t axl__zeq_init(struct axl__zeq *q)
{
	q->calls++;
	ze_result_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		bool zes = axl__vrec_find(&q->v, "zesInit", NULL, NULL, NULL, 0, AXL_ZE_NO_FUNCTION, &r) ||
			   r != AXL_ZE_NO_FUNCTION;
		if (zes) {
			q->zes_init_called = true;
			q->zes_init_rc = r;
			if (r == ZE_RESULT_SUCCESS)
				return r;
		}
		ze_result_t l;
		if (axl__vrec_find(&q->v, "zeInit", NULL, NULL, NULL, 0, AXL_ZE_NO_FUNCTION, &l) ||
		    l != AXL_ZE_NO_FUNCTION) {
			q->legacy = true;
			return l;
		}
		return r;
	}
	bool zes_done = axl__vlib_flag(&cache, q->fn, ZES_INITED);
	bool ze_done = axl__vlib_flag(&cache, q->fn, ZE_INITED);
	/* not under the cache's lock: an init may hang, and a later load must not wait on it */
	if (q->fn->zesInit) {
		r = zes_done ? ZE_RESULT_SUCCESS : q->fn->zesInit(0);
		q->zes_init_called = true;
		q->zes_init_rc = r;
		if (q->v.mode == AXL__VREC_RECORD)
			record_plain(q, "zesInit", NULL, NULL, 0, r);
		if (r == ZE_RESULT_SUCCESS) {
			axl__vlib_set_flag(&cache, q->fn, ZES_INITED);
			return r;
		}
	}
	if (!q->fn->zeInit || !q->fn->zeDriverGet || !q->fn->zeDeviceGet)
		return q->zes_init_called ? q->zes_init_rc : AXL_ZE_NO_FUNCTION;
	if (!q->legacy_ok)
		return AXL_ZE_NEED_ENV;
	/* a loader older than Level Zero 1.5, or a runtime whose zesInit fails: the core
	 * initialisation, which brings sysman up only when the process was started with
	 * ZES_ENABLE_SYSMAN=1 (axl never sets it) */
	q->legacy = true;
	r = ze_done ? ZE_RESULT_SUCCESS : q->fn->zeInit(0);
	if (q->v.mode == AXL__VREC_RECORD)
		record_plain(q, "zeInit", NULL, NULL, 0, r);
	if (r == ZE_RESULT_SUCCESS)
		axl__vlib_set_flag(&cache, q->fn, ZE_INITED);
	return r;
}

/* A count answer: replayed, or recorded after the live call. */
static ze_result_t count_answer(struct axl__zeq *q, const char *f, const char *d, ze_result_t live, uint32_t *n)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		ze_result_t r;
		const struct axl__jv *o = axl__vrec_find(&q->v, f, d, NULL, NULL, 0, MISSING, &r);
		int64_t v = o && o->type == AXL__J_NUM && o->is_int ? o->i : 0;
		if (v < 0)
			v = 0;
		if ((uint64_t)v < *n)
			*n = (uint32_t)v;
		if (r != ZE_RESULT_SUCCESS)
			*n = 0;
		return r;
	}
	if (live != ZE_RESULT_SUCCESS)
		*n = 0;
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, d, NULL, NULL, 0, live);
		if (live == ZE_RESULT_SUCCESS)
			axl__json_kint(&w, "o", *n);
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

/* The two-call protocol: the count, then at most room handles. */
#define TWO_CALLS(call0, call1)                                           \
	do {                                                              \
		uint32_t room = *n, cnt = 0;                              \
		r = call0;                                                \
		if (r == ZE_RESULT_SUCCESS && cnt > 0) {                  \
			if (cnt > room)                                   \
				cnt = room;                               \
			r = call1;                                        \
		}                                                         \
		*n = r == ZE_RESULT_SUCCESS ? (cnt < room ? cnt : room) : 0; \
	} while (0)

ze_result_t axl__zeq_drivers(struct axl__zeq *q, ze_driver_handle_t *out, uint32_t *n)
{
	q->calls++;
	const char *f = q->legacy ? "zeDriverGet" : "zesDriverGet";
	ze_result_t (*fn)(uint32_t *, ze_driver_handle_t *) = q->legacy ? FN(zeDriverGet) : FN(zesDriverGet);
	ze_result_t r = ZE_RESULT_SUCCESS;
	if (q->v.mode != AXL__VREC_REPLAY)
		TWO_CALLS(LIVE(fn, &cnt, NULL), LIVE(fn, &cnt, out));
	r = count_answer(q, f, NULL, r, n);
	for (uint32_t i = 0; i < *n; i++) {
		char id[24];
		snprintf(id, sizeof id, "drv%u", i);
		out[i] = add_handle(q, q->v.mode == AXL__VREC_REPLAY ? NULL : out[i], id);
		if (!out[i]) {
			*n = i;
			break;
		}
	}
	return r;
}

ze_result_t axl__zeq_devices(struct axl__zeq *q, ze_driver_handle_t drv, unsigned first, ze_device_handle_t *out,
			     uint32_t *n)
{
	q->calls++;
	const char *f = q->legacy ? "zeDeviceGet" : "zesDeviceGet";
	ze_result_t (*fn)(ze_driver_handle_t, uint32_t *, ze_device_handle_t *) =
		q->legacy ? FN(zeDeviceGet) : FN(zesDeviceGet);
	ze_result_t r = ZE_RESULT_SUCCESS;
	if (q->v.mode != AXL__VREC_REPLAY)
		TWO_CALLS(LIVE(fn, drv, &cnt, NULL), LIVE(fn, drv, &cnt, out));
	r = count_answer(q, f, hid(q, drv), r, n);
	for (uint32_t i = 0; i < *n; i++) {
		char id[24];
		snprintf(id, sizeof id, "%u", first + i);
		out[i] = add_handle(q, q->v.mode == AXL__VREC_REPLAY ? NULL : out[i], id);
		if (!out[i]) {
			*n = i;
			break;
		}
	}
	return r;
}

ze_result_t axl__zeq_enum(struct axl__zeq *q, const char *f, axl_ze_enum_fn fn, ze_device_handle_t dev,
			  const char *kind, zes_handle_t *out, uint32_t *n)
{
	q->calls++;
	ze_result_t r = ZE_RESULT_SUCCESS;
	if (q->v.mode != AXL__VREC_REPLAY)
		TWO_CALLS(LIVE(fn, dev, &cnt, NULL), LIVE(fn, dev, &cnt, out));
	const char *d = hid(q, dev);
	r = count_answer(q, f, d, r, n);
	for (uint32_t i = 0; i < *n; i++) {
		char id[24];
		snprintf(id, sizeof id, "%.12s/%.6s%u", d, kind, i);
		out[i] = add_handle(q, q->v.mode == AXL__VREC_REPLAY ? NULL : out[i], id);
		if (!out[i]) {
			*n = i;
			break;
		}
	}
	return r;
}

/* One struct answer: replayed into out, or recorded after the live call. */
static ze_result_t q_struct(struct axl__zeq *q, const char *f, const void *h, const unsigned *args, int nargs,
			    const struct axl__vfield *fs, void *out, size_t size, ze_result_t live)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		ze_result_t r;
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, h), NULL, args, nargs, MISSING, &r);
		memset(out, 0, size);
		if (o && o->type == AXL__J_OBJ)
			axl__vrec_get_fields(o, fs, out);
		return r;
	}
	axl__vrec_terminate(fs, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, h), NULL, args, nargs, live);
		if (live == ZE_RESULT_SUCCESS) {
			axl__json_key(&w, "o");
			axl__vrec_put_fields(&w, fs, out);
		}
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

#define REPLAYING (q->v.mode == AXL__VREC_REPLAY)

ze_result_t axl__zeq_device_props(struct axl__zeq *q, ze_device_handle_t d, zes_device_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
	out->core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesDeviceGetProperties, d, out);
	return q_struct(q, "zesDeviceGetProperties", d, NULL, 0, dev_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_pci_props(struct axl__zeq *q, ze_device_handle_t d, zes_pci_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesDevicePciGetProperties, d, out);
	return q_struct(q, "zesDevicePciGetProperties", d, NULL, 0, pci_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_pci_state(struct axl__zeq *q, ze_device_handle_t d, zes_pci_state_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_PCI_STATE;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesDevicePciGetState, d, out);
	return q_struct(q, "zesDevicePciGetState", d, NULL, 0, pci_state_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_mem_props(struct axl__zeq *q, zes_handle_t h, zes_mem_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesMemoryGetProperties, h, out);
	return q_struct(q, "zesMemoryGetProperties", h, NULL, 0, mem_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_mem_state(struct axl__zeq *q, zes_handle_t h, zes_mem_state_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_MEM_STATE;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesMemoryGetState, h, out);
	return q_struct(q, "zesMemoryGetState", h, NULL, 0, mem_state_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_freq_props(struct axl__zeq *q, zes_handle_t h, zes_freq_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesFrequencyGetProperties, h, out);
	return q_struct(q, "zesFrequencyGetProperties", h, NULL, 0, freq_fields, out, sizeof *out, r);
}

static void pwr_prepare(struct pwr_rec *x, bool ext)
{
	memset(x, 0, sizeof *x);
	x->p.stype = ZES_STRUCTURE_TYPE_POWER_PROPERTIES;
	x->p.defaultLimit = x->p.minLimit = x->p.maxLimit = -1;
	if (!ext)
		return;
	x->p.pNext = &x->e;
	x->e.stype = ZES_STRUCTURE_TYPE_POWER_EXT_PROPERTIES;
	x->e.domain = ZES_POWER_DOMAIN_UNKNOWN;
	x->e.defaultLimit = &x->d;
	x->d.stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC;
	x->d.limitUnit = ZES_LIMIT_UNIT_UNKNOWN;
	x->d.limit = -1;
}

ze_result_t axl__zeq_power_props(struct axl__zeq *q, zes_handle_t h, zes_power_properties_t *p,
				 zes_power_ext_properties_t *e, zes_power_limit_ext_desc_t *def, bool *ext)
{
	static const char f[] = "zesPowerGetProperties";
	struct pwr_rec x;
	/* with the extension chained first (argument 1), then without (0): a library that
	 * refuses the chain still answers the base struct */
	for (unsigned with = 1;; with--) {
		q->calls++;
		pwr_prepare(&x, with);
		ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesPowerGetProperties, h, &x.p);
		r = q_struct(q, f, h, &with, 1, with ? pwr_ext_fields : pwr_fields, &x, sizeof x, r);
		bool retry = with && r != ZE_RESULT_SUCCESS && r != ZE_RESULT_ERROR_DEVICE_LOST &&
			     r != ZE_RESULT_ERROR_INSUFFICIENT_PERMISSIONS && r != AXL_ZE_NO_FUNCTION &&
			     r != ZE_RESULT_ERROR_UNINITIALIZED;
		if (!retry || with == 0) {
			*p = x.p;
			*e = x.e;
			*def = x.d;
			p->pNext = NULL;
			e->pNext = NULL;
			e->defaultLimit = NULL;
			/* filled: a domain or a default limit came back through the chain */
			*ext = with && r == ZE_RESULT_SUCCESS &&
			       (x.e.domain != ZES_POWER_DOMAIN_UNKNOWN || x.d.limitUnit != ZES_LIMIT_UNIT_UNKNOWN);
			return r;
		}
	}
}

ze_result_t axl__zeq_power_limits_ext(struct axl__zeq *q, zes_handle_t h, zes_power_limit_ext_desc_t *out,
				      unsigned *n)
{
	static const char f[] = "zesPowerGetLimitsExt";
	q->calls++;
	*n = 0;
	memset(out, 0, AXL_ZE_MAX_LIMITS * sizeof *out);
	ze_result_t r;
	if (REPLAYING) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, h), NULL, NULL, 0, MISSING, &r);
		if (r == ZE_RESULT_SUCCESS && o && o->type == AXL__J_ARR)
			for (size_t i = 0; i < o->len && *n < AXL_ZE_MAX_LIMITS; i++)
				if (o->items[i].type == AXL__J_OBJ)
					axl__vrec_get_fields(&o->items[i], limit_fields, &out[(*n)++]);
		return r;
	}
	uint32_t cnt = 0;
	r = LIVE(q->fn->zesPowerGetLimitsExt, h, &cnt, NULL);
	if (r == ZE_RESULT_SUCCESS && cnt > 0) {
		if (cnt > AXL_ZE_MAX_LIMITS)
			cnt = AXL_ZE_MAX_LIMITS;
		for (uint32_t i = 0; i < cnt; i++)
			out[i].stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC;
		r = q->fn->zesPowerGetLimitsExt(h, &cnt, out);
	}
	if (r == ZE_RESULT_SUCCESS)
		*n = cnt < AXL_ZE_MAX_LIMITS ? cnt : AXL_ZE_MAX_LIMITS;
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, h), NULL, NULL, 0, r);
		if (r == ZE_RESULT_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_arr(&w);
			for (unsigned i = 0; i < *n; i++)
				axl__vrec_put_fields(&w, limit_fields, &out[i]);
			axl__json_arr_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

ze_result_t axl__zeq_power_limits(struct axl__zeq *q, zes_handle_t h, zes_power_sustained_limit_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesPowerGetLimits, h, out, NULL, NULL);
	return q_struct(q, "zesPowerGetLimits", h, NULL, 0, sustained_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_engine_props(struct axl__zeq *q, zes_handle_t h, zes_engine_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesEngineGetProperties, h, out);
	return q_struct(q, "zesEngineGetProperties", h, NULL, 0, engine_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_port_props(struct axl__zeq *q, zes_handle_t h, zes_fabric_port_properties_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesFabricPortGetProperties, h, out);
	return q_struct(q, "zesFabricPortGetProperties", h, NULL, 0, port_fields, out, sizeof *out, r);
}

ze_result_t axl__zeq_port_state(struct axl__zeq *q, zes_handle_t h, zes_fabric_port_state_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE;
	ze_result_t r = REPLAYING ? 0 : LIVE(q->fn->zesFabricPortGetState, h, out);
	return q_struct(q, "zesFabricPortGetState", h, NULL, 0, port_state_fields, out, sizeof *out, r);
}
