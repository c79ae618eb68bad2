/* SPDX-License-Identifier: MIT */
/* Opening a context: the options and the environment read once, and the choice of what
 * discovery reads (the live node, a capture file's unpacked tree, or a simulated node). */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
#include <stddef.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend.h"
#include "capture.h"
#include "devicedb.h"
#include "sim.h"
#include "util/record.h"

/* "a,b" selects only a and b; "-a,-b" all but those; both kinds may mix: the
 * positive names form the base set (all when there are none), negatives remove. */
static int parse_backends(axl_context *ctx, const char *spec)
{
	uint64_t all = axl__backend_total >= 64 ? ~0ull : ((1ull << axl__backend_total) - 1);
	uint64_t pos = 0, neg = 0;
	bool any_pos = false, db_pos = false, db_neg = false;
	const char *p = spec;
	while (*p) {
		while (*p == ',' || *p == ' ')
			p++;
		if (!*p)
			break;
		bool minus = false;
		if (*p == '-' || *p == '+') {
			minus = *p == '-';
			p++;
		}
		const char *start = p;
		while (*p && *p != ',' && *p != ' ')
			p++;
		size_t len = (size_t)(p - start);
		if (len == 0)
			return axl__error(AXL_EINVAL, "backend selection '%s': empty name", spec);
		bool found = false;
		if (len == 8 && memcmp(start, "devicedb", 8) == 0) {
			found = true;
			if (minus)
				db_neg = true;
			else
				db_pos = true;
		}
		for (size_t i = 0; i < axl__backend_total && !found; i++) {
			const char *n = axl__backends[i]->name;
			if (strlen(n) == len && memcmp(n, start, len) == 0) {
				found = true;
				if (minus)
					neg |= 1ull << i;
				else
					pos |= 1ull << i;
			}
		}
		if (!found)
			return axl__error(AXL_EINVAL, "backend selection '%s': unknown backend '%.*s'",
					  spec, (int)(len > 64 ? 64 : len), start);
		if (!minus)
			any_pos = true;
	}
	uint64_t base = any_pos ? pos : all;
	/* the PCI scan is the base of discovery: always on unless removed explicitly */
	ctx->backend_mask = (base | (any_pos ? 1ull : 0)) & ~neg;
	(void)db_pos;
	ctx->devicedb_enabled = !db_neg;
	return 0;
}

static char *dup_or_null(const char *s)
{
	return s ? strdup(s) : NULL;
}


/* The one place axl reads the environment: the caller's list when it gave one, else the
 * process environment (unless AXL_CONTEXT_NO_ENV). NULL: not set. */
static const char *env_get(const char *const *list, bool process, const char *name)
{
	if (list) {
		size_t n = strlen(name);
		for (size_t i = 0; list[i] && i < 4096; i++)
			if (strncmp(list[i], name, n) == 0 && list[i][n] == '=')
				return list[i] + n + 1;
		return NULL;
	}
	return process ? getenv(name) : NULL;
}

/* The state directory (docs/limits.md): AXL_STATE_DIR; else, on the live system only,
 * /run/axl for root, $XDG_RUNTIME_DIR/axl, /tmp/axl-<uid>. A re-rooted context has none
 * unless AXL_STATE_DIR names one: it must never record state for the host. */
static int state_dir_init(axl_context *ctx, const char *explicit_dir, const char *xdg)
{
	char buf[4096];
	if (explicit_dir && *explicit_dir) {
		if (explicit_dir[0] != '/' || strlen(explicit_dir) > 3000)
			return axl__error(AXL_EINVAL,
					  "AXL_STATE_DIR='%.200s': must be an absolute path (at most 3000 bytes)",
					  explicit_dir);
		snprintf(buf, sizeof buf, "%s", explicit_dir);
	} else if (ctx->fs.rerooted) {
		return 0;
	} else if (geteuid() == 0) {
		snprintf(buf, sizeof buf, "/run/axl");
	} else if (xdg && xdg[0] == '/' && strlen(xdg) < 3000) {
		snprintf(buf, sizeof buf, "%s/axl", xdg);
	} else {
		snprintf(buf, sizeof buf, "/tmp/axl-%u", (unsigned)geteuid());
	}
	size_t n = strlen(buf);
	while (n > 1 && buf[n - 1] == '/')
		buf[--n] = 0;
	if (ctx->sim && !(explicit_dir && *explicit_dir)) {
		/* a simulated node keeps its own state (its partitions), apart from the real
		 * node's and from other specs': <base>/sim-<FNV-1a 64 of the spec's real path> */
		char real[PATH_MAX];
		const char *spec = realpath(ctx->sim->path, real) ? real : ctx->sim->path;
		uint64_t h = 0xcbf29ce484222325ull;
		for (const unsigned char *c = (const unsigned char *)spec; *c; c++)
			h = (h ^ *c) * 0x100000001b3ull;
		snprintf(buf + n, sizeof buf - n, "/sim-%016llx", (unsigned long long)h);
	}
	ctx->state_dir = strdup(buf);
	return ctx->state_dir ? 0 : axl__error(AXL_ENOMEM, "out of memory");
}

static int context_open(axl_context **out, const struct axl_context_options *opts, struct axl__mtree *mem);

AXL_API int axl_context_open(axl_context **out, const struct axl_context_options *opts)
{
	return context_open(out, opts, NULL);
}

int axl__context_open_mtree(axl_context **out, const struct axl_context_options *opts, struct axl__mtree *t)
{
	if (!t)
		return axl__error(AXL_EINVAL, "axl__context_open_mtree: no tree");
	return context_open(out, opts, t);
}

static int context_open(axl_context **out, const struct axl_context_options *opts, struct axl__mtree *mem)
{
	if (!out)
		return axl__error(AXL_EINVAL, "axl_context_open: out is NULL");
	*out = NULL;
	axl__error_clear();
	struct axl_context_options defaults = AXL_CONTEXT_OPTIONS_INIT;
	if (!opts)
		opts = &defaults;
	/* version 1 callers have a shorter struct: read only what it holds */
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	if (opts->version == 1)
		memcpy(&o, opts, offsetof(struct axl_context_options, env));
	else if (opts->version == 2)
		memcpy(&o, opts, offsetof(struct axl_context_options, sim));
	else if (opts->version == 3)
		memcpy(&o, opts, offsetof(struct axl_context_options, driver_root));
	else if (opts->version == AXL_CONTEXT_OPTIONS_VERSION)
		o = *opts;
	else
		return axl__error(AXL_EVERSION, "axl_context_options version %u, this library knows 1 to %u",
				  opts->version, AXL_CONTEXT_OPTIONS_VERSION);
	opts = &o;
	axl_context *ctx = calloc(1, sizeof *ctx);
	if (!ctx)
		return axl__error(AXL_ENOMEM, "out of memory");
	ctx->fs.root_fd = -1;
	pthread_mutex_init(&ctx->lock, NULL);
	ctx->log = opts->log;
	ctx->log_userdata = opts->log_userdata;
	ctx->log_level = opts->log_level;
	ctx->flags = opts->flags;
	bool process = !(opts->flags & AXL_CONTEXT_NO_ENV);
	const char *const *list = opts->env;

	const char *sysroot = opts->sysroot;
	const char *sim = opts->sim;
	if (sysroot && *sysroot && sim && *sim) {
		axl_context_free(ctx);
		return axl__error(AXL_EINVAL,
				  "a simulated node (sim '%s') has no sysroot ('%s'): give one or the other", sim,
				  sysroot);
	}
	/* an option wins over the other's variable; both variables set is an error */
	if (!(sysroot && *sysroot) && !(sim && *sim)) {
		sysroot = env_get(list, process, "AXL_SYSROOT");
		sim = env_get(list, process, "AXL_SIM");
		if (sysroot && *sysroot && sim && *sim) {
			axl_context_free(ctx);
			return axl__error(
			    AXL_EINVAL,
			    "AXL_SIM ('%s') and AXL_SYSROOT ('%s') are both set: a simulated node has no sysroot", sim,
			    sysroot);
		}
	} else if (sim && *sim) {
		sysroot = NULL;
	} else {
		sim = NULL;
	}
	if (!sysroot || !*sysroot)
		sysroot = "/";
	if (mem)
		sim = NULL; /* an in-memory tree is the node */
	if (sim && *sim) {
		int src = axl__sim_load(sim, &ctx->sim);
		if (src) {
			axl_context_free(ctx);
			return src;
		}
		ctx->sim_backend = &axl__sim_backend;
	}
	const char *backends = opts->backends;
	if (!backends)
		backends = env_get(list, process, "AXL_BACKENDS");
	const char *ids = opts->pci_ids_path;
	if (!ids)
		ids = env_get(list, process, "AXL_PCI_IDS");

	/* libraries: one to load instead of the system's (a test double, or a vendor
	 * library on a replayed tree; each backend's own variable is read below), and how
	 * long a backend may take */
	const char *droot = opts->driver_root;
	if (!droot)
		droot = env_get(list, process, "AXL_DRIVER_ROOT");
	if (droot && *droot && droot[0] != '/') {
		axl_context_free(ctx);
		return axl__error(AXL_EINVAL, "driver root '%s': not an absolute path", droot);
	}
	if (droot && *droot && strspn(droot, "/") != strlen(droot)) {
		struct stat dst;
		if (stat(droot, &dst) != 0 || !S_ISDIR(dst.st_mode)) {
			/* what is wrong with it, in the words of the case: missing, not a folder, no access */
			int e = stat(droot, &dst) != 0 ? errno : ENOTDIR;
			axl_context_free(ctx);
			return axl__error(AXL_ENOENT, "driver root '%s': %s", droot,
					  e == ENOENT    ? "no such directory"
					  : e == ENOTDIR ? "not a directory"
					  : e == EACCES  ? "permission denied"
							 : strerror(e));
		}
		if (!(ctx->driver_root = strdup(droot))) {
			axl_context_free(ctx);
			return axl__error(AXL_ENOMEM, "out of memory");
		}
	}
	const char *pcilib = env_get(list, process, "AXL_PCI_LIBRARY");
	const char *zlib = env_get(list, process, "AXL_ZLIB_LIBRARY");
	ctx->vendor_timeout_ms = 5000;
	const char *compute = env_get(list, process, "AXL_COMPUTE");
	if (compute && *compute && !(ctx->compute_backend = strdup(compute))) {
		axl_context_free(ctx);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	const char *timeout = env_get(list, process, "AXL_VENDOR_TIMEOUT_MS");
	if (timeout && *timeout) {
		char *end;
		long ms = strtol(timeout, &end, 10);
		if (*end || ms < 1 || ms > 3600000) {
			axl_context_free(ctx);
			return axl__error(AXL_EINVAL,
					  "AXL_VENDOR_TIMEOUT_MS='%s': not a number of milliseconds (1..3600000)",
					  timeout);
		}
		ctx->vendor_timeout_ms = (int)ms;
	}

	/* a capture file is unpacked into a private directory for the context's life */
	const char *tmpbase = getenv("TMPDIR");
	int rc = 0;
	if (mem) {
		/* the tree is the root (sysroot, when given, only names it in messages) */
		axl__fs_init_mem(&ctx->fs, mem);
	} else if (!ctx->sim) {
		rc =
		    axl__capture_unpack(sysroot, tmpbase && *tmpbase == '/' ? tmpbase : "/tmp", zlib, &ctx->replay_dir);
		if (rc) {
			axl_context_free(ctx);
			return rc;
		}
		/* a simulated context has no tree at all: every read fails (root_fd -1) */
		rc = axl__fs_init(&ctx->fs, ctx->replay_dir ? ctx->replay_dir : sysroot);
	}
	if (rc < 0) {
		rc = axl__error(rc == -ENOENT || rc == -ENOTDIR ? AXL_ENOENT : AXL_EIO,
				"sysroot '%s': %s", sysroot, strerror(-rc));
		axl_context_free(ctx);
		return rc;
	}
	ctx->sysroot = strdup(sysroot);
	if (ctx->fs.rerooted)
		ctx->capture_newer = axl__capture_newer(ctx);
	ctx->pci_ids_path = dup_or_null(ids);
	ctx->pci_library = pcilib && *pcilib ? strdup(pcilib) : NULL;
	ctx->zlib_library = zlib && *zlib ? strdup(zlib) : NULL;
	bool libs_ok = true;
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		const struct axl__library_ops *libs = be->libs;
		if (!libs)
			continue;
		const char *lib = libs->env ? env_get(list, process, libs->env) : NULL;
		/* a runtime reads its own process environment, never the caller's list */
		const char *rt = libs->runtime_env && process ? getenv(libs->runtime_env) : NULL;
		if (lib && *lib && !(ctx->library[b] = strdup(lib)))
			libs_ok = false;
		const char *clib = libs->compute_env ? env_get(list, process, libs->compute_env) : NULL;
		if (clib && *clib && !(ctx->compute_library[b] = strdup(clib)))
			libs_ok = false;
		if (rt && !(ctx->runtime_env[b] = strdup(rt)))
			libs_ok = false;
	}
	if (opts->flags & AXL_CONTEXT_RECORD)
		ctx->fs.rec = axl__rec_new();
	if (!ctx->sysroot || (ids && !ctx->pci_ids_path) || (pcilib && *pcilib && !ctx->pci_library) ||
	    (zlib && *zlib && !ctx->zlib_library) || !libs_ok ||
	    ((opts->flags & AXL_CONTEXT_RECORD) && !ctx->fs.rec)) {
		axl_context_free(ctx);
		return axl__error(AXL_ENOMEM, "out of memory");
	}
	rc = parse_backends(ctx, backends ? backends : "");
	if (rc) {
		axl_context_free(ctx);
		return rc;
	}
	if (ctx->sim) {
		/* the simulation is the database's devices; nothing else is loaded */
		ctx->devicedb_enabled = true;
		ctx->flags |= AXL_CONTEXT_NO_PCI_IDS;
	}
	/* The visibility variables describe this process: they apply to the live system,
	 * or to any tree when the caller hands them over explicitly (opts->env). */
	ctx->vis_explicit = list != NULL;
	rc = axl__visvars_init(ctx);
	if (rc) {
		axl_context_free(ctx);
		return rc;
	}
	if (list || (process && !ctx->fs.rerooted && !ctx->sim)) {
		for (size_t v = 0; v < ctx->vis_n; v++) {
			const char *val = env_get(list, process, ctx->vis[v].name);
			if (val && axl__visvar_set(ctx, ctx->vis[v].name, val) != 0) {
				axl_context_free(ctx);
				return axl__error(AXL_ENOMEM, "out of memory");
			}
		}
	} else if (process) {
		/* set in this process and not applied to another node: said, not silently
		 * dropped (one warning with each inventory; the names, "A, B") */
		size_t len = 0;
		for (size_t v = 0; v < ctx->vis_n; v++)
			if (getenv(ctx->vis[v].name))
				len += strlen(ctx->vis[v].name) + 2;
		if (len && !(ctx->vis_unapplied = calloc(1, len + 1))) {
			axl_context_free(ctx);
			return axl__error(AXL_ENOMEM, "out of memory");
		}
		for (size_t v = 0; len && v < ctx->vis_n; v++)
			if (getenv(ctx->vis[v].name)) {
				if (ctx->vis_unapplied_n++)
					strcat(ctx->vis_unapplied, ", ");
				strcat(ctx->vis_unapplied, ctx->vis[v].name);
			}
	}
	/* like the visibility variables: it describes this process, not a replayed tree */
	if (list || (process && !ctx->fs.rerooted && !ctx->sim)) {
		const char *k8s = env_get(list, process, "KUBERNETES_SERVICE_HOST");
		if (k8s && *k8s && !(ctx->k8s_service_host = strdup(k8s))) {
			axl_context_free(ctx);
			return axl__error(AXL_ENOMEM, "out of memory");
		}
	}
	rc = state_dir_init(ctx, env_get(list, process, "AXL_STATE_DIR"),
			   env_get(list, process, "XDG_RUNTIME_DIR"));
	if (rc) {
		axl_context_free(ctx);
		return rc;
	}
	*out = ctx;
	return 0;
}

AXL_API void axl_context_free(axl_context *ctx)
{
	if (!ctx)
		return;
	axl__pciids_free(ctx);
	axl__sim_free(ctx->sim);
	axl__fs_fini(&ctx->fs);
	axl__rec_free(ctx->fs.rec);
	axl__capture_remove(ctx->replay_dir);
	free(ctx->sysroot);
	free(ctx->pci_ids_path);
	free(ctx->pci_library);
	free(ctx->zlib_library);
	free(ctx->driver_root);
	free(ctx->compute_backend);
	for (size_t b = 0; b < AXL__BACKENDS_MAX; b++) {
		free(ctx->library[b]);
		free(ctx->runtime_env[b]);
		free(ctx->compute_library[b]);
	}
	free(ctx->state_dir);
	free(ctx->k8s_service_host);
	free(ctx->vis_unapplied);
	for (size_t v = 0; v < ctx->vis_n; v++)
		free(ctx->vis[v].value);
	free(ctx->vis);
	pthread_mutex_destroy(&ctx->lock);
	free(ctx);
}

