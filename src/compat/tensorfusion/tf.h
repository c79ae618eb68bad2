/* SPDX-License-Identifier: MIT */
/* Internal to libaccelerator_axl.so: the shared state and helpers of the provider. */
#ifndef AXL_TF_H
#define AXL_TF_H

#include <axl/compat/accelerator.h>
#include <axl.h>

#define TF_API __attribute__((visibility("default")))

/* The provider's state: one context, one inventory of it and one sampler, guarded by
 * one mutex. tf_lock() takes the mutex and opens what is not open yet (AccelInit is
 * optional, and everything works again after AccelShutdown). */
struct tf_state {
	axl_context *ctx;
	axl_inventory *inv;
	axl_sampler *sampler;
	axl_sample *last;       /* the latest sample, reused while it is fresh */
	int64_t last_ns;        /* when it was taken (CLOCK_MONOTONIC) */
	/* the physical accelerators listed to the host, in inventory order, <= 64 */
	const axl_device *dev[MAX_TOPOLOGY_DEVICES];
	size_t ndev;
};

/* 0 with the mutex held and the state open; otherwise an AccelResult (mutex released). */
AccelResult tf_lock(struct tf_state **st);
void tf_unlock(void);
/* Drop the inventory and sampler (after a partition change): the next tf_lock opens
 * new ones. Call with the mutex held; st stays usable only after tf_refresh(). */
AccelResult tf_refresh(struct tf_state *st);

void tf_log(const char *level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Copy a string into a char[cap], truncating, always NUL-terminated (src NULL: ""). */
void tf_copy(char *dst, size_t cap, const char *src);
/* The identity the host sees: the UUID, else "axl-" and the id with ':' and '/' as '-'. */
void tf_uuid(const axl_device *d, char *buf, size_t cap);
/* The vendor name the host expects ("NVIDIA", "AMD", ...). */
const char *tf_vendor(const axl_device *d);
/* The device's index as the host sees it: its position in AccelGetAllDevices' list, so
 * unique across vendors (a mixed node's NVIDIA and AMD devices never share one). */
int32_t tf_index(const struct tf_state *st, size_t i);
/* The per-vendor index (what *_VISIBLE_DEVICES counts): axl's index attribute, else the
 * position among the listed devices of the same vendor. */
int32_t tf_vendor_index(const struct tf_state *st, size_t i);
/* A listed device by the host's UUID (case-insensitive), else by axl_inventory_find()
 * (a partition, an id, a PCI address). NULL when none. *slot (may be NULL) gets the
 * listed position, or -1. */
const axl_device *tf_find(const struct tf_state *st, const char *uuid, long *slot);
/* An axl error code as an AccelResult, logging axl's reason at ERROR/WARN. */
AccelResult tf_result(int rc, const char *what);
int64_t tf_now_ns(void);
/* The compute units (SMs / CUs) of a device, 0 when not known. */
uint64_t tf_compute_units(const axl_device *d);

/* limiter.c: whether libaxl_limiter.so is installed ($AXL_LIMITER_LIBRARY names it, else
 * libaxl_limiter.so next to this library or one or two directories up). */
int tf_limiter_installed(void);
/* Write a device's limits (< 0: keep) into this process's limiter region, creating it
 * with the n devices listed when there is none. */
AccelResult tf_limiter_bind(const char *const *uuids, size_t n, const char *uuid, int64_t mem, int pct);

#endif
