/* SPDX-License-Identifier: MIT */
/* The device plugin's answers (src/compat/kubernetes/: preferred.c, allocate.c) to whatever a kubelet, or
 * anything else on its socket, may ask: each input is a sequence of GetPreferredAllocation
 * and Allocate requests on the resources of a simulated node (four H100s on an NVSwitch,
 * two MI210s in an xGMI hive, three shares each), their IDs real ones, made-up ones,
 * duplicated, empty or far too many, their sizes anything. Nothing may crash or leak; a
 * refusal names a gRPC code and a message; an answer keeps its promises: exactly the size
 * asked, only available IDs, no ID twice, every must-include ID; an allocation names one
 * CDI device per physical device and nothing for a device not asked. Once, before the
 * first input: on two xGMI islands of four MI210s with one GPU in use, a preferred
 * allocation of 1 and of 3 takes the broken island's, of 4 the whole island. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "axl.h"
#include "compat/kubernetes/plugin.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char spec[] =
	"{\"schema\":\"axl.sim\",\"schema_version\":1,\"host\":{\"numa_nodes\":2},\"devices\":["
	"{\"model\":\"NVIDIA H100 80GB HBM3\",\"count\":2,\"fabric\":\"nvswitch\",\"numa_node\":0},"
	"{\"model\":\"NVIDIA H100 80GB HBM3\",\"count\":2,\"numa_node\":1},"
	"{\"model\":\"AMD Instinct MI210\",\"count\":2,\"fabric\":\"xgmi\",\"numa_node\":1}],"
	"\"links\":[{\"a\":0,\"b\":2,\"kind\":\"nvlink\",\"count\":18}]}\n";

static int edits(void *ud, const axl_device *d, struct kp_edits *out)
{
	(void)ud;
	if (asprintf(&out->cdi, "fuzz.example/dev=%s", axl_device_id(d)) < 0) {
		out->cdi = NULL;
		return -1;
	}
	size_t n = axl_device_node_count(d);
	out->nodes = calloc(n + 1, sizeof *out->nodes);
	out->env = calloc(2, sizeof *out->env);
	if (!out->nodes || !out->env)
		return -1;
	for (size_t i = 0; i < n; i++)
		if ((out->nodes[out->n_nodes] = strdup(axl_device_node(d, i))))
			out->n_nodes++;
	if ((out->env[0] = strdup("FUZZ_VISIBLE=void")))
		out->n_env = 1;
	return 0;
}

/* two xGMI islands of four MI210s (0-3, 4-7), each across both NUMA nodes */
static const char islands_spec[] =
	"{\"schema\":\"axl.sim\",\"schema_version\":1,\"host\":{\"numa_nodes\":2},\"devices\":["
	"{\"model\":\"AMD Instinct MI210\",\"count\":2,\"numa_node\":0},"
	"{\"model\":\"AMD Instinct MI210\",\"count\":2,\"numa_node\":1},"
	"{\"model\":\"AMD Instinct MI210\",\"count\":2,\"numa_node\":0},"
	"{\"model\":\"AMD Instinct MI210\",\"count\":2,\"numa_node\":1}],\"links\":["
	"{\"a\":0,\"b\":1,\"kind\":\"xgmi\"},{\"a\":0,\"b\":2,\"kind\":\"xgmi\"},{\"a\":0,\"b\":3,\"kind\":\"xgmi\"},"
	"{\"a\":4,\"b\":5,\"kind\":\"xgmi\"},{\"a\":4,\"b\":6,\"kind\":\"xgmi\"},"
	"{\"a\":4,\"b\":7,\"kind\":\"xgmi\"}]}\n";

/* The resources of the simulated node text describes, with shares N each. */
static struct kp_node *build(const char *text, int shares)
{
	struct kp_node *n = NULL;
	static char dir[] = "/tmp/axl-fuzz-dp-XXXXXX";
	char path[64];
	memcpy(dir + sizeof dir - 7, "XXXXXX", 6);
	if (!mkdtemp(dir))
		abort();
	snprintf(path, sizeof path, "%s/node.json", dir);
	FILE *f = fopen(path, "w");
	if (!f || fputs(text, f) < 0 || fclose(f) != 0)
		abort();
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV | AXL_CONTEXT_NO_PCI_IDS;
	o.sim = path;
	axl_context *ctx;
	axl_inventory *inv;
	if (axl_context_open(&ctx, &o) || axl_inventory_open(&inv, ctx, 0))
		abort();
	struct kp_options ko = {.parts = KP_PARTS_NONE, .shares = shares, .limiter = "/opt/fuzz/libaxl_limiter.so",
				.simulated = 1};
	char err[256];
	if (kp_build(inv, &ko, edits, NULL, NULL, &n, err, sizeof err) != 0)
		abort();
	axl_inventory_free(inv);
	axl_context_free(ctx);
	unlink(path);
	rmdir(dir);
	return n;
}

/* Islands kept whole: with GPU gone in use, whichever island it is in and whatever the
 * order of the available IDs, 1 and 3 GPUs come from its island, 4 are the other one. */
static void islands_kept(void)
{
	struct kp_node *nd = build(islands_spec, 1);
	if (nd->n != 1 || nd->res[0].n != 8)
		abort();
	const struct kp_resource *r = &nd->res[0];
	for (size_t gone = 0; gone < 8; gone += 5) {
		for (int rev = 0; rev < 2; rev++) {
			const char *avail[7];
			size_t na = 0;
			for (size_t i = 0; i < 8; i++) {
				size_t k = rev ? 7 - i : i;
				if (k != gone)
					avail[na++] = r->devs[k].id;
			}
			for (int size = 1; size <= 4; size++) {
				const char *const *out;
				size_t n;
				void *owner;
				int code;
				char err[256];
				if (kp_preferred(r, avail, na, NULL, 0, size, &out, &n, &owner, &code, err,
						 sizeof err) != 0 ||
				    n != (size_t)size)
					abort();
				for (size_t i = 0; i < n; i++) {
					size_t k = 0;
					while (k < 8 && strcmp(r->devs[k].id, out[i]) != 0)
						k++;
					bool broken = k < 8 && r->devs[k].island == r->devs[gone].island;
					if (k == 8 || k == gone || broken != (size != 4))
						abort();
				}
				kp_release(owner);
			}
		}
	}
	kp_node_free(nd);
}

static struct kp_node *node(void)
{
	static struct kp_node *n;
	if (n)
		return n;
	islands_kept();
	n = build(spec, 3);
	if (n->n != 2)
		abort();
	return n; /* kept for every input */
}

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

#define MAXIDS 48

/* n IDs into ids (storage in buf): real ones by index, or strings from the input */
static size_t ids_from(struct in *in, const struct kp_resource *r, size_t n, const char **ids, char buf[][24])
{
	for (size_t i = 0; i < n; i++) {
		unsigned b = take(in);
		if (b < 0xc0 && r->n) {
			ids[i] = r->devs[b % r->n].id;
		} else if (b == 0xff) {
			ids[i] = NULL; /* what a broken decoder might hand over */
		} else {
			size_t len = take(in) % 23;
			for (size_t k = 0; k < len; k++)
				buf[i][k] = (char)(take(in) | 1);
			buf[i][len] = 0;
			ids[i] = buf[i];
		}
	}
	return n;
}

static bool listed(const char *const *set, size_t n, const char *id)
{
	for (size_t i = 0; i < n; i++)
		if (set[i] && id && strcmp(set[i], id) == 0)
			return true;
	return false;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct kp_node *nd = node();
	struct in in = {data, size};
	struct kp_options ko = {.parts = KP_PARTS_NONE, .shares = 3, .limiter = "/opt/fuzz/libaxl_limiter.so"};
	for (int step = 0; step < 16 && in.n; step++) {
		unsigned op = take(&in);
		const struct kp_resource *r = &nd->res[take(&in) % nd->n];
		const char *a[MAXIDS], *m[MAXIDS];
		char abuf[MAXIDS][24], mbuf[MAXIDS][24];
		char err[512];
		int code = 0;
		void *owner = NULL;
		if (op & 1) {
			size_t na = ids_from(&in, r, take(&in) % MAXIDS, a, abuf);
			size_t nm = ids_from(&in, r, take(&in) % 5, m, mbuf);
			int want = (int)(int8_t)take(&in);
			const char *const *out = NULL;
			size_t n = 0;
			if (kp_preferred(r, a, na, m, nm, want, &out, &n, &owner, &code, err, sizeof err) == 0) {
				if (n != (size_t)want)
					abort();
				for (size_t i = 0; i < n; i++) {
					if (!listed(a, na, out[i]) || listed(out, i, out[i]))
						abort();
				}
				for (size_t i = 0; i < nm; i++)
					if (!listed(out, n, m[i]))
						abort();
			} else if (!code || !err[0]) {
				abort();
			}
		} else {
			size_t na = ids_from(&in, r, take(&in) % MAXIDS, a, abuf);
			struct k8s_container c;
			if (kp_allocate(r, &ko, a, na, &c, &owner, &code, err, sizeof err) == 0) {
				if (c.n_cdi == 0 || c.n_cdi > na || (c.n_mounts && c.n_mounts != 1))
					abort();
				for (size_t i = 0; i < c.n_envs; i++)
					if (!c.envs[i].key || !c.envs[i].value)
						abort();
			} else if (!code || !err[0]) {
				abort();
			}
		}
		kp_release(owner);
	}
	return 0;
}
