/* SPDX-License-Identifier: MIT */
/* The backend table, in probe order. "pci" must stay first: it is the base scan. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const struct axl__runtime_ops pci_runtime = {
	.files = axl__pci_runtime, /* backend/common/runtime_files.c */
};

/* the base scan (discover/pci.c): it owns no device (the ones no vendor claims fall to
 * it by name) */
static const struct axl__backend backend_pci = {
	.name = "pci",
	.runtime = &pci_runtime,
};

extern const struct axl__backend axl__backend_nvidia;
extern const struct axl__backend axl__backend_nvml;
extern const struct axl__backend axl__backend_amdgpu;
extern const struct axl__backend axl__backend_rocm_smi;
extern const struct axl__backend axl__backend_amdxdna;
extern const struct axl__backend axl__backend_intel;
extern const struct axl__backend axl__backend_level_zero;
extern const struct axl__backend axl__backend_habana;
extern const struct axl__backend axl__backend_neuron;
extern const struct axl__backend axl__backend_tpu;
extern const struct axl__backend axl__backend_tenstorrent;
extern const struct axl__backend axl__backend_ascend;
extern const struct axl__backend axl__backend_dcmi;
extern const struct axl__backend axl__backend_qaic;

const struct axl__backend *const axl__backends[] = {
	&backend_pci,
	&axl__backend_nvidia,
	&axl__backend_nvml,
	&axl__backend_amdgpu,
	&axl__backend_rocm_smi,
	&axl__backend_amdxdna,
	&axl__backend_intel,
	&axl__backend_level_zero,
	&axl__backend_habana,
	&axl__backend_neuron,
	&axl__backend_tpu,
	&axl__backend_tenstorrent,
	&axl__backend_ascend,
	&axl__backend_dcmi,
	&axl__backend_qaic,
};

const size_t axl__backend_total = sizeof axl__backends / sizeof *axl__backends;
_Static_assert(sizeof axl__backends / sizeof *axl__backends <= AXL__BACKENDS_MAX,
	       "more backends than AXL__BACKENDS_MAX: raise it (the per-backend state arrays)");
_Static_assert(AXL__BACKENDS_MAX <= 64, "a backend selection is a 64-bit mask");
