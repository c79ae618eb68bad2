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
	char note[160];
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
	char quant_reason[200]; /* --quant auto: why this format; "" otherwise */
};

/* plan_text.c: names the document and the text share */
const char *axl__plan_link_name(enum axl__plink k);
const char *axl__plan_quant_label(const struct axl_plan *pl);

#endif
