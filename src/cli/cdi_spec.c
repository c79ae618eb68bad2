/* SPDX-License-Identifier: MIT */
/*
 * The CDI specs of axl cdi generate (docs/cdi.md): one spec per kind (the vendor's resource
 * name, from axl_device_runtime), a device per accelerator named by index and by UUID, one
 * per partition that exists now named "INDEX:N", and an "all" device, as small value trees.
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
#include "cdi_spec.h"
#include "output.h"
#include "../util/file.h"
#include "../util/rootpath.h"

/* The oldest CDI version that has what axl emits: device names that start with a
 * digit and deviceNodes[].hostPath both need 0.5.0. Emitting the oldest sufficient
 * version (as the CNCF library's MinimumRequiredVersion does) keeps the specs loadable
 * by runtimes whose CDI library predates the newer versions. */
#define CDI_VERSION "0.5.0"


/* ---- kinds, names, edits ---------------------------------------------------------- */

/* The vendor of axl's CDI kinds (axl_device_cdi_kind). Never a vendor's own domain:
 * NVIDIA Container Toolkit (nvidia-ctk >= 1.18 writes /var/run/cdi/nvidia.yaml by itself),
 * AMD's container toolkit and others write their own specs into the same folders under
 * their resource names (nvidia.com/gpu=0, =all, =GPU-<uuid>), and CDI drops a name
 * defined twice in one folder, so that both become unresolvable. NVIDIA's own device
 * plugin steps aside the same way (k8s.device-plugin.nvidia.com). */

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


static void named(const struct cdi_gen *g, const axl_device *d, const char *kind, const char *name, int by_uuid)
{
	if (g->named)
		g->named(g->ud, d, kind, name, by_uuid);
}

static void host_path(const struct cdi_gen *g, const char *p, char *out, size_t cap)
{
	if (strcmp(g->sysroot, "/") == 0)
		snprintf(out, cap, "%s", p);
	else
		snprintf(out, cap, "%s%s", g->sysroot, p);
}

/* A deviceNodes entry: path and hostPath are the node's path on that node; type,
 * major and minor when the node is there to stat (not in a synthetic tree). */
static struct val *node_val(struct cdi_gen *g, const char *p)
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
static void add_node(struct cdi_gen *g, struct val *edits, const char *p)
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
static void add_mounts(struct cdi_gen *g, struct val *edits, const char *const *patterns, const char *const *dirs)
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
static void device_nodes(struct cdi_gen *g, struct val *edits, const axl_device *d, const struct val *shared)
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
static void child_nodes(struct cdi_gen *g, struct val *edits, const axl_device *ch, const struct val *shared)
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
static struct val *build_spec(struct cdi_gen *g, const char *kind, const struct axl_runtime *rt,
			      const axl_device **devs, size_t ndev)
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
size_t cdi_build_all(struct cdi_gen *g, const axl_inventory *inv, struct val **specs)
{
	char kinds[CDI_MAX_KINDS][64];
	const struct axl_runtime *vends[CDI_MAX_KINDS];
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
		if (k == nk && nk < CDI_MAX_KINDS) {
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
void cdi_gen_init(struct cdi_gen *g, const axl_context *ctx, const struct opts *o)
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
	struct cdi_gen g;
	cdi_gen_init(&g, ctx, o);
	g.quiet = quiet;
	g.named = fn;
	g.ud = ud;
	struct val *all[CDI_MAX_KINDS];
	size_t ns = cdi_build_all(&g, inv, all), n = 0;
	for (size_t i = 0; i < ns; i++) {
		if (n < cap)
			specs[n++] = all[i];
		else
			vfree(all[i]);
	}
	return n;
}

