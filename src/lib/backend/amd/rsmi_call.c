/* SPDX-License-Identifier: MIT */
/* ROCm SMI calls: loading the library, and every call live, recorded or replayed (see
 * rsmi_call.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsmi_call.h"
#include "amd_runtime.h"
#include "vlib.h"
#include "util/json.h"

/* ---- loading ------------------------------------------------------------------------ */

/* The SONAME is librocm_smi64.so.<major of the library's own version>
 * (rocm_smi/CMakeLists.txt: SOVERSION "${VERSION_MAJOR}"): .so.5 in ROCm 5, .so.6 and
 * .so.7 in ROCm 6 and 7 (ROCm SMI 7.x ships with ROCm 6.2 and later), .so.1 from
 * distributions that build it without ROCm's git tags (Debian's librocm-smi64-1).
 * Newest first; never the unversioned development link. */
static const char *const sonames[] = {"librocm_smi64.so.7", "librocm_smi64.so.6", "librocm_smi64.so.5",
				      "librocm_smi64.so.1"};

#define F(member) offsetof(struct axl__rsmi_fns, member)
static const struct axl__vsym symbols[] = {
	{F(init), {"rsmi_init"}},
	{F(version_get), {"rsmi_version_get"}},
	{F(version_str_get), {"rsmi_version_str_get"}},
	{F(num_monitor_devices), {"rsmi_num_monitor_devices"}},
	{F(dev_pci_id_get), {"rsmi_dev_pci_id_get"}},
	{F(dev_id_get), {"rsmi_dev_id_get"}},
	{F(dev_vendor_id_get), {"rsmi_dev_vendor_id_get"}},
	{F(dev_revision_get), {"rsmi_dev_revision_get"}},
	{F(dev_name_get), {"rsmi_dev_name_get"}},
	{F(dev_brand_get), {"rsmi_dev_brand_get"}},
	{F(dev_serial_number_get), {"rsmi_dev_serial_number_get"}},
	{F(dev_vbios_version_get), {"rsmi_dev_vbios_version_get"}},
	{F(dev_unique_id_get), {"rsmi_dev_unique_id_get"}},
	{F(dev_memory_total_get), {"rsmi_dev_memory_total_get"}},
	{F(dev_memory_usage_get), {"rsmi_dev_memory_usage_get"}},
	{F(dev_power_cap_get), {"rsmi_dev_power_cap_get"}},
	{F(dev_power_cap_default_get), {"rsmi_dev_power_cap_default_get"}},
	{F(dev_power_cap_range_get), {"rsmi_dev_power_cap_range_get"}},
	{F(dev_gpu_clk_freq_get), {"rsmi_dev_gpu_clk_freq_get"}},
	{F(dev_compute_partition_get), {"rsmi_dev_compute_partition_get"}},
	{F(dev_memory_partition_get), {"rsmi_dev_memory_partition_get"}},
	{F(topo_get_numa_node_number), {"rsmi_topo_get_numa_node_number"}},
	{F(topo_get_link_type), {"rsmi_topo_get_link_type"}},
	{F(minmax_bandwidth_get), {"rsmi_minmax_bandwidth_get"}},
	{F(is_p2p_accessible), {"rsmi_is_P2P_accessible"}},
	{F(dev_activity_metric_get), {"rsmi_dev_activity_metric_get"}},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__rsmi_fns *fns = table;
	if (fns->init && fns->num_monitor_devices && fns->dev_pci_id_get)
		return true;
	snprintf(why, cap, "%s lacks rsmi_init/rsmi_num_monitor_devices/rsmi_dev_pci_id_get", name);
	return false;
}

const struct axl__vlibrary axl__rsmi_library = { sonames,
						 sizeof sonames / sizeof *sonames,
						 symbols,
						 sizeof symbols / sizeof *symbols,
						 sizeof(struct axl__rsmi_fns),
						 usable,
						 &cache,
						 axl__amd_gpu_lib_dirs };

const char *axl__rsmi_strerror(rsmi_status_t r)
{
	static const char *const names[] = {
		"RSMI_STATUS_SUCCESS",         "RSMI_STATUS_INVALID_ARGS",       "RSMI_STATUS_NOT_SUPPORTED",
		"RSMI_STATUS_FILE_ERROR",      "RSMI_STATUS_PERMISSION",         "RSMI_STATUS_OUT_OF_RESOURCES",
		"RSMI_STATUS_INTERNAL_EXCEPTION", "RSMI_STATUS_INPUT_OUT_OF_BOUNDS", "RSMI_STATUS_INIT_ERROR",
		"RSMI_STATUS_NOT_YET_IMPLEMENTED", "RSMI_STATUS_NOT_FOUND",      "RSMI_STATUS_INSUFFICIENT_SIZE",
		"RSMI_STATUS_INTERRUPT",       "RSMI_STATUS_UNEXPECTED_SIZE",    "RSMI_STATUS_NO_DATA",
		"RSMI_STATUS_UNEXPECTED_DATA", "RSMI_STATUS_BUSY",               "RSMI_STATUS_REFCOUNT_OVERFLOW",
		"RSMI_STATUS_SETTING_UNAVAILABLE", "RSMI_STATUS_AMDGPU_RESTART_ERR", "RSMI_STATUS_DRM_ERROR",
		"RSMI_STATUS_FAIL_LOAD_MODULE", "RSMI_STATUS_FAIL_LOAD_SYMBOL"};
	if ((size_t)r < sizeof names / sizeof *names)
		return names[r];
	if (r == RSMI_STATUS_UNKNOWN_ERROR)
		return "RSMI_STATUS_UNKNOWN_ERROR";
	if ((unsigned)r == AXL_RSMI_NO_FUNCTION)
		return "not in this library";
	return "unknown status";
}

/* ---- the calls ------------------------------------------------------------------------ */

#define VQ (&q->w.q)
#define LIVE(fnptr, ...) AXL__VQ_LIVE(VQ, AXL_RSMI_NO_FUNCTION, fnptr, __VA_ARGS__)
#define FN(member) (VQ->lib ? ((const struct axl__rsmi_fns *)VQ->lib)->member : NULL)
#define ANSWER(f, d, e, args, nargs, vo, out, live) \
	axl__vq_answer(VQ, &(const struct axl__vkey){f, d, e, args, nargs}, vo, out, live)
#define VO(kind) {AXL__VO_##kind, 0, NULL, NULL, NULL}
static const struct axl__vout vo_u64 = VO(U64), vo_hex = VO(U64HEX), vo_u64x2 = VO(U64X2);

static const char *dname(char *buf, size_t cap, unsigned dv)
{
	snprintf(buf, cap, "%u", dv);
	return buf;
}

static int init_live(const void *lib)
{
	const struct axl__rsmi_fns *fn = lib;
	return fn->init ? fn->init(0) : AXL_RSMI_NO_FUNCTION;
}

rsmi_status_t axl__rsq_init(struct axl__rsq *q)
{
	/* nobody recorded an init: no library there */
	return axl__vq_init(VQ, &cache, 0, "rsmi_init", RSMI_STATUS_INIT_ERROR, init_live);
}

/* rsmi_version_get's answer: {"major":..,"minor":..,"patch":..} */
struct version {
	unsigned v[3];
};
static const char *const version_keys[3] = {"major", "minor", "patch"};
static void version_put(struct axl__json *w, const void *out)
{
	const struct version *x = out;
	axl__json_obj(w);
	for (int i = 0; i < 3; i++)
		axl__json_kint(w, version_keys[i], x->v[i]);
	axl__json_obj_end(w);
}
static void version_get(const struct axl__jv *o, void *out)
{
	struct version *x = out;
	for (int i = 0; i < 3; i++) {
		int64_t v;
		x->v[i] = o && axl__jv_int(o, version_keys[i], &v) && v >= 0 && v < 100000 ? (unsigned)v : 0;
	}
}

rsmi_status_t axl__rsq_version(struct axl__rsq *q, unsigned *major, unsigned *minor, unsigned *patch)
{
	static const struct axl__vout vo = {AXL__VO_CUSTOM, 0, NULL, version_put, version_get};
	rsmi_version_t ver;
	memset(&ver, 0, sizeof ver);
	rsmi_status_t r = LIVE(FN(version_get), &ver);
	struct version x = {{0, 0, 0}};
	if (r == RSMI_STATUS_SUCCESS) { /* replaying: zeros, answered below */
		x.v[0] = ver.major;
		x.v[1] = ver.minor;
		x.v[2] = ver.patch;
	}
	/* the frequency table's layout: ROCm 5 (and Hygon's fork, .so.2) the old one,
	 * ROCm 6 and later the new one (ROCm 6.0 reports 7.0). Two builds report 1.x:
	 * Debian's 5.7 (old layout) and ROCm 7.2 (new): only ROCm 6 and later export
	 * rsmi_dev_activity_metric_get, which tells them apart (as btop does). */
	bool v6sym = FN(dev_activity_metric_get) != NULL;
	if (r != RSMI_STATUS_SUCCESS || ver.major == 1)
		q->freq_v6 = v6sym;
	else
		q->freq_v6 = ver.major >= 6;
	r = ANSWER("rsmi_version_get", NULL, NULL, NULL, 0, &vo, &x, r);
	*major = x.v[0];
	*minor = x.v[1];
	*patch = x.v[2];
	return r;
}

rsmi_status_t axl__rsq_driver(struct axl__rsq *q, char *buf, unsigned cap)
{
	const struct axl__vout vo = {AXL__VO_STR, cap, NULL, NULL, NULL};
	unsigned comp = RSMI_SW_COMP_DRIVER;
	memset(buf, 0, cap);
	return ANSWER("rsmi_version_str_get", NULL, NULL, &comp, 1, &vo, buf,
		      LIVE(FN(version_str_get), RSMI_SW_COMP_DRIVER, buf, cap));
}

rsmi_status_t axl__rsq_count(struct axl__rsq *q, unsigned *n)
{
	uint32_t v = 0;
	rsmi_status_t r = LIVE(FN(num_monitor_devices), &v);
	uint64_t o = v;
	r = ANSWER("rsmi_num_monitor_devices", NULL, NULL, NULL, 0, &vo_u64, &o, r);
	*n = o < 0x10000 ? (unsigned)o : 0x10000;
	return r;
}

rsmi_status_t axl__rsq_str(struct axl__rsq *q, enum axl__rsq_str k, unsigned dv, char *buf, unsigned cap)
{
	static const char *const names[RSQ_STR__N] = {
		"rsmi_dev_name_get",          "rsmi_dev_brand_get",          "rsmi_dev_serial_number_get",
		"rsmi_dev_vbios_version_get", "rsmi_dev_compute_partition_get", "rsmi_dev_memory_partition_get"};
	const struct axl__vout vo = {AXL__VO_STR, cap, NULL, NULL, NULL};
	char d[16];
	memset(buf, 0, cap);
	rsmi_status_t r = 0;
	switch (k) {
	case RSQ_NAME: r = LIVE(FN(dev_name_get), dv, buf, cap); break;
	case RSQ_BRAND: r = LIVE(FN(dev_brand_get), dv, buf, cap); break;
	case RSQ_SERIAL: r = LIVE(FN(dev_serial_number_get), dv, buf, cap); break;
	case RSQ_VBIOS: r = LIVE(FN(dev_vbios_version_get), dv, buf, cap); break;
	case RSQ_COMPUTE_PARTITION: r = LIVE(FN(dev_compute_partition_get), dv, buf, cap); break;
	case RSQ_MEMORY_PARTITION: r = LIVE(FN(dev_memory_partition_get), dv, buf, cap); break;
	default: r = AXL_RSMI_NO_FUNCTION; break;
	}
	return ANSWER(names[k], dname(d, sizeof d, dv), NULL, NULL, 0, &vo, buf, r);
}

rsmi_status_t axl__rsq_u64(struct axl__rsq *q, enum axl__rsq_u64 k, unsigned dv, uint64_t *out)
{
	static const char *const names[RSQ_U64__N] = {"rsmi_dev_pci_id_get", "rsmi_dev_unique_id_get",
						       "rsmi_dev_power_cap_default_get"};
	char d[16];
	*out = 0;
	rsmi_status_t r = 0;
	switch (k) {
	case RSQ_PCI_ID: r = LIVE(FN(dev_pci_id_get), dv, out); break;
	case RSQ_UNIQUE_ID: r = LIVE(FN(dev_unique_id_get), dv, out); break;
	case RSQ_POWER_CAP_DEFAULT: r = LIVE(FN(dev_power_cap_default_get), dv, out); break;
	default: r = AXL_RSMI_NO_FUNCTION; break;
	}
	/* ids as "0x..." strings */
	return ANSWER(names[k], dname(d, sizeof d, dv), NULL, NULL, 0, k != RSQ_POWER_CAP_DEFAULT ? &vo_hex : &vo_u64,
		      out, r);
}

rsmi_status_t axl__rsq_u16(struct axl__rsq *q, enum axl__rsq_u16 k, unsigned dv, unsigned *out)
{
	static const char *const names[RSQ_U16__N] = {"rsmi_dev_id_get", "rsmi_dev_vendor_id_get",
						       "rsmi_dev_revision_get"};
	char d[16];
	/* a zeroed 64-bit word: uint16_t in current libraries, uint64_t in the oldest */
	uint64_t v = 0;
	uint16_t *p = (uint16_t *)(void *)&v;
	rsmi_status_t r = 0;
	switch (k) {
	case RSQ_DEVICE_ID: r = LIVE(FN(dev_id_get), dv, p); break;
	case RSQ_VENDOR_ID: r = LIVE(FN(dev_vendor_id_get), dv, p); break;
	case RSQ_REVISION: r = LIVE(FN(dev_revision_get), dv, p); break;
	default: r = AXL_RSMI_NO_FUNCTION; break;
	}
	v &= 0xffff; /* live; replaying v is 0 here */
	r = ANSWER(names[k], dname(d, sizeof d, dv), NULL, NULL, 0, &vo_u64, &v, r);
	*out = v <= 0xffff ? (unsigned)v : 0x10000; /* a replayed value out of range stays out of range */
	return r;
}

rsmi_status_t axl__rsq_u64a(struct axl__rsq *q, enum axl__rsq_u64a k, unsigned dv, unsigned arg, uint64_t *out)
{
	static const char *const names[RSQ_U64A__N] = {"rsmi_dev_memory_total_get", "rsmi_dev_memory_usage_get",
							"rsmi_dev_power_cap_get"};
	char d[16];
	*out = 0;
	rsmi_status_t r = 0;
	switch (k) {
	case RSQ_MEMORY_TOTAL: r = LIVE(FN(dev_memory_total_get), dv, (rsmi_memory_type_t)arg, out); break;
	case RSQ_MEMORY_USAGE: r = LIVE(FN(dev_memory_usage_get), dv, (rsmi_memory_type_t)arg, out); break;
	case RSQ_POWER_CAP: r = LIVE(FN(dev_power_cap_get), dv, arg, out); break;
	default: r = AXL_RSMI_NO_FUNCTION; break;
	}
	return ANSWER(names[k], dname(d, sizeof d, dv), NULL, &arg, 1, &vo_u64, out, r);
}

rsmi_status_t axl__rsq_numa(struct axl__rsq *q, unsigned dv, unsigned *node)
{
	char d[16];
	uint32_t v = 0;
	rsmi_status_t r = LIVE(FN(topo_get_numa_node_number), dv, &v);
	uint64_t o = v;
	r = ANSWER("rsmi_topo_get_numa_node_number", dname(d, sizeof d, dv), NULL, NULL, 0, &vo_u64, &o, r);
	*node = o <= 0xffffffffu ? (unsigned)o : 0xffffffffu;
	return r;
}

rsmi_status_t axl__rsq_power_range(struct axl__rsq *q, unsigned dv, uint64_t *max, uint64_t *min)
{
	char d[16];
	unsigned sensor = 0;
	uint64_t v[2] = {0, 0};
	rsmi_status_t r = ANSWER("rsmi_dev_power_cap_range_get", dname(d, sizeof d, dv), NULL, &sensor, 1, &vo_u64x2, v,
				 LIVE(FN(dev_power_cap_range_get), dv, 0, &v[0], &v[1]));
	*max = v[0];
	*min = v[1];
	return r;
}

/* A frequency table, decoded: {"num_supported":N,"current":C,"deep_sleep":0|1,"frequency":[Hz...]} */
static void freq_put(struct axl__json *w, const void *out)
{
	const struct axl__rsmi_freq *x = out;
	axl__json_obj(w);
	axl__json_kint(w, "num_supported", x->num);
	axl__json_kint(w, "current", x->current);
	axl__json_kint(w, "deep_sleep", x->deep_sleep);
	axl__json_key(w, "frequency");
	axl__json_arr(w);
	for (size_t i = 0; i < x->nhz; i++)
		axl__vq_put_u64(w, x->hz[i], false);
	axl__json_arr_end(w);
	axl__json_obj_end(w);
}

static void freq_get(const struct axl__jv *o, void *out)
{
	struct axl__rsmi_freq *x = out;
	memset(x, 0, sizeof *x);
	int64_t v;
	if (o && axl__jv_int(o, "num_supported", &v) && v >= 0 && v <= 0xffffffffll)
		x->num = (uint32_t)v;
	if (o && axl__jv_int(o, "current", &v) && v >= 0 && v <= 0xffffffffll)
		x->current = (uint32_t)v;
	if (o && axl__jv_int(o, "deep_sleep", &v) && v >= 0 && v <= 0xff)
		x->deep_sleep = (unsigned)v;
	const struct axl__jv *fr = axl__jv_get(o, "frequency");
	for (size_t i = 0; fr && fr->type == AXL__J_ARR && i < fr->len && i < AXL_RSMI_FREQ_V6; i++)
		x->hz[i] = axl__vq_get_u64(&fr->items[i]);
}

rsmi_status_t axl__rsq_freq(struct axl__rsq *q, unsigned dv, unsigned clk, struct axl__rsmi_freq *out)
{
	static const struct axl__vout vo = {AXL__VO_CUSTOM, 0, NULL, freq_put, freq_get};
	char d[16];
	memset(out, 0, sizeof *out);
	axl_rsmi_freq_buf buf;
	memset(&buf, 0, sizeof buf);
	rsmi_status_t r = LIVE(FN(dev_gpu_clk_freq_get), dv, (rsmi_clk_type_t)clk, &buf.lib);
	/* replaying: an empty table, answered below */
	if (q->freq_v6) {
		out->num = buf.v6.num_supported;
		out->current = buf.v6.current;
		/* a byte, not a bool: a library of the other layout (or a buggy one) leaves
		 * anything there, and loading that as a bool is undefined */
		unsigned char ds;
		memcpy(&ds, (const unsigned char *)&buf + offsetof(axl_rsmi_frequencies_v6, has_deep_sleep), 1);
		out->deep_sleep = ds;
		for (size_t i = 0; i < AXL_RSMI_FREQ_V6 && i < out->num; i++)
			out->hz[out->nhz++] = buf.v6.frequency[i];
	} else {
		out->num = buf.v5.num_supported;
		out->current = buf.v5.current;
		for (size_t i = 0; i < AXL_RSMI_FREQ_V5 && i < out->num; i++)
			out->hz[out->nhz++] = buf.v5.frequency[i];
	}
	return ANSWER("rsmi_dev_gpu_clk_freq_get", dname(d, sizeof d, dv), NULL, &clk, 1, &vo, out, r);
}

rsmi_status_t axl__rsq_link_type(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *hops, unsigned *type)
{
	char da[16], db[16];
	RSMI_IO_LINK_TYPE t = RSMI_IOLINK_TYPE_UNDEFINED;
	uint64_t v[2] = {0, 0};
	rsmi_status_t r = LIVE(FN(topo_get_link_type), a, b, &v[0], &t);
	v[1] = (unsigned)t;
	r = ANSWER("rsmi_topo_get_link_type", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0, &vo_u64x2, v,
		   r);
	*hops = v[0];
	*type = v[1] <= 0xffffffffu ? (unsigned)v[1] : 0xffffffffu;
	return r;
}

rsmi_status_t axl__rsq_bandwidth(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *min, uint64_t *max)
{
	char da[16], db[16];
	uint64_t v[2] = {0, 0};
	rsmi_status_t r = ANSWER("rsmi_minmax_bandwidth_get", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0,
				 &vo_u64x2, v, LIVE(FN(minmax_bandwidth_get), a, b, &v[0], &v[1]));
	*min = v[0];
	*max = v[1];
	return r;
}

rsmi_status_t axl__rsq_p2p(struct axl__rsq *q, unsigned a, unsigned b, unsigned *accessible)
{
	char da[16], db[16];
	/* a bool the library writes: read it back as a byte, whatever it holds */
	unsigned char v[8] = {0};
	rsmi_status_t r = LIVE(FN(is_p2p_accessible), a, b, (bool *)(void *)v);
	uint64_t o = v[0];
	r = ANSWER("rsmi_is_P2P_accessible", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0, &vo_u64, &o,
		   r);
	*accessible = o <= 0xff ? (unsigned)o : 0xff;
	return r;
}
