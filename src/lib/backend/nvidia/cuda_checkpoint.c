/* SPDX-License-Identifier: MIT */
/*
 * Process checkpoints through the CUDA driver's cuCheckpointProcess* calls (CUDA 12.8
 * drivers and later): libcuda.so.1 (or the library AXL_CUDA_LIBRARY names) loaded with
 * dlopen, the calls made on a worker under the vendor deadline (compute/ccall.h), since
 * a lock waits for the process's running work and a checkpoint copies its memory. The
 * calls and their argument structs are cuda.h 12.8's (src/abi/nvidia/cuda.h).
 */
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "abi/nvidia/cuda.h"
#include "ccall.h"
#include "cuda_checkpoint.h"
#include "nvidia_runtime.h"
#include "vlib.h"

struct ck_fns {
	__typeof__(&cuInit) Init;
	__typeof__(&cuCheckpointProcessGetState) GetState;
	__typeof__(&cuCheckpointProcessLock) Lock;
	__typeof__(&cuCheckpointProcessCheckpoint) Checkpoint;
	__typeof__(&cuCheckpointProcessRestore) Restore;
	__typeof__(&cuCheckpointProcessUnlock) Unlock;
};

#define SYM(field, name) {offsetof(struct ck_fns, field), {name}}
static const struct axl__vsym symbols[] = {
	SYM(Init, "cuInit"),
	SYM(GetState, "cuCheckpointProcessGetState"),
	SYM(Lock, "cuCheckpointProcessLock"),
	SYM(Checkpoint, "cuCheckpointProcessCheckpoint"),
	SYM(Restore, "cuCheckpointProcessRestore"),
	SYM(Unlock, "cuCheckpointProcessUnlock"),
};

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct ck_fns *f = table;
	const char *missing = !f->Init		? "cuInit"
			      : !f->GetState	? "cuCheckpointProcessGetState"
			      : !f->Lock	? "cuCheckpointProcessLock"
			      : !f->Checkpoint	? "cuCheckpointProcessCheckpoint"
			      : !f->Restore	? "cuCheckpointProcessRestore"
			      : !f->Unlock	? "cuCheckpointProcessUnlock"
						: NULL;
	if (!missing)
		return true;
	snprintf(why, cap,
		 "%s has no %s: the driver predates the process checkpoint calls (they came with CUDA 12.8 drivers)",
		 name, missing);
	return false;
}

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;
static const char *const sonames[] = {"libcuda.so.1"};
static const struct axl__vlibrary library = { sonames,
					      1,
					      symbols,
					      sizeof symbols / sizeof *symbols,
					      sizeof(struct ck_fns),
					      usable,
					      &cache,
					      axl__nvidia_lib_dirs };

static const char *const op_call[] = {"cuCheckpointProcessGetState", "cuCheckpointProcessLock",
				      "cuCheckpointProcessCheckpoint", "cuCheckpointProcessRestore",
				      "cuCheckpointProcessUnlock"};
static const char *const state_name[] = {"running", "locked", "checkpointed", "failed"};
/* the state each op needs */
static const char *const op_needs[] = {"any", "running", "locked", "checkpointed", "locked"};

struct job {
	const struct ck_fns *f;
	int pid, op, timeout_ms;
	CUresult init_rc, rc;
	int state; /* after the call, -1 not known */
};

static int work(void *arg)
{
	struct job *j = arg;
	const struct ck_fns *f = j->f;
	j->state = -1;
	j->init_rc = f->Init(0);
	if (j->init_rc != CUDA_SUCCESS)
		return 0;
	CUcheckpointLockArgs la;
	CUcheckpointCheckpointArgs ca;
	CUcheckpointRestoreArgs ra;
	CUcheckpointUnlockArgs ua;
	memset(&la, 0, sizeof la);
	memset(&ca, 0, sizeof ca);
	memset(&ra, 0, sizeof ra);
	memset(&ua, 0, sizeof ua);
	la.timeoutMs = j->timeout_ms > 0 ? (unsigned)j->timeout_ms : 0;
	switch (j->op) {
	case 1: j->rc = f->Lock(j->pid, &la); break;
	case 2: j->rc = f->Checkpoint(j->pid, &ca); break;
	case 3: j->rc = f->Restore(j->pid, &ra); break;
	case 4: j->rc = f->Unlock(j->pid, &ua); break;
	default: j->rc = CUDA_SUCCESS; break;
	}
	CUprocessState st = CU_PROCESS_STATE_RUNNING;
	if (j->rc == CUDA_SUCCESS || j->rc == CUDA_ERROR_ILLEGAL_STATE) {
		CUresult g = f->GetState(j->pid, &st);
		if (j->op == 0)
			j->rc = g;
		j->state = g == CUDA_SUCCESS ? (int)st : -1;
	}
	return 0;
}

int axl__cuda_checkpoint(const axl_context *ctx, const struct axl__backend *self, int pid, int op, int *state)
{
	if (op < 0 || op > 4 || pid <= 0)
		return axl__error(AXL_EINVAL, "cuda checkpoint: op %d, pid %d", op, pid);
	char why[512];
	const char *path = axl__backend_compute_library(ctx, self);
	const struct ck_fns *f = axl__vlib_open(&library, path, why, sizeof why, NULL);
	if (!f)
		return axl__error(AXL_ENOTSUP, "process checkpoints: %s", why);
	int deadline = ctx->vendor_timeout_ms;
	if (deadline > 0 && (op == 2 || op == 3))
		deadline = deadline > 600000 / 30 ? 600000 : deadline * 30; /* memory copies */
	struct axl__ccall *cc = axl__ccall_new("cuda", deadline);
	if (!cc)
		return axl__error(AXL_ENOMEM, "process checkpoints: out of memory");
	struct job j = {.f = f, .pid = pid, .op = op, .timeout_ms = ctx->vendor_timeout_ms};
	char what[96];
	snprintf(what, sizeof what, "%s of pid %d", op_call[op], pid);
	int rc = axl__ccall_run(cc, work, &j, sizeof j, what);
	axl__ccall_free(cc);
	if (rc)
		return rc;
	if (j.init_rc == CUDA_ERROR_NO_DEVICE)
		return axl__error(AXL_ENOTSUP, "process checkpoints: cuInit: no CUDA device");
	if (j.init_rc != CUDA_SUCCESS)
		return axl__error(AXL_EBACKEND, "process checkpoints: cuInit returned %d", j.init_rc);
	const char *now = j.state >= 0 && j.state <= 3 ? state_name[j.state] : "in an unknown state";
	switch (j.rc) {
	case CUDA_SUCCESS:
		break;
	case CUDA_ERROR_INVALID_VALUE:
	case CUDA_ERROR_NOT_FOUND:
		return axl__error(AXL_EINVAL, "%s: the driver knows no CUDA process %d", what, pid);
	case CUDA_ERROR_ILLEGAL_STATE:
		return axl__error(AXL_EINVAL, "%s: process %d is %s; the call needs it %s", what, pid, now,
				  op_needs[op]);
	case CUDA_ERROR_NOT_SUPPORTED:
		return axl__error(AXL_ENOTSUP, "%s: the driver does not support it (CUDA_ERROR_NOT_SUPPORTED)", what);
	default:
		return axl__error(AXL_EBACKEND, "%s returned CUDA error %d", what, j.rc);
	}
	if (state)
		*state = j.state;
	axl__log(ctx, AXL_LOG_INFO, "%s: %s", what, now);
	return 0;
}
