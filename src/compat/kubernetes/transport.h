/* SPDX-License-Identifier: MIT */
/*
 * Between `axl device-plugin` (src/cli/cmd_device_plugin.c, which knows the devices:
 * plugin.c) and its gRPC glue (serve.c, register.c, grpc.c, ../kubelet/grpc_glue.c: the module axl-kubernetes.so, so
 * that no other command loads gRPC and what it pulls in). Plain C types only: the
 * module never sees an axl type, the command never sees a gRPC or protobuf one.
 *
 * The module serves one DevicePlugin service per resource name, each on its own unix
 * socket in the kubelet's directory, registers each with the kubelet (again whenever
 * the kubelet's socket is created anew: a kubelet restart), and calls back into ops
 * from its own threads for every request. The callbacks must be thread-safe.
 */
#ifndef AXL_K8S_TRANSPORT_H
#define AXL_K8S_TRANSPORT_H

#include <stddef.h>

#define K8S_TRANSPORT_ABI 1
/* the module's one exported symbol: const struct k8s_transport *(*)(void) */
#define K8S_TRANSPORT_SYMBOL "axl_kubernetes_transport"

/* gRPC status codes the callbacks may answer with (grpc/status.h) */
#define K8S_INVALID_ARGUMENT 3
#define K8S_NOT_FOUND 5
#define K8S_FAILED_PRECONDITION 9
#define K8S_INTERNAL 13

struct k8s_device {
	const char *id;
	int healthy;
	long long numa; /* < 0: none */
};

struct k8s_kv {
	const char *key, *value;
};

struct k8s_mount {
	const char *container_path, *host_path;
	int read_only;
};

struct k8s_node {
	const char *container_path, *host_path, *permissions;
};

/* What one container gets (ContainerAllocateResponse). */
struct k8s_container {
	const struct k8s_kv *envs;
	size_t n_envs;
	const struct k8s_mount *mounts;
	size_t n_mounts;
	const struct k8s_node *nodes;
	size_t n_nodes;
	const struct k8s_kv *annotations;
	size_t n_annotations;
	const char *const *cdi; /* fully qualified CDI names */
	size_t n_cdi;
};

/* Answers hand out memory owned by the caller of the callback until release(owner). A
 * refusal returns -1 with *code (K8S_*) and a message in err naming what was wrong. */
struct k8s_ops {
	void *ud;
	int (*list)(void *ud, size_t r, const struct k8s_device **devs, size_t *n, void **owner);
	int (*preferred)(void *ud, size_t r, const char *const *avail, size_t na, const char *const *must, size_t nm,
			 int size, const char *const **ids, size_t *n, void **owner, int *code, char *err, size_t cap);
	int (*allocate)(void *ud, size_t r, const char *const *ids, size_t n, struct k8s_container *out, void **owner,
			int *code, char *err, size_t cap);
	void (*release)(void *ud, void *owner);
	/* a line for the log: level 0 error, 1 notice, 2 verbose */
	void (*say)(void *ud, int level, const char *msg);
};

struct k8s_config {
	const char *dir;                   /* the kubelet's device plugin directory */
	const char *const *resources;      /* resource names ("nvidia.com/gpu") */
	const char *const *sockets;        /* their socket file names in dir */
	size_t n;
	int preferred;                     /* GetPreferredAllocation is available */
	double register_timeout_s;         /* one Register call's deadline */
	int verbose;
};

struct k8s_transport {
	int abi;
	/* Listen on every socket, then register (in the background). 0, or -1 with err. */
	int (*start)(const struct k8s_config *cfg, const struct k8s_ops *ops, void **server, char *err, size_t cap);
	/* The devices may have changed: every open ListAndWatch stream whose list differs from
	 * what it was last sent gets the new one. */
	void (*changed)(void *server);
	/* Close the streams, stop the servers, remove the sockets. */
	void (*stop)(void *server);
};

#endif
