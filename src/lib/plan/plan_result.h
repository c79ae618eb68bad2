/* SPDX-License-Identifier: MIT */
/* A computed plan (plan_out.c computes it; plan_doc.c writes the document, plan_text.c the
 * readable answer). */
#ifndef AXL_LIB_PLAN_RESULT_H
#define AXL_LIB_PLAN_RESULT_H

#include <stdbool.h>

#include "plan_impl.h"

#define MAXALT 12
#define MAXWARN 4

struct palt {
	char kind[16]; /* "split", "quantization", "context", "devices" */
	int tp, pp, dp, ep;
	char quant[16];
	bool fits;
	double decode, prefill;
	int64_t ctx;
	int devices;   /* devices the alternative uses */
	double cost_hour; /* its devices' price per hour; NaN unpriced */
	char note[160];
};

/* --quant auto: one format it tried (docs/plan.md "Choosing the format") */
#define MAXQTRY 8
struct pqtry {
	char quant[16];
	char result[16];   /* "fits", "short", "not native", "skipped" */
	int devices;       /* devices it was planned on; 0 none */
	double short_bytes; /* "short": how far; else 0 */
	char detail[200];  /* why, in words */
};

struct axl_plan {
	struct axl_model model;
	struct axl__quant q;
	char kv[16];
	int64_t ctx, batch;
	double weights, kv_cache, kv_token, act, over, replicated, total;
	bool have, fits;
	double shortfall;
	struct pcand best;
	struct palt alt[MAXALT];
	int nalt;
	char warn[MAXWARN][256];
	int nwarn;
	char (*label)[96]; /* every planner device: "id" or "node/id" */
	size_t nlabel;
	char net_note[64];
	double net;
	/* the objective and the price (docs/plan.md "Objective", "Cost") */
	enum axl__pobj obj;
	bool obj_default;
	char price_basis[16];   /* "device-hour", "node-hour", "price table", "node file", "" none */
	char price_source[224];
	double price_given;     /* the request's price per device- or node-hour; 0 none */
	/* the engine (docs/plan.md "Calibration") */
	const struct axl__engine *eng;
	double frac;            /* memory fraction planned with */
	bool frac_given;        /* --memory-fraction, else the engine's default */
	char quant_reason[512]; /* --quant auto: why this format; "" otherwise */
	struct pqtry qtry[MAXQTRY]; /* --quant auto: the formats tried, in order */
	int nqtry;
	/* when nothing fits: what the closest split needs over the devices it was planned on
	 * and what they hold (the engine's fraction of each) */
	double need_bytes, avail_bytes;
	int avail_devices;
	char avail_what[160]; /* "2 x NVIDIA H100 80GB HBM3" */
	/* an empty node (no accelerators, no host memory known): the plan is empty and says
	 * why, as ai-hwaccel's plan_sharding returns an empty plan for no devices; "" otherwise */
	char reason[160];
};

/* plan_text.c: names the document and the text share */
const char *axl__plan_link_name(enum axl__plink k);
const char *axl__plan_quant_label(const struct axl_plan *pl);
/* The quantisation alternative cheaper per million decoded tokens than the plan (objective
 * cost, priced): its index in pl->alt, -1 none. */
int axl__plan_cheaper_alt(const struct axl_plan *pl);

/* plan_out.c: one search of devs[sel[0..nsel)] with its own memory model for q (keep: the
 * model kept for the caller, else freed); 1 found, 0 none, -1 error (set) */
int axl__plan_run(const struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
		  const struct axl__model *m, const struct axl__quant *q, double kvb, int64_t ctx, int64_t batch,
		  double net, const struct pgoal *goal, struct pcand *best, struct pcand *alts, int nalts, int *na,
		  struct axl__mm *keep);
/* plan_quant.c: what a device planned on holds (the engine's fraction, never more than is
 * free); "2 x NVIDIA H100 80GB HBM3 + ..." of devs[set[0..n)]; the not-native warnings of
 * an explicit format; --quant auto's choice (the devices to plan on in sub[0..*nsub)) */
double axl__plan_usable_bytes(const struct axl__pdev *d, double frac);
void axl__plan_describe_set(const struct axl_planner *p, const size_t *set, size_t n, char *out, size_t cap);
void axl__plan_warn_not_native(struct axl_plan *pl, const struct axl_planner *p, const size_t *used, size_t nused);
int axl__plan_choose_auto(struct axl_plan *pl, const struct axl_planner *p, const size_t *sel, size_t nsel,
			  const struct axl__model *m, double kvb, double net, const struct pgoal *goal, size_t *sub,
			  size_t *nsub);

#endif
