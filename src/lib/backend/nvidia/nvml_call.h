/* SPDX-License-Identifier: MIT */
/*
 * Calls into NVML, live, recorded or replayed. Every NVML call axl makes goes through
 * one of the q_* helpers below, which
 *   live:    call the function resolved from libnvidia-ml.so.1 (NULL: the library lacks
 *            it, answered as NVML_ERROR_FUNCTION_NOT_FOUND);
 *   record:  also append the answer as one JSON line to the capture
 *            {"f":"nvmlDeviceGetName","d":"0","a":[..],"r":0,"o":"NVIDIA H100 80GB HBM3"};
 *   replay:  answer from such lines (a call nobody recorded answers NOT_SUPPORTED).
 * Devices are named in records by NVML index ("0") and MIG devices by parent and MIG
 * index ("0/mig2"), so a replay needs no real handles.
 */
#ifndef AXL_NVML_CALL_H
#define AXL_NVML_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "nvml_api.h"
#include "vcall.h"
#include "util/jsonr.h"
#include "util/strbuf.h"

#define AXL_NVQ_MAX_HANDLES 1024
#define AXL_NVQ_MAX_ROWS 4096 /* process list rows kept */

/* The calls' state is the generic one (vcall.h): q->lib is a struct axl__nvml_fns. */
/* Library loading, once per process per path. NULL path: "libnvidia-ml.so.1". Returns
 * the resolved table or NULL with a reason in why. Never unloaded. */
const struct axl__nvml_fns *axl__nvml_load(const char *path, char *why, size_t cap);
/* The library as the driver loads it (vdrv.h). */
extern const struct axl__vlibrary axl__nvml_library;


/* NVML's name for a return code ("Not Supported"), for warnings. */
const char *axl__nvml_strerror(nvmlReturn_t r);

nvmlReturn_t axl__nvq_init(struct axl__vq *q);
nvmlReturn_t axl__nvq_sys_str(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(char *, unsigned),
			      char *buf, unsigned cap);
nvmlReturn_t axl__nvq_sys_int(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(int *), int *out);
nvmlReturn_t axl__nvq_count(struct axl__vq *q, unsigned *out);
/* Handles: by NVML index, and MIG device k of a GPU. */
nvmlReturn_t axl__nvq_handle(struct axl__vq *q, unsigned index, nvmlDevice_t *out);
nvmlReturn_t axl__nvq_mig_handle(struct axl__vq *q, nvmlDevice_t gpu, unsigned k, nvmlDevice_t *out);

nvmlReturn_t axl__nvq_str(struct axl__vq *q, const char *f,
			  nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned), nvmlDevice_t d, char *buf,
			  unsigned cap);
nvmlReturn_t axl__nvq_u32(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *),
			  nvmlDevice_t d, unsigned *out);
nvmlReturn_t axl__nvq_u32a(struct axl__vq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, unsigned, unsigned *), nvmlDevice_t d,
			   unsigned arg, unsigned *out);
nvmlReturn_t axl__nvq_u32x2(struct axl__vq *q, const char *f,
			    nvmlReturn_t (*fn)(nvmlDevice_t, unsigned *, unsigned *), nvmlDevice_t d,
			    unsigned *a, unsigned *b);
nvmlReturn_t axl__nvq_cc(struct axl__vq *q, nvmlDevice_t d, int *major, int *minor);
nvmlReturn_t axl__nvq_pci(struct axl__vq *q, nvmlDevice_t d, nvmlPciInfo_t *out);
nvmlReturn_t axl__nvq_remote_pci(struct axl__vq *q, nvmlDevice_t d, unsigned link, nvmlPciInfo_t *out);
/* Memory: _v2 first (with reserved), then the base call; *v2 says which answered. */
nvmlReturn_t axl__nvq_memory(struct axl__vq *q, nvmlDevice_t d, nvmlMemory_v2_t *out, bool *v2);
nvmlReturn_t axl__nvq_bar1(struct axl__vq *q, nvmlDevice_t d, nvmlBAR1Memory_t *out);
nvmlReturn_t axl__nvq_attributes(struct axl__vq *q, nvmlDevice_t d, nvmlDeviceAttributes_t *out);
/* GPU-instance profile: V (with its name) first, then the base call (name empty). */
nvmlReturn_t axl__nvq_gi_profile(struct axl__vq *q, nvmlDevice_t d, unsigned profile,
				 nvmlGpuInstanceProfileInfo_v2_t *out);
nvmlReturn_t axl__nvq_pair(struct axl__vq *q, const char *f,
			   nvmlReturn_t (*fn)(nvmlDevice_t, nvmlDevice_t, unsigned *), nvmlDevice_t a,
			   nvmlDevice_t b, unsigned *out);
nvmlReturn_t axl__nvq_p2p(struct axl__vq *q, nvmlDevice_t a, nvmlDevice_t b, unsigned index,
			  unsigned *out);

/* ---- live metrics (nvml_sample.c) ---- */
nvmlReturn_t axl__nvq_u64(struct axl__vq *q, const char *f, nvmlReturn_t (*fn)(nvmlDevice_t, unsigned long long *),
			  nvmlDevice_t d, unsigned long long *out);
/* nvmlDeviceGetTotalEccErrors(type, counter) */
nvmlReturn_t axl__nvq_ecc(struct axl__vq *q, nvmlDevice_t d, unsigned type, unsigned counter,
			  unsigned long long *out);
nvmlReturn_t axl__nvq_util(struct axl__vq *q, nvmlDevice_t d, nvmlUtilization_t *out);
/* Compute or graphics processes: _v3, _v2, then the base symbol (rows widened, no MIG
 * ids); INSUFFICIENT_SIZE is retried with the count NVML asks for, a few times. *out is
 * malloc'd (NULL when there are none); recorded under the base name. */
nvmlReturn_t axl__nvq_procs(struct axl__vq *q, nvmlDevice_t d, bool graphics, nvmlProcessInfo_v2_t **out,
			    unsigned *n);
/* nvmlDeviceGetProcessUtilization: samples newer than `since` (µs); *out malloc'd. */
nvmlReturn_t axl__nvq_proc_util(struct axl__vq *q, nvmlDevice_t d, unsigned long long since,
				nvmlProcessUtilizationSample_t **out, unsigned *n);

/* ---- health events (nvml_sample.c) ----
 * Live only: an event is not an answer a capture can hold, so these are never recorded,
 * and replaying they answer NOT_SUPPORTED (no event is watched). */
nvmlReturn_t axl__nvq_event_set(struct axl__vq *q, nvmlEventSet_t *out);
/* Register the events of `types` that d supports (nvmlDeviceGetSupportedEventTypes, then
 * nvmlDeviceRegisterEvents), *registered the mask that was; NOT_SUPPORTED when d supports
 * none of them. */
nvmlReturn_t axl__nvq_event_register(struct axl__vq *q, nvmlEventSet_t set, nvmlDevice_t d,
				     unsigned long long types, unsigned long long *registered);
/* nvmlEventSetWait_v2 (or the base symbol, its instance ids then AXL_NVML_NO_INSTANCE). */
nvmlReturn_t axl__nvq_event_wait(struct axl__vq *q, nvmlEventSet_t set, nvmlEventData_t *out, unsigned timeout_ms);
void axl__nvq_event_free(struct axl__vq *q, nvmlEventSet_t set);

#endif
