/* SPDX-License-Identifier: MIT */
/*
 * Between `axl dra-plugin` (src/cli/cmd_dra_plugin.c, which knows the devices: slices.c)
 * and its API-server glue (api.c: the HTTPS client, publish.c: the ResourceSlice
 * publisher), which is the module axl-dra.so, so that no other command loads libcurl and
 * the TLS stack under it. Plain C types only: the module never sees an axl type, the
 * command never sees a libcurl one.
 *
 * The publisher does what k8s.io/dynamic-resource-allocation's resourceslice controller
 * does (kubernetes/kubernetes staging/src/k8s.io/dynamic-resource-allocation/resourceslice/
 * resourceslicecontroller.go at 6d8b41fac66ddfb902c08cec436af17a329f751b): one pool per node
 * named after the node, its devices cut into slices of at most 128 (64 when one has
 * taints), each slice owned by the Node object (so the garbage collector removes them with
 * the node), the pool's generation bumped whenever its content changes; LIST then WATCH the
 * driver's slices of this node from the list's resourceVersion (a 410 Gone lists again),
 * and any slice that differs from what is wanted (changed or deleted by someone else, or
 * left by an earlier run) is put right: updated with its resourceVersion (a 409 Conflict
 * lists again, with backoff), created, or deleted.
 */
#ifndef AXL_DRA_API_H
#define AXL_DRA_API_H

#include <stddef.h>

#define DRA_API_ABI 1
/* the module's one exported symbol: const struct dra_api *(*)(void) */
#define DRA_API_SYMBOL "axl_dra_api"

/* ResourceSliceMaxDevices, ResourceSliceMaxDevicesWithTaintsOrConsumesCounters (types.go) */
#define DRA_MAX_DEVICES         128
#define DRA_MAX_DEVICES_TAINTED 64

/* Where the API server is and who we are. */
struct dra_conn_config {
	/* a kubeconfig file (server, certificate-authority(-data), token or tokenFile, client
	 * certificate); NULL: in cluster, from host/port and sa_dir */
	const char *kubeconfig;
	const char *host, *port; /* KUBERNETES_SERVICE_HOST/PORT */
	const char *sa_dir;      /* the service account's token and ca.crt (in cluster); NULL or
				  * empty: /var/run/secrets/kubernetes.io/serviceaccount */
	double timeout_s;        /* one request's deadline (not a watch's) */
	const char *user_agent;
};

/* A line for the log: level 0 error, 1 notice, 2 verbose. Called from the module's
 * threads. */
typedef void (*dra_say_fn)(void *ud, int level, const char *msg);

struct dra_pub_config {
	const char *driver;   /* the driver's name: spec.driver and the attributes' domain */
	const char *node;     /* spec.nodeName, the pool's name, the owner */
	double backoff_min_s; /* the first wait after a failure (doubled up to backoff_max_s) */
	double backoff_max_s;
	double watch_timeout_s; /* timeoutSeconds of one WATCH */
	dra_say_fn say;
	void *ud;
};

/* What the publisher did (its counters; the command's --verbose and the tests read them). */
struct dra_pub_stats {
	unsigned long lists, watches, creates, updates, deletes, conflicts, gones, failures;
	long long generation; /* the pool's, as last written or seen; -1 before */
	int synced;           /* the slices are what was last asked for */
};

struct dra_api {
	int abi;
	/* The client: 0, or -1 with err. Thread-safe: each call has its own connection. */
	int (*open)(const struct dra_conn_config *cfg, void **conn, char *err, size_t cap);
	/* One request (method, path with its query, a JSON body or NULL). 0 with the HTTP
	 * status and the body (malloc'd, NUL-terminated; the caller frees it), or -1 with err
	 * when no answer came (connection, TLS, deadline). */
	int (*request)(void *conn, const char *method, const char *path, const char *body, long *status, char **resp,
		       size_t *len, char *err, size_t cap);
	void (*close)(void *conn);

	/* The publisher's thread: it starts with nothing to publish until set() is called. */
	int (*pub_start)(void *conn, const struct dra_pub_config *cfg, void **pub, char *err, size_t cap);
	/* The pool's devices now: a JSON array of v1 Device objects (copied). The publisher
	 * cuts it into slices and puts the API server right; returns at once. -1 with err
	 * when devices is not such an array. */
	int (*pub_set)(void *pub, const char *devices, char *err, size_t cap);
	void (*pub_stats)(void *pub, struct dra_pub_stats *out);
	/* Stop the thread. remove: delete the pool's slices first (a driver that is
	 * uninstalled); otherwise they stay for the next run to take over. */
	void (*pub_stop)(void *pub, int remove);
};

#endif
