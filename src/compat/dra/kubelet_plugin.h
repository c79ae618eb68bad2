/* SPDX-License-Identifier: MIT */
/*
 * The kubelet side of `axl dra-plugin`, on the command's side (kubelet_plugin.c, in the
 * command like slices.c): it loads the gRPC module axl-dra-kubelet.so (kubelet.h), keeps
 * the CDI specs of the node's devices in --cdi-dir (axl cdi generate's code and names),
 * maps each device of the ResourceSlices (slices.c's names, through devices_json) to its
 * CDI device id, and answers NodePrepareResources/NodeUnprepareResources with prepare.c,
 * the claims read from the API server through the API-server module's request(), the prepared
 * claims checkpointed in axl's state directory (dra-<driver>.json).
 * cmd_dra_plugin.c calls start() once, rescan() when the devices may have changed, and
 * stop() at the end.
 */
#ifndef AXL_DRA_KUBELET_PLUGIN_H
#define AXL_DRA_KUBELET_PLUGIN_H

#include <stddef.h>

#include "axl.h"

struct opts;
struct dra_kubelet;

struct dra_kubelet_args {
	const struct opts *o;
	const char *driver, *node; /* the pool is named after the node */
	const char *registry_dir;  /* the kubelet's plugins_registry */
	const char *plugin_dir;    /* NULL: /var/lib/kubelet/plugins/<driver> */
	const char *cdi_dir;
	int health_port; /* the liveness probe's port (kubelet.h); negative: none */
	/* the API-server module's request() (api.h) and its connection: the claims are read
	 * with it (the same type, so this file needs no header of that module) */
	int (*request)(void *conn, const char *method, const char *path, const char *body, long *status, char **resp,
		       size_t *len, char *err, size_t cap);
	void *conn;
	/* slices.c's dra_devices_json: the Devices of the ResourceSlices, whose names the
	 * claims' allocation results carry */
	int (*devices_json)(const axl_inventory *inv, const char *sysroot, void (*note)(void *ud, const char *msg),
			    void *ud, char **out, char *err, size_t cap);
	/* --shares: the limiter on the host and the ld.so.preload beside it (NULL: LD_PRELOAD),
	 * mounted by the CDI spec of each claim given a share (shares.h); NULL: no shares */
	const char *limiter, *preload;
};

/* Write the CDI specs, read the checkpoint, load the module and serve the kubelet. 0, or
 * an exit code after a message (EXIT_USAGE for a bad option, 1 otherwise). */
int dra_kubelet_start(struct dra_kubelet **out, const struct dra_kubelet_args *args);
/* Rediscover: the CDI specs rewritten when they changed, the devices the claims are
 * prepared from replaced. quiet: no notes about devices left out. */
void dra_kubelet_rescan(struct dra_kubelet *k, int quiet);
/* The same from an inventory the caller discovered (and frees): one discovery serving the
 * slices and the kubelet side. NULL-safe. */
void dra_kubelet_rescan_inv(struct dra_kubelet *k, axl_context *ctx, axl_inventory *inv, int quiet);
/* The devices' health for the kubelet's health streams (kubelet.h set_health), from what
 * the publisher was last given (pool: api.h's pub_set JSON, slices.h's dra_pool_json): a
 * device with a taint is unhealthy (the message names the taint), one without healthy;
 * with checks off (--health-checks none) each is unknown, as nothing judged it. The
 * devices are in the pool named after the node. NULL-safe; pool NULL: nothing said. */
void dra_kubelet_health(struct dra_kubelet *k, const char *pool, int checks);
/* Stop serving (the sockets removed), free k. NULL-safe. */
void dra_kubelet_stop(struct dra_kubelet *k);

#endif
