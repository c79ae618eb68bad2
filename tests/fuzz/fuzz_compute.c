/* SPDX-License-Identifier: MIT */
/* The compute API (cpu backend) over command sequences: each input byte picks an
 * operation on a small set of buffers, queues and events, with arguments from the bytes
 * after it; handles may be freed, reused, of the wrong kind or made up. Nothing may
 * crash, every refusal is AXL_EINVAL (or AXL_ENOMEM for a huge allocation), and what
 * the copies and fills leave in host memory must match a model kept beside them. Events
 * asked to notify (axl_event_notify) write their handle to a pipe exactly once: by the
 * time the context is closed, every one has come, and nothing else has. */
#define _GNU_SOURCE /* mkdtemp, pipe2 */
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NB 6
#define NQ 2
#define NE 4

struct in {
	const uint8_t *p;
	size_t n;
};

static unsigned take(struct in *in)
{
	if (!in->n)
		return 0;
	in->n--;
	return *in->p++;
}

static uint64_t take16(struct in *in)
{
	unsigned a = take(in);
	return a | (uint64_t)take(in) << 8;
}

static char root[] = "/tmp/axl-fuzz-compute-XXXXXX";

/* the empty tree goes when the fuzzer exits (each of libFuzzer's jobs makes one) */
static void remove_root(void)
{
	rmdir(root);
}

static axl_inventory *inventory(void)
{
	static axl_inventory *inv;
	if (inv)
		return inv;
	/* an empty tree: no accelerator, nothing of the machine the fuzzer runs on */
	if (!mkdtemp(root))
		abort();
	atexit(remove_root);
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	o.sysroot = root;
	axl_context *ctx;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0))
		abort();
	return inv; /* kept for every input */
}

/* The notification pipe: [0] read (non-blocking), [1] write; made once. */
static int note_pipe[2] = { -1, -1 };

#define NN 4096
struct notes {
	axl_event asked[NN]; /* notified successfully */
	size_t nasked;
	axl_event came[NN];
	size_t ncame;
};

static void drain(struct notes *ns)
{
	axl_event h[64];
	ssize_t r;
	while ((r = read(note_pipe[0], h, sizeof h)) > 0) {
		if (r % 8)
			abort(); /* a handle written in part */
		for (ssize_t k = 0; k < r / 8; k++) {
			if (ns->ncame == NN)
				abort();
			ns->came[ns->ncame++] = h[k];
		}
	}
}

/* Every handle asked for came once, and nothing else. */
static void notes_check(struct notes *ns)
{
	drain(ns);
	if (ns->ncame != ns->nasked)
		abort();
	for (size_t a = 0; a < ns->nasked; a++) {
		size_t k = 0;
		for (size_t b = 0; b < ns->ncame; b++)
			k += ns->came[b] == ns->asked[a];
		if (k != 1)
			abort();
	}
}

static void ok_or_refused(int rc)
{
	if (rc != 0 && rc != AXL_EINVAL)
		abort();
}

/* Zero a buffer the CPU cannot address, through a queue of its own. */
static bool zero(axl_compute *c, const axl_compute_device *host, axl_buffer b, uint64_t n)
{
	axl_queue q;
	if (axl_queue_create(c, host, &q))
		return false;
	bool ok = axl_fill(c, q, b, 0, n, 0, NULL) == 0 && axl_queue_sync(c, q) == 0;
	return axl_queue_free(c, q) == 0 && ok;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	axl_compute *c;
	if (axl_compute_open(&c, inventory(), NULL))
		abort();
	const axl_compute_device *host = axl_compute_device_at(c, 0);
	axl_buffer b[NB] = { 0 };
	uint8_t *model[NB] = { NULL };
	uint64_t len[NB] = { 0 };
	axl_queue q[NQ] = { 0 };
	axl_event e[NE] = { 0 };
	if (note_pipe[0] < 0 && (pipe(note_pipe) || fcntl(note_pipe[0], F_SETFL, O_NONBLOCK)))
		abort();
	static struct notes ns;
	ns.nasked = ns.ncame = 0;
	struct in in = { data, size };
	while (in.n) {
		unsigned op = take(&in) % 13, i = take(&in), j = take(&in);
		/* a handle: mostly a slot's (live or freed), sometimes made up */
		axl_buffer hb = i < 240 ? b[i % NB] : take16(&in) << 32 | take16(&in);
		axl_queue hq = j < 240 ? q[j % NQ] : (axl_queue)b[j % NB];
		switch (op) {
		case 0: { /* allocate into a slot (leaking none: free what was there) */
			if (b[i % NB]) {
				ok_or_refused(axl_buffer_free(c, b[i % NB]));
				free(model[i % NB]);
				model[i % NB] = NULL;
			}
			uint64_t n = take16(&in);
			axl_memory_kind k = (axl_memory_kind)(j % 5);
			axl_buffer nb = 0;
			int rc = axl_buffer_alloc(c, host, k, n, &nb);
			if (rc == 0) {
				b[i % NB] = nb;
				len[i % NB] = n;
				model[i % NB] = calloc(1, n);
				void *p;
				if (axl_buffer_host_pointer(c, nb, &p) == 0)
					memset(p, 0, n);
				else if (k != AXL_MEMORY_DEVICE)
					abort();
				else if (!zero(c, host, nb, n)) /* device memory: made zero on a queue */
					abort();
			} else if (rc != AXL_EINVAL || (n && k >= 1 && k <= 3)) {
				abort();
			}
			break;
		}
		case 1: /* free (maybe again) */
			ok_or_refused(axl_buffer_free(c, hb));
			if (i < 240 && b[i % NB] == hb) {
				free(model[i % NB]);
				model[i % NB] = NULL;
				len[i % NB] = 0;
			}
			break;
		case 2:
			if (!q[j % NQ])
				ok_or_refused(axl_queue_create(c, host, &q[j % NQ]));
			break;
		case 3: ok_or_refused(axl_queue_free(c, hq)); break;
		case 4:
		case 5: { /* a copy between slots, checked against the model when it ran */
			unsigned s = take(&in) % NB;
			uint64_t doff = take16(&in) % 70000, soff = take16(&in) % 70000, n = take16(&in);
			axl_copy_path path = 0;
			int rc = axl_copy(c, hq, hb, doff, b[s], soff, n, &path, NULL);
			ok_or_refused(rc);
			if (rc == 0) {
				if (path != AXL_COPY_PATH_HOST || i >= 240 || !model[i % NB] || !model[s])
					abort();
				if (axl_queue_sync(c, hq))
					abort();
				memcpy(model[i % NB] + doff, model[s] + soff, n);
			}
			break;
		}
		case 6: {
			uint64_t off = take16(&in), n = take16(&in);
			uint8_t v = (uint8_t)take(&in);
			int rc = axl_fill(c, hq, hb, off, n, v, NULL);
			ok_or_refused(rc);
			if (rc == 0) {
				if (i >= 240 || !model[i % NB] || axl_queue_sync(c, hq))
					abort();
				memset(model[i % NB] + off, v, n);
			}
			break;
		}
		case 7:
			if (e[i % NE])
				ok_or_refused(axl_event_free(c, e[i % NE]));
			e[i % NE] = 0;
			ok_or_refused(axl_event_record(c, hq, &e[i % NE]));
			break;
		case 8: {
			int64_t ns;
			int rc = axl_event_elapsed_ns(c, e[i % NE], e[j % NE], &ns);
			ok_or_refused(rc);
			ok_or_refused(axl_event_wait(c, e[j % NE]));
			break;
		}
		case 9: ok_or_refused(axl_event_free(c, e[i % NE])); break;
		case 10: {
			uint64_t n;
			axl_memory_kind k;
			ok_or_refused(axl_buffer_info(c, hb, &n, &k, NULL));
			ok_or_refused(axl_queue_sync(c, hq));
			break;
		}
		case 11: { /* notify (a slot's event, live or freed, or a made-up handle) */
			drain(&ns);
			axl_event h = j < 240 ? e[i % NE] : (axl_event)hb;
			int rc = ns.nasked < NN ? axl_event_notify(c, h, note_pipe[1]) : AXL_EINVAL;
			ok_or_refused(rc);
			if (rc == 0)
				ns.asked[ns.nasked++] = h;
			break;
		}
		default: { /* every byte of a host-visible slot matches the model */
			void *p;
			if (i < 240 && model[i % NB] && axl_buffer_host_pointer(c, hb, &p) == 0 &&
			    memcmp(p, model[i % NB], len[i % NB]) != 0)
				abort();
			break;
		}
		}
	}
	for (unsigned k = 0; k < NB; k++)
		free(model[k]);
	/* whatever is left (queued work included) goes with the context; its notified
	 * events' handles have all come by then */
	axl_compute_free(c);
	notes_check(&ns);
	return 0;
}
