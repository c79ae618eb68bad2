/* SPDX-License-Identifier: MIT */
/*
 * axl device-plugin: the kubelet device plugin (API v1beta1) for every accelerator axl
 * knows (docs/kubernetes.md). What is advertised and handed out is
 * src/compat/kubernetes/'s (plugin.h: plugin.c builds the resources, answer.c,
 * preferred.c and allocate.c answer, health.c judges health); the gRPC glue is the module axl-kubernetes.so
 * (src/compat/kubernetes/glue.h and its files), loaded here only, so no other
 * command loads gRPC.
 * A device's container edits are its CDI spec's, built as axl cdi generate builds them,
 * so Allocate names exactly what `axl cdi list` prints.
 *
 * The command's thread rediscovers every --interval seconds and when device nodes appear
 * or go (watch.c), and swaps the node's resources under a lock; the module's threads
 * answer the kubelet from them. A node with nothing to advertise (a CPU node, a driver
 * not loaded yet) is waited on, not left: the plugin runs on every node of a DaemonSet.
 * A resource that appears later gets a start of the module of its own (a slice), beside
 * those already served, which are not disturbed.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "cdi_val.h"
#include "cli.h"
#include "../compat/kubernetes/health.h"
#include "../compat/kubernetes/plugin.h"
#include "../compat/kubernetes/transport.h"

#define DEFAULT_KUBELET_DIR "/var/lib/kubelet/device-plugins"
#define MODULE_NAME "axl-kubernetes.so"
#define MAX_SPECS 32
#define MAX_SHARES 64

#ifndef AXL_PKGLIBDIR
#define AXL_PKGLIBDIR "/usr/local/lib/axl"
#endif

/* ---- each device's CDI edits ------------------------------------------------------- */

struct cdi_name_row {
	const axl_device *dev;
	char kind[64];
	char name[160];
	int by_uuid;
};

struct cdi_names {
	struct cdi_name_row *rows;
	size_t n, cap;
	struct val *specs[MAX_SPECS];
	size_t nspecs;
};

static void on_named(void *ud, const axl_device *dev, const char *kind, const char *name, int by_uuid)
{
	struct cdi_names *c = ud;
	for (size_t i = 0; i < c->n; i++)
		if (c->rows[i].dev == dev) {
			if (by_uuid && !c->rows[i].by_uuid) { /* the UUID name: stable across renumbering */
				snprintf(c->rows[i].name, sizeof c->rows[i].name, "%s", name);
				c->rows[i].by_uuid = 1;
			}
			return;
		}
	if (c->n == c->cap) {
		size_t nc = c->cap ? c->cap * 2 : 64;
		struct cdi_name_row *r = realloc(c->rows, nc * sizeof *r);
		if (!r)
			return;
		c->rows = r;
		c->cap = nc;
	}
	struct cdi_name_row *r = &c->rows[c->n++];
	r->dev = dev;
	snprintf(r->kind, sizeof r->kind, "%s", kind);
	snprintf(r->name, sizeof r->name, "%s", name);
	r->by_uuid = by_uuid;
}

static void names_free(struct cdi_names *c)
{
	for (size_t i = 0; i < c->nspecs; i++)
		vfree(c->specs[i]);
	free(c->rows);
	memset(c, 0, sizeof *c);
}

static int push_str(char ***arr, size_t *n, const char *s)
{
	for (size_t i = 0; i < *n; i++)
		if (strcmp((*arr)[i], s) == 0)
			return 0;
	char **a = realloc(*arr, (*n + 1) * sizeof *a);
	if (!a)
		return -1;
	*arr = a;
	if (!(a[*n] = strdup(s)))
		return -1;
	(*n)++;
	return 0;
}

/* A mount is its pair of paths: one file may be mounted at two (a library at its SONAME
 * link and at its own name, as the CDI spec mounts ROCm's), and a pair already there
 * (the spec's edits after the device's) is not added again. */
static int push_mount(struct kp_edits *out, const char *host, const char *ctr)
{
	for (size_t i = 0; i < out->n_mounts; i++)
		if (strcmp(out->mount_host[i], host) == 0 && strcmp(out->mount_ctr[i], ctr) == 0)
			return 0;
	char **h = realloc(out->mount_host, (out->n_mounts + 1) * sizeof *h);
	if (!h)
		return -1;
	out->mount_host = h;
	char **c = realloc(out->mount_ctr, (out->n_mounts + 1) * sizeof *c);
	if (!c)
		return -1;
	out->mount_ctr = c;
	char *hs = strdup(host), *cs = strdup(ctr);
	if (!hs || !cs) {
		free(hs);
		free(cs);
		return -1;
	}
	h[out->n_mounts] = hs;
	c[out->n_mounts] = cs;
	out->n_mounts++;
	return 0;
}

/* deviceNodes[].path, env[] and mounts[] of a containerEdits object into out */
static int take_edits(const struct val *edits, struct kp_edits *out)
{
	if (!edits)
		return 0;
	const struct val *nodes = vget(edits, "deviceNodes"), *env = vget(edits, "env"), *mnt = vget(edits, "mounts");
	for (size_t i = 0; mnt && i < mnt->n; i++) {
		const struct val *h = vget(mnt->kids[i], "hostPath"), *c = vget(mnt->kids[i], "containerPath");
		if (!h || !h->s || !c || !c->s)
			continue;
		if (push_mount(out, h->s, c->s) != 0)
			return -1;
	}
	for (size_t i = 0; nodes && i < nodes->n; i++) {
		const struct val *p = vget(nodes->kids[i], "path");
		if (p && p->s && push_str(&out->nodes, &out->n_nodes, p->s) != 0)
			return -1;
	}
	for (size_t i = 0; env && i < env->n; i++)
		if (env->kids[i]->s && push_str(&out->env, &out->n_env, env->kids[i]->s) != 0)
			return -1;
	return 0;
}

static int edits_of(void *ud, const axl_device *dev, struct kp_edits *out)
{
	struct cdi_names *c = ud;
	const struct cdi_name_row *row = NULL;
	for (size_t i = 0; i < c->n && !row; i++)
		if (c->rows[i].dev == dev)
			row = &c->rows[i];
	if (!row)
		return -1;
	for (size_t s = 0; s < c->nspecs; s++) {
		const struct val *kind = vget(c->specs[s], "kind");
		if (!kind || strcmp(kind->s, row->kind) != 0)
			continue;
		const struct val *devs = vget(c->specs[s], "devices");
		for (size_t i = 0; devs && i < devs->n; i++) {
			const struct val *nm = vget(devs->kids[i], "name");
			if (!nm || strcmp(nm->s, row->name) != 0)
				continue;
			if (asprintf(&out->cdi, "%s=%s", row->kind, row->name) < 0) {
				out->cdi = NULL;
				return -1;
			}
			if (take_edits(vget(devs->kids[i], "containerEdits"), out) != 0 ||
			    take_edits(vget(c->specs[s], "containerEdits"), out) != 0)
				return -1;
			return 0;
		}
	}
	return -1;
}

/* ---- the plugin's state ------------------------------------------------------------- */

struct dp;

/* One start of the module: the resources it serves, fixed while it runs. */
struct slice {
	struct dp *d;
	char **names;
	const char **sockets;
	size_t n;
	void *server;
	struct slice *next;
};

struct dp {
	const struct opts *o;
	struct kp_options kopt;
	const struct k8s_transport *t;
	const char *dir;    /* the kubelet's */
	double reg_timeout; /* --register-timeout */
	pthread_mutex_t lock;
	struct kp_node *node;  /* now */
	struct slice *slices; /* the resources served, by the command's thread only */
	/* health (health.h), by the command's thread only: NULL when the checks are off */
	struct kp_health *health;
	struct kp_health_watch hw; /* the health sampler (health.h) */
	double next_health;  /* monotonic time of the next health sample */
};

static void dp_say(void *ud, int level, const char *msg)
{
	struct slice *s = ud;
	if (level >= 2 && !s->d->o->verbose)
		return;
	fprintf(stderr, "axl: device-plugin: %s%s\n", level == 0 ? "error: " : "", msg);
}

static void dp_note(void *ud, const char *msg)
{
	(void)ud;
	fprintf(stderr, "axl: device-plugin: %s\n", msg);
}

/* ---- health: the vendors' errors, sampled between rediscoveries (health.h) ----------- */

/* how often the health sampler is asked (or every --interval when that is shorter) */
#define HEALTH_PERIOD_S 5.0

static void health_say(void *ud, bool counted, const char *msg)
{
	const struct dp *d = ud;
	if (counted || d->o->verbose)
		fprintf(stderr, "axl: device-plugin: %s\n", msg);
}

/* The node's resources now; NULL after a message. */
static struct kp_node *scan(struct dp *d, int quiet)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(d->o, &ctx, &inv))
		return NULL;
	struct cdi_names c;
	memset(&c, 0, sizeof c);
	c.nspecs = cdi_build_specs(inv, ctx, d->o, c.specs, MAX_SPECS, on_named, &c, quiet);
	struct kp_node *node = NULL;
	char err[512];
	struct kp_options ko = d->kopt; /* the answering threads read d->kopt */
	ko.sysroot = axl_context_sysroot(ctx);
	ko.simulated = axl_context_is_simulated(ctx);
	if (kp_build(inv, &ko, edits_of, &c, quiet ? NULL : dp_note, &node, err, sizeof err) != 0)
		fprintf(stderr, "axl: device-plugin: %s\n", err);
	names_free(&c);
	if (!quiet)
		print_warnings(inv);
	bool kept = false;
	if (d->health) { /* the devices with a recent critical error stay Unhealthy */
		kept = kp_health_watch_set(&d->hw, d->health, ctx, inv, watch_now(), health_say, d);
		kp_health_expire(d->health, watch_now(), health_say, d);
		kp_health_apply(d->health, node, inv);
	}
	if (!kept) {
		axl_inventory_free(inv);
		axl_context_free(ctx);
	}
	return node;
}

/* The devices of resource r of slice s now (d->lock held); NULL when none is left. */
static struct kp_resource *served(struct slice *s, size_t r)
{
	return r < s->n ? kp_find(s->d->node, s->names[r]) : NULL;
}

static int op_list(void *ud, size_t r, const struct k8s_device **devs, size_t *n, void **owner)
{
	struct slice *s = ud;
	struct dp *d = s->d;
	pthread_mutex_lock(&d->lock);
	struct kp_resource *res = served(s, r);
	int rc;
	if (res) {
		rc = kp_list(res, devs, n, owner);
	} else { /* every device of it went, and none was ever listed: an empty list */
		static const struct k8s_device none[1];
		*devs = none;
		*n = 0;
		*owner = NULL;
		rc = 0;
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

static int op_preferred(void *ud, size_t r, const char *const *avail, size_t na, const char *const *must, size_t nm,
			int size, const char *const **ids, size_t *n, void **owner, int *code, char *err, size_t cap)
{
	struct slice *s = ud;
	struct dp *d = s->d;
	pthread_mutex_lock(&d->lock);
	struct kp_resource *res = served(s, r);
	int rc = res ? kp_preferred(res, avail, na, must, nm, size, ids, n, owner, code, err, cap) : -1;
	if (!res) {
		*code = K8S_NOT_FOUND;
		snprintf(err, cap, "no device of this resource is left on the node");
	}
	pthread_mutex_unlock(&d->lock);
	return rc;
}

static int op_allocate(void *ud, size_t r, const char *const *ids, size_t n, struct k8s_container *out, void **owner,
		       int *code, char *err, size_t cap)
{
	struct slice *s = ud;
	struct dp *d = s->d;
	pthread_mutex_lock(&d->lock);
	struct kp_resource *res = served(s, r);
	int rc = res ? kp_allocate(res, &d->kopt, ids, n, out, owner, code, err, cap) : -1;
	if (!res) {
		*code = K8S_NOT_FOUND;
		snprintf(err, cap, "no device of this resource is left on the node (asked: '%s')",
			 n && ids[0] ? ids[0] : "");
	}
	pthread_mutex_unlock(&d->lock);
	if (rc == 0 && d->o->verbose)
		fprintf(stderr, "axl: device-plugin: Allocate %s: %zu device%s\n", s->names[r], n, n == 1 ? "" : "s");
	return rc;
}

static void op_release(void *ud, void *owner)
{
	(void)ud;
	kp_release(owner);
}

/* ---- serving: one slice per start of the module ------------------------------------ */

static bool is_served(const struct dp *d, const char *name)
{
	for (const struct slice *s = d->slices; s; s = s->next)
		for (size_t r = 0; r < s->n; r++)
			if (strcmp(s->names[r], name) == 0)
				return true;
	return false;
}

static void slice_free(struct slice *s)
{
	for (size_t r = 0; r < s->n; r++) {
		free(s->names[r]);
		free((char *)s->sockets[r]);
	}
	free(s->names);
	free(s->sockets);
	free(s);
}

/* Serve and register the resources of d->node not served yet, in a slice of their own.
 * 0 (also when there is none), or -1 after a message. */
/* Every socket this run makes or dials in the kubelet's directory (the kubelet's own,
 * kubelet.sock, as the kubelet's device manager names it; one per resource) fits in a unix
 * socket's address (sun_path: 108 bytes with the NUL). A longer one could never be bound
 * or reached: refused at the start, with the longest named. */
static bool sockets_fit(const char *dir, const struct kp_node *node)
{
	const char *longest = "kubelet.sock";
	for (size_t i = 0; i < node->n; i++)
		if (strlen(node->res[i].socket) > strlen(longest))
			longest = node->res[i].socket;
	size_t len = strlen(dir) + 1 + strlen(longest), most = sizeof(((struct sockaddr_un *)0)->sun_path) - 1;
	if (len <= most)
		return true;
	fprintf(stderr,
		"axl: device-plugin: --kubelet-dir %s is too long for a unix socket: %s/%s has %zu bytes, a socket's "
		"path at most %zu; name a shorter directory (a symbolic link to it will do)\n",
		dir, dir, longest, len, most);
	return false;
}

static int serve_new(struct dp *d, bool later)
{
	struct slice *s = calloc(1, sizeof *s);
	size_t cap = d->node->n;
	if (!s || !(s->names = calloc(cap ? cap : 1, sizeof *s->names)) ||
	    !(s->sockets = calloc(cap ? cap : 1, sizeof *s->sockets))) {
		fprintf(stderr, "axl: device-plugin: out of memory\n");
		if (s)
			slice_free(s);
		return -1;
	}
	s->d = d;
	for (size_t i = 0; i < d->node->n; i++) {
		const struct kp_resource *res = &d->node->res[i];
		if (is_served(d, res->name))
			continue;
		s->names[s->n] = strdup(res->name);
		s->sockets[s->n] = strdup(res->socket);
		if (!s->names[s->n++] || !s->sockets[s->n - 1]) {
			fprintf(stderr, "axl: device-plugin: out of memory\n");
			slice_free(s);
			return -1;
		}
		fprintf(stderr, "axl: device-plugin: %s%s: %zu device%s on %s/%s\n", res->name,
			later ? " appeared" : "", res->n, res->n == 1 ? "" : "s", d->dir, res->socket);
	}
	if (s->n == 0) {
		slice_free(s);
		return 0;
	}
	struct k8s_config cfg = {
		.dir = d->dir,
		.resources = (const char *const *)s->names,
		.sockets = s->sockets,
		.n = s->n,
		.preferred = 1,
		.register_timeout_s = d->reg_timeout,
		.verbose = d->o->verbose,
	};
	struct k8s_ops ops = {
		.ud = s,
		.list = op_list,
		.preferred = op_preferred,
		.allocate = op_allocate,
		.release = op_release,
		.say = dp_say,
	};
	char err[512];
	if (d->t->start(&cfg, &ops, &s->server, err, sizeof err) != 0) {
		fprintf(stderr, "axl: device-plugin: %s%s\n", err,
			later ? " (tried again at the next rediscovery)" : "");
		slice_free(s);
		return -1;
	}
	s->next = d->slices;
	d->slices = s;
	return 0;
}

/* Say the health changes of the served resources' devices from old to now. */
static void say_health(const struct dp *d, const struct kp_node *old, const struct kp_node *now)
{
	for (const struct slice *s = d->slices; s; s = s->next)
		for (size_t r = 0; r < s->n; r++) {
			const struct kp_resource *a = kp_find(old, s->names[r]), *b = kp_find(now, s->names[r]);
			for (size_t k = 0; b && k < b->n; k++) {
				int was = -1;
				for (size_t j = 0; a && j < a->n && was < 0; j++)
					if (strcmp(a->devs[j].id, b->devs[k].id) == 0)
						was = a->devs[j].healthy;
				const char *err = kp_health_why(d->health, b->devs[k].axl_id);
				if (was != b->devs[k].healthy && b->devs[k].share <= 0)
					fprintf(stderr, "axl: device-plugin: %s %s (%s): %s%s%s\n", s->names[r],
						b->devs[k].unit, b->devs[k].axl_id,
						b->devs[k].healthy ? "healthy" : "unhealthy (",
						b->devs[k].healthy ? ""
						: err              ? err
								   : "lost",
						b->devs[k].healthy ? "" : ")");
			}
		}
}

/* ---- where the module and the limiter are ------------------------------------------- */

static const struct k8s_transport *load_module(void)
{
	char path[PATH_MAX];
	if (!kp_find_file("AXL_KUBERNETES_MODULE", "kubernetes", MODULE_NAME, path, sizeof path)) {
		fprintf(stderr, "axl: device-plugin needs %s (the gRPC glue), which is neither beside axl nor in %s "
				"(AXL_KUBERNETES_MODULE names another)\n",
			MODULE_NAME, AXL_PKGLIBDIR);
		return NULL;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "axl: device-plugin: cannot load %s: %s (it needs libgrpc29 and libprotobuf-c1)\n",
			path, e ? e : "dlopen failed");
		return NULL;
	}
	const struct k8s_transport *(*entry)(void) =
	    (const struct k8s_transport *(*)(void))dlsym(h, K8S_TRANSPORT_SYMBOL);
	const struct k8s_transport *t = entry ? entry() : NULL;
	if (!t || t->abi != K8S_TRANSPORT_ABI) {
		fprintf(stderr, "axl: device-plugin: %s is not this axl's module (ABI %d, want %d)\n", path,
			t ? t->abi : -1, K8S_TRANSPORT_ABI);
		return NULL;
	}
	return t; /* never unloaded: gRPC's threads live in it */
}

/* ---- the command -------------------------------------------------------------------- */

/* The options (the table closes the file) */
static struct {
	const char *dir, *parts[3], *limiter, *list, *checks, *driver_root, *driver_root_host;
	long shares;
	int64_t interval_ms, reg_timeout_ms, recovery_ms;
	int has_recovery;
} a = {.dir = DEFAULT_KUBELET_DIR, .list = "cdi-cri", .shares = 1, .reg_timeout_ms = 10000};
static const struct cli_opt options[];

/* The partition strategy under any of its spellings (the table's three options writing
 * a.parts[]: this command's, and the other plugins' that users bring): NULL after a message
 * when two disagree. *spelled: the option used, as the table names it. */
static const char *strategy(const char **spelled)
{
	static char names[3][64];
	const char *v = NULL;
	*spelled = NULL;
	for (const struct cli_opt *t = options; t->type != CLI_OPT_END; t++)
		for (int k = 0; k < 3; k++) {
			if (t->value != &a.parts[k])
				continue;
			snprintf(names[k], sizeof names[k], "--%s", t->name);
			if (!*spelled)
				*spelled = names[k];
			if (!a.parts[k])
				continue;
			if (v && strcmp(v, a.parts[k]) != 0) {
				fprintf(stderr, "axl device-plugin: %s %s and %s %s disagree\n", *spelled, v, names[k],
					a.parts[k]);
				return NULL;
			}
			v = a.parts[k];
			*spelled = names[k];
		}
	return v ? v : "none";
}

static int cmd_device_plugin(struct opts *go, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct opts o = *go;
	o.driver_root = a.driver_root;
	o.driver_root_host = a.driver_root_host;
	const char *dir = a.dir, *limiter = a.limiter, *parts_opt;
	const char *parts = strategy(&parts_opt);
	if (!parts)
		return EXIT_USAGE;
	if (cdi_check_host(&o))
		return EXIT_USAGE;
	struct dp d;
	memset(&d, 0, sizeof d);
	d.o = &o;
	d.kopt.parts_option = parts_opt;
	if (strcmp(parts, "none") == 0)
		d.kopt.parts = KP_PARTS_NONE;
	else if (strcmp(parts, "single") == 0)
		d.kopt.parts = KP_PARTS_SINGLE;
	else
		d.kopt.parts = KP_PARTS_MIXED;
	d.kopt.shares = (int)a.shares;
	/* NVIDIA's plugin's option name: cdi-cri is its CDI mode; mounts is ours, for runtimes
	 * without CDI */
	d.kopt.list = strcmp(a.list, "mounts") == 0 ? KP_LIST_MOUNTS : KP_LIST_CDI;
	double reg_timeout = (double)a.reg_timeout_ms / 1000;
	/* health: the option, and NVIDIA's plugin's variables as it reads them */
	struct kp_health_policy pol;
	char note[512], perr[256];
	if (kp_health_policy(&pol, a.checks, a.has_recovery ? (double)a.recovery_ms / 1000 : -1,
			     getenv("DP_DISABLE_HEALTHCHECKS"), getenv("DP_ENABLE_HEALTHCHECKS"), note, sizeof note,
			     perr, sizeof perr) != 0) {
		fprintf(stderr, "axl device-plugin: %s\n", perr);
		return EXIT_USAGE;
	}
	char limpath[PATH_MAX];
	static char prepath[PATH_MAX];
	if (d.kopt.shares > 1) {
		if (kp_limiter_find("device-plugin", d.kopt.shares, limiter, limpath, sizeof limpath, prepath,
				    sizeof prepath, &d.kopt.preload_file))
			return 1;
		d.kopt.limiter = limpath;
	}
	struct stat st;
	if (stat(dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		fprintf(stderr, "axl: device-plugin: the kubelet's device plugin directory %s %s\n", dir,
			errno == ENOENT || !S_ISDIR(st.st_mode)
			    ? "does not exist (is a kubelet running here? --kubelet-dir names another)"
			    : strerror(errno));
		return 1;
	}
	if (access(dir, W_OK | X_OK) != 0) {
		fprintf(stderr, "axl: device-plugin: cannot create sockets in %s: %s\n", dir, strerror(errno));
		return 1;
	}
	const struct k8s_transport *t = load_module();
	if (!t)
		return 1;
	struct watch w;
	if (watch_open(&w, &o, a.interval_ms)) /* blocks SIGINT and SIGTERM before any thread starts */
		return 1;
	pthread_mutex_init(&d.lock, NULL);
	d.t = t;
	d.dir = dir;
	d.reg_timeout = reg_timeout;
	if (*note)
		fprintf(stderr, "axl: device-plugin: %s\n", note);
	char said[1024];
	kp_health_describe(&pol, said, sizeof said);
	fprintf(stderr, "axl: device-plugin: %s\n", said);
	if (!pol.none && (!pol.off || pol.errors_all || pol.nkeep))
		d.health = kp_health_new(&pol);
	double period = w.interval < HEALTH_PERIOD_S ? w.interval : HEALTH_PERIOD_S;
	d.next_health = watch_now() + period;
	d.node = scan(&d, 0);
	int rc = 1;
	if (!d.node || !sockets_fit(dir, d.node))
		goto out;
	if (d.node->n == 0)
		fprintf(stderr,
			"axl: device-plugin: no accelerator to advertise on this node: waiting for one (rediscovering "
			"when device nodes come or go, and every %.0f s)\n",
			w.interval);
	else if (serve_new(&d, false) != 0)
		goto out;
	const char *why = "start";
	double next_scan = watch_now() + w.interval;
	for (;;) {
		/* asleep until the next rediscovery, health sample or recovery, whichever is first */
		double wake = kp_health_watch_wake(&d.hw, d.health, d.next_health, next_scan);
		double left = wake - watch_now();
		if (!watch_wait(&w, left > 0.001 ? left : 0.001, &why))
			break;
		double tnow = watch_now();
		bool rescan = strcmp(why, "interval") != 0 || tnow >= next_scan - 0.001;
		const char *hwhy = kp_health_watch_tick(&d.hw, d.health, tnow, &d.next_health, period, health_say, &d);
		if (hwhy)
			rescan = true, why = hwhy;
		if (!rescan)
			continue;
		next_scan = tnow + w.interval;
		struct kp_node *now = scan(&d, 1);
		if (!now)
			continue; /* said; the last good list stands */
		if (kp_keep_lost(now, d.node) != 0) {
			kp_node_free(now);
			continue;
		}
		pthread_mutex_lock(&d.lock);
		struct kp_node *old = d.node;
		d.node = now;
		pthread_mutex_unlock(&d.lock);
		say_health(&d, old, now);
		kp_node_free(old);
		if (o.verbose)
			fprintf(stderr, "axl: device-plugin: rediscovered (%s)\n", why);
		for (struct slice *s = d.slices; s; s = s->next)
			d.t->changed(s->server);
		serve_new(&d, true); /* a driver loaded, a device plugged in: a failure is said */
	}
	rc = 0;
out:
	while (d.slices) {
		struct slice *s = d.slices;
		d.slices = s->next;
		t->stop(s->server);
		slice_free(s);
	}
	watch_close(&w);
	kp_node_free(d.node);
	kp_health_watch_close(&d.hw);
	kp_health_free(d.health);
	pthread_mutex_destroy(&d.lock);
	return rc;
}

#define STRATEGY_HELP                                                                                              \
	"none (default): MIG GPUs as whole GPUs; single: every MIG\n"                                              \
	"device (all of one profile) as nvidia.com/gpu; mixed: each\n"                                            \
	"profile as nvidia.com/mig-<profile> (1g.10gb+me: mig-1g.10gb.me).\n"                                     \
	"AMD GPUs in CPX/DPX/QPX mode: one device per partition, as\n"                                            \
	"amd.com/gpu (none, single: all GPUs in one mode) or under\n"                                             \
	"their modes (mixed: amd.com/cpx_nps4). Also spelt as ROCm's\n"                                           \
	"plugin spells it: --resource-naming-strategy,\n"                                                         \
	"-resource_naming_strategy"

static const struct cli_opt options[] = {
	{.type = CLI_OPT_STRING, .name = "kubelet-dir", .value = &a.dir, .value_name = "DIR",
	 .help = "the kubelet's socket directory (default\n/var/lib/kubelet/device-plugins)"},
	{.type = CLI_OPT_CHOICE, .name = "mig-strategy", .value = &a.parts[0], .help = STRATEGY_HELP,
	 .choices = "none|single|mixed"},
	{.type = CLI_OPT_CHOICE, .name = "resource-naming-strategy", .value = &a.parts[1], .flags = CLI_OPT_HIDDEN,
	 .choices = "none|single|mixed"},
	{.type = CLI_OPT_CHOICE, .name = "resource_naming_strategy", .value = &a.parts[2], .flags = CLI_OPT_HIDDEN,
	 .choices = "none|single|mixed"},
	{.type = CLI_OPT_COUNT, .name = "shares", .value = &a.shares,
	 .help = "advertise each device N times (IDs <id>::<k>), each share held\nto 1/N of the memory and compute by "
	         "the preloaded limiter", .min = 1, .max = MAX_SHARES},
	{.type = CLI_OPT_STRING, .name = "limiter", .value = &a.limiter, .value_name = "PATH",
	 .help = "the limiter to mount (default: beside axl, or the installed one);\nthe ld.so.preload beside it is "
	         "mounted at /etc/ld.so.preload"},
	{.type = CLI_OPT_CHOICE, .name = "device-list-strategy", .value = &a.list,
	 .help = "cdi-cri (default): the devices' CDI names; mounts: no CDI\n(containerd < 1.7, CRI-O without CDI), "
	         "the spec's device nodes,\nenvironment and library mounts in the answer itself",
	 .choices = "cdi-cri|cdi|mounts"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &a.interval_ms,
	 .help = "rediscover this often (default 60s), and when device nodes change", .min = 1, .max = 86400000},
	{.type = CLI_OPT_DURATION, .name = "register-timeout", .value = &a.reg_timeout_ms,
	 .help = "how long one Register call may take (default 10s)", .min = 100, .max = 600000},
	{.type = CLI_OPT_CHOICE, .name = "health-checks", .value = &a.checks,
	 .help = "all (default): a device with a critical error its vendor reports\n(NVML's Xids but an "
	         "application's, double-bit ECC; amdgpu's RAS\nuncorrectable errors) is Unhealthy; none: only a "
	         "device that is\ngone. DP_DISABLE_HEALTHCHECKS and DP_ENABLE_HEALTHCHECKS are read\nas NVIDIA's "
	         "plugin reads them", .choices = "all|none"},
	{.type = CLI_OPT_DURATION, .name = "health-recovery", .value = &a.recovery_ms,
	 .help = "Healthy again this long after its last error (default 5m; 0: not\nuntil the plugin restarts)",
	 .count = &a.has_recovery},
	{.type = CLI_OPT_STRING, .name = "driver-root", .value = &a.driver_root, .value_name = "DIR",
	 .help = "where the vendor's user-space files are looked for (the host's\n"
		 "root mounted at /host in a container; default / or $AXL_DRIVER_ROOT)"},
	{.type = CLI_OPT_STRING, .name = "driver-root-host", .value = &a.driver_root_host, .value_name = "PATH",
	 .help = "what DIR is on the host (default /; /run/nvidia/driver for the GPU\nOperator's driver container; "
	         "$AXL_DRIVER_ROOT_HOST)"},
	{0},
};

const struct cli_command cli_cmd_device_plugin = {
	"device-plugin", cmd_device_plugin, CLI_G_NODE, options, NULL,
	"the kubelet device plugin for every accelerator",
	"The kubelet device plugin (API v1beta1) for every accelerator of the node\n"
	"(docs/kubernetes.md): one service per resource name, under the vendors' own names\n"
	"(nvidia.com/gpu, amd.com/gpu, gpu.intel.com/i915, habana.ai/gaudi, ...), registered\n"
	"with the kubelet and again when it restarts. Devices are listed with their NUMA\n"
	"node and health, followed as device nodes come and go; Allocate hands out the\n"
	"devices' CDI names (as axl cdi list prints them), device nodes and visibility\n"
	"variables; GetPreferredAllocation keeps a request on one NVLink/xGMI/RoCE island, then\n"
	"one NUMA node. SIGTERM or SIGINT ends it and removes its sockets.",
};
