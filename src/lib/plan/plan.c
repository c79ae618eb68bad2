/* SPDX-License-Identifier: MIT */
/* The planner's search and estimates (docs/plan.md).
 *
 * Candidates: for every tensor-parallel size t the model allows (heads divisible by t,
 * KV heads divisible by t or t by them, the MLP's width divisible by t), devices are put
 * in groups of t identical devices of one node, inside one NVLink/NVSwitch/XGMI domain
 * first; for every pipeline depth p the p fastest groups are stages, in node order, and
 * the layers are split in proportion to each stage's speed (memory bandwidth x t),
 * capped by what its memory holds; the rest of the groups make data-parallel replicas
 * of the same devices. MoE models are tried with the experts split (ep 1) and with
 * whole experts on each rank (ep = t).
 *
 * Estimates: plan_estimate.c. */
#define _GNU_SOURCE
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "axl/error.h"
#include "axl.h"
#include "util/error.h"
#include "plan_impl.h"

/* ---- assumptions (docs/plan.md "Efficiency factors") ---------------------------------- */
const struct axl__plan_factors axl__plan_factors = {
	.compute_eff = 0.60,
	.link_eff = 0.80,
	.runtime_bytes = 512LL << 20,
	.workspace_bytes = 256LL << 20,
	.comm_bytes = 256LL << 20,
	.chunk_tokens = 4096,
	.default_pcie_gbps = 15.75,
	.default_net_gbps = 12.5,
};
#define F axl__plan_factors

/* ---- groups ------------------------------------------------------------------------- */

static double group_link(const struct axl_planner *p, const size_t *d, int n, enum axl__plink *kind)
{
	double g = INFINITY;
	enum axl__plink k = AXL__PL_ICI; /* the best there is; lowered by every pair */
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++) {
			const struct axl__plink_info *l = axl__planner_link(p, d[i], d[j]);
			enum axl__plink lk = l ? l->kind : AXL__PL_NONE;
			double gb = l && l->gbps > 0 ? l->gbps : -1;
			if (gb <= 0) {
				double a = p->devs[d[i]].pcie_gbps, b = p->devs[d[j]].pcie_gbps;
				gb = a > 0 && b > 0 ? (a < b ? a : b) : F.default_pcie_gbps;
			}
			if (lk < k)
				k = lk;
			if (gb < g)
				g = gb;
		}
	*kind = n > 1 ? k : AXL__PL_FABRIC;
	return n > 1 ? g : INFINITY;
}

static void group_fill(const struct axl_planner *p, struct pgroup *g, double frac)
{
	g->bw = INFINITY;
	g->mem = INT64_MAX;
	for (int f = 0; f < AXL__PF__COUNT; f++)
		g->tflops[f] = INFINITY;
	for (int i = 0; i < g->n; i++) {
		const struct axl__pdev *d = &p->devs[g->dev[i]];
		double bw = d->bandwidth_gbps > 0 ? d->bandwidth_gbps : NAN;
		g->bw = isnan(bw) || isnan(g->bw) ? NAN : (bw < g->bw ? bw : g->bw);
		/* what the engine gives the model: its fraction of the device's memory, and
		 * never more than is free */
		int64_t mem = d->memory_bytes;
		if (frac < 1 && d->memory_total > 0 && (double)d->memory_total * frac < (double)mem)
			mem = (int64_t)((double)d->memory_total * frac);
		if (mem < g->mem)
			g->mem = mem;
		for (int f = 0; f < AXL__PF__COUNT; f++) {
			double t = d->tflops[f] > 0 ? d->tflops[f] : NAN;
			g->tflops[f] = isnan(t) || isnan(g->tflops[f]) ? NAN : (t < g->tflops[f] ? t : g->tflops[f]);
		}
	}
	g->link_gbps = group_link(p, g->dev, g->n, &g->link);
	g->node = p->devs[g->dev[0]].node;
}

static bool same_kind(const struct axl__pdev *a, const struct axl__pdev *b)
{
	return strcmp(a->model, b->model) == 0 && a->memory_total == b->memory_total;
}

static size_t uf_find(size_t *par, size_t x)
{
	while (par[x] != x)
		x = par[x] = par[par[x]];
	return x;
}

/* Groups of t devices out of sel[0..nsel) (indices into p->devs). */
static int make_groups(const struct axl_planner *p, const size_t *sel, size_t nsel, int t, double frac,
		       struct pgroup **out, size_t *nout)
{
	*out = NULL;
	*nout = 0;
	if (nsel == 0)
		return 0;
	struct pgroup *g = calloc(nsel / (size_t)t + 1, sizeof *g);
	size_t *par = malloc(nsel * sizeof *par), *order = malloc(nsel * sizeof *order);
	bool *taken = calloc(nsel, sizeof *taken);
	if (!g || !par || !order || !taken) {
		free(g), free(par), free(order), free(taken);
		return -1;
	}
	for (size_t i = 0; i < nsel; i++)
		par[i] = i;
	for (size_t i = 0; i < nsel; i++)
		for (size_t j = i + 1; j < nsel; j++) {
			const struct axl__pdev *a = &p->devs[sel[i]], *b = &p->devs[sel[j]];
			if (a->node != b->node || !same_kind(a, b))
				continue;
			const struct axl__plink_info *l = axl__planner_link(p, sel[i], sel[j]);
			if (l && (l->kind >= AXL__PL_FABRIC || l->kind == AXL__PL_BOARD))
				par[uf_find(par, i)] = uf_find(par, j);
		}
	size_t ng = 0;
	/* pass 1: inside each fabric domain; pass 2: what is left, of one kind on one node */
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < nsel; i++) {
			if (taken[i])
				continue;
			size_t n = 0;
			for (size_t j = i; j < nsel && n < (size_t)t; j++) {
				if (taken[j])
					continue;
				const struct axl__pdev *a = &p->devs[sel[i]], *b = &p->devs[sel[j]];
				bool ok = pass == 0 ? uf_find(par, i) == uf_find(par, j)
						    : a->node == b->node && same_kind(a, b);
				if (ok)
					order[n++] = j;
			}
			if (n < (size_t)t)
				continue;
			/* in pass 0 a short domain waits for pass 2 */
			struct pgroup *q = &g[ng++];
			q->n = t;
			for (size_t k = 0; k < n; k++) {
				taken[order[k]] = true;
				q->dev[k] = sel[order[k]];
			}
			group_fill(p, q, frac);
		}
	}
	free(par), free(order), free(taken);
	*out = g;
	*nout = ng;
	return 0;
}

/* ---- memory of one stage ------------------------------------------------------------- */

double axl__plan_kv_share(const struct axl__mm *mm, int t)
{
	if (mm->kv_heads <= 0)
		return 1.0; /* MLA: the latent is held whole by every rank */
	int per = (mm->kv_heads + t - 1) / t;
	return (double)per / mm->kv_heads;
}

static double layer_bytes(const struct pctx *c, int i, int t)
{
	const struct axl__lw *l = &c->mm->lw[i];
	return l->split / t + l->replicated + c->mm->lw[i].kv_ctx * (double)c->batch_r * axl__plan_kv_share(c->mm, t);
}

static double stage_fixed(const struct pctx *c, const struct pcand *k, int s, double *act_out, double *over_out)
{
	const struct axl__mm *mm = c->mm;
	int t = k->tp;
	double chunk = (double)c->batch_r * (double)c->ctx;
	if (chunk > F.chunk_tokens)
		chunk = F.chunk_tokens;
	double h = mm->hidden;
	double qkv = (double)mm->heads * (mm->lw[0].attn_flops / 4.0 / mm->heads) * 2; /* q and attention out */
	double act = chunk * (3 * h + qkv / t + 2.0 * mm->intermediate / t) * 2.0;
	if (s == k->pp - 1)
		act += (double)c->batch_r * (double)mm->vocab / t * 4.0;
	double over = (double)(F.runtime_bytes + F.workspace_bytes) + (k->tp * k->pp > 1 ? (double)F.comm_bytes : 0);
	double w = 0;
	if (s == 0)
		w += mm->emb / t;
	if (s == k->pp - 1)
		w += (mm->head > 0 ? mm->head : (k->pp > 1 ? mm->emb : 0)) / t;
	*act_out = act;
	*over_out = over;
	return w + act + over;
}

/* Split the layers over the stages: in proportion to speed, capped by memory, each
 * stage at least one layer. false when a stage would get none. */
static bool split_layers(const struct pctx *c, struct pcand *k)
{
	const int L = c->mm->layers, P = k->pp, t = k->tp;
	double room[MAXPP], speed[MAXPP], avg = 0;
	int cap[MAXPP], n[MAXPP];
	bool fixed[MAXPP];
	for (int i = 0; i < L; i++)
		avg += layer_bytes(c, i, t);
	avg /= L;
	for (int s = 0; s < P; s++) {
		const struct pgroup *g = &c->groups[k->stage[s].group];
		double act, over;
		room[s] = (double)g->mem - stage_fixed(c, k, s, &act, &over);
		double r = room[s] / avg;
		cap[s] = r <= 0 ? 0 : r >= L ? L : (int)r;
		speed[s] = (isnan(g->bw) ? (double)g->mem / 1e9 : g->bw) * t;
		fixed[s] = false;
		n[s] = 0;
	}
	int capsum = 0;
	for (int s = 0; s < P; s++)
		capsum += cap[s];
	if (capsum < L) {
		/* does not fit: spread in proportion to room, for the shortfall */
		double tot = 0;
		for (int s = 0; s < P; s++)
			tot += room[s] > 0 ? room[s] : 0;
		for (int s = 0; s < P; s++)
			speed[s] = tot > 0 ? (room[s] > 0 ? room[s] : 0) : 1;
		for (int s = 0; s < P; s++)
			cap[s] = L;
	}
	int left = L;
	for (int round = 0; round <= P; round++) {
		double sp = 0;
		for (int s = 0; s < P; s++)
			if (!fixed[s])
				sp += speed[s];
		if (sp <= 0)
			break;
		/* largest remainder */
		int given = 0;
		double rem[MAXPP];
		for (int s = 0; s < P; s++)
			if (!fixed[s]) {
				double x = left * speed[s] / sp;
				n[s] = (int)x;
				rem[s] = x - n[s];
				given += n[s];
			}
		while (given < left) {
			int best = -1;
			for (int s = 0; s < P; s++)
				if (!fixed[s] && (best < 0 || rem[s] > rem[best]))
					best = s;
			if (best < 0)
				break;
			n[best]++;
			rem[best] = -1;
			given++;
		}
		bool over = false;
		for (int s = 0; s < P; s++)
			if (!fixed[s] && n[s] > cap[s]) {
				n[s] = cap[s];
				fixed[s] = true;
				left -= cap[s];
				over = true;
			}
		if (!over)
			break;
	}
	int sum = 0;
	for (int s = 0; s < P; s++) {
		if (n[s] <= 0)
			return false;
		sum += n[s];
	}
	if (sum != L)
		return false;
	int first = 0;
	for (int s = 0; s < P; s++) {
		k->stage[s].first = first;
		k->stage[s].last = first + n[s] - 1;
		first += n[s];
	}
	return true;
}

static void stage_memory(const struct pctx *c, struct pcand *k)
{
	int t = k->tp;
	for (int s = 0; s < k->pp; s++) {
		struct pstage *st = &k->stage[s];
		double w = 0, kv = 0, act, over;
		for (int i = st->first; i <= st->last; i++) {
			const struct axl__lw *l = &c->mm->lw[i];
			w += l->split / t + l->replicated;
			kv += c->mm->lw[i].kv_ctx * (double)c->batch_r * axl__plan_kv_share(c->mm, t);
		}
		double fixed = stage_fixed(c, k, s, &act, &over);
		w += fixed - act - over;
		st->weights = w;
		st->kv = kv;
		st->act = act;
		st->over = over;
		st->need = w + kv + act + over;
	}
}

/* Move boundary layers off stages that overflow onto neighbours with room. */
static void rebalance(const struct pctx *c, struct pcand *k)
{
	for (int pass = 0; pass < 4 * k->pp; pass++) {
		stage_memory(c, k);
		bool moved = false;
		for (int s = 0; s < k->pp && !moved; s++) {
			struct pstage *st = &k->stage[s];
			double cap = (double)c->groups[st->group].mem;
			if (st->need <= cap || st->last == st->first)
				continue;
			double lb = layer_bytes(c, st->last, k->tp);
			if (s + 1 < k->pp &&
			    k->stage[s + 1].need + lb <= (double)c->groups[k->stage[s + 1].group].mem) {
				st->last--;
				k->stage[s + 1].first--;
				moved = true;
			} else if (s > 0 &&
				   k->stage[s - 1].need + layer_bytes(c, st->first, k->tp) <=
					   (double)c->groups[k->stage[s - 1].group].mem) {
				st->first++;
				k->stage[s - 1].last++;
				moved = true;
			}
		}
		if (!moved)
			break;
	}
	stage_memory(c, k);
}

/* ---- the search --------------------------------------------------------------------- */

static bool tp_valid(const struct axl__model *m, const struct axl__mm *mm, int t)
{
	if (t == 1)
		return true;
	if (mm->heads % t != 0)
		return false;
	if (mm->kv_heads > 0 && mm->kv_heads % t != 0 && t % mm->kv_heads != 0)
		return false;
	if (m->intermediate > 0 && m->experts <= 0 && m->intermediate % t != 0)
		return false;
	if (m->experts > 0 && m->moe_intermediate > 0 && m->moe_intermediate % t != 0)
		return false;
	return true;
}

static int cmp_speed(const void *x, const void *y, void *arg)
{
	(void)arg;
	const struct pgroup *a = x, *b = y;
	double sa = isnan(a->bw) ? 0 : a->bw, sb = isnan(b->bw) ? 0 : b->bw;
	if (sa != sb)
		return sa > sb ? -1 : 1;
	if (a->mem != b->mem)
		return a->mem > b->mem ? -1 : 1;
	if (a->node != b->node)
		return a->node < b->node ? -1 : 1;
	return a->dev[0] < b->dev[0] ? -1 : a->dev[0] > b->dev[0];
}

static int cmp_place(const void *x, const void *y, void *arg)
{
	const struct pgroup *g = arg;
	const int *a = x, *b = y;
	if (g[*a].node != g[*b].node)
		return g[*a].node < g[*b].node ? -1 : 1;
	return g[*a].dev[0] < g[*b].dev[0] ? -1 : g[*a].dev[0] > g[*b].dev[0];
}

/* The nodes the candidate's groups are on and what they cost per hour (goal's prices). */
static void count_cost(const struct pctx *c, struct pcand *k, const bool *used, size_t ngroups,
		       const struct pgoal *goal)
{
	size_t nn = c->p->nnodes ? c->p->nnodes : 1;
	bool *on = calloc(nn, sizeof *on);
	k->nodes = 0;
	k->cost_hour = NAN;
	if (!on)
		return;
	for (size_t g = 0; g < ngroups; g++)
		if (used[g] && !on[c->groups[g].node]) {
			on[c->groups[g].node] = true;
			k->nodes++;
		}
	int devices = k->tp * k->pp * k->dp;
	if (goal && goal->device_hour > 0) {
		k->cost_hour = goal->device_hour * devices;
	} else if (goal && goal->node_hour > 0) {
		k->cost_hour = goal->node_hour * k->nodes;
	} else if (goal && goal->node_price) {
		double sum = 0;
		for (size_t n = 0; n < c->p->nnodes; n++) {
			if (!on[n])
				continue;
			if (!isnan(goal->node_price[2 * n])) {
				sum += goal->node_price[2 * n];
				continue;
			}
			int d = 0; /* NaN when neither is known */
			for (size_t g = 0; g < ngroups; g++)
				d += used[g] && c->groups[g].node == n ? c->groups[g].n : 0;
			sum += goal->node_price[2 * n + 1] * d;
		}
		k->cost_hour = sum;
	}
	free(on);
}

static void count_replicas(const struct pctx *c, struct pcand *k, size_t ngroups, const struct pgoal *goal)
{
	bool *used = calloc(ngroups ? ngroups : 1, sizeof *used);
	if (!used) {
		k->dp = 1;
		return;
	}
	k->rep[0][0] = -1;
	for (int s = 0; s < k->pp; s++) {
		used[k->stage[s].group] = true;
		k->rep[0][s] = k->stage[s].group;
	}
	int dp = 1;
	while (dp < c->batch && (!goal || goal->replicas)) {
		int pick[MAXPP];
		bool ok = true;
		for (int s = 0; s < k->pp && ok; s++) {
			const struct axl__pdev *want = &c->p->devs[c->groups[k->stage[s].group].dev[0]];
			pick[s] = -1;
			for (size_t g = 0; g < ngroups; g++)
				if (!used[g] && same_kind(&c->p->devs[c->groups[g].dev[0]], want)) {
					pick[s] = (int)g;
					used[g] = true;
					break;
				}
			ok = pick[s] >= 0;
		}
		if (!ok)
			break;
		if (dp < MAXDP)
			for (int s = 0; s < k->pp; s++)
				k->rep[dp][s] = pick[s];
		dp++;
	}
	k->dp = dp;
	count_cost(c, k, used, ngroups, goal);
	free(used);
}

int axl__plan_search(const struct axl_planner *p, const size_t *sel, size_t nsel, const struct axl__model *m,
		     const struct axl__mm *mm, const struct axl__quant *q, int64_t ctx, int64_t batch, double net_gbps,
		     const struct axl__engine *eng, double mem_frac, struct pcand *best, struct pcand *alts, int nalts,
		     int *nalts_out)
{
	const struct pgoal g = {.obj = AXL__OBJ_THROUGHPUT, .replicas = true};
	return axl__plan_search_goal(p, sel, nsel, m, mm, q, ctx, batch, net_gbps, eng, mem_frac, &g, best, alts,
				     nalts, nalts_out);
}

int axl__plan_search_goal(const struct axl_planner *p, const size_t *sel, size_t nsel, const struct axl__model *m,
			  const struct axl__mm *mm, const struct axl__quant *q, int64_t ctx, int64_t batch,
			  double net_gbps, const struct axl__engine *eng, double mem_frac, const struct pgoal *goal,
			  struct pcand *best, struct pcand *alts, int nalts, int *nalts_out)
{
	/* with replicas allowed, each split is tried with them and without (one replica): the
	 * objective picks (fewest devices, cost) */
	struct pgoal one = *goal;
	one.replicas = false;
	struct pcand *bufs = malloc(2 * sizeof *bufs);
	if (!bufs)
		return -1;
	struct pcand *cur = &bufs[0], *bst = &bufs[1];
	bool have = false;
	int na = 0;
	for (int t = 1; t <= MAXTP; t++) {
		if (!tp_valid(m, mm, t) || (size_t)t > nsel || t > eng->max_tp)
			continue;
		struct pgroup *groups;
		size_t ng;
		if (make_groups(p, sel, nsel, t, mem_frac, &groups, &ng) != 0)
			return free(bufs), -1;
		if (ng == 0) {
			free(groups);
			continue;
		}
		qsort_r(groups, ng, sizeof *groups, cmp_speed, NULL);
		int maxpp = (int)(ng < (size_t)MAXPP ? ng : MAXPP);
		if (maxpp > mm->layers)
			maxpp = mm->layers;
		int fit_at = 0;
		for (int pp = 1; pp <= maxpp; pp++) {
			/* a deeper pipeline than the first that fits raises decode throughput only by
			 * keeping more micro-batches in flight: at most one per sequence */
			if (fit_at > 0 && pp > fit_at && pp > batch)
				break;
			for (int v = 0; v < 4; v++) {
				int epv = v & 1;
				const struct pgoal *gv = v >> 1 ? &one : goal;
				if (v >> 1 && (!goal->replicas || batch <= 1))
					continue;
				int ep = epv ? t : 1;
				if (epv && (t == 1 || mm->experts <= 0 || mm->experts % t != 0))
					continue;
				/* the scalars only: the arrays are written before they are read */
				memset(cur, 0, offsetof(struct pcand, stage));
				memset(&cur->fits, 0, sizeof *cur - offsetof(struct pcand, fits));
				cur->tp = t, cur->pp = pp, cur->ep = ep, cur->dp = 1, cur->obj = goal->obj;
				int idx[MAXPP];
				for (int s = 0; s < pp; s++)
					idx[s] = s;
				qsort_r(idx, (size_t)pp, sizeof idx[0], cmp_place, groups);
				for (int s = 0; s < pp; s++)
					cur->stage[s].group = idx[s];
				struct pctx c = {.p = p, .m = m, .mm = mm, .q = q, .groups = groups, .ctx = ctx,
						 .batch = batch, .batch_r = batch, .net_gbps = net_gbps, .eng = eng,
						 .mem_frac = mem_frac};
				count_replicas(&c, cur, ng, gv);
				c.batch_r = (batch + cur->dp - 1) / cur->dp;
				if (!split_layers(&c, cur))
					continue;
				rebalance(&c, cur);
				cur->fits = true;
				cur->shortfall = 0;
				for (int s = 0; s < pp; s++) {
					double over = cur->stage[s].need - (double)groups[cur->stage[s].group].mem;
					if (over > 0) {
						cur->fits = false;
						cur->shortfall += over * t;
					}
				}
				if (!cur->fits) {
					/* not fitting: one replica, priced as none */
					cur->dp = 1;
					cur->cost_hour = NAN;
					c.batch_r = batch;
					stage_memory(&c, cur);
					cur->shortfall = 0;
					for (int s = 0; s < pp; s++) {
						double over =
						    cur->stage[s].need - (double)groups[cur->stage[s].group].mem;
						if (over > 0)
							cur->shortfall += over * t;
					}
				}
				axl__plan_estimate(&c, cur);
				/* resolve group indices to devices for the caller */
				for (int r = 0; r < cur->dp && r < MAXDP; r++)
					for (int s = 0; s < pp; s++) {
						const struct pgroup *g =
						    &groups[r == 0 ? cur->stage[s].group : cur->rep[r][s]];
						for (int d = 0; d < t; d++)
							cur->devs[r][s][d] = (uint16_t)g->dev[d];
						if (r == 0) {
							cur->stage[s].link = g->link;
							cur->stage[s].link_gbps = g->link_gbps;
							cur->stage[s].mem_cap = g->mem;
						}
					}
				cur->batch_r = c.batch_r;
				if (cur->fits && fit_at == 0)
					fit_at = pp;
				if (!have || axl__pcand_better(cur, bst)) {
					if (have && alts)
						axl__pcand_keep(alts, nalts, &na, bst);
					struct pcand *tmp = bst;
					bst = cur;
					cur = tmp;
					have = true;
				} else if (alts) {
					axl__pcand_keep(alts, nalts, &na, cur);
				}
			}
		}
		free(groups);
	}
	if (have)
		*best = *bst;
	free(bufs);
	if (nalts_out)
		*nalts_out = na;
	return have ? 1 : 0;
}
