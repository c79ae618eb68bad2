/* SPDX-License-Identifier: MIT */
/* The simulation spec parser (src/lib/sim.c) on arbitrary bytes: it must refuse with a
 * message naming the file and a line of the input, or accept a spec whose devices hold
 * together; an accepted spec is then taken as a node (inventory, two samples). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "internal.h"
#include "sample.h"
#include "sim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct axl__sim *sim = NULL;
	char err[1024];
	int rc = axl__sim_parse("fuzz.json", (const char *)data, size, &sim, err, sizeof err);
	if (rc) {
		if (sim || strncmp(err, "fuzz.json:", 10) != 0)
			abort();
		long line = strtol(err + 10, NULL, 10);
		long lines = 1;
		for (size_t i = 0; i < size; i++)
			lines += data[i] == '\n';
		if (line < 1 || line > lines || !strstr(err + 10, ": "))
			abort();
		return 0;
	}
	if (!sim || sim->n < 1 || sim->n > AXL__SIM_MAX_DEVICES || sim->numa_nodes < 1)
		abort();
	for (size_t i = 0; i < sim->n; i++) {
		const char *u = sim->devs[i].uuid;
		if (!sim->devs[i].db || !u[0] || strchr(u, ':') || strchr(u, ','))
			abort();
		for (size_t j = 0; j < i; j++)
			if (strcasecmp(sim->devs[j].uuid, u) == 0)
				abort();
		if (sim->devs[i].numa_node >= sim->numa_nodes)
			abort();
	}
	for (size_t l = 0; l < sim->nlinks; l++)
		if (sim->links[l].a < 0 || (size_t)sim->links[l].a >= sim->n || sim->links[l].b < 0 ||
		    (size_t)sim->links[l].b >= sim->n || sim->links[l].a == sim->links[l].b)
			abort();
	/* the node itself: never reads the system */
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	axl_context *ctx;
	if (axl_context_open(&ctx, &o)) {
		axl__sim_free(sim);
		return 0;
	}
	ctx->sim = sim;
	ctx->sim_backend = &axl__sim_backend;
	axl_inventory *inv;
	if (axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL) == 0) {
		/* no warning, but the one a spec of a later schema_version gets */
		size_t want_warnings = sim->newer_version ? 1 : 0;
		if (axl_inventory_device_count(inv) != sim->n + 1 || axl_inventory_warning_count(inv) != want_warnings)
			abort();
		axl_sampler *s;
		if (axl_sampler_open(&s, inv, AXL_SAMPLER_PROCESSES) == 0) {
			for (int k = 0; k < 2; k++) {
				axl_sample *smp;
				if (axl_sampler_sample(s, &smp) == 0) {
					double v;
					if (axl_sample_get(smp, 0, AXL_METRIC_UTILIZATION, &v, NULL) || v < 0 ||
					    v > 100)
						abort();
					axl_sample_free(smp);
				}
			}
			axl_sampler_free(s);
		}
		char *json = NULL;
		if (axl_inventory_json(inv, 0, &json, NULL) == 0)
			axl_free(json);
		axl_inventory_free(inv);
	}
	axl_context_free(ctx); /* frees sim */
	return 0;
}
