/* SPDX-License-Identifier: MIT */
/* The planner's estimates of one candidate (docs/plan.md; the search is plan.c's).
 *
 * Estimates: a decode step reads every stage's weights once (an MoE layer the experts
 * the batch touches) and its KV cache for each sequence, multiplies 2 x active
 * parameters plus attention over the context per sequence; a stage's time is the larger
 * of bytes / bandwidth and FLOPs / peak, plus its all-reduces, plus the hop to the next
 * stage. Prefill runs the prompt in chunks. The roofline is the same sum at 100%
 * efficiency with no fixed latencies, so an estimate can never exceed it. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>

#include "axl.h"
#include "plan_impl.h"

#define F axl__plan_factors

/* ---- estimates ---------------------------------------------------------------------- */

static double peak(const struct pgroup *g, enum axl__pfmt f)
{
	static const enum axl__pfmt fb[AXL__PF__COUNT][3] = {
		[AXL__PF_FP32] = {AXL__PF_FP32, AXL__PF_FP32, AXL__PF_FP32},
		[AXL__PF_TF32] = {AXL__PF_TF32, AXL__PF_FP32, AXL__PF_FP32},
		[AXL__PF_BF16] = {AXL__PF_BF16, AXL__PF_FP16, AXL__PF_FP32},
		[AXL__PF_FP16] = {AXL__PF_FP16, AXL__PF_BF16, AXL__PF_FP32},
		[AXL__PF_FP8] = {AXL__PF_FP8, AXL__PF_BF16, AXL__PF_FP16},
		[AXL__PF_INT8] = {AXL__PF_INT8, AXL__PF_BF16, AXL__PF_FP16},
		[AXL__PF_INT4] = {AXL__PF_INT4, AXL__PF_INT8, AXL__PF_FP16},
	};
	for (int i = 0; i < 3; i++) {
		double v = g->tflops[fb[f][i]];
		if (v > 0 && isfinite(v))
			return v;
	}
	return NAN;
}

/* The hop from stage s to s+1: bandwidth (GB/s) and latency. */
static double hop_link(const struct pctx *c, const struct pcand *k, int s, double *alpha)
{
	const struct pgroup *a = &c->groups[k->stage[s].group], *b = &c->groups[k->stage[s + 1].group];
	if (a->node != b->node) {
		*alpha = c->eng->alpha_net;
		return c->net_gbps;
	}
	const struct axl__plink_info *l = axl__planner_link(c->p, a->dev[0], b->dev[0]);
	double g = l && l->gbps > 0 ? l->gbps : -1;
	if (g <= 0) {
		double x = c->p->devs[a->dev[0]].pcie_gbps, y = c->p->devs[b->dev[0]].pcie_gbps;
		g = x > 0 && y > 0 ? (x < y ? x : y) : F.default_pcie_gbps;
	}
	*alpha = l && l->kind >= AXL__PL_FABRIC ? c->eng->alpha_fabric : c->eng->alpha_pcie;
	return g;
}

struct stime {
	double mem, comp, comm; /* seconds */
	double fixed;           /* the engine's fixed time per layer (decode) */
	double roof;            /* seconds at 100% with no latency */
	bool mem_known, comp_known;
};

/* One stage processing `tokens` new tokens for `seqs` sequences at context ctx_tok
 * (decode: tokens == seqs, each attends to the whole context; prefill: a chunk). */
static struct stime stage_time(const struct pctx *c, const struct pcand *k, int s, double seqs, double tokens,
			       double attn_ctx, bool decode)
{
	const struct axl__mm *mm = c->mm;
	const struct pstage *st = &k->stage[s];
	const struct pgroup *g = &c->groups[st->group];
	int t = k->tp;
	double bytes = 0, flops = 0;
	/* the experts a batch of `tokens` touches, each choosing k of E */
	double touched = 0;
	if (mm->experts > 0) {
		double e = mm->experts, kk = mm->experts_per_token;
		touched = e * (1.0 - pow(1.0 - kk / e, tokens));
	}
	for (int i = st->first; i <= st->last; i++) {
		const struct axl__lw *l = &mm->lw[i];
		double w = (l->fixed_read - l->replicated) / t + l->replicated;
		if (l->experts > 0)
			w += touched * l->expert / t;
		bytes += w;
		if (decode)
			bytes += mm->lw[i].kv_ctx * seqs * axl__plan_kv_share(mm, t);
		double actx = attn_ctx;
		if (l->sliding && mm->window > 0 && actx > mm->window)
			actx = mm->window;
		flops += tokens * (l->flops_token + l->attn_flops * actx) / t;
	}
	if (s == k->pp - 1) {
		bytes += (mm->head > 0 ? mm->head : mm->emb) / t;
		flops += seqs * mm->head_flops / t;
	}
	struct stime r = {0};
	double bw = g->bw * 1e9, pk = peak(g, c->q->compute) * 1e12;
	r.mem_known = isfinite(bw) && bw > 0;
	r.comp_known = isfinite(pk) && pk > 0;
	r.mem = r.mem_known ? bytes / (bw * c->eng->mem_eff[axl__wclass_of(c->q)]) : 0;
	r.comp = r.comp_known ? flops / (pk * F.compute_eff) : 0;
	double roof_mem = r.mem_known ? bytes / bw : 0, roof_comp = r.comp_known ? flops / pk : 0;
	r.roof = roof_mem > roof_comp ? roof_mem : roof_comp;
	if (t > 1) {
		int layers = st->last - st->first + 1;
		double act = tokens * mm->hidden * 2.0;
		double lbw = g->link_gbps * 1e9;
		/* all to all (RoCE in one box: every pair has its own ports): a rank's share of
		 * the reduce-scatter and the all-gather goes to the t-1 others at once, each
		 * over its own link, so the ring's bytes move t-1 times as fast */
		if (g->link == AXL__PL_ROCE)
			lbw *= t - 1;
		/* a direct fabric's all-reduce step (ICI's: assumed to be NVLink's, docs/plan.md) */
		double alpha = g->link >= AXL__PL_FABRIC ? c->eng->alpha_fabric : c->eng->alpha_pcie;
		double ar = 2.0 * (t - 1) / t * act; /* ring all-reduce bytes per rank */
		double per_layer_bytes, per_layer_ops;
		if (k->ep > 1 && mm->experts > 0) {
			/* attention all-reduce, then dispatch and combine all-to-all */
			double a2a = (double)(t - 1) / t * act * mm->experts_per_token;
			per_layer_bytes = ar + 2 * a2a;
			per_layer_ops = 3;
		} else {
			per_layer_bytes = 2 * ar;
			per_layer_ops = 2;
		}
		r.comm = layers * (per_layer_bytes / (lbw * F.link_eff) + per_layer_ops * alpha);
		r.roof += layers * per_layer_bytes / lbw;
	}
	if (decode) {
		/* kernel launches and synchronisation: a step's fixed cost per layer, more for
		 * an MoE layer's routing (docs/plan.md "Calibration") */
		for (int i = st->first; i <= st->last; i++)
			r.fixed += c->eng->layer_s + (mm->lw[i].experts > 0 ? c->eng->moe_layer_s : 0);
	}
	return r;
}

void axl__plan_estimate(const struct pctx *c, struct pcand *k)
{
	const int P = k->pp;
	double B = (double)c->batch_r;
	/* decode: all sequences together, or pp micro-batches in flight */
	double sum = 0, roof = 0, tmem = 0, tcomp = 0, tcomm = 0;
	bool mem_known = true, comp_known = true;
	for (int s = 0; s < P; s++) {
		struct stime r = stage_time(c, k, s, B, B, (double)c->ctx, true);
		double step = (r.mem > r.comp ? r.mem : r.comp) + r.comm + r.fixed;
		tmem += r.mem, tcomp += r.comp, tcomm += r.comm;
		mem_known &= r.mem_known;
		comp_known &= r.comp_known;
		sum += step;
		roof += r.roof;
		if (s + 1 < P) {
			double alpha, gb = hop_link(c, k, s, &alpha) * 1e9;
			double x = B * c->mm->hidden * 2.0;
			sum += x / (gb * F.link_eff) + alpha;
			tcomm += x / (gb * F.link_eff) + alpha;
			roof += x / gb;
		}
	}
	double dec = B / sum, dec_roof = B / roof;
	if (P > 1 && B >= P) {
		double m = B / P, cycle = 0, cycle_roof = 0;
		for (int s = 0; s < P; s++) {
			struct stime r = stage_time(c, k, s, m, m, (double)c->ctx, true);
			double x = 0, xr = 0;
			if (s + 1 < P) {
				double alpha, gb = hop_link(c, k, s, &alpha) * 1e9;
				x = m * c->mm->hidden * 2.0 / (gb * F.link_eff) + alpha;
				xr = m * c->mm->hidden * 2.0 / gb;
			}
			double st = (r.mem > r.comp ? r.mem : r.comp) + r.comm + r.fixed + x;
			if (st > cycle)
				cycle = st;
			if (r.roof + xr > cycle_roof)
				cycle_roof = r.roof + xr;
		}
		if (m / cycle > dec)
			dec = m / cycle;
		if (m / cycle_roof > dec_roof)
			dec_roof = m / cycle_roof;
	}
	/* one sequence alone on one replica (the latency objective) */
	double single = 0;
	for (int s = 0; s < P; s++) {
		struct stime r = stage_time(c, k, s, 1, 1, (double)c->ctx, true);
		single += (r.mem > r.comp ? r.mem : r.comp) + r.comm + r.fixed;
		if (s + 1 < P) {
			double alpha, gb = hop_link(c, k, s, &alpha) * 1e9;
			single += c->mm->hidden * 2.0 / (gb * F.link_eff) + alpha;
		}
	}
	k->decode_single = mem_known && single > 0 ? 1.0 / single : NAN;
	/* every replica runs batch_r sequences; the request's batch in all */
	double scale = (double)c->batch / B;
	k->decode = mem_known ? dec * scale : NAN;
	k->decode_roof = mem_known ? dec_roof * scale : NAN;
	if (!(tcomm >= tmem && tcomm >= tcomp))
		k->bound = tcomp > tmem ? "compute" : "memory-bandwidth";
	else
		k->bound = "interconnect";
	k->bound_known = mem_known;

	/* prefill: the batch's prompts in chunks through the pipeline */
	double toks = B * (double)c->ctx;
	double chunk = toks < F.chunk_tokens ? toks : F.chunk_tokens;
	double nchunks = ceil(toks / chunk);
	double tot = 0, worst = 0, troof = 0, wroof = 0;
	for (int s = 0; s < P; s++) {
		struct stime r = stage_time(c, k, s, chunk / (double)c->ctx, chunk, (double)c->ctx / 2.0, false);
		double st = (r.mem > r.comp ? r.mem : r.comp) + r.comm, sr = r.roof;
		if (s + 1 < P) {
			double alpha, gb = hop_link(c, k, s, &alpha) * 1e9;
			st += chunk * c->mm->hidden * 2.0 / (gb * F.link_eff) + alpha;
			sr += chunk * c->mm->hidden * 2.0 / gb;
		}
		tot += st, troof += sr;
		if (st > worst)
			worst = st;
		if (sr > wroof)
			wroof = sr;
		comp_known &= r.comp_known;
	}
	double ptime = tot + (nchunks - 1) * worst, proof = troof + (nchunks - 1) * wroof;
	k->prefill = comp_known && mem_known ? toks / ptime * scale : NAN;
	k->prefill_roof = comp_known && mem_known ? toks / proof * scale : NAN;
}
