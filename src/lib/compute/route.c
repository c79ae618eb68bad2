/* SPDX-License-Identifier: MIT */
/* The routing of a checked copy (axl_copy): on the queue's own device where it can reach
 * both ends, by the other device's own queue for host memory and that device's memory,
 * peer to peer between two devices where the backend can, else staged through pinned
 * bounce buffers. */
#include <stdlib.h>

#include "compute_core.h"
#include "compute_impl.h"

/* Pinned bounce buffers a staged copy goes through, each this big: big enough that a
 * chunk's fixed costs vanish, small enough for two to be had anywhere. */
#define STAGE_CHUNK (8u << 20)

/*
 * A copy between device memory of q's device and of another device (far), through two
 * pinned buffers of far's backend: chunk by chunk, one chunk on far's side while the
 * other is on q's. Done when this returns: the bounce buffers are freed. Everything
 * earlier on q comes first (the chunks go on q after it).
 */
static int staged(struct axl__cqueue *qo, const struct axl__cbuf *d, uint64_t doff, const struct axl__cbuf *s,
		  uint64_t soff, uint64_t size)
{
	const axl_compute_device *qd = qo->dev, *fd = d->dev == qd ? s->dev : d->dev;
	bool far_src = s->dev == fd;
	uint64_t chunk = size < STAGE_CHUNK ? size : STAGE_CHUNK;
	struct axl__cmem bounce[2] = { 0 };
	void *fq = NULL, *ev[2] = { NULL, NULL };
	int rc = fd->ops->queue_create(fd->state, fd->native, &fq);
	for (int k = 0; !rc && k < 2; k++) {
		bounce[k] =
		    (struct axl__cmem){ .size = chunk, .kind = AXL_MEMORY_PINNED, .dev = fd->native, .ops = fd->ops };
		if ((rc = fd->ops->alloc(fd->state, fd->native, &bounce[k])))
			bounce[k].ops = NULL;
	}
	axl_copy_path p;
	for (uint64_t off = 0, i = 0; !rc && off < size; off += chunk, i++) {
		int k = (int)(i & 1);
		uint64_t n = size - off < chunk ? size - off : chunk;
		/* bounce[k] is free again once what last used it is done */
		if (ev[k]) {
			rc = far_src ? qd->ops->event_wait(qd->state, ev[k]) : fd->ops->event_wait(fd->state, ev[k]);
			(far_src ? qd : fd)->ops->event_free((far_src ? qd : fd)->state, ev[k]);
			ev[k] = NULL;
			if (rc)
				break;
		}
		if (far_src) {
			/* far device -> bounce, then bounce -> q's device on q */
			if (!(rc = fd->ops->copy(fd->state, fq, &bounce[k], 0, &s->m, soff + off, n, &p)) &&
			    !(rc = fd->ops->queue_sync(fd->state, fq)) &&
			    !(rc = qd->ops->copy(qd->state, qo->native, &d->m, doff + off, &bounce[k], 0, n, &p)))
				rc = qd->ops->event_record(qd->state, qo->native, &ev[k]);
		} else {
			/* q's device -> bounce on q, then bounce -> far device */
			void *e = NULL;
			if (!(rc = qd->ops->copy(qd->state, qo->native, &bounce[k], 0, &s->m, soff + off, n, &p)) &&
			    !(rc = qd->ops->event_record(qd->state, qo->native, &e))) {
				rc = qd->ops->event_wait(qd->state, e);
				qd->ops->event_free(qd->state, e);
			}
			if (!rc && !(rc = fd->ops->copy(fd->state, fq, &d->m, doff + off, &bounce[k], 0, n, &p)))
				rc = fd->ops->event_record(fd->state, fq, &ev[k]);
		}
	}
	for (int k = 0; k < 2; k++)
		if (ev[k]) {
			const axl_compute_device *ed = far_src ? qd : fd;
			int r = ed->ops->event_wait(ed->state, ev[k]);
			ed->ops->event_free(ed->state, ev[k]);
			if (r && !rc)
				rc = r;
		}
	if (fq) {
		int r = fd->ops->queue_sync(fd->state, fq);
		if (r && !rc)
			rc = r;
		fd->ops->queue_free(fd->state, fq);
	}
	for (int k = 0; k < 2; k++)
		if (bounce[k].ops)
			fd->ops->free(fd->state, &bounce[k]);
	return rc;
}

/* A copy between host memory and device memory of fd, asked of a queue of another
 * device: fd's own queue does it once q's earlier work is done, and it is complete when
 * this returns. */
static int by_far(struct axl__cqueue *qo, const axl_compute_device *fd, const struct axl__cbuf *d, uint64_t doff,
		  const struct axl__cbuf *s, uint64_t soff, uint64_t size, axl_copy_path *p)
{
	const axl_compute_device *qd = qo->dev;
	void *fq = NULL;
	int rc = qd->ops->queue_sync(qd->state, qo->native);
	if (!rc)
		rc = fd->ops->queue_create(fd->state, fd->native, &fq);
	if (!rc)
		rc = fd->ops->copy(fd->state, fq, &d->m, doff, &s->m, soff, size, p);
	if (fq) {
		int r = fd->ops->queue_sync(fd->state, fq);
		if (r && !rc)
			rc = r;
		fd->ops->queue_free(fd->state, fq);
	}
	return rc;
}

/* Send a checked copy to the backend that can do it, by where its two ends are. */
int axl__compute_route(axl_compute *c, struct axl__cqueue *qo, const struct axl__cbuf *d, uint64_t doff,
		       const struct axl__cbuf *s, uint64_t soff, uint64_t size, axl_copy_path *path)
{
	(void)c;
	const axl_compute_device *qd = qo->dev;
	axl_copy_path p = AXL_COPY_PATH_HOST;
	int rc;
	if (near(d, qd) && near(s, qd)) {
		rc = qd->ops->copy(qd->state, qo->native, &d->m, doff, &s->m, soff, size, &p);
	} else if (!near(d, qd) && !near(s, qd)) {
		return axl__error(AXL_EINVAL,
				  "axl_copy: the queue is on %s, and neither buffer is host memory or memory of %s",
				  dev_id(qd), dev_id(qd));
	} else {
		const struct axl__cbuf *far = near(d, qd) ? s : d, *other = far == s ? d : s;
		if (other->m.host) {
			/* host memory and another device's: that device copies, after q's work */
			rc = by_far(qo, far->dev, d, doff, s, soff, size, &p);
			if (!rc && path)
				*path = p;
			return rc;
		}
		/* device memory of two devices: directly where the backend can, else staged */
		rc = AXL_ENOTSUP;
		if (far->dev->ops == qd->ops && qd->ops->peer_copy)
			rc = qd->ops->peer_copy(qd->state, qo->native, &d->m, doff, &s->m, soff, size);
		p = AXL_COPY_PATH_PEER;
		if (rc == AXL_ENOTSUP) {
			rc = staged(qo, d, doff, s, soff, size);
			p = AXL_COPY_PATH_STAGED;
		}
	}
	if (!rc && path)
		*path = p;
	return rc;
}
