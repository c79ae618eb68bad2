/* SPDX-License-Identifier: MIT */
/* The host around the process, without asking any network service: the system's
 * SMBIOS identity (/sys/class/dmi/id), the container the process runs in (marker files,
 * cgroup paths, the mount table), the orchestrator (Kubernetes' service-account mount,
 * its cgroup slices, KUBERNETES_SERVICE_HOST), the cloud and instance type, and the
 * memory devices' peak bandwidth (the SMBIOS structure table). Every file goes through
 * the sysroot seam, so a capture records them and a replay answers the same. */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "backend.h"
#include "discover.h"
#include "smbios.h"
#include "util/parse.h"

#define SRC "host"
#define DMI_ID "sys/class/dmi/id/"
#define DMI_TABLE "sys/firmware/dmi/tables/DMI"
#define DMI_TABLE_CAP (1u << 20)
#define MOUNTINFO_CAP (4u << 20)

/* A small file, stripped; false when missing, unreadable or empty. Never a warning:
 * these files are absent on most machines, and some are root-only. */
static bool read_small(const struct axl__fs *fs, const char *path, char *buf, size_t cap)
{
	long n = axl__fs_read(fs, AXL__FS_ROOT, path, buf, cap);
	if (n <= 0)
		return false;
	char *s = axl__strip(buf);
	if (s != buf)
		memmove(buf, s, strlen(s) + 1);
	return buf[0] != '\0';
}

/* What firmware writes when it has nothing to say. */
static bool placeholder(const char *s)
{
	static const char *const words[] = {"To be filled by O.E.M.", "Default string", "Not Specified",
					    "System manufacturer", "System Product Name", "None", "N/A",
					    "Not Applicable", "OEM", "O.E.M."};
	for (size_t i = 0; i < sizeof words / sizeof *words; i++)
		if (strcasecmp(s, words[i]) == 0)
			return true;
	return false;
}

static bool rule_matches(const struct axl__cloud_rule *r, const char *v)
{
	size_t n = strlen(v), m = strlen(r->value);
	switch (r->match) {
	case AXL__CLOUD_EXACT: return strcasecmp(v, r->value) == 0;
	case AXL__CLOUD_PREFIX: return n >= m && strncasecmp(v, r->value, m) == 0;
	case AXL__CLOUD_SUFFIX: return n >= m && strcasecmp(v + n - m, r->value) == 0;
	}
	return false;
}

/* "p5.48xlarge", "g6e.xlarge", "u-6tb1.metal": a family, a dot, a size; nothing else. */
static bool looks_like_instance_type(const char *s)
{
	const char *dot = strchr(s, '.');
	if (!dot || dot == s || !dot[1] || strlen(s) > 48)
		return false;
	for (const char *c = s; *c; c++)
		if (!((*c >= 'a' && *c <= 'z') || (*c >= '0' && *c <= '9') || *c == '.' || *c == '-'))
			return false;
	return true;
}

static void scan_dmi_id(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	static const char *const fields[] = {"sys_vendor", "product_name", "board_asset_tag", "chassis_asset_tag",
					     "bios_vendor", "bios_version"};
	enum { NF = sizeof fields / sizeof *fields };
	char val[NF][256];
	for (size_t i = 0; i < NF; i++) {
		char path[96];
		snprintf(path, sizeof path, DMI_ID "%s", fields[i]);
		if (!read_small(scan->fs, path, val[i], sizeof val[i]) || placeholder(val[i]))
			val[i][0] = '\0';
		/* No sys_vendor: on a machine without DMI (most VMs on ARM, some clouds'
		 * microVMs) the folder is absent, and one look saves five failed opens. */
		if (i == 0 && !val[0][0] && !axl__fs_isdir(scan->fs, AXL__FS_ROOT, "sys/class/dmi/id"))
			return;
	}
	if (val[0][0])
		axl__host_set_str(inv, AXL_HOST_SYSTEM_VENDOR, AXL_SOURCE_SYSFS, val[0]);
	if (val[1][0])
		axl__host_set_str(inv, AXL_HOST_SYSTEM_PRODUCT, AXL_SOURCE_SYSFS, val[1]);
	for (size_t r = 0; r < axl__cloud_rule_count; r++) {
		const struct axl__cloud_rule *rule = &axl__cloud_rules[r];
		for (size_t i = 0; i < NF; i++) {
			if (strcmp(fields[i], rule->field) != 0 || !val[i][0] || !rule_matches(rule, val[i]))
				continue;
			axl__host_set_str(inv, AXL_HOST_CLOUD_PROVIDER, AXL_SOURCE_DERIVED, rule->provider);
			if (rule->product_is_type && looks_like_instance_type(val[1]))
				axl__host_set_str(inv, AXL_HOST_CLOUD_INSTANCE_TYPE, AXL_SOURCE_SYSFS, val[1]);
			return;
		}
	}
}

/* What a cgroup path or a mount says about the engine that made the container. */
enum engine { E_NONE, E_DOCKER, E_PODMAN, E_CONTAINERD, E_CRIO, E_STORAGE /* podman or CRI-O */ };
static const char *const engine_name[] = {NULL, "docker", "podman", "containerd", "cri-o", NULL};

static enum engine cgroup_engine(const char *path, bool *k8s)
{
	if (strstr(path, "kubepods"))
		*k8s = true;
	if (strstr(path, "/docker/") || strstr(path, "docker-"))
		return E_DOCKER;
	if (strstr(path, "crio-") || strstr(path, "/crio/"))
		return E_CRIO;
	if (strstr(path, "cri-containerd-") || strstr(path, "/containerd/"))
		return E_CONTAINERD;
	if (strstr(path, "libpod-") || strstr(path, "/libpod_parent"))
		return E_PODMAN;
	return E_NONE;
}

static enum engine scan_cgroups(struct axl__scan *scan, bool *k8s)
{
	enum engine e = E_NONE;
	/* process 1's, then this process's (read once by the host stage) */
	for (size_t f = 0; f < 2 && e == E_NONE; f++) {
		char buf[8192];
		long n;
		if (f == 0) {
			n = axl__fs_read(scan->fs, AXL__FS_ROOT, "proc/1/cgroup", buf, sizeof buf);
			if (n == -EFBIG)
				n = (long)strlen(buf);
		} else {
			n = scan->cgroup ? snprintf(buf, sizeof buf, "%s", scan->cgroup) : -ENOENT;
		}
		if (n <= 0)
			continue;
		char *save = NULL;
		for (char *line = strtok_r(buf, "\n", &save); line && e == E_NONE; line = strtok_r(NULL, "\n", &save)) {
			char *c = strchr(line, ':');
			c = c ? strchr(c + 1, ':') : NULL;
			if (c)
				e = cgroup_engine(c + 1, k8s);
		}
	}
	return e;
}

/* The mounts that a container engine makes for the container itself (its root and the
 * files it writes for it): their root within the source and their options name the
 * engine's storage. A host running containers has their mounts too, but as mount points
 * elsewhere: only these mount points count. */
static enum engine mount_engine(const char *root, const char *opts, bool *k8s)
{
	char both[2048];
	snprintf(both, sizeof both, "%s %s", root, opts);
	if (strstr(both, "/var/lib/kubelet/pods/"))
		*k8s = true;
	if (strstr(both, "/var/lib/docker/") || strstr(both, "/docker/containers/"))
		return E_DOCKER;
	if (strstr(both, "/var/lib/containerd/") || strstr(both, "io.containerd."))
		return E_CONTAINERD;
	if (strstr(both, "/containers/storage/") || strstr(both, "overlay-containers/"))
		return E_STORAGE;
	return E_NONE;
}

static enum engine scan_mountinfo(struct axl__scan *scan, bool *k8s)
{
	char *buf = NULL;
	size_t len = 0;
	if (axl__fs_read_alloc(scan->fs, AXL__FS_ROOT, "proc/self/mountinfo", MOUNTINFO_CAP, &buf, &len) < 0)
		return E_NONE;
	static const char *const points[] = {"/", "/etc/hostname", "/etc/hosts", "/etc/resolv.conf",
					     "/dev/termination-log"};
	enum engine e = E_NONE;
	char *save = NULL;
	for (char *line = strtok_r(buf, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		/* id parent major:minor root mountpoint options [optional...] - type source superopts */
		char *f[6] = {0};
		char *p = line;
		for (int i = 0; i < 6 && p; i++) {
			f[i] = p;
			p = strchr(p, ' ');
			if (p)
				*p++ = '\0';
		}
		if (!f[4] || !p)
			continue;
		bool ours = false;
		for (size_t i = 0; i < sizeof points / sizeof *points; i++)
			ours |= strcmp(f[4], points[i]) == 0;
		if (!ours)
			continue;
		const char *sep = strstr(p, " - ");
		const char *opts = sep ? sep + 3 : "";
		enum engine m = mount_engine(f[3], opts, k8s);
		if (m != E_NONE && (e == E_NONE || e == E_STORAGE))
			e = m;
	}
	free(buf);
	return e;
}

static void scan_container(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	bool k8s = false;
	axl_source k8s_src = AXL_SOURCE_NONE;
	const char *container = NULL;
	axl_source csrc = AXL_SOURCE_DERIVED;

	/* podman writes engine="podman-<version>" into /run/.containerenv; CRI-O makes the
	 * file empty */
	char env[4096];
	long n = axl__fs_read(scan->fs, AXL__FS_ROOT, "run/.containerenv", env, sizeof env);
	bool containerenv = n >= 0 || n == -EFBIG;
	if (n > 0 && strstr(env, "engine=\"podman"))
		container = "podman";
	else if (axl__fs_exists(scan->fs, AXL__FS_ROOT, ".dockerenv"))
		container = "docker";

	enum engine cg = scan_cgroups(scan, &k8s);
	if (k8s)
		k8s_src = AXL_SOURCE_PROCFS;
	enum engine mi = scan_mountinfo(scan, &k8s);
	if (k8s && !k8s_src)
		k8s_src = AXL_SOURCE_PROCFS;
	if (axl__fs_isdir(scan->fs, AXL__FS_ROOT, "var/run/secrets/kubernetes.io/serviceaccount") ||
	    axl__fs_isdir(scan->fs, AXL__FS_ROOT, "run/secrets/kubernetes.io/serviceaccount")) {
		k8s = true;
		k8s_src = AXL_SOURCE_DERIVED;
	}
	if (scan->ctx->k8s_service_host) {
		k8s = true;
		k8s_src = AXL_SOURCE_ENV;
	}
	if (!container) {
		enum engine e = cg != E_NONE ? cg : mi;
		csrc = AXL_SOURCE_PROCFS;
		if (e == E_STORAGE || (e == E_NONE && containerenv))
			container = k8s ? "cri-o" : "podman";
		else
			container = engine_name[e];
		if (!container && containerenv)
			container = "podman";
	}
	if (container)
		axl__host_set_str(inv, AXL_HOST_RUNTIME_CONTAINER, csrc, container);
	if (k8s)
		axl__host_set_str(inv, AXL_HOST_RUNTIME_ORCHESTRATOR, k8s_src, "kubernetes");
}

static void scan_memory_devices(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	char *buf = NULL;
	size_t len = 0;
	int rc = axl__fs_read_alloc(scan->fs, AXL__FS_ROOT, DMI_TABLE, DMI_TABLE_CAP, &buf, &len);
	if (rc < 0) {
		/* root-only: not readable is the normal case, not a problem */
		if (rc != -ENOENT && rc != -EACCES && rc != -EPERM)
			axl__warn(inv, SRC, "/" DMI_TABLE, "%s", strerror(-rc));
		free(buf);
		return;
	}
	struct axl__smbios_memory m;
	rc = axl__smbios_memory((const uint8_t *)buf, len, &m);
	free(buf);
	if (rc < 0) {
		axl__warn(inv, SRC, "/" DMI_TABLE,
			  "a structure runs past the end of the table: memory bandwidth unknown");
		return;
	}
	if (m.populated == 0)
		return;
	if (m.counted < m.populated) {
		axl__warn(inv, SRC, "/" DMI_TABLE,
			  "%d of %d memory devices give no speed or data width: memory bandwidth unknown",
			  m.populated - m.counted, m.populated);
		return;
	}
	axl__host_set_int(inv, AXL_HOST_MEMORY_BANDWIDTH, AXL_SOURCE_SYSFS, m.bytes_per_s);
}

void axl__runtime_scan(struct axl__scan *scan)
{
	scan_dmi_id(scan);
	scan_container(scan);
	scan_memory_devices(scan);
}
