/* SPDX-License-Identifier: MIT */
/* The kubelet side of `axl dra-plugin` on the command's side (kubelet_plugin.h). */
#define _GNU_SOURCE
#include "kubelet_plugin.h"

#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../cli/cdi_val.h"
#include "../../cli/cli.h"
#include "../../cli/output.h"
#include "../../util/jsonr.h"
#include "../kubernetes/limiter.h"
#include "kubelet.h"
#include "prepare.h"
#include "slices.h"

#define KUBELET_MODULE_NAME "axl-dra-kubelet.so"
#define DEFAULT_PLUGINS_DIR "/var/lib/kubelet/plugins"
#define MAX_SPECS           32

#ifndef AXL_PKGLIBDIR
#define AXL_PKGLIBDIR "/usr/local/lib/axl"
#endif

struct dra_kubelet {
	struct dra_kubelet_args a;
	char plugin_dir[PATH_MAX];
	char ckpt[PATH_MAX];
	struct cdi_job cdi;
	struct dra_prep *prep;
	const struct dra_kubelet_transport *t;
	void *server;
};

/* the module's lines (it leaves verbose ones out without -v); ud is the preparer */
static void k_say(void *ud, int level, const char *msg)
{
	(void)ud;
	fprintf(stderr, "axl: dra-plugin: %s%s\n", level == 0 ? "error: " : "", msg);
}

/* ---- the claims, from the API server ---------------------------------------------- */

/* a DNS label or subdomain (a namespace, a claim's name): nothing to escape in a path */
static int path_safe(const char *s)
{
	return s && *s && strlen(s) <= 253 && strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789-.") == strlen(s);
}

static int claim_get(void *ud, const char *ns, const char *name, const char *uid, char **json, char *err, size_t cap)
{
	(void)uid;
	const struct dra_kubelet *k = ud;
	*json = NULL;
	if (!path_safe(ns) || !path_safe(name)) {
		snprintf(err, cap, "not a namespace and name of Kubernetes");
		return -1;
	}
	char path[600];
	snprintf(path, sizeof path, "/apis/resource.k8s.io/v1/namespaces/%s/resourceclaims/%s", ns, name);
	long status = 0;
	char *body = NULL;
	size_t len = 0;
	if (k->a.request(k->a.conn, "GET", path, NULL, &status, &body, &len, err, cap) != 0)
		return -1;
	if (status != 200) {
		struct axl__jdoc *doc = NULL;
		char jerr[64];
		const char *msg = NULL;
		if (body && axl__jdoc_parse(body, len, &doc, jerr, sizeof jerr) == 0) /* a metav1.Status */
			msg = axl__jv_str(axl__jdoc_root(doc), "message");
		snprintf(err, cap, "GET %s: HTTP %ld%s%s", path, status, msg ? ": " : "", msg ? msg : "");
		axl__jdoc_free(doc);
		free(body);
		return -1;
	}
	*json = body;
	return 0;
}

/* ---- the devices: slices.c's names, axl cdi generate's CDI names ------------------------ */

struct named {
	const axl_device *dev;
	char id[256]; /* kind=name, the UUID name when there is one (stable across renumbering) */
	int by_uuid;
};

struct names {
	struct named *rows;
	size_t n, cap;
};

static void on_named(void *ud, const axl_device *dev, const char *kind, const char *name, int by_uuid)
{
	struct names *c = ud;
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].dev == dev) {
			if (by_uuid && !c->rows[i].by_uuid) {
				snprintf(c->rows[i].id, sizeof c->rows[i].id, "%s=%s", kind, name);
				c->rows[i].by_uuid = 1;
			}
			return;
		}
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 32;
		struct named *r = realloc(c->rows, nc * sizeof *r);
		if (!r)
			return;
		c->rows = r;
		c->cap = nc;
	}
	struct named *r = &c->rows[c->n++];
	r->dev = dev;
	snprintf(r->id, sizeof r->id, "%s=%s", kind, name);
	r->by_uuid = by_uuid;
}

/* The devices of inv into k->prep: each Device of the slices (dra_devices_json: one per
 * device of the inventory, then one per partition that exists, in dra_pool_device()'s
 * order) with its CDI device id. 0, or 1 after a message. */
static int devices_now(struct dra_kubelet *k, axl_context *ctx, axl_inventory *inv, int quiet)
{
	struct names c = { 0 };
	struct val *specs[MAX_SPECS];
	size_t ns = cdi_build_specs(inv, ctx, k->a.o, specs, MAX_SPECS, on_named, &c, 1);
	for (size_t i = 0; i < ns; i++)
		vfree(specs[i]);
	const char *root = axl_context_is_simulated(ctx) ? NULL : axl_context_sysroot(ctx);
	char *json = NULL, err[256];
	int rc = 1;
	struct axl__jdoc *doc = NULL;
	if (k->a.devices_json(inv, axl_context_is_simulated(ctx) ? NULL : (root ? root : "/"), NULL, NULL, &json, err,
			      sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		goto out;
	}
	if (axl__jdoc_parse(json, strlen(json), &doc, err, sizeof err) != 0 ||
	    axl__jdoc_root(doc)->type != AXL__J_ARR || axl__jdoc_root(doc)->len != dra_pool_device_count(inv)) {
		fprintf(stderr, "axl: dra-plugin: the slices' devices do not match the inventory\n");
		goto out;
	}
	const struct axl__jv *arr = axl__jdoc_root(doc);
	size_t n = arr->len, m = 0;
	struct dra_dev *devs = calloc(n ? n : 1, sizeof *devs);
	char **ids = calloc(n ? n : 1, sizeof *ids);
	struct dra_share_dev *sh = calloc(n ? n : 1, sizeof *sh);
	if (!devs || !ids || !sh) {
		free(devs);
		free(ids);
		free(sh);
		fprintf(stderr, "axl: dra-plugin: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const char *name = axl__jv_str(&arr->items[i], "name");
		const axl_device *dev = dra_pool_device(inv, i);
		const struct named *row = NULL;
		for (size_t r = 0; r < c.n && !row; r++)
			if (c.rows[r].dev == dev)
				row = &c.rows[r];
		if (!name)
			continue;
		if (!row) { /* no CDI device: nothing a container could be given */
			if (!quiet)
				fprintf(stderr,
					"axl: dra-plugin: %s has no CDI device (no device node): claims for it are "
					"refused\n",
					axl_device_id(dev));
			continue;
		}
		ids[m] = (char *)row->id;
		devs[m] = (struct dra_dev){ (char *)k->a.node, (char *)name, &ids[m], 1, NULL };
		if (k->a.limiter && dra_share_read_device(&arr->items[i], &sh[m])) /* shared: shares.h */
			devs[m].share = &sh[m];
		m++;
	}
	if (dra_prep_set_devices(k->prep, devs, m) == 0)
		rc = 0;
	else
		fprintf(stderr, "axl: dra-plugin: out of memory\n");
	if (k->a.o->verbose)
		fprintf(stderr, "axl: dra-plugin: %zu of %zu devices can be prepared\n", m, n);
	free(devs);
	free(ids);
	free(sh);
out:
	axl__jdoc_free(doc);
	free(json);
	free(c.rows);
	return rc;
}

void dra_kubelet_rescan_inv(struct dra_kubelet *k, axl_context *ctx, axl_inventory *inv, int quiet)
{
	if (!k)
		return;
	int wrote = 0;
	if (cdi_refresh_inv(&k->cdi, ctx, inv, &wrote) != 0)
		fprintf(stderr, "axl: dra-plugin: the CDI specs in %s could not be written\n", k->a.cdi_dir);
	devices_now(k, ctx, inv, quiet);
}

void dra_kubelet_rescan(struct dra_kubelet *k, int quiet)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (!k || open_inventory(k->a.o, &ctx, &inv))
		return;
	dra_kubelet_rescan_inv(k, ctx, inv, quiet);
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

/* ---- the devices' health ----------------------------------------------------------- */

void dra_kubelet_health(struct dra_kubelet *k, const char *pool, int checks)
{
	if (!k || !k->server || !pool)
		return;
	struct axl__jdoc *doc = NULL;
	char err[256];
	if (axl__jdoc_parse(pool, strlen(pool), &doc, err, sizeof err) != 0) {
		axl__jdoc_free(doc);
		return; /* ours, and parsed by the publisher before: cannot happen */
	}
	const struct axl__jv *root = axl__jdoc_root(doc);
	const struct axl__jv *arr = root->type == AXL__J_OBJ ? axl__jv_get(root, "devices") : root;
	size_t n = arr && arr->type == AXL__J_ARR ? arr->len : 0, m = 0;
	struct dra_device_health *h = calloc(n ? n : 1, sizeof *h);
	char **msgs = calloc(n ? n : 1, sizeof *msgs);
	struct timespec now;
	clock_gettime(CLOCK_REALTIME, &now);
	for (size_t i = 0; h && msgs && i < n; i++) {
		const struct axl__jv *d = &arr->items[i];
		const char *name = axl__jv_str(d, "name");
		if (!name)
			continue;
		const struct axl__jv *taints = axl__jv_get(d, "taints");
		const struct axl__jv *t =
		    taints && taints->type == AXL__J_ARR && taints->len ? &taints->items[0] : NULL;
		h[m] = (struct dra_device_health){ k->a.node, name, DRA_HEALTH_HEALTHY, NULL, (long long)now.tv_sec };
		if (!checks) {
			h[m].health = DRA_HEALTH_UNKNOWN;
			h[m].message = "not checked (axl dra-plugin --health-checks none)";
		} else if (t) {
			const char *key = axl__jv_str(t, "key"), *value = axl__jv_str(t, "value");
			const char *effect = axl__jv_str(t, "effect"), *since = axl__jv_str(t, "timeAdded");
			h[m].health = DRA_HEALTH_UNHEALTHY;
			if (asprintf(&msgs[m], "tainted %s%s%s:%s%s%s", key ? key : "", value ? "=" : "",
				     value ? value : "", effect ? effect : "", since ? " since " : "",
				     since ? since : "") < 0)
				msgs[m] = NULL;
			h[m].message = msgs[m];
		}
		m++;
	}
	if (h && msgs)
		k->t->set_health(k->server, h, m);
	for (size_t i = 0; msgs && i < n; i++)
		free(msgs[i]);
	free(msgs);
	free(h);
	axl__jdoc_free(doc);
}

/* ---- the module ---------------------------------------------------------------------- */

static const struct dra_kubelet_transport *load_module(void)
{
	char path[PATH_MAX];
	/* $AXL_DRA_KUBELET_MODULE, beside axl in a build tree (dra/), in an installed prefix */
	if (!kp_find_file("AXL_DRA_KUBELET_MODULE", "dra", KUBELET_MODULE_NAME, path, sizeof path)) {
		fprintf(stderr,
			"axl: dra-plugin needs %s (the kubelet's gRPC glue), which is neither beside axl nor in %s "
			"(AXL_DRA_KUBELET_MODULE names another)\n",
			KUBELET_MODULE_NAME, AXL_PKGLIBDIR);
		return NULL;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "axl: dra-plugin: cannot load %s: %s (it needs libgrpc and libprotobuf-c)\n", path,
			e ? e : "dlopen failed");
		return NULL;
	}
	const struct dra_kubelet_transport *(*entry)(void) =
	    (const struct dra_kubelet_transport *(*)(void))dlsym(h, DRA_KUBELET_SYMBOL);
	const struct dra_kubelet_transport *t = entry ? entry() : NULL;
	if (!t || t->abi != DRA_KUBELET_ABI) {
		fprintf(stderr, "axl: dra-plugin: %s is not this axl's module (ABI %d, want %d)\n", path,
			t ? t->abi : -1, DRA_KUBELET_ABI);
		return NULL;
	}
	return t; /* never unloaded: gRPC's threads live in it until stop() */
}

/* ---- start and stop ---------------------------------------------------------------- */

/* axl's state directory of this run ($AXL_STATE_DIR, /run/axl, ...: state.h) */
static int state_dir(const struct opts *o, char *out, size_t cap)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	const char *d = axl_state_dir(ctx);
	int rc = 0;
	if (!d) {
		fprintf(stderr, "axl: dra-plugin: this node has no state directory for the prepared claims' checkpoint "
				"(a re-rooted or simulated node): set AXL_STATE_DIR\n");
		rc = 1;
	} else {
		snprintf(out, cap, "%s", d);
	}
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

int dra_kubelet_start(struct dra_kubelet **out, const struct dra_kubelet_args *args)
{
	*out = NULL;
	struct dra_kubelet *k = calloc(1, sizeof *k);
	if (!k) {
		fprintf(stderr, "axl: dra-plugin: out of memory\n");
		return 1;
	}
	k->a = *args;
	if (args->plugin_dir)
		snprintf(k->plugin_dir, sizeof k->plugin_dir, "%s", args->plugin_dir);
	else
		snprintf(k->plugin_dir, sizeof k->plugin_dir, "%s/%s", DEFAULT_PLUGINS_DIR, args->driver);
	char sdir[PATH_MAX];
	int rc = cdi_setup(&k->cdi, args->o, args->cdi_dir, "json");
	if (rc) {
		free(k);
		return rc;
	}
	k->cdi.quiet = 1;
	if (state_dir(args->o, sdir, sizeof sdir) || cli_make_dir(sdir) || cli_make_dir(k->plugin_dir)) {
		cdi_job_free(&k->cdi);
		free(k);
		return 1;
	}
	chmod(sdir, 0700);
	snprintf(k->ckpt, sizeof k->ckpt, "%s/dra-%s.json", sdir, args->driver);
	struct dra_claim_source src = { k, claim_get };
	char err[1024];
	if (dra_prep_open(&k->prep, args->driver, k->ckpt, &src, err, sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		cdi_job_free(&k->cdi);
		free(k);
		return 1;
	}
	struct dra_share_cfg shc = { args->cdi_dir, args->driver, args->limiter, args->preload };
	if (dra_prep_set_shares(k->prep, &shc) != 0) {
		fprintf(stderr, "axl: dra-plugin: out of memory\n");
		dra_kubelet_stop(k);
		return 1;
	}
	if (k->prep->nclaims)
		fprintf(stderr, "axl: dra-plugin: %zu prepared claim%s found in %s\n", k->prep->nclaims,
			k->prep->nclaims == 1 ? "" : "s", k->ckpt);
	dra_kubelet_rescan(k, 0);
	k->t = load_module();
	if (!k->t) {
		dra_kubelet_stop(k);
		return 1;
	}
	struct dra_kubelet_config cfg = {
		.driver = args->driver,
		.registry_dir = args->registry_dir,
		.plugin_dir = k->plugin_dir,
		.verbose = args->o->verbose,
		.health_port = args->health_port,
	};
	struct dra_kubelet_ops ops = {
		.ud = k->prep,
		.prepare = dra_prep_prepare,
		.unprepare = dra_prep_unprepare,
		.release = dra_prep_release,
		.say = k_say,
	};
	if (k->t->start(&cfg, &ops, &k->server, err, sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		k->server = NULL;
		dra_kubelet_stop(k);
		return 1;
	}
	*out = k;
	return 0;
}

void dra_kubelet_stop(struct dra_kubelet *k)
{
	if (!k)
		return;
	if (k->server)
		k->t->stop(k->server);
	if (k->prep && k->a.o->verbose)
		fprintf(stderr, "axl: dra-plugin: %lu claim reads, %lu checkpoint writes\n", k->prep->fetches,
			k->prep->ckpt_writes);
	dra_prep_free(k->prep);
	cdi_job_free(&k->cdi);
	free(k);
}
