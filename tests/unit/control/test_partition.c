/* SPDX-License-Identifier: MIT */
/* Partitions below the CLI (src/lib/partition.c, mig_rules.c, mig_sim.c):
 *  - the MIG rules of every GPU axl knows: on an empty GPU each profile fits exactly its
 *    instance limit, instances never share a memory slice nor exceed the compute
 *    slices, and the combinations the MIG user guide allows (and refuses) on an H100;
 *  - the public calls on a simulated 2 x H100 node: profile names, "mig-" names,
 *    NVML ids and "<n>g.<m>gb" requests rounded up to a real profile, the returned row
 *    (strings, NULL-terminated env and node arrays, an id without ':' or ','), list,
 *    idempotent destroy, the errors;
 *  - the refusals that come before any hardware: a re-rooted context (AXL_ENOTSYS), an
 *    unprivileged caller on the live system (AXL_EPERM, in a child that gave up root). */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "mig_rules.h"

static void rules_invariants(void)
{
	size_t ng = 0;
	const struct axl__mig_gpu *gs = axl__mig_gpus(&ng);
	CHECK(ng >= 7);
	for (size_t i = 0; i < ng; i++) {
		const struct axl__mig_gpu *g = &gs[i];
		for (size_t j = 0; j < g->nprofiles; j++) {
			const struct axl__mig_profile *p = &g->profiles[j];
			CHECK(axl__mig_profile(g, p->name) == p);
			CHECK(p->slices >= 1 && p->slices <= g->slices);
			CHECK(p->nstarts >= 1 && p->nstarts <= AXL__MIG_PLACEMENTS_MAX);
			/* alone on the GPU: exactly its instance limit */
			if (axl__mig_free(g, NULL, 0, p) != p->max_instances)
				fprintf(stderr, "%s %s: %d free on an empty GPU, limit %d\n", g->label, p->name,
					axl__mig_free(g, NULL, 0, p), p->max_instances);
			CHECK_INT(axl__mig_free(g, NULL, 0, p), p->max_instances);
			/* filled one by one: no shared memory slice, compute within the GPU */
			struct axl__mig_inst used[16];
			size_t n = 0;
			int start;
			while (n < 16 && (start = axl__mig_place(g, used, n, p)) >= 0) {
				for (size_t k = 0; k < n; k++)
					CHECK(start + p->mem_slices <= used[k].start ||
					      used[k].start + used[k].p->mem_slices <= start);
				CHECK(start + p->mem_slices <= g->mem_slices);
				used[n].p = p;
				used[n].start = start;
				n++;
			}
			CHECK_INT((int)n, p->max_instances);
			CHECK((int)n * p->slices <= g->slices);
		}
	}
	CHECK(axl__mig_gpu_of("no-such-gpu") == NULL);
	CHECK(axl__mig_profile(NULL, "1g.10gb") == NULL);
}

/* Place the named profiles one after another on an H100; how many went. */
static int h100_place(const char *const *names, size_t n)
{
	const struct axl__mig_gpu *g = axl__mig_gpu_of("nvidia-h100-sxm5-80gb");
	CHECK(g != NULL);
	if (!g)
		return -1;
	struct axl__mig_inst used[16];
	size_t placed = 0;
	for (size_t i = 0; i < n && placed < 16; i++) {
		const struct axl__mig_profile *p = axl__mig_profile(g, names[i]);
		CHECK(p != NULL);
		int start = p ? axl__mig_place(g, used, placed, p) : -1;
		if (start < 0)
			break;
		used[placed].p = p;
		used[placed].start = start;
		placed++;
	}
	return (int)placed;
}

static void rules_h100(void)
{
	const char *a[] = {"3g.40gb", "4g.40gb", "1g.10gb"};
	CHECK_INT(h100_place(a, 3), 2); /* 3g + 4g is the whole GPU */
	const char *b[] = {"4g.40gb", "3g.40gb", "1g.10gb"};
	CHECK_INT(h100_place(b, 3), 2);
	const char *c[] = {"1g.20gb", "1g.20gb", "1g.20gb", "1g.20gb", "1g.10gb"};
	CHECK_INT(h100_place(c, 5), 4); /* four double-memory 1g take all 8 memory slices */
	const char *d[] = {"2g.20gb", "2g.20gb", "2g.20gb", "1g.10gb", "1g.10gb"};
	CHECK_INT(h100_place(d, 5), 4); /* 3 x 2g + 1g = 7 compute slices */
	const char *e[] = {"7g.80gb", "1g.10gb"};
	CHECK_INT(h100_place(e, 2), 1);
	const char *f[] = {"1g.10gb", "7g.80gb"};
	CHECK_INT(h100_place(f, 2), 1);
	const char *g[] = {"1g.10gb+me", "1g.10gb+me"};
	CHECK_INT(h100_place(g, 2), 1); /* one media-engine instance per GPU */
	const char *h[] = {"3g.40gb", "3g.40gb", "1g.10gb"};
	CHECK_INT(h100_place(h, 3), 2);
	/* a 1g first keeps the 4g possible (the last free placement is taken) */
	const char *k[] = {"1g.10gb", "4g.40gb", "2g.20gb", "1g.10gb"};
	CHECK_INT(h100_place(k, 4), 3);
}

static int bad_id(const char *id)
{
	return !id || !*id || strchr(id, ':') || strchr(id, ',');
}

static size_t count(const char *const *v)
{
	size_t n = 0;
	while (v && v[n])
		n++;
	return n;
}

static void api_sim(const char *dir)
{
	char spec[512], state[512];
	snprintf(spec, sizeof spec, "%s/h100.json", dir);
	snprintf(state, sizeof state, "%s/state", dir);
	FILE *f = fopen(spec, "w");
	CHECK(f != NULL);
	if (!f)
		return;
	fputs("{\"schema\":\"axl.sim\",\"schema_version\":1,\"devices\":[{\"model\":\"NVIDIA H100 80GB HBM3\","
	      "\"uuids\":[\"stub-device-0\",\"stub-device-1\"],\"mig\":true},{\"model\":\"NVIDIA H100 80GB "
	      "HBM3\",\"count\":1,\"mig\":false}]}\n",
	      f);
	fclose(f);
	char sv[600];
	snprintf(sv, sizeof sv, "AXL_STATE_DIR=%s", state);
	const char *env[] = {sv, NULL};
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sim = spec;
	o.env = env;
	axl_context *ctx;
	axl_inventory *inv;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0)) {
		fprintf(stderr, "sim context: %s\n", axl_error_last());
		CHECK(0);
		return;
	}

	struct axl_partition *p = NULL, *q = NULL;
	CHECK_INT(axl_partition_create(ctx, inv, "stub-device-0", "mig-1g.7gb", 0, &p), 0);
	if (p) {
		CHECK_STR(p->profile, "1g.10gb");
		CHECK_INT(p->profile_id, 19);
		CHECK_INT(p->compute_units, 16);
		CHECK_INT(p->memory_bytes, 9984ll << 20);
		CHECK(!bad_id(p->id));
		CHECK(strncmp(p->id, "MIG-", 4) == 0);
		CHECK_STR(p->parent, "nvidia:0");
		CHECK_STR(p->parent_uuid, "stub-device-0");
		CHECK_STR(p->kind, "mig");
		CHECK_INT(p->owner_pid, getpid());
		CHECK_INT(p->owner_alive, 1);
		CHECK_INT(p->source, AXL_SOURCE_SIM);
		CHECK_INT(count(p->env), 2);
		char want[200];
		snprintf(want, sizeof want, "NVIDIA_VISIBLE_DEVICES=%s", p->id);
		CHECK_STR(p->env[0], want);
		CHECK(count(p->device_nodes) >= 2);
	}
	/* by NVML id, and by the exact name with a prefix in capitals */
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "14", 0, &q), 0);
	if (q)
		CHECK_STR(q->profile, "2g.20gb");
	axl_free(q);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "MIG-1g.20gb", 0, &q), 0);
	if (q)
		CHECK_STR(q->profile, "1g.20gb");
	axl_free(q);
	q = NULL;
	/* what does not exist, and what cannot be */
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "99", 0, &q), AXL_ENOENT);
	CHECK(strstr(axl_error_last(), "1g.10gb") != NULL); /* names what is offered */
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "2g.99gb", 0, &q), AXL_ENOENT);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "", 0, &q), AXL_ENOENT);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:9", "1g.10gb", 0, &q), AXL_ENOENT);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:2", "1g.10gb", 0, &q), AXL_ENOTSUP); /* MIG off */
	CHECK_INT(axl_partition_create(ctx, inv, NULL, "1g.10gb", 0, &q), AXL_EINVAL);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "1g.10gb", 0, NULL), AXL_EINVAL);
	CHECK(q == NULL);
	/* 1g + 2g + 1g(double memory) used 4 compute slices: the 4g.40gb does not fit */
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "4g.40gb", 0, &q), AXL_ENOSPC);
	CHECK_INT(axl_partition_set_mode(ctx, inv, "nvidia:0", "compute", "CPX", AXL_PARTITION_CONFIRM),
		  AXL_ENOTSUP);

	struct axl_partition *rows = NULL;
	size_t n = 0;
	CHECK_INT(axl_partition_list(ctx, inv, &rows, &n), 0);
	CHECK_INT(n, 3);
	for (size_t i = 0; i < n; i++) {
		CHECK(!bad_id(rows[i].id));
		CHECK_STR(rows[i].parent, "nvidia:0");
	}
	axl_free(rows);

	/* a fresh inventory lists them as devices */
	axl_inventory *inv2;
	CHECK_INT(axl_inventory_open(&inv2, ctx, 0), 0);
	const axl_device *gpu = axl_inventory_find(inv2, "nvidia:0");
	CHECK(gpu && axl_device_child_count(gpu) == 3);
	if (p) {
		const axl_device *c = axl_inventory_find(inv2, p->id);
		CHECK(c != NULL && axl_device_parent(c) == gpu);
	}
	size_t removed = 9;
	if (p) {
		CHECK_INT(axl_partition_destroy(ctx, inv2, "nvidia:0", p->id, 0, &removed), 0);
		CHECK_INT(removed, 1);
		CHECK_INT(axl_partition_destroy(ctx, inv2, NULL, p->id, 0, &removed), 0); /* gone: fine */
		CHECK_INT(removed, 0);
	}
	CHECK_INT(axl_partition_destroy(ctx, inv2, NULL, NULL, 0, &removed), AXL_EINVAL);
	CHECK_INT(axl_partition_cleanup(ctx, inv2, &removed), 0);
	CHECK_INT(removed, 0); /* this process owns the other two and is alive */
	axl_inventory *inv3; /* inv2 still holds the destroyed one: a fresh inventory */
	CHECK_INT(axl_inventory_open(&inv3, ctx, 0), 0);
	CHECK_INT(axl_partition_list(ctx, inv3, &rows, &n), 0);
	CHECK_INT(n, 2);
	for (size_t i = 0; i < n; i++) { /* this process's, running: kept */
		const char *why = NULL;
		CHECK_INT(rows[i].owner, AXL_PARTITION_OWNER_WORKLOAD);
		CHECK_INT(axl_partition_cleanup_action(&rows[i], &why), AXL_PARTITION_KEEP);
		CHECK(why && strstr(why, "running"));
	}
	axl_inventory_free(inv3);
	axl_free(rows);
	axl_free(p);

	/* issue 34: the operator's partition outlives cleanup; a workload's goes once its
	 * process has exited */
	struct axl_partition *op = NULL;
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:1", "1g.10gb", AXL_PARTITION_OPERATOR, &op), 0);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:1", "1g.10gb", 1u << 7, &q), AXL_EINVAL); /* unknown flag */
	if (op) {
		CHECK_INT(op->owner, AXL_PARTITION_OWNER_OPERATOR);
		CHECK_INT(op->owner_pid, 0);
		CHECK_INT(op->owner_alive, 0);
		CHECK(op->created > 0);
	}
	pid_t child = fork();
	if (child == 0) { /* a workload: creates one and exits without destroying it */
		struct axl_partition *w = NULL;
		int rc = axl_partition_create(ctx, inv, "nvidia:1", "2g.20gb", 0, &w);
		_exit(rc == 0 && w && w->owner == AXL_PARTITION_OWNER_WORKLOAD && w->owner_pid == getpid() ? 0 : 1);
	}
	int status = -1;
	CHECK(child > 0 && waitpid(child, &status, 0) == child);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	axl_inventory *inv4;
	CHECK_INT(axl_inventory_open(&inv4, ctx, 0), 0);
	CHECK_INT(axl_partition_list(ctx, inv4, &rows, &n), 0);
	CHECK_INT(n, 4);
	size_t destroy = 0, keep = 0;
	for (size_t i = 0; i < n; i++) {
		int a = axl_partition_cleanup_action(&rows[i], NULL);
		destroy += a == AXL_PARTITION_DESTROY;
		keep += a == AXL_PARTITION_KEEP;
		if (a == AXL_PARTITION_DESTROY) {
			CHECK_INT(rows[i].owner_pid, child);
			CHECK_STR(rows[i].profile, "2g.20gb");
		}
		if (op && strcmp(rows[i].id, op->id) == 0) {
			const char *why = NULL;
			CHECK_INT(axl_partition_cleanup_action(&rows[i], &why), AXL_PARTITION_KEEP);
			CHECK(why && strstr(why, "operator"));
		}
	}
	CHECK_INT(destroy, 1);
	CHECK_INT(keep, 3);
	axl_free(rows);
	CHECK_INT(axl_partition_cleanup(ctx, inv4, &removed), 0);
	CHECK_INT(removed, 1);
	axl_inventory_free(inv4);
	CHECK_INT(axl_inventory_open(&inv4, ctx, 0), 0);
	CHECK_INT(axl_partition_list(ctx, inv4, &rows, &n), 0);
	CHECK_INT(n, 3); /* this process's two and the operator's */
	for (size_t i = 0; i < n; i++)
		CHECK(rows[i].owner_pid != child);
	CHECK_INT(axl_partition_cleanup_action(NULL, NULL), AXL_PARTITION_KEEP);
	axl_free(rows);
	axl_free(op);
	axl_inventory_free(inv4);
	axl_inventory_free(inv2);
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

static void refusals(const char *dir)
{
	/* a re-rooted context: before anything else */
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = dir;
	axl_context *ctx;
	axl_inventory *inv;
	struct axl_partition *p = NULL;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	CHECK_INT(axl_partition_create(ctx, inv, "nvidia:0", "1g.10gb", 0, &p), AXL_ENOTSYS);
	CHECK(strstr(axl_error_last(), "re-rooted") != NULL);
	CHECK_INT(axl_partition_destroy(ctx, inv, NULL, "MIG-x", 0, NULL), AXL_ENOTSYS);
	CHECK_INT(axl_partition_set_mode(ctx, inv, "amdgpu:0", "compute", "CPX", AXL_PARTITION_CONFIRM),
		  AXL_ENOTSYS);
	axl_inventory_free(inv);
	axl_context_free(ctx);

	/* the live system without privileges: refused before the device is even looked up */
	pid_t pid = fork();
	if (pid == 0) {
		if (geteuid() == 0 && (setgid(65534) != 0 || setuid(65534) != 0))
			_exit(3);
		char sv[600];
		snprintf(sv, sizeof sv, "AXL_STATE_DIR=%s/unpriv", "/tmp");
		const char *env[] = {sv, NULL};
		struct axl_context_options l = AXL_CONTEXT_OPTIONS_INIT;
		l.env = env;
		if (axl_context_open(&ctx, &l) || axl_inventory_open(&inv, ctx, 0))
			_exit(4);
		int rc = axl_partition_create(ctx, inv, "nvidia:0", "1g.10gb", 0, &p);
		int ok = rc == AXL_EPERM && strstr(axl_error_last(), "root") != NULL;
		rc = axl_partition_set_mode(ctx, inv, "amdgpu:0", "compute", "CPX", AXL_PARTITION_CONFIRM);
		ok = ok && rc == AXL_EPERM;
		_exit(ok ? 0 : 5);
	}
	int st = 0;
	CHECK(pid > 0 && waitpid(pid, &st, 0) == pid);
	CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
}

int main(void)
{
	char dir[] = "/tmp/axl-test-partition-XXXXXX";
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 2;
	}
	rules_invariants();
	rules_h100();
	api_sim(dir);
	refusals(dir);
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
	CHECK_INT(system(cmd), 0);
	return check_summary();
}
