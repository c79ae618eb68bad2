/* SPDX-License-Identifier: MIT */
/* TEMPORARY (h-plannode only): stand-ins for plan.c's symbols so that the CLI links
 * before plan.c is merged. Removed again before the branch's last commit. */
#include "internal.h"
#include "plan.h"
#include <stdlib.h>
#include <string.h>

AXL_API int axl_model_open(axl_model **out, const char *name_or_path)
{
	if (out)
		*out = NULL;
	if (!out || !name_or_path || strcmp(name_or_path, "stub") != 0)
		return axl__error(AXL_ENOTSUP, "plan.c is not merged yet");
	*out = calloc(1, sizeof **out);
	return *out ? 0 : AXL_ENOMEM;
}
AXL_API void axl_model_free(axl_model *model) { free(model); }
AXL_API int axl_model_get_info(const axl_model *model, struct axl_model_info *info)
{
	(void)model;
	(void)info;
	return axl__error(AXL_ENOTSUP, "plan.c is not merged yet");
}
AXL_API size_t axl_model_catalog_count(void) { return 0; }
AXL_API const char *axl_model_catalog_id(size_t i) { (void)i; return NULL; }
AXL_API const char *axl_model_catalog_alias(size_t i) { (void)i; return NULL; }
AXL_API int axl_plan_compute(axl_plan **out, const axl_planner *planner, const axl_model *model,
			     const struct axl_plan_request *req)
{
	(void)model; (void)req;
	if (out)
		*out = NULL;
	size_t first = planner->nnodes ? planner->nodes[planner->nnodes - 1].first : 0;
	return axl__error(AXL_ENOTSUP, "stub: %zu devices, %zu nodes, last node %s from %zu", planner->ndevs,
			  planner->nnodes, planner->nnodes ? planner->nodes[planner->nnodes - 1].name : "-", first);
}
AXL_API void axl_plan_free(axl_plan *plan) { (void)plan; }
AXL_API int axl_plan_get_summary(const axl_plan *plan, struct axl_plan_summary *out)
{
	(void)plan; (void)out;
	return axl__error(AXL_ENOTSUP, "plan.c is not merged yet");
}
AXL_API int axl_plan_json(const axl_plan *plan, char **out, size_t *len)
{
	(void)plan; (void)out; (void)len;
	return axl__error(AXL_ENOTSUP, "plan.c is not merged yet");
}
AXL_API int axl_plan_text(const axl_plan *plan, char **out, size_t *len)
{
	(void)plan; (void)out; (void)len;
	return axl__error(AXL_ENOTSUP, "plan.c is not merged yet");
}
