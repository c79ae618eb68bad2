/* SPDX-License-Identifier: MIT */
/* Level Zero sysman calls: loading the library, and every call live, recorded or replayed
 * (see ze_call.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ze_call.h"
#include "runtime_files.h"
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

static const char *const sonames[] = {"libze_loader.so.1"};
const struct axl__vlibrary axl__ze_library = { sonames,
					       1,
					       symbols,
					       sizeof symbols / sizeof *symbols,
					       sizeof(struct axl__ze_fns),
					       usable,
					       &cache,
					       axl__runtime_lib_dirs };

const char *axl__ze_strerror(ze_result_t r)
{
	switch ((uint32_t)r) { /* axl's own results are no ze_result_t */
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

#define VQ (&q->w.q)
#define LIVE(fnptr, ...) AXL__VQ_LIVE(VQ, AXL_ZE_NO_FUNCTION, fnptr, __VA_ARGS__)
#define FN(member) (VQ->lib ? AXL_ZEF(q)->member : NULL)
#define ANSWER(f, d, args, nargs, vo, out, live) \
	axl__vq_answer(VQ, &(const struct axl__vkey){f, d, NULL, args, nargs}, vo, out, live)
#define HID(h) axl__vq_hid(VQ, h)
#define VO_FIELDS(fs, T) {AXL__VO_FIELDS, sizeof(T), fs, NULL, NULL}
static const struct axl__vout vo_none = {AXL__VO_NONE, 0, NULL, NULL, NULL},
			      vo_u64 = {AXL__VO_U64, 0, NULL, NULL, NULL};

/* zesInit(0) or zeInit(0) (which), once per process (the cache's flag), recorded when
 * called. AXL_ZE_NO_FUNCTION: not called (the loader lacks it; replaying: not recorded). */
static ze_result_t init_once(struct axl__zeq *q, const char *f, int which)
{
	const struct axl__ze_fns *fn = VQ->lib;
	bool live = !axl__vq_replaying(VQ);
	if (live && !(which == ZES_INITED ? fn->zesInit : fn->zeInit))
		return AXL_ZE_NO_FUNCTION;
	/* not under the cache's lock: an init may hang, and a later load must not wait on it */
	ze_result_t r = !live || axl__vlib_flag(&cache, fn, which) ? ZE_RESULT_SUCCESS
			: which == ZES_INITED                     ? fn->zesInit(0)
								  : fn->zeInit(0);
	int missing = VQ->missing;
	VQ->missing = AXL_ZE_NO_FUNCTION;
	r = ANSWER(f, NULL, NULL, 0, &vo_none, NULL, r);
	VQ->missing = missing;
	if (live && r == ZE_RESULT_SUCCESS)
		axl__vlib_set_flag(&cache, fn, which);
	return r;
}

ze_result_t axl__zeq_init(struct axl__zeq *q)
{
	const struct axl__ze_fns *fn = VQ->lib;
	ze_result_t r = init_once(q, "zesInit", ZES_INITED);
	if (r != AXL_ZE_NO_FUNCTION) {
		q->zes_init_called = true;
		q->zes_init_rc = r;
		if (r == ZE_RESULT_SUCCESS)
			return r;
	}
	if (fn && (!fn->zeInit || !fn->zeDriverGet || !fn->zeDeviceGet))
		return q->zes_init_called ? q->zes_init_rc : AXL_ZE_NO_FUNCTION;
	if (fn && !q->legacy_ok)
		return AXL_ZE_NEED_ENV;
	/* a loader older than Level Zero 1.5, or a runtime whose zesInit fails: the core
	 * initialisation, which brings sysman up only when the process was started with
	 * ZES_ENABLE_SYSMAN=1 (axl never sets it) */
	r = init_once(q, "zeInit", ZE_INITED);
	if (r == AXL_ZE_NO_FUNCTION) /* replaying: the capture had no Level Zero */
		return q->zes_init_called ? q->zes_init_rc : AXL_ZE_NO_FUNCTION;
	q->legacy = true;
	return r;
}

/* A count answer (at most the room *n had): replayed, or recorded after the live call. */
static ze_result_t count_answer(struct axl__zeq *q, const char *f, const char *d, ze_result_t live, uint32_t *n)
{
	uint32_t room = *n;
	uint64_t v = live == ZE_RESULT_SUCCESS ? *n : 0;
	ze_result_t r = ANSWER(f, d, NULL, 0, &vo_u64, &v, live);
	*n = r != ZE_RESULT_SUCCESS ? 0 : v < room ? (uint32_t)v : room;
	return r;
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
	const char *f = q->legacy ? "zeDriverGet" : "zesDriverGet";
	__typeof__(&zeDriverGet) fn = q->legacy ? FN(zeDriverGet) : FN(zesDriverGet);
	ze_result_t r = ZE_RESULT_SUCCESS;
	if (!axl__vq_replaying(VQ))
		TWO_CALLS(LIVE(fn, &cnt, NULL), LIVE(fn, &cnt, out));
	r = count_answer(q, f, NULL, r, n);
	for (uint32_t i = 0; i < *n; i++) {
		char id[24];
		snprintf(id, sizeof id, "drv%u", i);
		out[i] = axl__vq_handle(VQ, axl__vq_replaying(VQ) ? NULL : out[i], id);
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
	const char *f = q->legacy ? "zeDeviceGet" : "zesDeviceGet";
	__typeof__(&zeDeviceGet) fn = q->legacy ? FN(zeDeviceGet) : FN(zesDeviceGet);
	ze_result_t r = ZE_RESULT_SUCCESS;
	if (!axl__vq_replaying(VQ))
		TWO_CALLS(LIVE(fn, drv, &cnt, NULL), LIVE(fn, drv, &cnt, out));
	r = count_answer(q, f, HID(drv), r, n);
	for (uint32_t i = 0; i < *n; i++) {
		char id[24];
		snprintf(id, sizeof id, "%u", first + i);
		out[i] = axl__vq_handle(VQ, axl__vq_replaying(VQ) ? NULL : out[i], id);
		if (!out[i]) {
			*n = i;
			break;
		}
	}
	return r;
}

/* A device's components of one kind: the two calls, then each handle named
 * "<device>/<kind><i>" (live) or made up from that name (replaying). */
#define ENUMERATE(member, kind)                                                              \
	do {                                                                                 \
		ze_result_t r = ZE_RESULT_SUCCESS;                                           \
		if (!axl__vq_replaying(VQ))                                                  \
			TWO_CALLS(LIVE(FN(member), dev, &cnt, NULL), LIVE(FN(member), dev, &cnt, out)); \
		const char *d = HID(dev);                                                    \
		r = count_answer(q, #member, d, r, n);                                       \
		for (uint32_t i = 0; i < *n; i++) {                                          \
			char id[24];                                                         \
			snprintf(id, sizeof id, "%.12s/%.6s%u", d, kind, i);                 \
			out[i] = axl__vq_handle(VQ, axl__vq_replaying(VQ) ? NULL : out[i], id); \
			if (!out[i]) {                                                       \
				*n = i;                                                      \
				break;                                                       \
			}                                                                    \
		}                                                                            \
		return r;                                                                    \
	} while (0)

ze_result_t axl__zeq_memory_modules(struct axl__zeq *q, ze_device_handle_t dev, zes_mem_handle_t *out, uint32_t *n)
{
	ENUMERATE(zesDeviceEnumMemoryModules, "mem");
}

ze_result_t axl__zeq_frequency_domains(struct axl__zeq *q, ze_device_handle_t dev, zes_freq_handle_t *out,
				       uint32_t *n)
{
	ENUMERATE(zesDeviceEnumFrequencyDomains, "freq");
}

ze_result_t axl__zeq_power_domains(struct axl__zeq *q, ze_device_handle_t dev, zes_pwr_handle_t *out, uint32_t *n)
{
	ENUMERATE(zesDeviceEnumPowerDomains, "pwr");
}

ze_result_t axl__zeq_engine_groups(struct axl__zeq *q, ze_device_handle_t dev, zes_engine_handle_t *out, uint32_t *n)
{
	ENUMERATE(zesDeviceEnumEngineGroups, "eng");
}

ze_result_t axl__zeq_fabric_ports(struct axl__zeq *q, ze_device_handle_t dev, zes_fabric_port_handle_t *out,
				  uint32_t *n)
{
	ENUMERATE(zesDeviceEnumFabricPorts, "port");
}

/* One struct answer: replayed into out, or recorded after the live call. */
#define STRUCT(f, h, args, nargs, fs, out, live)                                    \
	axl__vq_answer(VQ, &(const struct axl__vkey){f, HID(h), NULL, args, nargs}, \
		       &(const struct axl__vout){AXL__VO_FIELDS, sizeof *(out), fs, NULL, NULL}, out, live)

ze_result_t axl__zeq_device_props(struct axl__zeq *q, ze_device_handle_t d, zes_device_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_DEVICE_PROPERTIES;
	out->core.stype = ZE_STRUCTURE_TYPE_DEVICE_PROPERTIES;
	return STRUCT("zesDeviceGetProperties", d, NULL, 0, dev_fields, out, LIVE(FN(zesDeviceGetProperties), d, out));
}

ze_result_t axl__zeq_pci_props(struct axl__zeq *q, ze_device_handle_t d, zes_pci_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_PCI_PROPERTIES;
	return STRUCT("zesDevicePciGetProperties", d, NULL, 0, pci_fields, out,
		      LIVE(FN(zesDevicePciGetProperties), d, out));
}

ze_result_t axl__zeq_pci_state(struct axl__zeq *q, ze_device_handle_t d, zes_pci_state_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_PCI_STATE;
	return STRUCT("zesDevicePciGetState", d, NULL, 0, pci_state_fields, out,
		      LIVE(FN(zesDevicePciGetState), d, out));
}

ze_result_t axl__zeq_mem_props(struct axl__zeq *q, zes_mem_handle_t h, zes_mem_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_MEM_PROPERTIES;
	return STRUCT("zesMemoryGetProperties", h, NULL, 0, mem_fields, out, LIVE(FN(zesMemoryGetProperties), h, out));
}

ze_result_t axl__zeq_mem_state(struct axl__zeq *q, zes_mem_handle_t h, zes_mem_state_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_MEM_STATE;
	return STRUCT("zesMemoryGetState", h, NULL, 0, mem_state_fields, out, LIVE(FN(zesMemoryGetState), h, out));
}

ze_result_t axl__zeq_freq_props(struct axl__zeq *q, zes_freq_handle_t h, zes_freq_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FREQ_PROPERTIES;
	return STRUCT("zesFrequencyGetProperties", h, NULL, 0, freq_fields, out,
		      LIVE(FN(zesFrequencyGetProperties), h, out));
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

ze_result_t axl__zeq_power_props(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_properties_t *p,
				 zes_power_ext_properties_t *e, zes_power_limit_ext_desc_t *def, bool *ext)
{
	static const char f[] = "zesPowerGetProperties";
	struct pwr_rec x;
	/* with the extension chained first (argument 1), then without (0): a library that
	 * refuses the chain still answers the base struct */
	for (unsigned with = 1;; with--) {
			pwr_prepare(&x, with);
		ze_result_t r = STRUCT(f, h, &with, 1, with ? pwr_ext_fields : pwr_fields, &x,
				       LIVE(FN(zesPowerGetProperties), h, &x.p));
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

/* zesPowerGetLimitsExt's descriptors: "o":[{..},..], at most AXL_ZE_MAX_LIMITS */
struct limits {
	zes_power_limit_ext_desc_t *d;
	unsigned n;
};
static void limits_put(struct axl__json *w, const void *out)
{
	const struct limits *x = out;
	axl__json_arr(w);
	for (unsigned i = 0; i < x->n; i++)
		axl__vrec_put_fields(w, limit_fields, &x->d[i]);
	axl__json_arr_end(w);
}
static void limits_get(const struct axl__jv *o, void *out)
{
	struct limits *x = out;
	x->n = 0;
	for (size_t i = 0; o && o->type == AXL__J_ARR && i < o->len && x->n < AXL_ZE_MAX_LIMITS; i++)
		if (o->items[i].type == AXL__J_OBJ)
			axl__vrec_get_fields(&o->items[i], limit_fields, &x->d[x->n++]);
}

ze_result_t axl__zeq_power_limits_ext(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_limit_ext_desc_t *out,
				      unsigned *n)
{
	static const struct axl__vout vo = {AXL__VO_CUSTOM, 0, NULL, limits_put, limits_get};
	memset(out, 0, AXL_ZE_MAX_LIMITS * sizeof *out);
	uint32_t cnt = 0;
	ze_result_t r = LIVE(FN(zesPowerGetLimitsExt), h, &cnt, NULL);
	if (AXL_ZEF(q) && r == ZE_RESULT_SUCCESS && cnt > 0) { /* replaying: no library */
		if (cnt > AXL_ZE_MAX_LIMITS)
			cnt = AXL_ZE_MAX_LIMITS;
		for (uint32_t i = 0; i < cnt; i++)
			out[i].stype = ZES_STRUCTURE_TYPE_POWER_LIMIT_EXT_DESC;
		r = AXL_ZEF(q)->zesPowerGetLimitsExt(h, &cnt, out);
	}
	struct limits x = {out, r == ZE_RESULT_SUCCESS ? (cnt < AXL_ZE_MAX_LIMITS ? cnt : AXL_ZE_MAX_LIMITS) : 0};
	r = ANSWER("zesPowerGetLimitsExt", HID(h), NULL, 0, &vo, &x, r);
	*n = r == ZE_RESULT_SUCCESS ? x.n : 0;
	return r;
}

ze_result_t axl__zeq_power_limits(struct axl__zeq *q, zes_pwr_handle_t h, zes_power_sustained_limit_t *out)
{
	memset(out, 0, sizeof *out);
	return STRUCT("zesPowerGetLimits", h, NULL, 0, sustained_fields, out,
		      LIVE(FN(zesPowerGetLimits), h, out, NULL, NULL));
}

ze_result_t axl__zeq_engine_props(struct axl__zeq *q, zes_engine_handle_t h, zes_engine_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_ENGINE_PROPERTIES;
	return STRUCT("zesEngineGetProperties", h, NULL, 0, engine_fields, out,
		      LIVE(FN(zesEngineGetProperties), h, out));
}

ze_result_t axl__zeq_port_props(struct axl__zeq *q, zes_fabric_port_handle_t h, zes_fabric_port_properties_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_PROPERTIES;
	return STRUCT("zesFabricPortGetProperties", h, NULL, 0, port_fields, out,
		      LIVE(FN(zesFabricPortGetProperties), h, out));
}

ze_result_t axl__zeq_port_state(struct axl__zeq *q, zes_fabric_port_handle_t h, zes_fabric_port_state_t *out)
{
	memset(out, 0, sizeof *out);
	out->stype = ZES_STRUCTURE_TYPE_FABRIC_PORT_STATE;
	return STRUCT("zesFabricPortGetState", h, NULL, 0, port_state_fields, out,
		      LIVE(FN(zesFabricPortGetState), h, out));
}
