/* SPDX-License-Identifier: MIT */
/* axl_plan_compute and what it answers: the request's best plan, the
 * alternatives (other splits, other quantisations, a shorter context, more devices);
 * plan_doc.c writes the "axl.plan" document, plan_text.c the readable text. */
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

static void warn(struct axl_plan *pl, const char *fmt, const char *a, int64_t x)
{
	if (pl->nwarn < MAXWARN) {
		snprintf(pl->warn[pl->nwarn], sizeof pl->warn[0], fmt, a, (long long)x);
		pl->nwarn++;
	}
}

/* ---- device selection --------------------------------------------------------------- */

static int select_devices(const struct axl_planner *p, const char *list, size_t **sel_out, size_t *nsel)
{
	size_t *sel = calloc(p->ndevs ? p->ndevs : 1, sizeof *sel);
	bool *want = calloc(p->ndevs ? p->ndevs : 1, sizeof *want);
	if (!sel || !want) {
		free(sel), free(want);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	if (list && list[0]) {
		const char *s = list;
		while (*s) {
			const char *e = strchr(s, ',');
			size_t n = e ? (size_t)(e - s) : strlen(s);
			char tok[192];
			if (n == 0 || n >= sizeof tok) {
				free(sel), free(want);
				return axl__error(AXL_EINVAL, "--devices: bad entry in \"%s\"", list);
			}
			memcpy(tok, s, n);
			tok[n] = 0;
			bool found = false;
			for (size_t i = 0; i < p->ndevs; i++) {
				const struct axl__pdev *d = &p->devs[i];
				char full[192];
				snprintf(full, sizeof full, "%s/%s", p->nodes[d->node].name, d->id);
				if (strcmp(tok, d->id) == 0 || strcmp(tok, full) == 0 ||
				    (d->uuid[0] && strcasecmp(tok, d->uuid) == 0)) {
					want[i] = true;
					found = true;
				}
			}
			if (!found) {
				free(sel), free(want);
				return axl__error(AXL_EINVAL, "--devices: no device \"%s\" on the node(s)", tok);
			}
			s += n;
			if (*s == ',')
				s++;
		}
	} else {
		/* the accelerators; the hosts only when no node has one (docs/plan.md "CPU plans") */
		bool acc = false;
		for (size_t i = 0; i < p->ndevs; i++)
			acc |= !p->devs[i].host;
		for (size_t i = 0; i < p->ndevs; i++)
			want[i] = p->devs[i].host != acc;
	}
	size_t n = 0;
	for (size_t i = 0; i < p->ndevs; i++)
		if (want[i] && p->devs[i].memory_bytes > 0)
			sel[n++] = i;
	free(want);
	if (n == 0) {
		free(sel);
		return axl__error(AXL_EINVAL, "no device whose memory is known to plan on");
	}
	*sel_out = sel;
	*nsel = n;
	return 0;
}

static double network_gbps(const struct axl_planner *p, const struct axl_plan_request *req, char *note, size_t cap)
{
	if (req->network_gbps > 0) {
		snprintf(note, cap, "as given");
		return req->network_gbps;
	}
	double g = INFINITY;
	for (size_t i = 0; i < p->nnodes; i++)
		if (p->nodes[i].nic_gbps > 0 && p->nodes[i].nic_gbps < g)
			g = p->nodes[i].nic_gbps;
		else if (!(p->nodes[i].nic_gbps > 0))
			g = -1;
	if (g > 0 && isfinite(g)) {
		snprintf(note, cap, "the nodes' RDMA NICs");
		return g;
	}
	snprintf(note, cap, "assumed 100 Gb/s Ethernet");
	return axl__plan_factors.default_net_gbps;
}

/* ---- one search with its own memory model --------------------------------------------- */

int axl__plan_run(const struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
	       const struct axl__model *m, const struct axl__quant *q, double kvb, int64_t ctx, int64_t batch,
	       double net, const struct pgoal *goal, struct pcand *best, struct pcand *alts, int nalts, int *na,
	       struct axl__mm *keep)
{
	struct axl__mm mm;
	char err[200];
	if (axl__mm_build(&mm, m, q, kvb, ctx, err, sizeof err) != 0)
		return axl__error(AXL_EINVAL, "%s: %s", m->id, err);
	int rc = axl__plan_search_goal(p, sel, nsel, m, &mm, q, ctx, batch, net, pl->eng, pl->frac, goal, best, alts,
				       nalts, na);
	if (keep)
		*keep = mm;
	else
		axl__mm_free(&mm);
	if (rc < 0)
		return axl__error(AXL_ENOMEM, "out of memory");
	return rc;
}

static void add_alt(struct axl_plan *pl, const char *kind, const struct pcand *c, const char *quant, int64_t ctx,
		    const char *note, const struct axl_planner *p)
{
	char on[160];
	if (!note && p) {
		/* the devices' models: "8 x NVIDIA H100 80GB HBM3 + 8 x AMD Instinct MI300X" */
		const char *models[MAXPP];
		int counts[MAXPP], nm = 0;
		for (int s = 0; s < c->pp; s++) {
			size_t d0 = c->devs[0][s][0];
			const char *model = d0 < p->ndevs ? p->devs[d0].model : "?";
			if (!model[0])
				model = d0 < p->ndevs ? p->devs[d0].id : "?";
			int j = 0;
			while (j < nm && strcmp(models[j], model) != 0)
				j++;
			if (j == nm) {
				models[nm] = model;
				counts[nm++] = 0;
			}
			counts[j] += c->tp * c->dp;
		}
		on[0] = 0;
		for (int j = 0; j < nm; j++) {
			size_t l = strlen(on);
			snprintf(on + l, sizeof on - l, "%s%d x %s", j ? " + " : "", counts[j], models[j]);
		}
		note = on;
	}
	if (pl->nalt >= MAXALT)
		return;
	struct palt *a = &pl->alt[pl->nalt++];
	memset(a, 0, sizeof *a);
	snprintf(a->kind, sizeof a->kind, "%s", kind);
	a->tp = c->tp, a->pp = c->pp, a->dp = c->dp, a->ep = c->ep;
	snprintf(a->quant, sizeof a->quant, "%s", quant);
	a->fits = c->fits;
	a->decode = c->decode;
	a->prefill = c->prefill;
	a->ctx = ctx;
	a->devices = c->tp * c->pp * c->dp;
	a->cost_hour = c->cost_hour;
	snprintf(a->note, sizeof a->note, "%s", note ? note : "");
}

/* A planner with k more devices like the biggest selected one, on its node. */
static int grow(const struct axl_planner *p, const size_t *sel, size_t nsel, size_t tmpl, int k,
		struct axl_planner *out, size_t **sel_out, size_t *nsel_out)
{
	memset(out, 0, sizeof *out);
	for (size_t i = 0; i < p->nnodes; i++) {
		size_t idx;
		if (axl__planner_add_node(out, p->nodes[i].name, p->nodes[i].nic_gbps, &idx) != 0)
			return -1;
	}
	for (size_t i = 0; i < p->ndevs; i++)
		if (axl__planner_add_dev(out, &p->devs[i]) != 0)
			return -1;
	/* the template's best link to a device of its kind */
	enum axl__plink lk = AXL__PL_PCIE;
	double lg = -1;
	for (size_t i = 0; i < p->ndevs; i++) {
		if (i == tmpl || p->devs[i].node != p->devs[tmpl].node)
			continue;
		const struct axl__plink_info *l = axl__planner_link(p, tmpl, i);
		if (l && strcmp(p->devs[i].model, p->devs[tmpl].model) == 0 && l->kind > lk) {
			lk = l->kind;
			lg = l->gbps;
		}
	}
	for (int j = 0; j < k; j++) {
		struct axl__pdev d = p->devs[tmpl];
		snprintf(d.id, sizeof d.id, "new:%d", j);
		d.uuid[0] = 0;
		if (axl__planner_add_dev(out, &d) != 0)
			return -1;
	}
	for (size_t i = 0; i < out->ndevs; i++)
		for (size_t j = i + 1; j < out->ndevs; j++) {
			if (i < p->ndevs && j < p->ndevs) {
				const struct axl__plink_info *l = axl__planner_link(p, i, j);
				if (l && l->kind != AXL__PL_NONE)
					axl__planner_set_link(out, i, j, l->kind, l->gbps);
			} else if (out->devs[i].node == out->devs[tmpl].node &&
				   strcmp(out->devs[i].model, out->devs[tmpl].model) == 0) {
				axl__planner_set_link(out, i, j, lk, lg);
			}
		}
	size_t *s = malloc((nsel + (size_t)k) * sizeof *s);
	if (!s)
		return -1;
	memcpy(s, sel, nsel * sizeof *s);
	for (int j = 0; j < k; j++)
		s[nsel + (size_t)j] = p->ndevs + (size_t)j;
	*sel_out = s;
	*nsel_out = nsel + (size_t)k;
	return 0;
}

static void planner_release(struct axl_planner *p)
{
	free(p->devs);
	free(p->nodes);
	free(p->links);
}

static void alternatives(struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
			 const struct axl__model *m, double kvb, double net, const struct pgoal *goal,
			 const struct pcand *splits, int nsplits)
{
	/* a grown planner has more devices than goal's node prices know: priced by device or
	 * node only */
	struct pgoal ggoal = *goal;
	ggoal.node_price = NULL;
	char note[160];
	/* other splits of the same request (none when it does not fit: no split of it fits) */
	for (int i = 0; pl->fits && i < nsplits && i < 3; i++)
		if (!pl->have || splits[i].tp != pl->best.tp || splits[i].pp != pl->best.pp ||
		    splits[i].ep != pl->best.ep)
			add_alt(pl, "split", &splits[i], pl->q.name, pl->ctx, NULL, p);
	/* other quantisations */
	static const char *const qs[] = {"bf16", "fp8", "int8", "int4", "q8_0", "q4_k_m"};
	int nq = 0;
	struct pcand *c = malloc(sizeof *c);
	if (!c)
		return;
	for (size_t i = 0; i < sizeof qs / sizeof qs[0]; i++) {
		struct axl__quant q;
		if (strcmp(qs[i], pl->q.name) == 0 || axl__quant_parse(qs[i], &q) != 0)
			continue;
		if (axl__plan_run(pl, p, sel, nsel, m, &q, kvb, pl->ctx, pl->batch, net, goal, c, NULL, 0, NULL,
				  NULL) != 1 ||
		    !c->fits)
			continue;
		add_alt(pl, "quantization", c, q.name, pl->ctx, NULL, p);
		nq++;
	}
	(void)nq;
	if (pl->fits) {
		free(c);
		return;
	}
	/* the longest context that fits */
	int64_t lo = 0, hi = pl->ctx;
	struct pcand *okc = malloc(sizeof *okc);
	while (okc && hi - lo > 1 && hi > 16) {
		int64_t mid = lo + (hi - lo) / 2;
		if (axl__plan_run(pl, p, sel, nsel, m, &pl->q, kvb, mid, pl->batch, net, goal, c, NULL, 0, NULL,
				  NULL) == 1 &&
		    c->fits) {
			lo = mid;
			*okc = *c;
		} else {
			hi = mid;
		}
	}
	if (okc && lo >= 16) {
		snprintf(note, sizeof note, "context %lld tokens", (long long)lo);
		add_alt(pl, "context", okc, pl->q.name, lo, note, p);
	}
	free(okc);
	/* more devices like the biggest one (not more hosts: another node is another plan) */
	size_t tmpl = sel[0];
	for (size_t i = 0; i < nsel; i++)
		if (p->devs[sel[i]].host) {
			free(c);
			return;
		}
	for (size_t i = 1; i < nsel; i++)
		if (p->devs[sel[i]].memory_bytes > p->devs[tmpl].memory_bytes)
			tmpl = sel[i];
	for (int k = 1; k <= 64 && p->ndevs + (size_t)k <= 4096; k = k < 8 ? k + 1 : k * 2) {
		struct axl_planner g;
		size_t *gsel = NULL, gn = 0;
		int rc = grow(p, sel, nsel, tmpl, k, &g, &gsel, &gn);
		if (rc == 0)
			rc = axl__plan_run(pl, &g, gsel, gn, m, &pl->q, kvb, pl->ctx, pl->batch, net, &ggoal, c, NULL,
					   0, NULL, NULL);
		free(gsel);
		planner_release(&g);
		if (rc == 1 && c->fits) {
			/* the devices it uses: how many are new, how many in all (its split's count) */
			int added = 0, all = c->tp * c->pp * c->dp;
			for (int r = 0; r < c->dp && r < MAXDP; r++)
				for (int s = 0; s < c->pp; s++)
					for (int d = 0; d < c->tp; d++)
						added += c->devs[r][s][d] >= p->ndevs;
			snprintf(note, sizeof note, "%d more %s: %d device%s in all", added,
				 p->devs[tmpl].model[0] ? p->devs[tmpl].model : p->devs[tmpl].id, all,
				 all > 1 ? "s" : "");
			add_alt(pl, "devices", c, pl->q.name, pl->ctx, note, NULL);
			break;
		}
	}
	free(c);
}

/* ---- the objective and the price --------------------------------------------------- */

/* The price the plan is costed at: the request's per device- or node-hour, else the
 * nodes' own (node file or price table), per node-hour (a node priced per device-hour
 * costs that times its devices). The cost objective without any price is refused. */
static int plan_goal(struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
		     struct pgoal *goal, double **node_price)
{
	pl->obj = goal->obj;
	*node_price = NULL;
	if (goal->device_hour > 0 || goal->node_hour > 0) {
		snprintf(pl->price_basis, sizeof pl->price_basis, "%s",
			 goal->device_hour > 0 ? "device-hour" : "node-hour");
		snprintf(pl->price_source, sizeof pl->price_source, "as given");
		pl->price_given = goal->device_hour > 0 ? goal->device_hour : goal->node_hour;
		return 0;
	}
	double *np = malloc((p->nnodes ? p->nnodes : 1) * 2 * sizeof *np);
	if (!np)
		return axl__error(AXL_ENOMEM, "out of memory");
	bool any = false, all = true;
	for (size_t n = 0; n < p->nnodes; n++) {
		const struct axl__pnode *nd = &p->nodes[n];
		/* [2n] per node-hour, [2n+1] per device-hour: one of them, or both NaN */
		np[2 * n] = nd->price_node_hour;
		np[2 * n + 1] = isnan(nd->price_node_hour) ? nd->price_device_hour : NAN;
		bool used = false;
		for (size_t i = 0; i < nsel; i++)
			used |= p->devs[sel[i]].node == n;
		if (!used)
			continue;
		if (isnan(np[2 * n]) && isnan(np[2 * n + 1]))
			all = false;
		else if (!any) {
			any = true;
			snprintf(pl->price_basis, sizeof pl->price_basis, "%s",
				 strncmp(nd->price_source, "node file", 9) == 0 ? "node file" : "price table");
			snprintf(pl->price_source, sizeof pl->price_source, "%s", nd->price_source);
		}
	}
	if (!any || !all) {
		pl->price_basis[0] = 0;
		pl->price_source[0] = 0;
		free(np);
		if (goal->obj == AXL__OBJ_COST)
			return axl__error(AXL_EINVAL, "the cost objective needs a price: --price-device-hour, "
						      "--price-node-hour, a node file's \"price\", or a node whose "
						      "instance type is in the price table (docs/plan.md \"Cost\")");
		return 0;
	}
	goal->node_price = np;
	*node_price = np;
	return 0;
}

/* ---- compute ------------------------------------------------------------------------ */

int axl_plan_compute(axl_plan **out, const axl_planner *p, const axl_model *model, const struct axl_plan_request *req)
{
	axl__error_clear();
	if (!out || !p || !model || !req)
		return axl__error(AXL_EINVAL, "axl_plan_compute: NULL argument");
	*out = NULL;
	if (req->version < 1 || req->version > AXL_PLAN_REQUEST_VERSION)
		return axl__error(AXL_EVERSION, "axl_plan_request version %u (this library: 1 to %u)", req->version,
				  AXL_PLAN_REQUEST_VERSION);
	/* engine and memory_fraction are in version 2 and later */
	const char *engine = req->version >= 2 ? req->engine : NULL;
	double frac = req->version >= 2 ? req->memory_fraction : 0;
	const struct axl__engine *eng = axl__engine_find(engine);
	if (!eng)
		return axl__error(AXL_EINVAL, "unknown engine \"%s\" (%s)", engine, axl__engine_names());
	if (!(frac == 0 || (frac > 0 && frac <= 1)))
		return axl__error(AXL_EINVAL, "memory fraction %g out of range (more than 0, at most 1)", frac);
	if (req->context_tokens < 0 || req->context_tokens > AXL_PLAN_MAX_CONTEXT)
		return axl__error(AXL_ERANGE, "context %lld tokens out of range (1 to %lld)",
				  (long long)req->context_tokens, (long long)AXL_PLAN_MAX_CONTEXT);
	if (req->batch < 0 || req->batch > AXL_PLAN_MAX_BATCH)
		return axl__error(AXL_ERANGE, "batch %lld out of range (1 to %d)", (long long)req->batch,
				  AXL_PLAN_MAX_BATCH);
	/* version 2: the objective and the prices */
	const char *objective = req->version >= 2 ? req->objective : NULL;
	double pdev = req->version >= 2 ? req->price_per_device_hour : 0;
	double pnode = req->version >= 2 ? req->price_per_node_hour : 0;
	int obj = objective && objective[0] ? axl__pobj_parse(objective) : AXL__OBJ_DEVICES;
	if (obj < 0)
		return axl__error(AXL_EINVAL, "unknown objective \"%s\" (devices, latency, throughput, cost)",
				  objective);
	if (!(pdev >= 0) || !isfinite(pdev) || !(pnode >= 0) || !isfinite(pnode))
		return axl__error(AXL_EINVAL, "a price per %s-hour must be a positive number, not %g",
				  !(pdev >= 0) || !isfinite(pdev) ? "device" : "node",
				  !(pdev >= 0) || !isfinite(pdev) ? pdev : pnode);
	if (pdev > 0 && pnode > 0)
		return axl__error(AXL_EINVAL, "give a price per device-hour or per node-hour, not both");
	const struct axl__model *m = &model->m;
	struct axl_plan *pl = calloc(1, sizeof *pl);
	if (!pl)
		return axl__error(AXL_ENOMEM, "out of memory");
	pl->model = *model;
	pl->eng = eng;
	pl->frac_given = frac > 0;
	pl->frac = frac > 0 ? frac : eng->memory_fraction;
	pl->obj_default = !(objective && objective[0]);
	int rc = 0;
	const bool qauto = req->quantization && strcasecmp(req->quantization, "auto") == 0;
	if (qauto) {
		axl__quant_default(m, &pl->q); /* until the devices are known */
	} else if (req->quantization && req->quantization[0]) {
		if (axl__quant_parse(req->quantization, &pl->q) != 0) {
			free(pl);
			return axl__error(
			    AXL_EINVAL,
			    "unknown quantisation \"%s\" (auto, fp32, bf16, fp16, fp8, int8, int4, awq, gptq, "
			    "or a GGUF type such as q4_k_m, q8_0)",
			    req->quantization);
		}
	} else {
		axl__quant_default(m, &pl->q);
	}
	const char *kvn =
	    req->kv_dtype && req->kv_dtype[0] ? req->kv_dtype : (m->source == AXL__MSRC_GGUF ? "fp16" : "bf16");
	double kvb = axl__kv_dtype_bytes(kvn, pl->kv);
	if (kvb <= 0) {
		free(pl);
		return axl__error(AXL_EINVAL, "unknown KV cache type \"%s\" (fp32, bf16, fp16, fp8, int8)", kvn);
	}
	pl->ctx = req->context_tokens > 0 ? req->context_tokens
					 : (m->max_context > 0 && m->max_context < 8192 ? m->max_context : 8192);
	pl->batch = req->batch > 0 ? req->batch : 1;
	if (m->max_context > 0 && pl->ctx > m->max_context)
		warn(pl, "%s: the context is longer than the model's maximum (%lld tokens)", m->id, m->max_context);
	/* every option is checked before the devices, so a bad one is named on a node without
	 * any; then no devices at all (no accelerator, no host memory known) is an empty plan
	 * with its reason, not an error: ai-hwaccel's plan_sharding returns an empty plan (no
	 * shards, no estimate) for a registry without devices (docs/plan.md "An empty node") */
	if (p->ndevs == 0 && !(req->devices && req->devices[0])) {
		if (obj == AXL__OBJ_COST && !(pdev > 0) && !(pnode > 0)) {
			/* the cost objective needs a price whatever the node */
			free(pl);
			return axl__error(AXL_EINVAL, "--objective cost needs a price per device-hour or node-hour");
		}
		struct axl__mm mm;
		char err[200];
		if (axl__mm_build(&mm, m, &pl->q, kvb, pl->ctx, err, sizeof err) != 0) {
			free(pl);
			return axl__error(AXL_EINVAL, "%s: %s", m->id, err);
		}
		pl->weights = mm.weights;
		pl->kv_token = mm.kv_token_avg;
		pl->kv_cache = mm.kv_token_avg * (double)pl->ctx * (double)pl->batch;
		axl__mm_free(&mm);
		pl->total = pl->weights + pl->kv_cache;
		pl->need_bytes = pl->total;
		pl->shortfall = pl->total;
		pl->net = network_gbps(p, req, pl->net_note, sizeof pl->net_note);
		snprintf(pl->reason, sizeof pl->reason, "no devices to plan on: %s",
			 p->nnodes > 1 ? "the nodes have no accelerator and their hosts' memory is not known"
			 : p->nnodes   ? "the node has no accelerator and its host's memory is not known"
				       : "no node was given");
		*out = pl;
		return 0;
	}
	size_t *sel = NULL, nsel = 0;
	if ((rc = select_devices(p, req->devices, &sel, &nsel)) != 0) {
		free(pl);
		return rc;
	}
	for (size_t i = 0; i < nsel; i++) {
		const struct axl__pdev *d = &p->devs[sel[i]];
		if (d->host && d->assumed[0] && pl->nwarn < MAXWARN)
			snprintf(pl->warn[pl->nwarn++], sizeof pl->warn[0], "%s%s%s: %s",
				 p->nnodes > 1 ? p->nodes[d->node].name : "", p->nnodes > 1 ? "/" : "", d->id,
				 d->assumed);
	}
	/* a plan on hosts alone, with no engine named, is planned as llama.cpp runs a model on a
	 * CPU (docs/plan.md "CPU plans"): its factors and its memory fraction (all of it) */
	bool hosts_only = nsel > 0;
	for (size_t i = 0; i < nsel; i++)
		hosts_only &= p->devs[sel[i]].host;
	if (hosts_only && !(engine && engine[0])) {
		pl->eng = axl__engine_find("llama.cpp");
		pl->frac = frac > 0 ? frac : pl->eng->memory_fraction;
	}
	double net = network_gbps(p, req, pl->net_note, sizeof pl->net_note);
	pl->net = net;
	double *node_price = NULL;
	struct pgoal goal = {.obj = (enum axl__pobj)obj, .device_hour = pdev, .node_hour = pnode, .replicas = true};
	if ((rc = plan_goal(pl, p, sel, nsel, &goal, &node_price)) != 0) {
		free(sel), free(pl);
		return rc;
	}
	if (qauto) {
		/* the devices the chosen format runs on natively: the plan's selection */
		size_t *sub = malloc(nsel * sizeof *sub), nsub = 0;
		if (!sub || axl__plan_choose_auto(pl, p, sel, nsel, m, kvb, net, &goal, sub, &nsub) != 0) {
			free(sub), free(sel), free(pl), free(node_price);
			return axl__error(AXL_ENOMEM, "out of memory");
		}
		free(sel);
		sel = sub;
		nsel = nsub;
	}
	struct pcand *splits = calloc(4, sizeof *splits);
	struct axl__mm mm;
	int ns = 0;
	rc = splits ? axl__plan_run(pl, p, sel, nsel, m, &pl->q, kvb, pl->ctx, pl->batch, net, &goal, &pl->best, splits,
				    4, &ns, &mm)
		    : axl__error(AXL_ENOMEM, "out of memory");
	if (rc < 0) {
		free(sel), free(splits), free(pl), free(node_price);
		return rc;
	}
	pl->have = rc == 1;
	pl->fits = pl->have && pl->best.fits;
	pl->shortfall = pl->fits ? 0 : (pl->have ? pl->best.shortfall : mm.weights);
	pl->weights = mm.weights;
	pl->kv_token = mm.kv_token_avg;
	pl->kv_cache = mm.kv_token_avg * (double)pl->ctx * (double)pl->batch;
	double sum = 0;
	if (pl->have) {
		for (int s = 0; s < pl->best.pp; s++) {
			const struct pstage *st = &pl->best.stage[s];
			pl->act += st->act * pl->best.tp * pl->best.dp;
			pl->over += st->over * pl->best.tp * pl->best.dp;
			sum += st->need * pl->best.tp * pl->best.dp;
		}
		/* dp replicas hold the model dp times: weights and the KV of their sequences */
		double base = pl->weights * pl->best.dp + pl->kv_cache + pl->act + pl->over;
		pl->replicated = sum > base ? sum - base : 0;
		pl->total = sum;
		if (pl->best.dp > 1)
			pl->weights *= pl->best.dp;
	} else {
		pl->total = pl->weights + pl->kv_cache;
	}
	axl__mm_free(&mm);
	if (!pl->have)
		warn(pl, "%sno split of the model over these devices is possible (%lld devices)", "", (int64_t)nsel);
	pl->nlabel = p->ndevs;
	pl->label = calloc(p->ndevs, sizeof *pl->label);
	if (!pl->label) {
		free(sel), free(splits), free(pl), free(node_price);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	for (size_t i = 0; i < p->ndevs; i++) {
		if (p->nnodes > 1)
			snprintf(pl->label[i], sizeof pl->label[i], "%s/%s", p->nodes[p->devs[i].node].name,
				 p->devs[i].id);
		else
			snprintf(pl->label[i], sizeof pl->label[i], "%s", p->devs[i].id);
	}
	if (!qauto && req->quantization && req->quantization[0]) {
		/* the devices the plan uses: its split's, else (nothing fits) those it was tried on */
		size_t *used = malloc((nsel ? nsel : 1) * sizeof *used), nused = 0;
		if (used && pl->have) {
			for (int r = 0; r < pl->best.dp && r < MAXDP; r++)
				for (int s = 0; s < pl->best.pp; s++)
					for (int t = 0; t < pl->best.tp && nused < nsel; t++)
						used[nused++] = pl->best.devs[r][s][t];
		} else if (used) {
			memcpy(used, sel, nsel * sizeof *used);
			nused = nsel;
		}
		if (used)
			axl__plan_warn_not_native(pl, p, used, nused);
		free(used);
	}
	if (!pl->fits) {
		/* how far short: what the closest split needs against what the devices hold */
		pl->need_bytes = pl->total;
		for (size_t i = 0; i < nsel; i++)
			pl->avail_bytes += axl__plan_usable_bytes(&p->devs[sel[i]], pl->frac);
		pl->avail_devices = (int)nsel;
		axl__plan_describe_set(p, sel, nsel, pl->avail_what, sizeof pl->avail_what);
	}
	alternatives(pl, p, sel, nsel, m, kvb, net, &goal, splits, ns);
	free(node_price);
	free(sel);
	free(splits);
	*out = pl;
	return 0;
}

void axl_plan_free(axl_plan *plan)
{
	if (plan) {
		free(plan->label);
		free(plan);
	}
}

int axl_plan_get_summary(const axl_plan *pl, struct axl_plan_summary *s)
{
	if (!pl || !s)
		return axl__error(AXL_EINVAL, "axl_plan_get_summary: NULL argument");
	memset(s, 0, sizeof *s);
	s->fits = pl->fits;
	s->total_bytes = (int64_t)llround(pl->total);
	s->shortfall_bytes = pl->fits ? 0 : (int64_t)ceil(pl->shortfall);
	/* a plan that does not fit has no split and no speed */
	bool ok = pl->have && pl->fits;
	s->tp = ok ? pl->best.tp : 0;
	s->pp = ok ? pl->best.pp : 0;
	s->dp = ok ? pl->best.dp : 0;
	s->ep = ok ? pl->best.ep : 0;
	s->decode_tokens_per_s = ok ? pl->best.decode : NAN;
	s->prefill_tokens_per_s = ok ? pl->best.prefill : NAN;
	s->bound = ok && pl->best.bound_known ? pl->best.bound : NULL;
	return 0;
}
