/* SPDX-License-Identifier: MIT */
/* GetPreferredAllocation (plugin.h's kp_preferred): the set of the size asked that spans
 * the fewest NVLink/xGMI/RoCE islands, then NUMA nodes, then physical devices, and among
 * equally good sets the one that leaves the node the most whole (below). */
#define _GNU_SOURCE
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "answer.h"

/* What a chosen set leaves behind. Among sets equally good for the container, the one
 * that keeps the most of the node usable for the next request: NVIDIA's go-gpuallocator
 * (best-effort policy) picks the set out of the best split of every available GPU into
 * sets of the size asked, so what it leaves still forms good sets; NVIDIA's plugin issue
 * 1193 shows what it misses (four 1-GPU pods on four NVLink pairs, one GPU of each).
 * Here, the classic best fit: take from the group with the fewest devices left (a
 * broken island before an intact one), then break as few whole groups as possible. A
 * group at three levels: the island (a device without one: its physical device), the
 * island's part on one NUMA node, the physical device (its shares). */
enum { LV_ISLAND, LV_NUMA, LV_UNIT, LV_N };

static bool same_group(const struct kp_dev *a, const struct kp_dev *b, int lv)
{
	bool isl = a->island >= 0 ? a->island == b->island : b->island < 0 && strcmp(a->unit, b->unit) == 0;
	if (lv == LV_ISLAND)
		return isl;
	if (lv == LV_NUMA)
		return isl && a->numa == b->numa;
	return strcmp(a->unit, b->unit) == 0;
}

/* The available devices' groups: index [i * LV_N + lv]. */
struct groups {
	size_t *rep; /* device i's group: the index of its group's first available device */
	int *avail;  /* at a group's first device: the group's available devices */
	int *full;   /* at a group's first device: all of the group's devices, available or not */
	int *taken;  /* scratch, at a group's first device, zero between uses */
};

static void groups_free(struct groups *g)
{
	free(g->rep), free(g->avail), free(g->full), free(g->taken);
}

static int groups_of(struct groups *g, const struct kp_resource *r, const struct kp_dev *const *av, size_t na)
{
	size_t n = (na ? na : 1) * LV_N;
	g->rep = calloc(n, sizeof *g->rep);
	g->avail = calloc(n, sizeof *g->avail);
	g->full = calloc(n, sizeof *g->full);
	g->taken = calloc(n, sizeof *g->taken);
	size_t *firsts = calloc(na ? na : 1, sizeof *firsts);
	if (!g->rep || !g->avail || !g->full || !g->taken || !firsts) {
		free(firsts);
		groups_free(g);
		return -1;
	}
	for (int lv = 0; lv < LV_N; lv++) {
		size_t nf = 0; /* the groups' first devices so far: few (islands, devices) */
		for (size_t i = 0; i < na; i++) {
			size_t f = 0;
			while (f < nf && !same_group(av[firsts[f]], av[i], lv))
				f++;
			if (f == nf) {
				firsts[nf++] = i;
				for (size_t j = 0; j < r->n; j++)
					g->full[i * LV_N + lv] += same_group(av[i], &r->devs[j], lv);
			}
			g->rep[i * LV_N + lv] = firsts[f];
			g->avail[firsts[f] * LV_N + lv]++;
		}
	}
	free(firsts);
	return 0;
}

/* A candidate set's cost, lower first: NVLink/xGMI/RoCE islands it spans (a device without
 * one counts as its own), then NUMA nodes, then physical devices (shares of one device
 * first); then, level by level, the available devices it leaves in the groups it takes
 * from and the whole groups it breaks. */
struct cost {
	int islands, numas, units;
	int left[LV_N], broken[LV_N];
};

static int cost_cmp(const struct cost *a, const struct cost *b)
{
	int ka[3 + 2 * LV_N] = {a->islands, a->numas, a->units}, kb[3 + 2 * LV_N] = {b->islands, b->numas, b->units};
	for (int lv = 0; lv < LV_N; lv++) {
		ka[3 + 2 * lv] = a->left[lv], ka[4 + 2 * lv] = a->broken[lv];
		kb[3 + 2 * lv] = b->left[lv], kb[4 + 2 * lv] = b->broken[lv];
	}
	for (size_t i = 0; i < sizeof ka / sizeof *ka; i++)
		if (ka[i] != kb[i])
			return ka[i] < kb[i] ? -1 : 1;
	return 0;
}

/* The cost of the set of available devices set[0..n). */
static struct cost cost_of(const struct kp_dev *const *av, const struct groups *g, const size_t *set, size_t n)
{
	struct cost c;
	memset(&c, 0, sizeof c);
	for (size_t i = 0; i < n; i++) {
		const struct kp_dev *d = av[set[i]];
		bool isl = false, numa = false, unit = false;
		for (size_t j = 0; j < i; j++) {
			const struct kp_dev *e = av[set[j]];
			isl |= same_group(e, d, LV_ISLAND);
			numa |= e->numa == d->numa;
			unit |= strcmp(e->unit, d->unit) == 0;
		}
		c.islands += !isl;
		c.numas += !numa;
		c.units += !unit;
	}
	for (int lv = 0; lv < LV_N; lv++) {
		for (size_t i = 0; i < n; i++)
			g->taken[g->rep[set[i] * LV_N + lv] * LV_N + lv]++;
		for (size_t i = 0; i < n; i++) {
			size_t k = g->rep[set[i] * LV_N + lv] * LV_N + lv;
			if (!g->taken[k])
				continue; /* counted */
			c.left[lv] += g->avail[k] - g->taken[k];
			c.broken[lv] += g->avail[k] == g->full[k];
			g->taken[k] = 0;
		}
	}
	return c;
}

/* A set grown from an anchor (an island and a NUMA node) and the must-include devices:
 * each next device the best joining one, in the anchor's island, on its NUMA node, a
 * share of a device already chosen; among those, the one whose groups have the fewest
 * devices left. */
struct grow {
	const struct kp_dev *const *av;
	const struct groups *g;
	size_t na;
	int island;
	long long numa;
	size_t *set;
	size_t k;
	int *left; /* [i * LV_N + lv] at a group's first device: its available devices not chosen */
	bool *chosen;
};

static void grow_key(const struct grow *x, size_t i, int key[1 + LV_N])
{
	const struct kp_dev *d = x->av[i];
	bool same_unit = false;
	for (size_t j = 0; j < x->k && !same_unit; j++)
		same_unit = strcmp(x->av[x->set[j]]->unit, d->unit) == 0;
	key[0] = !(x->island >= 0 && d->island == x->island) * 4 + !(d->numa == x->numa) * 2 + !same_unit;
	for (int lv = 0; lv < LV_N; lv++)
		key[1 + lv] = x->left[x->g->rep[i * LV_N + lv] * LV_N + lv];
}

static void grow_take(struct grow *x, size_t i)
{
	x->chosen[i] = true;
	x->set[x->k++] = i;
	for (int lv = 0; lv < LV_N; lv++)
		x->left[x->g->rep[i * LV_N + lv] * LV_N + lv]--;
}

static void grow(struct grow *x, size_t size)
{
	while (x->k < size) {
		size_t pick = x->na;
		int best[1 + LV_N], key[1 + LV_N];
		for (size_t i = 0; i < x->na; i++) {
			if (x->chosen[i])
				continue;
			grow_key(x, i, key);
			int c = pick == x->na ? -1 : 0;
			for (int q = 0; q < 1 + LV_N && c == 0; q++)
				c = key[q] < best[q] ? -1 : key[q] > best[q];
			if (c < 0) {
				pick = i;
				memcpy(best, key, sizeof key);
			}
		}
		if (pick == x->na)
			return;
		grow_take(x, pick);
	}
}

int kp_preferred(const struct kp_resource *r, const char *const *avail, size_t na, const char *const *must, size_t nm,
		 int size, const char *const **ids, size_t *n, void **owner, int *code, char *err, size_t cap)
{
	*ids = NULL;
	*n = 0;
	*owner = NULL;
	if (size <= 0)
		return kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap, "allocation_size %d: at least 1 device is asked",
				 size);
	if ((size_t)size > na)
		return kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				 "allocation_size %d is more than the %zu available device IDs", size, na);
	if (nm > (size_t)size)
		return kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				 "%zu must-include device IDs do not fit in allocation_size %d", nm, size);
	const struct kp_dev **av = calloc(na, sizeof *av);
	size_t *musts = calloc(nm ? nm : 1, sizeof *musts), *set = calloc((size_t)size, sizeof *set),
	       *best = calloc((size_t)size, sizeof *best);
	int *left = calloc(na * LV_N, sizeof *left);
	bool *chosen = calloc(na, sizeof *chosen);
	struct groups g = {0};
	int rc = 0;
	if (!av || !musts || !set || !best || !left || !chosen)
		rc = kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; i < na && rc == 0; i++) {
		av[i] = kp_dev_of(r, avail[i]);
		if (!av[i])
			rc = kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				       "unknown device ID '%s' in available_deviceIDs of %s", avail[i] ? avail[i] : "",
				       r->name);
		for (size_t j = 0; j < i && rc == 0; j++)
			if (av[j] == av[i])
				rc = kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap, "device ID '%s' is listed twice",
					       avail[i]);
	}
	size_t nmust = 0;
	for (size_t i = 0; i < nm && rc == 0; i++) {
		size_t k = 0;
		while (k < na && (!must[i] || strcmp(avail[k], must[i]) != 0))
			k++;
		if (k == na)
			rc = kp_refuse(code, K8S_INVALID_ARGUMENT, err, cap,
				       "must-include device ID '%s' is not among the available_deviceIDs of %s",
				       must[i] ? must[i] : "", r->name);
		else if (!chosen[k])
			chosen[k] = true, musts[nmust++] = k;
	}
	if (rc == 0 && groups_of(&g, r, (const struct kp_dev *const *)av, na) != 0)
		rc = kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	/* anchors: each island and NUMA node an available device has; the cheapest set wins */
	struct cost bestc;
	memset(&bestc, 0, sizeof bestc);
	size_t nbest = 0;
	for (size_t a = 0; a < na && rc == 0; a++) {
		bool tried = false; /* an anchor already tried gives the same set */
		for (size_t b = 0; b < a && !tried; b++)
			tried = av[b]->island == av[a]->island && av[b]->numa == av[a]->numa;
		if (tried)
			continue;
		struct grow x = {
			(const struct kp_dev *const *)av, &g, na, av[a]->island, av[a]->numa, set, 0, left, chosen
		};
		memset(chosen, 0, na * sizeof *chosen);
		for (size_t i = 0; i < na; i++)
			for (int lv = 0; lv < LV_N; lv++)
				left[i * LV_N + lv] = g.avail[i * LV_N + lv];
		for (size_t i = 0; i < nmust; i++)
			grow_take(&x, musts[i]);
		grow(&x, (size_t)size);
		struct cost c = cost_of((const struct kp_dev *const *)av, &g, set, x.k);
		if (x.k == (size_t)size && (nbest == 0 || cost_cmp(&c, &bestc) < 0)) {
			bestc = c;
			memcpy(best, set, x.k * sizeof *set);
			nbest = x.k;
		}
	}
	struct pool *p = NULL;
	const char **out = rc == 0 ? kp_pmalloc(&p, (nbest ? nbest : 1) * sizeof *out) : NULL;
	if (rc == 0 && !out)
		rc = kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	for (size_t i = 0; rc == 0 && i < nbest; i++)
		if (!(out[i] = kp_pstrdup(&p, av[best[i]]->id)))
			rc = kp_refuse(code, K8S_INTERNAL, err, cap, "out of memory");
	groups_free(&g);
	free(av), free(musts), free(set), free(best), free(left), free(chosen);
	if (rc) {
		kp_release(p);
		return -1;
	}
	*ids = out;
	*n = nbest;
	*owner = p;
	return 0;
}
