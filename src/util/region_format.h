/* SPDX-License-Identifier: MIT */
/*
 * The limiter's shared region file format (docs/limits.md, "The shared region"), shared
 * by its writer (src/limiter/region.c, linked into libaxl_limiter.so) and its read-only
 * reader in libaxl (src/lib/metrics/sample_workload.c: `axl metrics`, `axl top`,
 * Prometheus). Header only: it knows no axl type. A change to the layout is a new major
 * version (REGION_MAJOR); readers refuse a newer major with a message.
 */
#ifndef AXL_UTIL_REGION_FORMAT_H
#define AXL_UTIL_REGION_FORMAT_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#define AXL__REGION_MAX_DEVICES 16
#define AXL__REGION_MAX_PROCS 1024
#define AXL__REGION_UUID_MAX 96

#define REGION_MAGIC 0x52584c41u /* "AXLR" little-endian */
#define REGION_MAJOR 1
#define REGION_MINOR 0

_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "64-bit atomics must be lock-free on the mapping");

/* A device's shared compute bucket (src/limiter/climit.c): words every process of the
 * workload uses, none owned by a process (nothing to reclaim). */
struct axl__region_compute {
	_Atomic int64_t tat_ns;       /* the bucket's theoretical arrival time, CLOCK_MONOTONIC */
	_Atomic uint64_t charged;     /* units charged so far, all processes */
	_Atomic uint64_t ns_per_unit; /* the current rate, ns per unit x 16; 0: not set yet */
};

struct region_dev {
	char uuid[AXL__REGION_UUID_MAX];
	_Atomic int64_t memory_bytes;
	_Atomic int32_t compute_percent;
	uint32_t pad;
	struct axl__region_compute compute; /* not in the checksum: written without the lock */
};

struct region_slot {
	_Atomic int32_t pid; /* 0: free */
	uint32_t pad;
	_Atomic uint64_t start_time;
	_Atomic uint64_t pidns; /* inode of the process's pid namespace */
	/* claim: what admission counts (committed + in flight); used: committed */
	_Atomic uint64_t claim[AXL__REGION_MAX_DEVICES];
	_Atomic uint64_t used[AXL__REGION_MAX_DEVICES];
	_Atomic int64_t compute_tokens[AXL__REGION_MAX_DEVICES]; /* for the compute limiter */
};

/* The file. The header's static part and the device table are covered by the checksum
 * (updated under the lock when limits change); the slots are not. */
struct region_file {
	uint32_t magic;
	uint16_t major, minor;
	uint64_t file_size;
	uint32_t ndev, nslots;
	uint32_t slot_size, reserved0;
	uint64_t checksum;
	union {
		pthread_mutex_t m;
		char pad[64];
	} lock;
	_Atomic uint32_t slot_hwm; /* slots [0, hwm) may be in use */
	/* minor 0 files hold zeros here: not frozen, no heartbeat */
	_Atomic uint32_t frozen;    /* nonzero: the workload is frozen (region.h) */
	_Atomic uint64_t heartbeat; /* the host's last heartbeat, Unix seconds; 0 never */
	uint32_t reserved1[12];
	struct region_dev devs[AXL__REGION_MAX_DEVICES];
	struct region_slot slots[AXL__REGION_MAX_PROCS];
};

static inline uint64_t fnv1a(uint64_t h, const void *p, size_t n)
{
	const unsigned char *b = p;
	for (size_t i = 0; i < n; i++) {
		h ^= b[i];
		h *= 1099511628211ull;
	}
	return h;
}

static inline uint64_t region_checksum(const struct region_file *f)
{
	uint64_t h = 14695981039346656037ull;
	h = fnv1a(h, &f->magic, sizeof f->magic);
	h = fnv1a(h, &f->major, sizeof f->major);
	h = fnv1a(h, &f->minor, sizeof f->minor);
	h = fnv1a(h, &f->file_size, sizeof f->file_size);
	h = fnv1a(h, &f->ndev, sizeof f->ndev);
	h = fnv1a(h, &f->nslots, sizeof f->nslots);
	h = fnv1a(h, &f->slot_size, sizeof f->slot_size);
	for (uint32_t d = 0; d < AXL__REGION_MAX_DEVICES; d++) {
		const struct region_dev *v = &f->devs[d];
		int64_t mem = atomic_load(&v->memory_bytes);
		int32_t pct = atomic_load(&v->compute_percent);
		h = fnv1a(h, v->uuid, sizeof v->uuid);
		h = fnv1a(h, &mem, sizeof mem);
		h = fnv1a(h, &pct, sizeof pct);
	}
	return h;
}

#endif
