/* SPDX-License-Identifier: MIT */
/* The compute API's private core, shared by compute.c (the API) and route.c (which
 * backend does a checked copy): a device, a buffer and a queue of a compute context. */
#ifndef AXL_COMPUTE_CORE_H
#define AXL_COMPUTE_CORE_H

#include <stdbool.h>
#include <stdint.h>

#include "compute_impl.h"

struct axl_compute_device {
	axl_compute *c;
	const axl_device *inv; /* NULL: the host CPU */
	const struct axl__compute_ops *ops;
	void *state;
	void *native;
	char name[128];
};

struct axl__cbuf {
	struct axl__cmem m;
	void *mstate; /* the state of the backend that allocated it (m.ops) */
	const axl_compute_device *dev;
	bool wrapped; /* the caller's memory: never freed here */
};

struct axl__cqueue {
	const axl_compute_device *dev;
	void *native;
};

/* An id of d for messages: its inventory id, or "host". */
static inline const char *dev_id(const axl_compute_device *d)
{
	const char *id = NULL;
	if (!d->inv)
		return "host";
	return axl_device_get_str(d->inv, AXL_ATTR_ID, &id) == 0 && id ? id : "device";
}

/* Can q's device reach b's bytes directly: host memory, or its own device memory? */
static inline bool near(const struct axl__cbuf *b, const axl_compute_device *qd)
{
	return b->m.host != NULL || b->dev == qd;
}

/* route.c: send a checked copy to the backend that can do it, by where its two ends are. */
int axl__compute_route(axl_compute *c, struct axl__cqueue *qo, const struct axl__cbuf *d, uint64_t doff,
		       const struct axl__cbuf *s, uint64_t soff, uint64_t size, axl_copy_path *path);

#endif
