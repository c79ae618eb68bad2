/* SPDX-License-Identifier: MIT */
/*
 * axl cdi generate / axl cdi list: Container Device Interface specs for this node's
 * accelerators (docs/cdi.md). One spec per kind (the vendor's resource name, from
 * axl_device_runtime), a device per accelerator named by index and by UUID, one per
 * partition that exists now named "INDEX:N", and an "all" device.
 * The spec is built as a small value tree and written as JSON (util's writer) or YAML.
 * Uses libaxl's public API; major/minor numbers come from stat() of the node.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <unistd.h>

#include "axl.h"
#include "cli.h"
#include "output.h"
#include "../util/file.h"
#include "../util/rootpath.h"

/* The oldest CDI version that has what axl emits: device names that start with a
 * digit and deviceNodes[].hostPath both need 0.5.0. Emitting the oldest sufficient
 * version (as the CNCF library's MinimumRequiredVersion does) keeps the specs loadable
 * by runtimes whose CDI library predates the newer versions. */
#define CDI_VERSION "0.5.0"

#include "cdi_val.h"

/* ---- kinds, names, edits ---------------------------------------------------------- */

/* The vendor of axl's CDI kinds (axl_device_cdi_kind). Never a vendor's own domain:
 * NVIDIA Container Toolkit (nvidia-ctk >= 1.18 writes /var/run/cdi/nvidia.yaml by itself),
 * AMD's container toolkit and others write their own specs into the same folders under
 * their resource names (nvidia.com/gpu=0, =all, =GPU-<uuid>), and CDI drops a name
 * defined twice in one folder, so that both become unresolvable. NVIDIA's own device
 * plugin steps aside the same way (k8s.device-plugin.nvidia.com). */
#define CDI_VENDOR AXL_CDI_VENDOR
#define MAX_KINDS 32

/* The CDI kind of a device (axl_device_cdi_kind: "axl.dev/nvidia-gpu" from the vendor's
 * "nvidia.com/gpu", which axl_device_runtime gives from each vendor's folder) and its
 * runtime files (NULL: a generic kind). legacy gets the kind axl wrote before (the
 * vendor's own, "axl/<family>"), whose files it removes. */
static const struct axl_runtime *vendor_of(const axl_device *d, char *kind, size_t cap, char *legacy, size_t lcap)
{
	const struct axl_runtime *rt = axl_device_runtime(d);
	if (axl_device_cdi_kind(d, kind, cap) < 0)
		snprintf(kind, cap, CDI_VENDOR "/unknown");
	if (legacy && rt && rt->kind)
		snprintf(legacy, lcap, "%s", rt->kind);
	else if (legacy)
		snprintf(legacy, lcap, "axl/%s", axl_family_name(axl_device_family(d)));
	return rt && rt->kind ? rt : NULL;
}

/* A CDI device name: letters, digits, '_', '-', '.', ':', starting and ending with a
 * letter or digit. Other characters become '-'; false when nothing usable is left. */
static bool cdi_name(const char *in, char *out, size_t cap)
{
	size_t n = 0;
	for (const char *p = in; *p && n + 1 < cap; p++) {
		char c = *p;
		bool alnum = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
		out[n++] = alnum || c == '_' || c == '-' || c == '.' || c == ':' ? c : '-';
	}
	out[n] = '\0';
	char *s = out;
	while (*s && !((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || (*s >= '0' && *s <= '9')))
		s++;
	memmove(out, s, strlen(s) + 1);
	n = strlen(out);
	while (n && !((out[n - 1] >= 'a' && out[n - 1] <= 'z') || (out[n - 1] >= 'A' && out[n - 1] <= 'Z') ||
		      (out[n - 1] >= '0' && out[n - 1] <= '9')))
		out[--n] = '\0';
	return n > 0;
}

/* Nodes every container of the kind needs, whichever device it gets: the vendor's
 * control nodes, and the VFIO container of devices bound to vfio-pci. */
static bool control_node(const char *p, const struct axl_runtime *rt)
{
	if (strcmp(p, "/dev/vfio/vfio") == 0)
		return true;
	for (size_t i = 0; rt && rt->control_nodes[i]; i++)
		if (strcmp(p, rt->control_nodes[i]) == 0)
			return true;
	return false;
}

struct gen {
	const char *sysroot; /* "/" on the live system */
	/* where the vendor's files are looked for (the driver root, else the sysroot), and
	 * what that folder is on the host: a mount's hostPath is host + the file's path
	 * inside root, its containerPath the path the vendor's folders list */
	const char *root, *host;
	int simulated;       /* a simulated node: its nodes exist nowhere to stat */
	unsigned nodes_missing;
	int quiet;           /* devices left out are not said */
	cdi_named_fn named;  /* axl device-plugin: each device's names as they are made */
	char legacy[MAX_KINDS][64]; /* build_all: each spec's kind as axl named it before */
	void *ud;
};

static void named(const struct gen *g, const axl_device *d, const char *kind, const char *name, int by_uuid)
{
	if (g->named)
		g->named(g->ud, d, kind, name, by_uuid);
}

static void host_path(const struct gen *g, const char *p, char *out, size_t cap)
{
	if (strcmp(g->sysroot, "/") == 0)
		snprintf(out, cap, "%s", p);
	else
		snprintf(out, cap, "%s%s", g->sysroot, p);
}

/* A deviceNodes entry: path and hostPath are the node's path on that node; type,
 * major and minor when the node is there to stat (not in a synthetic tree). */
static struct val *node_val(struct gen *g, const char *p)
{
	struct val *n = vnew(V_OBJ);
	vadd(n, "path", vstr(p));
	vadd(n, "hostPath", vstr(p));
	char hp[4096];
	struct stat st;
	host_path(g, p, hp, sizeof hp);
	if (g->simulated)
		return n;
	if (stat(hp, &st) == 0 && (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode))) {
		vadd(n, "type", vstr(S_ISCHR(st.st_mode) ? "c" : "b"));
		vadd(n, "major", vint((long long)major(st.st_rdev)));
		vadd(n, "minor", vint((long long)minor(st.st_rdev)));
	} else if (lstat(hp, &st) != 0) {
		g->nodes_missing++;
	}
	return n;
}

/* Add path to edits.deviceNodes unless it is there already. */
static void add_node(struct gen *g, struct val *edits, const char *p)
{
	struct val *arr = vmember(edits, "deviceNodes", V_ARR);
	for (size_t i = 0; i < arr->n; i++)
		if (strcmp(vget(arr->kids[i], "path")->s, p) == 0)
			return;
	vadd(arr, NULL, node_val(g, p));
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* One read-only bind mount: the file at containerPath, from hostPath on the host. */
static void add_mount(struct val *edits, const char *host_path, const char *container_path)
{
	struct val *arr = vmember(edits, "mounts", V_ARR);
	for (size_t i = 0; i < arr->n; i++)
		if (strcmp(vget(arr->kids[i], "containerPath")->s, container_path) == 0)
			return;
	struct val *m = vadd(arr, NULL, vnew(V_OBJ));
	vadd(m, "hostPath", vstr(host_path));
	vadd(m, "containerPath", vstr(container_path));
	struct val *o = vadd(m, "options", vnew(V_ARR));
	vadd(o, NULL, vstr("ro"));
	vadd(o, NULL, vstr("nosuid"));
	vadd(o, NULL, vstr("nodev"));
	vadd(o, NULL, vstr("bind"));
}

/* Read-only bind mounts of the vendor's user-space files found on the node, under the
 * driver root: each name in the vendor's folders that matches a pattern and is a
 * regular file, or a link the root's own system resolves to one (Debian's libcuda.so.1 ->
 * /etc/alternatives/libcuda.so.1 -> .../nvidia/current/libcuda.so.535.261.03: the file is
 * mounted at the link's name, from where the link leads on the host, so that the mount
 * works whatever else the host has mounted where). A folder reached twice (/lib64 and
 * /usr/lib64) is read once. */
static void add_mounts(struct gen *g, struct val *edits, const char *const *patterns, const char *const *dirs)
{
	char seen[32][1024];
	size_t nseen = 0;
	for (size_t di = 0; dirs[di] && patterns[0]; di++) {
		char rd[1024], hd[4096];
		if (axl__root_resolve(g->root, dirs[di], rd, sizeof rd) != 0 ||
		    axl__root_join(g->root, rd, hd, sizeof hd) != 0)
			continue;
		bool dup = false;
		for (size_t k = 0; k < nseen && !dup; k++)
			dup = strcmp(seen[k], rd) == 0;
		if (dup || nseen == 32)
			continue;
		snprintf(seen[nseen++], sizeof seen[0], "%s", rd);
		DIR *d = opendir(hd);
		if (!d)
			continue;
		char *names[512];
		size_t nn = 0;
		struct dirent *e;
		while ((e = readdir(d)) != NULL && nn < 512) {
			bool match = false;
			for (size_t k = 0; patterns[k] && !match; k++)
				match = fnmatch(patterns[k], e->d_name, 0) == 0;
			if (match)
				names[nn++] = xstrdup(e->d_name);
		}
		closedir(d);
		qsort(names, nn, sizeof *names, cmp_cstr);
		for (size_t i = 0; i < nn; i++) {
			char p[1400], rf[1024], full[4096], hp[4096];
			struct stat st;
			snprintf(p, sizeof p, "%s/%s", rd, names[i]);
			/* resolved inside the root: a dangling link (its target not installed, or
			 * outside what the container mounts) is no file */
			if (axl__root_resolve(g->root, p, rf, sizeof rf) == 0 &&
			    axl__root_join(g->root, rf, full, sizeof full) == 0 && stat(full, &st) == 0 &&
			    S_ISREG(st.st_mode) && axl__root_join(g->host, rf, hp, sizeof hp) == 0) {
				snprintf(p, sizeof p, "%s/%s", dirs[di], names[i]);
				add_mount(edits, hp, p);
			}
			free(names[i]);
		}
	}
}

/* The per-device nodes of d: its nodes less the kind's shared ones; all of them when
 * that would leave none. */
static void device_nodes(struct gen *g, struct val *edits, const axl_device *d, const struct val *shared)
{
	size_t n = axl_device_node_count(d), own = 0;
	for (int pass = 0; pass < 2 && !own; pass++)
		for (size_t i = 0; i < n; i++) {
			const char *p = axl_device_node(d, i);
			bool sh = false;
			for (size_t k = 0; pass == 0 && shared && k < shared->n; k++)
				sh |= strcmp(shared->kids[k]->s, p) == 0;
			if (!sh) {
				add_node(g, edits, p);
				own++;
			}
		}
}

/* A partition's own nodes less the kind's shared ones. */
static void child_nodes(struct gen *g, struct val *edits, const axl_device *ch, const struct val *shared)
{
	for (size_t i = 0; i < axl_device_node_count(ch); i++) {
		const char *p = axl_device_node(ch, i);
		bool sh = false;
		for (size_t k = 0; shared && k < shared->n; k++)
			sh |= strcmp(shared->kids[k]->s, p) == 0;
		if (!sh)
			add_node(g, edits, p);
	}
}

static bool edits_empty(const struct val *edits)
{
	return edits->n == 0;
}

/* One kind's spec from its devices (top-level ones, inventory order). */
static struct val *build_spec(struct gen *g, const char *kind, const struct axl_runtime *rt, const axl_device **devs,
			      size_t ndev)
{
	struct val *spec = vnew(V_OBJ);
	vadd(spec, "cdiVersion", vstr(CDI_VERSION));
	vadd(spec, "kind", vstr(kind));
	struct val *devices = vadd(spec, "devices", vnew(V_ARR));
	struct val *common = vnew(V_OBJ);

	/* shared nodes: control nodes, and any node two devices both list */
	struct val *shared = vnew(V_ARR);
	for (size_t a = 0; a < ndev; a++)
		for (size_t i = 0; i < axl_device_node_count(devs[a]); i++) {
			const char *p = axl_device_node(devs[a], i);
			bool sh = control_node(p, rt);
			for (size_t b = 0; b < ndev && !sh; b++)
				for (size_t j = 0; b != a && j < axl_device_node_count(devs[b]) && !sh; j++)
					sh = strcmp(p, axl_device_node(devs[b], j)) == 0;
			bool have = false;
			for (size_t k = 0; k < shared->n; k++)
				have |= strcmp(shared->kids[k]->s, p) == 0;
			if (sh && !have)
				vadd(shared, NULL, vstr(p));
		}

	/* index names: the devices' own indexes when known and distinct, else their order */
	bool own_index = true;
	int64_t idx[1024];
	for (size_t a = 0; a < ndev; a++) {
		if (axl_device_get_int(devs[a], AXL_ATTR_INDEX, &idx[a]) != 0 || idx[a] < 0)
			own_index = false;
		for (size_t b = 0; b < a && own_index; b++)
			own_index = idx[a] != idx[b];
	}
	struct val *all = vnew(V_OBJ);
	for (size_t a = 0; a < ndev; a++) {
		const axl_device *d = devs[a];
		long long ix = own_index ? (long long)idx[a] : (long long)a;
		struct val *edits = vnew(V_OBJ);
		device_nodes(g, edits, d, shared);
		if (edits_empty(edits)) {
			if (!g->quiet)
				fprintf(stderr, "axl: cdi: %s has no device nodes; left out\n", axl_device_id(d));
			vfree(edits);
			continue;
		}
		device_nodes(g, all, d, shared);
		char name[160];
		snprintf(name, sizeof name, "%lld", ix);
		struct val *dv = vadd(devices, NULL, vnew(V_OBJ));
		vadd(dv, "name", vstr(name));
		vadd(dv, "containerEdits", edits);
		named(g, d, kind, name, 0);
		const char *uuid = NULL;
		if (axl_device_get_str(d, AXL_ATTR_UUID, &uuid) == 0 && cdi_name(uuid, name, sizeof name)) {
			named(g, d, kind, name, 1);
			struct val *du = vadd(devices, NULL, vnew(V_OBJ));
			vadd(du, "name", vstr(name));
			struct val *e2 = vadd(du, "containerEdits", vnew(V_OBJ));
			device_nodes(g, e2, d, shared);
		}
		/* partitions that exist now: "INDEX:N" and their UUID. Some need their parent's
		 * node besides their own (AXL_RUNTIME_CHILD_NEEDS_PARENT); others have their own
		 * (a compute partition's render node), or use their parent's when they have none. */
		for (size_t c = 0; c < axl_device_child_count(d); c++) {
			const axl_device *ch = axl_device_child(d, c);
			struct val *ce = vnew(V_OBJ);
			bool parent = rt && (rt->flags & AXL_RUNTIME_CHILD_NEEDS_PARENT);
			if (parent || axl_device_node_count(ch) == 0)
				device_nodes(g, ce, d, shared);
			child_nodes(g, ce, ch, shared);
			if (edits_empty(ce)) {
				vfree(ce);
				continue;
			}
			snprintf(name, sizeof name, "%lld:%zu", ix, c);
			struct val *dc = vadd(devices, NULL, vnew(V_OBJ));
			vadd(dc, "name", vstr(name));
			vadd(dc, "containerEdits", ce);
			named(g, ch, kind, name, 0);
			if (axl_device_get_str(ch, AXL_ATTR_UUID, &uuid) == 0 && cdi_name(uuid, name, sizeof name)) {
				named(g, ch, kind, name, 1);
				struct val *du = vadd(devices, NULL, vnew(V_OBJ));
				vadd(du, "name", vstr(name));
				struct val *e2 = vadd(du, "containerEdits", vnew(V_OBJ));
				if (parent || axl_device_node_count(ch) == 0)
					device_nodes(g, e2, d, shared);
				child_nodes(g, e2, ch, shared);
			}
		}
	}
	if (devices->n == 0) {
		vfree(all);
		vfree(shared);
		vfree(common);
		vfree(spec);
		return NULL;
	}
	struct val *da = vadd(devices, NULL, vnew(V_OBJ));
	vadd(da, "name", vstr("all"));
	vadd(da, "containerEdits", all);

	/* what every device of the kind needs: shared nodes, environment, libraries */
	for (size_t k = 0; k < shared->n; k++)
		add_node(g, common, shared->kids[k]->s);
	vfree(shared);
	if (rt && rt->env[0]) {
		struct val *env = vmember(common, "env", V_ARR);
		for (size_t k = 0; rt->env[k]; k++)
			vadd(env, NULL, vstr(rt->env[k]));
	}
	if (rt) {
		add_mounts(g, common, rt->libraries, rt->library_dirs);
		add_mounts(g, common, rt->binaries, rt->binary_dirs);
	}
	if (common->n)
		vadd(spec, "containerEdits", common);
	else
		vfree(common);
	return spec;
}

#define MAX_DEVS 1024

/* Every kind's spec; returns how many (specs[] filled). */
static size_t build_all(struct gen *g, const axl_inventory *inv, struct val **specs)
{
	char kinds[MAX_KINDS][64];
	const struct axl_runtime *vends[MAX_KINDS];
	size_t nk = 0, ns = 0;
	size_t n = axl_inventory_device_count(inv);
	for (size_t i = 0; i < n; i++) {
		const axl_device *d = axl_inventory_device(inv, i);
		if (axl_device_family(d) == AXL_FAMILY_CPU)
			continue;
		char kind[64], legacy[64];
		const struct axl_runtime *v = vendor_of(d, kind, sizeof kind, legacy, sizeof legacy);
		size_t k = 0;
		while (k < nk && strcmp(kinds[k], kind) != 0)
			k++;
		if (k == nk && nk < MAX_KINDS) {
			snprintf(kinds[nk], sizeof kinds[nk], "%s", kind);
			snprintf(g->legacy[nk], sizeof g->legacy[nk], "%s", legacy);
			vends[nk++] = v;
		}
	}
	static const axl_device *devs[MAX_DEVS];
	for (size_t k = 0; k < nk; k++) {
		size_t nd = 0;
		for (size_t i = 0; i < n && nd < MAX_DEVS; i++) {
			const axl_device *d = axl_inventory_device(inv, i);
			char kind[64];
			if (axl_device_family(d) == AXL_FAMILY_CPU)
				continue;
			vendor_of(d, kind, sizeof kind, NULL, 0);
			if (strcmp(kind, kinds[k]) == 0)
				devs[nd++] = d;
		}
		struct val *s = build_spec(g, kinds[k], vends[k], devs, nd);
		if (s) {
			if (ns != k)
				memcpy(g->legacy[ns], g->legacy[k], sizeof g->legacy[ns]);
			specs[ns++] = s;
		}
	}
	return ns;
}

/* The generator's view of the node: its tree (sysroot), and where the vendor's files are:
 * the driver root (--driver-root, $AXL_DRIVER_ROOT through the context), else the node's
 * tree; the host path of that root (--driver-root-host, $AXL_DRIVER_ROOT_HOST), else "/":
 * the root's own paths are the host's. */
static void gen_init(struct gen *g, const axl_context *ctx, const struct opts *o)
{
	memset(g, 0, sizeof *g);
	g->sysroot = axl_context_sysroot(ctx);
	if (!g->sysroot)
		g->sysroot = "/";
	g->simulated = axl_context_is_simulated(ctx);
	const char *dr = axl_context_driver_root(ctx);
	g->root = dr && strcmp(dr, "/") != 0 ? dr : g->sysroot;
	g->host = o && o->driver_root_host ? o->driver_root_host : getenv("AXL_DRIVER_ROOT_HOST");
	if (!g->host || !*g->host)
		g->host = "/";
}

size_t cdi_build_specs(const axl_inventory *inv, const axl_context *ctx, const struct opts *o, struct val **specs,
		       size_t cap, cdi_named_fn fn, void *ud, int quiet)
{
	struct gen g;
	gen_init(&g, ctx, o);
	g.quiet = quiet;
	g.named = fn;
	g.ud = ud;
	struct val *all[MAX_KINDS];
	size_t ns = build_all(&g, inv, all), n = 0;
	for (size_t i = 0; i < ns; i++) {
		if (n < cap)
			specs[n++] = all[i];
		else
			vfree(all[i]);
	}
	return n;
}

/* DIR/axl-CLASS.EXT for kind axl.dev/CLASS (axl-nvidia-gpu.json); for another kind (an
 * earlier axl's nvidia.com/gpu) DIR/axl-VENDOR-CLASS.EXT (axl-nvidia.com-gpu.json) */
static void kind_path(const char *dir, const char *kind, bool yaml, char *path, size_t cap)
{
	char base[128];
	const char *own = strncmp(kind, CDI_VENDOR "/", sizeof CDI_VENDOR) == 0 ? kind + sizeof CDI_VENDOR : NULL;
	snprintf(base, sizeof base, "axl-%s", own ? own : kind);
	for (char *p = base; *p; p++)
		if (*p == '/')
			*p = '-';
	snprintf(path, cap, "%s/%s.%s", dir, base, yaml ? "yaml" : "json");
}

static void spec_path(const char *dir, const struct val *spec, bool yaml, char *path, size_t cap)
{
	kind_path(dir, vget(spec, "kind")->s, yaml, path, cap);
}

/* The files an earlier axl wrote for this spec's devices under the vendor's own kind
 * (axl-nvidia.com-gpu.json): their names clash with the vendor's own specs in the same
 * folder (nvidia-ctk's nvidia.yaml), so they go once axl's new spec is in place. Only a
 * file of that name that holds that kind is removed. */
static void remove_legacy(const struct cdi_job *j, const char *legacy)
{
	for (int yaml = 0; yaml < 2 && legacy[0]; yaml++) {
		char path[4096];
		kind_path(j->dir, legacy, yaml, path, sizeof path);
		char *text = NULL;
		size_t len = 0;
		if (axl__file_read(path, 1 << 24, AXL__FILE_NOFOLLOW, &text, &len) != 0) {
			free(text);
			continue;
		}
		/* the kind as the spec writer puts it, YAML or JSON (a quoted key) */
		char want[160];
		snprintf(want, sizeof want, "kind%s%s", yaml ? ": " : "\": \"", legacy);
		bool ours = strstr(text, want) != NULL;
		free(text);
		if (!ours)
			continue;
		if (unlink(path) != 0)
			fprintf(stderr, "axl: cdi: %s holds axl's earlier kind %s, which clashes with the vendor's own "
					"specs, and cannot be removed: %s\n", path, legacy, strerror(errno));
		else if (!j->quiet)
			printf("removed %s (axl's earlier kind %s clashes with the vendor's own specs)\n", path,
			       legacy);
		else if (j->o->verbose)
			fprintf(stderr, "axl: cdi: removed %s (axl's earlier kind %s)\n", path, legacy);
	}
}

/* A spec's text, malloc'd. */
static char *spec_text(const struct val *spec, bool yaml, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);
	if (!f) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	write_spec(f, spec, yaml);
	if (fclose(f) != 0) {
		fprintf(stderr, "axl: out of memory\n");
		exit(1);
	}
	return buf;
}

int cdi_check_host(const struct opts *o)
{
	const char *h = o->driver_root_host ? o->driver_root_host : getenv("AXL_DRIVER_ROOT_HOST");
	if (h && *h && h[0] != '/') {
		fprintf(stderr,
			"axl: %s '%s': the driver root's path on the host must be absolute (where the driver "
			"container's root lies)\n",
			o->driver_root_host ? "--driver-root-host" : "AXL_DRIVER_ROOT_HOST", h);
		return EXIT_USAGE;
	}
	return 0;
}

int cdi_setup(struct cdi_job *j, const struct opts *o, const char *dir, const char *format)
{
	memset(j, 0, sizeof *j);
	j->o = o;
	j->dir = dir;
	int hrc = cdi_check_host(o);
	if (hrc)
		return hrc;
	if (format && strcmp(format, "yaml") == 0)
		j->yaml = 1;
	else if (format && strcmp(format, "json") != 0) {
		fprintf(stderr, "axl: --format takes json or yaml, not '%s'\n", format);
		return EXIT_USAGE;
	}
	/* the folder and those above it are made when missing, as generators do (mkdir -p) */
	if (dir && !cli_is_stdout(dir) && cli_make_dir(dir))
		return 1;
	return 0;
}

void cdi_job_free(struct cdi_job *j)
{
	for (size_t i = 0; i < j->nfiles; i++)
		free(j->files[i]);
	j->nfiles = 0;
}

/* The specs on standard output: one JSON document (an array when there are several
 * kinds), or YAML documents. */
static int print_specs(struct val **specs, size_t ns, bool yaml)
{
	if (yaml) {
		for (size_t i = 0; i < ns; i++) {
			fputs("---\n", stdout);
			write_spec(stdout, specs[i], true);
		}
	} else if (ns == 1) {
		write_spec(stdout, specs[0], false);
	} else {
		struct val arr = {.t = V_ARR, .kids = specs, .n = ns};
		write_spec(stdout, &arr, false);
	}
	if (fflush(stdout) != 0) {
		fprintf(stderr, "axl: standard output: %s\n", strerror(errno));
		return 1;
	}
	return 0;
}

/* Write every spec whose file does not already hold it; forget (remove) the files of
 * kinds this process wrote before that are gone now. */
static int write_specs(struct cdi_job *j, struct val **specs, const char (*legacy)[64], size_t ns, int *wrote)
{
	char *now[CDI_MAX_FILES];
	size_t nnow = 0;
	int rc = 0;
	for (size_t i = 0; i < ns && nnow < CDI_MAX_FILES; i++) {
		char path[4096];
		spec_path(j->dir, specs[i], j->yaml, path, sizeof path);
		size_t len;
		char *text = spec_text(specs[i], j->yaml, &len);
		if (!axl__file_same(path, text, len)) {
			if (cli_write_file(path, text, len, 0644) == 0) {
				(*wrote)++;
				if (!j->quiet)
					printf("wrote %s\n", path);
				if (j->o->verbose && j->quiet)
					fprintf(stderr, "axl: cdi: rewrote %s\n", path);
			} else {
				rc = 1;
			}
		} else if (!j->quiet) {
			printf("unchanged %s\n", path);
		}
		free(text);
		now[nnow++] = strdup(path);
		remove_legacy(j, legacy[i]);
	}
	for (size_t k = 0; k < j->nfiles; k++) {
		bool kept = false;
		for (size_t i = 0; i < nnow && !kept; i++)
			kept = now[i] && strcmp(now[i], j->files[k]) == 0;
		if (!kept && unlink(j->files[k]) == 0) {
			(*wrote)++;
			if (j->o->verbose)
				fprintf(stderr, "axl: cdi: removed %s (its devices are gone)\n", j->files[k]);
		}
	}
	cdi_job_free(j);
	for (size_t i = 0; i < nnow; i++)
		if (now[i])
			j->files[j->nfiles++] = now[i];
	fflush(stdout);
	return rc;
}

int cdi_refresh(struct cdi_job *j, int *wrote)
{
	*wrote = 0;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(j->o, &ctx, &inv))
		return 1;
	struct gen g;
	gen_init(&g, ctx, j->o);
	struct val *specs[MAX_KINDS];
	size_t ns = build_all(&g, inv, specs);
	int rc;
	if (!j->dir || cli_is_stdout(j->dir)) {
		rc = print_specs(specs, ns, j->yaml);
		*wrote = !rc;
	} else {
		rc = write_specs(j, specs, (const char(*)[64])g.legacy, ns, wrote);
	}
	if (ns == 0 && !j->quiet)
		fprintf(stderr, "axl: cdi: no accelerator with device nodes on this node; no spec\n");
	if (g.nodes_missing && !j->quiet)
		fprintf(stderr, "axl: cdi: warning: %u device node%s not found under %s\n", g.nodes_missing,
			g.nodes_missing == 1 ? "" : "s", g.sysroot);
	for (size_t i = 0; i < ns; i++)
		vfree(specs[i]);
	print_warnings(inv);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

/* The options (the tables close the file) */
static struct {
	const char *output, *format, *driver_root, *driver_root_host;
	int watch;
	int64_t interval_ms;
} a;

static int cdi_watch(struct opts *o, struct cdi_job *j)
{
	if (!a.output || cli_is_stdout(a.output)) {
		fprintf(stderr, "axl cdi generate: --watch keeps a directory current: name it with -o DIR\n");
		return EXIT_USAGE;
	}
	struct watch w;
	if (watch_open(&w, o, a.interval_ms))
		return 1;
	j->quiet = 1;
	const char *why = "start";
	int ok = 0, rc;
	do {
		int wrote;
		rc = cdi_refresh(j, &wrote);
		ok |= !rc;
		if (o->verbose)
			fprintf(stderr, "axl: cdi (%s): %s\n", why,
				rc      ? "failed"
				: wrote ? "rewrote the specs that changed"
					: "unchanged, nothing rewritten");
	} while (watch_wait(&w, -1, &why));
	watch_close(&w);
	cdi_job_free(j);
	return ok ? 0 : 1;
}

static const struct cli_sub subs[];

static int cmd_cdi(struct opts *o, int argc, char **argv)
{
	const struct cli_sub *sub = cli_sub_parse(&cli_cmd_cdi, argc, argv);
	if (!sub)
		return EXIT_USAGE;
	bool generate = sub == &subs[0];
	o->driver_root = a.driver_root;
	o->driver_root_host = a.driver_root_host;
	if (a.interval_ms && !a.watch) {
		fprintf(stderr, "axl cdi generate: --interval goes with --watch\n");
		return EXIT_USAGE;
	}
	if (generate) {
		struct cdi_job j;
		int rc = cdi_setup(&j, o, a.output, a.format);
		if (rc)
			return rc;
		if (a.watch)
			return cdi_watch(o, &j);
		int wrote;
		rc = cdi_refresh(&j, &wrote);
		cdi_job_free(&j);
		return rc;
	}
	int hrc = cdi_check_host(o);
	if (hrc)
		return hrc;
	axl_context *ctx;
	axl_inventory *inv;
	if (open_inventory(o, &ctx, &inv))
		return 1;
	struct gen g;
	gen_init(&g, ctx, o);
	struct val *specs[MAX_KINDS];
	size_t ns = build_all(&g, inv, specs);
	int rc = 0;
	struct axl__sb sb = AXL__SB_INIT;
	struct axl__json w;
	if (o->json) {
		axl__json_init(&w, &sb, false);
		axl__json_arr(&w);
	}
	for (size_t i = 0; i < ns; i++) {
		const struct val *devs = vget(specs[i], "devices");
		for (size_t k = 0; k < devs->n; k++) {
			char fq[512];
			snprintf(fq, sizeof fq, "%s=%s", vget(specs[i], "kind")->s, vget(devs->kids[k], "name")->s);
			if (o->json)
				axl__json_str(&w, fq);
			else
				puts(fq);
		}
	}
	if (o->json) {
		axl__json_arr_end(&w);
		rc = print_doc(&sb, 1);
	}
	if (ns == 0)
		fprintf(stderr, "axl: cdi: no accelerator with device nodes on this node; no spec\n");
	for (size_t i = 0; i < ns; i++)
		vfree(specs[i]);
	print_warnings(inv);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	return rc;
}

#define DRIVER_ROOT_OPTIONS                                                                                       \
	{.type = CLI_OPT_STRING, .name = "driver-root", .value = &a.driver_root, .value_name = "DIR", .help = \
	 "where the vendor's user-space files are looked for (the host's\n"                                        \
	 "root mounted at /host in a container; default / or $AXL_DRIVER_ROOT):\n"                                 \
	 "links resolve inside it; NVML, ROCm SMI and Level Zero load from it"},                                  \
	{.type = CLI_OPT_STRING, .name = "driver-root-host", .value = &a.driver_root_host, .value_name = "PATH",      \
	 .help =                                                                                                  \
	 "what DIR is on the host (default /: the paths inside DIR are the\n"                                      \
	 "host's; /run/nvidia/driver for the GPU Operator's driver container;\n"                                   \
	 "$AXL_DRIVER_ROOT_HOST)"}

static const struct cli_opt generate_options[] = {
	{.type = CLI_OPT_STRING, .name = "output", .alias = 'o', .value = &a.output, .value_name = "DIR",
	 .help = "write one file per kind there, axl-CLASS.json (or .yaml), each\nreplaced atomically and only when "
	         "its content changed; the\nfolder is made when missing; - (or none): standard output"},
	{.type = CLI_OPT_CHOICE, .name = "format", .value = &a.format, .help = "json (default) or yaml",
	 .choices = "json|yaml"},
	{.type = CLI_OPT_FLAG, .name = "watch", .value = &a.watch,
	 .help = "keep DIR current: rediscover every --interval and when a device\nnode appears or goes; rewrite only "
	         "what changed; remove the spec\nof a kind that is gone; SIGTERM or SIGINT ends it"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &a.interval_ms,
	 .help = "(--watch) the period (default 60s)", .min = 1, .max = 86400000},
	DRIVER_ROOT_OPTIONS,
	{0},
};

static const struct cli_opt list_options[] = {
	DRIVER_ROOT_OPTIONS,
	{0},
};

static const struct cli_sub subs[] = {
	{"generate", generate_options, "Container Device Interface specs for the accelerators"},
	{"list", list_options, "the CDI device names (axl.dev/nvidia-gpu=0)"},
	{NULL, NULL, NULL},
};

const struct cli_command cli_cmd_cdi = {
	"cdi", cmd_cdi, CLI_G_NODE | CLI_G_JSON, NULL, subs, NULL,
	"Container Device Interface specs for this node's accelerators, one per kind\n"
	"(axl.dev/nvidia-gpu, axl.dev/amd-gpu, ...: never the vendors' own kinds, which\n"
	"their toolkits write beside), and the fully qualified device names (docs/cdi.md).\n"
	"--json: (list) the names as a JSON array.",
};
