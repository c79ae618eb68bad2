/* SPDX-License-Identifier: MIT */
/* What axl_plan_compute answered, as the "axl.plan" document; plan_text.c
 * writes the readable answer. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl/error.h"
#include "axl.h"
#include "util/error.h"
#include "plan_result.h"
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

/* "cost": what the plan's devices cost per hour and per million tokens; null unpriced */
static void cost_json(struct axl__json *w, const struct axl_plan *pl)
{
	const struct pcand *b = &pl->best;
	axl__json_key(w, "cost");
	if (!pl->price_basis[0] || !isfinite(b->cost_hour)) {
		axl__json_null(w);
		return;
	}
	axl__json_obj(w);
	axl__json_knum(w, "per_hour", round(b->cost_hour * 10000) / 10000);
	axl__json_kstr(w, "basis", pl->price_basis);
	axl__json_kstr(w, "source", pl->price_source);
	axl__json_kint(w, "devices", b->tp * b->pp * b->dp);
	axl__json_kint(w, "nodes", b->nodes);
	axl__json_key(w, "decode_per_million_tokens");
	double d = axl__cost_per_mtok(b->cost_hour, b->decode), f = axl__cost_per_mtok(b->cost_hour, b->prefill);
	if (isfinite(d))
		axl__json_num(w, round(d * 10000) / 10000);
	else
		axl__json_null(w);
	axl__json_key(w, "prefill_per_million_tokens");
	if (isfinite(f))
		axl__json_num(w, round(f * 10000) / 10000);
	else
		axl__json_null(w);
	int ch = axl__plan_cheaper_alt(pl);
	if (ch >= 0) {
		axl__json_kstr(w, "cheaper_quantization", pl->alt[ch].quant);
		axl__json_knum(w, "cheaper_decode_per_million_tokens",
			       round(axl__cost_per_mtok(pl->alt[ch].cost_hour, pl->alt[ch].decode) * 10000) / 10000);
	}
	axl__json_obj_end(w);
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
	axl__json_kstr(&w, "weights_dtype", axl__plan_quant_label(pl));
	axl__json_kstr(&w, "source", pl->model.source_name);
	if (pl->model.assumption[0])
		axl__json_kstr(&w, "assumption", pl->model.assumption);
	axl__json_obj_end(&w);

	axl__json_key(&w, "request");
	axl__json_obj(&w);
	axl__json_kint(&w, "context_tokens", pl->ctx);
	axl__json_kint(&w, "batch", pl->batch);
	axl__json_kstr(&w, "kv_dtype", pl->kv);
	axl__json_kstr(&w, "quantization", axl__plan_quant_label(pl));
	if (pl->quant_reason[0])
		axl__json_kstr(&w, "quantization_reason", pl->quant_reason);
	if (pl->nqtry > 0) {
		axl__json_key(&w, "quantization_tried");
		axl__json_arr(&w);
		for (int i = 0; i < pl->nqtry; i++) {
			const struct pqtry *t = &pl->qtry[i];
			axl__json_obj(&w);
			axl__json_kstr(&w, "quantization", t->quant);
			axl__json_kstr(&w, "result", t->result);
			if (t->devices > 0)
				axl__json_kint(&w, "devices", t->devices);
			if (strcmp(t->result, "short") == 0 && t->short_bytes > 0)
				axl__json_kint(&w, "shortfall_bytes", (int64_t)ceil(t->short_bytes));
			axl__json_kstr(&w, "detail", t->detail);
			axl__json_obj_end(&w);
		}
		axl__json_arr_end(&w);
	}
	axl__json_kstr(&w, "engine", pl->eng->name);
	axl__json_kbool(&w, "engine_calibrated", pl->eng->rows > 0);
	axl__json_knum(&w, "memory_fraction", pl->frac);
	axl__json_kstr(&w, "memory_fraction_source", pl->frac_given ? "as given" : pl->eng->fraction_source);
	axl__json_kstr(&w, "objective", axl__pobj_name(pl->obj));
	axl__json_obj_end(&w);

	axl__json_key(&w, "objective");
	axl__json_obj(&w);
	axl__json_kstr(&w, "name", axl__pobj_name(pl->obj));
	axl__json_kbool(&w, "default", pl->obj_default);
	axl__json_kstr(&w, "rule", axl__pobj_rule(pl->obj));
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
	if (pl->reason[0]) {
		/* an empty node: no devices, so no closest split; the plan is empty and says why */
		axl__json_kstr(&w, "reason", pl->reason);
	} else if (!pl->fits) {
		/* how far short: no split and no estimate are given for a plan that does not fit */
		axl__json_key(&w, "shortfall");
		axl__json_obj(&w);
		axl__json_kint(&w, "needed_bytes", llround(pl->need_bytes));
		axl__json_kint(&w, "available_bytes", llround(pl->avail_bytes));
		axl__json_kint(&w, "devices", pl->avail_devices);
		axl__json_kstr(&w, "on", pl->avail_what);
		axl__json_knum(&w, "memory_fraction", pl->frac);
		if (pl->have)
			strategy(&w, pl->best.tp, pl->best.pp, pl->best.dp, pl->best.ep);
		axl__json_obj_end(&w);
	}

	axl__json_key(&w, "plan");
	if (!pl->have || !pl->fits) {
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
						axl__json_kstr(&w, "tp_link", axl__plan_link_name(st->link));
						axl__json_knum(&w, "tp_link_gbps", st->link_gbps);
					}
					axl__json_obj_end(&w);
				}
		axl__json_arr_end(&w);
		axl__json_obj_end(&w);
	}

	axl__json_key(&w, "estimate");
	if (!pl->have || !pl->fits) {
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
		knum_or_null(&w, "decode_single_stream_tokens_per_s", b->decode_single);
		cost_json(&w, pl);
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
		axl__json_kbool(&w, "calibrated", pl->eng->rows > 0);
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
		if (pl->price_basis[0]) {
			double c = axl__cost_per_mtok(a->cost_hour, a->decode);
			knum_or_null(&w, "cost_per_hour", a->cost_hour);
			axl__json_key(&w, "decode_per_million_tokens");
			if (isfinite(c))
				axl__json_num(&w, round(c * 10000) / 10000);
			else
				axl__json_null(&w);
		}
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
