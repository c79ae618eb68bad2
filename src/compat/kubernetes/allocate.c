/* SPDX-License-Identifier: MIT */
/* Allocate (plugin.h's kp_allocate): what one container gets for the devices asked, their
 * CDI names or, without CDI, their spec's edits; the limiter for shares. */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

int kp_allocate(const struct kp_resource *r, const struct kp_options *o, const char *const *ids, size_t n,
		struct k8s_container *out, void **owner, int *code, char *err, size_t cap)
{
	memset(out, 0, sizeof *out);
	*owner = NULL;
	if (n == 0)
		return kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap, "no device ID in the request for %s", r->name);
	if (n > r->n)
		return kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				 "%zu device IDs asked of %s, which has %zu (first: '%s')", n, r->name, r->n,
				 ids[0] ? ids[0] : "");
	const struct kp_dev **d = calloc(n, sizeof *d);
	if (!d)
		return kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; i < n; i++) {
		d[i] = kp_dev_of(r, ids[i]);
		int rc = 0;
		if (!d[i])
			rc = kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap, "unknown device ID '%s' for %s",
				       ids[i] ? ids[i] : "", r->name);
		else if (!d[i]->healthy)
			rc = kp_refuse(code, K8S_FAILED_PRECONDITION, err, cap, "device ID '%s' of %s is unhealthy",
				       ids[i], r->name);
		for (size_t j = 0; j < i && rc == 0; j++)
			if (d[j] == d[i])
				rc = kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap, "device ID '%s' is asked twice",
					       ids[i]);
		if (rc) {
			free(d);
			return -1;
		}
	}
	struct pool *p = NULL;
	size_t cap_nodes = 0, cap_env = 8, ncdi = 0, cap_mounts = 2;
	for (size_t i = 0; i < n; i++) {
		cap_nodes += d[i]->ed.n_nodes;
		cap_env += d[i]->ed.n_env;
		cap_mounts += d[i]->ed.n_mounts;
	}
	const char **cdi = kp_pmalloc(&p, n * sizeof *cdi);
	struct k8s_node *nodes = kp_pmalloc(&p, (cap_nodes + 1) * sizeof *nodes);
	struct k8s_kv *env = kp_pmalloc(&p, cap_env * sizeof *env);
	struct k8s_mount *mounts = kp_pmalloc(&p, cap_mounts * sizeof *mounts);
	struct k8s_kv *ann = kp_pmalloc(&p, sizeof *ann);
	if (!cdi || !nodes || !env || !mounts || !ann) {
		free(d);
		kp_release(p);
		return kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	}
	size_t nn = 0, ne = 0, nm = 0;
	/* the physical devices, once each however many of their shares were asked */
	const struct kp_dev **units = kp_pmalloc(&p, n * sizeof *units);
	int *count = kp_pmalloc(&p, n * sizeof *count);
	size_t nu = 0;
	for (size_t i = 0; units && count && i < n; i++) {
		size_t u = 0;
		while (u < nu && strcmp(units[u]->unit, d[i]->unit) != 0)
			u++;
		if (u == nu) {
			units[nu] = d[i];
			count[nu++] = 0;
		}
		count[u]++;
	}
	for (size_t u = 0; units && u < nu; u++) {
		const struct kp_dev *x = units[u];
		if (x->ed.cdi && o->list == KP_LIST_CDI)
			cdi[ncdi++] = x->ed.cdi;
		/* without CDI, what the spec mounts is mounted by the kubelet itself */
		for (size_t k = 0; o->list == KP_LIST_MOUNTS && k < x->ed.n_mounts && nm < cap_mounts; k++) {
			bool dup = false;
			for (size_t j = 0; j < nm && !dup; j++)
				dup = strcmp(mounts[j].container_path, x->ed.mount_ctr[k]) == 0;
			if (!dup)
				mounts[nm++] = (struct k8s_mount){x->ed.mount_ctr[k], x->ed.mount_host[k], 1};
		}
		for (size_t k = 0; k < x->ed.n_nodes; k++) {
			bool dup = false;
			for (size_t j = 0; j < nn && !dup; j++)
				dup = strcmp(nodes[j].host_path, x->ed.nodes[k]) == 0;
			if (!dup)
				nodes[nn++] = (struct k8s_node){x->ed.nodes[k], x->ed.nodes[k], "rw"};
		}
		for (size_t k = 0; k < x->ed.n_env; k++) {
			const char *kv = x->ed.env[k], *eq = strchr(kv, '=');
			if (!eq)
				continue;
			char *name = kp_pmalloc(&p, (size_t)(eq - kv) + 1);
			if (!name)
				continue;
			memcpy(name, kv, (size_t)(eq - kv));
			name[eq - kv] = 0;
			bool dup = false;
			for (size_t j = 0; j < ne && !dup; j++)
				dup = strcmp(env[j].key, name) == 0;
			if (!dup && ne < cap_env)
				env[ne++] = (struct k8s_kv){name, eq + 1};
		}
	}
	/* the visibility variable, for runtimes without CDI: the devices by UUID */
	const char *vis = units && nu ? units[0]->visible_env : NULL;
	if (vis) {
		size_t len = 1;
		bool all = true;
		for (size_t u = 0; u < nu; u++) {
			all &=
			    units[u]->uuid != NULL && units[u]->visible_env && strcmp(units[u]->visible_env, vis) == 0;
			len += units[u]->uuid ? strlen(units[u]->uuid) + 1 : 0;
		}
		char *v = all ? kp_pmalloc(&p, len) : NULL;
		if (v) {
			v[0] = 0;
			for (size_t u = 0; u < nu; u++) {
				if (u)
					strcat(v, ",");
				strcat(v, units[u]->uuid);
			}
			size_t j = 0;
			while (j < ne && strcmp(env[j].key, vis) != 0)
				j++;
			if (j < cap_env) {
				env[j] = (struct k8s_kv){vis, v};
				if (j == ne)
					ne++;
			}
		}
	}
	/* shares: the limiter, preloaded, holding memory and compute to k/N of each device */
	bool shared = false;
	for (size_t i = 0; i < n; i++)
		shared |= d[i]->share >= 0;
	size_t na = 0;
	if (shared && o->limiter && o->shares > 1 && ne + 5 <= cap_env && nm + 2 <= cap_mounts) {
		mounts[nm++] = (struct k8s_mount){KP_LIMITER_PATH, o->limiter, 1};
		/* preloaded into every process beside the workload's own LD_PRELOAD, which an
		 * LD_PRELOAD of ours would replace (HAMi mounts /etc/ld.so.preload the same way) */
		if (o->preload_file)
			mounts[nm++] = (struct k8s_mount){KP_PRELOAD_LIST, o->preload_file, 1};
		char *devs = NULL, *mem = NULL, *pct = NULL, *anns = NULL;
		size_t ld = 0, lm = 0, lp = 0, la = 0;
		FILE *fd = open_memstream(&devs, &ld), *fm = open_memstream(&mem, &lm), *fp = open_memstream(&pct, &lp),
		     *fa = open_memstream(&anns, &la);
		for (size_t u = 0; fd && fm && fp && fa && u < nu; u++) {
			const struct kp_dev *x = units[u];
			const char *sep = u ? "," : "";
			fprintf(fd, "%s%s", sep, x->uuid ? x->uuid : x->axl_id);
			if (x->memory_bytes > 0)
				fprintf(fm, "%s%lld", sep, (long long)(x->memory_bytes / o->shares * count[u]));
			else
				fprintf(fm, "%snone", sep);
			int pc = 100 * count[u] / o->shares;
			fprintf(fp, "%s%d", sep, pc < 1 ? 1 : pc > 100 ? 100 : pc);
			fprintf(fa, "%s%s=%d/%d", sep, x->unit, count[u], o->shares);
		}
		if (fd)
			fclose(fd);
		if (fm)
			fclose(fm);
		if (fp)
			fclose(fp);
		if (fa)
			fclose(fa);
		if (!o->preload_file)
			env[ne++] = (struct k8s_kv){"LD_PRELOAD", KP_LIMITER_PATH};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_VERSION", "1"};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_DEVICES", devs ? kp_pstrdup(&p, devs) : ""};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_MEMORY_BYTES", mem ? kp_pstrdup(&p, mem) : ""};
		env[ne++] = (struct k8s_kv){"AXL_LIMIT_COMPUTE_PERCENT", pct ? kp_pstrdup(&p, pct) : ""};
		ann[na++] = (struct k8s_kv){"axl.dev/shares", anns ? kp_pstrdup(&p, anns) : ""};
		free(devs), free(mem), free(pct), free(anns);
	}
	free(d);
	out->cdi = cdi;
	out->n_cdi = ncdi;
	out->nodes = nodes;
	out->n_nodes = nn;
	out->envs = env;
	out->n_envs = ne;
	out->mounts = mounts;
	out->n_mounts = nm;
	out->annotations = ann;
	out->n_annotations = na;
	*owner = p;
	return 0;
}
