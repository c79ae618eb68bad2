/* SPDX-License-Identifier: MIT */
/* What the NVML worker collects (nvml.c) and the main thread applies to the inventory
 * (nvml_apply.c). Plain data: the worker never touches the inventory. */
#ifndef AXL_NVML_JOB_H
#define AXL_NVML_JOB_H

#include <pthread.h>

#include "backend.h"
#include "backend_util.h"
#include "vdrv.h"
#include "nvml_call.h"

#define MAX_MIG 8 /* a GPU has at most 7 MIG devices */

enum { S_NAME, S_UUID, S_SERIAL, S_PART, S_VBIOS, S_INFOROM, S__N };
enum {
	U_MINOR, U_ARCH, U_CORES, U_GEN, U_GEN_MAX, U_WIDTH, U_WIDTH_MAX, U_PLIMIT, U_PDEFAULT,
	U_PERSIST, U_CMODE, U_CLK_G, U_CLK_SM, U_CLK_MEM, U_MAX_G, U_MAX_SM, U_MAX_MEM, U__N
};

struct nv_mig {
	nvmlDevice_t h;
	unsigned index;          /* NVML's MIG device index on its GPU */
	struct axl_device *dev;  /* the child made for it (nvml_apply.c), NULL none */
	unsigned gi, ci;
	bool has_gi, has_ci;
	char uuid[AXL_NVML_STR];
	nvmlMemory_v2_t mem;
	bool has_mem;
	nvmlDeviceAttributes_t attr;
	bool has_attr;
};

struct nv_prof {
	nvmlGpuInstanceProfileInfo_v2_t info;
	unsigned remaining;
	bool has_remaining;
};

struct nv_link {
	unsigned index, state, version, type;
	bool has_version, has_type, has_remote;
	nvmlPciInfo_t remote;
};

struct nv_gpu {
	nvmlDevice_t h;
	bool has_pci, lost;
	nvmlPciInfo_t pci;
	char str[S__N][AXL_NVML_STR];
	bool has_str[S__N];
	unsigned u[U__N];
	bool has_u[U__N];
	int cc_major, cc_minor;
	bool has_cc;
	unsigned pmin, pmax, ecc, ecc_pend, mig, mig_pend, mig_max;
	bool has_pconstr, has_ecc, has_mig, has_mig_max;
	nvmlMemory_v2_t mem;
	bool has_mem, mem_v2;
	nvmlBAR1Memory_t bar1;
	bool has_bar1;
	struct nv_mig migs[MAX_MIG];
	unsigned nmigs;
	struct nv_prof profs[AXL_NVML_GI_PROFILE_MAX];
	unsigned nprofs;
	struct nv_link links[AXL_NVML_NVLINK_MAX_LINKS];
	unsigned nlinks;
};

struct nv_pair {
	unsigned a, b;
	unsigned level;
	bool has_level;
	unsigned p2p; /* AXL_P2P_* */
};

struct nv_job {
	struct axl__vwork w; /* its calls (w.q), warnings, time (vdrv.h) */
	nvmlReturn_t init_rc;
	char driver[AXL_NVML_STR], nvml_version[AXL_NVML_STR];
	int cuda;
	bool has_cuda;
	struct nv_gpu *gpus;
	unsigned ngpus;
	struct nv_pair *pairs;
	size_t npairs;
};

/* The inventory's NVML answers (for the sampler, nvml_sample.c): NULL when NVML was not
 * used or did not answer; *devs then maps NVML index -> device (NULL not matched). */
struct nv_job *axl__nvml_job(const struct axl_inventory *inv, const struct axl__backend *self,
			     struct axl_device ***devs);

/* Live metrics (nvml_sample.c, sample.h). */
struct axl_sampler;
struct axl_sample;
extern const struct axl__sample_ops axl__nvml_sample_ops;

void axl__nvml_apply(struct axl__scan *scan, struct nv_job *j, struct axl_device **devs);
void axl__nvml_link(struct axl__scan *scan, struct nv_job *j, struct axl_device **devs);

#endif
