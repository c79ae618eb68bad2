/* SPDX-License-Identifier: MIT */
/* The planner's internals: the devices and nodes it plans on (plan_node.c
 * builds them from an inventory or an axl.inventory document), the memory model
 * (plan_mem.c), and the search and estimates (plan.c). */
#ifndef AXL_LIB_PLAN_H
#define AXL_LIB_PLAN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "axl/plan.h"
#include "model.h"

/* Precisions the planner computes in (an index into axl__pdev.tflops). */
enum axl__pfmt { AXL__PF_FP32, AXL__PF_TF32, AXL__PF_BF16, AXL__PF_FP16, AXL__PF_FP8, AXL__PF_INT8, AXL__PF_INT4,
		 AXL__PF__COUNT };

/* How two devices of one node are connected (struct axl_link.kind). */
enum axl__plink {
	AXL__PL_NONE = 0, /* not connected / not known */
	AXL__PL_SYSTEM,   /* through the CPUs' interconnect */
	AXL__PL_PCIE,     /* host bridge, numa or pcie-switch paths */
	AXL__PL_BOARD,    /* on one board (dual-GPU card, Gaudi's on-board links) */
	AXL__PL_FABRIC,   /* nvlink, nvswitch, xgmi */
	AXL__PL_ROCE,     /* chips' own Ethernet ports, all to all in one box (a direct fabric) */
	AXL__PL_ICI,      /* a TPU slice's inter-chip interconnect (a direct fabric too) */
};

struct axl__pdev {
	char id[64];         /* "nvidia:0" */
	char uuid[80];       /* "" when not known */
	char model[96];      /* "NVIDIA H100 80GB HBM3" */
	char vendor[32];
	int family;          /* axl_family */
	size_t node;         /* index in axl__pnodes */
	int64_t memory_bytes;/* usable: visible (else total) minus used when known; < 0 not known */
	int64_t memory_total;/* as listed; < 0 not known */
	double bandwidth_gbps;   /* memory bandwidth, GB/s; < 0 not known */
	double tflops[AXL__PF__COUNT]; /* dense peak; < 0 not known or not native */
	/* what the inventory's precision rows say of each format (axl_support: native,
	 * emulated, none; AXL_SUPPORT_UNKNOWN where no row names it), peak known or not */
	unsigned char support[AXL__PF__COUNT];
	bool has_precision;  /* the inventory lists precision rows for it (else: unknown) */
	double pcie_gbps;    /* host link per direction (gen x width); < 0 not known */
	int numa_node;
	bool host;           /* the node's host CPUs and memory (plan_host.c), not an accelerator */
	char assumed[200];   /* what a host device's figures assume; "" nothing */
};

/* ---- the host as a device (plan_host.c, docs/plan.md "CPU plans") ------------------- */

/* What the planner reads of a node's host. Unknown: < 0, NULL. */
struct axl__hostfacts {
	int64_t mem_total, mem_limit; /* bytes */
	int64_t mem_bw;               /* bytes/s, the SMBIOS memory devices' peak */
	int64_t sockets, cores;       /* cores: physical, all sockets */
	const char *arch, *model;
	const char *const *isa;       /* "avx2", "avx512f", "amx_bf16", "asimd", ... */
	size_t nisa;
};
/* The host device "cpu" of a node: 0, or -1 when its memory is not known. */
int axl__host_pdev(const struct axl__hostfacts *h, struct axl__pdev *d);

/* plan_node.c, for the readers of other node formats (plan_registry.c): a device with
 * nothing known; a node of n devices (the error set on failure, the planner unchanged);
 * the one warning of a document newer than the reader (AXL__NEWER_DOC) on the last node */
void axl__pdev_init(struct axl__pdev *d);
int axl__planner_add_node_devs(struct axl_planner *p, const char *name, double nic, const struct axl__pdev *devs,
			       size_t n);
void axl__planner_warn_newer(struct axl_planner *p, long long version, int known);

struct axl__pnode {
	char name[64];
	size_t first, count;  /* its devices: devs[first .. first+count) */
	double nic_gbps;      /* fastest active RDMA NIC, GB/s (rate / 8); < 0 none */
	char instance_type[64];   /* the cloud instance type it reports; "" none */
	double price_node_hour;   /* from the node file or the price table; NaN none */
	double price_device_hour; /* from the node file; NaN none */
	char price_source[224];   /* where the price is from */
};

/* A device pair's link; indexed [a * ndevs + b] over all devices (different nodes:
 * AXL__PL_NONE and the network is used). */
struct axl__plink_info {
	enum axl__plink kind;
	double gbps;          /* per direction; < 0 not known */
};

struct axl_planner {
	struct axl__pdev *devs;
	size_t ndevs, devcap;
	struct axl__pnode *nodes;
	size_t nnodes, nodecap;
	struct axl__plink_info *links; /* ndevs x ndevs, rebuilt as nodes are added */
	/* what reading the nodes noticed (a document of a later schema_version) */
	struct axl__pwarn **warns;
	size_t nwarns;
};

struct axl__pwarn {
	struct axl_warning w; /* source "plan", path the node's name */
	char path[64];
	char message[160];
};

struct axl_model {
	struct axl__model m;
	char source_name[16];
	char dtype_name[16];
	char assumption[256]; /* a bare size: the architecture assumed; "" otherwise */
};

/* Add one device / node (plan_node.c); -1 on allocation failure. */
int axl__planner_add_node(struct axl_planner *p, const char *name, double nic_gbps, size_t *node_index);
int axl__planner_add_dev(struct axl_planner *p, const struct axl__pdev *d);
/* Set the link between devices i and j (both directions) of the same node. */
int axl__planner_set_link(struct axl_planner *p, size_t i, size_t j, enum axl__plink kind, double gbps);
const struct axl__plink_info *axl__planner_link(const struct axl_planner *p, size_t i, size_t j);
/* The link kind of an axl_link.kind string. */
enum axl__plink axl__plink_of(const char *kind);

/* ---- the memory model (plan_mem.c) ---------------------------------------------- */

/* A GGUF file type (llama.cpp's LLAMA_FTYPE_MOSTLY_*), and PURE: every tensor in the one
 * type but the head (q4_k, q5_k, q3_k). */
enum axl__gft {
	AXL__GFT_NONE, AXL__GFT_F32, AXL__GFT_F16, AXL__GFT_Q8_0, AXL__GFT_Q6_K, AXL__GFT_Q5_K_M, AXL__GFT_Q5_K_S,
	AXL__GFT_Q5_0, AXL__GFT_Q5_1, AXL__GFT_Q4_K_M, AXL__GFT_Q4_K_S, AXL__GFT_Q4_0, AXL__GFT_Q4_1,
	AXL__GFT_IQ4_XS, AXL__GFT_IQ4_NL, AXL__GFT_Q3_K_L, AXL__GFT_Q3_K_M, AXL__GFT_Q3_K_S, AXL__GFT_IQ3_M,
	AXL__GFT_IQ3_S, AXL__GFT_IQ3_XS, AXL__GFT_IQ3_XXS, AXL__GFT_Q2_K, AXL__GFT_Q2_K_S, AXL__GFT_IQ2_M,
	AXL__GFT_IQ2_S, AXL__GFT_IQ2_XS, AXL__GFT_IQ2_XXS, AXL__GFT_IQ1_M, AXL__GFT_IQ1_S, AXL__GFT_PURE,
};

/* A tensor's role, as llama.cpp's quantiser classes it (ATTN_V also attn_qkv and MLA's
 * attn_kv_b; OTHER: MLA's low-rank projections, anything else quantised at the default). */
enum axl__gcat { AXL__GC_EMBD, AXL__GC_OUTPUT, AXL__GC_ATTN_Q, AXL__GC_ATTN_K, AXL__GC_ATTN_V, AXL__GC_ATTN_OUT,
		 AXL__GC_FFN_GATE, AXL__GC_FFN_UP, AXL__GC_FFN_DOWN, AXL__GC_OTHER };

/* What the per-tensor rules depend on (gguf_mix.c). */
struct axl__gmix {
	enum axl__gft ft;
	const char *deflt;  /* the file type's default ggml type */
	int layers;
	int gqa;            /* heads / KV heads (1 for MLA) */
	int experts;        /* routed experts, 0 dense */
	bool tied, falcon, type70b;
};

/* The file type of a name ("q4_k_m"), with its default ggml type; -1 unknown. */
int axl__gguf_ftype(const char *name, enum axl__gft *ft, const char **deflt);
/* The i-th file type name, NULL past the end. */
const char *axl__gguf_ftype_name(size_t i);
/* Bytes of a tensor of `params` weights in rows of `ncols`, of role cat in layer `layer`
 * (ffn_down_seq: its place among the FFN down tensors, which the IQ1/IQ2 rules count);
 * the ggml type chosen to *type when not NULL. */
double axl__gmix_bytes(const struct axl__gmix *x, enum axl__gcat cat, int layer, int ffn_down_seq, double params,
		       int64_t ncols, const char **type);

struct axl__quant {
	char name[16];          /* canonical lowercase ("bf16", "int4", "q4_k_m"); "file" for
				 * a file's own types */
	double body_bits;       /* linear weights, scales included (GGUF: the default type) */
	enum axl__gft gft;      /* a GGUF file type: per-tensor types (gguf_mix.c) */
	double emb_bits;        /* token embedding */
	double head_bits;       /* output head */
	double small_bits;      /* norms, biases, router */
	enum axl__pfmt compute; /* the matmuls' format (weight-only schemes: bf16) */
	bool from_file;         /* the file's bytes, as stored */
	bool gguf;              /* a ggml type */
};

/* Parse a quantisation name (case-insensitive); -1 unknown. */
int axl__quant_parse(const char *name, struct axl__quant *q);
/* The model's own: the file's stored types, else bf16. */
void axl__quant_default(const struct axl__model *m, struct axl__quant *q);
/* Bytes per element of a KV cache type ("bf16" 2, "fp8" 1); -1 unknown. The canonical
 * name goes to canon (16 bytes). */
double axl__kv_dtype_bytes(const char *name, char *canon);

/* One layer's weights and cache, in bytes (of the whole layer, before any split). */
struct axl__lw {
	double split;        /* split across tensor-parallel ranks: attention, MLP, experts */
	double replicated;   /* held by every rank: norms, router, biases of the output */
	double fixed_read;   /* read by every decode step: all but the routed experts */
	double expert;       /* one routed expert (0 for a dense layer) */
	int experts;         /* routed experts (0 dense) */
	double kv_token;     /* KV cache per token held by this layer */
	double kv_ctx;       /* KV cache of one sequence at the context mm was built for */
	int kv_heads;        /* KV heads (0 for MLA: the latent is not split) */
	bool sliding;        /* holds at most window tokens */
	double flops_token;  /* 2 x the parameters one token multiplies (no attention) */
	double attn_flops;   /* per token per context token: 4 x heads x head_dim (QK and AV) */
	int hidden;
};

struct axl__mm {
	int layers;
	struct axl__lw *lw;      /* layers */
	double emb, head;        /* embedding and output head bytes (head 0 when tied) */
	double head_flops;       /* 2 x vocab x hidden per token */
	double weights;          /* all weight bytes */
	double kv_token_avg;     /* average KV bytes per token at the request's context */
	int window;              /* sliding window tokens, 0 none */
	int hidden, heads, kv_heads, experts, experts_per_token;
	int64_t vocab;
	int intermediate;        /* the widest MLP a token passes through (per token) */
	bool tied;
	double kv_bytes;         /* per element */
};

/* Build the memory model; -1 with a message in err when the description lacks what the
 * model needs (layers, hidden size, heads, ...). */
int axl__mm_build(struct axl__mm *mm, const struct axl__model *m, const struct axl__quant *q, double kv_bytes,
		  int64_t context, char *err, size_t errcap);
void axl__mm_free(struct axl__mm *mm);
/* KV bytes of layer i for `tokens` tokens of one sequence (sliding layers capped). */
double axl__mm_kv_layer(const struct axl__mm *mm, int i, int64_t tokens);

#endif
