/* SPDX-License-Identifier: MIT */
/* The planner (src/lib/plan*.c): quantisation bits, the memory model against the
 * formulas serving engines use, the K-quant mix against a published file size, tensor-
 * parallel divisibility, the pipeline split in proportion to speed and capped by memory,
 * and, over the whole catalog on every simulated node, the rules every plan keeps: a plan
 * that fits fits on every device, and no estimate exceeds its roofline. */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "axl.h"
#include "axl/plan.h"
#include "check.h"
#include "model_catalog.h"
#include "plan_impl.h"

#ifndef AXL_TEST_SRCDIR
#define AXL_TEST_SRCDIR "."
#endif

static axl_planner *sim_planner(const char *name)
{
	char path[512];
	snprintf(path, sizeof path, "%s/tests/sim/%s", AXL_TEST_SRCDIR, name);
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sim = path;
	axl_context *ctx = NULL;
	axl_inventory *inv = NULL;
	axl_planner *p = NULL;
	if (axl_context_open(&ctx, &o) != 0 || axl_inventory_open(&inv, ctx, 0) != 0 || axl_planner_new(&p) != 0 ||
	    axl_planner_add_inventory(p, inv, name) != 0) {
		fprintf(stderr, "%s: %s\n", path, axl_error_last());
		exit(2);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return p;
}

static struct axl__model cat(const char *name)
{
	struct axl__model m;
	if (axl__model_from_catalog(name, &m) != 0) {
		fprintf(stderr, "%s not in the catalog\n", name);
		exit(2);
	}
	return m;
}

static void test_quant(void)
{
	struct axl__quant q;
	CHECK(axl__quant_parse("INT4", &q) == 0 && fabs(q.body_bits - 4.15625) < 1e-9 && q.emb_bits == 16);
	CHECK(axl__quant_parse("awq", &q) == 0 && fabs(q.body_bits - 4.15625) < 1e-9);
	CHECK(axl__quant_parse("Q4_K_M", &q) == 0 && q.body_bits == 4.5 && q.gft == AXL__GFT_Q4_K_M &&
	      q.head_bits == 6.5625 && q.gguf && strcmp(q.name, "q4_k_m") == 0);
	CHECK(axl__quant_parse("IQ2_M", &q) == 0 && q.body_bits == 2.5625 && q.gft == AXL__GFT_IQ2_M);
	CHECK(axl__quant_parse("iq3_xs", &q) == 0 && q.body_bits == 3.4375);
	CHECK(axl__quant_parse("q8_0", &q) == 0 && q.body_bits == 8.5 && q.head_bits == 8.5);
	CHECK(axl__quant_parse("bfloat16", &q) == 0 && q.body_bits == 16 && q.compute == AXL__PF_BF16);
	CHECK(axl__quant_parse("fp8", &q) == 0 && q.body_bits == 8 && q.compute == AXL__PF_FP8);
	CHECK(axl__quant_parse("q4_k_x", &q) == -1);
	CHECK(axl__quant_parse("", &q) == -1);
	char canon[16];
	CHECK(axl__kv_dtype_bytes("FP8", canon) == 1 && strcmp(canon, "fp8") == 0);
	CHECK(axl__kv_dtype_bytes("auto", canon) == 2);
	CHECK(axl__kv_dtype_bytes("int3", canon) < 0);
}

/* llama.cpp's per-tensor choices (gguf_mix.c) on cases with a known answer. */
static void test_gguf_mix(void)
{
	const char *t = NULL;
	struct axl__gmix x = {.layers = 80, .gqa = 8, .experts = 0, .type70b = true};
	CHECK(axl__gguf_ftype("q3_k_m", &x.ft, &x.deflt) == 0 && strcmp(x.deflt, "Q3_K") == 0);
	axl__gmix_bytes(&x, AXL__GC_ATTN_V, 0, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q5_K") == 0); /* the first two V layers */
	axl__gmix_bytes(&x, AXL__GC_ATTN_V, 40, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q5_K") == 0); /* Q4_K, raised for LLM_TYPE_70B */
	axl__gmix_bytes(&x, AXL__GC_ATTN_Q, 40, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q3_K") == 0);
	axl__gmix_bytes(&x, AXL__GC_OUTPUT, -1, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q6_K") == 0);
	/* a row of 29568 (Qwen2.5-72B's FFN down) is not a multiple of 256: Q4_K -> Q5_0 */
	CHECK(axl__gguf_ftype("q4_k_s", &x.ft, &x.deflt) == 0);
	axl__gmix_bytes(&x, AXL__GC_FFN_DOWN, 40, 40, 1, 29568, &t);
	CHECK(strcmp(t, "Q5_0") == 0);
	/* Mixtral (8 experts): V and K in Q8_0 */
	struct axl__gmix mx = {.layers = 32, .gqa = 4, .experts = 8};
	CHECK(axl__gguf_ftype("q4_k_m", &mx.ft, &mx.deflt) == 0);
	axl__gmix_bytes(&mx, AXL__GC_ATTN_K, 10, 0, 1, 4096, &t);
	CHECK(strcmp(t, "Q8_0") == 0);
	/* IQ2_XXS: embedding Q2_K, output Q5_K, the first eighth of FFN down Q2_K */
	CHECK(axl__gguf_ftype("iq2_xxs", &x.ft, &x.deflt) == 0);
	axl__gmix_bytes(&x, AXL__GC_EMBD, -1, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q2_K") == 0);
	axl__gmix_bytes(&x, AXL__GC_OUTPUT, -1, 0, 1, 8192, &t);
	CHECK(strcmp(t, "Q5_K") == 0);
	CHECK(fabs(axl__gmix_bytes(&x, AXL__GC_FFN_DOWN, 3, 3, 256, 28672, &t) - 84) < 1e-9 && strcmp(t, "Q2_K") == 0);
	axl__gmix_bytes(&x, AXL__GC_FFN_DOWN, 30, 30, 1, 28672, &t);
	CHECK(strcmp(t, "IQ2_XXS") == 0);
	enum axl__gft ft;
	const char *d;
	CHECK(axl__gguf_ftype("q4_k_x", &ft, &d) == -1);
}

static void test_memory(void)
{
	struct axl__quant q;
	struct axl__mm mm;
	char err[160];
	/* bf16: exactly two bytes per parameter */
	struct axl__model m = cat("llama3.1-8b");
	axl__quant_parse("bf16", &q);
	CHECK(axl__mm_build(&mm, &m, &q, 2, 8192, err, sizeof err) == 0);
	CHECK(fabs(mm.weights - 2.0 * (double)m.params) < 1.0);
	/* vLLM/SGLang: 2 x layers x kv_heads x head_dim x bytes */
	CHECK(fabs(mm.kv_token_avg - 2.0 * 32 * 8 * 128 * 2) < 1e-6);
	axl__mm_free(&mm);
	/* Q4_K_M of Llama 3 8B: published files are 4.92 GB (4,920,734,xxx bytes) */
	struct axl__model l3 = cat("llama3-8b");
	axl__quant_parse("q4_k_m", &q);
	CHECK(axl__mm_build(&mm, &l3, &q, 2, 8192, err, sizeof err) == 0);
	CHECK(fabs(mm.weights / 4.92e9 - 1) < 0.03);
	double bpw = mm.weights * 8 / (double)l3.params;
	CHECK(bpw > 4.7 && bpw < 5.0);
	axl__mm_free(&mm);
	/* MLA: layers x (kv_lora_rank + qk_rope_dim) x bytes */
	struct axl__model ds = cat("deepseek-ai/DeepSeek-V3");
	axl__quant_parse("fp8", &q);
	CHECK(axl__mm_build(&mm, &ds, &q, 2, 4096, err, sizeof err) == 0);
	CHECK(fabs(mm.kv_token_avg - 61.0 * (512 + 64) * 2) < 1e-6);
	CHECK(mm.kv_heads == 0 && mm.experts == 256);
	/* fp8 body, bf16 embedding and head: between 1 and 1.01 bytes per parameter */
	CHECK(mm.weights / (double)ds.params > 1.0 && mm.weights / (double)ds.params < 1.01);
	axl__mm_free(&mm);
	/* sliding windows: Mistral 7B v0.1 (all layers, 4096) holds at most 4096 tokens */
	struct axl__model mi = cat("mistralai/Mistral-7B-v0.1");
	axl__quant_parse("bf16", &q);
	CHECK(axl__mm_build(&mm, &mi, &q, 2, 32768, err, sizeof err) == 0);
	CHECK(fabs(mm.kv_token_avg * 32768 - 4096.0 * 2 * 32 * 8 * 128 * 2) < 1);
	axl__mm_free(&mm);
	/* a description without heads is refused with a reason */
	struct axl__model bad = m;
	bad.heads = -1;
	CHECK(axl__mm_build(&mm, &bad, &q, 2, 1024, err, sizeof err) == -1 && strstr(err, "heads"));
}

/* A planner by hand: devices with given memory (GB) and bandwidth (GB/s) on one node. */
static struct axl_planner *hand(int n, const double *mem_gb, const double *bw, enum axl__plink link, double gbps)
{
	struct axl_planner *p = NULL;
	if (axl_planner_new(&p) != 0)
		exit(2);
	size_t node;
	axl__planner_add_node(p, "hand", -1, &node);
	for (int i = 0; i < n; i++) {
		struct axl__pdev d;
		memset(&d, 0, sizeof d);
		snprintf(d.id, sizeof d.id, "gpu:%d", i);
		snprintf(d.model, sizeof d.model, "GPU %.0fG %.0f", mem_gb[i], bw[i]);
		d.node = node;
		d.memory_bytes = d.memory_total = (int64_t)(mem_gb[i] * 1e9);
		d.bandwidth_gbps = bw[i];
		for (int f = 0; f < AXL__PF__COUNT; f++)
			d.tflops[f] = 400;
		d.pcie_gbps = 32;
		axl__planner_add_dev(p, &d);
	}
	for (int i = 0; i < n; i++)
		for (int j = i + 1; j < n; j++)
			axl__planner_set_link(p, (size_t)i, (size_t)j, link, gbps);
	return p;
}

static void test_split(void)
{
	struct axl__quant q;
	axl__quant_parse("bf16", &q);
	struct axl__model m = cat("llama3.1-70b");
	struct axl__mm mm;
	char err[160];
	CHECK(axl__mm_build(&mm, &m, &q, 2, 4096, err, sizeof err) == 0);
	size_t sel[4] = {0, 1, 2, 3};
	struct pcand *best = malloc(sizeof *best);
	/* two different GPUs over PCIe: 141 GB of weights need both; the faster one gets more
	 * layers, capped by its memory */
	double mem2[] = {100, 100}, bw2[] = {3000, 1000};
	struct axl_planner *p = hand(2, mem2, bw2, AXL__PL_PCIE, 32);
	CHECK(axl__plan_search(p, sel, 2, &m, &mm, &q, 4096, 1, 12.5, axl__engine_find(NULL), 1.0, best, NULL, 0,
			       NULL) == 1);
	CHECK(best->fits && best->pp == 2 && best->tp == 1);
	int n0 = best->stage[0].last - best->stage[0].first + 1, n1 = best->stage[1].last - best->stage[1].first + 1;
	CHECK(n0 + n1 == 80 && best->stage[0].first == 0 && best->stage[1].first == n0);
	size_t fast = best->devs[0][0][0];
	CHECK((fast == 0 && n0 > n1) || (fast == 1 && n1 > n0));
	for (int s = 0; s < 2; s++)
		CHECK(best->stage[s].need <= (double)best->stage[s].mem_cap);
	axl_planner_free(p);
	/* equal devices: equal halves */
	double mem3[] = {100, 100}, bw3[] = {2000, 2000};
	p = hand(2, mem3, bw3, AXL__PL_PCIE, 32);
	CHECK(axl__plan_search(p, sel, 2, &m, &mm, &q, 4096, 1, 12.5, axl__engine_find(NULL), 1.0, best, NULL, 0,
			       NULL) == 1);
	CHECK(best->fits && (best->tp == 2 || (best->pp == 2 && best->stage[0].last == 39)));
	axl_planner_free(p);
	/* fast devices with little memory: the layers go by memory, not speed */
	double mem4[] = {80, 160}, bw4[] = {4000, 1000};
	p = hand(2, mem4, bw4, AXL__PL_PCIE, 32);
	CHECK(axl__plan_search(p, sel, 2, &m, &mm, &q, 4096, 1, 12.5, axl__engine_find(NULL), 1.0, best, NULL, 0,
			       NULL) == 1);
	CHECK(best->fits && best->pp == 2);
	for (int s = 0; s < 2; s++)
		CHECK(best->stage[s].need <= (double)best->stage[s].mem_cap);
	axl_planner_free(p);
	/* too small in all: no fit, the shortfall is at least the memory missing */
	double mem5[] = {40, 40}, bw5[] = {1000, 1000};
	p = hand(2, mem5, bw5, AXL__PL_FABRIC, 100);
	CHECK(axl__plan_search(p, sel, 2, &m, &mm, &q, 4096, 1, 12.5, axl__engine_find(NULL), 1.0, best, NULL, 0,
			       NULL) == 1);
	CHECK(!best->fits && best->shortfall >= mm.weights - 80e9);
	axl_planner_free(p);
	axl__mm_free(&mm);

	/* Phi-3 medium: 40 heads, 10 KV heads: tp 4 and 8 are impossible, 2 is not */
	struct axl__model ph = cat("microsoft/Phi-3-medium-4k-instruct");
	CHECK(axl__mm_build(&mm, &ph, &q, 2, 4096, err, sizeof err) == 0);
	double mem8[8], bw8[8];
	for (int i = 0; i < 8; i++)
		mem8[i] = 80, bw8[i] = 3350;
	p = hand(8, mem8, bw8, AXL__PL_FABRIC, 450);
	size_t sel8[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct pcand *alts = calloc(8, sizeof *alts);
	int na = 0;
	CHECK(axl__plan_search(p, sel8, 8, &ph, &mm, &q, 4096, 1, 12.5, axl__engine_find(NULL), 1.0, best, alts, 8,
			       &na) == 1);
	CHECK(best->tp != 4 && best->tp != 8);
	bool two = best->tp == 2;
	for (int i = 0; i < na; i++) {
		CHECK(alts[i].tp != 4 && alts[i].tp != 8);
		two |= alts[i].tp == 2;
	}
	CHECK(two);
	axl_planner_free(p);
	axl__mm_free(&mm);
	free(alts);
	free(best);
}

/* Every catalog model at two quantisations on every simulated node: fits means every
 * shard fits; every estimate at most its roofline; the public summary agrees. */
static void test_sweep(void)
{
	static const char *const nodes[] = {"h100x8-nvswitch.json", "mi300x8.json", "mixed.json", "h100x2.json",
					    "a100-mig-off.json"};
	static const char *const quants[] = {"bf16", "int4", "q4_k_m"};
	int plans = 0, fits = 0, bad = 0;
	for (size_t n = 0; n < sizeof nodes / sizeof nodes[0]; n++) {
		axl_planner *p = sim_planner(nodes[n]);
		for (size_t i = 0; i < axl_model_catalog_count(); i++) {
			axl_model *m = NULL;
			if (axl_model_open(&m, axl_model_catalog_id(i)) != 0) {
				bad++;
				continue;
			}
			for (size_t k = 0; k < sizeof quants / sizeof quants[0]; k++) {
				struct axl_plan_request r = { .version = AXL_PLAN_REQUEST_VERSION,
							      .quantization = quants[k],
							      .context_tokens = 4096,
							      .batch = (int64_t)(1 + i % 8) };
				axl_plan *pl = NULL;
				if (axl_plan_compute(&pl, p, m, &r) != 0) {
					fprintf(stderr, "%s on %s: %s\n", axl_model_catalog_id(i), nodes[n],
						axl_error_last());
					bad++;
					continue;
				}
				plans++;
				struct axl_plan_summary s;
				axl_plan_get_summary(pl, &s);
				fits += s.fits;
				if (s.fits && s.shortfall_bytes != 0)
					bad++;
				if (!s.fits && s.shortfall_bytes <= 0)
					bad++;
				/* a plan that does not fit has no split and no speed (issue 34) */
				if (!s.fits && (s.tp != 0 || !isnan(s.decode_tokens_per_s)))
					bad++;
				char *js = NULL, *tx = NULL;
				size_t jl, tl;
				if (axl_plan_json(pl, &js, &jl) != 0 || axl_plan_text(pl, &tx, &tl) != 0 || jl < 100 ||
				    tl < 100)
					bad++;
				/* the document's roofline figures bound the estimates */
				const char *d = js ? strstr(js, "\"decode_tokens_per_s\": ") : NULL;
				const char *dr = js ? strstr(js, "\"decode_roofline_tokens_per_s\": ") : NULL;
				if (d && dr && d[23] != 'n' && dr[32] != 'n') {
					double e = strtod(d + 23, NULL), roof = strtod(dr + 32, NULL);
					if (!(e <= roof + 0.01)) {
						fprintf(stderr, "%s %s on %s: decode %g above roofline %g\n",
							axl_model_catalog_id(i), quants[k], nodes[n], e, roof);
						bad++;
					}
				}
				free(js);
				free(tx);
				axl_plan_free(pl);
			}
			axl_model_free(m);
		}
		axl_planner_free(p);
	}
	CHECK(bad == 0);
	CHECK(plans == (int)(5 * 3 * axl_model_catalog_count()));
	CHECK(fits > plans / 2);
	printf("sweep: %d plans, %d fit\n", plans, fits);
}

/* Through the search directly: stage memory and roofline for every candidate kept. */
static void test_physics(void)
{
	axl_planner *p = sim_planner("h100x8-nvswitch.json");
	struct axl__quant q;
	axl__quant_parse("bf16", &q);
	size_t sel[8] = {0, 1, 2, 3, 4, 5, 6, 7};
	struct pcand *best = malloc(sizeof *best), *alts = calloc(8, sizeof *alts);
	int violations = 0;
	for (size_t i = 0; i < axl__catalog_count(); i++) {
		struct axl__model m;
		axl__catalog_model(axl__catalog_at(i), &m);
		struct axl__mm mm;
		char err[160];
		if (axl__mm_build(&mm, &m, &q, 2, 8192, err, sizeof err) != 0) {
			fprintf(stderr, "%s: %s\n", m.id, err);
			violations++;
			continue;
		}
		int na = 0;
		for (int64_t batch = 1; batch <= 64; batch *= 8) {
			if (axl__plan_search(p, sel, 8, &m, &mm, &q, 8192, batch, 12.5, axl__engine_find(NULL), 1.0,
					     best, alts, 8, &na) != 1) {
				violations++;
				continue;
			}
			for (int k = -1; k < na; k++) {
				const struct pcand *c = k < 0 ? best : &alts[k];
				if (!(c->decode <= c->decode_roof) || !(c->prefill <= c->prefill_roof) ||
				    !(c->decode > 0)) {
					fprintf(stderr, "%s tp %d pp %d batch %lld: decode %g / %g, prefill %g / %g\n",
						m.id, c->tp, c->pp, (long long)batch, c->decode, c->decode_roof,
						c->prefill, c->prefill_roof);
					violations++;
				}
				/* one GPU's bandwidth bounds a single sequence on one GPU: every weight but
				 * an untied input embedding (a lookup reads one row) once per token */
				double read = mm.weights - (mm.head > 0 ? mm.emb : 0);
				if (c->tp * c->pp == 1 && batch == 1 && m.experts <= 0 &&
				    !(c->decode_roof <= 3350e9 / (read * 0.999))) {
					fprintf(stderr, "%s: single-GPU roofline %g above %g\n", m.id, c->decode_roof,
						3350e9 / read);
					violations++;
				}
				if (c->fits)
					for (int s = 0; s < c->pp; s++)
						if (c->stage[s].need > (double)c->stage[s].mem_cap)
							violations++;
				/* layers covered once, in order */
				int next = 0;
				for (int s = 0; s < c->pp; s++) {
					if (c->stage[s].first != next || c->stage[s].last < c->stage[s].first)
						violations++;
					next = c->stage[s].last + 1;
				}
				if (next != m.layers) {
					fprintf(stderr, "%s tp %d pp %d: layers end at %d of %d\n", m.id, c->tp, c->pp,
						next, m.layers);
					violations++;
				}
			}
		}
		axl__mm_free(&mm);
	}
	CHECK(violations == 0);
	free(best);
	free(alts);
	axl_planner_free(p);
}

static void test_api_errors(void)
{
	axl_model *m = NULL;
	CHECK(axl_model_open(&m, "no-such-model-anywhere") == AXL_ENOENT && strstr(axl_error_last(), "catalog"));
	CHECK(axl_model_open(&m, "Meta-Llama/LLAMA-3.1-8B") == 0);
	struct axl_model_info info;
	CHECK(axl_model_get_info(m, &info) == 0 && info.layers == 32 && strcmp(info.source, "catalog") == 0);
	axl_planner *p = NULL;
	axl_plan *pl = NULL;
	CHECK(axl_planner_new(&p) == 0);
	struct axl_plan_request r = {.version = AXL_PLAN_REQUEST_VERSION};
	/* no devices: an empty plan with its reason (as ai-hwaccel's planner), not an error */
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0 && pl);
	struct axl_plan_summary sum;
	CHECK(axl_plan_get_summary(pl, &sum) == 0 && !sum.fits && sum.tp == 0 && sum.shortfall_bytes > 0);
	char *ej = NULL;
	size_t ejl = 0;
	CHECK(axl_plan_json(pl, &ej, &ejl) == 0 && strstr(ej, "\"reason\": \"no devices to plan on") &&
	      strstr(ej, "\"plan\": null"));
	free(ej);
	axl_plan_free(pl);
	pl = NULL;
	/* a bad option is named before "no devices" (issue 34) */
	r.quantization = "int5";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "int5"));
	r.quantization = NULL;
	r.devices = "nvidia:9";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "nvidia:9"));
	r.devices = NULL;
	axl_planner_free(p);
	p = sim_planner("h100x2.json");
	r.quantization = "int5";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "int5"));
	r.quantization = NULL;
	r.kv_dtype = "fp4";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL);
	r.kv_dtype = NULL;
	r.devices = "nvidia:7";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "nvidia:7"));
	r.devices = "nvidia:1";
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0);
	struct axl_plan_summary s;
	CHECK(axl_plan_get_summary(pl, &s) == 0 && s.fits && s.tp == 1 && s.pp == 1);
	char *js = NULL;
	size_t len;
	CHECK(axl_plan_json(pl, &js, &len) == 0 && strstr(js, "\"device\": \"nvidia:1\""));
	free(js);
	axl_plan_free(pl);
	/* version 2: the engine and the memory fraction */
	r.engine = "tgi-9000";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "tgi-9000") &&
	      strstr(axl_error_last(), "llama.cpp"));
	r.engine = "LLaMA.cpp";
	double bad[] = {-0.5, 1.0001, 7, NAN};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		r.memory_fraction = bad[i];
		CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "memory fraction"));
	}
	r.memory_fraction = 0.5;
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0);
	CHECK(axl_plan_json(pl, &js, &len) == 0 && strstr(js, "\"engine\": \"llama.cpp\"") &&
	      strstr(js, "\"memory_fraction\": 0.5") && strstr(js, "\"decode_band_tokens_per_s\""));
	free(js);
	axl_plan_free(pl);
	/* a version-1 caller: the fields after network_gbps are not read (here: garbage) */
	r.version = 1;
	r.engine = (const char *)(uintptr_t)1;
	r.memory_fraction = 42;
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0);
	CHECK(axl_plan_json(pl, &js, &len) == 0 && strstr(js, "\"engine\": \"vllm\""));
	free(js);
	axl_plan_free(pl);
	r.engine = NULL;
	r.memory_fraction = 0;
	/* version 1: the fields after network_gbps are not read (a version-1 caller's
	 * struct ends there); version 2 reads them */
	r.devices = NULL;
	r.version = 1;
	r.objective = "no-such-objective";
	r.price_per_device_hour = -5;
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0);
	axl_plan_free(pl);
	r.version = 2;
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "no-such-objective"));
	r.objective = "latency";
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL && strstr(axl_error_last(), "price"));
	r.price_per_device_hour = NAN;
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL);
	r.price_per_device_hour = 0;
	r.price_per_node_hour = INFINITY;
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EINVAL);
	r.price_per_node_hour = 0;
	CHECK(axl_plan_compute(&pl, p, m, &r) == 0 && axl_plan_get_summary(pl, &s) == 0 && s.tp == 2);
	axl_plan_free(pl);
	r.version = 99;
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EVERSION);
	r.version = 0;
	CHECK(axl_plan_compute(&pl, p, m, &r) == AXL_EVERSION);
	axl_planner_free(p);
	axl_model_free(m);
}

/* The host as a device: memory the lower of total and limit, the SMBIOS bandwidth or the
 * assumption by class (flagged), peak compute from the cores and the widest unit. */
static void test_host(void)
{
	struct axl__pdev d;
	const char *amx[] = {
		"avx2", "fma", "avx512f", "avx512_bf16", "avx512_vnni", "amx_tile", "amx_bf16", "amx_int8"
	};
	struct axl__hostfacts h = {.mem_total = 512LL << 30, .mem_limit = 64LL << 30, .mem_bw = 307200000000LL,
				   .sockets = 1, .cores = 56, .model = "a server", .isa = amx, .nisa = 8};
	CHECK(axl__host_pdev(&h, &d) == 0 && d.host && strcmp(d.id, "cpu") == 0);
	CHECK(d.memory_bytes == 64LL << 30 && fabs(d.bandwidth_gbps - 307.2) < 1e-9);
	CHECK(strstr(d.assumed, "bandwidth") == NULL && strstr(d.assumed, "2.0 GHz on 56 cores"));
	/* AMX: 1024 bf16 and 2048 int8 FLOPs per cycle per core; avx-512: 64 fp32 */
	CHECK(fabs(d.tflops[AXL__PF_BF16] - 1024 * 56 * 2e9 / 1e12) < 1e-6);
	CHECK(fabs(d.tflops[AXL__PF_INT8] - 2048 * 56 * 2e9 / 1e12) < 1e-6);
	CHECK(fabs(d.tflops[AXL__PF_FP32] - 64 * 56 * 2e9 / 1e12) < 1e-6);
	CHECK(d.tflops[AXL__PF_FP8] < 0);
	/* a laptop: no bandwidth known, 2 channels of DDR4-3200 assumed; no limit */
	const char *v2[] = {"avx2", "fma"};
	struct axl__hostfacts l = {.mem_total = 16LL << 30, .mem_limit = -1, .mem_bw = -1, .sockets = -1, .cores = 8,
				   .isa = v2, .nisa = 2};
	CHECK(axl__host_pdev(&l, &d) == 0 && d.memory_bytes == 16LL << 30 && fabs(d.bandwidth_gbps - 51.2) < 1e-9);
	CHECK(strstr(d.assumed, "51.2 GB/s") && strstr(d.assumed, "DDR4-3200"));
	CHECK(fabs(d.tflops[AXL__PF_BF16] - 32 * 8 * 2e9 / 1e12) < 1e-6); /* no bf16 unit: the fp32 rate */
	/* a 2-socket server without SMBIOS: 2 x 8 channels */
	struct axl__hostfacts s2 = {.mem_total = 1LL << 40, .mem_limit = -1, .mem_bw = -1, .sockets = 2, .cores = 128};
	CHECK(axl__host_pdev(&s2, &d) == 0 && fabs(d.bandwidth_gbps - 409.6) < 1e-9);
	/* aarch64 with dot products */
	const char *arm[] = {"asimd", "asimddp"};
	struct axl__hostfacts a = {.mem_total = 1LL << 36, .mem_limit = -1, .mem_bw = -1, .sockets = 1, .cores = 64,
				   .isa = arm, .nisa = 2};
	CHECK(axl__host_pdev(&a, &d) == 0 && fabs(d.tflops[AXL__PF_INT8] - 64 * 64 * 2e9 / 1e12) < 1e-6);
	/* memory not known: no host device */
	struct axl__hostfacts n = {.mem_total = -1, .mem_limit = -1, .mem_bw = -1, .sockets = 1, .cores = 4};
	CHECK(axl__host_pdev(&n, &d) == -1);
}

/* The objectives' order on two candidates, and cost per million tokens. */
static void test_objective(void)
{
	struct pcand a, b;
	memset(&a, 0, sizeof a);
	memset(&b, 0, sizeof b);
	a.fits = b.fits = true;
	a.tp = 1, a.pp = 1, a.dp = 1, a.decode = 100, a.decode_single = 100, a.prefill = 1000, a.cost_hour = 3;
	b.tp = 8, b.pp = 1, b.dp = 1, b.decode = 500, b.decode_single = 500, b.prefill = 8000, b.cost_hour = 24;
	a.obj = b.obj = AXL__OBJ_DEVICES;
	CHECK(axl__pcand_better(&a, &b) && !axl__pcand_better(&b, &a));
	a.obj = b.obj = AXL__OBJ_LATENCY;
	CHECK(axl__pcand_better(&b, &a));
	a.obj = b.obj = AXL__OBJ_THROUGHPUT;
	CHECK(axl__pcand_better(&b, &a));
	/* cost: 3/h at 100 tok/s is 8.33 per million; 24/h at 500 is 13.3: a wins */
	a.obj = b.obj = AXL__OBJ_COST;
	CHECK(axl__pcand_better(&a, &b));
	CHECK(fabs(axl__cost_per_mtok(3, 100) - 3.0 / 0.36) < 1e-9);
	b.cost_hour = NAN; /* an unknown cost loses */
	CHECK(axl__pcand_better(&a, &b) && !axl__pcand_better(&b, &a));
	CHECK(isnan(axl__cost_per_mtok(-1, 100)) && isnan(axl__cost_per_mtok(1, 0)));
	/* fitting first, whatever the objective */
	b.fits = false;
	a.obj = b.obj = AXL__OBJ_LATENCY;
	CHECK(axl__pcand_better(&a, &b));
	CHECK(axl__pobj_parse("THROUGHPUT") == AXL__OBJ_THROUGHPUT && axl__pobj_parse("speed") == -1 &&
	      axl__pobj_parse(NULL) == -1);
	/* the price table: rows with a price, a date and a source; looked up without case */
	CHECK(axl__price_count() > 0);
	for (size_t i = 0; i < axl__price_count(); i++) {
		const struct axl__price_row *r = axl__price_at(i);
		CHECK(r->usd_per_hour > 0 && r->devices > 0 && strlen(r->date) >= 4 &&
		      strncmp(r->source, "https://", 8) == 0);
		CHECK(axl__price_lookup(r->instance_type) == r);
	}
	CHECK(axl__price_lookup("P5.48XLARGE") && !axl__price_lookup("p5.48xlarge2") && !axl__price_lookup(NULL));
}

int main(void)
{
	test_quant();
	test_gguf_mix();
	test_memory();
	test_split();
	test_physics();
	test_api_errors();
	test_host();
	test_objective();
	test_sweep();
	return check_summary();
}
