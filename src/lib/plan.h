/* SPDX-License-Identifier: MIT */
/* The planner's internals (issue 6): the devices and nodes it plans on (plan_node.c
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
	double pcie_gbps;    /* host link per direction (gen x width); < 0 not known */
	int numa_node;
};

struct axl__pnode {
	char name[64];
	size_t first, count;  /* its devices: devs[first .. first+count) */
	double nic_gbps;      /* fastest active RDMA NIC, GB/s (rate / 8); < 0 none */
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
};

struct axl_model {
	struct axl__model m;
	char source_name[16];
	char dtype_name[16];
};

/* Add one device / node (plan_node.c); -1 on allocation failure. */
int axl__planner_add_node(struct axl_planner *p, const char *name, double nic_gbps, size_t *node_index);
int axl__planner_add_dev(struct axl_planner *p, const struct axl__pdev *d);
/* Set the link between devices i and j (both directions) of the same node. */
int axl__planner_set_link(struct axl_planner *p, size_t i, size_t j, enum axl__plink kind, double gbps);
const struct axl__plink_info *axl__planner_link(const struct axl_planner *p, size_t i, size_t j);
/* The link kind of an axl_link.kind string. */
enum axl__plink axl__plink_of(const char *kind);

#endif
