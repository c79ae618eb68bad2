/* SPDX-License-Identifier: MIT */
/*
 * axl bench copy: how close this node's copies come to its links' physical limits, the
 * way NVIDIA's nvbandwidth measures them, on any compute backend (docs/compute.md):
 * host->device, device->host, both at once, within a device and between every ordered
 * pair of devices. Each figure is the median of N timed copies after warm-up copies, in
 * GB/s (10^9 bytes per second), beside the link's theoretical figure from the inventory
 * (PCIe generation x width, NVLink, XGMI, memory bandwidth) and the percentage reached.
 * Every test ends with a check that the bytes arrived: a pattern written at the source
 * is read back from the destination and compared.
 */
#define _GNU_SOURCE
#include <inttypes.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../util/pcie.h"
#include "../util/strbuf.h"
#include "cli.h"

#define DEFAULT_SIZE (64ull << 20)
#define DEFAULT_ITER 10
#define WARMUP 2
#define MAX_DEVS 64

enum test { T_H2D, T_D2H, T_BIDIR, T_LOCAL, T_PAIR };
static const char *const test_name[] = { "host_to_device", "device_to_host", "bidirectional", "device_local",
					 "device_to_device" };
static const char *const test_text[] = { "host -> device", "device -> host", "bidirectional", "device local",
					 "device -> device" };

struct bdev {
	const axl_compute_device *cd;
	const axl_device *inv; /* NULL: the host CPU (or a runtime's device emulated on it) */
	char id[96];
	double pcie; /* GB/s per direction, < 0 not known */
	char pcie_src[32];
	double mem_bw; /* GB/s, < 0 not known */
	axl_buffer hsrc, hdst, da, db;
	axl_queue q1, q2;
};

struct result {
	enum test t;
	int a, b; /* device indexes (b: the destination of a pair, else -1) */
	axl_copy_path path;
	double med, min, max; /* GB/s */
	double theo;          /* GB/s, < 0 not known */
	char theo_src[48];
	bool verified, ok;
	char err[256];
};

struct bench {
	axl_compute *c;
	const axl_inventory *inv;
	struct bdev dev[MAX_DEVS];
	size_t n;
	uint64_t size;
	int iter;
	bool pageable;
	bool progress;
	struct result *res;
	size_t nres, cap;
	size_t step, steps;
	double *samples;
};

static uint8_t pat(uint64_t i)
{
	uint64_t x = (i + 1) * 0x9e3779b97f4a7c15ull;
	return (uint8_t)(x >> 56 ^ x >> 29 ^ x);
}

static int64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static void progress(struct bench *b, const char *what, const struct bdev *x, const struct bdev *y)
{
	b->step++;
	if (!b->progress)
		return;
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s%s%s", b->step, b->steps, what, x->id, y ? " -> " : "", y ? y->id : "");
	fflush(stderr);
}

/* ---- one measurement ------------------------------------------------------------- */
/* One timed copy of src into dst on q: ns from the backend's events when the copy stays
 * on one device, else the wall clock around the copy and its queue's sync. */
static int timed_copy(struct bench *b, axl_queue q, axl_buffer dst, axl_buffer src, bool events, axl_copy_path *path,
		      int64_t *ns)
{
	axl_event e0 = 0, e1 = 0;
	int rc;
	if (events) {
		if ((rc = axl_event_record(b->c, q, &e0)))
			return rc;
		rc = axl_copy(b->c, q, dst, 0, src, 0, b->size, path, &e1);
		if (!rc)
			rc = axl_event_elapsed_ns(b->c, e0, e1, ns);
		axl_event_free(b->c, e0);
		if (e1)
			axl_event_free(b->c, e1);
		return rc;
	}
	int64_t t0 = now_ns();
	rc = axl_copy(b->c, q, dst, 0, src, 0, b->size, path, NULL);
	if (!rc)
		rc = axl_queue_sync(b->c, q);
	*ns = now_ns() - t0;
	return rc;
}

/* Are the first size bytes of host buffer h the pattern? */
static bool is_pattern(struct bench *b, axl_buffer h)
{
	unsigned char *p = NULL;
	if (axl_buffer_host_pointer(b->c, h, (void **)&p))
		return false;
	for (uint64_t i = 0; i < b->size; i++)
		if (p[i] != pat(i))
			return false;
	return true;
}

/* Read device buffer d of x back into x's host destination and check it. */
static bool check_device(struct bench *b, struct bdev *x, axl_buffer d)
{
	void *p = NULL;
	if (axl_buffer_host_pointer(b->c, x->hdst, &p))
		return false;
	memset(p, 0, (size_t)b->size);
	if (axl_copy(b->c, x->q1, x->hdst, 0, d, 0, b->size, NULL, NULL) || axl_queue_sync(b->c, x->q1))
		return false;
	return is_pattern(b, x->hdst);
}

static struct result *new_result(struct bench *b, enum test t, int a, int y)
{
	if (b->nres == b->cap) {
		size_t cap = b->cap ? b->cap * 2 : 16;
		struct result *v = realloc(b->res, cap * sizeof *v);
		if (!v)
			return NULL;
		b->res = v;
		b->cap = cap;
	}
	struct result *r = &b->res[b->nres++];
	memset(r, 0, sizeof *r);
	r->t = t;
	r->a = a;
	r->b = y;
	r->theo = -1;
	return r;
}

static void summarise(struct bench *b, struct result *r, size_t n)
{
	qsort(b->samples, n, sizeof *b->samples, cmp_double);
	r->min = b->samples[0];
	r->max = b->samples[n - 1];
	r->med = n % 2 ? b->samples[n / 2] : (b->samples[n / 2 - 1] + b->samples[n / 2]) / 2;
}

/* Run test t on device a (and y for a pair), warm-up first, then iter timed runs. */
static void run_test(struct bench *b, enum test t, int a, int y)
{
	struct result *r = new_result(b, t, a, y);
	if (!r)
		return;
	struct bdev *x = &b->dev[a], *z = y >= 0 ? &b->dev[y] : NULL;
	progress(b, test_text[t], x, z);
	size_t n = 0;
	int rc = 0;
	for (int i = 0; !rc && i < WARMUP + b->iter; i++) {
		int64_t ns = 0;
		uint64_t bytes = b->size;
		switch (t) {
		case T_H2D: rc = timed_copy(b, x->q1, x->da, x->hsrc, true, &r->path, &ns); break;
		case T_D2H: rc = timed_copy(b, x->q1, x->hdst, x->da, true, &r->path, &ns); break;
		case T_LOCAL: rc = timed_copy(b, x->q1, x->db, x->da, true, &r->path, &ns); break;
		case T_PAIR: rc = timed_copy(b, x->q1, z->db, x->da, false, &r->path, &ns); break;
		case T_BIDIR: {
			/* both directions at once on two queues: the bytes of both over the time */
			int64_t t0 = now_ns();
			rc = axl_copy(b->c, x->q1, x->db, 0, x->hsrc, 0, b->size, &r->path, NULL);
			if (!rc)
				rc = axl_copy(b->c, x->q2, x->hdst, 0, x->da, 0, b->size, NULL, NULL);
			int r1 = axl_queue_sync(b->c, x->q1), r2 = axl_queue_sync(b->c, x->q2);
			rc = rc ? rc : r1 ? r1 : r2;
			ns = now_ns() - t0;
			bytes *= 2;
			break;
		}
		}
		/* a copy within one tick of the timer counts as one tick: a lower bound */
		if (!rc && i >= WARMUP)
			b->samples[n++] = (double)bytes / (double)(ns > 0 ? ns : 1);
	}
	if (rc) {
		snprintf(r->err, sizeof r->err, "%s", axl_error_last());
		return;
	}
	summarise(b, r, n);
	r->ok = true;
	/* the bytes arrived */
	switch (t) {
	case T_H2D: r->verified = check_device(b, x, x->da); break;
	case T_D2H: r->verified = is_pattern(b, x->hdst); break;
	case T_BIDIR: r->verified = is_pattern(b, x->hdst) && check_device(b, x, x->db); break;
	case T_LOCAL: r->verified = check_device(b, x, x->db); break;
	case T_PAIR: r->verified = check_device(b, z, z->db); break;
	}
	if (!r->verified)
		snprintf(r->err, sizeof r->err, "the bytes copied differ from the pattern written");
}

/* ---- the theoretical figures ----------------------------------------------------- */
static void theory(struct bench *b, struct result *r)
{
	struct bdev *x = &b->dev[r->a];
	switch (r->t) {
	case T_H2D:
	case T_D2H:
		if (x->pcie > 0) {
			r->theo = x->pcie;
			snprintf(r->theo_src, sizeof r->theo_src, "%s", x->pcie_src);
		}
		break;
	case T_BIDIR:
		if (x->pcie > 0) {
			r->theo = 2 * x->pcie;
			snprintf(r->theo_src, sizeof r->theo_src, "2 x %s", x->pcie_src);
		}
		break;
	case T_LOCAL:
		/* each byte copied is read once and written once */
		if (x->mem_bw > 0) {
			r->theo = x->mem_bw / 2;
			snprintf(r->theo_src, sizeof r->theo_src, "memory %.0f GB/s / 2", x->mem_bw);
		}
		break;
	case T_PAIR: {
		struct bdev *z = &b->dev[r->b];
		if (!x->inv || !z->inv)
			break;
		for (size_t i = 0; i < axl_inventory_link_count(b->inv); i++) {
			const struct axl_link *l = axl_inventory_link(b->inv, i);
			bool hit = (!strcmp(l->a, x->id) && !strcmp(l->b, z->id)) ||
				   (!strcmp(l->a, z->id) && !strcmp(l->b, x->id));
			if (hit && l->bandwidth_gbps > 0 && r->path == AXL_COPY_PATH_PEER) {
				r->theo = l->bandwidth_gbps;
				snprintf(r->theo_src, sizeof r->theo_src, "%s", l->kind);
				return;
			}
		}
		/* staged, or no direct link known: both PCIe links, the slower bounds it */
		if (x->pcie > 0 && z->pcie > 0) {
			r->theo = x->pcie < z->pcie ? x->pcie : z->pcie;
			snprintf(r->theo_src, sizeof r->theo_src, "%s", x->pcie < z->pcie ? x->pcie_src : z->pcie_src);
		}
		break;
	}
	}
}

/* ---- devices --------------------------------------------------------------------- */
static void describe(struct bdev *x)
{
	x->pcie = -1;
	x->mem_bw = -1;
	if (!x->inv) {
		/* the host CPU, or a runtime's device emulated on it */
		if (strcmp(axl_compute_device_backend(x->cd), "cpu") != 0)
			snprintf(x->id, sizeof x->id, "host/%s", axl_compute_device_backend(x->cd));
		else
			snprintf(x->id, sizeof x->id, "host");
		return;
	}
	snprintf(x->id, sizeof x->id, "%s", cli_str(x->inv, AXL_ATTR_ID) ? cli_str(x->inv, AXL_ATTR_ID) : "?");
	int64_t gen = -1, width = -1;
	/* the link's capability: an idle GPU trains its link down, so the current figures
	 * say little about what a copy gets */
	if (axl_device_get_int(x->inv, AXL_ATTR_LINK_MAX_GEN, &gen) ||
	    axl_device_get_int(x->inv, AXL_ATTR_LINK_MAX_WIDTH, &width))
		gen = width = -1;
	x->pcie = axl__pcie_link_gbps(gen, width);
	if (x->pcie > 0)
		snprintf(x->pcie_src, sizeof x->pcie_src, "pcie gen%" PRId64 " x%" PRId64, gen, width);
	double bw = -1;
	if (axl_device_get_num(x->inv, AXL_ATTR_MEMORY_BANDWIDTH, &bw) == 0 && bw > 0)
		x->mem_bw = bw;
}

static int setup(struct bench *b, struct bdev *x)
{
	axl_memory_kind hk = b->pageable ? AXL_MEMORY_HOST : AXL_MEMORY_PINNED;
	int rc = axl_buffer_alloc(b->c, x->cd, hk, b->size, &x->hsrc);
	if (!rc)
		rc = axl_buffer_alloc(b->c, x->cd, hk, b->size, &x->hdst);
	if (!rc)
		rc = axl_buffer_alloc(b->c, x->cd, AXL_MEMORY_DEVICE, b->size, &x->da);
	if (!rc)
		rc = axl_buffer_alloc(b->c, x->cd, AXL_MEMORY_DEVICE, b->size, &x->db);
	if (!rc)
		rc = axl_queue_create(b->c, x->cd, &x->q1);
	if (!rc)
		rc = axl_queue_create(b->c, x->cd, &x->q2);
	if (rc)
		return rc;
	unsigned char *p = NULL;
	if ((rc = axl_buffer_host_pointer(b->c, x->hsrc, (void **)&p)))
		return rc;
	for (uint64_t i = 0; i < b->size; i++)
		p[i] = pat(i);
	return 0;
}

/* ---- output ---------------------------------------------------------------------- */
static void json_num_or_null(struct axl__json *w, const char *key, double v)
{
	axl__json_key(w, key);
	if (v >= 0 && isfinite(v)) {
		/* five significant digits: more than a measurement holds, and a tiny copy's
		 * figure does not round to 0 */
		char buf[32];
		snprintf(buf, sizeof buf, "%.5g", v);
		axl__json_num(w, strtod(buf, NULL));
	} else {
		axl__json_null(w);
	}
}

static int print_json_doc(struct bench *b, const struct opts *o)
{
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	axl__json_init(&w, &sb, !o->compact);
	axl__json_obj(&w);
	axl__json_kstr(&w, "schema", "axl.copybench");
	axl__json_kint(&w, "schema_version", 1);
	axl__json_kint(&w, "size_bytes", (int64_t)b->size);
	axl__json_kint(&w, "iterations", b->iter);
	axl__json_kint(&w, "warmup", WARMUP);
	axl__json_kstr(&w, "host_memory", b->pageable ? "pageable" : "pinned");
	axl__json_key(&w, "devices");
	axl__json_arr(&w);
	for (size_t i = 0; i < b->n; i++) {
		const struct bdev *x = &b->dev[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "id", x->id);
		axl__json_kstr(&w, "backend", axl_compute_device_backend(x->cd));
		axl__json_kstr(&w, "name", axl_compute_device_name(x->cd));
		json_num_or_null(&w, "pcie_gbps", x->pcie);
		json_num_or_null(&w, "memory_bandwidth_gbps", x->mem_bw);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_key(&w, "results");
	axl__json_arr(&w);
	for (size_t i = 0; i < b->nres; i++) {
		const struct result *r = &b->res[i];
		axl__json_obj(&w);
		axl__json_kstr(&w, "test", test_name[r->t]);
		axl__json_kstr(&w, "device", b->dev[r->a].id);
		axl__json_key(&w, "peer");
		if (r->b >= 0)
			axl__json_str(&w, b->dev[r->b].id);
		else
			axl__json_null(&w);
		axl__json_key(&w, "path");
		if (r->ok)
			axl__json_str(&w, axl_copy_path_name(r->path));
		else
			axl__json_null(&w);
		json_num_or_null(&w, "gbps", r->ok ? r->med : -1);
		json_num_or_null(&w, "gbps_min", r->ok ? r->min : -1);
		json_num_or_null(&w, "gbps_max", r->ok ? r->max : -1);
		json_num_or_null(&w, "theoretical_gbps", r->theo);
		axl__json_key(&w, "theoretical_source");
		if (r->theo > 0)
			axl__json_str(&w, r->theo_src);
		else
			axl__json_null(&w);
		json_num_or_null(&w, "percent", r->ok && r->theo > 0 ? 100 * r->med / r->theo : -1);
		axl__json_kbool(&w, "verified", r->verified);
		axl__json_key(&w, "error");
		if (r->err[0])
			axl__json_str(&w, r->err);
		else
			axl__json_null(&w);
		axl__json_obj_end(&w);
	}
	axl__json_arr_end(&w);
	axl__json_obj_end(&w);
	int rc = print_doc(&sb, 1);
	return rc;
}

static void size_text(uint64_t v, char *buf, size_t cap)
{
	if (v >= (1ull << 30) && v % (1ull << 30) == 0)
		snprintf(buf, cap, "%" PRIu64 " GiB", v >> 30);
	else if (v >= (1ull << 20) && v % (1ull << 20) == 0)
		snprintf(buf, cap, "%" PRIu64 " MiB", v >> 20);
	else if (v >= 1024 && v % 1024 == 0)
		snprintf(buf, cap, "%" PRIu64 " KiB", v >> 10);
	else
		snprintf(buf, cap, "%" PRIu64 " bytes", v);
}

static const struct result *pair(const struct bench *b, size_t i, size_t j)
{
	for (size_t k = 0; k < b->nres; k++)
		if (b->res[k].t == T_PAIR && b->res[k].a == (int)i && b->res[k].b == (int)j)
			return &b->res[k];
	return NULL;
}

static void print_text(struct bench *b)
{
	char sz[32];
	size_text(b->size, sz, sizeof sz);
	printf("copies of %s, median of %d after %d warm-up, %s host memory; GB/s = 10^9 bytes/s\n\n", sz, b->iter,
	       WARMUP, b->pageable ? "pageable" : "pinned");
	printf("%-22s %-10s %-17s %-7s %9s %9s  %-22s %5s\n", "DEVICE", "BACKEND", "TEST", "PATH", "GB/S", "LIMIT",
	       "LIMIT FROM", "%");
	for (size_t i = 0; i < b->nres; i++) {
		const struct result *r = &b->res[i];
		if (r->t == T_PAIR)
			continue;
		const struct bdev *x = &b->dev[r->a];
		char gb[32] = "-", th[32] = "-", pc[16] = "-";
		if (r->ok)
			snprintf(gb, sizeof gb, "%.2f", r->med);
		if (r->theo > 0)
			snprintf(th, sizeof th, "%.2f", r->theo);
		if (r->ok && r->theo > 0)
			snprintf(pc, sizeof pc, "%.0f%%", 100 * r->med / r->theo);
		/* why a test failed goes to standard error, in full */
		printf("%-22s %-10s %-17s %-7s %9s %9s  %-22s %5s%s\n", x->id, axl_compute_device_backend(x->cd),
		       test_text[r->t], r->ok ? axl_copy_path_name(r->path) : "-", gb, th,
		       r->theo > 0 ? r->theo_src : "-", pc, r->err[0] ? "  failed" : "");
	}
	if (b->n < 2)
		return;
	printf("\ndevice -> device, GB/s (row: source, column: destination;\n"
	       "p peer to peer, s staged through pinned host memory, d by one device, h by the CPU)\n%-22s", "");
	for (size_t j = 0; j < b->n; j++)
		printf(" %14.14s", b->dev[j].id);
	printf("\n");
	for (size_t i = 0; i < b->n; i++) {
		printf("%-22.22s", b->dev[i].id);
		for (size_t j = 0; j < b->n; j++) {
			const struct result *r = pair(b, i, j);
			char cell[32] = "-";
			if (r && r->ok && r->verified)
				snprintf(cell, sizeof cell, "%.2f %c", r->med, axl_copy_path_name(r->path)[0]);
			else if (r)
				snprintf(cell, sizeof cell, "failed");
			printf(" %14s", cell);
		}
		printf("\n");
	}
	printf("\ndevice -> device, %% of the link's limit\n%-22s", "");
	for (size_t j = 0; j < b->n; j++)
		printf(" %14.14s", b->dev[j].id);
	printf("\n");
	for (size_t i = 0; i < b->n; i++) {
		printf("%-22.22s", b->dev[i].id);
		for (size_t j = 0; j < b->n; j++) {
			const struct result *r = pair(b, i, j);
			char cell[48] = "-";
			if (r && r->ok && r->verified && r->theo > 0)
				snprintf(cell, sizeof cell, "%.0f%% of %.0f", 100 * r->med / r->theo, r->theo);
			printf(" %14s", cell);
		}
		printf("\n");
	}
	for (size_t k = 0; k < b->nres; k++) {
		const struct result *r = &b->res[k];
		if (r->t == T_PAIR && r->ok && r->theo > 0 && (k == 0 || strcmp(b->res[k - 1].theo_src, r->theo_src)))
			printf("  limit %s -> %s: %.2f GB/s (%s)\n", b->dev[r->a].id, b->dev[r->b].id, r->theo,
			       r->theo_src);
	}
	for (size_t k = 0; k < b->nres; k++) {
		const struct result *r = &b->res[k];
		if (r->t == T_PAIR && (!r->ok || !r->verified))
			fprintf(stderr, "axl: bench copy %s -> %s: %s\n", b->dev[r->a].id, b->dev[r->b].id, r->err);
	}
}

/* ---- the command ----------------------------------------------------------------- */
static int bench_copy(struct opts *o, const char *const *ids, size_t nids, const char *backend, uint64_t size,
		      int iter, bool pageable)
{
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	struct bench b;
	memset(&b, 0, sizeof b);
	b.inv = inv;
	b.size = size;
	b.iter = iter;
	b.pageable = pageable;
	b.progress = isatty(STDERR_FILENO) && !o->verbose;
	struct axl_compute_options co = AXL_COMPUTE_OPTIONS_INIT;
	co.backend = backend;
	int rc = 1;
	if (axl_compute_open(&b.c, inv, &co)) {
		fail_last("bench copy");
		goto out;
	}
	/* the devices: those named, else every accelerator a backend drives (and the
	 * runtimes' emulated ones when a backend was named), else the host CPU */
	for (size_t i = 0; i < nids && b.n < MAX_DEVS; i++) {
		const axl_compute_device *cd = NULL;
		if (!strcmp(ids[i], "host")) {
			cd = axl_compute_device_at(b.c, 0);
		} else if (!strncmp(ids[i], "host/", 5)) {
			for (size_t k = 1; k < axl_compute_device_count(b.c); k++) {
				const axl_compute_device *d = axl_compute_device_at(b.c, k);
				if (!axl_compute_device_inventory(d) &&
				    !strcmp(axl_compute_device_backend(d), ids[i] + 5))
					cd = d;
			}
		} else {
			const axl_device *d = axl_inventory_find(inv, ids[i]);
			if (!d) {
				fprintf(stderr, "axl: bench copy: no device '%s' (axl list shows the ids)\n", ids[i]);
				goto out;
			}
			cd = axl_compute_device_of(b.c, d);
		}
		if (!cd) {
			fprintf(stderr, "axl: bench copy: no compute backend drives '%s'%s%s (docs/compute.md)\n",
				ids[i], backend ? " with backend " : "", backend ? backend : "");
			goto out;
		}
		b.dev[b.n++].cd = cd;
	}
	for (size_t k = 1; !nids && k < axl_compute_device_count(b.c) && b.n < MAX_DEVS; k++)
		b.dev[b.n++].cd = axl_compute_device_at(b.c, k);
	if (!b.n)
		b.dev[b.n++].cd = axl_compute_device_at(b.c, 0);
	for (size_t i = 0; i < b.n; i++) {
		b.dev[i].inv = axl_compute_device_inventory(b.dev[i].cd);
		describe(&b.dev[i]);
	}
	if (!(b.samples = calloc((size_t)(iter + WARMUP), sizeof *b.samples))) {
		fprintf(stderr, "axl: bench copy: out of memory\n");
		goto out;
	}
	for (size_t i = 0; i < b.n; i++)
		if (setup(&b, &b.dev[i])) {
			fprintf(stderr, "axl: bench copy: %s: %s\n", b.dev[i].id, axl_error_last());
			goto out;
		}
	b.steps = b.n * 4 + b.n * (b.n - 1);
	for (size_t i = 0; i < b.n; i++)
		for (enum test t = T_H2D; t <= T_LOCAL; t++)
			run_test(&b, t, (int)i, -1);
	for (size_t i = 0; i < b.n; i++)
		for (size_t j = 0; j < b.n; j++)
			if (i != j)
				run_test(&b, T_PAIR, (int)i, (int)j);
	if (b.progress)
		fprintf(stderr, "\r\033[K");
	for (size_t i = 0; i < b.nres; i++)
		theory(&b, &b.res[i]);
	rc = 0;
	for (size_t i = 0; i < b.nres; i++)
		if (!b.res[i].ok || !b.res[i].verified)
			rc = 1;
	if (o->json) {
		if (print_json_doc(&b, o))
			rc = 1;
	} else {
		print_text(&b);
	}
	for (size_t i = 0; i < b.nres; i++)
		if (b.res[i].t != T_PAIR && b.res[i].err[0])
			fprintf(stderr, "axl: bench copy %s %s: %s\n", b.dev[b.res[i].a].id, test_text[b.res[i].t],
				b.res[i].err);
out:
	axl_compute_free(b.c); /* frees every buffer and queue */
	free(b.res);
	free(b.samples);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

/* The options (the tables close the file) */
static struct {
	struct cli_args ids;
	const char *backend;
	int64_t size;
	long iterations;
	int pageable;
} a = {.size = (int64_t)DEFAULT_SIZE, .iterations = DEFAULT_ITER};

static int cmd_bench(struct opts *go, int argc, char **argv)
{
	struct opts o = *go;
	if (!cli_sub_parse(&cli_cmd_bench, argc, argv))
		return EXIT_USAGE;
	if (a.ids.n > MAX_DEVS) {
		fprintf(stderr, "axl bench copy: at most %d devices\n", MAX_DEVS);
		return EXIT_USAGE;
	}
	if (a.backend && !*a.backend) {
		fprintf(stderr, "axl bench copy: --backend needs a name (axl help bench lists them)\n");
		return EXIT_USAGE;
	}
	return bench_copy(&o, (const char *const *)a.ids.v, (size_t)a.ids.n, a.backend, (uint64_t)a.size,
			  (int)a.iterations, a.pageable);
}

static const struct cli_opt copy_options[] = {
	{.type = CLI_OPT_ARGS, .name = "ID", .value = &a.ids,
	 .help = "a device (axl list), \"host\" for the host CPU, or \"host/BACKEND\"\nfor a runtime's device "
	         "emulated on it (with --backend); default:\nevery device a compute backend drives, else the host CPU"},
	{.type = CLI_OPT_STRING, .name = "backend", .value = &a.backend, .value_name = "BACKEND",
	 .help = "cpu, cuda, hip, level-zero, opencl or vulkan (default: each\ndevice's own by priority; also "
	         "AXL_COMPUTE)"},
	{.type = CLI_OPT_SIZE, .name = "size", .value = &a.size,
	 .help = "bytes per copy (default 64MiB; 256MiB, 1GiB, 4096B)", .min = 1, .max = 1099511627776.0},
	{.type = CLI_OPT_COUNT, .name = "iterations", .value = &a.iterations,
	 .help = "timed copies per figure (default 10)", .min = 1, .max = 100000},
	{.type = CLI_OPT_FLAG, .name = "pageable", .value = &a.pageable,
	 .help = "ordinary host memory instead of pinned"},
	{0},
};

static const struct cli_sub subs[] = {
	{"copy", copy_options, "copy bandwidth between host and devices, like nvbandwidth"},
	{NULL, NULL, NULL},
};

const struct cli_command cli_cmd_bench = {
	"bench", cmd_bench, CLI_G_NODE | CLI_G_JSON, NULL, subs, NULL,
	"Measure copies the way nvbandwidth does, on any compute backend (docs/compute.md):\n"
	"host -> device, device -> host, both at once, within each device, and between\n"
	"every ordered pair of devices (peer to peer, or staged through pinned host memory).\n"
	"Each figure is the median of N timed copies after 2 warm-up copies, in GB/s (10^9\n"
	"bytes/s), beside the link's theoretical figure from the inventory (PCIe generation x\n"
	"width, NVLink, XGMI, memory bandwidth / 2) and the percentage reached. The bytes of\n"
	"every test are checked at the end. Exit status 1 when a copy fails or its bytes differ.",
};
