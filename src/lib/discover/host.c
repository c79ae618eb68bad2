/* SPDX-License-Identifier: MIT */
/* The host: name, kernel, CPU (model, sockets, cores, threads, ISA), memory and its
 * cgroup limit, NUMA nodes. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "backend.h"
#include "discover.h"
#include "sysfs.h"
#include "util/parse.h"

#define SRC "host"
#define CPUINFO_CAP (8u << 20)

/* ISA features that matter for inference, as /proc/cpuinfo names them. */
static const struct {
	const char *flag;
	const char *name;
} isa_flags[] = {
	{"sse4_2", "sse4_2"},       {"avx", "avx"},           {"avx2", "avx2"},
	{"fma", "fma"},             {"f16c", "f16c"},         {"avx512f", "avx512f"},
	{"avx512bw", "avx512bw"},   {"avx512vl", "avx512vl"}, {"avx512_vnni", "avx512_vnni"},
	{"avx512_bf16", "avx512_bf16"}, {"avx512_fp16", "avx512_fp16"}, {"avx_vnni", "avx_vnni"},
	{"amx_tile", "amx_tile"},   {"amx_bf16", "amx_bf16"}, {"amx_int8", "amx_int8"},
	{"amx_fp16", "amx_fp16"},
	/* aarch64 "Features" (asimd is NEON); names as /proc/cpuinfo spells them */
	{"asimd", "asimd"},         {"asimdhp", "asimdhp"},   {"asimddp", "asimddp"},
	{"sve", "sve"},             {"sve2", "sve2"},         {"i8mm", "i8mm"},
	{"bf16", "bf16"},           {"sme", "sme"},
	/* POWER "cpu" line features are not listed per CPU; altivec/vsx come from AT_HWCAP */
};

static bool has_word(const char *list, const char *word)
{
	size_t wl = strlen(word);
	const char *p = list;
	while ((p = strstr(p, word)) != NULL) {
		bool start = p == list || p[-1] == ' ' || p[-1] == '\t';
		bool end = p[wl] == '\0' || p[wl] == ' ' || p[wl] == '\n' || p[wl] == '\t';
		if (start && end)
			return true;
		p += wl;
	}
	return false;
}

static void add_isa(struct axl_inventory *inv, const char *name)
{
	for (size_t i = 0; i < inv->host.isa.n; i++)
		if (strcmp(inv->host.isa.v[i], name) == 0)
			return;
	const char **slot = AXL__VEC_PUSH(inv->host.isa);
	if (slot)
		*slot = name; /* static strings */
}

/* Walk /proc/cpuinfo once: threads, sockets, cores, model, vendor, flags. */
static void scan_cpuinfo(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	/* grown as it is read: a small node's few KiB cost no 8 MiB mapping */
	char *buf = NULL;
	size_t len = 0;
	int rc = axl__fs_read_alloc(scan->fs, AXL__FS_ROOT, "proc/cpuinfo", CPUINFO_CAP - 1, &buf, &len);
	long n = rc < 0 ? rc : (long)len;
	if (n <= 0) {
		if (n != -ENOENT)
			axl__warn(inv, SRC, "/proc/cpuinfo", "%s", n == 0 ? "empty file" : strerror((int)-n));
		free(buf);
		return;
	}
	int64_t threads = 0;
	/* (package, core) pairs seen; bounded to keep this linear-ish and safe */
	enum { MAXPAIRS = 8192 };
	uint64_t *pairs = malloc(sizeof(uint64_t) * MAXPAIRS);
	size_t npairs = 0;
	if (!pairs) {
		free(buf);
		return;
	}
	uint64_t packages[256];
	size_t npackages = 0;
	long cur_pkg = -1, cur_core = -1;
	bool have_topology = false;
	bool x86 = false, arm = false, power = false;
	const char *flags_line = NULL;
	size_t flags_len = 0;

	char *save = NULL;
	char *line = strtok_r(buf, "\n", &save);
	for (;; line = strtok_r(NULL, "\n", &save)) {
		bool end = line == NULL;
		if (end || strncmp(line, "processor", 9) == 0) {
			/* close the previous block */
			if (cur_pkg >= 0) {
				bool seen = false;
				for (size_t i = 0; i < npackages; i++)
					if (packages[i] == (uint64_t)cur_pkg)
						seen = true;
				if (!seen && npackages < 256)
					packages[npackages++] = (uint64_t)cur_pkg;
				if (cur_core >= 0) {
					uint64_t key = ((uint64_t)cur_pkg << 32) | (uint64_t)cur_core;
					bool pseen = false;
					for (size_t i = 0; i < npairs && !pseen; i++)
						pseen = pairs[i] == key;
					if (!pseen && npairs < MAXPAIRS)
						pairs[npairs++] = key;
				}
			}
			cur_pkg = cur_core = -1;
			if (end)
				break;
			/* x86 and arm: "processor : N"; s390 differs, ignored */
			if (strchr(line, ':'))
				threads++;
			continue;
		}
		char *colon = strchr(line, ':');
		if (!colon)
			continue;
		char *k = line, *v = colon + 1;
		*colon = '\0';
		k = axl__strip(k);
		v = axl__strip(v);
		if (strcmp(k, "physical id") == 0) {
			int64_t x;
			if (axl__parse_i64(v, &x) == 0 && x >= 0 && x < (1 << 20)) {
				cur_pkg = (long)x;
				have_topology = true;
			}
		} else if (strcmp(k, "core id") == 0) {
			int64_t x;
			if (axl__parse_i64(v, &x) == 0 && x >= 0 && x < (1 << 20))
				cur_core = (long)x;
		} else if (strcmp(k, "model name") == 0 && !inv->host.attr[AXL_HOST_CPU_MODEL].src) {
			axl__host_set_str(inv, AXL_HOST_CPU_MODEL, AXL_SOURCE_PROCFS, v);
		} else if (strcmp(k, "vendor_id") == 0 && !inv->host.attr[AXL_HOST_CPU_VENDOR].src) {
			x86 = true;
			const char *name = strcmp(v, "GenuineIntel") == 0   ? "Intel" :
					   strcmp(v, "AuthenticAMD") == 0   ? "AMD" :
					   strcmp(v, "HygonGenuine") == 0   ? "Hygon" :
					   strcmp(v, "CentaurHauls") == 0   ? "Centaur" :
					   strcmp(v, "  Shanghai  ") == 0   ? "Zhaoxin" : v;
			axl__host_set_str(inv, AXL_HOST_CPU_VENDOR, AXL_SOURCE_PROCFS, name);
		} else if ((strcmp(k, "flags") == 0 || strcmp(k, "Features") == 0) && !flags_line) {
			flags_line = v;
			flags_len = strlen(v);
			if (k[0] == 'F')
				arm = true;
		} else if (strcmp(k, "CPU implementer") == 0) {
			arm = true;
			if (!inv->host.attr[AXL_HOST_CPU_VENDOR].src) {
				int64_t impl = -1;
				uint64_t u;
				if (axl__parse_u64(v, 0, &u) == 0)
					impl = (int64_t)u;
				const char *name = impl == 0x41 ? "ARM" : impl == 0x4e ? "NVIDIA" :
						   impl == 0x48 ? "HiSilicon" : impl == 0x61 ? "Apple" :
						   impl == 0xc0 ? "Ampere" : impl == 0x51 ? "Qualcomm" : NULL;
				if (name)
					axl__host_set_str(inv, AXL_HOST_CPU_VENDOR, AXL_SOURCE_PROCFS, name);
			}
		} else if (strcmp(k, "CPU part") == 0 && !inv->host.attr[AXL_HOST_CPU_MODEL].src) {
			/* arm64 has no "model name": name the core from its part number */
			uint64_t part;
			static const struct {
				unsigned part;
				const char *name;
			} parts[] = {
				{0xd0c, "ARM Neoverse N1"}, {0xd40, "ARM Neoverse V1"}, {0xd49, "ARM Neoverse N2"},
				{0xd4f, "ARM Neoverse V2"}, {0xd84, "ARM Neoverse V3"}, {0xd8e, "ARM Neoverse N3"},
				{0xd08, "ARM Cortex-A72"},  {0xd0b, "ARM Cortex-A76"},  {0xd41, "ARM Cortex-A78"},
			};
			if (axl__parse_u64(v, 0, &part) == 0)
				for (size_t i = 0; i < sizeof parts / sizeof *parts; i++)
					if (parts[i].part == part)
						axl__host_set_str(inv, AXL_HOST_CPU_MODEL, AXL_SOURCE_DERIVED,
								  parts[i].name);
		} else if (strcmp(k, "cpu") == 0 && strncmp(v, "POWER", 5) == 0) {
			power = true;
			if (!inv->host.attr[AXL_HOST_CPU_MODEL].src)
				axl__host_set_str(inv, AXL_HOST_CPU_MODEL, AXL_SOURCE_PROCFS, v);
			if (!inv->host.attr[AXL_HOST_CPU_VENDOR].src)
				axl__host_set_str(inv, AXL_HOST_CPU_VENDOR, AXL_SOURCE_PROCFS, "IBM");
		}
	}
	if (flags_line) {
		char *copy = malloc(flags_len + 1);
		if (copy) {
			memcpy(copy, flags_line, flags_len + 1);
			for (size_t i = 0; i < sizeof isa_flags / sizeof *isa_flags; i++)
				if (has_word(copy, isa_flags[i].flag))
					add_isa(inv, isa_flags[i].name);
			if (!arm && has_word(copy, "lm"))
				x86 = true;
			free(copy);
		}
	}
	if (threads > 0)
		axl__host_set_int(inv, AXL_HOST_CPU_THREADS, AXL_SOURCE_PROCFS, threads);
	if (have_topology) {
		axl__host_set_int(inv, AXL_HOST_CPU_SOCKETS, AXL_SOURCE_PROCFS, (int64_t)npackages);
		if (npairs > 0 && npairs < MAXPAIRS)
			axl__host_set_int(inv, AXL_HOST_CPU_CORES, AXL_SOURCE_PROCFS, (int64_t)npairs);
	}
	free(pairs);
	const char *arch = x86 ? "x86_64" : arm ? "aarch64" : power ? "ppc64le" : NULL;
	if (arch)
		axl__host_set_str(inv, AXL_HOST_CPU_ARCH, AXL_SOURCE_DERIVED, arch);
	free(buf);
}

/* Sockets and cores from sysfs topology when cpuinfo has none (arm64, POWER). */
static void scan_cpu_topology(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	if (inv->host.attr[AXL_HOST_CPU_SOCKETS].src && inv->host.attr[AXL_HOST_CPU_CORES].src)
		return;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "sys/devices/system/cpu");
	if (!d)
		return;
	uint64_t packages[256];
	size_t npk = 0;
	uint64_t *pairs = malloc(sizeof(uint64_t) * 8192);
	size_t npairs = 0;
	int64_t threads = 0;
	struct dirent *e;
	while (pairs && (e = axl__fs_readdir(d)) != NULL) {
		if (strncmp(e->d_name, "cpu", 3) != 0 || e->d_name[3] < '0' || e->d_name[3] > '9')
			continue;
		char path[512];
		uint64_t pkg, core;
		snprintf(path, sizeof path, "/sys/devices/system/cpu/%s/topology", e->d_name);
		int fd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, path);
		if (fd < 0)
			continue;
		threads++;
		bool ok = axl__read_u64(inv, SRC, fd, path, "physical_package_id", 10, &pkg, 0);
		ok = axl__read_u64(inv, SRC, fd, path, "core_id", 10, &core, 0) && ok;
		close(fd);
		if (!ok)
			continue;
		bool seen = false;
		for (size_t i = 0; i < npk; i++)
			seen |= packages[i] == pkg;
		if (!seen && npk < 256)
			packages[npk++] = pkg;
		uint64_t key = (pkg << 32) ^ core;
		seen = false;
		for (size_t i = 0; i < npairs && !seen; i++)
			seen = pairs[i] == key;
		if (!seen && npairs < 8192)
			pairs[npairs++] = key;
	}
	axl__fs_closedir(d);
	free(pairs);
	if (npk && !inv->host.attr[AXL_HOST_CPU_SOCKETS].src)
		axl__host_set_int(inv, AXL_HOST_CPU_SOCKETS, AXL_SOURCE_SYSFS, (int64_t)npk);
	if (npairs && !inv->host.attr[AXL_HOST_CPU_CORES].src)
		axl__host_set_int(inv, AXL_HOST_CPU_CORES, AXL_SOURCE_SYSFS, (int64_t)npairs);
	if (threads && !inv->host.attr[AXL_HOST_CPU_THREADS].src)
		axl__host_set_int(inv, AXL_HOST_CPU_THREADS, AXL_SOURCE_SYSFS, threads);
}

static void scan_memory(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	char buf[16384], v[64];
	long n = axl__fs_read(scan->fs, AXL__FS_ROOT, "proc/meminfo", buf, sizeof buf);
	if (n == -EFBIG)
		n = (long)strlen(buf); /* MemTotal is on the first line */
	if (n > 0 && axl__kv_find(buf, "MemTotal", ':', v, sizeof v) == 0) {
		uint64_t bytes;
		if (axl__parse_kb_size(v, &bytes) == 0 && bytes > 0 && bytes < (1ull << 62))
			axl__host_set_int(inv, AXL_HOST_MEMORY_TOTAL, AXL_SOURCE_PROCFS, (int64_t)bytes);
		else
			axl__warn(inv, SRC, "/proc/meminfo", "MemTotal is not a size: '%.32s'", v);
	} else if (n != -ENOENT) {
		axl__warn(inv, SRC, "/proc/meminfo", "no MemTotal");
	}

	/* the cgroup limit: v2 "0::/path" -> memory.max of it and its ancestors;
	 * v1 "N:memory:/path" -> memory.limit_in_bytes */
	if (!scan->cgroup)
		return;
	char cg[4096];
	snprintf(cg, sizeof cg, "%s", scan->cgroup);
	uint64_t limit = UINT64_MAX;
	axl_source src = AXL_SOURCE_NONE;
	char *save = NULL;
	for (char *line = strtok_r(cg, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *c1 = strchr(line, ':');
		char *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
		if (!c2)
			continue;
		*c2 = '\0';
		const char *ctrl = c1 + 1;
		char *path = c2 + 1;
		bool v2 = *ctrl == '\0' && strncmp(line, "0:", 2) == 0;
		bool v1 = strstr(ctrl, "memory") != NULL;
		if (!v2 && !v1)
			continue;
		if (path[0] != '/' || strstr(path, "..") || strlen(path) > 1024)
			continue;
		char dir[1200];
		for (;;) {
			char file[1400], val[64];
			if (v2)
				snprintf(dir, sizeof dir, "sys/fs/cgroup%s", strcmp(path, "/") ? path : "");
			else
				snprintf(dir, sizeof dir, "sys/fs/cgroup/memory%s", strcmp(path, "/") ? path : "");
			snprintf(file, sizeof file, "%s/%s", dir, v2 ? "memory.max" : "memory.limit_in_bytes");
			long m = axl__fs_read(scan->fs, AXL__FS_ROOT, file, val, sizeof val);
			if (m > 0) {
				char *s = axl__strip(val);
				uint64_t x;
				if (strcmp(s, "max") != 0 && axl__parse_u64(s, 10, &x) == 0 &&
				    x < (1ull << 62) && x < limit) {
					limit = x;
					src = AXL_SOURCE_SYSFS;
				}
			}
			/* up one level */
			char *slash = strrchr(path, '/');
			if (!slash || slash == path) {
				if (strcmp(path, "/") == 0)
					break;
				path[1] = '\0';
				continue;
			}
			*slash = '\0';
		}
	}
	if (src != AXL_SOURCE_NONE)
		axl__host_set_int(inv, AXL_HOST_MEMORY_LIMIT, src, (int64_t)limit);
}

static int cmp_numa(const void *a, const void *b)
{
	const struct axl_numa_node *x = a, *y = b;
	return (x->id > y->id) - (x->id < y->id);
}

static void scan_numa(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	axl__dir *d = axl__fs_opendir(scan->fs, AXL__FS_ROOT, "sys/devices/system/node");
	if (!d)
		return;
	struct dirent *e;
	while ((e = axl__fs_readdir(d)) != NULL) {
		if (strncmp(e->d_name, "node", 4) != 0)
			continue;
		int64_t id;
		if (axl__parse_i64(e->d_name + 4, &id) != 0 || id < 0 || id >= 65536)
			continue;
		if (inv->host.numa.n >= 4096)
			break;
		struct axl_numa_node *nn = AXL__VEC_PUSH(inv->host.numa);
		if (!nn)
			break;
		nn->id = (int)id;
		nn->memory_bytes = -1;
		nn->cpulist = "";
	}
	axl__fs_closedir(d);
	if (inv->host.numa.n > 1)
		qsort(inv->host.numa.v, inv->host.numa.n, sizeof *inv->host.numa.v, cmp_numa);
	size_t count = inv->host.numa.n;
	for (size_t i = 0; i < count; i++) {
		struct axl_numa_node *nn = &inv->host.numa.v[i];
		char path[128];
		snprintf(path, sizeof path, "/sys/devices/system/node/node%d", nn->id);
		int fd = axl__fs_opendir_fd(scan->fs, AXL__FS_ROOT, path);
		if (fd < 0) {
			axl__warn(inv, SRC, path, "unreadable NUMA node");
			continue;
		}
		char buf[AXL__ATTR_CAP];
		unsigned ncpu;
		if (axl__read_attr(inv, SRC, fd, path, "cpulist", buf, sizeof buf, AXL__RD_EMPTY_OK)) {
			if (axl__parse_cpulist(buf, 1u << 20, &ncpu) == 0)
				nn->cpulist = axl__arena_strdup(&inv->arena, buf);
			else
				axl__warn(inv, SRC, path, "cpulist is not a CPU list: '%.40s'", buf);
		}
		char mi[8192], v[64], key[64];
		long n = axl__fs_read(scan->fs, fd, "meminfo", mi, sizeof mi);
		if (n == -EFBIG)
			n = (long)strlen(mi);
		if (n > 0) {
			snprintf(key, sizeof key, "Node %d MemTotal", nn->id);
			uint64_t bytes;
			if (axl__kv_find(mi, key, ':', v, sizeof v) == 0 && axl__parse_kb_size(v, &bytes) == 0 &&
			    bytes < (1ull << 62))
				nn->memory_bytes = (int64_t)bytes;
			else {
				char p2[160];
				snprintf(p2, sizeof p2, "%s/meminfo", path);
				axl__warn(inv, SRC, p2, "no usable MemTotal");
			}
		}
		if (axl__read_attr(inv, SRC, fd, path, "distance", buf, sizeof buf, 0)) {
			int *dist = axl__arena_alloc(&inv->arena, sizeof(int) * count);
			size_t k = 0;
			bool ok = dist != NULL;
			char *save = NULL;
			for (char *tok = strtok_r(buf, " \t", &save); tok && ok; tok = strtok_r(NULL, " \t", &save)) {
				int64_t x;
				if (k >= count || axl__parse_i64(tok, &x) != 0 || x < 0 || x > 255)
					ok = false;
				else
					dist[k++] = (int)x;
			}
			if (ok && k == count) {
				nn->distances = dist;
				nn->distance_count = k;
			} else {
				char p2[160];
				snprintf(p2, sizeof p2, "%s/distance", path);
				axl__warn(inv, SRC, p2, "does not hold one distance per node");
			}
		}
		close(fd);
	}
}

int axl__host_scan(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	char buf[256];
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, NULL, "/proc/sys/kernel/hostname", buf, sizeof buf, 0))
		axl__host_set_str(inv, AXL_HOST_HOSTNAME, AXL_SOURCE_PROCFS, buf);
	if (axl__read_attr(inv, SRC, AXL__FS_ROOT, NULL, "/proc/sys/kernel/osrelease", buf, sizeof buf, 0))
		axl__host_set_str(inv, AXL_HOST_KERNEL, AXL_SOURCE_PROCFS, buf);
	/* read once: the memory limit and the container engine both look at it */
	char cg[4096];
	long n = axl__fs_read(scan->fs, AXL__FS_ROOT, "proc/self/cgroup", cg, sizeof cg);
	scan->cgroup = n > 0 || n == -EFBIG ? cg : NULL;
	scan_cpuinfo(scan);
	scan_cpu_topology(scan);
	scan_memory(scan);
	scan_numa(scan);
	axl__runtime_scan(scan);
	scan->cgroup = NULL;
	return 0;
}
