/* SPDX-License-Identifier: MIT */
/*
 * libaccelerator_axl.so: TensorFusion's vendor-provider interface on top of libaxl
 * (docs/tensorfusion.md). This file: the state, discovery and topology (util.c: the log
 * callback, string copy, clock).
 */
#define _GNU_SOURCE
#include "tf.h"

#include <ctype.h>
#include <math.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

static pthread_mutex_t tf_mutex = PTHREAD_MUTEX_INITIALIZER;
static struct tf_state tf_st;

/* ---- logging: libaxl's messages to the host's callback ---------------------------- */
static void tf_axl_log(axl_log_level level, const char *message, void *userdata)
{
	(void)userdata;
	const char *l = level == AXL_LOG_ERROR ? "ERROR" : level == AXL_LOG_WARNING ? "WARN"
		      : level == AXL_LOG_INFO ? "INFO" : "DEBUG";
	tf_log(l, "axl: %s", message ? message : "");
}

AccelResult tf_result(int rc, const char *what)
{
	if (rc == 0)
		return ACCEL_SUCCESS;
	const char *why = axl_error_last();
	AccelResult r;
	switch (rc) {
	case AXL_EINVAL: case AXL_ERANGE: r = ACCEL_ERROR_INVALID_PARAM; break;
	case AXL_ENOENT: r = ACCEL_ERROR_NOT_FOUND; break;
	case AXL_ENOSPC: r = ACCEL_ERROR_RESOURCE_EXHAUSTED; break;
	case AXL_ENOTSUP: case AXL_ENOTSYS: r = ACCEL_ERROR_NOT_SUPPORTED; break;
	case AXL_EBUSY: case AXL_EPERM: r = ACCEL_ERROR_OPERATION_FAILED; break;
	default: r = ACCEL_ERROR_INTERNAL; break;
	}
	tf_log(r == ACCEL_ERROR_INTERNAL ? "ERROR" : "WARN", "%s: %s (%s)", what,
	       why && *why ? why : axl_strerror(rc), axl_err_name(rc));
	return r;
}

void tf_uuid(const axl_device *d, char *buf, size_t cap)
{
	const char *u = NULL;
	if (axl_device_get_str(d, AXL_ATTR_UUID, &u) == 0 && u && *u) {
		tf_copy(buf, cap, u);
		return;
	}
	snprintf(buf, cap, "axl-%s", axl_device_id(d));
	for (char *p = buf; *p; p++)
		if (*p == ':' || *p == '/' || *p == ',')
			*p = '-';
}

/* The vendor's display name ("NVIDIA"), as its backend's runtime files give it
 * (axl_device_runtime), else the device's vendor attribute. */
const char *tf_vendor(const axl_device *d)
{
	const struct axl_runtime *rt = axl_device_runtime(d);
	if (rt && rt->vendor)
		return rt->vendor;
	const char *v = NULL;
	if (axl_device_get_str(d, AXL_ATTR_VENDOR, &v) == 0 && v && *v)
		return v;
	return "Unknown";
}

int32_t tf_index(const struct tf_state *st, size_t i)
{
	(void)st;
	return (int32_t)i; /* i < MAX_TOPOLOGY_DEVICES */
}

int32_t tf_vendor_index(const struct tf_state *st, size_t i)
{
	int64_t idx = -1;
	if (axl_device_get_int(st->dev[i], AXL_ATTR_INDEX, &idx) == 0 && idx >= 0 && idx <= INT32_MAX)
		return (int32_t)idx;
	/* the position among the listed devices of the same vendor */
	int32_t n = 0;
	for (size_t j = 0; j < i; j++)
		if (strcmp(tf_vendor(st->dev[j]), tf_vendor(st->dev[i])) == 0)
			n++;
	return n;
}

const axl_device *tf_find(const struct tf_state *st, const char *uuid, long *slot)
{
	char buf[UUID_STRING_LENGTH];
	if (slot)
		*slot = -1;
	for (size_t i = 0; i < st->ndev; i++) {
		tf_uuid(st->dev[i], buf, sizeof buf);
		if (strcasecmp(buf, uuid) == 0) {
			if (slot)
				*slot = (long)i;
			return st->dev[i];
		}
	}
	const axl_device *d = axl_inventory_find(st->inv, uuid);
	if (d && slot)
		for (size_t i = 0; i < st->ndev; i++)
			if (st->dev[i] == d)
				*slot = (long)i;
	return d;
}

uint64_t tf_compute_units(const axl_device *d)
{
	if (axl_device_compute_unit_count(d) == 0)
		return 0;
	const struct axl_compute_unit *cu = axl_device_compute_unit(d, 0);
	return cu && cu->count > 0 ? (uint64_t)cu->count : 0;
}

/* ---- the state ---------------------------------------------------------------------- */
static void tf_close_locked(struct tf_state *st, int keep_ctx)
{
	axl_sample_free(st->last);
	st->last = NULL;
	axl_sampler_free(st->sampler);
	st->sampler = NULL;
	axl_inventory_free(st->inv);
	st->inv = NULL;
	st->ndev = 0;
	if (!keep_ctx) {
		axl_context_free(st->ctx);
		st->ctx = NULL;
	}
}

static AccelResult tf_open_locked(struct tf_state *st)
{
	int rc;
	if (!st->ctx) {
		struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
		o.log = tf_axl_log;
		o.log_level = AXL_LOG_WARNING;
		/* visibility variables of the host process must not hide devices from the
		 * node agent: TensorFusion's hypervisor manages every device of the node */
		rc = axl_context_open(&st->ctx, &o);
		if (rc)
			return tf_result(rc, "opening the axl context");
	}
	if (!st->inv) {
		rc = axl_inventory_open(&st->inv, st->ctx, 0);
		if (rc)
			return tf_result(rc, "discovering the node's accelerators");
		st->ndev = 0;
		size_t n = axl_inventory_device_count(st->inv);
		for (size_t i = 0; i < n && st->ndev < MAX_TOPOLOGY_DEVICES; i++) {
			const axl_device *d = axl_inventory_device(st->inv, i);
			if (axl_device_family(d) == AXL_FAMILY_CPU)
				continue;
			st->dev[st->ndev++] = d;
		}
		if (n > MAX_TOPOLOGY_DEVICES)
			tf_log("WARN", "%zu accelerators: only the first %d are listed", n, MAX_TOPOLOGY_DEVICES);
	}
	if (!st->sampler) {
		rc = axl_sampler_open(&st->sampler, st->inv, AXL_SAMPLER_PROCESSES);
		if (rc) {
			st->sampler = NULL;
			tf_result(rc, "opening the metrics sampler");
			/* discovery still works without metrics */
		}
	}
	return ACCEL_SUCCESS;
}

AccelResult tf_lock(struct tf_state **st)
{
	pthread_mutex_lock(&tf_mutex);
	AccelResult r = tf_open_locked(&tf_st);
	if (r != ACCEL_SUCCESS) {
		tf_close_locked(&tf_st, 0);
		pthread_mutex_unlock(&tf_mutex);
		return r;
	}
	*st = &tf_st;
	return ACCEL_SUCCESS;
}

void tf_unlock(void)
{
	pthread_mutex_unlock(&tf_mutex);
}

AccelResult tf_refresh(struct tf_state *st)
{
	tf_close_locked(st, 1);
	return tf_open_locked(st);
}

TF_API AccelResult AccelInit(void)
{
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	size_t n = st->ndev;
	int sim = axl_context_is_simulated(st->ctx);
	tf_unlock();
	tf_log("INFO", "axl %s: %zu accelerator(s)%s", axl_version(), n, sim ? " (simulated node)" : "");
	return ACCEL_SUCCESS;
}

TF_API AccelResult AccelShutdown(void)
{
	pthread_mutex_lock(&tf_mutex);
	tf_close_locked(&tf_st, 0);
	pthread_mutex_unlock(&tf_mutex);
	return ACCEL_SUCCESS;
}

/* ---- discovery -------------------------------------------------------------------- */
TF_API AccelResult AccelGetDeviceCount(size_t *deviceCount)
{
	if (!deviceCount)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	*deviceCount = st->ndev;
	tf_unlock();
	return ACCEL_SUCCESS;
}

static void prop(DeviceProperties *p, const char *key, const char *value)
{
	if (!value || !*value || p->count >= MAX_DEVICE_PROPERTIES)
		return;
	tf_copy(p->properties[p->count].key, sizeof p->properties[p->count].key, key);
	tf_copy(p->properties[p->count].value, sizeof p->properties[p->count].value, value);
	p->count++;
}

static void prop_attr(DeviceProperties *p, const axl_device *d, const char *key, axl_attr a)
{
	const char *s = NULL;
	double v;
	char buf[64];
	if (axl_device_get_str(d, a, &s) == 0) {
		prop(p, key, s);
	} else if (axl_device_get_num(d, a, &v) == 0) {
		if (v == floor(v) && fabs(v) < 9e15)
			snprintf(buf, sizeof buf, "%.0f", v);
		else
			snprintf(buf, sizeof buf, "%g", v);
		prop(p, key, buf);
	}
}

static const char *str_attr(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

/* "nics": the RDMA NICs nearest the device (every one on the path of its nearest NIC:
 * the same path kind through as many PCIe switches), in the inventory's order, each
 * "name:path:GB/s" ("name:path" when the rate is not known), as many as fit. The ABI has
 * no NIC field: the properties are its place for them. */
static void nics_prop(const struct tf_state *st, const axl_device *d, DeviceProperties *p)
{
	const char *id = axl_device_id(d), *nearest = str_attr(d, AXL_ATTR_NEAREST_NIC);
	if (!nearest)
		return;
	const struct axl_link *best = NULL;
	size_t nl = axl_inventory_nic_link_count(st->inv);
	for (size_t k = 0; k < nl && !best; k++) {
		const struct axl_link *l = axl_inventory_nic_link(st->inv, k);
		if (l && l->a && l->b && l->kind && !strcmp(l->a, id) && !strcmp(l->b, nearest))
			best = l;
	}
	if (!best)
		return;
	char buf[sizeof p->properties[0].value];
	size_t o = 0;
	buf[0] = '\0';
	for (size_t k = 0; k < nl; k++) {
		const struct axl_link *l = axl_inventory_nic_link(st->inv, k);
		if (!l || !l->a || !l->b || !l->kind || strcmp(l->a, id) || strcmp(l->kind, best->kind) ||
		    l->pcie_switches != best->pcie_switches)
			continue;
		double gbps = -1;
		for (size_t j = 0; j < axl_inventory_nic_count(st->inv); j++) {
			const struct axl_nic *n = axl_inventory_nic(st->inv, j);
			if (n && n->name && !strcmp(n->name, l->b) && n->rate_gbit >= 0)
				gbps = n->rate_gbit / 8;
		}
		char e[128];
		int w = gbps >= 0 ? snprintf(e, sizeof e, "%s%s:%s:%g", o ? "," : "", l->b, l->kind, gbps)
				  : snprintf(e, sizeof e, "%s%s:%s", o ? "," : "", l->b, l->kind);
		if (w < 0 || (size_t)w >= sizeof e || o + (size_t)w >= sizeof buf)
			break;
		memcpy(buf + o, e, (size_t)w + 1);
		o += (size_t)w;
	}
	prop(p, "nics", buf);
}

/* The best dense peak for training/inference: BF16/FP16, else the best float format. */
static double max_tflops(const axl_device *d)
{
	double half = 0, other = 0;
	for (size_t i = 0; i < axl_device_precision_count(d); i++) {
		const struct axl_precision *p = axl_device_precision(d, i);
		if (!p || p->peak_tflops <= 0 || p->support == AXL_SUPPORT_NONE)
			continue;
		if (p->format == AXL_FORMAT_BF16 || p->format == AXL_FORMAT_FP16)
			half = fmax(half, p->peak_tflops);
		else if (p->format == AXL_FORMAT_TF32 || p->format == AXL_FORMAT_FP32 ||
			 p->format == AXL_FORMAT_FP64)
			other = fmax(other, p->peak_tflops);
	}
	return half > 0 ? half : other;
}

/* The partitioning whose partitions axl creates as devices (the runtime's), when its
 * mode is enabled: the one AssignPartition can use now. */
static const struct axl_partitioning *usable_partitioning(const axl_device *d)
{
	const struct axl_runtime *rt = axl_device_runtime(d);
	if (!rt || !rt->partitions)
		return NULL;
	for (size_t i = 0; i < axl_device_partitioning_count(d); i++) {
		const struct axl_partitioning *p = axl_device_partitioning(d, i);
		if (p && p->technology && strcasecmp(p->technology, rt->partitions) == 0 && p->mode &&
		    strcasecmp(p->mode, "enabled") == 0)
			return p;
	}
	return NULL;
}

static uint32_t max_partitions(const axl_device *d, const struct axl_partitioning *p)
{
	int64_t m = p->max_partitions;
	if (m <= 0) {
		size_t idx = 0;
		for (size_t i = 0; i < axl_device_partitioning_count(d); i++)
			if (axl_device_partitioning(d, i) == p)
				idx = i;
		for (size_t j = 0; j < p->profile_count; j++) {
			const struct axl_partition_profile *pp = axl_device_partition_profile(d, idx, j);
			if (pp && pp->max_instances > m)
				m = pp->max_instances;
		}
	}
	return m > 0 ? (uint32_t)(m > UINT32_MAX ? UINT32_MAX : m) : 0;
}

static void fill_device(struct tf_state *st, size_t i, const axl_sample *smp, ExtendedDeviceInfo *out)
{
	const axl_device *d = st->dev[i];
	DeviceBasicInfo *b = &out->basic;
	memset(out, 0, sizeof *out);
	tf_uuid(d, b->uuid, sizeof b->uuid);
	tf_copy(b->vendor, sizeof b->vendor, tf_vendor(d));
	tf_copy(b->model, sizeof b->model, str_attr(d, AXL_ATTR_MODEL));
	tf_copy(b->driverVersion, sizeof b->driverVersion, str_attr(d, AXL_ATTR_DRIVER_VERSION));
	const char *fw = str_attr(d, AXL_ATTR_VBIOS_VERSION);
	if (!fw)
		fw = str_attr(d, AXL_ATTR_FIRMWARE_VERSION);
	tf_copy(b->firmwareVersion, sizeof b->firmwareVersion, fw);
	/* the device's own node (/dev/nvidiaN, /dev/dri/renderDN), never a shared one */
	tf_copy(b->deviceNode, sizeof b->deviceNode, axl_device_primary_node(d));
	b->index = tf_index(st, i);
	int64_t v;
	b->numaNode = axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0 && v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
	if (axl_device_get_int(d, AXL_ATTR_MEMORY_TOTAL, &v) == 0 && v > 0)
		b->totalMemoryBytes = (uint64_t)v;
	b->totalComputeUnits = tf_compute_units(d);
	b->maxTflops = max_tflops(d);
	if ((axl_device_get_int(d, AXL_ATTR_LINK_MAX_GEN, &v) == 0 ||
	     axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_GEN, &v) == 0) && v > 0 && v <= UINT32_MAX)
		b->pcieGen = (uint32_t)v;
	if ((axl_device_get_int(d, AXL_ATTR_LINK_MAX_WIDTH, &v) == 0 ||
	     axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_WIDTH, &v) == 0) && v > 0 && v <= UINT32_MAX)
		b->pcieWidth = (uint32_t)v;

	DeviceProperties *p = &out->props;
	prop(p, "axlId", axl_device_id(d));
	prop(p, "family", axl_family_name(axl_device_family(d)));
	prop_attr(p, d, "architecture", AXL_ATTR_ARCHITECTURE);
	prop_attr(p, d, "computeCapability", AXL_ATTR_COMPUTE_CAPABILITY);
	prop_attr(p, d, "pciAddress", AXL_ATTR_PCI_ADDRESS);
	prop_attr(p, d, "driver", AXL_ATTR_DRIVER);
	const struct axl_runtime *rt = axl_device_runtime(d);
	for (size_t k = 0; rt && rt->attrs[k].label; k++)
		prop_attr(p, d, rt->attrs[k].property, rt->attrs[k].attr);
	prop_attr(p, d, "memoryType", AXL_ATTR_MEMORY_TYPE);
	prop_attr(p, d, "memoryBandwidthGBps", AXL_ATTR_MEMORY_BANDWIDTH);
	prop_attr(p, d, "memoryBusWidthBits", AXL_ATTR_MEMORY_BUS_WIDTH);
	prop_attr(p, d, "l2CacheBytes", AXL_ATTR_L2_CACHE);
	prop_attr(p, d, "powerTdpWatts", AXL_ATTR_POWER_TDP);
	prop_attr(p, d, "serial", AXL_ATTR_SERIAL);
	prop_attr(p, d, "boardPartNumber", AXL_ATTR_BOARD_PART_NUMBER);
	prop_attr(p, d, "nearestNic", AXL_ATTR_NEAREST_NIC);
	prop_attr(p, d, "nearestNicPath", AXL_ATTR_NEAREST_NIC_PATH);
	nics_prop(st, d, p);
	char vi[16];
	snprintf(vi, sizeof vi, "%d", (int)tf_vendor_index(st, i));
	prop(p, "vendorIndex", vi);
	if (axl_device_compute_unit_count(d) > 0) {
		const struct axl_compute_unit *cu = axl_device_compute_unit(d, 0);
		if (cu)
			prop(p, "computeUnitName", cu->name);
	}
	char buf[256];
	for (size_t k = 0; k < axl_device_precision_count(d); k++) {
		const struct axl_precision *pr = axl_device_precision(d, k);
		if (!pr || pr->peak_tflops <= 0)
			continue;
		char key[64];
		snprintf(key, sizeof key, "tflops%s", axl_format_name(pr->format) ? axl_format_name(pr->format) : "?");
		snprintf(buf, sizeof buf, "%g", pr->peak_tflops);
		prop(p, key, buf);
	}
	for (size_t k = 0; k < axl_device_partitioning_count(d); k++) {
		const struct axl_partitioning *pt = axl_device_partitioning(d, k);
		if (!pt || !pt->technology)
			continue;
		char key[64];
		snprintf(key, sizeof key, "partitioning%s", pt->technology);
		size_t o = (size_t)snprintf(buf, sizeof buf, "mode=%s", pt->mode ? pt->mode : "unknown");
		for (size_t j = 0; j < pt->profile_count && o < sizeof buf; j++)
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", j ? "," : " profiles=", pt->profiles[j]);
		prop(p, key, buf);
	}
	buf[0] = '\0';
	unsigned src = axl_device_sources(d);
	size_t o = 0;
	for (int s = 1; s < AXL_SOURCE__COUNT && o < sizeof buf; s++)
		if (src & (1u << s))
			o += (size_t)snprintf(buf + o, sizeof buf - o, "%s%s", o ? "," : "",
					      axl_source_name((axl_source)s));
	prop(p, "sources", buf);
	prop(p, "simulated", axl_context_is_simulated(st->ctx) ? "true" : NULL);

	VirtualizationCapabilities *c = &out->virtualizationCapabilities;
	const struct axl_partitioning *part = usable_partitioning(d);
	c->maxPartitions = part ? max_partitions(d, part) : 0;
	c->supportsPartitioning = part != NULL && c->maxPartitions > 0;
	/* soft isolation: TensorFusion's LD_PRELOAD limiter intercepts the vendor's compute API */
	c->supportsSoftIsolation = rt && (rt->flags & AXL_RUNTIME_PRELOAD_LIMITS) && tf_vendor_index(st, i) < 16;
	/* limits bind only where the in-process limiter is there to hold workloads to them */
	c->supportsHardIsolation = rt && (rt->flags & AXL_RUNTIME_PRELOAD_LIMITS) && tf_limiter_installed();
	c->supportsSnapshot = false;
	c->supportsRemoting = false;
	c->supportsMetrics = false;
	if (smp)
		for (size_t k = 0; k < axl_sample_device_count(smp); k++)
			if (axl_sample_device(smp, k) == d)
				c->supportsMetrics = axl_sample_device_state(smp, k) != AXL_SAMPLE_NONE;
	c->maxWorkersPerDevice = c->supportsSoftIsolation ? 16 : 1;
	if (c->supportsPartitioning && c->maxPartitions > c->maxWorkersPerDevice)
		c->maxWorkersPerDevice = c->maxPartitions;
}

TF_API AccelResult AccelGetAllDevices(ExtendedDeviceInfo *devices, size_t maxCount, size_t *deviceCount)
{
	if (!devices || !deviceCount || maxCount == 0)
		return ACCEL_ERROR_INVALID_PARAM;
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	axl_sample *smp = NULL;
	if (st->sampler && axl_sampler_sample(st->sampler, &smp) != 0)
		smp = NULL;
	size_t n = st->ndev < maxCount ? st->ndev : maxCount;
	for (size_t i = 0; i < n; i++)
		fill_device(st, i, smp, &devices[i]);
	/* keep it as the freshest sample for metrics */
	if (smp) {
		axl_sample_free(st->last);
		st->last = smp;
		st->last_ns = tf_now_ns();
	}
	*deviceCount = n;
	tf_unlock();
	return ACCEL_SUCCESS;
}

/* ---- topology --------------------------------------------------------------------- */
static TopoLevelType level_of(const struct axl_link *l)
{
	if (!l || !l->kind)
		return TOPO_LEVEL_UNKNOWN;
	const char *k = l->kind;
	/* a direct fabric between the two: NVLink, NVSwitch, xGMI, the RoCE ports of a
	 * Gaudi baseboard, one board */
	if (!strcmp(k, "nvlink") || !strcmp(k, "nvswitch") || !strcmp(k, "xgmi") || !strcmp(k, "roce") ||
	    !strcmp(k, "board"))
		return TOPO_LEVEL_INTERNAL;
	if (!strcmp(k, "pcie-switch"))
		return l->pcie_switches > 1 ? TOPO_LEVEL_MULTI_SWITCH : TOPO_LEVEL_SINGLE_SWITCH;
	if (!strcmp(k, "host-bridge"))
		return TOPO_LEVEL_HOST_BRIDGE;
	if (!strcmp(k, "numa"))
		return TOPO_LEVEL_NUMA_NODE;
	if (!strcmp(k, "system"))
		return TOPO_LEVEL_SYSTEM;
	return TOPO_LEVEL_UNKNOWN;
}

static const struct axl_link *link_between(const axl_inventory *inv, const char *a, const char *b)
{
	for (size_t i = 0; i < axl_inventory_link_count(inv); i++) {
		const struct axl_link *l = axl_inventory_link(inv, i);
		if (l && l->a && l->b &&
		    ((!strcmp(l->a, a) && !strcmp(l->b, b)) || (!strcmp(l->a, b) && !strcmp(l->b, a))))
			return l;
	}
	return NULL;
}

/* One filler for both layouts: the caller's row and peer strides differ. */
static AccelResult topology(int go, void *out)
{
	struct tf_state *st;
	AccelResult r = tf_lock(&st);
	if (r != ACCEL_SUCCESS)
		return r;
	size_t n = st->ndev;
	for (size_t i = 0; i < n; i++) {
		const axl_device *d = st->dev[i];
		char *uuid;
		int32_t *idx, *numa;
		size_t *peer_count;
		if (go) {
			DeviceTopologyInfoV2 *row = &((ExtendedDeviceTopologyV2 *)out)->devices[i];
			memset(row, 0, sizeof *row);
			uuid = row->deviceUUID; idx = &row->deviceIndex; numa = &row->numaNode;
			peer_count = &row->peerCount;
		} else {
			DeviceTopologyInfo *row = &((ExtendedDeviceTopology *)out)->devices[i];
			memset(row, 0, sizeof *row);
			uuid = row->deviceUUID; idx = &row->deviceIndex; numa = &row->numaNode;
			peer_count = &row->peerCount;
		}
		tf_uuid(d, uuid, UUID_STRING_LENGTH);
		*idx = tf_index(st, i);
		int64_t v;
		*numa =
		    axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v) == 0 && v >= 0 && v <= INT32_MAX ? (int32_t)v : -1;
		size_t np = 0;
		for (size_t j = 0; j < n && np < MAX_TOPOLOGY_DEVICES; j++) {
			const struct axl_link *l =
			    i == j ? NULL : link_between(st->inv, axl_device_id(d), axl_device_id(st->dev[j]));
			TopoLevelType lvl = i == j ? TOPO_LEVEL_SELF : level_of(l);
			if (go) {
				DeviceTopoNodeV2 *pn = &((ExtendedDeviceTopologyV2 *)out)->devices[i].peers[np];
				tf_uuid(st->dev[j], pn->peerUUID, sizeof pn->peerUUID);
				pn->peerIndex = tf_index(st, j);
				pn->topoLevel = lvl;
				pn->bandwidthBytesPerSec =
				    l && l->bandwidth_gbps > 0 ? (int64_t)llround(l->bandwidth_gbps * 1e9) : 0;
			} else {
				DeviceTopoNode *pn = &((ExtendedDeviceTopology *)out)->devices[i].peers[np];
				tf_uuid(st->dev[j], pn->peerUUID, sizeof pn->peerUUID);
				pn->peerIndex = tf_index(st, j);
				pn->topoLevel = lvl;
			}
			np++;
		}
		*peer_count = np;
	}
	if (go)
		((ExtendedDeviceTopologyV2 *)out)->deviceCount = n;
	else
		((ExtendedDeviceTopology *)out)->deviceCount = n;
	tf_unlock();
	return ACCEL_SUCCESS;
}

static int go_layout(void)
{
	const char *e = getenv("AXL_TF_TOPOLOGY_LAYOUT");
	return e && (strcasecmp(e, "go") == 0 || strcasecmp(e, "v2") == 0);
}

TF_API AccelResult AccelGetAllDevicesTopology(ExtendedDeviceTopology *t)
{
	if (!t)
		return ACCEL_ERROR_INVALID_PARAM;
	return topology(go_layout(), t);
}

TF_API AccelResult AccelGetAllDevicesTopologyV2(ExtendedDeviceTopologyV2 *t)
{
	if (!t)
		return ACCEL_ERROR_INVALID_PARAM;
	return topology(1, t);
}
