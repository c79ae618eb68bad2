/* SPDX-License-Identifier: MIT */
/*
 * What `axl device-plugin` advertises and hands out (docs/kubernetes.md), over libaxl's
 * public API: the resources of a node (one per Kubernetes resource name), their devices
 * (IDs, health, NUMA node, NVLink/xGMI/RoCE island, shares), the preferred allocation, and a
 * container's allocation. No gRPC here (transport.h, glue.h); what a device needs in a
 * container comes from the command (the CDI spec axl cdi writes), through kp_edits_fn.
 */
#ifndef AXL_K8S_PLUGIN_H
#define AXL_K8S_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#include "axl.h"
#include "limiter.h"
#include "transport.h"

/* How partitions (rt->partitions, when enabled on a device) are advertised:
 * KP_PARTS_NONE the device whole; KP_PARTS_SINGLE every partition under the device's own
 * resource name (all of one profile); KP_PARTS_MIXED one name per profile
 * (rt->partition_resource + profile). */
enum kp_parts { KP_PARTS_NONE, KP_PARTS_SINGLE, KP_PARTS_MIXED };

/* How Allocate hands a container its devices (--device-list-strategy):
 * KP_LIST_CDI the CDI names (CRI's CDIDevices, which the runtime resolves: containerd
 * >= 1.7, CRI-O with CDI) with the device nodes and environment besides;
 * KP_LIST_MOUNTS no CDI name: the spec's edits in the answer itself, device nodes,
 * environment and the libraries and programs as read-only mounts (containerd < 1.7,
 * CRI-O without CDI). */
enum kp_list { KP_LIST_CDI, KP_LIST_MOUNTS };

struct kp_options {
	enum kp_parts parts;
	const char *parts_option; /* the option that chose it, for messages */
	int shares;          /* 1: whole devices; N > 1: each device N times, held by the limiter */
	const char *limiter; /* host path of libaxl_limiter.so (needed when shares > 1) */
	/* host path of a file holding KP_LIMITER_PATH, mounted at /etc/ld.so.preload so that
	 * the limiter is preloaded beside the workload's own LD_PRELOAD (HAMi's way); NULL:
	 * LD_PRELOAD is set, replacing the workload's */
	const char *preload_file;
	enum kp_list list;
	const char *sysroot; /* the node's root ("/" or NULL: this system) */
	int simulated;       /* a simulated node: its device nodes exist nowhere */
};

/* What a device needs in a container, from its CDI spec: the fully qualified CDI name,
 * the device nodes (its own and the kind's shared ones), the kind's environment and the
 * files it mounts (libraries, programs: host path and container path). */
struct kp_edits {
	char *cdi;
	char **nodes;
	size_t n_nodes;
	char **env; /* NAME=VALUE */
	size_t n_env;
	char **mount_host, **mount_ctr;
	size_t n_mounts;
};
/* Fill out for dev (a device or a partition); 0, or -1 when it has no CDI device (no
 * device nodes): it is then not advertised. Strings are malloc'd; kp frees them. */
typedef int (*kp_edits_fn)(void *ud, const axl_device *dev, struct kp_edits *out);

struct kp_dev {
	char *id;      /* the advertised ID: "GPU-<uuid>", "MIG-<uuid>", a PCI address; "<unit>::<k>" for a share */
	char *unit;    /* the physical device's ID (id without "::k") */
	int share;     /* k, or -1 when not a share */
	int healthy;
	long long numa;       /* < 0: none */
	int island;           /* devices joined by NVLink/NVSwitch/xGMI/RoCE share a number; -1 none */
	char *axl_id;         /* "nvidia:0", "nvidia:0/mig1.0" */
	char *uuid;           /* NULL when none */
	int64_t memory_bytes; /* < 0 unknown */
	const char *visible_env; /* the runtime's UUID-taking visibility variable, or NULL */
	struct kp_edits ed;
};

struct kp_resource {
	char *name;   /* "nvidia.com/gpu" */
	char *socket; /* its socket's file name in the kubelet's directory */
	struct kp_dev *devs;
	size_t n;
};

struct kp_node {
	struct kp_resource *res;
	size_t n;
};

/* The resources of inv. 0, or -1 with err (a MIG configuration --mig-strategy single
 * cannot serve). Notes (devices not advertised, and why) go to note (may be NULL). */
int kp_build(const axl_inventory *inv, const struct kp_options *o, kp_edits_fn fn, void *ud,
	     void (*note)(void *ud, const char *msg), struct kp_node **out, char *err, size_t cap);
void kp_node_free(struct kp_node *n);
/* Devices of prev that now lacks stay in now, Unhealthy (a device that is lost keeps its
 * place until it returns). 0, or -1 out of memory. */
int kp_keep_lost(struct kp_node *now, const struct kp_node *prev);
/* The resource named name, or NULL. */
struct kp_resource *kp_find(const struct kp_node *n, const char *name);

/* The ListAndWatch devices of r: an array owned by *owner (kp_release). */
int kp_list(const struct kp_resource *r, const struct k8s_device **devs, size_t *n, void **owner);
/* GetPreferredAllocation for one container (transport.h's preferred). */
int kp_preferred(const struct kp_resource *r, const char *const *avail, size_t na, const char *const *must, size_t nm,
		 int size, const char *const **ids, size_t *n, void **owner, int *code, char *err, size_t cap);
/* Allocate for one container (transport.h's allocate). */
int kp_allocate(const struct kp_resource *r, const struct kp_options *o, const char *const *ids, size_t n,
		struct k8s_container *out, void **owner, int *code, char *err, size_t cap);
void kp_release(void *owner);

#endif
