/* SPDX-License-Identifier: MIT */
/* The search's own structures (plan.c, plan_out.c). */
#ifndef AXL_LIB_PLAN_IMPL_H
#define AXL_LIB_PLAN_IMPL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "plan.h"

#define MAXTP 16
#define MAXPP 32
#define MAXDP 8 /* replicas whose devices are listed; dp may be larger */

/* The assumptions the estimates apply (docs/plan.md). */
struct axl__plan_factors {
	double compute_eff;   /* achieved / peak matmul throughput in prefill */
	double link_eff;      /* achieved / peak link bandwidth in collectives */
	int64_t runtime_bytes;   /* per device: the runtime's context */
	int64_t workspace_bytes; /* per device: GEMM and attention workspaces */
	int64_t comm_bytes;      /* per device of a multi-device plan: collective buffers */
	double chunk_tokens;  /* prefill chunk (vLLM's max_num_batched_tokens order) */
	double default_pcie_gbps; /* a link whose bandwidth no source gives (PCIe 3.0 x16) */
	double default_net_gbps;  /* between nodes when no NIC is listed (100 Gb/s) */
};
extern const struct axl__plan_factors axl__plan_factors;

/* How the weights are stored, for the engine's memory-bandwidth efficiency. */
enum axl__wclass { AXL__WC_16, AXL__WC_8, AXL__WC_4, AXL__WC_GGUF, AXL__WC__COUNT };

/* A serving engine's calibrated behaviour (plan_engine.c, docs/plan.md "Calibration"). */
struct axl__engine {
	const char *name;              /* "vllm", "llama.cpp", ... */
	double mem_eff[AXL__WC__COUNT]; /* achieved / peak memory bandwidth in decode, by weight class */
	double layer_s;                /* fixed seconds per layer per decode step (kernel launches) */
	double moe_layer_s;            /* more per MoE layer (routing, gather) */
	double alpha_fabric, alpha_pcie, alpha_net; /* seconds per collective or hop */
	double memory_fraction;        /* of each device's memory the engine gives the model */
	int max_tp;                    /* 1: the engine splits by layers only (by default) */
	double band_lo, band_hi;       /* measured / estimate: the residuals' 10th and 90th percentiles */
	int rows;                      /* calibration rows measured with it (0: factors assumed) */
	const char *basis;             /* where the factors come from */
	const char *fraction_source;   /* where the memory fraction comes from */
};
#define AXL__ENGINE_DEFAULT "vllm"
/* The engine called name (case-insensitive; NULL or "": the default); NULL unknown. */
const struct axl__engine *axl__engine_find(const char *name);
/* Names of every engine, comma-separated, for messages. */
const char *axl__engine_names(void);
enum axl__wclass axl__wclass_of(const struct axl__quant *q);
/* An estimate's expected range [low, high] (high never above the roofline). */
void axl__engine_band(const struct axl__engine *e, double est, double roof, double out[2]);
/* Prefill has no recorded measurement: an assumed range (docs/plan.md). */
#define AXL__PREFILL_BAND_LO 0.5
#define AXL__PREFILL_BAND_HI 1.2
void axl__prefill_band(double est, double roof, double out[2]);

struct pgroup {
	size_t dev[MAXTP];
	int n;
	size_t node;
	enum axl__plink link;
	double link_gbps;
	double bw;                      /* min memory bandwidth GB/s; NaN unknown */
	int64_t mem;                    /* min usable bytes */
	double tflops[AXL__PF__COUNT];  /* min; NaN unknown */
};

struct pstage {
	int group;
	int first, last;
	double weights, kv, act, over, need; /* per device */
	int64_t mem_cap;
	enum axl__plink link;
	double link_gbps;
};

/* What the search optimises (--objective, docs/plan.md "Objective"). */
enum axl__pobj { AXL__OBJ_DEVICES, AXL__OBJ_LATENCY, AXL__OBJ_THROUGHPUT, AXL__OBJ_COST };

/* The objective and the prices a candidate's cost comes from (plan_goal.c). */
struct pgoal {
	enum axl__pobj obj;
	double device_hour;        /* per device-hour, > 0 given; else 0 */
	double node_hour;          /* per node-hour, > 0 given; else 0 */
	/* per planner node n: [2n] its price per node-hour, [2n+1] per device-hour (one
	 * of them; NaN not known); NULL none */
	const double *node_price;
	bool replicas;             /* try data-parallel replicas (else one replica only) */
};

struct pcand {
	int tp, pp, dp, ep;
	enum axl__pobj obj;       /* the objective it was ranked by */
	double decode_single;     /* tokens/s of one sequence alone on one replica */
	double cost_hour;         /* the devices' price per hour; NaN unknown */
	int nodes;                /* nodes its devices are on */
	struct pstage stage[MAXPP];
	int rep[MAXDP][MAXPP];              /* group of replica r, stage s (search only) */
	uint16_t devs[MAXDP][MAXPP][MAXTP]; /* planner device indices (< 4096) */
	int64_t batch_r;
	bool fits;
	double shortfall;
	double decode, prefill, decode_roof, prefill_roof;
	const char *bound;
	bool bound_known;
};

struct pctx {
	const struct axl_planner *p;
	const struct axl__model *m;
	const struct axl__mm *mm;
	const struct axl__quant *q;
	const struct pgroup *groups;
	int64_t ctx, batch, batch_r;
	double net_gbps;
	const struct axl__engine *eng;
	double mem_frac;       /* of each device's memory the engine gives the model */
};

/* Best candidate on the selected devices (1), none possible (0), -1 out of memory.
 * alts (may be NULL): up to nalts other fitting strategies, best first. */
int axl__plan_search(const struct axl_planner *p, const size_t *sel, size_t nsel, const struct axl__model *m,
		     const struct axl__mm *mm, const struct axl__quant *q, int64_t ctx, int64_t batch, double net_gbps,
		     const struct axl__engine *eng, double mem_frac, struct pcand *best, struct pcand *alts, int nalts,
		     int *nalts_out);
/* The same by an objective (goal): axl__plan_search is the throughput objective with replicas. */
int axl__plan_search_goal(const struct axl_planner *p, const size_t *sel, size_t nsel, const struct axl__model *m,
			  const struct axl__mm *mm, const struct axl__quant *q, int64_t ctx, int64_t batch,
			  double net_gbps, const struct axl__engine *eng, double mem_frac, const struct pgoal *goal,
			  struct pcand *best, struct pcand *alts, int nalts, int *nalts_out);
bool axl__pcand_better(const struct pcand *a, const struct pcand *b);
/* plan_estimate.c: k's decode and prefill times, rates and roofline on c's devices */
void axl__plan_estimate(const struct pctx *c, struct pcand *k);
/* the share of a layer's KV cache one of t tensor-parallel ranks holds */
double axl__plan_kv_share(const struct axl__mm *mm, int t);
/* Cost per million tokens of a rate (tokens/s) at cost_hour per hour; NaN unknown. */
double axl__cost_per_mtok(double cost_hour, double tokens_per_s);
/* The objective of a name ("devices", ...; without case); -1 unknown. */
int axl__pobj_parse(const char *name);
const char *axl__pobj_name(enum axl__pobj o);
/* What the objective ranks by, in words. */
const char *axl__pobj_rule(enum axl__pobj o);

/* The default price table (price_table.c, docs/plan.md "Cost"): an instance type's
 * on-demand price per node-hour, its accelerators, and where the price is from. */
struct axl__price_row {
	const char *instance_type;
	const char *provider;
	int devices;
	double usd_per_hour;
	const char *date;    /* when the source gave it, YYYY-MM */
	const char *source;  /* the page */
};
const struct axl__price_row *axl__price_lookup(const char *instance_type);
size_t axl__price_count(void);
const struct axl__price_row *axl__price_at(size_t i);
void axl__pcand_keep(struct pcand *alts, int nalts, int *n, const struct pcand *c);

#endif
