/* SPDX-License-Identifier: MIT */
/* The cpu backend: host memory, and a queue that is a worker thread running its commands
 * in order. It is always there, drives the host CPU (device 0), and is the reference the
 * vendor backends are tested against. */
#define _GNU_SOURCE /* clock_gettime, posix_memalign, mlock with -std=c11 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "compute_impl.h"

/* Copies from this size on are split across threads: one core does not saturate the
 * memory of a server, several do. Below it a thread costs more than it saves. */
#define SPLIT_MIN (8u << 20)
#define SPLIT_MAX 4

struct cpu_state {
	const axl_context *ctx;
	unsigned split; /* threads a large copy is split across */
};

struct cpu_event {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	bool done;
	int64_t ns; /* CLOCK_MONOTONIC when the queue reached it */
	void (*notify)(void *arg, int rc); /* cpu_event_notify's, called once when done */
	void *notify_arg;
};

enum { CMD_COPY, CMD_FILL, CMD_EVENT };
struct cpu_cmd {
	struct cpu_cmd *next;
	int op;
	unsigned char *dst;
	const unsigned char *src;
	size_t size;
	uint8_t value;
	struct cpu_event *ev;
};

struct cpu_queue {
	struct cpu_state *st;
	pthread_t worker;
	pthread_mutex_t lock;
	pthread_cond_t work, progress;
	struct cpu_cmd *head, *tail;
	uint64_t enqueued, completed;
	bool stop;
};

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cpu_open(const axl_context *ctx, const char *library, void **state, struct axl__compute_found **found,
		    size_t *n)
{
	(void)library;
	struct cpu_state *st = calloc(1, sizeof *st);
	if (!st)
		return axl__error(AXL_ENOMEM, "compute cpu: out of memory");
	st->ctx = ctx;
	long cpus = sysconf(_SC_NPROCESSORS_ONLN);
	st->split = cpus < 2 ? 1 : cpus > SPLIT_MAX ? SPLIT_MAX : (unsigned)cpus;
	*state = st;
	/* the host CPU is the core's device 0 already: nothing to match */
	*found = NULL;
	*n = 0;
	return 0;
}

static void cpu_close(void *state)
{
	free(state);
}

/* MemAvailable and MemTotal of the live system (kB in the file). */
static int meminfo(const axl_context *ctx, uint64_t *avail, uint64_t *total)
{
	char buf[8192];
	if (axl__fs_read(&ctx->fs, AXL__FS_ROOT, "/proc/meminfo", buf, sizeof buf) < 0)
		return -1;
	unsigned long long a = 0, t = 0;
	bool ha = false, ht = false;
	for (char *line = buf; line && *line;) {
		char *nl = strchr(line, '\n');
		if (nl)
			*nl = '\0';
		if (sscanf(line, "MemTotal: %llu kB", &t) == 1)
			ht = true;
		else if (sscanf(line, "MemAvailable: %llu kB", &a) == 1)
			ha = true;
		line = nl ? nl + 1 : NULL;
	}
	if (!ha || !ht)
		return -1;
	*avail = (uint64_t)a * 1024;
	*total = (uint64_t)t * 1024;
	return 0;
}

static int cpu_mem_info(void *state, void *dev, uint64_t *free_bytes, uint64_t *total_bytes)
{
	(void)dev;
	struct cpu_state *st = state;
	/* the memory this process allocates from is the live host's: a re-rooted or
	 * simulated context describes another node, so its tree is not asked */
	if (!st->ctx->fs.rerooted && !st->ctx->sim && meminfo(st->ctx, free_bytes, total_bytes) == 0)
		return 0;
	long page = sysconf(_SC_PAGESIZE), all = sysconf(_SC_PHYS_PAGES), avail = sysconf(_SC_AVPHYS_PAGES);
	if (page <= 0 || all <= 0 || avail < 0)
		return axl__error(AXL_EIO, "compute cpu: the host's memory size is not known");
	*free_bytes = (uint64_t)avail * (uint64_t)page;
	*total_bytes = (uint64_t)all * (uint64_t)page;
	return 0;
}

/* Ask the kernel to take the pages of [p, p + len) from NUMA node `node` when they are
 * first touched (they are not yet), falling back to other nodes when it is full:
 * MPOL_PREFERRED through the system call, so that libnuma is not needed. A node the
 * kernel does not know (a capture's node numbers on another machine) changes nothing. */
static void place(void *p, size_t len, int node)
{
	enum { MPOL_PREFERRED_ = 1 };
	unsigned long mask[4096 / (8 * sizeof(unsigned long))] = { 0 };
	if (node < 0 || (size_t)node >= 8 * sizeof mask)
		return;
	mask[(size_t)node / (8 * sizeof(unsigned long))] |= 1ul << ((size_t)node % (8 * sizeof(unsigned long)));
	size_t page = 4096;
	size_t span = (len + page - 1) & ~(page - 1);
	(void)syscall(SYS_mbind, p, span, MPOL_PREFERRED_, mask, 8 * sizeof mask + 1, 0);
}

static int cpu_alloc(void *state, void *dev, struct axl__cmem *m)
{
	(void)dev;
	/* more than the host has can never succeed: say so rather than ask malloc (which
	 * overcommits, or under a sanitizer aborts) */
	uint64_t avail = 0, total = 0;
	if (m->size > SIZE_MAX || (cpu_mem_info(state, dev, &avail, &total) == 0 && m->size > total))
		goto oom;
	/* pages for anything of a page or more (and for pinned memory, which is locked by
	 * the page); cache lines below */
	size_t align = m->kind == AXL_MEMORY_PINNED || m->size >= 4096 ? 4096 : 64;
	void *p = NULL;
	if (posix_memalign(&p, align, (size_t)m->size))
		goto oom;
	if (m->numa_node >= 0 && align == 4096)
		place(p, (size_t)m->size, m->numa_node);
	/* page-locked is best effort: RLIMIT_MEMLOCK is often small, and unlocked host
	 * memory works the same for the CPU */
	if (m->kind == AXL_MEMORY_PINNED && mlock(p, (size_t)m->size) == 0)
		m->mem = (void *)((uintptr_t)p | 1); /* remember to munlock */
	else
		m->mem = p;
	m->host = p;
	return 0;
oom:
	if (cpu_mem_info(state, dev, &avail, &total))
		return axl__error(AXL_ENOMEM, "compute cpu: allocating %" PRIu64 " bytes failed", m->size);
	return axl__error(AXL_ENOMEM, "compute cpu: allocating %" PRIu64 " bytes failed (%" PRIu64 " bytes available)",
			  m->size, avail);
}

static void cpu_free(void *state, struct axl__cmem *m)
{
	(void)state;
	if ((uintptr_t)m->mem & 1)
		munlock(m->host, (size_t)m->size);
	free(m->host);
}

/* ---- copies ---------------------------------------------------------------------- */
struct part {
	unsigned char *dst;
	const unsigned char *src;
	size_t size;
	uint8_t value;
	bool fill;
};

static void *run_part(void *arg)
{
	struct part *p = arg;
	if (p->fill)
		memset(p->dst, p->value, p->size);
	else
		memcpy(p->dst, p->src, p->size);
	return NULL;
}

/* A large copy or fill in st->split pieces, one on this thread; a piece whose thread
 * cannot be started is done here too. */
static void run_split(const struct cpu_state *st, struct part whole)
{
	unsigned n = whole.size >= SPLIT_MIN ? st->split : 1;
	if (n <= 1) {
		run_part(&whole);
		return;
	}
	struct part parts[SPLIT_MAX];
	pthread_t tids[SPLIT_MAX];
	bool started[SPLIT_MAX] = { false };
	/* pieces on 4 KiB boundaries, so no two threads write one page */
	size_t chunk = (whole.size / n + 4095) & ~(size_t)4095, off = 0;
	for (unsigned i = 0; i < n; i++) {
		size_t len = off < whole.size ? (whole.size - off < chunk ? whole.size - off : chunk) : 0;
		parts[i] = whole;
		parts[i].dst = whole.dst + off;
		parts[i].src = whole.fill ? NULL : whole.src + off;
		parts[i].size = len;
		off += len;
	}
	for (unsigned i = 1; i < n; i++)
		started[i] = parts[i].size && pthread_create(&tids[i], NULL, run_part, &parts[i]) == 0;
	run_part(&parts[0]);
	for (unsigned i = 1; i < n; i++) {
		if (started[i])
			pthread_join(tids[i], NULL);
		else if (parts[i].size)
			run_part(&parts[i]);
	}
}

static void complete_event(struct cpu_event *ev)
{
	pthread_mutex_lock(&ev->lock);
	ev->ns = now_ns();
	ev->done = true;
	pthread_cond_broadcast(&ev->cond);
	void (*notify)(void *, int) = ev->notify;
	void *arg = ev->notify_arg;
	pthread_mutex_unlock(&ev->lock);
	/* the event may be freed once notified (its freeing waits for the notice): ev is
	 * not touched after this */
	if (notify)
		notify(arg, 0);
}

static void *worker(void *arg)
{
	struct cpu_queue *q = arg;
	pthread_mutex_lock(&q->lock);
	for (;;) {
		while (!q->head && !q->stop)
			pthread_cond_wait(&q->work, &q->lock);
		if (!q->head)
			break;
		struct cpu_cmd *c = q->head;
		pthread_mutex_unlock(&q->lock);
		if (c->op == CMD_EVENT) {
			complete_event(c->ev);
		} else {
			run_split(q->st, (struct part){ .dst = c->dst,
							.src = c->src,
							.size = c->size,
							.value = c->value,
							.fill = c->op == CMD_FILL });
		}
		pthread_mutex_lock(&q->lock);
		q->head = c->next;
		if (!q->head)
			q->tail = NULL;
		q->completed++;
		pthread_cond_broadcast(&q->progress);
		free(c);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static int cpu_queue_create(void *state, void *dev, void **out)
{
	(void)dev;
	struct cpu_queue *q = calloc(1, sizeof *q);
	if (!q)
		return axl__error(AXL_ENOMEM, "compute cpu: out of memory for a queue");
	q->st = state;
	pthread_mutex_init(&q->lock, NULL);
	pthread_cond_init(&q->work, NULL);
	pthread_cond_init(&q->progress, NULL);
	int e = pthread_create(&q->worker, NULL, worker, q);
	if (e) {
		pthread_cond_destroy(&q->progress);
		pthread_cond_destroy(&q->work);
		pthread_mutex_destroy(&q->lock);
		free(q);
		return axl__error(AXL_ENOMEM, "compute cpu: starting a queue's thread: %s", strerror(e));
	}
	*out = q;
	return 0;
}

static int cpu_queue_sync(void *state, void *qp)
{
	(void)state;
	struct cpu_queue *q = qp;
	pthread_mutex_lock(&q->lock);
	/* what was enqueued before this call, not what other threads add meanwhile */
	uint64_t upto = q->enqueued;
	while (q->completed < upto)
		pthread_cond_wait(&q->progress, &q->lock);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static void cpu_queue_free(void *state, void *qp)
{
	struct cpu_queue *q = qp;
	cpu_queue_sync(state, q);
	pthread_mutex_lock(&q->lock);
	q->stop = true;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	pthread_join(q->worker, NULL);
	pthread_cond_destroy(&q->progress);
	pthread_cond_destroy(&q->work);
	pthread_mutex_destroy(&q->lock);
	free(q);
}

/* Copies and fills up to this size run on the caller's thread when the queue is idle:
 * handing them to the worker (a wake-up, a context switch) costs more than the copy. */
#define INLINE_MAX (64u << 10)

static int enqueue(struct cpu_queue *q, struct cpu_cmd cmd)
{
	/* an idle queue runs a small command at once, under its lock: nothing is ahead of
	 * it, and nothing enqueued meanwhile can pass it */
	if (cmd.op == CMD_EVENT || cmd.size <= INLINE_MAX) {
		pthread_mutex_lock(&q->lock);
		if (!q->head) {
			if (cmd.op == CMD_EVENT)
				complete_event(cmd.ev);
			else if (cmd.op == CMD_FILL)
				memset(cmd.dst, cmd.value, cmd.size);
			else
				memcpy(cmd.dst, cmd.src, cmd.size);
			q->enqueued++;
			q->completed++;
			pthread_mutex_unlock(&q->lock);
			return 0;
		}
		pthread_mutex_unlock(&q->lock);
	}
	struct cpu_cmd *c = malloc(sizeof *c);
	if (!c)
		return axl__error(AXL_ENOMEM, "compute cpu: out of memory for a command");
	*c = cmd;
	c->next = NULL;
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	q->enqueued++;
	pthread_cond_signal(&q->work);
	pthread_mutex_unlock(&q->lock);
	return 0;
}

static int cpu_copy(void *state, void *q, const struct axl__cmem *dst, uint64_t dst_offset, const struct axl__cmem *src,
		    uint64_t src_offset, uint64_t size, axl_copy_path *path)
{
	(void)state;
	if (!dst->host || !src->host)
		return axl__error(AXL_ENOTSYS,
				  "compute cpu: a copy of %" PRIu64 " bytes involves memory the CPU cannot address",
				  size);
	*path = AXL_COPY_PATH_HOST;
	return enqueue(q, (struct cpu_cmd){ .op = CMD_COPY,
					    .dst = (unsigned char *)dst->host + dst_offset,
					    .src = (const unsigned char *)src->host + src_offset,
					    .size = (size_t)size });
}

static int cpu_fill(void *state, void *q, const struct axl__cmem *dst, uint64_t offset, uint64_t size, uint8_t value)
{
	(void)state;
	if (!dst->host)
		return axl__error(AXL_ENOTSYS,
				  "compute cpu: a fill of %" PRIu64 " bytes of memory the CPU cannot address", size);
	return enqueue(
	    q, (struct cpu_cmd){
		   .op = CMD_FILL, .dst = (unsigned char *)dst->host + offset, .size = (size_t)size, .value = value });
}

static int cpu_event_record(void *state, void *q, void **out)
{
	(void)state;
	struct cpu_event *ev = calloc(1, sizeof *ev);
	if (!ev)
		return axl__error(AXL_ENOMEM, "compute cpu: out of memory for an event");
	pthread_mutex_init(&ev->lock, NULL);
	pthread_cond_init(&ev->cond, NULL);
	int rc = enqueue(q, (struct cpu_cmd){ .op = CMD_EVENT, .ev = ev });
	if (rc) {
		pthread_cond_destroy(&ev->cond);
		pthread_mutex_destroy(&ev->lock);
		free(ev);
		return rc;
	}
	*out = ev;
	return 0;
}

static int cpu_event_wait(void *state, void *evp)
{
	(void)state;
	struct cpu_event *ev = evp;
	pthread_mutex_lock(&ev->lock);
	while (!ev->done)
		pthread_cond_wait(&ev->cond, &ev->lock);
	pthread_mutex_unlock(&ev->lock);
	return 0;
}

static int cpu_event_notify(void *state, void *evp, void (*done)(void *arg, int rc), void *arg)
{
	(void)state;
	struct cpu_event *ev = evp;
	pthread_mutex_lock(&ev->lock);
	bool now = ev->done;
	if (!now) {
		ev->notify = done;
		ev->notify_arg = arg;
	}
	pthread_mutex_unlock(&ev->lock);
	if (now)
		done(arg, 0);
	return 0;
}

static int cpu_event_elapsed(void *state, void *a, void *b, int64_t *ns)
{
	(void)state;
	struct cpu_event *ea = a, *eb = b;
	*ns = eb->ns - ea->ns;
	return 0;
}

static void cpu_event_free(void *state, void *evp)
{
	/* the queue may not have reached it yet: it writes to the event when it does */
	cpu_event_wait(state, evp);
	struct cpu_event *ev = evp;
	pthread_cond_destroy(&ev->cond);
	pthread_mutex_destroy(&ev->lock);
	free(ev);
}

const struct axl__compute_ops axl__compute_cpu = {
	.name = "cpu",
	.open = cpu_open,
	.close = cpu_close,
	.mem_info = cpu_mem_info,
	.alloc = cpu_alloc,
	.free = cpu_free,
	.queue_create = cpu_queue_create,
	.queue_free = cpu_queue_free,
	.queue_sync = cpu_queue_sync,
	.copy = cpu_copy,
	.fill = cpu_fill,
	.event_record = cpu_event_record,
	.event_wait = cpu_event_wait,
	.event_notify = cpu_event_notify,
	.event_elapsed = cpu_event_elapsed,
	.event_free = cpu_event_free,
};
