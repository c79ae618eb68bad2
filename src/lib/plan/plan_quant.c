/* SPDX-License-Identifier: MIT */
/* The format a plan is made in: --quant auto's steps down from bf16 to int4 on the devices
 * that run each natively (docs/plan.md "Choosing the format"), the warning for an explicit
 * format a device does not run natively, and what the devices planned on hold. plan_out.c
 * calls these from axl_plan_compute. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "axl/error.h"
#include "axl.h"
#include "util/error.h"
#include "model_catalog.h"
#include "plan_result.h"

/* What a device planned on holds for the model: the engine's fraction of its memory,
 * never more than is free (plan.c group_fill). */
double axl__plan_usable_bytes(const struct axl__pdev *d, double frac)
{
	double mem = (double)d->memory_bytes;
	if (frac < 1 && d->memory_total > 0 && (double)d->memory_total * frac < mem)
		mem = (double)d->memory_total * frac;
	return mem > 0 ? mem : 0;
}

/* "2 x NVIDIA H100 80GB HBM3 + 1 x AMD Instinct MI300X": the models of devs[set[0..n)] */
void axl__plan_describe_set(const struct axl_planner *p, const size_t *set, size_t n, char *out, size_t cap)
{
	const char *models[8];
	int counts[8], nm = 0, more = 0;
	for (size_t i = 0; i < n; i++) {
		const struct axl__pdev *d = &p->devs[set[i]];
		const char *model = d->model[0] ? d->model : d->id;
		int j = 0;
		while (j < nm && strcmp(models[j], model) != 0)
			j++;
		if (j == nm) {
			if (nm == 8) {
				more++;
				continue;
			}
			models[nm] = model;
			counts[nm++] = 0;
		}
		counts[j]++;
	}
	out[0] = 0;
	for (int j = 0; j < nm; j++) {
		size_t l = strlen(out);
		snprintf(out + l, cap - l, "%s%d x %s", j ? " + " : "", counts[j], models[j]);
	}
	if (more) {
		size_t l = strlen(out);
		snprintf(out + l, cap - l, " + %d more", more);
	}
}

/* The order --quant auto steps down in: the best quality first. fp16 serves devices that
 * run fp16 but not bf16 natively (it is tried only where it adds devices). */
static const char *const auto_order[] = {"bf16", "fp16", "fp8", "int8", "int4"};

/* Whether a device runs the weights of q natively, as its inventory's precision rows say:
 * 1 native; 0 not (a row says emulated or none, or the device lists its precisions and
 * not this one); -1 not known (the inventory has no precision rows for it). int4 is
 * weight-only: dequantised into 16-bit matmuls, so a native 16-bit format serves it. */
static int runs_native(const struct axl__pdev *d, const struct axl__quant *q)
{
	if (!d->has_precision)
		return -1;
	if (strcmp(q->name, "int4") == 0)
		return d->support[AXL__PF_INT4] == AXL_SUPPORT_NATIVE ||
		       d->support[AXL__PF_BF16] == AXL_SUPPORT_NATIVE || d->support[AXL__PF_FP16] == AXL_SUPPORT_NATIVE;
	return d->support[q->compute] == AXL_SUPPORT_NATIVE;
}

/* "NVIDIA A100-SXM4-80GB: not listed; ...": what the devices of sel that do not run q
 * natively say of it, one entry per model */
static void not_native_list(const struct axl_planner *p, const size_t *sel, size_t nsel, const struct axl__quant *q,
			    char *out, size_t cap)
{
	out[0] = 0;
	for (size_t i = 0; i < nsel; i++) {
		const struct axl__pdev *d = &p->devs[sel[i]];
		if (runs_native(d, q) == 1)
			continue;
		const char *model = d->model[0] ? d->model : d->id;
		bool seen = false;
		for (size_t j = 0; j < i && !seen; j++)
			seen =
			    runs_native(&p->devs[sel[j]], q) != 1 &&
			    strcmp(p->devs[sel[j]].model[0] ? p->devs[sel[j]].model : p->devs[sel[j]].id, model) == 0;
		if (seen)
			continue;
		const char *why = !d->has_precision ? "no precision rows"
				  : d->support[q->compute] == AXL_SUPPORT_EMULATED ? "emulated"
				  : d->support[q->compute] == AXL_SUPPORT_NONE	   ? "none"
										   : "not listed as native";
		size_t l = strlen(out);
		snprintf(out + l, cap - l, "%s%s: %s", l ? "; " : "", model, why);
	}
}

/* An explicit format (not auto) that a device of the plan does not run natively, as its
 * precision rows say: one warning per device model, naming its first device, how many
 * more, and what it runs natively. Not known (no precision rows) is not "not native". */
void axl__plan_warn_not_native(struct axl_plan *pl, const struct axl_planner *p, const size_t *used, size_t nused)
{
	static const char *const fmt_names[AXL__PF__COUNT] = {"fp32", "tf32", "bf16", "fp16", "fp8", "int8", "int4"};
	for (size_t i = 0; i < nused && pl->nwarn < MAXWARN; i++) {
		const struct axl__pdev *d = &p->devs[used[i]];
		if (runs_native(d, &pl->q) != 0)
			continue;
		const char *model = d->model[0] ? d->model : d->id;
		bool seen = false;
		int more = 0;
		for (size_t j = 0; j < nused; j++) {
			const struct axl__pdev *e = &p->devs[used[j]];
			if (j == i || runs_native(e, &pl->q) != 0 || strcmp(e->model[0] ? e->model : e->id, model) != 0)
				continue;
			if (j < i)
				seen = true;
			else
				more++;
		}
		if (seen)
			continue;
		char natives[96] = "";
		for (int f = 0; f < AXL__PF__COUNT; f++)
			if (d->support[f] == AXL_SUPPORT_NATIVE) {
				size_t l = strlen(natives);
				snprintf(natives + l, sizeof natives - l, "%s%s", l ? ", " : "", fmt_names[f]);
			}
		char how[48] = "";
		if (strcmp(pl->q.name, fmt_names[pl->q.compute]) != 0 && strcmp(pl->q.name, "int4") != 0)
			snprintf(how, sizeof how, " (its matmuls in %s)", fmt_names[pl->q.compute]);
		char many[32] = "";
		if (more)
			snprintf(many, sizeof many, " and %d more", more);
		const char *label = used[i] < pl->nlabel ? pl->label[used[i]] : d->id;
		if (natives[0])
			snprintf(pl->warn[pl->nwarn++], sizeof pl->warn[0],
				 "%s%s is not native on %s%s (%s), which %s %s natively", pl->q.name, how, label, many,
				 model, more ? "run" : "runs", natives);
		else
			snprintf(pl->warn[pl->nwarn++], sizeof pl->warn[0],
				 "%s%s is not native on %s%s (%s), whose precision rows name no native format",
				 pl->q.name, how, label, many, model);
	}
}

static struct pqtry *qtry_add(struct axl_plan *pl, const char *quant, const char *result)
{
	if (pl->nqtry >= MAXQTRY)
		return NULL;
	struct pqtry *t = &pl->qtry[pl->nqtry++];
	memset(t, 0, sizeof *t);
	snprintf(t->quant, sizeof t->quant, "%s", quant);
	snprintf(t->result, sizeof t->result, "%s", result);
	return t;
}

static void gbs(char *out, size_t cap, double bytes)
{
	if (bytes >= 1e9)
		snprintf(out, cap, "%.1f GB", bytes / 1e9);
	else
		snprintf(out, cap, "%.0f MB", bytes / 1e6);
}

/* --quant auto (docs/plan.md "Choosing the format"): bf16, then fp16, fp8, int8, int4,
 * each planned on the selected devices that run it natively as their inventory says, until
 * one fits; never more bits than the model is published in (DeepSeek V3's fp8). When none
 * fits natively and some devices have no precision rows (not known, not "none native"),
 * bf16, int8 and int4 are tried again with those devices too (fp8 only where native).
 * Nothing fits: the format that came closest, on its devices. Sets pl->q, the reason and
 * pl->qtry, and the devices to plan on in sub[0..*nsub); -1 on allocation failure. */
int axl__plan_choose_auto(struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
		       const struct axl__model *m, double kvb, double net, const struct pgoal *goal, size_t *sub,
		       size_t *nsub)
{
	struct axl__quant own;
	axl__quant_default(m, &own);
	struct pcand *c = malloc(sizeof *c);
	size_t *set = malloc((nsel ? nsel : 1) * sizeof *set), *bf16set = malloc((nsel ? nsel : 1) * sizeof *bf16set);
	if (!c || !set || !bf16set) {
		free(c), free(set), free(bf16set);
		return -1;
	}
	size_t nbf16 = 0;
	bool unknown = false;
	for (size_t k = 0; k < nsel; k++)
		unknown |= !p->devs[sel[k]].has_precision;
	/* the closest attempt, for when nothing fits */
	struct axl__quant closest_q = own;
	double closest_short = INFINITY;
	size_t nclosest = 0;
	char refused[320] = "", what[160], num[32];
	bool done = false;
	for (int pass = 0; pass < 2 && !done; pass++) {
		if (pass == 1 && !unknown)
			break;
		for (size_t i = 0; i < sizeof auto_order / sizeof auto_order[0] && !done; i++) {
			struct axl__quant q;
			if (axl__quant_parse(auto_order[i], &q) != 0)
				continue;
			/* the second pass: the formats that need no native row to be assumed */
			if (pass == 1 && (q.compute == AXL__PF_FP8 || strcmp(q.name, "fp16") == 0))
				continue;
			struct pqtry *t;
			if (q.body_bits > own.body_bits + 1e-9) {
				if (pass == 0 && (t = qtry_add(pl, q.name, "skipped")))
					snprintf(t->detail, sizeof t->detail,
						 "more bits than the model is published in (%s)", own.name);
				continue;
			}
			size_t n = 0;
			for (size_t k = 0; k < nsel; k++) {
				int nat = runs_native(&p->devs[sel[k]], &q);
				if (nat == 1 || (pass == 1 && nat < 0))
					set[n++] = sel[k];
			}
			if (pass == 0 && strcmp(q.name, "bf16") == 0) {
				memcpy(bf16set, set, n * sizeof *set);
				nbf16 = n;
			}
			if (pass == 0 && strcmp(q.name, "fp16") == 0) {
				/* only where it adds devices bf16 does not run */
				bool adds = false;
				for (size_t k = 0; k < n && !adds; k++) {
					bool in = false;
					for (size_t j = 0; j < nbf16 && !in; j++)
						in = bf16set[j] == set[k];
					adds = !in;
				}
				if (!adds)
					continue;
			}
			if (n == 0) {
				/* said only where some device's precisions are known: "not known" is no
				 * refusal (the second pass tries those devices) */
				bool known = false;
				for (size_t k = 0; k < nsel && !known; k++)
					known = p->devs[sel[k]].has_precision;
				if (pass == 0 && known && (t = qtry_add(pl, q.name, "not native"))) {
					char why[180];
					not_native_list(p, sel, nsel, &q, why, sizeof why);
					snprintf(t->detail, sizeof t->detail, "not native on any device%s (%s)",
						 unknown ? " whose precisions are known" : "", why);
					size_t l = strlen(refused);
					snprintf(refused + l, sizeof refused - l, "%s%s is not native on any device%s",
						 l ? "; " : "", q.name, unknown ? " whose precisions are known" : "");
				}
				continue;
			}
			axl__plan_describe_set(p, set, n, what, sizeof what);
			int rc = axl__plan_run(pl, p, set, n, m, &q, kvb, pl->ctx, pl->batch, net, goal, c, NULL, 0,
					       NULL, NULL);
			t = qtry_add(pl, q.name, rc == 1 && c->fits ? "fits" : "short");
			if (rc == 1 && c->fits) {
				pl->q = q;
				memcpy(sub, set, n * sizeof *set);
				*nsub = n;
				/* the devices the plan uses (the same search runs again on sub) */
				size_t nused = 0;
				for (int r = 0; r < c->dp && r < MAXDP; r++)
					for (int st = 0; st < c->pp; st++)
						for (int d = 0; d < c->tp && nused < n; d++)
							set[nused++] = c->devs[r][st][d];
				axl__plan_describe_set(p, set, nused, what, sizeof what);
				if (c->dp > MAXDP) {
					size_t l = strlen(what);
					snprintf(what + l, sizeof what - l, ", %d replicas", c->dp);
				}
				if (t) {
					t->devices = n;
					snprintf(t->detail, sizeof t->detail, "fits on the devices that run it %s (%s)",
						 pass ? "or whose precisions are not known" : "natively", what);
				}
				char unk[160] = "";
				if (pass == 1) {
					size_t nu = 0;
					for (size_t k = 0; k < nused; k++)
						if (!p->devs[set[k]].has_precision)
							set[nu++] = set[k];
					axl__plan_describe_set(p, set, nu, unk, sizeof unk);
				}
				if (pass == 0)
					snprintf(pl->quant_reason, sizeof pl->quant_reason,
						 "auto: %s, the best-quality format that runs natively on the devices "
						 "the plan "
						 "uses (%s) and fits%s%s%s",
						 q.name, what, refused[0] ? " (" : "", refused, refused[0] ? ")" : "");
				else
					snprintf(
					    pl->quant_reason, sizeof pl->quant_reason,
					    "auto: %s, the best-quality format that fits on the devices the plan uses "
					    "(%s); "
					    "the inventory lists no precisions for %s, so %s is assumed to run there "
					    "(fp8 is planned only where native%s%s)",
					    q.name, what, unk, q.name, refused[0] ? "; " : "", refused);
				done = true;
				break;
			}
			double sh = rc == 1 ? c->shortfall : INFINITY;
			if (t) {
				t->devices = n;
				t->short_bytes = isfinite(sh) ? sh : 0;
				if (isfinite(sh)) {
					gbs(num, sizeof num, sh);
					snprintf(t->detail, sizeof t->detail,
						 "%s short on the devices that run it %s (%s)", num,
						 pass ? "or whose precisions are not known" : "natively", what);
				} else {
					snprintf(t->detail, sizeof t->detail,
						 "no split over the devices that run it %s (%s)",
						 pass ? "or whose precisions are not known" : "natively", what);
				}
			}
			size_t l = strlen(refused);
			if (isfinite(sh))
				snprintf(refused + l, sizeof refused - l, "%s%s does not fit: %s short", l ? "; " : "",
					 q.name, num);
			else
				snprintf(refused + l, sizeof refused - l, "%s%s does not fit", l ? "; " : "", q.name);
			if (sh < closest_short || nclosest == 0) {
				closest_short = sh;
				closest_q = q;
				memcpy(sub + 0, set, n * sizeof *set);
				nclosest = n;
			}
		}
	}
	if (!done) {
		if (nclosest) {
			pl->q = closest_q;
			*nsub = nclosest;
			axl__plan_describe_set(p, sub, nclosest, what, sizeof what);
			snprintf(pl->quant_reason, sizeof pl->quant_reason,
				 "auto: no format fits; %s on %s comes closest (%s)", closest_q.name, what, refused);
		} else {
			/* no device runs any of them natively and none is unknown: the model's own
			 * format on every selected device, said so */
			axl__quant_parse(own.from_file ? "bf16" : own.name, &pl->q);
			memcpy(sub, sel, nsel * sizeof *sel);
			*nsub = nsel;
			snprintf(
			    pl->quant_reason, sizeof pl->quant_reason,
			    "auto: the devices run none of bf16, fp16, fp8, int8, int4 natively (%s); planned with %s",
			    refused, pl->q.name);
		}
	}
	free(c), free(set), free(bf16set);
	return 0;
}
