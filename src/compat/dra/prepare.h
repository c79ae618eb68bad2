/* SPDX-License-Identifier: MIT */
/*
 * NodePrepareResources and NodeUnprepareResources of `axl dra-plugin`, on the command's
 * side of kubelet.h: the claims the kubelet names, read from the API server, become the
 * CDI device ids of exactly the devices allocated to them by this driver, and what was
 * prepared is checkpointed (checkpoint.c) so that a restart, or a kill -9, loses nothing
 * and prepares nothing twice. No axl types and no gRPC: util only (the JSON reader and
 * writer, atomic file replacement), so that it is tested on its own
 * (tests/compat/dra/test_prepare.c).
 *
 * Written from k8s.io/dynamic-resource-allocation kubeletplugin/draplugin.go (29367deb:
 * getResourceClaims, PrepareResourceClaims' contract: idempotent, one result per claim
 * UID, a device used by another claim refused, request names without their subrequest)
 * and the ResourceClaim of resource.k8s.io/v1 (kubernetes/api resource/v1/types.go:
 * status.allocation.devices.results[] {request, driver, pool, device, adminAccess,
 * consumedCapacity}). A device shared under --shares (shares.h) is prepared for
 * every claim given a share of it, each held to what its results consumed by the limiter
 * in a CDI spec of the claim's own, removed at unprepare.
 */
#ifndef AXL_DRA_PREPARE_H
#define AXL_DRA_PREPARE_H

#include <pthread.h>
#include <stddef.h>

#include "kubelet.h"
#include "shares.h"

/* Where claims come from: the API server's GET of a ResourceClaim (the API client's
 * api.h once it is there). fetch: the claim ns/name as JSON text (malloc'd, NUL
 * terminated, the caller frees it), 0; or -1 with the reason in err (the claim is then
 * answered with that error). uid is the one the kubelet named, for a client that wants
 * it in its log. */
struct dra_claim_source {
	void *ud;
	int (*fetch)(void *ud, const char *ns, const char *name, const char *uid, char **json, char *err, size_t cap);
};

/* A device of this driver on this node: its pool and name in the ResourceSlices, and
 * the CDI device ids (from the specs this driver wrote) that make it reach a container. */
struct dra_dev {
	char *pool, *device;
	char **cdi;
	size_t n_cdi;
	struct dra_share_dev *share; /* shared by claims under --shares (shares.h); NULL: whole */
};

/* One prepared device of a claim, as answered and checkpointed. */
struct dra_pdev {
	char **requests;
	size_t n_requests;
	char *pool, *device;
	char **cdi;
	size_t n_cdi;
	int admin;      /* adminAccess: shares the device with other claims */
	char *share_id; /* the result's shareID (a shared device); NULL: none */
};

struct dra_prepared {
	char *uid, *ns, *name;
	struct dra_pdev *devs;
	size_t n;
};

struct dra_prep {
	pthread_mutex_t lock;
	char *driver;
	char *ckpt; /* the checkpoint's path; NULL: none (kept in memory only) */
	struct dra_claim_source src;
	struct dra_share_cfg share; /* the claims' CDI specs of shares (strings owned) */
	struct dra_dev *devs;
	size_t ndevs;
	struct dra_prepared *claims;
	size_t nclaims, cap;
	/* counters for the log and the tests */
	unsigned long fetches, ckpt_writes;
};

/* A preparer for driver, its checkpoint at ckpt_path (read now when it exists: what an
 * earlier run prepared). 0, or -1 with err (a checkpoint that cannot be read is an
 * error: preparing again what it holds could hand a device out twice). */
int dra_prep_open(struct dra_prep **out, const char *driver, const char *ckpt_path, const struct dra_claim_source *src,
		  char *err, size_t cap);
void dra_prep_free(struct dra_prep *p);
/* Replace the devices (the command calls it again when devices come and go). 0 or -1
 * (out of memory: the devices are unchanged). */
int dra_prep_set_devices(struct dra_prep *p, const struct dra_dev *devs, size_t n);
/* Where the specs of shared devices' claims go and the limiter they mount (copied). 0 or
 * -1 (out of memory). */
int dra_prep_set_shares(struct dra_prep *p, const struct dra_share_cfg *c);
/* kubelet.h's callbacks with ud = the struct dra_prep. */
int dra_prep_prepare(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out, void **owner,
		     char *err, size_t cap);
int dra_prep_unprepare(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out, void **owner,
		       char *err, size_t cap);
void dra_prep_release(void *ud, void *owner);

/* checkpoint.c: p's prepared claims from its checkpoint / into it, atomically (a
 * temporary file fsync'd and renamed over it, the directory fsync'd). The lock held.
 * 0, or -1 with err. */
int dra_ckpt_load(struct dra_prep *p, char *err, size_t cap);
int dra_ckpt_write(struct dra_prep *p, char *err, size_t cap);
void dra_prepared_clear(struct dra_prepared *c);

#define DRA_CKPT_SCHEMA  "axl.dra.checkpoint"
#define DRA_CKPT_VERSION 1
#define DRA_CKPT_MAX     (16u << 20)

#endif
