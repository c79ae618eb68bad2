/* SPDX-License-Identifier: MIT */
/* DRM client usage statistics from /proc/<pid>/fdinfo: parser, sweep, utilisation
 * (fdinfo.h, docs/fdinfo.md). */
#define _GNU_SOURCE
#include "fdinfo.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "axl/error.h"
#include "util/fs.h"
#include "util/parse.h"

/* ---- the parser ---------------------------------------------------------------------- */

static bool is_blank(char c)
{
	return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

static bool name_char(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
	       c == '_' || c == '-' || c == '.';
}

static bool name_ok(const char *s, size_t n)
{
	if (n == 0 || n >= AXL__FDI_NAME)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!name_char(s[i]))
			return false;
	return true;
}

static bool span_eq(const char *s, size_t n, const char *lit)
{
	size_t l = strlen(lit);
	return n == l && memcmp(s, lit, l) == 0;
}

/* "<digits>[<blanks><unit>]": the number and the unit's index in units (-1: no unit).
 * Returns false when the number is not a plain decimal that fits, or the unit is not
 * one of units. */
static bool parse_number(const char *v, size_t n, const char *const *units, uint64_t *num,
			 int *unit)
{
	size_t i = 0;
	uint64_t x = 0;
	if (n == 0 || v[0] < '0' || v[0] > '9')
		return false;
	while (i < n && v[i] >= '0' && v[i] <= '9') {
		unsigned d = (unsigned)(v[i] - '0');
		if (x > (UINT64_MAX - d) / 10)
			return false;
		x = x * 10 + d;
		i++;
	}
	size_t j = i;
	while (j < n && is_blank(v[j]))
		j++;
	*unit = -1;
	if (j < n) {
		if (j == i || !units)
			return false; /* "12ns" or a unit where none is allowed */
		int k;
		for (k = 0; units[k]; k++)
			if (span_eq(v + j, n - j, units[k]))
				break;
		if (!units[k])
			return false;
		*unit = k;
	}
	*num = x;
	return true;
}

static bool mul_ok(uint64_t x, uint64_t m, uint64_t *out)
{
	if (m && x > UINT64_MAX / m)
		return false;
	*out = x * m;
	return true;
}

static struct axl__fdi_engine *engine_get(struct axl__fdinfo *fi, const char *name, size_t n)
{
	for (unsigned i = 0; i < fi->n_engines; i++)
		if (span_eq(name, n, fi->engines[i].name))
			return &fi->engines[i];
	if (fi->n_engines >= AXL__FDI_MAX_ENGINES)
		return NULL;
	struct axl__fdi_engine *e = &fi->engines[fi->n_engines++];
	memset(e, 0, sizeof *e);
	memcpy(e->name, name, n);
	e->name[n] = '\0';
	e->capacity = 1;
	return e;
}

static struct axl__fdi_region *region_get(struct axl__fdinfo *fi, const char *name, size_t n)
{
	for (unsigned i = 0; i < fi->n_regions; i++)
		if (span_eq(name, n, fi->regions[i].name))
			return &fi->regions[i];
	if (fi->n_regions >= AXL__FDI_MAX_REGIONS)
		return NULL;
	struct axl__fdi_region *r = &fi->regions[fi->n_regions++];
	memset(r, 0, sizeof *r);
	memcpy(r->name, name, n);
	r->name[n] = '\0';
	return r;
}

static const char *const u_ns[] = {"ns", NULL};
static const char *const u_freq[] = {"Hz", "KHz", "kHz", "MHz", NULL};
static const uint64_t m_freq[] = {1, 1000, 1000, 1000000};
/* the spec names KiB and MiB; drm_print_memory_stats() prints those; GiB is accepted */
static const char *const u_mem[] = {"B", "KiB", "MiB", "GiB", NULL};
static const uint64_t m_mem[] = {1, 1024, 1024 * 1024, 1024 * 1024 * 1024};

static const struct {
	const char *prefix;
	enum axl__fdi_mem kind;
} mem_keys[] = {
	{"drm-total-", AXL__FDI_MEM_TOTAL},         {"drm-shared-", AXL__FDI_MEM_SHARED},
	{"drm-resident-", AXL__FDI_MEM_RESIDENT},   {"drm-purgeable-", AXL__FDI_MEM_PURGEABLE},
	{"drm-active-", AXL__FDI_MEM_ACTIVE},       {"drm-memory-", AXL__FDI_MEM_LEGACY},
};

static bool has_prefix(const char *k, size_t n, const char *p, size_t *plen)
{
	size_t l = strlen(p);
	if (n < l || memcmp(k, p, l) != 0)
		return false;
	*plen = l;
	return true;
}

/* One "key:value" line (key and value already split, value trimmed). Returns false
 * when a drm- key was dropped. */
static bool parse_kv(struct axl__fdinfo *fi, const char *k, size_t kn, const char *v, size_t vn)
{
	size_t pl;
	uint64_t x;
	int unit;

	if (span_eq(k, kn, "drm-driver")) {
		if (vn == 0 || vn >= sizeof fi->driver)
			return false;
		for (size_t i = 0; i < vn; i++)
			if ((unsigned char)v[i] <= ' ' || (unsigned char)v[i] >= 0x7f)
				return false;
		memcpy(fi->driver, v, vn);
		fi->driver[vn] = '\0';
		return true;
	}
	if (span_eq(k, kn, "drm-pdev")) {
		char b[24];
		unsigned d, bus, dev, fn;
		if (vn >= sizeof b)
			return false;
		memcpy(b, v, vn);
		b[vn] = '\0';
		if (axl__parse_bdf(b, &d, &bus, &dev, &fn) != 0)
			return false;
		snprintf(fi->pdev, sizeof fi->pdev, "%04x:%02x:%02x.%u", d, bus, dev, fn);
		return true;
	}
	if (span_eq(k, kn, "drm-client-id")) {
		if (!parse_number(v, vn, NULL, &x, &unit))
			return false;
		fi->client_id = x;
		fi->have_client_id = true;
		return true;
	}
	if (has_prefix(k, kn, "drm-engine-capacity-", &pl)) {
		if (!name_ok(k + pl, kn - pl) || !parse_number(v, vn, NULL, &x, &unit) || x == 0 ||
		    x > 4096)
			return false;
		struct axl__fdi_engine *e = engine_get(fi, k + pl, kn - pl);
		if (!e)
			return false;
		e->capacity = (unsigned)x;
		e->have |= AXL__FDI_ENG_CAPACITY;
		return true;
	}
	if (has_prefix(k, kn, "drm-engine-", &pl)) {
		if (!name_ok(k + pl, kn - pl) || !parse_number(v, vn, u_ns, &x, &unit))
			return false;
		struct axl__fdi_engine *e = engine_get(fi, k + pl, kn - pl);
		if (!e)
			return false;
		e->busy_ns = x;
		e->have |= AXL__FDI_ENG_NS;
		return true;
	}
	if (has_prefix(k, kn, "drm-cycles-", &pl) || has_prefix(k, kn, "drm-total-cycles-", &pl)) {
		bool total = k[4] == 't';
		if (!name_ok(k + pl, kn - pl) || !parse_number(v, vn, NULL, &x, &unit))
			return false;
		struct axl__fdi_engine *e = engine_get(fi, k + pl, kn - pl);
		if (!e)
			return false;
		if (total) {
			e->total_cycles = x;
			e->have |= AXL__FDI_ENG_TOTAL;
		} else {
			e->cycles = x;
			e->have |= AXL__FDI_ENG_CYCLES;
		}
		return true;
	}
	if (has_prefix(k, kn, "drm-maxfreq-", &pl)) {
		if (!name_ok(k + pl, kn - pl) || !parse_number(v, vn, u_freq, &x, &unit) ||
		    !mul_ok(x, unit < 0 ? 1 : m_freq[unit], &x))
			return false;
		struct axl__fdi_engine *e = engine_get(fi, k + pl, kn - pl);
		if (!e)
			return false;
		e->maxfreq_hz = x;
		e->have |= AXL__FDI_ENG_MAXFREQ;
		return true;
	}
	if (has_prefix(k, kn, "drm-curfreq-", &pl))
		return true; /* a gauge of the moment: not kept */
	for (size_t i = 0; i < sizeof mem_keys / sizeof mem_keys[0]; i++) {
		if (!has_prefix(k, kn, mem_keys[i].prefix, &pl))
			continue;
		if (!name_ok(k + pl, kn - pl) || !parse_number(v, vn, u_mem, &x, &unit) ||
		    !mul_ok(x, unit < 0 ? 1 : m_mem[unit], &x))
			return false;
		struct axl__fdi_region *r = region_get(fi, k + pl, kn - pl);
		if (!r)
			return false;
		r->bytes[mem_keys[i].kind] = x;
		r->have |= 1u << mem_keys[i].kind;
		return true;
	}
	return true; /* another drm- key (a newer kernel's): ignored, not an error */
}

int axl__fdinfo_parse(const char *text, size_t len, struct axl__fdinfo *out)
{
	memset(out, 0, sizeof *out);
	size_t i = 0;
	while (i < len) {
		size_t ls = i;
		while (i < len && text[i] != '\n')
			i++;
		size_t le = i;
		if (i < len)
			i++; /* past the newline */
		const char *l = text + ls;
		size_t n = le - ls;
		if (n < 4 || memcmp(l, "drm-", 4) != 0)
			continue; /* pos:, flags:, a driver's own keys (amd-, v3d-, pasid) */
		const char *colon = memchr(l, ':', n);
		if (!colon) {
			out->dropped++;
			continue;
		}
		size_t kn = (size_t)(colon - l);
		bool key_ok = kn > 4 && kn < 96;
		for (size_t j = 0; key_ok && j < kn; j++)
			if ((unsigned char)l[j] <= ' ' || (unsigned char)l[j] >= 0x7f)
				key_ok = false;
		const char *v = colon + 1;
		size_t vn = n - kn - 1;
		while (vn && is_blank(*v)) {
			v++;
			vn--;
		}
		while (vn && is_blank(v[vn - 1]))
			vn--;
		if (!key_ok || !parse_kv(out, l, kn, v, vn))
			out->dropped++;
	}
	return out->driver[0] ? 0 : AXL_ENOENT;
}

const struct axl__fdi_engine *axl__fdinfo_engine(const struct axl__fdinfo *fi, const char *name)
{
	for (unsigned i = 0; i < fi->n_engines; i++)
		if (strcmp(fi->engines[i].name, name) == 0)
			return &fi->engines[i];
	return NULL;
}

const struct axl__fdi_region *axl__fdinfo_region(const struct axl__fdinfo *fi, const char *name)
{
	for (unsigned i = 0; i < fi->n_regions; i++)
		if (strcmp(fi->regions[i].name, name) == 0)
			return &fi->regions[i];
	return NULL;
}

/* ---- processes ----------------------------------------------------------------------- */

static bool is_hex(char c)
{
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F');
}

bool axl__fdinfo_container_id(const char *cg, char *out, size_t cap)
{
	const char *best = NULL;
	for (const char *p = cg; *p;) {
		if (!is_hex(*p)) {
			p++;
			continue;
		}
		const char *s = p;
		while (is_hex(*p))
			p++;
		if (p - s == 64)
			best = s;
	}
	if (!best || cap < 65)
		return false;
	memcpy(out, best, 64);
	out[64] = '\0';
	return true;
}

void axl__proc_comm(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap)
{
	char b[64];
	out[0] = '\0';
	long n = axl__fs_read(fs, dirfd, path, b, sizeof b);
	if (n <= 0 || cap == 0)
		return;
	while (n && (b[n - 1] == '\n'))
		b[--n] = '\0';
	if ((size_t)n >= cap)
		n = (long)cap - 1;
	for (long i = 0; i < n; i++)
		out[i] = ((unsigned char)b[i] < ' ' || b[i] == 0x7f) ? '?' : b[i];
	out[n] = '\0';
}

void axl__proc_cgroup(const struct axl__fs *fs, int dirfd, const char *path, char *out, size_t cap)
{
	char b[4096];
	out[0] = '\0';
	long n = axl__fs_read(fs, dirfd, path, b, sizeof b);
	if (n < 0 && n != -EFBIG)
		return;
	const char *line = NULL;
	for (const char *l = b; *l;) {
		if (strncmp(l, "0::", 3) == 0) {
			line = l + 3;
			break;
		}
		const char *nl = strchr(l, '\n');
		if (!nl)
			break;
		l = nl + 1;
	}
	if (!line) {
		/* "N:controllers:/path" */
		const char *c1 = strchr(b, ':');
		const char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		const char *nl = strchr(b, '\n');
		if (!c2 || (nl && c2 > nl))
			return;
		line = c2 + 1;
	}
	const char *end = strchr(line, '\n');
	if (!end)
		return; /* cut by the cap: not known */
	size_t len = (size_t)(end - line);
	if (len == 0 || len >= cap || !axl__is_text(line, len))
		return;
	memcpy(out, line, len);
	out[len] = '\0';
}

/* ---- the sweep ----------------------------------------------------------------------- */

static bool parse_num_name(const char *s, int *out)
{
	long v = 0;
	if (!*s)
		return false;
	for (; *s; s++) {
		if (*s < '0' || *s > '9' || v > 100000000)
			return false;
		v = v * 10 + (*s - '0');
	}
	*out = (int)v;
	return true;
}

static int cmp_id(const struct axl__fdi_client *a, const struct axl__fdi_client *b)
{
	int c = strcmp(axl__fdi_dev(a), axl__fdi_dev(b));
	if (c)
		return c;
	c = strcmp(a->info.driver, b->info.driver);
	if (c)
		return c;
	if (a->info.have_client_id != b->info.have_client_id)
		return a->info.have_client_id ? -1 : 1;
	if (a->info.have_client_id) {
		if (a->info.client_id != b->info.client_id)
			return a->info.client_id < b->info.client_id ? -1 : 1;
		return 0;
	}
	return a->fd < b->fd ? -1 : a->fd > b->fd;
}

static int cmp_client(const void *pa, const void *pb)
{
	const struct axl__fdi_client *a = pa, *b = pb;
	if (a->pid != b->pid)
		return a->pid < b->pid ? -1 : 1;
	return cmp_id(a, b);
}

static int cmp_proc(const void *pa, const void *pb)
{
	const struct axl__fdi_proc *a = pa, *b = pb;
	return a->pid < b->pid ? -1 : a->pid > b->pid;
}

static uint64_t now_ns(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* "/dev/dri/renderD128" -> 226, "renderD128"; "/dev/accel/accel0" -> 261. 0: neither. */
static int classify(const char *target, char *node, size_t cap)
{
	int major;
	const char *n;
	if (strncmp(target, "/dev/dri/", 9) == 0) {
		major = 226;
		n = target + 9;
	} else if (strncmp(target, "/dev/accel/", 11) == 0) {
		major = 261;
		n = target + 11;
	} else {
		return 0;
	}
	size_t len = 0;
	while (n[len] && n[len] != ' ') /* " (deleted)" */
		len++;
	if (len == 0 || len >= cap || !name_ok(n, len))
		return 0;
	memcpy(node, n, len);
	node[len] = '\0';
	return major;
}

static int grow(void **arr, size_t *cap, size_t need, size_t size)
{
	if (need <= *cap)
		return 0;
	size_t nc = *cap ? *cap * 2 : 16;
	while (nc < need)
		nc *= 2;
	void *p = realloc(*arr, nc * size);
	if (!p)
		return AXL_ENOMEM;
	*arr = p;
	*cap = nc;
	return 0;
}

/* The DRM clients of one process, appended to s->clients. */
static int sweep_proc(const struct axl__fs *fs, int pfd, int pid, char *buf,
		      struct axl__fdi_sweep *s, size_t *ccap)
{
	axl__dir *d = axl__fs_opendir(fs, pfd, "fd");
	if (!d) {
		s->unreadable++;
		return 0;
	}
	size_t first = s->n_clients;
	unsigned looked = 0;
	struct dirent *de;
	int rc = 0;
	while ((de = axl__fs_readdir(d)) != NULL) {
		int fd;
		if (!parse_num_name(de->d_name, &fd))
			continue;
		if (++looked > AXL__FDI_MAX_FDS_PER_PROC)
			break;
		s->fds_seen++;
		char path[32], target[96], node[24];
		snprintf(path, sizeof path, "fd/%d", fd);
		if (axl__fs_readlink(fs, pfd, path, target, sizeof target) <= 0)
			continue;
		int major = classify(target, node, sizeof node);
		if (!major)
			continue;
		s->drm_fds++;
		snprintf(path, sizeof path, "fdinfo/%d", fd);
		long len = axl__fs_read(fs, pfd, path, buf, AXL__FDI_MAX_TEXT);
		if (len < 0) {
			s->unreadable++;
			continue;
		}
		if (s->n_clients >= AXL__FDI_MAX_CLIENTS)
			continue;
		if ((rc = grow((void **)&s->clients, ccap, s->n_clients + 1, sizeof *s->clients)))
			break;
		struct axl__fdi_client *c = &s->clients[s->n_clients];
		if (axl__fdinfo_parse(buf, (size_t)len, &c->info) != 0)
			continue; /* no drm-driver: nothing to account */
		c->pid = pid;
		c->fd = fd;
		c->nfds = 1;
		c->major = major;
		memcpy(c->node, node, sizeof node);
		/* several fds (dup, a shared drm_file) may be one client: count it once */
		bool dup = false;
		for (size_t i = first; c->info.have_client_id && i < s->n_clients; i++) {
			struct axl__fdi_client *o = &s->clients[i];
			if (cmp_id(o, c) == 0) {
				o->nfds++;
				if (fd < o->fd)
					o->fd = fd;
				dup = true;
				break;
			}
		}
		if (!dup)
			s->n_clients++;
	}
	axl__fs_closedir(d);
	return rc;
}

int axl__fdinfo_sweep(const struct axl__fs *fs, struct axl__fdi_sweep *out)
{
	memset(out, 0, sizeof *out);
	axl__dir *d = axl__fs_opendir(fs, AXL__FS_ROOT, "proc");
	if (!d)
		return AXL_ENOENT;
	char *buf = malloc(AXL__FDI_MAX_TEXT);
	if (!buf) {
		axl__fs_closedir(d);
		return AXL_ENOMEM;
	}
	size_t ccap = 0, pcap = 0;
	int rc = 0;
	struct dirent *de;
	while ((de = axl__fs_readdir(d)) != NULL) {
		int pid;
		if (!parse_num_name(de->d_name, &pid) || pid <= 0)
			continue;
		out->pids_seen++;
		char path[32];
		snprintf(path, sizeof path, "proc/%d", pid);
		int pfd = axl__fs_opendir_fd(fs, AXL__FS_ROOT, path);
		if (pfd < 0)
			continue; /* gone */
		size_t first = out->n_clients;
		rc = sweep_proc(fs, pfd, pid, buf, out, &ccap);
		if (rc == 0 && out->n_clients > first) {
			rc = grow((void **)&out->procs, &pcap, out->n_procs + 1, sizeof *out->procs);
			if (rc == 0) {
				struct axl__fdi_proc *p = &out->procs[out->n_procs++];
				memset(p, 0, sizeof *p);
				p->pid = pid;
				axl__proc_comm(fs, pfd, "comm", p->comm, sizeof p->comm);
				axl__proc_cgroup(fs, pfd, "cgroup", p->cgroup, sizeof p->cgroup);
				if (p->cgroup[0])
					axl__fdinfo_container_id(p->cgroup, p->container, sizeof p->container);
			}
		}
		close(pfd);
		if (rc)
			break;
	}
	axl__fs_closedir(d);
	free(buf);
	if (rc) {
		axl__fdinfo_sweep_free(out);
		return rc;
	}
	/* a pid listed twice (a hostile tree) keeps its first entry */
	if (out->n_clients > 1) /* qsort(NULL, 0, ...) is undefined (UBSan) */
		qsort(out->clients, out->n_clients, sizeof *out->clients, cmp_client);
	if (out->n_procs > 1)
		qsort(out->procs, out->n_procs, sizeof *out->procs, cmp_proc);
	size_t ci = 0;
	for (size_t i = 0; i < out->n_procs; i++) {
		struct axl__fdi_proc *p = &out->procs[i];
		while (ci < out->n_clients && out->clients[ci].pid < p->pid)
			ci++;
		p->first = (unsigned)ci;
		while (ci < out->n_clients && out->clients[ci].pid == p->pid)
			ci++;
		p->n = (unsigned)(ci - p->first);
	}
	out->t_ns = now_ns();
	return 0;
}

void axl__fdinfo_sweep_free(struct axl__fdi_sweep *s)
{
	if (!s)
		return;
	free(s->procs);
	free(s->clients);
	memset(s, 0, sizeof *s);
}

const struct axl__fdi_client *axl__fdinfo_find(const struct axl__fdi_sweep *prev,
					       const struct axl__fdi_client *c)
{
	if (!prev || !prev->n_clients)
		return NULL;
	return bsearch(c, prev->clients, prev->n_clients, sizeof *prev->clients, cmp_client);
}

/* ---- utilisation --------------------------------------------------------------------- */

void axl__fdinfo_util(const struct axl__fdi_sweep *prev, const struct axl__fdi_sweep *cur,
		      const struct axl__fdi_client *c, const char *engine,
		      struct axl__fdi_util *out)
{
	out->valid = false;
	out->busy_pct = 0;
	out->capacity = 1;
	const struct axl__fdi_engine *eb = axl__fdinfo_engine(&c->info, engine);
	if (!eb)
		return;
	if (eb->have & AXL__FDI_ENG_CAPACITY)
		out->capacity = eb->capacity;
	const struct axl__fdi_client *p = axl__fdinfo_find(prev, c);
	if (!p)
		return; /* first sight, or the fd now holds another client */
	const struct axl__fdi_engine *ea = axl__fdinfo_engine(&p->info, engine);
	if (!ea)
		return;
	double pct;
	unsigned both = ea->have & eb->have;
	if ((both & (AXL__FDI_ENG_CYCLES | AXL__FDI_ENG_TOTAL)) ==
	    (AXL__FDI_ENG_CYCLES | AXL__FDI_ENG_TOTAL)) {
		if (eb->cycles < ea->cycles || eb->total_cycles <= ea->total_cycles)
			return;
		pct = 100.0 * (double)(eb->cycles - ea->cycles) /
		      (double)(eb->total_cycles - ea->total_cycles);
	} else if (both & AXL__FDI_ENG_NS) {
		if (cur->t_ns <= prev->t_ns || eb->busy_ns < ea->busy_ns)
			return;
		pct = 100.0 * (double)(eb->busy_ns - ea->busy_ns) / (double)(cur->t_ns - prev->t_ns);
	} else {
		return;
	}
	double max = 100.0 * out->capacity;
	out->busy_pct = pct > max ? max : pct;
	out->valid = true;
}

static const struct axl__fdi_proc *find_proc(const struct axl__fdi_sweep *s, int pid)
{
	struct axl__fdi_proc key;
	key.pid = pid;
	if (!s->n_procs)
		return NULL;
	return bsearch(&key, s->procs, s->n_procs, sizeof *s->procs, cmp_proc);
}

void axl__fdinfo_proc_util(const struct axl__fdi_sweep *prev, const struct axl__fdi_sweep *cur,
			   int pid, const char *dev, const char *engine,
			   struct axl__fdi_util *out, bool *partial)
{
	out->valid = false;
	out->busy_pct = 0;
	out->capacity = 1;
	if (partial)
		*partial = false;
	const struct axl__fdi_proc *p = find_proc(cur, pid);
	if (!p)
		return;
	double sum = 0;
	for (unsigned i = p->first; i < p->first + p->n; i++) {
		const struct axl__fdi_client *c = &cur->clients[i];
		if (strcmp(axl__fdi_dev(c), dev) != 0 || !axl__fdinfo_engine(&c->info, engine))
			continue;
		struct axl__fdi_util u;
		axl__fdinfo_util(prev, cur, c, engine, &u);
		if (u.capacity > out->capacity)
			out->capacity = u.capacity;
		if (!u.valid) {
			if (partial)
				*partial = true;
			continue;
		}
		sum += u.busy_pct;
		out->valid = true;
	}
	double max = 100.0 * out->capacity;
	out->busy_pct = sum > max ? max : sum;
}

int axl__fdinfo_proc_mem(const struct axl__fdi_sweep *s, int pid, const char *dev,
			 const char *region, enum axl__fdi_mem kind, uint64_t *bytes)
{
	if ((unsigned)kind >= AXL__FDI_MEM_N)
		return AXL_EINVAL;
	const struct axl__fdi_proc *p = find_proc(s, pid);
	if (!p)
		return AXL_EUNKNOWN;
	bool known = false;
	uint64_t sum = 0;
	for (unsigned i = p->first; i < p->first + p->n; i++) {
		const struct axl__fdi_client *c = &s->clients[i];
		if (strcmp(axl__fdi_dev(c), dev) != 0)
			continue;
		const struct axl__fdi_region *r = axl__fdinfo_region(&c->info, region);
		if (!r || !(r->have & (1u << kind)))
			continue;
		known = true;
		sum = r->bytes[kind] > UINT64_MAX - sum ? UINT64_MAX : sum + r->bytes[kind];
	}
	if (!known)
		return AXL_EUNKNOWN;
	*bytes = sum;
	return 0;
}
