/* SPDX-License-Identifier: MIT */
/* NVML calls: loading the library, and every call live, recorded or replayed (see
 * nvml_call.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_call.h"
#include "vlib.h"
#include "util/json.h"

/* ---- loading ------------------------------------------------------------------------ */

#define F(member) offsetof(struct axl__nvml_fns, member)
static const struct axl__vsym symbols[] = {
	{F(Init), {"nvmlInit_v2", "nvmlInit"}},
	{F(SystemGetDriverVersion), {"nvmlSystemGetDriverVersion"}},
	{F(SystemGetNVMLVersion), {"nvmlSystemGetNVMLVersion"}},
	{F(SystemGetCudaDriverVersion), {"nvmlSystemGetCudaDriverVersion_v2", "nvmlSystemGetCudaDriverVersion"}},
	{F(DeviceGetCount), {"nvmlDeviceGetCount_v2", "nvmlDeviceGetCount"}},
	{F(DeviceGetHandleByIndex), {"nvmlDeviceGetHandleByIndex_v2", "nvmlDeviceGetHandleByIndex"}},
	{F(DeviceGetPciInfo), {"nvmlDeviceGetPciInfo_v3", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo"}},
	{F(DeviceGetName), {"nvmlDeviceGetName"}},
	{F(DeviceGetUUID), {"nvmlDeviceGetUUID"}},
	{F(DeviceGetSerial), {"nvmlDeviceGetSerial"}},
	{F(DeviceGetBoardPartNumber), {"nvmlDeviceGetBoardPartNumber"}},
	{F(DeviceGetVbiosVersion), {"nvmlDeviceGetVbiosVersion"}},
	{F(DeviceGetInforomImageVersion), {"nvmlDeviceGetInforomImageVersion"}},
	{F(DeviceGetMinorNumber), {"nvmlDeviceGetMinorNumber"}},
	{F(DeviceGetArchitecture), {"nvmlDeviceGetArchitecture"}},
	{F(DeviceGetCudaComputeCapability), {"nvmlDeviceGetCudaComputeCapability"}},
	{F(DeviceGetNumGpuCores), {"nvmlDeviceGetNumGpuCores"}},
	{F(DeviceGetMemoryInfo_v2), {"nvmlDeviceGetMemoryInfo_v2"}},
	{F(DeviceGetMemoryInfo), {"nvmlDeviceGetMemoryInfo"}},
	{F(DeviceGetBAR1MemoryInfo), {"nvmlDeviceGetBAR1MemoryInfo"}},
	{F(DeviceGetClockInfo), {"nvmlDeviceGetClockInfo"}},
	{F(DeviceGetMaxClockInfo), {"nvmlDeviceGetMaxClockInfo"}},
	{F(DeviceGetPowerManagementLimit), {"nvmlDeviceGetPowerManagementLimit"}},
	{F(DeviceGetPowerManagementDefaultLimit), {"nvmlDeviceGetPowerManagementDefaultLimit"}},
	{F(DeviceGetPowerManagementLimitConstraints), {"nvmlDeviceGetPowerManagementLimitConstraints"}},
	{F(DeviceGetEccMode), {"nvmlDeviceGetEccMode"}},
	{F(DeviceGetPersistenceMode), {"nvmlDeviceGetPersistenceMode"}},
	{F(DeviceGetComputeMode), {"nvmlDeviceGetComputeMode"}},
	{F(DeviceGetCurrPcieLinkGeneration), {"nvmlDeviceGetCurrPcieLinkGeneration"}},
	{F(DeviceGetMaxPcieLinkGeneration), {"nvmlDeviceGetMaxPcieLinkGeneration"}},
	{F(DeviceGetCurrPcieLinkWidth), {"nvmlDeviceGetCurrPcieLinkWidth"}},
	{F(DeviceGetMaxPcieLinkWidth), {"nvmlDeviceGetMaxPcieLinkWidth"}},
	{F(DeviceGetMigMode), {"nvmlDeviceGetMigMode"}},
	{F(DeviceGetMaxMigDeviceCount), {"nvmlDeviceGetMaxMigDeviceCount"}},
	{F(DeviceGetMigDeviceHandleByIndex), {"nvmlDeviceGetMigDeviceHandleByIndex"}},
	{F(DeviceGetGpuInstanceId), {"nvmlDeviceGetGpuInstanceId"}},
	{F(DeviceGetComputeInstanceId), {"nvmlDeviceGetComputeInstanceId"}},
	{F(DeviceGetAttributes), {"nvmlDeviceGetAttributes_v2", "nvmlDeviceGetAttributes"}},
	{F(DeviceGetGpuInstanceProfileInfoV), {"nvmlDeviceGetGpuInstanceProfileInfoV"}},
	{F(DeviceGetGpuInstanceProfileInfo), {"nvmlDeviceGetGpuInstanceProfileInfo"}},
	{F(DeviceGetGpuInstanceRemainingCapacity), {"nvmlDeviceGetGpuInstanceRemainingCapacity"}},
	{F(DeviceGetNvLinkState), {"nvmlDeviceGetNvLinkState"}},
	{F(DeviceGetNvLinkVersion), {"nvmlDeviceGetNvLinkVersion"}},
	{F(DeviceGetNvLinkRemotePciInfo), {"nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetNvLinkRemotePciInfo"}},
	{F(DeviceGetNvLinkRemoteDeviceType), {"nvmlDeviceGetNvLinkRemoteDeviceType"}},
	{F(DeviceGetTopologyCommonAncestor), {"nvmlDeviceGetTopologyCommonAncestor"}},
	{F(DeviceGetP2PStatus), {"nvmlDeviceGetP2PStatus"}},
	{F(DeviceGetUtilizationRates), {"nvmlDeviceGetUtilizationRates"}},
	{F(DeviceGetEncoderUtilization), {"nvmlDeviceGetEncoderUtilization"}},
	{F(DeviceGetDecoderUtilization), {"nvmlDeviceGetDecoderUtilization"}},
	{F(DeviceGetPowerUsage), {"nvmlDeviceGetPowerUsage"}},
	{F(DeviceGetEnforcedPowerLimit), {"nvmlDeviceGetEnforcedPowerLimit"}},
	{F(DeviceGetTotalEnergyConsumption), {"nvmlDeviceGetTotalEnergyConsumption"}},
	{F(DeviceGetTemperature), {"nvmlDeviceGetTemperature"}},
	{F(DeviceGetPcieThroughput), {"nvmlDeviceGetPcieThroughput"}},
	{F(DeviceGetTotalEccErrors), {"nvmlDeviceGetTotalEccErrors"}},
	{F(DeviceGetCurrentClocksEventReasons),
	 {"nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetCurrentClocksThrottleReasons"}},
	{F(DeviceGetFanSpeed), {"nvmlDeviceGetFanSpeed"}},
	{F(DeviceGetComputeRunningProcesses_v3), {"nvmlDeviceGetComputeRunningProcesses_v3"}},
	{F(DeviceGetComputeRunningProcesses_v2), {"nvmlDeviceGetComputeRunningProcesses_v2"}},
	{F(DeviceGetComputeRunningProcesses), {"nvmlDeviceGetComputeRunningProcesses"}},
	{F(DeviceGetGraphicsRunningProcesses_v3), {"nvmlDeviceGetGraphicsRunningProcesses_v3"}},
	{F(DeviceGetGraphicsRunningProcesses_v2), {"nvmlDeviceGetGraphicsRunningProcesses_v2"}},
	{F(DeviceGetGraphicsRunningProcesses), {"nvmlDeviceGetGraphicsRunningProcesses"}},
	{F(DeviceGetProcessUtilization), {"nvmlDeviceGetProcessUtilization"}},
	{F(DeviceGetHandleByUUID), {"nvmlDeviceGetHandleByUUID"}},
	{F(DeviceGetHandleByPciBusId), {"nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetHandleByPciBusId"}},
	{F(DeviceCreateGpuInstance), {"nvmlDeviceCreateGpuInstance"}},
	{F(DeviceGetGpuInstances), {"nvmlDeviceGetGpuInstances"}},
	{F(GpuInstanceGetInfo), {"nvmlGpuInstanceGetInfo"}},
	{F(GpuInstanceGetComputeInstanceProfileInfo), {"nvmlGpuInstanceGetComputeInstanceProfileInfo"}},
	{F(GpuInstanceCreateComputeInstance), {"nvmlGpuInstanceCreateComputeInstance"}},
	{F(GpuInstanceGetComputeInstances), {"nvmlGpuInstanceGetComputeInstances"}},
	{F(ComputeInstanceGetInfo), {"nvmlComputeInstanceGetInfo_v2", "nvmlComputeInstanceGetInfo"}},
	{F(ComputeInstanceDestroy), {"nvmlComputeInstanceDestroy"}},
	{F(GpuInstanceDestroy), {"nvmlGpuInstanceDestroy"}},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__nvml_fns *fns = table;
	if (fns->Init && fns->DeviceGetCount && fns->DeviceGetHandleByIndex)
		return true;
	snprintf(why, cap, "%s lacks nvmlInit/nvmlDeviceGetCount/nvmlDeviceGetHandleByIndex", name);
	return false;
}

const struct axl__nvml_fns *axl__nvml_load(const char *path, char *why, size_t cap)
{
	const char *name = path ? path : "libnvidia-ml.so.1";
	return axl__vlib_load(&cache, name, &name, 1, symbols, sizeof symbols / sizeof *symbols,
			      sizeof(struct axl__nvml_fns), usable, why, cap, NULL);
}

const char *axl__nvml_strerror(nvmlReturn_t r)
{
	switch (r) {
	case NVML_SUCCESS: return "Success";
	case NVML_ERROR_UNINITIALIZED: return "Uninitialized";
	case NVML_ERROR_INVALID_ARGUMENT: return "Invalid Argument";
	case NVML_ERROR_NOT_SUPPORTED: return "Not Supported";
	case NVML_ERROR_NO_PERMISSION: return "Insufficient Permissions";
	case NVML_ERROR_NOT_FOUND: return "Not Found";
	case NVML_ERROR_INSUFFICIENT_SIZE: return "Insufficient Size";
	case NVML_ERROR_DRIVER_NOT_LOADED: return "Driver Not Loaded";
	case NVML_ERROR_TIMEOUT: return "Timeout";
	case NVML_ERROR_FUNCTION_NOT_FOUND: return "Function Not Found";
	case NVML_ERROR_GPU_IS_LOST: return "GPU is lost";
	case NVML_ERROR_IN_USE: return "In use by another client";
	case NVML_ERROR_INSUFFICIENT_RESOURCES: return "Insufficient resources";
	case NVML_ERROR_ARGUMENT_VERSION_MISMATCH: return "Argument Version Mismatch";
	default: return "Unknown Error";
	}
}

/* ---- handles ----------------------------------------------------------------------- */

static const char *hid(const struct axl__nvq *q, nvmlDevice_t h)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (q->handles[i].h == h)
			return q->handles[i].id;
	return "?";
}

/* Register a handle under an id; in replay the handle is made up. */
static nvmlDevice_t add_handle(struct axl__nvq *q, nvmlDevice_t h, const char *id)
{
	for (size_t i = 0; i < q->nhandles; i++)
		if (strcmp(q->handles[i].id, id) == 0)
			return q->handles[i].h;
	if (q->nhandles == AXL_NVQ_MAX_HANDLES)
		return NULL;
	size_t i = q->nhandles++;
	if (q->v.mode == AXL__VREC_REPLAY)
		h = (nvmlDevice_t)(void *)&q->handles[i];
	q->handles[i].h = h;
	snprintf(q->handles[i].id, sizeof q->handles[i].id, "%s", id);
	return h;
}

/* ---- records ------------------------------------------------------------------------ */

/* ---- struct fields, for records ------------------------------------------------------ */

#define FU(T, m) AXL__VF_UINT(T, m)
#define FL(T, m) AXL__VF_ULL(T, m)
#define FS(T, m) AXL__VF_CHARS(T, m)
static const struct axl__vfield pci_fields[] = {
	FS(nvmlPciInfo_t, busIdLegacy), FU(nvmlPciInfo_t, domain), FU(nvmlPciInfo_t, bus),
	FU(nvmlPciInfo_t, device), FU(nvmlPciInfo_t, pciDeviceId), FU(nvmlPciInfo_t, pciSubSystemId),
	FS(nvmlPciInfo_t, busId), {NULL, 0, 0, 0}};
static const struct axl__vfield mem_fields[] = {
	FL(nvmlMemory_v2_t, total), FL(nvmlMemory_v2_t, reserved), FL(nvmlMemory_v2_t, free),
	FL(nvmlMemory_v2_t, used), {NULL, 0, 0, 0}};
static const struct axl__vfield mem1_fields[] = {
	FL(nvmlMemory_t, total), FL(nvmlMemory_t, free), FL(nvmlMemory_t, used), {NULL, 0, 0, 0}};
static const struct axl__vfield bar1_fields[] = {
	FL(nvmlBAR1Memory_t, bar1Total), FL(nvmlBAR1Memory_t, bar1Free), FL(nvmlBAR1Memory_t, bar1Used),
	{NULL, 0, 0, 0}};
static const struct axl__vfield attr_fields[] = {
	FU(nvmlDeviceAttributes_t, multiprocessorCount), FU(nvmlDeviceAttributes_t, sharedCopyEngineCount),
	FU(nvmlDeviceAttributes_t, sharedDecoderCount), FU(nvmlDeviceAttributes_t, sharedEncoderCount),
	FU(nvmlDeviceAttributes_t, sharedJpegCount), FU(nvmlDeviceAttributes_t, sharedOfaCount),
	FU(nvmlDeviceAttributes_t, gpuInstanceSliceCount), FU(nvmlDeviceAttributes_t, computeInstanceSliceCount),
	FL(nvmlDeviceAttributes_t, memorySizeMB), {NULL, 0, 0, 0}};
#define GI nvmlGpuInstanceProfileInfo_v2_t
static const struct axl__vfield gi_fields[] = {
	FU(GI, id), FU(GI, isP2pSupported), FU(GI, sliceCount), FU(GI, instanceCount),
	FU(GI, multiprocessorCount), FU(GI, copyEngineCount), FU(GI, decoderCount), FU(GI, encoderCount),
	FU(GI, jpegCount), FU(GI, ofaCount), FL(GI, memorySizeMB), FS(GI, name), {NULL, 0, 0, 0}};
#undef GI
#define G1 nvmlGpuInstanceProfileInfo_t
static const struct axl__vfield gi1_fields[] = {
	FU(G1, id), FU(G1, isP2pSupported), FU(G1, sliceCount), FU(G1, instanceCount),
	FU(G1, multiprocessorCount), FU(G1, copyEngineCount), FU(G1, decoderCount), FU(G1, encoderCount),
	FU(G1, jpegCount), FU(G1, ofaCount), FL(G1, memorySizeMB), {NULL, 0, 0, 0}};
#undef G1

/* ---- the calls ------------------------------------------------------------------------ */

#define LIVE(fnptr, ...) ((fnptr) ? (fnptr)(__VA_ARGS__) : NVML_ERROR_FUNCTION_NOT_FOUND)

nvmlReturn_t axl__nvq_init(struct axl__nvq *q)
{
	q->calls++;
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		if (!axl__vrec_find(&q->v, "nvmlInit", NULL, NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r) && r == NVML_ERROR_NOT_SUPPORTED) {
			/* a capture without NVML records: the library was not there */
			return NVML_ERROR_DRIVER_NOT_LOADED;
		}
		return r;
	}
	/* nvmlInit may hang: called outside the cache's lock */
	r = axl__vlib_flag(&cache, q->fn, 0) ? NVML_SUCCESS : LIVE(q->fn->Init);
	if (r == NVML_SUCCESS)
		axl__vlib_set_flag(&cache, q->fn, 0);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, "nvmlInit", NULL, NULL, NULL, 0, r);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

static void set_str(char *buf, unsigned cap, const char *s)
{
	if (cap)
		snprintf(buf, cap, "%s", s ? s : "");
}

nvmlReturn_t axl__nvq_sys_str(struct axl__nvq *q, const char *f, nvmlReturn_t (*fn)(char *, unsigned),
			      char *buf, unsigned cap)
{
	q->calls++;
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, NULL, NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		set_str(buf, cap, o && o->type == AXL__J_STR ? o->s : "");
		return r;
	}
	memset(buf, 0, cap);
	r = LIVE(fn, buf, cap);
	buf[cap - 1] = '\0';
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, NULL, NULL, NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kstr(&w, "o", buf);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_sys_int(struct axl__nvq *q, const char *f, nvmlReturn_t (*fn)(int *), int *out)
{
	q->calls++;
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, NULL, NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		*out = o && o->type == AXL__J_NUM && o->is_int ? (int)o->i : 0;
		return r;
	}
	r = LIVE(fn, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, NULL, NULL, NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_count(struct axl__nvq *q, unsigned *out)
{
	q->calls++;
	nvmlReturn_t r;
	*out = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, "nvmlDeviceGetCount", NULL, NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		*out = o && o->type == AXL__J_NUM && o->is_int && o->i >= 0 && o->i < 0x10000 ? (unsigned)o->i : 0;
		return r;
	}
	r = LIVE(q->fn->DeviceGetCount, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, "nvmlDeviceGetCount", NULL, NULL, NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_handle(struct axl__nvq *q, unsigned index, nvmlDevice_t *out)
{
	q->calls++;
	char id[24];
	snprintf(id, sizeof id, "%u", index);
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		axl__vrec_find(&q->v, "nvmlDeviceGetHandleByIndex", NULL, NULL, &index, 1, NVML_ERROR_NOT_SUPPORTED, &r);
	} else {
		r = LIVE(q->fn->DeviceGetHandleByIndex, index, out);
		if (q->v.mode == AXL__VREC_RECORD) {
			struct axl__json w;
			axl__vrec_begin(&q->v, &w, "nvmlDeviceGetHandleByIndex", NULL, NULL, &index, 1, r);
			axl__vrec_end(&q->v, &w);
		}
	}
	if (r == NVML_SUCCESS) {
		*out = add_handle(q, q->v.mode == AXL__VREC_REPLAY ? NULL : *out, id);
		if (!*out)
			r = NVML_ERROR_UNKNOWN;
	}
	return r;
}

nvmlReturn_t axl__nvq_mig_handle(struct axl__nvq *q, nvmlDevice_t gpu, unsigned k, nvmlDevice_t *out)
{
	q->calls++;
	const char *d = hid(q, gpu);
	char id[24];
	snprintf(id, sizeof id, "%.12s/mig%u", d, k);
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		axl__vrec_find(&q->v, "nvmlDeviceGetMigDeviceHandleByIndex", d, NULL, &k, 1, NVML_ERROR_NOT_SUPPORTED, &r);
	} else {
		r = LIVE(q->fn->DeviceGetMigDeviceHandleByIndex, gpu, k, out);
		if (q->v.mode == AXL__VREC_RECORD) {
			struct axl__json w;
			axl__vrec_begin(&q->v, &w, "nvmlDeviceGetMigDeviceHandleByIndex", d, NULL, &k, 1, r);
			axl__vrec_end(&q->v, &w);
		}
	}
	if (r == NVML_SUCCESS) {
		*out = add_handle(q, q->v.mode == AXL__VREC_REPLAY ? NULL : *out, id);
		if (!*out)
			r = NVML_ERROR_UNKNOWN;
	}
	return r;
}

nvmlReturn_t axl__nvq_str(struct axl__nvq *q, const char *f,
			  nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned), nvmlDevice_t d, char *buf,
			  unsigned cap)
{
	q->calls++;
	nvmlReturn_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		set_str(buf, cap, o && o->type == AXL__J_STR ? o->s : "");
		return r;
	}
	memset(buf, 0, cap);
	r = LIVE(fn, d, buf, cap);
	buf[cap - 1] = '\0';
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kstr(&w, "o", buf);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

static unsigned jv_u32(const struct axl__jv *o)
{
	return o && o->type == AXL__J_NUM && o->is_int ? (unsigned)o->i : 0;
}

nvmlReturn_t axl__nvq_u32(struct axl__nvq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *),
			  nvmlDevice_t d, unsigned *out)
{
	q->calls++;
	nvmlReturn_t r;
	*out = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		*out = jv_u32(axl__vrec_find(&q->v, f, hid(q, d), NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r));
		return r;
	}
	r = LIVE(fn, d, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_u32a(struct axl__nvq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, unsigned, unsigned *), nvmlDevice_t d,
			   unsigned arg, unsigned *out)
{
	q->calls++;
	nvmlReturn_t r;
	*out = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		*out = jv_u32(axl__vrec_find(&q->v, f, hid(q, d), NULL, &arg, 1, NVML_ERROR_NOT_SUPPORTED, &r));
		return r;
	}
	r = LIVE(fn, d, arg, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, &arg, 1, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_u32x2(struct axl__nvq *q, const char *f,
			    nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *, unsigned *), nvmlDevice_t d,
			    unsigned *a, unsigned *b)
{
	q->calls++;
	nvmlReturn_t r;
	*a = *b = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		if (o && o->type == AXL__J_ARR && o->len == 2) {
			*a = jv_u32(&o->items[0]);
			*b = jv_u32(&o->items[1]);
		}
		return r;
	}
	r = LIVE(fn, d, a, b);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, NULL, 0, r);
		if (r == NVML_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_arr(&w);
			axl__json_int(&w, *a);
			axl__json_int(&w, *b);
			axl__json_arr_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_cc(struct axl__nvq *q, nvmlDevice_t d, int *major, int *minor)
{
	static const char f[] = "nvmlDeviceGetCudaComputeCapability";
	q->calls++;
	nvmlReturn_t r;
	*major = *minor = -1;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		if (o && o->type == AXL__J_ARR && o->len == 2 && o->items[0].is_int && o->items[1].is_int) {
			*major = (int)o->items[0].i;
			*minor = (int)o->items[1].i;
		}
		return r;
	}
	r = LIVE(q->fn->DeviceGetCudaComputeCapability, d, major, minor);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, NULL, 0, r);
		if (r == NVML_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_arr(&w);
			axl__json_int(&w, *major);
			axl__json_int(&w, *minor);
			axl__json_arr_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

/* A call that fills a struct: live (through call), or replayed into it. */
static nvmlReturn_t q_struct(struct axl__nvq *q, const char *f, nvmlDevice_t d, const unsigned *args,
			     int nargs, const struct axl__vfield *fs, void *out, size_t size, nvmlReturn_t live)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		nvmlReturn_t r;
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, args, nargs, NVML_ERROR_NOT_SUPPORTED, &r);
		memset(out, 0, size);
		if (o && o->type == AXL__J_OBJ)
			axl__vrec_get_fields(o, fs, out);
		return r;
	}
	axl__vrec_terminate(fs, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, args, nargs, live);
		if (live == NVML_SUCCESS) {
			axl__json_key(&w, "o");
			axl__vrec_put_fields(&w, fs, out);
		}
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

nvmlReturn_t axl__nvq_pci(struct axl__nvq *q, nvmlDevice_t d, nvmlPciInfo_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetPciInfo, d, out);
	return q_struct(q, "nvmlDeviceGetPciInfo", d, NULL, 0, pci_fields, out, sizeof *out, r);
}

nvmlReturn_t axl__nvq_remote_pci(struct axl__nvq *q, nvmlDevice_t d, unsigned link, nvmlPciInfo_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetNvLinkRemotePciInfo, d, link, out);
	return q_struct(q, "nvmlDeviceGetNvLinkRemotePciInfo", d, &link, 1, pci_fields, out, sizeof *out, r);
}

nvmlReturn_t axl__nvq_memory(struct axl__nvq *q, nvmlDevice_t d, nvmlMemory_v2_t *out, bool *v2)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->version = AXL_NVML_MEMORY_V2;
	*v2 = true;
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetMemoryInfo_v2, d, out);
	r = q_struct(q, "nvmlDeviceGetMemoryInfo_v2", d, NULL, 0, mem_fields, out, sizeof *out, r);
	if (r == NVML_SUCCESS || r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_NO_PERMISSION)
		return r;
	/* no _v2 (older driver, or it refuses the version): the base call */
	q->calls++;
	*v2 = false;
	nvmlMemory_t m;
	memset(&m, 0, sizeof m);
	r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetMemoryInfo, d, &m);
	r = q_struct(q, "nvmlDeviceGetMemoryInfo", d, NULL, 0, mem1_fields, &m, sizeof m, r);
	memset(out, 0, sizeof *out);
	out->total = m.total;
	out->free = m.free;
	out->used = m.used;
	return r;
}

nvmlReturn_t axl__nvq_bar1(struct axl__nvq *q, nvmlDevice_t d, nvmlBAR1Memory_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetBAR1MemoryInfo, d, out);
	return q_struct(q, "nvmlDeviceGetBAR1MemoryInfo", d, NULL, 0, bar1_fields, out, sizeof *out, r);
}

nvmlReturn_t axl__nvq_attributes(struct axl__nvq *q, nvmlDevice_t d, nvmlDeviceAttributes_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetAttributes, d, out);
	return q_struct(q, "nvmlDeviceGetAttributes", d, NULL, 0, attr_fields, out, sizeof *out, r);
}

nvmlReturn_t axl__nvq_gi_profile(struct axl__nvq *q, nvmlDevice_t d, unsigned profile,
				 nvmlGpuInstanceProfileInfo_v2_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	out->version = AXL_NVML_GI_PROFILE_INFO_V2;
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetGpuInstanceProfileInfoV, d, profile, out);
	r = q_struct(q, "nvmlDeviceGetGpuInstanceProfileInfoV", d, &profile, 1, gi_fields, out, sizeof *out, r);
	if (r != NVML_ERROR_FUNCTION_NOT_FOUND && r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
		return r;
	q->calls++;
	nvmlGpuInstanceProfileInfo_t v1;
	memset(&v1, 0, sizeof v1);
	r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetGpuInstanceProfileInfo, d, profile, &v1);
	r = q_struct(q, "nvmlDeviceGetGpuInstanceProfileInfo", d, &profile, 1, gi1_fields, &v1, sizeof v1, r);
	memset(out, 0, sizeof *out);
	out->id = v1.id;
	out->isP2pSupported = v1.isP2pSupported;
	out->sliceCount = v1.sliceCount;
	out->instanceCount = v1.instanceCount;
	out->multiprocessorCount = v1.multiprocessorCount;
	out->copyEngineCount = v1.copyEngineCount;
	out->decoderCount = v1.decoderCount;
	out->encoderCount = v1.encoderCount;
	out->jpegCount = v1.jpegCount;
	out->ofaCount = v1.ofaCount;
	out->memorySizeMB = v1.memorySizeMB;
	return r;
}

nvmlReturn_t axl__nvq_pair(struct axl__nvq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, nvmlDevice_t, unsigned *), nvmlDevice_t a,
			   nvmlDevice_t b, unsigned *out)
{
	q->calls++;
	nvmlReturn_t r;
	*out = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		*out = jv_u32(axl__vrec_find(&q->v, f, hid(q, a), hid(q, b), NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r));
		return r;
	}
	r = LIVE(fn, a, b, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, a), hid(q, b), NULL, 0, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

nvmlReturn_t axl__nvq_p2p(struct axl__nvq *q, nvmlDevice_t a, nvmlDevice_t b, unsigned index, unsigned *out)
{
	static const char f[] = "nvmlDeviceGetP2PStatus";
	q->calls++;
	nvmlReturn_t r;
	*out = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		*out = jv_u32(axl__vrec_find(&q->v, f, hid(q, a), hid(q, b), &index, 1, NVML_ERROR_NOT_SUPPORTED, &r));
		return r;
	}
	r = LIVE(q->fn->DeviceGetP2PStatus, a, b, index, out);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, a), hid(q, b), &index, 1, r);
		if (r == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

/* ---- live metrics (nvml_sample.c) ------------------------------------------------------ */

static const struct axl__vfield util_fields[] = {
	FU(nvmlUtilization_t, gpu), FU(nvmlUtilization_t, memory), {NULL, 0, 0, 0}};
static const struct axl__vfield proc_fields[] = {
	FU(nvmlProcessInfo_v2_t, pid), FL(nvmlProcessInfo_v2_t, usedGpuMemory),
	FU(nvmlProcessInfo_v2_t, gpuInstanceId), FU(nvmlProcessInfo_v2_t, computeInstanceId), {NULL, 0, 0, 0}};
#define PU nvmlProcessUtilizationSample_t
static const struct axl__vfield putil_fields[] = {
	FU(PU, pid), FL(PU, timeStamp), FU(PU, smUtil), FU(PU, memUtil), FU(PU, encUtil), FU(PU, decUtil),
	{NULL, 0, 0, 0}};
#undef PU

/* An unsigned long long output: live answer `live` recorded, or replayed. */
static nvmlReturn_t q_u64(struct axl__nvq *q, const char *f, nvmlDevice_t d, const unsigned *args, int nargs,
			  nvmlReturn_t live, unsigned long long *out)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		nvmlReturn_t r;
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, args, nargs, NVML_ERROR_NOT_SUPPORTED, &r);
		*out = o && o->type == AXL__J_NUM && o->is_int && o->i >= 0 ? (unsigned long long)o->i : 0;
		return r;
	}
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, args, nargs, live);
		if (live == NVML_SUCCESS)
			axl__json_kint(&w, "o", *out > INT64_MAX ? INT64_MAX : (int64_t)*out);
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

nvmlReturn_t axl__nvq_u64(struct axl__nvq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned long long *),
			  nvmlDevice_t d, unsigned long long *out)
{
	q->calls++;
	*out = 0;
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(fn, d, out);
	return q_u64(q, f, d, NULL, 0, r, out);
}

nvmlReturn_t axl__nvq_ecc(struct axl__nvq *q, nvmlDevice_t d, unsigned type, unsigned counter,
			  unsigned long long *out)
{
	q->calls++;
	*out = 0;
	unsigned args[2] = {type, counter};
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetTotalEccErrors, d, type, counter, out);
	return q_u64(q, "nvmlDeviceGetTotalEccErrors", d, args, 2, r, out);
}

nvmlReturn_t axl__nvq_util(struct axl__nvq *q, nvmlDevice_t d, nvmlUtilization_t *out)
{
	q->calls++;
	memset(out, 0, sizeof *out);
	nvmlReturn_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->DeviceGetUtilizationRates, d, out);
	return q_struct(q, "nvmlDeviceGetUtilizationRates", d, NULL, 0, util_fields, out, sizeof *out, r);
}

/* An array of structs: recorded as "o":[{..},..], replayed into a new array. */
static nvmlReturn_t q_array(struct axl__nvq *q, const char *f, nvmlDevice_t d, const struct axl__vfield *fs,
			    size_t size, nvmlReturn_t live, void **arr, unsigned *n)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		nvmlReturn_t r;
		const struct axl__jv *o = axl__vrec_find(&q->v, f, hid(q, d), NULL, NULL, 0, NVML_ERROR_NOT_SUPPORTED, &r);
		*arr = NULL;
		*n = 0;
		if (r != NVML_SUCCESS || !o || o->type != AXL__J_ARR || !o->len)
			return r;
		size_t len = o->len > AXL_NVQ_MAX_ROWS ? AXL_NVQ_MAX_ROWS : o->len;
		char *p = calloc(len, size);
		if (!p)
			return NVML_ERROR_UNKNOWN;
		for (size_t i = 0; i < len; i++)
			if (o->items[i].type == AXL__J_OBJ)
				axl__vrec_get_fields(&o->items[i], fs, p + i * size);
		*arr = p;
		*n = (unsigned)len;
		return r;
	}
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		axl__vrec_begin(&q->v, &w, f, hid(q, d), NULL, NULL, 0, live);
		if (live == NVML_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_arr(&w);
			for (unsigned i = 0; i < *n; i++)
				axl__vrec_put_fields(&w, fs, (const char *)*arr + i * size);
			axl__json_arr_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

/* Call a count-protocol list function: *count in = room, out = rows (or needed). A
 * list that keeps growing is asked again a few times, never more. */
#define LIST_CALL(r, fn, d, buf, size, cnt, fill)                                                       \
	do {                                                                                            \
		unsigned room_ = 32;                                                                    \
		for (int try_ = 0; try_ < 4; try_++) {                                                  \
			void *nb_ = realloc(buf, (size_t)room_ * (size));                                \
			if (!nb_) {                                                                     \
				r = NVML_ERROR_UNKNOWN;                                                 \
				break;                                                                  \
			}                                                                               \
			buf = nb_;                                                                      \
			memset(buf, 0, (size_t)room_ * (size));                                          \
			cnt = room_;                                                                    \
			r = fill;                                                                       \
			if (r != NVML_ERROR_INSUFFICIENT_SIZE)                                          \
				break;                                                                  \
			unsigned want_ = cnt > room_ ? cnt + 8 : room_ * 2;                              \
			if (want_ > AXL_NVQ_MAX_ROWS)                                                   \
				want_ = AXL_NVQ_MAX_ROWS;                                               \
			if (want_ <= room_)                                                             \
				break;                                                                  \
			room_ = want_;                                                                  \
		}                                                                                       \
		if (r == NVML_SUCCESS && cnt > room_)                                                   \
			cnt = room_;                                                                    \
	} while (0)

nvmlReturn_t axl__nvq_procs(struct axl__nvq *q, nvmlDevice_t d, bool graphics, nvmlProcessInfo_v2_t **out,
			    unsigned *n)
{
	q->calls++;
	const char *f = graphics ? "nvmlDeviceGetGraphicsRunningProcesses" : "nvmlDeviceGetComputeRunningProcesses";
	*out = NULL;
	*n = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	void *buf = NULL;
	unsigned cnt = 0;
	if (q->v.mode != AXL__VREC_REPLAY) {
		const struct axl__nvml_fns *fn = q->fn;
		nvmlReturn_t (*v2)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v2_t *) =
			graphics ? (fn->DeviceGetGraphicsRunningProcesses_v3 ? fn->DeviceGetGraphicsRunningProcesses_v3
									   : fn->DeviceGetGraphicsRunningProcesses_v2)
				 : (fn->DeviceGetComputeRunningProcesses_v3 ? fn->DeviceGetComputeRunningProcesses_v3
									  : fn->DeviceGetComputeRunningProcesses_v2);
		nvmlReturn_t (*v1)(nvmlDevice_t, unsigned *, nvmlProcessInfo_v1_t *) =
			graphics ? fn->DeviceGetGraphicsRunningProcesses : fn->DeviceGetComputeRunningProcesses;
		if (v2) {
			LIST_CALL(r, v2, d, buf, sizeof(nvmlProcessInfo_v2_t), cnt, v2(d, &cnt, (nvmlProcessInfo_v2_t *)buf));
		} else if (v1) {
			LIST_CALL(r, v1, d, buf, sizeof(nvmlProcessInfo_v1_t), cnt, v1(d, &cnt, (nvmlProcessInfo_v1_t *)buf));
			if (r == NVML_SUCCESS) {
				/* widen to the v2 rows (no MIG instance ids) */
				nvmlProcessInfo_v2_t *w = calloc(cnt ? cnt : 1, sizeof *w);
				if (!w) {
					r = NVML_ERROR_UNKNOWN;
				} else {
					const nvmlProcessInfo_v1_t *o = buf;
					for (unsigned i = 0; i < cnt; i++) {
						w[i].pid = o[i].pid;
						w[i].usedGpuMemory = o[i].usedGpuMemory;
						w[i].gpuInstanceId = w[i].computeInstanceId = 0xFFFFFFFFu;
					}
				}
				free(buf);
				buf = w;
			}
		}
		if (r != NVML_SUCCESS)
			cnt = 0;
	}
	r = q_array(q, f, d, proc_fields, sizeof(nvmlProcessInfo_v2_t), r, &buf, &cnt);
	if (r != NVML_SUCCESS || !cnt) {
		free(buf);
		return r;
	}
	*out = buf;
	*n = cnt;
	return r;
}

nvmlReturn_t axl__nvq_proc_util(struct axl__nvq *q, nvmlDevice_t d, unsigned long long since,
				nvmlProcessUtilizationSample_t **out, unsigned *n)
{
	q->calls++;
	*out = NULL;
	*n = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	void *buf = NULL;
	unsigned cnt = 0;
	if (q->v.mode != AXL__VREC_REPLAY && q->fn->DeviceGetProcessUtilization) {
		/* the size first (NVML answers INSUFFICIENT_SIZE with the count) */
		unsigned need = 0;
		r = q->fn->DeviceGetProcessUtilization(d, NULL, &need, since);
		if (r == NVML_ERROR_INSUFFICIENT_SIZE || (r == NVML_SUCCESS && need)) {
			LIST_CALL(r, q->fn->DeviceGetProcessUtilization, d, buf, sizeof(nvmlProcessUtilizationSample_t), cnt,
				  q->fn->DeviceGetProcessUtilization(d, (nvmlProcessUtilizationSample_t *)buf, &cnt, since));
		} else {
			cnt = 0;
		}
		if (r != NVML_SUCCESS)
			cnt = 0;
	}
	r = q_array(q, "nvmlDeviceGetProcessUtilization", d, putil_fields, sizeof(nvmlProcessUtilizationSample_t), r,
		    &buf, &cnt);
	if (r != NVML_SUCCESS || !cnt) {
		free(buf);
		return r;
	}
	*out = buf;
	*n = cnt;
	return r;
}
