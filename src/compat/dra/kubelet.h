/* SPDX-License-Identifier: MIT */
/*
 * Between `axl dra-plugin` (the command, which knows the devices and the claims:
 * prepare.c, checkpoint.c) and its kubelet-facing gRPC glue (kubelet_grpc.c,
 * kubelet_serve.c: the module axl-dra-kubelet.so, so that no other command loads gRPC).
 * Plain C types only, as src/compat/kubernetes/transport.h does for the device plugin:
 * the module never sees an axl type, the command never sees a gRPC or protobuf one.
 *
 * The module serves two unix sockets, as k8s.io/dynamic-resource-allocation's
 * kubeletplugin helper does (kubeletplugin/draplugin.go, Start):
 *  - the registration socket REGISTRY_DIR/<driver>-reg.sock, service
 *    pluginregistration.Registration (pluginregistration.proto): GetInfo answers type
 *    "DRAPlugin", the driver name, the DRA socket as endpoint and the DRA services it
 *    serves ("v1.DRAPlugin", "v1beta1.DRAPlugin"); NotifyRegistrationStatus is logged;
 *  - the DRA socket PLUGIN_DIR/dra.sock, services k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin
 *    and ...v1beta1.DRAPlugin (dra.proto): NodePrepareResources, NodeUnprepareResources;
 *    and v1alpha1.DRAResourceHealth and v1.DRAResourceHealth (drahealth.proto, KEP-4680):
 *    NodeWatchResources streams the devices' health that set_health gave (kubelet_watch.c).
 * A socket removed from under it (a restarting kubelet wipes its plugin directories) is
 * made again, and the kubelet's plugin watcher then registers the plugin anew.
 * The callbacks run on the module's serving thread, one request at a time (the helper's
 * Serialize default).
 */
#ifndef AXL_DRA_KUBELET_H
#define AXL_DRA_KUBELET_H

#include <stddef.h>

#define DRA_KUBELET_ABI 4
/* the module's one exported symbol: const struct dra_kubelet_transport *(*)(void) */
#define DRA_KUBELET_SYMBOL "axl_dra_kubelet_transport"

/* One claim of a request (dra.proto Claim). */
struct dra_claim_ref {
	const char *ns, *uid, *name;
};

/* One prepared device (dra.proto Device). */
struct dra_device_out {
	const char *const *requests; /* request names; none: every request of the claim */
	size_t n_requests;
	const char *pool, *device;
	const char *const *cdi; /* fully qualified CDI device ids */
	size_t n_cdi;
	const char *share_id; /* the allocation result's shareID (a shared device, v1); NULL: none */
};

/* One claim's answer, keyed by its UID: error NULL and its devices, or an error. */
struct dra_claim_out {
	const char *uid;
	const char *error;
	const struct dra_device_out *devs;
	size_t n_devs;
};

/* prepare/unprepare answer every claim of the request (out[i] for claims[i]), in memory
 * the caller owns until release(owner). A failure of the whole call returns -1 with a
 * message in err (the kubelet retries every claim). */
struct dra_kubelet_ops {
	void *ud;
	int (*prepare)(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out, void **owner,
		       char *err, size_t cap);
	int (*unprepare)(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out,
			 void **owner, char *err, size_t cap);
	void (*release)(void *ud, void *owner);
	/* a line for the log: level 0 error, 1 notice, 2 verbose */
	void (*say)(void *ud, int level, const char *msg);
};

/* One device's health for the kubelet (drahealth.proto DeviceHealth): the device as the
 * ResourceSlices name it, and the proto's HealthStatus numbers. */
enum { DRA_HEALTH_UNKNOWN = 0, DRA_HEALTH_HEALTHY = 1, DRA_HEALTH_UNHEALTHY = 2 };
struct dra_device_health {
	const char *pool, *device;
	int health;
	const char *message; /* at most 1024 bytes are sent; NULL: none */
	long long updated;   /* wall-clock seconds when this was last judged */
};

struct dra_kubelet_config {
	const char *driver;       /* the driver name: the plugin's name in GetInfo */
	const char *registry_dir; /* the kubelet's plugin registry (plugins_registry) */
	const char *plugin_dir;   /* where dra.sock is made (plugins/<driver>) */
	int verbose;
	/* the liveness probe's gRPC health service (kubelet_health.c) on this TCP port; 0: a
	 * port the kernel chooses, negative: none */
	int health_port;
};

struct dra_kubelet_transport {
	int abi;
	/* Listen on both sockets. 0, or -1 with err. */
	int (*start)(const struct dra_kubelet_config *cfg, const struct dra_kubelet_ops *ops, void **server, char *err,
		     size_t cap);
	/* Stop serving, remove the sockets (those still ours). */
	void (*stop)(void *server);
	/* The devices' health now, copied: every health stream is sent it at once when a
	 * device's health or message changed, and again every DK_WATCH_RESEND_S regardless (the
	 * kubelet takes a device not reported for health_check_timeout_seconds as unknown).
	 * Until the first call, a stream is sent nothing. Any thread. */
	void (*set_health)(void *server, const struct dra_device_health *devs, size_t n);
};

#endif
