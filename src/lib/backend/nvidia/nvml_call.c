/* SPDX-License-Identifier: MIT */
/* NVML calls: loading the library, and every call live, recorded or replayed (see
 * nvml_call.h). */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_call.h"
#include "nvidia_runtime.h"
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
	{F(EventSetCreate), {"nvmlEventSetCreate"}},
	{F(DeviceGetSupportedEventTypes), {"nvmlDeviceGetSupportedEventTypes"}},
	{F(DeviceRegisterEvents), {"nvmlDeviceRegisterEvents"}},
	{F(EventSetWait), {"nvmlEventSetWait_v2", "nvmlEventSetWait"}},
	{F(EventSetFree), {"nvmlEventSetFree"}},
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

static const char *const sonames[] = {"libnvidia-ml.so.1"};
const struct axl__vlibrary axl__nvml_library = { sonames,
						 1,
						 symbols,
						 sizeof symbols / sizeof *symbols,
						 sizeof(struct axl__nvml_fns),
						 usable,
						 &cache,
						 axl__nvidia_lib_dirs };

const struct axl__nvml_fns *axl__nvml_load(const char *path, char *why, size_t cap)
{
	return axl__vlib_open(&axl__nvml_library, path, why, cap, NULL);
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

/* ---- struct fields, for records ------------------------------------------------------ */

#define FU(T, m) AXL__VF_UINT(T, m)
#define FL(T, m) AXL__VF_ULL(T, m)
#define FS(T, m) AXL__VF_CHARS(T, m)
static const struct axl__vfield pci_fields[] = {
	FS(nvmlPciInfo_t, busIdLegacy), FU(nvmlPciInfo_t, domain), FU(nvmlPciInfo_t, bus),
	FU(nvmlPciInfo_t, device), FU(nvmlPciInfo_t, pciDeviceId), FU(nvmlPciInfo_t, pciSubSystemId),
	FS(nvmlPciInfo_t, busId), {"", 0, 0, 0}};
static const struct axl__vfield mem_fields[] = {
	FL(nvmlMemory_v2_t, total), FL(nvmlMemory_v2_t, reserved), FL(nvmlMemory_v2_t, free),
	FL(nvmlMemory_v2_t, used), {"", 0, 0, 0}};
static const struct axl__vfield mem1_fields[] = {
	FL(nvmlMemory_t, total), FL(nvmlMemory_t, free), FL(nvmlMemory_t, used), {"", 0, 0, 0}};
static const struct axl__vfield bar1_fields[] = {
	FL(nvmlBAR1Memory_t, bar1Total), FL(nvmlBAR1Memory_t, bar1Free), FL(nvmlBAR1Memory_t, bar1Used),
	{"", 0, 0, 0}};
static const struct axl__vfield attr_fields[] = {
	FU(nvmlDeviceAttributes_t, multiprocessorCount), FU(nvmlDeviceAttributes_t, sharedCopyEngineCount),
	FU(nvmlDeviceAttributes_t, sharedDecoderCount), FU(nvmlDeviceAttributes_t, sharedEncoderCount),
	FU(nvmlDeviceAttributes_t, sharedJpegCount), FU(nvmlDeviceAttributes_t, sharedOfaCount),
	FU(nvmlDeviceAttributes_t, gpuInstanceSliceCount), FU(nvmlDeviceAttributes_t, computeInstanceSliceCount),
	FL(nvmlDeviceAttributes_t, memorySizeMB), {"", 0, 0, 0}};
#define GI nvmlGpuInstanceProfileInfo_v2_t
static const struct axl__vfield gi_fields[] = {
	FU(GI, id), FU(GI, isP2pSupported), FU(GI, sliceCount), FU(GI, instanceCount),
	FU(GI, multiprocessorCount), FU(GI, copyEngineCount), FU(GI, decoderCount), FU(GI, encoderCount),
	FU(GI, jpegCount), FU(GI, ofaCount), FL(GI, memorySizeMB), FS(GI, name), {"", 0, 0, 0}};
#undef GI
#define G1 nvmlGpuInstanceProfileInfo_t
static const struct axl__vfield gi1_fields[] = {
	FU(G1, id), FU(G1, isP2pSupported), FU(G1, sliceCount), FU(G1, instanceCount),
	FU(G1, multiprocessorCount), FU(G1, copyEngineCount), FU(G1, decoderCount), FU(G1, encoderCount),
	FU(G1, jpegCount), FU(G1, ofaCount), FL(G1, memorySizeMB), {"", 0, 0, 0}};
#undef G1

/* ---- the calls ------------------------------------------------------------------------ */

#define LIVE(fnptr, ...) AXL__VQ_LIVE(q, NVML_ERROR_FUNCTION_NOT_FOUND, fnptr, __VA_ARGS__)
#define FN(member) (q->lib ? ((const struct axl__nvml_fns *)q->lib)->member : NULL)
/* the answer of call f on handles d (and e) with nargs integer arguments */
#define ANSWER(f, d, e, args, nargs, vo, out, live) \
	axl__vq_answer(q, &(const struct axl__vkey){f, d, e, args, nargs}, vo, out, live)
#define HID(h) axl__vq_hid(q, h)
#define VO(kind) {AXL__VO_##kind, 0, NULL, NULL, NULL}
#define VO_FIELDS(fs, T) {AXL__VO_FIELDS, sizeof(T), fs, NULL, NULL}
static const struct axl__vout vo_none = VO(NONE), vo_int = VO(INT), vo_uint = VO(UINT), vo_uint2 = VO(UINT2),
			      vo_int2 = VO(INT2), vo_ull = VO(ULL), vo_u64 = VO(U64);

static int init_live(const void *lib)
{
	const struct axl__nvml_fns *fn = lib;
	return fn->Init ? fn->Init() : NVML_ERROR_FUNCTION_NOT_FOUND;
}

nvmlReturn_t axl__nvq_init(struct axl__vq *q)
{
	/* a capture without NVML records: the library was not there */
	return axl__vq_init(q, &cache, 0, "nvmlInit", NVML_ERROR_DRIVER_NOT_LOADED, init_live);
}

nvmlReturn_t axl__nvq_sys_str(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(char *, unsigned),
			      char *buf, unsigned cap)
{
	const struct axl__vout vo = {AXL__VO_STR, cap, NULL, NULL, NULL};
	memset(buf, 0, cap);
	return ANSWER(f, NULL, NULL, NULL, 0, &vo, buf, LIVE(fn, buf, cap));
}

nvmlReturn_t axl__nvq_sys_int(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(int *), int *out)
{
	return ANSWER(f, NULL, NULL, NULL, 0, &vo_int, out, LIVE(fn, out));
}

nvmlReturn_t axl__nvq_count(struct axl__vq *q, unsigned *out)
{
	*out = 0;
	uint64_t v = 0;
	nvmlReturn_t r = LIVE(FN(DeviceGetCount), out);
	v = *out;
	r = ANSWER("nvmlDeviceGetCount", NULL, NULL, NULL, 0, &vo_u64, &v, r);
	if (axl__vq_replaying(q))
		*out = v < 0x10000 ? (unsigned)v : 0; /* a recorded count out of range: none */
	return r;
}

/* A handle answered (r) by a call: named id in records, made up when replaying. */
static nvmlReturn_t name_handle(struct axl__vq *q, nvmlReturn_t r, nvmlDevice_t *out, const char *id)
{
	if (r == NVML_SUCCESS) {
		*out = axl__vq_handle(q, axl__vq_replaying(q) ? NULL : (void *)*out, id);
		if (!*out)
			r = NVML_ERROR_UNKNOWN;
	}
	return r;
}

nvmlReturn_t axl__nvq_handle(struct axl__vq *q, unsigned index, nvmlDevice_t *out)
{
	char id[24];
	snprintf(id, sizeof id, "%u", index);
	nvmlReturn_t r = LIVE(FN(DeviceGetHandleByIndex), index, out);
	r = ANSWER("nvmlDeviceGetHandleByIndex", NULL, NULL, &index, 1, &vo_none, NULL, r);
	return name_handle(q, r, out, id);
}

nvmlReturn_t axl__nvq_mig_handle(struct axl__vq *q, nvmlDevice_t gpu, unsigned k, nvmlDevice_t *out)
{
	const char *d = HID(gpu);
	char id[24];
	snprintf(id, sizeof id, "%.12s/mig%u", d, k);
	nvmlReturn_t r = LIVE(FN(DeviceGetMigDeviceHandleByIndex), gpu, k, out);
	r = ANSWER("nvmlDeviceGetMigDeviceHandleByIndex", d, NULL, &k, 1, &vo_none, NULL, r);
	return name_handle(q, r, out, id);
}

nvmlReturn_t axl__nvq_str(struct axl__vq *q, const char *f,
			  nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned), nvmlDevice_t d, char *buf,
			  unsigned cap)
{
	const struct axl__vout vo = {AXL__VO_STR, cap, NULL, NULL, NULL};
	memset(buf, 0, cap);
	return ANSWER(f, HID(d), NULL, NULL, 0, &vo, buf, LIVE(fn, d, buf, cap));
}

nvmlReturn_t axl__nvq_u32(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *),
			  nvmlDevice_t d, unsigned *out)
{
	*out = 0;
	return ANSWER(f, HID(d), NULL, NULL, 0, &vo_uint, out, LIVE(fn, d, out));
}

nvmlReturn_t axl__nvq_u32a(struct axl__vq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, unsigned, unsigned *), nvmlDevice_t d,
			   unsigned arg, unsigned *out)
{
	*out = 0;
	return ANSWER(f, HID(d), NULL, &arg, 1, &vo_uint, out, LIVE(fn, d, arg, out));
}

nvmlReturn_t axl__nvq_u32x2(struct axl__vq *q, const char *f,
			    nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *, unsigned *), nvmlDevice_t d,
			    unsigned *a, unsigned *b)
{
	unsigned v[2] = {0, 0};
	nvmlReturn_t r = ANSWER(f, HID(d), NULL, NULL, 0, &vo_uint2, v, LIVE(fn, d, &v[0], &v[1]));
	*a = v[0];
	*b = v[1];
	return r;
}

nvmlReturn_t axl__nvq_cc(struct axl__vq *q, nvmlDevice_t d, int *major, int *minor)
{
	int v[2] = {-1, -1};
	nvmlReturn_t r = ANSWER("nvmlDeviceGetCudaComputeCapability", HID(d), NULL, NULL, 0, &vo_int2, v,
				LIVE(FN(DeviceGetCudaComputeCapability), d, &v[0], &v[1]));
	*major = v[0];
	*minor = v[1];
	return r;
}

static const struct axl__vout vo_pci = VO_FIELDS(pci_fields, nvmlPciInfo_t);

nvmlReturn_t axl__nvq_pci(struct axl__vq *q, nvmlDevice_t d, nvmlPciInfo_t *out)
{
	memset(out, 0, sizeof *out);
	return ANSWER("nvmlDeviceGetPciInfo", HID(d), NULL, NULL, 0, &vo_pci, out, LIVE(FN(DeviceGetPciInfo), d, out));
}

nvmlReturn_t axl__nvq_remote_pci(struct axl__vq *q, nvmlDevice_t d, unsigned link, nvmlPciInfo_t *out)
{
	memset(out, 0, sizeof *out);
	return ANSWER("nvmlDeviceGetNvLinkRemotePciInfo", HID(d), NULL, &link, 1, &vo_pci, out,
		      LIVE(FN(DeviceGetNvLinkRemotePciInfo), d, link, out));
}

nvmlReturn_t axl__nvq_memory(struct axl__vq *q, nvmlDevice_t d, nvmlMemory_v2_t *out, bool *v2)
{
	static const struct axl__vout vo2 = VO_FIELDS(mem_fields, nvmlMemory_v2_t),
				      vo1 = VO_FIELDS(mem1_fields, nvmlMemory_t);
	memset(out, 0, sizeof *out);
	out->version = nvmlMemory_v2;
	*v2 = true;
	nvmlReturn_t r = ANSWER("nvmlDeviceGetMemoryInfo_v2", HID(d), NULL, NULL, 0, &vo2, out,
				LIVE(FN(DeviceGetMemoryInfo_v2), d, out));
	if (r == NVML_SUCCESS || r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_NO_PERMISSION)
		return r;
	/* no _v2 (older driver, or it refuses the version): the base call */
	*v2 = false;
	nvmlMemory_t m;
	memset(&m, 0, sizeof m);
	r = ANSWER("nvmlDeviceGetMemoryInfo", HID(d), NULL, NULL, 0, &vo1, &m, LIVE(FN(DeviceGetMemoryInfo), d, &m));
	memset(out, 0, sizeof *out);
	out->total = m.total;
	out->free = m.free;
	out->used = m.used;
	return r;
}

nvmlReturn_t axl__nvq_bar1(struct axl__vq *q, nvmlDevice_t d, nvmlBAR1Memory_t *out)
{
	static const struct axl__vout vo = VO_FIELDS(bar1_fields, nvmlBAR1Memory_t);
	memset(out, 0, sizeof *out);
	return ANSWER("nvmlDeviceGetBAR1MemoryInfo", HID(d), NULL, NULL, 0, &vo, out,
		      LIVE(FN(DeviceGetBAR1MemoryInfo), d, out));
}

nvmlReturn_t axl__nvq_attributes(struct axl__vq *q, nvmlDevice_t d, nvmlDeviceAttributes_t *out)
{
	static const struct axl__vout vo = VO_FIELDS(attr_fields, nvmlDeviceAttributes_t);
	memset(out, 0, sizeof *out);
	return ANSWER("nvmlDeviceGetAttributes", HID(d), NULL, NULL, 0, &vo, out,
		      LIVE(FN(DeviceGetAttributes), d, out));
}

nvmlReturn_t axl__nvq_gi_profile(struct axl__vq *q, nvmlDevice_t d, unsigned profile,
				 nvmlGpuInstanceProfileInfo_v2_t *out)
{
	static const struct axl__vout vo2 = VO_FIELDS(gi_fields, nvmlGpuInstanceProfileInfo_v2_t),
				      vo1 = VO_FIELDS(gi1_fields, nvmlGpuInstanceProfileInfo_t);
	memset(out, 0, sizeof *out);
	out->version = nvmlGpuInstanceProfileInfo_v2;
	nvmlReturn_t r = ANSWER("nvmlDeviceGetGpuInstanceProfileInfoV", HID(d), NULL, &profile, 1, &vo2, out,
				LIVE(FN(DeviceGetGpuInstanceProfileInfoV), d, profile, out));
	if (r != NVML_ERROR_FUNCTION_NOT_FOUND && r != NVML_ERROR_ARGUMENT_VERSION_MISMATCH)
		return r;
	nvmlGpuInstanceProfileInfo_t v1;
	memset(&v1, 0, sizeof v1);
	r = ANSWER("nvmlDeviceGetGpuInstanceProfileInfo", HID(d), NULL, &profile, 1, &vo1, &v1,
		   LIVE(FN(DeviceGetGpuInstanceProfileInfo), d, profile, &v1));
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

nvmlReturn_t axl__nvq_pair(struct axl__vq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, nvmlDevice_t, unsigned *), nvmlDevice_t a,
			   nvmlDevice_t b, unsigned *out)
{
	*out = 0;
	return ANSWER(f, HID(a), HID(b), NULL, 0, &vo_uint, out, LIVE(fn, a, b, out));
}

nvmlReturn_t axl__nvq_p2p(struct axl__vq *q, nvmlDevice_t a, nvmlDevice_t b, unsigned index, unsigned *out)
{
	*out = 0;
	return ANSWER("nvmlDeviceGetP2PStatus", HID(a), HID(b), &index, 1, &vo_uint, out,
		      LIVE(FN(DeviceGetP2PStatus), a, b, index, out));
}

/* ---- live metrics (nvml_sample.c) ------------------------------------------------------ */

static const struct axl__vfield util_fields[] = {
	FU(nvmlUtilization_t, gpu), FU(nvmlUtilization_t, memory), {"", 0, 0, 0}};
static const struct axl__vfield proc_fields[] = {
	FU(nvmlProcessInfo_v2_t, pid), FL(nvmlProcessInfo_v2_t, usedGpuMemory),
	FU(nvmlProcessInfo_v2_t, gpuInstanceId), FU(nvmlProcessInfo_v2_t, computeInstanceId), {"", 0, 0, 0}};
#define PU nvmlProcessUtilizationSample_t
static const struct axl__vfield putil_fields[] = {
	FU(PU, pid), FL(PU, timeStamp), FU(PU, smUtil), FU(PU, memUtil), FU(PU, encUtil), FU(PU, decUtil),
	{"", 0, 0, 0}};
#undef PU

nvmlReturn_t axl__nvq_u64(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned long long *),
			  nvmlDevice_t d, unsigned long long *out)
{
	*out = 0;
	return ANSWER(f, HID(d), NULL, NULL, 0, &vo_ull, out, LIVE(fn, d, out));
}

nvmlReturn_t axl__nvq_ecc(struct axl__vq *q, nvmlDevice_t d, unsigned type, unsigned counter,
			  unsigned long long *out)
{
	*out = 0;
	unsigned args[2] = {type, counter};
	return ANSWER("nvmlDeviceGetTotalEccErrors", HID(d), NULL, args, 2, &vo_ull, out,
		      LIVE(FN(DeviceGetTotalEccErrors), d, type, counter, out));
}

nvmlReturn_t axl__nvq_util(struct axl__vq *q, nvmlDevice_t d, nvmlUtilization_t *out)
{
	static const struct axl__vout vo = VO_FIELDS(util_fields, nvmlUtilization_t);
	memset(out, 0, sizeof *out);
	return ANSWER("nvmlDeviceGetUtilizationRates", HID(d), NULL, NULL, 0, &vo, out,
		      LIVE(FN(DeviceGetUtilizationRates), d, out));
}

/* An array of structs ("o":[{..},..]) in a malloc'd buffer: rows of one of the tables
 * below. Replaying, at most AXL_NVQ_MAX_ROWS rows come back. */
struct rows {
	void *p;
	unsigned n;
};
#define ROWS(name, fs, T)                                                                       \
	static void name##_put(struct axl__json *w, const void *out)                           \
	{                                                                                       \
		const struct rows *x = out;                                                     \
		axl__json_arr(w);                                                               \
		for (unsigned i = 0; i < x->n; i++)                                             \
			axl__vrec_put_fields(w, fs, (const char *)x->p + i * sizeof(T));         \
		axl__json_arr_end(w);                                                           \
	}                                                                                       \
	static void name##_get(const struct axl__jv *o, void *out)                             \
	{                                                                                       \
		rows_get(o, out, fs, sizeof(T));                                                \
	}                                                                                       \
	static const struct axl__vout name = {AXL__VO_CUSTOM, sizeof(T), fs, name##_put, name##_get}

static void rows_get(const struct axl__jv *o, struct rows *x, const struct axl__vfield *fs, size_t size)
{
	x->p = NULL;
	x->n = 0;
	if (!o || o->type != AXL__J_ARR || !o->len)
		return;
	size_t len = o->len > AXL_NVQ_MAX_ROWS ? AXL_NVQ_MAX_ROWS : o->len;
	char *p = calloc(len, size);
	if (!p)
		return;
	for (size_t i = 0; i < len; i++)
		if (o->items[i].type == AXL__J_OBJ)
			axl__vrec_get_fields(&o->items[i], fs, p + i * size);
	x->p = p;
	x->n = (unsigned)len;
}
ROWS(vo_procs, proc_fields, nvmlProcessInfo_v2_t);
ROWS(vo_putil, putil_fields, nvmlProcessUtilizationSample_t);

/* Rows answered (r) into *out and *n; NULL and 0 when there are none. */
static nvmlReturn_t rows_out(nvmlReturn_t r, struct rows *x, void **out, unsigned *n)
{
	if (r != NVML_SUCCESS || !x->n) {
		free(x->p);
		return r;
	}
	*out = x->p;
	*n = x->n;
	return r;
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

nvmlReturn_t axl__nvq_procs(struct axl__vq *q, nvmlDevice_t d, bool graphics, nvmlProcessInfo_v2_t **out,
			    unsigned *n)
{
	const char *f = graphics ? "nvmlDeviceGetGraphicsRunningProcesses" : "nvmlDeviceGetComputeRunningProcesses";
	*out = NULL;
	*n = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	void *buf = NULL;
	unsigned cnt = 0;
	const struct axl__nvml_fns *fn = q->lib; /* NULL replaying */
	if (fn) {
		/* _v3's rows (nvmlProcessInfo_t) and _v2's are one layout (nvml_api.h) */
		AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v3) v3 =
			graphics ? fn->DeviceGetGraphicsRunningProcesses_v3 : fn->DeviceGetComputeRunningProcesses_v3;
		AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses_v2) v2 =
			graphics ? fn->DeviceGetGraphicsRunningProcesses_v2 : fn->DeviceGetComputeRunningProcesses_v2;
		AXL_NVML_FN(nvmlDeviceGetComputeRunningProcesses) v1 =
			graphics ? fn->DeviceGetGraphicsRunningProcesses : fn->DeviceGetComputeRunningProcesses;
		if (v3) {
			LIST_CALL(r, v3, d, buf, sizeof(nvmlProcessInfo_t), cnt, v3(d, &cnt, (nvmlProcessInfo_t *)buf));
		} else if (v2) {
			LIST_CALL(r, v2, d, buf, sizeof(nvmlProcessInfo_v2_t), cnt,
				  v2(d, &cnt, (nvmlProcessInfo_v2_t *)buf));
		} else if (v1) {
			LIST_CALL(r, v1, d, buf, sizeof(nvmlProcessInfo_v1_t), cnt,
				  v1(d, &cnt, (nvmlProcessInfo_v1_t *)buf));
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
	struct rows x = {buf, cnt};
	r = ANSWER(f, HID(d), NULL, NULL, 0, &vo_procs, &x, r);
	return rows_out(r, &x, (void **)out, n);
}

nvmlReturn_t axl__nvq_proc_util(struct axl__vq *q, nvmlDevice_t d, unsigned long long since,
				nvmlProcessUtilizationSample_t **out, unsigned *n)
{
	*out = NULL;
	*n = 0;
	nvmlReturn_t r = NVML_ERROR_FUNCTION_NOT_FOUND;
	void *buf = NULL;
	unsigned cnt = 0;
	const struct axl__nvml_fns *fn = q->lib; /* NULL replaying */
	if (fn && fn->DeviceGetProcessUtilization) {
		/* the size first (NVML answers INSUFFICIENT_SIZE with the count) */
		unsigned need = 0;
		r = fn->DeviceGetProcessUtilization(d, NULL, &need, since);
		if (r == NVML_ERROR_INSUFFICIENT_SIZE || (r == NVML_SUCCESS && need)) {
			LIST_CALL(
			    r, fn->DeviceGetProcessUtilization, d, buf, sizeof(nvmlProcessUtilizationSample_t), cnt,
			    fn->DeviceGetProcessUtilization(d, (nvmlProcessUtilizationSample_t *)buf, &cnt, since));
		} else {
			cnt = 0;
		}
		if (r != NVML_SUCCESS)
			cnt = 0;
	}
	struct rows x = {buf, cnt};
	r = ANSWER("nvmlDeviceGetProcessUtilization", HID(d), NULL, NULL, 0, &vo_putil, &x, r);
	return rows_out(r, &x, (void **)out, n);
}

/* ---- health events: live only (nvml_call.h) ------------------------------------------------ */

/* A live call of the table's member (NOT_SUPPORTED replaying, FUNCTION_NOT_FOUND when the
 * library lacks it); counted, never recorded. */
#define EVENT_CALL(member, ...)                                                                            \
	(q->calls++, axl__vq_replaying(q) || !q->lib ? NVML_ERROR_NOT_SUPPORTED                           \
		     : FN(member)                    ? FN(member)(__VA_ARGS__)                             \
						     : NVML_ERROR_FUNCTION_NOT_FOUND)

nvmlReturn_t axl__nvq_event_set(struct axl__vq *q, nvmlEventSet_t *out)
{
	*out = NULL;
	nvmlReturn_t r = EVENT_CALL(EventSetCreate, out);
	if (r != NVML_SUCCESS)
		*out = NULL;
	return r;
}

nvmlReturn_t axl__nvq_event_register(struct axl__vq *q, nvmlEventSet_t set, nvmlDevice_t d,
				     unsigned long long types, unsigned long long *registered)
{
	*registered = 0;
	unsigned long long supported = 0;
	nvmlReturn_t r = EVENT_CALL(DeviceGetSupportedEventTypes, d, &supported);
	if (r != NVML_SUCCESS)
		return r;
	if (!(types & supported))
		return NVML_ERROR_NOT_SUPPORTED;
	r = EVENT_CALL(DeviceRegisterEvents, d, types & supported, set);
	if (r == NVML_SUCCESS)
		*registered = types & supported;
	return r;
}

nvmlReturn_t axl__nvq_event_wait(struct axl__vq *q, nvmlEventSet_t set, nvmlEventData_t *out, unsigned timeout_ms)
{
	memset(out, 0, sizeof *out);
	/* the base symbol leaves the instance ids alone: none */
	out->gpuInstanceId = out->computeInstanceId = AXL_NVML_NO_INSTANCE;
	return EVENT_CALL(EventSetWait, set, out, timeout_ms);
}

void axl__nvq_event_free(struct axl__vq *q, nvmlEventSet_t set)
{
	if (set)
		(void)EVENT_CALL(EventSetFree, set);
}
