/* SPDX-License-Identifier: MIT */
/* What the planner optimises (docs/plan.md "Objective"): the order in which the
 * search ranks candidates for each objective, and a candidate's cost per million tokens. */
#include <math.h>
#include <stddef.h>
#include <strings.h>

#include "plan_impl.h"

static const struct {
	const char *name;
	const char *rule;
} objectives[] = {
	[AXL__OBJ_DEVICES] = {"devices", "the fewest devices that fit, then the fastest decode"},
	[AXL__OBJ_LATENCY] = {"latency", "the fastest decode of one sequence alone, then the fewest devices"},
	[AXL__OBJ_THROUGHPUT] = {"throughput", "the highest decode throughput for the batch, then the fewest devices"},
	[AXL__OBJ_COST] = {"cost", "the lowest cost per million decoded tokens, then the fewest devices"},
};

int axl__pobj_parse(const char *name)
{
	for (int i = 0; name && i < (int)(sizeof objectives / sizeof objectives[0]); i++)
		if (strcasecmp(name, objectives[i].name) == 0)
			return i;
	return -1;
}

const char *axl__pobj_name(enum axl__pobj o)
{
	return objectives[o].name;
}

const char *axl__pobj_rule(enum axl__pobj o)
{
	return objectives[o].rule;
}

double axl__cost_per_mtok(double cost_hour, double tokens_per_s)
{
	if (!(cost_hour >= 0) || !isfinite(cost_hour) || !(tokens_per_s > 0) || !isfinite(tokens_per_s))
		return NAN;
	return cost_hour / (tokens_per_s * 3600.0) * 1e6;
}

/* 1: a higher, -1: b higher, 0: both unknown or within 0.01% */
static int higher(double a, double b)
{
	bool ka = isfinite(a), kb = isfinite(b);
	if (ka != kb)
		return ka ? 1 : -1;
	if (!ka || (a <= b * 1.0001 && a >= b * 0.9999))
		return 0;
	return a > b ? 1 : -1;
}

static int devices(const struct pcand *c)
{
	return c->tp * c->pp * c->dp;
}

/* a better than b, by a's objective (both were ranked by the same one) */
bool axl__pcand_better(const struct pcand *a, const struct pcand *b)
{
	if (a->fits != b->fits)
		return a->fits;
	if (!a->fits)
		return a->shortfall < b->shortfall;
	int h = 0;
	switch (a->obj) {
	case AXL__OBJ_DEVICES:
		break;
	case AXL__OBJ_LATENCY:
		h = higher(a->decode_single, b->decode_single);
		break;
	case AXL__OBJ_THROUGHPUT:
		h = higher(a->decode, b->decode);
		break;
	case AXL__OBJ_COST:
		/* lower cost is higher tokens per unit of money */
		h = higher(1.0 / axl__cost_per_mtok(a->cost_hour, a->decode),
			   1.0 / axl__cost_per_mtok(b->cost_hour, b->decode));
		break;
	}
	if (h)
		return h > 0;
	if (devices(a) != devices(b))
		return devices(a) < devices(b);
	if ((h = higher(a->decode, b->decode)) != 0)
		return h > 0;
	if ((h = higher(a->decode_single, b->decode_single)) != 0)
		return h > 0;
	return higher(a->prefill, b->prefill) > 0;
}

/* Keep the nalts best fitting candidates of distinct strategies, best first. */
void axl__pcand_keep(struct pcand *alts, int nalts, int *n, const struct pcand *c)
{
	if (!c->fits || nalts <= 0)
		return;
	for (int i = 0; i < *n; i++)
		if (alts[i].tp == c->tp && alts[i].pp == c->pp && alts[i].ep == c->ep) {
			if (axl__pcand_better(c, &alts[i]))
				alts[i] = *c;
			goto sort;
		}
	if (*n < nalts)
		alts[(*n)++] = *c;
	else if (axl__pcand_better(c, &alts[*n - 1]))
		alts[*n - 1] = *c;
	else
		return;
sort:
	for (int i = *n - 1; i > 0 && axl__pcand_better(&alts[i], &alts[i - 1]); i--) {
		struct pcand tmp = alts[i];
		alts[i] = alts[i - 1];
		alts[i - 1] = tmp;
	}
}
