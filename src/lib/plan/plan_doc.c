/* SPDX-License-Identifier: MIT */
/* What axl_plan_compute answered, written out (issue 6): the "axl.plan" document and the
 * readable text. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "axl/error.h"
#include "axl.h"
#include "util/error.h"
#include "model_catalog.h"
#include "plan_impl.h"
#include "util/json.h"
#include "util/strbuf.h"

/* ---- the document ------------------------------------------------------------------- */

/* [low, high], or null when the estimate is unknown */
static void band_json(struct axl__json *w, const char *k, const double band[2])
{
	axl__json_key(w, k);
	if (!isfinite(band[0]) || !isfinite(band[1])) {
		axl__json_null(w);
		return;
	}
	axl__json_arr(w);
	axl__json_num(w, band[0]);
	axl__json_num(w, band[1]);
	axl__json_arr_end(w);
}

static void knum_or_null(struct axl__json *w, const char *k, double v)
{
	axl__json_key(w, k);
	if (isfinite(v))
		axl__json_num(w, round(v * 100) / 100);
	else
		axl__json_null(w);
}

static void kint_or_null(struct axl__json *w, const char *k, int64_t v)
{
	axl__json_key(w, k);
	if (v >= 0)
		axl__json_int(w, v);
	else
		axl__json_null(w);
}

static void strategy(struct axl__json *w, int tp, int pp, int dp, int ep)
{
	axl__json_key(w, "strategy");
	axl__json_obj(w);
	axl__json_kint(w, "tp", tp);
	axl__json_kint(w, "pp", pp);
	axl__json_kint(w, "dp", dp);
	axl__json_kint(w, "ep", ep);
	axl__json_obj_end(w);
}

static const char *link_name(enum axl__plink k)
{
	switch (k) {
	case AXL__PL_FABRIC:
		return "fabric";
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

static const char *quant_label(const struct axl_plan *pl)
{
	return pl->q.from_file ? (pl->model.dtype_name[0] ? pl->model.dtype_name : "file") : pl->q.name;
}

int axl_plan_json(const axl_plan *pl, char **out, size_t *len)
{
	if (!pl || !out)
		return axl__error(AXL_EINVAL, "axl_plan_json: NULL argument");
	const struct axl__model *m = &pl->model.m;
	const struct axl__plan_factors *f = &axl__plan_factors;
	struct axl__sb sb = {0};
	struct axl__json w;
	axl__json_init(&w, &sb, true);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.plan");
	axl__json_kint(&w, "schema_version", 1);

	axl__json_key(&w, "model");
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", m->id);
	if (m->alias[0])
		axl__json_kstr(&w, "alias", m->alias);
	if (m->source == AXL__MSRC_CATALOG && m->catalog_id[0])
		axl__json_kstr(&w, "catalog_id", m->catalog_id);
	kint_or_null(&w, "params", m->params);
	kint_or_null(&w, "active_params", m->experts > 0 ? m->active_params : m->params);
	kint_or_null(&w, "layers", m->layers);
	axl__json_kstr(&w, "weights_dtype", quant_label(pl));
	axl__json_kstr(&w, "source", pl->model.source_name);
	if (pl->model.assumption[0])
		axl__json_kstr(&w, "assumption", pl->model.assumption);
	axl__json_obj_end(&w);

	axl__json_key(&w, "request");
	axl__json_obj(&w);
	axl__json_kint(&w, "context_tokens", pl->ctx);
	axl__json_kint(&w, "batch", pl->batch);
	axl__json_kstr(&w, "kv_dtype", pl->kv);
	axl__json_kstr(&w, "quantization", quant_label(pl));
	if (pl->quant_reason[0])
		axl__json_kstr(&w, "quantization_reason", pl->quant_reason);
	axl__json_kstr(&w, "engine", pl->eng->name);
	axl__json_knum(&w, "memory_fraction", pl->frac);
	axl__json_kstr(&w, "memory_fraction_source", pl->frac_given ? "as given" : pl->eng->fraction_source);
	axl__json_obj_end(&w);

	axl__json_key(&w, "memory");
	axl__json_obj(&w);
	axl__json_kint(&w, "weights_bytes", llround(pl->weights));
	axl__json_kint(&w, "kv_cache_bytes", llround(pl->kv_cache));
	axl__json_kint(&w, "kv_bytes_per_token", llround(pl->kv_token));
	axl__json_kint(&w, "activation_bytes", llround(pl->act));
	axl__json_kint(&w, "overhead_bytes", llround(pl->over));
	axl__json_kint(&w, "replicated_bytes", llround(pl->replicated));
	axl__json_kint(&w, "total_bytes", llround(pl->total));
	axl__json_obj_end(&w);

	axl__json_kbool(&w, "fits", pl->fits);
	axl__json_kint(&w, "shortfall_bytes", pl->fits ? 0 : (int64_t)ceil(pl->shortfall));

	axl__json_key(&w, "plan");
	if (!pl->have) {
		axl__json_null(&w);
	} else {
		const struct pcand *b = &pl->best;
		axl__json_obj(&w);
		strategy(&w, b->tp, b->pp, b->dp, b->ep);
		axl__json_key(&w, "shards");
		axl__json_arr(&w);
		for (int r = 0; r < b->dp && r < MAXDP; r++)
			for (int s = 0; s < b->pp; s++)
				for (int d = 0; d < b->tp; d++) {
					const struct pstage *st = &b->stage[s];
					axl__json_obj(&w);
					size_t di = b->devs[r][s][d];
					axl__json_kstr(&w, "device", di < pl->nlabel ? pl->label[di] : "?");
					axl__json_key(&w, "layers");
					axl__json_arr(&w);
					axl__json_int(&w, st->first);
					axl__json_int(&w, st->last);
					axl__json_arr_end(&w);
					axl__json_kint(&w, "memory_bytes", llround(st->need));
					axl__json_kint(&w, "capacity_bytes", st->mem_cap);
					axl__json_kint(&w, "weights_bytes", llround(st->weights));
					axl__json_kint(&w, "kv_cache_bytes", llround(st->kv));
					axl__json_kint(&w, "replica", r);
					axl__json_kint(&w, "stage", s);
					axl__json_kint(&w, "rank", d);
					if (b->tp > 1) {
						axl__json_kstr(&w, "tp_link", link_name(st->link));
						axl__json_knum(&w, "tp_link_gbps", st->link_gbps);
					}
					axl__json_obj_end(&w);
				}
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
	}

	axl__json_key(&w, "estimate");
	if (!pl->have) {
		axl__json_null(&w);
	} else {
		const struct pcand *b = &pl->best;
		axl__json_obj(&w);
		knum_or_null(&w, "prefill_tokens_per_s", b->prefill);
		knum_or_null(&w, "decode_tokens_per_s", b->decode);
		axl__json_key(&w, "bound");
		if (b->bound_known)
			axl__json_str(&w, b->bound);
		else
			axl__json_null(&w);
		knum_or_null(&w, "decode_roofline_tokens_per_s", b->decode_roof);
		knum_or_null(&w, "prefill_roofline_tokens_per_s", b->prefill_roof);
		knum_or_null(&w, "decode_tokens_per_s_per_sequence", b->decode / (double)pl->batch);
		double band[2];
		axl__engine_band(pl->eng, b->decode, b->decode_roof, band);
		band_json(&w, "decode_band_tokens_per_s", band);
		axl__prefill_band(b->prefill, b->prefill_roof, band);
		band_json(&w, "prefill_band_tokens_per_s", band);
		axl__json_key(&w, "factors");
		axl__json_obj(&w);
		axl__json_knum(&w, "memory_bandwidth", pl->eng->mem_eff[axl__wclass_of(&pl->q)]);
		axl__json_kstr(&w, "engine", pl->eng->name);
		axl__json_kstr(&w, "engine_basis", pl->eng->basis);
		axl__json_kint(&w, "calibration_rows", pl->eng->rows);
		axl__json_knum(&w, "layer_overhead_s", pl->eng->layer_s);
		axl__json_knum(&w, "moe_layer_overhead_s", pl->eng->moe_layer_s);
		axl__json_knum(&w, "collective_latency_fabric_s", pl->eng->alpha_fabric);
		axl__json_knum(&w, "collective_latency_pcie_s", pl->eng->alpha_pcie);
		axl__json_knum(&w, "collective_latency_network_s", pl->eng->alpha_net);
		axl__json_knum(&w, "decode_band_low", pl->eng->band_lo);
		axl__json_knum(&w, "decode_band_high", pl->eng->band_hi);
		axl__json_knum(&w, "prefill_band_low", AXL__PREFILL_BAND_LO);
		axl__json_knum(&w, "prefill_band_high", AXL__PREFILL_BAND_HI);
		axl__json_knum(&w, "compute", f->compute_eff);
		axl__json_knum(&w, "link", f->link_eff);
		axl__json_knum(&w, "network_gbps", pl->net);
		axl__json_kstr(&w, "network_source", pl->net_note);
		axl__json_obj_end(&w);
		axl__json_obj_end(&w);
	}

	axl__json_key(&w, "alternatives");
	axl__json_arr(&w);
	for (int i = 0; i < pl->nalt; i++) {
		const struct palt *a = &pl->alt[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "kind", a->kind);
		strategy(&w, a->tp, a->pp, a->dp, a->ep);
		axl__json_kstr(&w, "quantization", a->quant);
		axl__json_kbool(&w, "fits", a->fits);
		knum_or_null(&w, "decode_tokens_per_s", a->decode);
		knum_or_null(&w, "prefill_tokens_per_s", a->prefill);
		axl__json_kint(&w, "context_tokens", a->ctx);
		axl__json_kint(&w, "devices", a->devices);
		if (a->note[0])
			axl__json_kstr(&w, "note", a->note);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);

	axl__json_key(&w, "warnings");
	axl__json_arr(&w);
	for (int i = 0; i < pl->nwarn; i++)
		axl__json_str(&w, pl->warn[i]);
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	axl__sb_putc(&sb, '\n');
	if (sb.failed) {
		axl__sb_free(&sb);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	*out = axl__sb_steal(&sb, len);
	return 0;
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
	axl__sb_printf(&sb, "Request       %s weights, context %lld tokens, batch %lld, KV cache %s\n", quant_label(pl),
		       (long long)pl->ctx, (long long)pl->batch, pl->kv);
	if (pl->quant_reason[0])
		axl__sb_printf(&sb, "Quantization  %s\n", pl->quant_reason);
	axl__sb_printf(&sb, "Engine        %s (%s); %.0f%% of each device's memory (%s)\n", pl->eng->name,
		       pl->eng->basis, pl->frac * 100, pl->frac_given ? "as given" : pl->eng->fraction_source);
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
	} else {
		axl__sb_puts(&sb, "Fits          NO: ");
		gb(&sb, pl->shortfall);
		axl__sb_puts(&sb, " short");
		if (pl->have) {
			axl__sb_puts(&sb, " with the closest split (");
			strat(&sb, b->tp, b->pp, b->dp, b->ep);
			axl__sb_puts(&sb, ")");
		}
		axl__sb_putc(&sb, '\n');
	}
	if (pl->have) {
		axl__sb_puts(&sb, "Plan\n");
		for (int r = 0; r < b->dp && r < MAXDP; r++)
			for (int s = 0; s < b->pp; s++) {
				const struct pstage *st = &b->stage[s];
				axl__sb_printf(&sb, "  %s%-2d stage %-2d layers %3d-%-3d ", b->dp > 1 ? "replica " : "", r, s,
					       st->first, st->last);
				for (int d = 0; d < b->tp; d++) {
					size_t di = b->devs[r][s][d];
					axl__sb_printf(&sb, "%s%s", d ? "," : "", di < pl->nlabel ? pl->label[di] : "?");
				}
				axl__sb_puts(&sb, "  ");
				gb(&sb, st->need);
				axl__sb_puts(&sb, " of ");
				gb(&sb, (double)st->mem_cap);
				axl__sb_puts(&sb, b->tp > 1 ? " each" : "");
				if (b->tp > 1)
					axl__sb_printf(&sb, " (%s %.0f GB/s)", link_name(st->link), st->link_gbps);
				axl__sb_putc(&sb, '\n');
			}
		if (b->dp > MAXDP)
			axl__sb_printf(&sb, "  ... %d replicas in all\n", b->dp);
		double band[2];
		axl__sb_puts(&sb, "Estimate      decode ");
		rate(&sb, b->decode);
		axl__engine_band(pl->eng, b->decode, b->decode_roof, band);
		if (isfinite(band[0])) {
			axl__sb_puts(&sb, " (expected ");
			rate(&sb, band[0]);
			axl__sb_puts(&sb, " to ");
			rate(&sb, band[1]);
			axl__sb_puts(&sb, ")");
		}
		if (pl->batch > 1) {
			axl__sb_puts(&sb, " (");
			rate(&sb, b->decode / (double)pl->batch);
			axl__sb_puts(&sb, " per sequence)");
		}
		axl__sb_puts(&sb, ", prefill ");
		rate(&sb, b->prefill);
		axl__prefill_band(b->prefill, b->prefill_roof, band);
		if (isfinite(band[0])) {
			axl__sb_puts(&sb, " (assumed ");
			rate(&sb, band[0]);
			axl__sb_puts(&sb, " to ");
			rate(&sb, band[1]);
			axl__sb_puts(&sb, ")");
		}
		if (b->bound_known)
			axl__sb_printf(&sb, "; %s bound", b->bound);
		axl__sb_putc(&sb, '\n');
		axl__sb_puts(&sb, "Roofline      decode ");
		rate(&sb, b->decode_roof);
		axl__sb_puts(&sb, ", prefill ");
		rate(&sb, b->prefill_roof);
		axl__sb_printf(&sb,
			       " (estimates apply %.0f%% of memory bandwidth, %.0f us per layer, %.0f%% of peak compute; "
			       "docs/plan.md)\n",
			       pl->eng->mem_eff[axl__wclass_of(&pl->q)] * 100, pl->eng->layer_s * 1e6,
			       axl__plan_factors.compute_eff * 100);
	}
	for (int i = 0; i < pl->nwarn; i++)
		axl__sb_printf(&sb, "Warning       %s\n", pl->warn[i]);
	if (pl->nalt > 0) {
		axl__sb_puts(&sb, "Alternatives\n");
		for (int i = 0; i < pl->nalt; i++) {
			const struct palt *a = &pl->alt[i];
			axl__sb_printf(&sb, "  %2d. %-12s ", i + 1, a->kind);
			struct axl__sb tmp = {0};
			strat(&tmp, a->tp, a->pp, a->dp, a->ep);
			axl__sb_printf(&sb, "%-26s %-8s ", axl__sb_str(&tmp), a->quant);
			axl__sb_free(&tmp);
			axl__sb_puts(&sb, a->fits ? "fits  decode " : "no    decode ");
			rate(&sb, a->decode);
			if (a->note[0])
				axl__sb_printf(&sb, "  (%s)", a->note);
			axl__sb_putc(&sb, '\n');
		}
	} else if (!pl->fits) {
		axl__sb_puts(&sb, "Alternatives  none found: no quantisation, context or added devices (up to 64) fits\n");
	}
	if (sb.failed) {
		axl__sb_free(&sb);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	*out = axl__sb_steal(&sb, len);
	return 0;
}
