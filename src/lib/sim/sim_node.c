/* SPDX-License-Identifier: MIT */
/* A simulated node (sim.h, docs/sim.md): its inventory from the spec and the device
 * database, and live metrics from a deterministic pseudo-random walk per device. Nothing
 * here reads a device or a vendor library; the only file is the simulated node's own
 * state (its partitions, docs/partitions.md). What a device gets beyond the database
 * (driver, nodes, partitions, fabric) its vendor's backend says (struct axl__sim_ops). */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "devicedb.h"
#include "sample.h"
#include "sim.h"
#include "state.h"

#define SIM AXL_SOURCE_SIM

/* ---- inventory ------------------------------------------------------------------------ */

static void sim_host(struct axl_inventory *inv, const struct axl__sim *sim)
{
	axl__host_set_str(inv, AXL_HOST_HOSTNAME, SIM, sim->hostname);
	axl__host_set_str(inv, AXL_HOST_CPU_MODEL, SIM, sim->cpu_model);
	axl__host_set_str(inv, AXL_HOST_CPU_VENDOR, SIM, "sim");
	axl__host_set_str(inv, AXL_HOST_CPU_ARCH, SIM, "x86_64");
	if (sim->memory_bandwidth > 0)
		axl__host_set_int(inv, AXL_HOST_MEMORY_BANDWIDTH, SIM, sim->memory_bandwidth);
	if (sim->cloud_provider[0])
		axl__host_set_str(inv, AXL_HOST_CLOUD_PROVIDER, SIM, sim->cloud_provider);
	if (sim->instance_type[0])
		axl__host_set_str(inv, AXL_HOST_CLOUD_INSTANCE_TYPE, SIM, sim->instance_type);
	axl__host_set_int(inv, AXL_HOST_CPU_SOCKETS, SIM, sim->numa_nodes);
	axl__host_set_int(inv, AXL_HOST_CPU_CORES, SIM, (int64_t)sim->numa_nodes * sim->cores_per_node);
	axl__host_set_int(inv, AXL_HOST_CPU_THREADS, SIM, (int64_t)sim->numa_nodes * sim->cores_per_node * 2);
	axl__host_set_int(inv, AXL_HOST_MEMORY_TOTAL, SIM, (int64_t)sim->numa_nodes * sim->memory_per_node);
	int n = sim->numa_nodes;
	for (int k = 0; k < n; k++) {
		struct axl_numa_node *nn = AXL__VEC_PUSH(inv->host.numa);
		int *dist = axl__arena_alloc(&inv->arena, (size_t)n * sizeof *dist);
		if (!nn || !dist)
			return;
		nn->id = k;
		/* threads: cores of every node first, then their siblings (as Linux numbers them) */
		int c = sim->cores_per_node, all = n * c;
		nn->cpulist = axl__arena_printf(&inv->arena, "%d-%d,%d-%d", k * c, k * c + c - 1, all + k * c,
						all + k * c + c - 1);
		nn->memory_bytes = sim->memory_per_node;
		for (int j = 0; j < n; j++)
			dist[j] = j == k ? 10 : 21;
		nn->distances = dist;
		nn->distance_count = (size_t)n;
	}
}

/* The first PCI ids the database knows the model by. */
static const struct axl__db_match *db_ids(const struct axl__db_entry *e)
{
	size_t idx = (size_t)(e - axl__db_entries);
	const struct axl__db_match *best = NULL;
	for (size_t i = 0; i < axl__db_match_count; i++)
		if (axl__db_matches[i].entry == idx && (!best || (axl__db_matches[i].has_sub && !best->has_sub)))
			best = &axl__db_matches[i];
	return best;
}

static bool hbm(const struct axl__db_entry *e)
{
	return e->s_memory_type && strncmp(axl__db_memory_type(e), "HBM", 3) == 0;
}

/* The sim ops of the first backend that owns d. */
static const struct axl__sim_ops *ops_of_dev(const struct axl_device *d)
{
	for (size_t b = 0; b < axl__backend_total; b++) {
		const struct axl__backend *be = axl__backends[b];
		if (be->sim && axl__backend_owns(be, d))
			return be->sim;
	}
	return NULL;
}

const struct axl__sim_ops *axl__sim_ops_of(const struct axl__db_entry *e)
{
	const struct axl__db_match *m = db_ids(e);
	if (!m)
		return NULL;
	/* a device of the model as the PCI scan would make it: vendor and id prefix */
	axl_family fam = e->family ? (axl_family)e->family : AXL_FAMILY_GPU;
	struct axl_device probe;
	memset(&probe, 0, sizeof probe);
	probe.prefix = axl__vendor_prefix(m->vendor, fam);
	axl__set_int(&probe, AXL_ATTR_FAMILY, AXL_SOURCE_DEVICEDB, fam);
	axl__set_int(&probe, AXL_ATTR_VENDOR_ID, AXL_SOURCE_DEVICEDB, m->vendor);
	return ops_of_dev(&probe);
}

int axl__sim_minor(const struct axl__sim *sim, size_t i)
{
	if (!sim || i >= sim->n)
		return -1;
	const struct axl__db_match *m = db_ids(sim->devs[i].db);
	int minor = 0;
	for (size_t k = 0; k < i; k++) {
		const struct axl__db_match *o = db_ids(sim->devs[k].db);
		if (m && o && o->vendor == m->vendor)
			minor++;
	}
	return minor;
}

static void sim_device(struct axl_inventory *inv, const struct axl__sim *sim, size_t i,
		       const struct axl__state *st)
{
	const struct axl__sim_dev *sd = &sim->devs[i];
	const struct axl__db_entry *e = sd->db;
	const struct axl__db_match *m = db_ids(e);
	int vendor = m ? m->vendor : -1;
	axl_family fam = e->family ? (axl_family)e->family : AXL_FAMILY_GPU;
	struct axl_device *d = axl__device_new(inv, "sim", vendor >= 0 ? axl__vendor_prefix(vendor, fam) : "accel");
	if (!d)
		return;
	const axl_source DB = AXL_SOURCE_DEVICEDB;
	d->db = e;
	axl__set_int(d, AXL_ATTR_FAMILY, DB, fam);
	if (m) {
		axl__set_int(d, AXL_ATTR_VENDOR_ID, DB, m->vendor);
		axl__set_int(d, AXL_ATTR_DEVICE_ID, DB, m->device);
		if (m->has_sub) {
			axl__set_int(d, AXL_ATTR_SUBSYSTEM_VENDOR_ID, DB, m->subvendor);
			axl__set_int(d, AXL_ATTR_SUBSYSTEM_DEVICE_ID, DB, m->subdevice);
		}
		if (m->has_rev)
			axl__set_int(d, AXL_ATTR_REVISION, DB, m->revision);
	}
	axl__set_str(inv, d, AXL_ATTR_UUID, SIM, sd->uuid);
	/* a stable PCI address: bus 0x10, 0x20, ... 0xf0 of domain 0, then of domain 1, ... */
	d->has_pci = true;
	d->domain = (unsigned)(i / 15);
	d->bus = 0x10 + (unsigned)(i % 15) * 0x10;
	char pa[32];
	snprintf(pa, sizeof pa, "%04x:%02x:%02x.%x", d->domain, d->bus, 0u, 0u);
	axl__set_str(inv, d, AXL_ATTR_PCI_ADDRESS, SIM, pa);
	axl__set_int(d, AXL_ATTR_PCI_CLASS, SIM, fam == AXL_FAMILY_GPU ? 0x030200 : 0x120000);
	/* PCIe 5 for HBM3 / GDDR7 generations, 4 before */
	const char *mt = axl__db_memory_type(e);
	int gen = mt && (strncmp(mt, "HBM3", 4) == 0 || strcmp(mt, "GDDR7") == 0) ? 5 : 4;
	axl__set_int(d, AXL_ATTR_LINK_CURRENT_GEN, SIM, gen);
	axl__set_int(d, AXL_ATTR_LINK_MAX_GEN, SIM, gen);
	axl__set_int(d, AXL_ATTR_LINK_CURRENT_WIDTH, SIM, 16);
	axl__set_int(d, AXL_ATTR_LINK_MAX_WIDTH, SIM, 16);
	int numa = sd->numa_node >= 0 ? sd->numa_node : (int)(i * (size_t)sim->numa_nodes / sim->n);
	d->numa_node = numa;
	axl__set_int(d, AXL_ATTR_NUMA_NODE, SIM, numa);
	if ((size_t)numa < inv->host.numa.n)
		axl__set_str(inv, d, AXL_ATTR_LOCAL_CPULIST, SIM, inv->host.numa.v[numa].cpulist);
	/* the driver such a device is bound to (what the visibility variables go by) */
	const struct axl__sim_ops *ops = ops_of_dev(d);
	if (ops && ops->driver)
		axl__set_str(inv, d, AXL_ATTR_DRIVER, SIM, ops->driver);
	d->sources |= 1u << SIM;
	/* everything the database says, as discovery applies it */
	struct axl__scan scan = {.ctx = inv->ctx, .inv = inv, .fs = &inv->ctx->fs};
	axl__devicedb_apply(&scan, d);
	if (e->tdp_watts >= 0) {
		axl__set_num(d, AXL_ATTR_POWER_LIMIT, SIM, e->tdp_watts);
		axl__set_num(d, AXL_ATTR_POWER_DEFAULT_LIMIT, SIM, e->tdp_watts);
		axl__set_num(d, AXL_ATTR_POWER_MAX_LIMIT, SIM, e->tdp_watts);
	}
	/* what its vendor adds: nodes, partitions, its group's fabric */
	int minor = axl__sim_minor(sim, i);
	struct axl__sim_place at = {minor >= 0 ? (size_t)minor : i, sd->parts_on, sd->group,
				    sd->fabric ? sd->fabric->fabric : NULL, st};
	if (ops && ops->device)
		ops->device(inv, d, &at);
}

/* The device of spec index i (the inventory keeps spec order: addresses grow with it). */
static struct axl_device *dev_at(struct axl_inventory *inv, size_t i)
{
	return i < inv->devs.n ? inv->devs.v[i] : NULL;
}

static void sim_links(struct axl_inventory *inv, const struct axl__sim *sim)
{
	for (size_t k = 0; k < sim->nlinks; k++) {
		const struct axl__sim_link *sl = &sim->links[k];
		struct axl_device *a = dev_at(inv, (size_t)sl->a), *b = dev_at(inv, (size_t)sl->b);
		if (!a || !b)
			continue;
		double per = sl->ops->link_gbps ? sl->ops->link_gbps(a->db, b->db) : -1;
		struct axl_link *l = axl__link_add(inv, a, b, sl->kind, per * sl->count, SIM);
		if (l)
			l->link_count = sl->count;
	}
	/* fabrics of groups: every pair of the group */
	for (size_t i = 0; i < sim->n; i++) {
		for (size_t j = i + 1; j < sim->n; j++) {
			const struct axl__sim_dev *x = &sim->devs[i], *y = &sim->devs[j];
			if (x->group != y->group || !x->fabric)
				continue;
			struct axl_device *a = dev_at(inv, i), *b = dev_at(inv, j);
			if (!a || !b)
				continue;
			double gbps = -1;
			int count = -1;
			if (x->fabric->fabric_link)
				x->fabric->fabric_link(x->db, &gbps, &count);
			struct axl_link *l = axl__link_add(inv, a, b, x->fabric->fabric, gbps, SIM);
			if (l)
				l->link_count = count;
		}
	}
}

void axl__sim_inventory(struct axl__scan *scan)
{
	struct axl_inventory *inv = scan->inv;
	const struct axl__sim *sim = scan->ctx->sim;
	sim_host(inv, sim);
	struct axl__state st;
	bool have = axl__state_read(scan->ctx, &st) == 0;
	if (!have)
		axl__warn(inv, "sim", scan->ctx->state_dir, "%s: simulated partitions not shown", axl_error_last());
	for (size_t i = 0; i < sim->n; i++)
		sim_device(inv, sim, i, have ? &st : NULL);
	axl__state_free(&st);
}

void axl__sim_links(struct axl__scan *scan)
{
	sim_links(scan->inv, scan->ctx->sim);
}

/* ---- metrics --------------------------------------------------------------------------- */

struct sdev {
	size_t index;      /* in the sampler */
	uint64_t rng;
	double util, mem;  /* 0..1 */
	double power;      /* watts of the previous sample, < 0 none */
	double energy;     /* joules */
	double last_ms;
	double tdp, idle, temp;
	int64_t mem_total;
	double pcie_bps;
	bool hbm, fan;
};

struct sstate {
	struct sdev *d;
	size_t n;
};

static double rnd(uint64_t *s) /* 0..1, splitmix64 */
{
	uint64_t x = (*s += 0x9e3779b97f4a7c15ull);
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
	x ^= x >> 31;
	return (double)(x >> 11) / 9007199254740992.0;
}

/* One step of a walk kept inside lo..hi (reflected at the ends). */
static double walk(double v, double step, double lo, double hi)
{
	v += step;
	if (v < lo)
		v = lo + (lo - v);
	if (v > hi)
		v = hi - (v - hi);
	return v < lo ? lo : v > hi ? hi : v;
}

static void sim_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct sstate *st = calloc(1, sizeof *st);
	if (!st)
		return;
	st->d = calloc(s->n ? s->n : 1, sizeof *st->d);
	if (!st->d) {
		free(st);
		return;
	}
	const struct axl__sim *sim = s->ctx->sim;
	for (size_t i = 0; i < s->n; i++) {
		const struct axl_device *dev = s->devs[i];
		if (dev->parent || axl_device_family(dev) == AXL_FAMILY_CPU)
			continue;
		const char *uuid = axl__str(dev, AXL_ATTR_UUID);
		uint64_t seed = 0x5eed;
		for (size_t k = 0; k < sim->n; k++)
			if (uuid && strcmp(sim->devs[k].uuid, uuid) == 0)
				seed = sim->devs[k].seed;
		struct sdev *d = &st->d[st->n++];
		d->index = i;
		d->rng = seed;
		d->util = rnd(&d->rng);
		d->mem = 0.05 + 0.6 * rnd(&d->rng);
		d->power = -1;
		d->energy = 1e5 + 1e6 * rnd(&d->rng); /* since the "driver loaded" */
		d->tdp = dev->attr[AXL_ATTR_POWER_TDP].src ? dev->attr[AXL_ATTR_POWER_TDP].v.f : 300;
		d->idle = d->tdp * 0.12;
		d->mem_total = axl__int(dev, AXL_ATTR_MEMORY_TOTAL, 0);
		double gbps = axl__pcie_gbps(dev);
		d->pcie_bps = gbps > 0 ? gbps * 1e9 : 16e9;
		d->hbm = dev->db && hbm(dev->db);
		d->fan = !d->hbm;
		d->temp = 30 + 5 * rnd(&d->rng);
	}
	s->sim_state = st;
}

static void sim_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct sstate *st = s->sim_state;
	if (!st)
		return;
	for (size_t k = 0; k < st->n; k++) {
		struct sdev *d = &st->d[k];
		size_t i = d->index;
		/* the walk: one step per sample, deterministic for the UUID */
		d->util = walk(d->util, (rnd(&d->rng) - 0.5) * 0.4, 0, 1);
		d->mem = walk(d->mem, (rnd(&d->rng) - 0.5) * 0.1, 0.02, 0.95);
		double u = d->util;
		double power = d->idle + (d->tdp - d->idle) * u * (0.9 + 0.1 * rnd(&d->rng));
		if (power > d->tdp)
			power = d->tdp;
		double now = out->mono_ms;
		if (d->power >= 0 && now > d->last_ms)
			d->energy += (d->power + power) / 2 * (now - d->last_ms) / 1000.0;
		d->power = power;
		d->last_ms = now;
		/* temperature follows power with some lag */
		double target = 30 + 45 * power / d->tdp;
		d->temp += (target - d->temp) * 0.5 + (rnd(&d->rng) - 0.5);
		axl__sput(out, i, AXL_METRIC_UTILIZATION, round(u * 1000) / 10, SIM);
		axl__sput(out, i, AXL_METRIC_MEMORY_UTILIZATION, round(u * 600 * (0.8 + 0.2 * d->mem)) / 10, SIM);
		if (d->mem_total > 0)
			axl__sput(out, i, AXL_METRIC_MEMORY_USED,
				  floor((double)d->mem_total * d->mem / 1048576) * 1048576, SIM);
		axl__sput(out, i, AXL_METRIC_POWER, round(power * 100) / 100, SIM);
		axl__sput(out, i, AXL_METRIC_ENERGY, round(d->energy * 1000) / 1000, SIM);
		axl__sput(out, i, AXL_METRIC_TEMPERATURE, round(d->temp * 10) / 10, SIM);
		axl__sput(out, i, AXL_METRIC_TEMPERATURE_HOTSPOT, round((d->temp + 8 + 6 * u) * 10) / 10, SIM);
		if (d->hbm)
			axl__sput(out, i, AXL_METRIC_TEMPERATURE_MEMORY, round((d->temp + 4) * 10) / 10, SIM);
		double maxclk = d->hbm ? 1980 : 2520;
		axl__sput(out, i, AXL_METRIC_SM_CLOCK, round(maxclk * (0.35 + 0.65 * u)), SIM);
		axl__sput(out, i, AXL_METRIC_MEMORY_CLOCK, d->hbm ? 2619 : 10501, SIM);
		axl__sput(out, i, AXL_METRIC_PCIE_RX, round(d->pcie_bps * 0.2 * u * rnd(&d->rng)), SIM);
		axl__sput(out, i, AXL_METRIC_PCIE_TX, round(d->pcie_bps * 0.1 * u * rnd(&d->rng)), SIM);
		axl__sput(out, i, AXL_METRIC_ECC_CORRECTED, 0, SIM);
		axl__sput(out, i, AXL_METRIC_ECC_UNCORRECTED, 0, SIM);
		axl__sput(out, i, AXL_METRIC_THROTTLE_REASONS, u < 0.01 ? AXL_THROTTLE_IDLE : 0, SIM);
		if (d->fan)
			axl__sput(out, i, AXL_METRIC_FAN, round(30 + 60 * power / d->tdp), SIM);
	}
}

static void sim_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct sstate *st = s->sim_state;
	if (!st)
		return;
	free(st->d);
	free(st);
	s->sim_state = NULL;
}

/* The sampler reaches a simulated node through these hooks (ctx->sim_backend), as it
 * reaches the backends of a real one through theirs. */
static const struct axl__sample_ops axl__sim_backend_sample = {
	.open = sim_sample_open,
	.sample = sim_sample,
	.close = sim_sample_close,
};

const struct axl__backend axl__sim_backend = {
	.name = "sim",
	.sample = &axl__sim_backend_sample,
};
