/* SPDX-License-Identifier: MIT */
/**
 * @file axl/compat/limiter.h
 * TensorFusion's limiter interface (its provider/limiter.h), as libaccelerator_axl.so
 * implements it on axl's shared limiter region (docs/tensorfusion.md, "The limiter
 * functions"). Written by axl from the public description of the interface (names,
 * prototypes and x86_64 layouts); nothing here is taken from TensorFusion's header.
 */
#ifndef AXL_COMPAT_LIMITER_H
#define AXL_COMPAT_LIMITER_H

#include <axl/compat/accelerator.h>

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* 88 bytes: bytesDiff > 0 allocates, < 0 frees; shouldBlock and availableBytes (after
 * the operation) are outputs. */
typedef struct {
	char deviceUUID[64];
	int64_t bytesDiff;
	bool shouldBlock;
	uint64_t availableBytes;
} MemoryOpRecord;

/* 88 bytes: computeTokens charged; shouldBlock and availableTokens are outputs. */
typedef struct {
	char deviceUUID[64];
	uint64_t computeTokens;
	bool shouldBlock;
	uint64_t availableTokens;
} ComputeOpRecord;

/* 80 bytes */
typedef struct {
	char workerId[64];
	bool isFrozen;
	uint64_t freezeTimeMs;
} WorkerFreezeState;

/* 88 bytes: upLimit percent 0-100, memLimit bytes */
typedef struct {
	uint32_t deviceIdx;
	char deviceUUID[64];
	uint32_t upLimit;
	uint64_t memLimit;
	uint32_t totalCudaCores;
} LimiterDeviceConfig;

/* worker-facing (the hook inside the client process) */
AccelResult CheckAndRecordMemoryOps(const char *processId, const char *deviceUUID, int64_t bytesDiff,
				    MemoryOpRecord *record);
AccelResult CheckAndRecordComputeOps(const char *processId, const char *deviceUUID, uint64_t computeTokens,
				     ComputeOpRecord *record);
AccelResult FreezeWorker(const char *workerId, WorkerFreezeState *state);
AccelResult ResumeWorker(const char *workerId, WorkerFreezeState *state);
AccelResult AutoFreeze(const char *workerId, const char *deviceUUID, const char *resourceType);
AccelResult AutoResume(const char *workerId, const char *deviceUUID, const char *resourceType);
AccelResult AddWorkerProcess(const char *deviceUUID, const char *processId);

/* host-facing (the hypervisor) */
AccelResult LimiterInit(const char *shmBasePath);
AccelResult LimiterShutdown(void);
AccelResult LimiterCreateWorker(const char *namespace_, const char *podName, const LimiterDeviceConfig *configs,
				size_t configCount);
AccelResult LimiterRemoveWorker(const char *namespace_, const char *podName);
AccelResult LimiterRegisterPID(const char *namespace_, const char *podName, uint32_t hostPID);
AccelResult LimiterUpdateERL(const char *namespace_, const char *podName, uint32_t deviceIdx, uint32_t upLimit,
			     double utilizationPercent, uint64_t timestampMicros);
AccelResult LimiterUpdateHeartbeat(const char *namespace_, const char *podName, uint64_t timestampSecs);
AccelResult LimiterSetPodMemoryUsed(const char *namespace_, const char *podName, uint32_t deviceIdx,
				    uint64_t memoryUsed);

#ifdef __cplusplus
}
#endif

#endif
