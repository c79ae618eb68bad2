/* SPDX-License-Identifier: MIT */
/* The readable answer `axl plan` prints: the model, the request and its
 * objective and engine, memory, the split, the estimates with their bands and cost, and the
 * alternatives. */
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
#include "util/strbuf.h"

const char *axl__plan_link_name(enum axl__plink k)
{
	switch (k) {
	case AXL__PL_FABRIC:
		return "fabric";
	case AXL__PL_ICI:
		return "ici";
	case AXL__PL_ROCE:
		return "roce";
	case AXL__PL_BOARD:
		return "board";
	case AXL__PL_PCIE:
		return "pcie";
	case AXL__PL_SYSTEM:
		return "system";
	default:
		return "unknown";
	}
}

const char *axl__plan_quant_label(const struct axl_plan *pl)
{
	return pl->q.from_file ? (pl->model.dtype_name[0] ? pl->model.dtype_name : "file") : pl->q.name;
}

int axl__plan_cheaper_alt(const struct axl_plan *pl)
{
	if (pl->obj != AXL__OBJ_COST || !pl->fits || !pl->price_basis[0])
		return -1;
	double mine = axl__cost_per_mtok(pl->best.cost_hour, pl->best.decode);
	int best = -1;
	double bc = isfinite(mine) ? mine : INFINITY;
	for (int i = 0; i < pl->nalt; i++) {
		const struct palt *a = &pl->alt[i];
		double c = axl__cost_per_mtok(a->cost_hour, a->decode);
		if (strcmp(a->kind, "quantization") == 0 && a->fits && isfinite(c) && c < bc) {
			bc = c;
			best = i;
		}
	}
	return best;
}

/* ---- the readable answer ------------------------------------------------------------ */

static void gb(struct axl__sb *sb, double bytes)
{
	if (!isfinite(bytes))
		axl__sb_puts(sb, "?");
	else if (bytes >= 1e9)
		axl__sb_printf(sb, "%.1f GB", bytes / 1e9);
	else
		axl__sb_printf(sb, "%.0f MB", bytes / 1e6);
}

static void rate(struct axl__sb *sb, double v)
{
	if (!isfinite(v))
		axl__sb_puts(sb, "unknown");
	else if (v >= 100)
		axl__sb_printf(sb, "%.0f tok/s", v);
	else
		axl__sb_printf(sb, "%.1f tok/s", v);
}

/* " (word LOW to HIGH)", nothing when the band is unknown */
static void band_text(struct axl__sb *sb, const char *word, const double band[2])
{
	if (!isfinite(band[0]))
		return;
	axl__sb_printf(sb, " (%s ", word);
	rate(sb, band[0]);
	axl__sb_puts(sb, " to ");
	rate(sb, band[1]);
	axl__sb_putc(sb, ')');
}

static void strat(struct axl__sb *sb, int tp, int pp, int dp, int ep)
{
	axl__sb_printf(sb, "tp %d x pp %d", tp, pp);
	if (dp > 1)
		axl__sb_printf(sb, " x dp %d", dp);
	if (ep > 1)
		axl__sb_printf(sb, ", ep %d", ep);
}

int axl_plan_text(const axl_plan *pl, char **out, size_t *len)
{
	if (!pl || !out)
		return axl__error(AXL_EINVAL, "axl_plan_text: NULL argument");
	const struct axl__model *m = &pl->model.m;
	struct axl__sb sb = {0};
	if (m->source == AXL__MSRC_CATALOG && m->catalog_id[0] && strcasecmp(m->catalog_id, m->id) != 0)
	{
		const struct axl__catalog_entry *e = axl__catalog_find(m->catalog_id);
		axl__sb_printf(&sb, "Model         %s (catalog entry %s, the same architecture", m->id, m->catalog_id);
		if (e && e->max_context != m->max_context)
			axl__sb_printf(&sb, "; its own max context, %d tokens", m->max_context);
		axl__sb_putc(&sb, ')');
	}
	else
		axl__sb_printf(&sb, "Model         %s (%s)", m->id, pl->model.source_name);
	if (m->params > 0)
		axl__sb_printf(&sb, ": %.2f B parameters", (double)m->params / 1e9);
	if (m->experts > 0 && m->active_params > 0)
		axl__sb_printf(&sb, ", %.2f B active (%d of %d experts)", (double)m->active_params / 1e9,
			       m->experts_per_token, m->experts);
	if (m->layers > 0)
		axl__sb_printf(&sb, ", %d layers", m->layers);
	axl__sb_putc(&sb, '\n');
	if (pl->model.assumption[0])
		axl__sb_printf(&sb, "Assumed       %s\n", pl->model.assumption);
	axl__sb_printf(&sb, "Request       %s weights, context %lld tokens, batch %lld, KV cache %s\n",
		       axl__plan_quant_label(pl), (long long)pl->ctx, (long long)pl->batch, pl->kv);
	if (pl->quant_reason[0])
		axl__sb_printf(&sb, "Quantization  %s\n", pl->quant_reason);
	for (int i = 0; i < pl->nqtry; i++)
		if (strcmp(pl->qtry[i].result, "fits") != 0)
			axl__sb_printf(&sb, "              %-5s %s: %s\n", pl->qtry[i].quant, pl->qtry[i].result,
				       pl->qtry[i].detail);
	axl__sb_printf(&sb, "Engine        %s, %s (%s); %.0f%% of each device's memory (%s)\n", pl->eng->name,
		       pl->eng->rows > 0 ? "calibrated" : "NOT calibrated", pl->eng->basis, pl->frac * 100,
		       pl->frac_given ? "as given" : pl->eng->fraction_source);
	axl__sb_printf(&sb, "Objective     %s%s: %s\n", axl__pobj_name(pl->obj),
		       pl->obj_default ? " (the default)" : "", axl__pobj_rule(pl->obj));
	axl__sb_puts(&sb, "Memory        weights ");
	gb(&sb, pl->weights);
	axl__sb_puts(&sb, ", KV cache ");
	gb(&sb, pl->kv_cache);
	axl__sb_printf(&sb, " (%.0f bytes/token)", pl->kv_token);
	if (pl->have) {
		axl__sb_puts(&sb, ", activations ");
		gb(&sb, pl->act);
		axl__sb_puts(&sb, ", overhead ");
		gb(&sb, pl->over);
		if (pl->replicated > 0) {
			axl__sb_puts(&sb, ", replicated ");
			gb(&sb, pl->replicated);
		}
	}
	axl__sb_puts(&sb, ": ");
	gb(&sb, pl->total);
	axl__sb_putc(&sb, '\n');
	const struct pcand *b = &pl->best;
	if (pl->fits) {
		axl__sb_puts(&sb, "Fits          yes: ");
		strat(&sb, b->tp, b->pp, b->dp, b->ep);
		axl__sb_printf(&sb, " on %d device%s\n", b->tp * b->pp * b->dp, b->tp * b->pp * b->dp > 1 ? "s" : "");
	} else if (pl->reason[0]) {
		/* an empty node: an empty plan and why (docs/plan.md "An empty node") */
		axl__sb_puts(&sb, "Fits          NO: needs ");
		gb(&sb, pl->need_bytes);
		axl__sb_printf(&sb, "; %s\nPlan          none (no shards, no estimate)\n", pl->reason);
	} else {
		/* no split and no speed: how far short, and (below) what would fit */
		axl__sb_puts(&sb, "Fits          NO: needs ");
		gb(&sb, pl->need_bytes);
		axl__sb_printf(&sb, ", the %d device%s (%s) hold ", pl->avail_devices, pl->avail_devices > 1 ? "s" : "",
			       pl->avail_what);
		gb(&sb, pl->avail_bytes);
		axl__sb_printf(&sb, " at %.0f%% of their memory: ", pl->frac * 100);
		gb(&sb, pl->shortfall);
		axl__sb_puts(&sb, " short\n");
	}
	if (pl->have && pl->fits) {
		axl__sb_puts(&sb, "Plan\n");
		for (int r = 0; r < b->dp && r < MAXDP; r++)
			for (int s = 0; s < b->pp; s++) {
				const struct pstage *st = &b->stage[s];
				axl__sb_printf(&sb, "  %s%-2d stage %-2d layers %3d-%-3d ", b->dp > 1 ? "replica " : "",
					       r, s, st->first, st->last);
				for (int d = 0; d < b->tp; d++) {
					size_t di = b->devs[r][s][d];
					axl__sb_printf(&sb, "%s%s", d ? "," : "",
						       di < pl->nlabel ? pl->label[di] : "?");
				}
				axl__sb_puts(&sb, "  ");
				gb(&sb, st->need);
				axl__sb_puts(&sb, " of ");
				gb(&sb, (double)st->mem_cap);
				axl__sb_puts(&sb, b->tp > 1 ? " each" : "");
				if (b->tp > 1)
					axl__sb_printf(&sb, " (%s %.0f GB/s)", axl__plan_link_name(st->link),
						       st->link_gbps);
				axl__sb_putc(&sb, '\n');
			}
		if (b->dp > MAXDP)
			axl__sb_printf(&sb, "  ... %d replicas in all\n", b->dp);
		double band[2];
		axl__sb_puts(&sb, "Estimate      decode ");
		rate(&sb, b->decode);
		axl__engine_band(pl->eng, b->decode, b->decode_roof, band);
		band_text(&sb, pl->eng->rows > 0 ? "expected" : "uncalibrated, expected", band);
		if (pl->batch > 1) {
			axl__sb_puts(&sb, " (");
			rate(&sb, b->decode / (double)pl->batch);
			axl__sb_puts(&sb, " per sequence)");
		}
		axl__sb_puts(&sb, ", prefill ");
		rate(&sb, b->prefill);
		axl__prefill_band(b->prefill, b->prefill_roof, band);
		band_text(&sb, "assumed", band);
		if (b->bound_known)
			axl__sb_printf(&sb, "; %s bound", b->bound);
		axl__sb_putc(&sb, '\n');
		axl__sb_puts(&sb, "Roofline      decode ");
		rate(&sb, b->decode_roof);
		axl__sb_puts(&sb, ", prefill ");
		rate(&sb, b->prefill_roof);
		axl__sb_printf(
		    &sb,
		    " (estimates apply %.0f%% of memory bandwidth, %.0f us per layer, %.0f%% of peak compute; "
		    "docs/plan.md)\n",
		    pl->eng->mem_eff[axl__wclass_of(&pl->q)] * 100, pl->eng->layer_s * 1e6,
		    axl__plan_factors.compute_eff * 100);
		if (pl->obj == AXL__OBJ_LATENCY || pl->batch > 1) {
			axl__sb_puts(&sb, "Latency       one sequence alone ");
			rate(&sb, b->decode_single);
			axl__sb_putc(&sb, '\n');
		}
		double dc = axl__cost_per_mtok(b->cost_hour, b->decode),
		       pc = axl__cost_per_mtok(b->cost_hour, b->prefill);
		if (pl->price_basis[0] && isfinite(b->cost_hour)) {
			axl__sb_printf(
			    &sb,
			    "Cost          %.4g per hour for %d device%s on %d node%s; per million tokens: decode ",
			    b->cost_hour, b->tp * b->pp * b->dp, b->tp * b->pp * b->dp > 1 ? "s" : "", b->nodes,
			    b->nodes > 1 ? "s" : "");
			axl__sb_printf(&sb, isfinite(dc) ? "%.4g" : "unknown", dc);
			axl__sb_puts(&sb, ", prefill ");
			axl__sb_printf(&sb, isfinite(pc) ? "%.4g" : "unknown", pc);
			axl__sb_printf(&sb, " (price: %s, %s)\n", pl->price_basis, pl->price_source);
		}
		int ch = axl__plan_cheaper_alt(pl);
		if (ch >= 0)
			axl__sb_printf(&sb,
				       "Cheaper       %s weights: %.4g per million decoded tokens against %.4g "
				       "(alternative %d)\n",
				       pl->alt[ch].quant, axl__cost_per_mtok(pl->alt[ch].cost_hour, pl->alt[ch].decode),
				       dc, ch + 1);
		else if (pl->obj == AXL__OBJ_COST && isfinite(dc))
			axl__sb_puts(&sb, "Cheaper       no other format that fits costs less per decoded token\n");
	}
	for (int i = 0; i < pl->nwarn; i++)
		axl__sb_printf(&sb, "Warning       %s\n", pl->warn[i]);
	if (pl->nalt > 0) {
		axl__sb_puts(&sb, pl->fits ? "Alternatives\n" : "What fits\n");
		for (int i = 0; i < pl->nalt; i++) {
			const struct palt *a = &pl->alt[i];
			axl__sb_printf(&sb, "  %2d. %-12s ", i + 1, a->kind);
			struct axl__sb tmp = {0};
			strat(&tmp, a->tp, a->pp, a->dp, a->ep);
			axl__sb_printf(&sb, "%-26s %-8s ", axl__sb_str(&tmp), a->quant);
			axl__sb_free(&tmp);
			axl__sb_puts(&sb, a->fits ? "fits  decode " : "no    decode ");
			rate(&sb, a->decode);
			double ac = axl__cost_per_mtok(a->cost_hour, a->decode);
			if (pl->price_basis[0])
				axl__sb_printf(&sb, isfinite(ac) ? ", %.4g per million tokens" : ", cost unknown", ac);
			if (a->note[0])
				axl__sb_printf(&sb, "  (%s)", a->note);
			axl__sb_putc(&sb, '\n');
		}
	} else if (!pl->fits && !pl->reason[0]) {
		axl__sb_puts(&sb, "What fits     nothing found: no other quantisation, no shorter context and no added "
				  "devices (up to 64) fits\n");
	}
	if (sb.failed) {
		axl__sb_free(&sb);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	*out = axl__sb_steal(&sb, len);
	return 0;
}
