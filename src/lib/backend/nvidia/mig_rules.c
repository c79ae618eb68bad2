/* SPDX-License-Identifier: MIT */
/*
 * MIG rules per GPU (mig_rules.h), used by simulated nodes (docs/partitions.md).
 *
 * Sources of the facts:
 *  - profile sets, compute slices, instance counts: NVIDIA Multi-Instance GPU User Guide,
 *    "Supported MIG Profiles"
 *    (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html);
 *  - placements (start memory slice : size): `nvidia-smi mig -lgipp` as the MIG user guide
 *    shows it for the A100 ("Profile ID 19 Placements: {0,1,2,3,4,5,6}:1", 15 {0,2,4,6}:2,
 *    14 {0,2,4}:2, 9 {0,4}:4, 5 {0}:4, 0 {0}:8); Hopper keeps the same 8-slice geometry;
 *    the A30 has 4 memory slices (1g {0,1,2,3}:1, 2g {0,2}:2, 4g {0}:4);
 *  - profile ids, SMs and MiB: published `nvidia-smi mig -lgip` outputs — H100 80GB HBM3
 *    (jbarrow.ai field notes on MIG; a real H100 capture: 1g.10gb 9984 MiB / 16 SMs,
 *    2g.20gb 20096 / 32, 3g.40gb 40448 / 60), H200 141GB (NVIDIA/mig-parted issue #120),
 *    H100 NVL (NVIDIA/gpu-operator pull request #900; 7g.94gb memory derived), A100 80GB
 *    (a real A100 capture and XuehaiPan/nvitop pull request #8; 3g/4g 40192 MiB as in
 *    NVIDIA/mig-parted issue #31), A100 40GB and A30 (NVIDIA go-nvml mocks,
 *    pkg/nvml/mock/shared/gpus). H100 PCIe: the H100 80GB table with 114 SMs for 7g
 *    (derived). The A30 ids (14, 21, 5, 6, 0) are not verified against hardware.
 * B200 and other Blackwell parts are not here: the device database lists no profiles for
 * them, so a simulated B200 offers none.
 */
#include "mig_rules.h"

#include <string.h>

#define S7 {0, 1, 2, 3, 4, 5, 6}, 7
#define S4x2 {0, 2, 4, 6}, 4
#define S3x2 {0, 2, 4}, 3
#define S2x4 {0, 4}, 2
#define S0 {0}, 1

/* name, id, slices, memory slices, placements, max instances, SMs, MiB */
static const struct axl__mig_profile a100_40[] = {
	{"1g.5gb", 19, 1, 1, S7, 7, 14, 4864},     {"1g.5gb+me", 20, 1, 1, S7, 1, 14, 4864},
	{"1g.10gb", 15, 1, 2, S4x2, 4, 14, 9856},  {"2g.10gb", 14, 2, 2, S3x2, 3, 28, 9856},
	{"3g.20gb", 9, 3, 4, S2x4, 2, 42, 19968},  {"4g.20gb", 5, 4, 4, S0, 1, 56, 19968},
	{"7g.40gb", 0, 7, 8, S0, 1, 98, 40192},
};
static const struct axl__mig_profile a100_80[] = {
	{"1g.10gb", 19, 1, 1, S7, 7, 14, 9856},    {"1g.10gb+me", 20, 1, 1, S7, 1, 14, 9856},
	{"1g.20gb", 15, 1, 2, S4x2, 4, 14, 19968}, {"2g.20gb", 14, 2, 2, S3x2, 3, 28, 19968},
	{"3g.40gb", 9, 3, 4, S2x4, 2, 42, 40192},  {"4g.40gb", 5, 4, 4, S0, 1, 56, 40192},
	{"7g.80gb", 0, 7, 8, S0, 1, 98, 80384},
};
static const struct axl__mig_profile a30[] = {
	{"1g.6gb", 14, 1, 1, {0, 1, 2, 3}, 4, 4, 14, 5836},
	{"1g.6gb+me", 21, 1, 1, {0, 1, 2, 3}, 4, 1, 14, 5836},
	{"2g.12gb", 5, 2, 2, {0, 2}, 2, 2, 28, 11672},
	{"2g.12gb+me", 6, 2, 2, {0, 2}, 2, 1, 28, 11672},
	{"4g.24gb", 0, 4, 4, S0, 1, 56, 23344},
};
static const struct axl__mig_profile h100[] = {
	{"1g.10gb", 19, 1, 1, S7, 7, 16, 9984},    {"1g.10gb+me", 20, 1, 1, S7, 1, 16, 9984},
	{"1g.20gb", 15, 1, 2, S4x2, 4, 26, 20096}, {"2g.20gb", 14, 2, 2, S3x2, 3, 32, 20096},
	{"3g.40gb", 9, 3, 4, S2x4, 2, 60, 40448},  {"4g.40gb", 5, 4, 4, S0, 1, 64, 40448},
	{"7g.80gb", 0, 7, 8, S0, 1, 132, 81152},
};
static const struct axl__mig_profile h100_pcie[] = {
	{"1g.10gb", 19, 1, 1, S7, 7, 16, 9984},    {"1g.10gb+me", 20, 1, 1, S7, 1, 16, 9984},
	{"1g.20gb", 15, 1, 2, S4x2, 4, 26, 20096}, {"2g.20gb", 14, 2, 2, S3x2, 3, 32, 20096},
	{"3g.40gb", 9, 3, 4, S2x4, 2, 60, 40448},  {"4g.40gb", 5, 4, 4, S0, 1, 64, 40448},
	{"7g.80gb", 0, 7, 8, S0, 1, 114, 81152},
};
static const struct axl__mig_profile h100_nvl[] = {
	{"1g.12gb", 19, 1, 1, S7, 7, 16, 11008},   {"1g.12gb+me", 20, 1, 1, S7, 1, 16, 11008},
	{"1g.24gb", 15, 1, 2, S4x2, 4, 26, 22144}, {"2g.24gb", 14, 2, 2, S3x2, 3, 32, 22144},
	{"3g.47gb", 9, 3, 4, S2x4, 2, 60, 47488},  {"4g.47gb", 5, 4, 4, S0, 1, 64, 47488},
	{"7g.94gb", 0, 7, 8, S0, 1, 132, 95232},
};
static const struct axl__mig_profile h200[] = {
	{"1g.18gb", 19, 1, 1, S7, 7, 16, 16384},   {"1g.18gb+me", 20, 1, 1, S7, 1, 16, 16384},
	{"1g.35gb", 15, 1, 2, S4x2, 4, 26, 33024}, {"2g.35gb", 14, 2, 2, S3x2, 3, 32, 33024},
	{"3g.71gb", 9, 3, 4, S2x4, 2, 60, 71168},  {"4g.71gb", 5, 4, 4, S0, 1, 64, 71168},
	{"7g.141gb", 0, 7, 8, S0, 1, 132, 143104},
};

#define N(a) (sizeof a / sizeof a[0])
static const struct axl__mig_gpu gpus[] = {
	{"A100 40GB", {"nvidia-a100-sxm4-40gb", "nvidia-a100-pcie-40gb", NULL}, 7, 8, a100_40, N(a100_40)},
	{"A100 80GB", {"nvidia-a100-sxm4-80gb", "nvidia-a100-pcie-80gb", NULL}, 7, 8, a100_80, N(a100_80)},
	{"A30", {"nvidia-a30", NULL}, 4, 4, a30, N(a30)},
	{"H100 80GB", {"nvidia-h100-sxm5-80gb", NULL}, 7, 8, h100, N(h100)},
	{"H100 PCIe", {"nvidia-h100-pcie", NULL}, 7, 8, h100_pcie, N(h100_pcie)},
	{"H100 NVL", {"nvidia-h100-nvl", NULL}, 7, 8, h100_nvl, N(h100_nvl)},
	{"H200 141GB", {"nvidia-h200-sxm-141gb", NULL}, 7, 8, h200, N(h200)},
};

const struct axl__mig_gpu *axl__mig_gpus(size_t *n)
{
	*n = N(gpus);
	return gpus;
}

const struct axl__mig_gpu *axl__mig_gpu_of(const char *db_key)
{
	if (!db_key)
		return NULL;
	for (size_t i = 0; i < N(gpus); i++)
		for (size_t k = 0; k < 4 && gpus[i].db_keys[k]; k++)
			if (strcmp(gpus[i].db_keys[k], db_key) == 0)
				return &gpus[i];
	return NULL;
}

const struct axl__mig_profile *axl__mig_profile(const struct axl__mig_gpu *g, const char *name)
{
	for (size_t i = 0; g && name && i < g->nprofiles; i++)
		if (strcmp(g->profiles[i].name, name) == 0)
			return &g->profiles[i];
	return NULL;
}

int axl__mig_place(const struct axl__mig_gpu *g, const struct axl__mig_inst *used, size_t n,
		   const struct axl__mig_profile *p)
{
	if (!g || !p)
		return -1;
	int slices = 0, same = 0;
	unsigned char mem[16] = {0};
	for (size_t i = 0; i < n; i++) {
		if (!used[i].p)
			continue;
		slices += used[i].p->slices;
		same += used[i].p == p;
		for (int s = used[i].start; s >= 0 && s < used[i].start + used[i].p->mem_slices && s < 16; s++)
			mem[s] = 1;
	}
	if (slices + p->slices > g->slices || same >= p->max_instances)
		return -1;
	for (int k = p->nstarts - 1; k >= 0; k--) {
		int start = p->starts[k], ok = start + p->mem_slices <= g->mem_slices;
		for (int s = start; ok && s < start + p->mem_slices; s++)
			ok = !mem[s];
		if (ok)
			return start;
	}
	return -1;
}

int axl__mig_free(const struct axl__mig_gpu *g, const struct axl__mig_inst *used, size_t n,
		  const struct axl__mig_profile *p)
{
	struct axl__mig_inst all[32];
	if (!g || !p || n > 16)
		return 0;
	if (n)
		memcpy(all, used, n * sizeof *used);
	int k = 0;
	while (n < 32) {
		int start = axl__mig_place(g, all, n, p);
		if (start < 0)
			break;
		all[n].p = p;
		all[n++].start = start;
		k++;
	}
	return k;
}
