/* SPDX-License-Identifier: MIT */
/* The CDI specs of a node's accelerators, built as value trees (cdi_spec.c) for `axl cdi`,
 * the device plugin and the DRA plugin (cli.h: cdi_build_specs). */
#ifndef AXL_CLI_CDI_SPEC_H
#define AXL_CLI_CDI_SPEC_H

#include "axl.h"
#include "cdi_val.h"
#include "cli.h"

/* the vendor of axl's CDI kinds (axl_device_cdi_kind; cdi_spec.c says why not a vendor's own) */
#define CDI_VENDOR AXL_CDI_VENDOR
#define CDI_MAX_KINDS 32

struct cdi_gen {
	const char *sysroot; /* "/" on the live system */
	/* where the vendor's files are looked for (the driver root, else the sysroot), and
	 * what that folder is on the host: a mount's hostPath is host + the file's path
	 * inside root, its containerPath the path the vendor's folders list */
	const char *root, *host;
	int simulated;       /* a simulated node: its nodes exist nowhere to stat */
	unsigned nodes_missing;
	int quiet;           /* devices left out are not said */
	cdi_named_fn named;  /* axl device-plugin: each device's names as they are made */
	char legacy[CDI_MAX_KINDS][64]; /* build_all: each spec's kind as axl named it before */
	void *ud;
};

/* g for the node of ctx, with the options' driver root host */
void cdi_gen_init(struct cdi_gen *g, const axl_context *ctx, const struct opts *o);
/* one spec per kind into specs (at most CDI_MAX_KINDS); their number */
size_t cdi_build_all(struct cdi_gen *g, const axl_inventory *inv, struct val **specs);

#endif
