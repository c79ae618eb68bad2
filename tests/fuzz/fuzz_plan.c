/* SPDX-License-Identifier: MIT */
/* The planner on arbitrary node documents: axl_planner_add_json accepts an
 * axl.inventory or refuses it with a message, and what it refuses goes to
 * axl_planner_add_hwaccel_json, ai-hwaccel's registry reader, which accepts or refuses it
 * the same way; an accepted node is planned for a dense
 * model and a MoE model with a request drawn from the input, and every answer keeps the
 * rules: a plan that fits has no shortfall, one that does not has one, and the JSON and
 * text are produced. Never a crash, a hang or a giant allocation. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "axl/plan.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	axl_planner *p = NULL;
	if (axl_planner_new(&p) != 0)
		abort();
	if (axl_planner_add_json(p, (const char *)data, size, "fuzz") != 0) {
		if (!axl_error_last() || !axl_error_last()[0])
			abort();
		axl_planner_free(p);
		p = NULL;
		if (axl_planner_new(&p) != 0)
			abort();
		if (axl_planner_add_hwaccel_json(p, (const char *)data, size, "fuzz") != 0) {
			if (!axl_error_last() || !axl_error_last()[0])
				abort();
			axl_planner_free(p);
			return 0;
		}
	}
	static const char *const models[] = {"llama3.2-1b", "qwen3-30b-a3b"};
	static const char *const quants[] = {"bf16", "int4", "q4_k_m"};
	uint32_t h = 2166136261u;
	for (size_t i = 0; i < size; i++)
		h = (h ^ data[i]) * 16777619u;
	for (size_t i = 0; i < 2; i++) {
		axl_model *m = NULL;
		if (axl_model_open(&m, models[i]) != 0)
			abort();
		struct axl_plan_request r = {.version = AXL_PLAN_REQUEST_VERSION,
					     .quantization = quants[h % 3],
					     .context_tokens = 1 + (int64_t)(h % 40000),
					     .batch = 1 + (int64_t)((h >> 8) % 16)};
		axl_plan *pl = NULL;
		int rc = axl_plan_compute(&pl, p, m, &r);
		if (rc == 0) {
			struct axl_plan_summary s;
			if (axl_plan_get_summary(pl, &s) != 0)
				abort();
			if ((s.fits && s.shortfall_bytes != 0) || (!s.fits && s.shortfall_bytes <= 0))
				abort();
			char *a = NULL, *b = NULL;
			size_t la, lb;
			if (axl_plan_json(pl, &a, &la) != 0 || axl_plan_text(pl, &b, &lb) != 0 || !la || !lb)
				abort();
			free(a);
			free(b);
			axl_plan_free(pl);
		} else if (!axl_error_last() || !axl_error_last()[0]) {
			abort();
		}
		axl_model_free(m);
	}
	axl_planner_free(p);
	return 0;
}
