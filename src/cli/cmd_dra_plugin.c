/* SPDX-License-Identifier: MIT */
/*
 * axl dra-plugin: the Dynamic Resource Allocation driver for every accelerator axl knows
 * (docs/kubernetes.md), beside axl device-plugin (clusters before 1.34).
 *
 * Two halves:
 *  - the API-server side: the node's devices as ResourceSlices (src/compat/dra/slices.c
 *    builds the Device objects from the inventory; the module axl-dra.so, api.h, holds the
 *    HTTPS client and the publisher, loaded here only, so no other command loads libcurl
 *    and the TLS stack);
 *  - the kubelet side: plugin registration and the DRA gRPC service (NodePrepareResources,
 *    NodeUnprepareResources), in its own section below.
 * The command's thread rediscovers every --interval and when device nodes come or go
 * (watch.c; on a simulated node, when the --sim file changes), and hands the devices to
 * the publisher whenever they differ from what it has.
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "cli.h"
#include "../compat/dra/api.h"
#include "../compat/dra/kubelet_plugin.h"
#include "../compat/dra/shares.h"
#include "../compat/dra/slices.h"
#include "../compat/kubernetes/health.h"
#include "../compat/kubernetes/limiter.h"

#define DRA_MODULE_NAME      "axl-dra.so"
#define DEFAULT_REGISTRY_DIR "/var/lib/kubelet/plugins_registry"
#define DEFAULT_PLUGINS_DIR  "/var/lib/kubelet/plugins"

#ifndef AXL_PKGLIBDIR
#define AXL_PKGLIBDIR "/usr/local/lib/axl"
#endif

/* The options (the table closes the file) */
static struct {
	const char *kubeconfig, *node, *driver, *registry_dir, *plugin_dir, *cdi_dir, *driver_root, *driver_root_host;
	const char *checks;
	const char *limiter;
	long shares;
	const char *partitionable; /* --partitionable-devices */
	int publish_only, delete_on_exit, has_recovery;
	int64_t interval_ms, api_timeout_ms, backoff_ms, watch_timeout_ms, recovery_ms;
	long health_port;
} a = { .checks = "all",
	.partitionable = "auto",
	.health_port = -1,
	.driver = DRA_DEFAULT_DRIVER,
	.registry_dir = DEFAULT_REGISTRY_DIR,
	.cdi_dir = "/var/run/cdi",
	.api_timeout_ms = 10000,
	.backoff_ms = 500,
	.watch_timeout_ms = 300000 };
static const struct cli_opt options[];

/* ---- the module -------------------------------------------------------------------- */

static const struct dra_api *load_module(void)
{
	char path[PATH_MAX];
	/* $AXL_DRA_MODULE, beside axl in a build tree (dra/), in an installed prefix */
	if (!kp_find_file("AXL_DRA_MODULE", "dra", DRA_MODULE_NAME, path, sizeof path)) {
		fprintf(stderr,
			"axl: dra-plugin needs %s (the API-server glue), which is neither beside axl nor in %s "
			"(AXL_DRA_MODULE names another)\n",
			DRA_MODULE_NAME, AXL_PKGLIBDIR);
		return NULL;
	}
	void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	if (!h) {
		const char *e = dlerror();
		fprintf(stderr, "axl: dra-plugin: cannot load %s: %s (it needs libcurl4)\n", path,
			e ? e : "dlopen failed");
		return NULL;
	}
	const struct dra_api *(*entry)(void) = (const struct dra_api *(*)(void))dlsym(h, DRA_API_SYMBOL);
	const struct dra_api *api = entry ? entry() : NULL;
	if (!api || api->abi != DRA_API_ABI) {
		fprintf(stderr, "axl: dra-plugin: %s is not this axl's module (ABI %d, want %d)\n", path,
			api ? api->abi : -1, DRA_API_ABI);
		return NULL;
	}
	return api; /* never unloaded: the publisher's thread lives in it */
}

/* ---- the API-server side: ResourceSlices ------------------------------------------- */

struct dra {
	const struct opts *o;
	const struct dra_api *api;
	void *conn;
	void *pub;
	char *devices; /* what the publisher was last given */
	/* health as device taints (health.h, as axl device-plugin judges it): NULL when off */
	struct kp_health *health;
	struct kp_health_watch hw; /* the health sampler, kept as axl device-plugin keeps its own */
};

/* ---- health: the vendors' errors as device taints (health.h) ------------------------ */
/* The health sampler (struct kp_health_watch) is asked every HEALTH_PERIOD_S. */

#define HEALTH_PERIOD_S 5.0

static void health_say(void *ud, bool counted, const char *msg)
{
	const struct dra *d = ud;
	if (counted || d->o->verbose)
		fprintf(stderr, "axl: dra-plugin: %s\n", msg);
}

static bool taint_of(void *ud, const char *axl_id, struct dra_taint *t)
{
	const struct dra *d = ud;
	const char *value = NULL;
	long long since = 0;
	int sev = kp_health_severity(d->health, axl_id, &since, &value);
	if (!sev)
		return false;
	t->effect = sev >= KP_SEVERE_EVICT ? "NoExecute" : "NoSchedule";
	t->value = value;
	t->added = since;
	return true;
}

static void say(void *ud, int level, const char *msg)
{
	const struct dra *d = ud;
	if (level >= 2 && !d->o->verbose)
		return;
	fprintf(stderr, "axl: dra-plugin: %s%s\n", level == 0 ? "error: " : "", msg);
}

static void note(void *ud, const char *msg)
{
	say(ud, 1, msg);
}

/* The devices of a discovery, as Device objects; NULL after a message. *kept: ctx and inv
 * are the health sampler's from now on (the caller frees them otherwise). */
static char *devices_of(struct dra *d, axl_context *ctx, axl_inventory *inv, int quiet, bool *kept)
{
	const char *root = axl_context_is_simulated(ctx) ? NULL : axl_context_sysroot(ctx);
	char *json = NULL, err[256];
	if (d->health) { /* the devices with a recent critical error are tainted */
		*kept = kp_health_watch_set(&d->hw, d->health, ctx, inv, watch_now(), health_say, d);
		kp_health_expire(d->health, watch_now(), health_say, d);
	}
	struct dra_pool_opts po = { root ? root : (axl_context_is_simulated(ctx) ? NULL : "/"),
				    a.driver,
				    d->health ? taint_of : NULL,
				    d,
				    quiet ? NULL : note,
				    d,
				    strcmp(a.partitionable, "off") == 0 ? DRA_PARTITIONS_OFF :
				    strcmp(a.partitionable, "on") == 0	? DRA_PARTITIONS_ON :
									  DRA_PARTITIONS_AUTO };
	if (dra_pool_json(inv, &po, &json, err, sizeof err) != 0)
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
	if (!quiet)
		print_warnings(inv);
	return json;
}

/* Hand the devices to the publisher when they changed. */
static void publish(struct dra *d, char *devices)
{
	if (!devices)
		return;
	if (d->devices && strcmp(d->devices, devices) == 0) {
		free(devices);
		return;
	}
	char err[256];
	if (d->api->pub_set(d->pub, devices, err, sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		free(devices);
		return;
	}
	free(d->devices);
	d->devices = devices;
}

/* Rediscover: one discovery serves the slices (published when their devices changed), the
 * health sampler and the kubelet side (kl; NULL: none yet, or --publish-only). */
static void rediscover(struct dra *d, struct dra_kubelet *kl, int quiet)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(d->o, &ctx, &inv))
		return;
	bool kept = false;
	publish(d, devices_of(d, ctx, inv, quiet, &kept));
	dra_kubelet_rescan_inv(kl, ctx, inv, quiet);
	if (!kept) {
		axl_inventory_free(inv);
		axl_context_free(ctx);
	}
}

/* A simulated node has no /dev to watch: its --sim file is (written in place or renamed
 * over), so that a device that comes or goes in it is published at once. */
static void watch_sim_file(struct watch *w, const char *sim)
{
	if (!sim || w->ino >= 0)
		return;
	char buf[PATH_MAX];
	snprintf(buf, sizeof buf, "%s", sim);
	w->ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (w->ino < 0)
		return;
	w->wd_dev = -1;
	if (inotify_add_watch(w->ino, dirname(buf), IN_CLOSE_WRITE | IN_MOVED_TO | IN_ONLYDIR) < 0) {
		close(w->ino);
		w->ino = -1;
	}
}

/* ---- the kubelet side: registration and the DRA service ---------------------------- */
/* src/compat/dra/kubelet_plugin.c: plugin registration in --kubelet-registry-dir, the DRA
 * socket in --kubelet-plugin-dir (the module axl-dra-kubelet.so), NodePrepareResources/
 * NodeUnprepareResources with the CDI specs in --cdi-dir, the claims read through the
 * API-server module, what was prepared checkpointed in axl's state directory. */

/* ---- the command -------------------------------------------------------------------- */

static int cmd_dra_plugin(struct opts *go, int argc, char **argv)
{
	(void)argc, (void)argv;
	struct opts o = *go;
	o.driver_root = a.driver_root;
	o.driver_root_host = a.driver_root_host;
	const char *node = a.node ? a.node : getenv("NODE_NAME");
	if (!node || !*node) {
		fprintf(stderr,
			"axl dra-plugin: the node's name is needed: --node-name NAME, or NODE_NAME (the downward "
			"API's spec.nodeName)\n");
		return EXIT_USAGE;
	}
	if (strlen(a.driver) > 63 || strspn(a.driver, "abcdefghijklmnopqrstuvwxyz0123456789-.") != strlen(a.driver) ||
	    !strchr(a.driver, '.') || a.driver[0] == '.' || a.driver[0] == '-' ||
	    a.driver[strlen(a.driver) - 1] == '.' || a.driver[strlen(a.driver) - 1] == '-' || strstr(a.driver, "..")) {
		fprintf(stderr,
			"axl dra-plugin: --driver-name %s: a lower-case DNS subdomain of at most 63 characters with "
			"a dot is needed (it is also the attributes' domain)\n",
			a.driver);
		return EXIT_USAGE;
	}
	struct kp_health_policy pol;
	char hnote[512], perr[256];
	if (kp_health_policy(&pol, a.checks, a.has_recovery ? (double)a.recovery_ms / 1000 : -1,
			     getenv("DP_DISABLE_HEALTHCHECKS"), getenv("DP_ENABLE_HEALTHCHECKS"), hnote, sizeof hnote,
			     perr, sizeof perr) != 0) {
		fprintf(stderr, "axl dra-plugin: %s\n", perr);
		return EXIT_USAGE;
	}
	/* --shares: devices as consumable capacity (shares.h), each claim held by the limiter */
	char limpath[PATH_MAX], prepath[PATH_MAX];
	const char *preload = NULL;
	if (a.shares > 1 && kp_limiter_find("dra-plugin", (int)a.shares, a.limiter, limpath, sizeof limpath, prepath,
					    sizeof prepath, &preload))
		return 1;
	dra_shares_set(a.shares > 1 ? (int)a.shares : 1);
	const struct dra_api *api = load_module();
	if (!api)
		return 1;
	struct dra d = { .o = &o, .api = api };
	if (*hnote)
		fprintf(stderr, "axl: dra-plugin: %s\n", hnote);
	if (!pol.none && (!pol.off || pol.errors_all || pol.nkeep))
		d.health = kp_health_new(&pol);
	struct dra_conn_config cc = {
		.kubeconfig = a.kubeconfig,
		.host = getenv("KUBERNETES_SERVICE_HOST"),
		.port = getenv("KUBERNETES_SERVICE_PORT"),
		.sa_dir = getenv("AXL_SERVICE_ACCOUNT_DIR"), /* NULL or empty: the pod's own */
		.timeout_s = (double)a.api_timeout_ms / 1000,
		.user_agent = "axl-dra-plugin",
	};
	char err[1024];
	if (api->open(&cc, &d.conn, err, sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		kp_health_free(d.health);
		return 1;
	}
	struct watch w;
	if (watch_open(&w, &o, a.interval_ms)) { /* blocks SIGINT and SIGTERM before any thread starts */
		api->close(d.conn);
		kp_health_free(d.health);
		return 1;
	}
	watch_sim_file(&w, o.sim);
	struct dra_pub_config pc = {
		.driver = a.driver,
		.node = node,
		.backoff_min_s = (double)a.backoff_ms / 1000,
		.backoff_max_s = 60,
		.watch_timeout_s = (double)a.watch_timeout_ms / 1000,
		.say = say,
		.ud = &d,
	};
	int rc = 1;
	struct dra_kubelet *kl = NULL;
	if (api->pub_start(d.conn, &pc, &d.pub, err, sizeof err) != 0) {
		fprintf(stderr, "axl: dra-plugin: %s\n", err);
		goto out;
	}
	fprintf(stderr, "axl: dra-plugin: publishing the ResourceSlices of driver %s, pool %s\n", a.driver, node);
	rediscover(&d, NULL, 0);
	if (!a.publish_only) {
		struct dra_kubelet_args ka = { .o = &o,
					       .driver = a.driver,
					       .node = node,
					       .registry_dir = a.registry_dir,
					       .plugin_dir = a.plugin_dir,
					       .cdi_dir = a.cdi_dir,
					       .health_port = (int)a.health_port,
					       .request = api->request,
					       .conn = d.conn,
					       .devices_json = dra_devices_json,
					       .limiter = a.shares > 1 ? limpath : NULL,
					       .preload = preload };
		if ((rc = dra_kubelet_start(&kl, &ka)) != 0)
			goto out;
		rc = 1;
		dra_kubelet_health(kl, d.devices, d.health != NULL);
	}
	const char *why = "start";
	double period = w.interval < HEALTH_PERIOD_S ? w.interval : HEALTH_PERIOD_S;
	double next_health = watch_now() + period, next_scan = watch_now() + w.interval;
	for (;;) {
		/* asleep until the next rediscovery, health sample or recovery, whichever is first */
		double wake = kp_health_watch_wake(&d.hw, d.health, next_health, next_scan);
		double left = wake - watch_now();
		if (!watch_wait(&w, left > 0.001 ? left : 0.001, &why))
			break;
		double tnow = watch_now();
		bool rescan = strcmp(why, "interval") != 0 || tnow >= next_scan - 0.001;
		const char *hwhy = kp_health_watch_tick(&d.hw, d.health, tnow, &next_health, period, health_say, &d);
		if (hwhy)
			rescan = true, why = hwhy;
		if (rescan) {
			next_scan = tnow + w.interval;
			if (o.verbose)
				fprintf(stderr, "axl: dra-plugin: rediscovering (%s)\n", why);
			rediscover(&d, kl, 1);
		}
		/* the kubelet's health streams: sent at once when a device's health changed */
		dra_kubelet_health(kl, d.devices, d.health != NULL);
	}
	rc = 0;
out:
	dra_kubelet_stop(kl);
	if (d.pub) {
		struct dra_pub_stats st;
		api->pub_stats(d.pub, &st);
		api->pub_stop(d.pub, a.delete_on_exit);
		if (o.verbose)
			fprintf(stderr,
				"axl: dra-plugin: %lu lists, %lu watches, %lu creates, %lu updates, %lu deletes, %lu "
				"conflicts, "
				"%lu gone, %lu failures\n",
				st.lists, st.watches, st.creates, st.updates, st.deletes, st.conflicts, st.gones,
				st.failures);
	}
	watch_close(&w);
	api->close(d.conn);
	free(d.devices);
	kp_health_watch_close(&d.hw);
	kp_health_free(d.health);
	return rc;
}

static const struct cli_opt options[] = {
	{ .type = CLI_OPT_STRING,
	  .name = "kubeconfig",
	  .value = &a.kubeconfig,
	  .value_name = "FILE",
	  .help = "the API server and credentials (default: in cluster, from\nKUBERNETES_SERVICE_HOST/PORT and the "
		  "service account)" },
	{ .type = CLI_OPT_STRING,
	  .name = "node-name",
	  .value = &a.node,
	  .value_name = "NAME",
	  .help = "this node (default $NODE_NAME): the pool's name and the slices'\nowner" },
	{ .type = CLI_OPT_STRING,
	  .name = "driver-name",
	  .value = &a.driver,
	  .value_name = "NAME",
	  .help = "the driver's name and the attributes' domain (default " DRA_DEFAULT_DRIVER ")" },
	{ .type = CLI_OPT_STRING,
	  .name = "kubelet-registry-dir",
	  .value = &a.registry_dir,
	  .value_name = "DIR",
	  .help = "the kubelet's plugin registration directory (default\n" DEFAULT_REGISTRY_DIR ")" },
	{ .type = CLI_OPT_STRING,
	  .name = "kubelet-plugin-dir",
	  .value = &a.plugin_dir,
	  .value_name = "DIR",
	  .help = "this driver's socket directory (default\n" DEFAULT_PLUGINS_DIR "/<driver name>)" },
	{ .type = CLI_OPT_STRING,
	  .name = "cdi-dir",
	  .value = &a.cdi_dir,
	  .value_name = "DIR",
	  .help = "where the claims' CDI specs are written (default /var/run/cdi)" },
	{ .type = CLI_OPT_FLAG,
	  .name = "publish-only",
	  .value = &a.publish_only,
	  .help = "publish the ResourceSlices only, with no kubelet service" },
	{ .type = CLI_OPT_FLAG,
	  .name = "delete-slices-on-exit",
	  .value = &a.delete_on_exit,
	  .help = "delete the node's slices when stopped (the driver is removed);\nby default they stay for the next "
		  "start to take over" },
	{ .type = CLI_OPT_COUNT,
	  .name = "shares",
	  .value = &a.shares,
	  .value_name = "N",
	  .help = "publish each device the limiter can hold as shared by up to N\nclaims (consumable capacity: "
		  "memory and compute, 1/N by\ndefault), each claim held by the limiter to its share",
	  .min = 1,
	  .max = DRA_SHARES_MAX },
	{ .type = CLI_OPT_STRING,
	  .name = "limiter",
	  .value = &a.limiter,
	  .value_name = "PATH",
	  .help = "the limiter a claim's share mounts (default: beside axl, or the\ninstalled one); the "
		  "ld.so.preload beside it is mounted at\n/etc/ld.so.preload" },
	{ .type = CLI_OPT_DURATION,
	  .name = "interval",
	  .value = &a.interval_ms,
	  .help = "rediscover this often (default 60s), and when device nodes change",
	  .min = 1,
	  .max = 86400000 },
	{ .type = CLI_OPT_DURATION,
	  .name = "api-timeout",
	  .value = &a.api_timeout_ms,
	  .help = "one API request's deadline (default 10s)",
	  .min = 100,
	  .max = 600000 },
	{ .type = CLI_OPT_DURATION,
	  .name = "api-backoff",
	  .value = &a.backoff_ms,
	  .help = "the first wait after an API failure, doubled up to 60s (default\n500ms)",
	  .min = 10,
	  .max = 60000 },
	{ .type = CLI_OPT_DURATION,
	  .name = "watch-timeout",
	  .value = &a.watch_timeout_ms,
	  .flags = CLI_OPT_HIDDEN,
	  .help = "one WATCH's timeoutSeconds (default 5m)",
	  .min = 1000,
	  .max = 3600000 },
	{ .type = CLI_OPT_CHOICE,
	  .name = "health-checks",
	  .value = &a.checks,
	  .help = "all (default): a device with an error its vendor reports is\ntainted (health.h, as axl "
		  "device-plugin judges it): NoExecute\nfor a critical one, NoSchedule for one counted only by "
		  "the\nvariables or a failed watch; none: no taints.\nDP_DISABLE_HEALTHCHECKS and "
		  "DP_ENABLE_HEALTHCHECKS are read as\naxl device-plugin reads them",
	  .choices = "all|none" },
	{ .type = CLI_OPT_DURATION,
	  .name = "health-recovery",
	  .value = &a.recovery_ms,
	  .help = "the taint goes this long after the last error (default 5m; 0:\nnot until a restart)",
	  .count = &a.has_recovery },
	{ .type = CLI_OPT_COUNT,
	  .name = "healthcheck-port",
	  .value = &a.health_port,
	  .value_name = "PORT",
	  .help = "serve the liveness probe's gRPC health service (service\n'liveness': GetInfo and an empty "
		  "NodePrepareResources on the\nsockets) on this TCP port; 0: one the kernel chooses;\n-1 "
		  "(default): none",
	  .min = -1,
	  .max = 65535 },
	{ .type = CLI_OPT_CHOICE,
	  .name = "partitionable-devices",
	  .value = &a.partitionable,
	  .help = "partitions that exist (MIG, compute partitions) as devices\nsharing their GPU's counters "
		  "(DRAPartitionableDevices);\nauto (default): whole devices when the API server drops\nthe "
		  "counters; off: whole devices only",
	  .choices = "auto|on|off" },
	{ .type = CLI_OPT_STRING,
	  .name = "driver-root",
	  .value = &a.driver_root,
	  .value_name = "DIR",
	  .help = "where the vendor's user-space files are looked for (the host's\n"
		  "root mounted at /host in a container; default / or $AXL_DRIVER_ROOT)" },
	{ .type = CLI_OPT_STRING,
	  .name = "driver-root-host",
	  .value = &a.driver_root_host,
	  .value_name = "PATH",
	  .help = "what DIR is on the host (default /)" },
	{ 0 },
};

const struct cli_command cli_cmd_dra_plugin = {
	"dra-plugin",
	cmd_dra_plugin,
	CLI_G_NODE,
	options,
	NULL,
	"the Dynamic Resource Allocation driver for every accelerator",
	"The Dynamic Resource Allocation driver (resource.k8s.io/v1, Kubernetes 1.34 and\n"
	"later) for every accelerator of the node (docs/kubernetes.md): the devices are\n"
	"published as ResourceSlices of one pool named after the node, each device with\n"
	"its vendor, model, architecture, UUID, driver version, memory, number formats,\n"
	"compute units, NUMA node, PCIe root and NVLink/xGMI island, followed as devices\n"
	"come and go. SIGTERM or SIGINT ends it.",
};
