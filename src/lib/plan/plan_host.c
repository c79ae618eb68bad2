/* SPDX-License-Identifier: MIT */
/* The host as a device (docs/plan.md "CPU plans"): a node's CPUs and memory,
 * planned on as llama.cpp runs a model on a CPU: its memory is the host's (the cgroup
 * limit when lower), its bandwidth the SMBIOS memory devices' peak when the node reports
 * it, else an assumption by the CPU's class that the plan flags, and its peak compute
 * the cores times what the widest vector or matrix unit the CPU reports does per cycle,
 * at an assumed clock. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "axl.h"
#include "plan.h"

/* Assumptions (docs/plan.md "CPU plans"). */
#define HOST_GHZ 2.0            /* a sustained all-core clock; none is reported */
#define DDR_CHANNEL_GBPS 25.6   /* one DDR4-3200 channel: 3200 MT/s x 8 bytes */
#define SERVER_CHANNELS 8       /* per socket of a server CPU (16 cores or more a socket) */
#define CLIENT_CHANNELS 2       /* a desktop or laptop CPU */

static bool has(const struct axl__hostfacts *h, const char *name)
{
	for (size_t i = 0; i < h->nisa; i++)
		if (h->isa[i] && strcmp(h->isa[i], name) == 0)
			return true;
	return false;
}

int axl__host_pdev(const struct axl__hostfacts *h, struct axl__pdev *d)
{
	memset(d, 0, sizeof *d);
	d->family = AXL_FAMILY_CPU;
	d->host = true;
	d->pcie_gbps = -1;
	d->numa_node = -1;
	for (int i = 0; i < AXL__PF__COUNT; i++)
		d->tflops[i] = -1;
	int64_t mem = h->mem_total;
	if (h->mem_limit > 0 && (mem <= 0 || h->mem_limit < mem))
		mem = h->mem_limit;
	if (mem <= 0)
		return -1;
	snprintf(d->id, sizeof d->id, "cpu");
	snprintf(d->model, sizeof d->model, "%s", h->model && *h->model ? h->model : "host CPU");
	d->memory_bytes = d->memory_total = mem;
	size_t n = 0;
	int64_t sockets = h->sockets > 0 ? h->sockets : 1;
	if (h->mem_bw > 0) {
		d->bandwidth_gbps = (double)h->mem_bw / 1e9;
	} else {
		bool server = h->cores > 0 && h->cores / sockets >= 16;
		int ch = server ? SERVER_CHANNELS : CLIENT_CHANNELS;
		d->bandwidth_gbps = (double)sockets * ch * DDR_CHANNEL_GBPS;
		n += (size_t)snprintf(d->assumed + n, sizeof d->assumed - n,
				      "memory bandwidth assumed %.1f GB/s (%lld x %d channels of DDR4-3200; the SMBIOS "
				      "memory table was not read)",
				      d->bandwidth_gbps, (long long)sockets, ch);
	}
	if (h->cores > 0) {
		/* FLOPs per cycle per core: two FMA pipes of the widest vector (x 2 for the
		 * multiply-add); AMX tiles for bf16 and int8 */
		double f32 = has(h, "avx512f") ? 64 : has(h, "avx2") && has(h, "fma") ? 32 : has(h, "asimd") ? 16 : 8;
		double b16 = has(h, "amx_bf16") ? 1024 : has(h, "avx512_bf16") ? 2 * f32 : f32;
		double i8 = has(h, "amx_int8") ? 2048
			    : has(h, "avx512_vnni") || has(h, "avx_vnni") || has(h, "asimddp") ? 4 * f32 : 2 * f32;
		double f16 = has(h, "amx_fp16") ? 1024 : has(h, "avx512_fp16") ? 2 * f32 : f32;
		double k = (double)h->cores * HOST_GHZ * 1e9 / 1e12;
		d->tflops[AXL__PF_FP32] = f32 * k;
		d->tflops[AXL__PF_BF16] = b16 * k;
		d->tflops[AXL__PF_FP16] = f16 * k;
		d->tflops[AXL__PF_INT8] = i8 * k;
		if (n < sizeof d->assumed)
			n += (size_t)snprintf(d->assumed + n, sizeof d->assumed - n,
					      "%speak compute assumed at %.1f GHz on %lld cores", n ? "; " : "",
					      HOST_GHZ, (long long)h->cores);
	}
	return 0;
}
