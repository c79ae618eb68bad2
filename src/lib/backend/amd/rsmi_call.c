/* SPDX-License-Identifier: MIT */
/* ROCm SMI calls: loading the library, and every call live, recorded or replayed (see
 * rsmi_call.h). */
#define _GNU_SOURCE
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rsmi_call.h"
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

const struct axl__rsmi_fns *axl__rsmi_load(const char *path, char *why, size_t cap, bool *absent)
{
	*absent = false;
	/* a library asked for by path that is not there is worth a warning: not "absent" */
	if (path)
		return axl__vlib_load(&cache, path, &path, 1, symbols, sizeof symbols / sizeof *symbols,
				      sizeof(struct axl__rsmi_fns), usable, why, cap, NULL);
	return axl__vlib_load(&cache, "", sonames, sizeof sonames / sizeof *sonames, symbols,
			      sizeof symbols / sizeof *symbols, sizeof(struct axl__rsmi_fns), usable, why, cap, absent);
}

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
	if (r >= 0 && (size_t)r < sizeof names / sizeof *names)
		return names[r];
	if (r == RSMI_STATUS_UNKNOWN_ERROR)
		return "RSMI_STATUS_UNKNOWN_ERROR";
	if (r == AXL_RSMI_NO_FUNCTION)
		return "not in this library";
	return "unknown status";
}

/* ---- records ------------------------------------------------------------------------ */

#define LIVE(fnptr, ...) ((fnptr) ? (fnptr)(__VA_ARGS__) : AXL_RSMI_NO_FUNCTION)

static const char *dname(char *buf, size_t cap, unsigned dv)
{
	snprintf(buf, cap, "%u", dv);
	return buf;
}

static const struct axl__jv *find(const struct axl__rsq *q, const char *f, const char *d, const char *e,
				  const unsigned *args, int nargs, rsmi_status_t *r)
{
	return axl__vrec_find(&q->v, f, d, e, args, nargs, RSMI_STATUS_NOT_SUPPORTED, r);
}

/* 64-bit values: integers up to 2^63-1, else (and always for ids) "0x..." strings */
static void put_u64(struct axl__json *w, uint64_t v, bool hex)
{
	if (!hex && v <= INT64_MAX) {
		axl__json_int(w, (int64_t)v);
		return;
	}
	char s[24];
	snprintf(s, sizeof s, "0x%" PRIx64, v);
	axl__json_str(w, s);
}

static uint64_t get_u64(const struct axl__jv *o)
{
	if (!o)
		return 0;
	if (o->type == AXL__J_NUM && o->is_int && o->i >= 0)
		return (uint64_t)o->i;
	if (o->type == AXL__J_STR && o->s[0] == '0' && (o->s[1] == 'x' || o->s[1] == 'X')) {
		char *end;
		unsigned long long v = strtoull(o->s + 2, &end, 16);
		if (end != o->s + 2 && !*end)
			return v;
	}
	return 0;
}

static void rec_begin(struct axl__rsq *q, struct axl__json *w, const char *f, const char *d, const char *e,
		      const unsigned *args, int nargs, rsmi_status_t r)
{
	axl__vrec_begin(&q->v, w, f, d, e, args, nargs, r);
}

/* ---- the calls ------------------------------------------------------------------------ */

rsmi_status_t axl__rsq_init(struct axl__rsq *q)
{
	q->calls++;
	rsmi_status_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		if (!find(q, "rsmi_init", NULL, NULL, NULL, 0, &r) && r == RSMI_STATUS_NOT_SUPPORTED)
			return RSMI_STATUS_INIT_ERROR; /* nobody recorded an init: no library there */
		return r;
	}
	/* rsmi_init may hang: called outside the cache's lock */
	r = axl__vlib_flag(&cache, q->fn, 0) ? RSMI_STATUS_SUCCESS : LIVE(q->fn->init, 0);
	if (r == RSMI_STATUS_SUCCESS)
		axl__vlib_set_flag(&cache, q->fn, 0);
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, "rsmi_init", NULL, NULL, NULL, 0, r);
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

rsmi_status_t axl__rsq_version(struct axl__rsq *q, unsigned *major, unsigned *minor, unsigned *patch)
{
	static const char f[] = "rsmi_version_get";
	q->calls++;
	rsmi_status_t r;
	*major = *minor = *patch = 0;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = find(q, f, NULL, NULL, NULL, 0, &r);
		int64_t v;
		if (o && axl__jv_int(o, "major", &v) && v >= 0 && v < 100000)
			*major = (unsigned)v;
		if (o && axl__jv_int(o, "minor", &v) && v >= 0 && v < 100000)
			*minor = (unsigned)v;
		if (o && axl__jv_int(o, "patch", &v) && v >= 0 && v < 100000)
			*patch = (unsigned)v;
		return r;
	}
	rsmi_version_t ver;
	memset(&ver, 0, sizeof ver);
	r = LIVE(q->fn->version_get, &ver);
	if (r == RSMI_STATUS_SUCCESS) {
		*major = ver.major;
		*minor = ver.minor;
		*patch = ver.patch;
	}
	/* the frequency table's layout: ROCm 5 (and Hygon's fork, .so.2) the old one,
	 * ROCm 6 and later the new one (ROCm 6.0 reports 7.0). Two builds report 1.x:
	 * Debian's 5.7 (old layout) and ROCm 7.2 (new): only ROCm 6 and later export
	 * rsmi_dev_activity_metric_get, which tells them apart (as btop does). */
	bool v6sym = q->fn->dev_activity_metric_get != NULL;
	if (r != RSMI_STATUS_SUCCESS || ver.major == 1)
		q->freq_v6 = v6sym;
	else
		q->freq_v6 = ver.major >= 6;
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, f, NULL, NULL, NULL, 0, r);
		if (r == RSMI_STATUS_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_obj(&w);
			axl__json_kint(&w, "major", ver.major);
			axl__json_kint(&w, "minor", ver.minor);
			axl__json_kint(&w, "patch", ver.patch);
			axl__json_obj_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

static void set_str(char *buf, unsigned cap, const char *s)
{
	if (cap)
		snprintf(buf, cap, "%s", s ? s : "");
}

/* A string call, after the live call (or none, replaying). */
static rsmi_status_t q_string(struct axl__rsq *q, const char *f, const char *d, const unsigned *args, int nargs,
			      char *buf, unsigned cap, rsmi_status_t live)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		rsmi_status_t r;
		const struct axl__jv *o = find(q, f, d, NULL, args, nargs, &r);
		set_str(buf, cap, o && o->type == AXL__J_STR ? o->s : "");
		return r;
	}
	buf[cap - 1] = '\0'; /* a library may fill the buffer without a terminator */
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, f, d, NULL, args, nargs, live);
		if (live == RSMI_STATUS_SUCCESS)
			axl__json_kstr(&w, "o", buf);
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

rsmi_status_t axl__rsq_driver(struct axl__rsq *q, char *buf, unsigned cap)
{
	q->calls++;
	unsigned comp = RSMI_SW_COMP_DRIVER;
	memset(buf, 0, cap);
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->version_str_get, RSMI_SW_COMP_DRIVER, buf, cap);
	return q_string(q, "rsmi_version_str_get", NULL, &comp, 1, buf, cap, r);
}

/* An unsigned integer output, recorded as an integer (or "0x..." above 2^63 or hex). */
static rsmi_status_t q_uint(struct axl__rsq *q, const char *f, const char *d, const char *e, const unsigned *args,
			    int nargs, uint64_t *out, bool hex, rsmi_status_t live)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		rsmi_status_t r;
		*out = get_u64(find(q, f, d, e, args, nargs, &r));
		return r;
	}
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, f, d, e, args, nargs, live);
		if (live == RSMI_STATUS_SUCCESS) {
			axl__json_key(&w, "o");
			put_u64(&w, *out, hex);
		}
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

/* Two unsigned outputs, recorded as [a, b]. */
static rsmi_status_t q_uint2(struct axl__rsq *q, const char *f, const char *d, const char *e, const unsigned *args,
			     int nargs, uint64_t *a, uint64_t *b, rsmi_status_t live)
{
	if (q->v.mode == AXL__VREC_REPLAY) {
		rsmi_status_t r;
		const struct axl__jv *o = find(q, f, d, e, args, nargs, &r);
		*a = *b = 0;
		if (o && o->type == AXL__J_ARR && o->len == 2) {
			*a = get_u64(&o->items[0]);
			*b = get_u64(&o->items[1]);
		}
		return r;
	}
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, f, d, e, args, nargs, live);
		if (live == RSMI_STATUS_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_arr(&w);
			put_u64(&w, *a, false);
			put_u64(&w, *b, false);
			axl__json_arr_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return live;
}

rsmi_status_t axl__rsq_count(struct axl__rsq *q, unsigned *n)
{
	q->calls++;
	uint32_t v = 0;
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->num_monitor_devices, &v);
	uint64_t o = v;
	r = q_uint(q, "rsmi_num_monitor_devices", NULL, NULL, NULL, 0, &o, false, r);
	*n = o < 0x10000 ? (unsigned)o : 0x10000;
	return r;
}

rsmi_status_t axl__rsq_str(struct axl__rsq *q, enum axl__rsq_str k, unsigned dv, char *buf, unsigned cap)
{
	static const char *const names[RSQ_STR__N] = {
		"rsmi_dev_name_get",          "rsmi_dev_brand_get",          "rsmi_dev_serial_number_get",
		"rsmi_dev_vbios_version_get", "rsmi_dev_compute_partition_get", "rsmi_dev_memory_partition_get"};
	q->calls++;
	char d[16];
	memset(buf, 0, cap);
	rsmi_status_t r = 0;
	if (q->v.mode != AXL__VREC_REPLAY) {
		const struct axl__rsmi_fns *fn = q->fn;
		switch (k) {
		case RSQ_NAME: r = LIVE(fn->dev_name_get, dv, buf, cap); break;
		case RSQ_BRAND: r = LIVE(fn->dev_brand_get, dv, buf, cap); break;
		case RSQ_SERIAL: r = LIVE(fn->dev_serial_number_get, dv, buf, cap); break;
		case RSQ_VBIOS: r = LIVE(fn->dev_vbios_version_get, dv, buf, cap); break;
		case RSQ_COMPUTE_PARTITION: r = LIVE(fn->dev_compute_partition_get, dv, buf, cap); break;
		case RSQ_MEMORY_PARTITION: r = LIVE(fn->dev_memory_partition_get, dv, buf, cap); break;
		default: r = AXL_RSMI_NO_FUNCTION; break;
		}
	}
	return q_string(q, names[k], dname(d, sizeof d, dv), NULL, 0, buf, cap, r);
}

rsmi_status_t axl__rsq_u64(struct axl__rsq *q, enum axl__rsq_u64 k, unsigned dv, uint64_t *out)
{
	static const char *const names[RSQ_U64__N] = {"rsmi_dev_pci_id_get", "rsmi_dev_unique_id_get",
						       "rsmi_dev_power_cap_default_get"};
	q->calls++;
	char d[16];
	*out = 0;
	rsmi_status_t r = 0;
	if (q->v.mode != AXL__VREC_REPLAY) {
		const struct axl__rsmi_fns *fn = q->fn;
		switch (k) {
		case RSQ_PCI_ID: r = LIVE(fn->dev_pci_id_get, dv, out); break;
		case RSQ_UNIQUE_ID: r = LIVE(fn->dev_unique_id_get, dv, out); break;
		case RSQ_POWER_CAP_DEFAULT: r = LIVE(fn->dev_power_cap_default_get, dv, out); break;
		default: r = AXL_RSMI_NO_FUNCTION; break;
		}
	}
	return q_uint(q, names[k], dname(d, sizeof d, dv), NULL, NULL, 0, out, k != RSQ_POWER_CAP_DEFAULT, r);
}

rsmi_status_t axl__rsq_u16(struct axl__rsq *q, enum axl__rsq_u16 k, unsigned dv, unsigned *out)
{
	static const char *const names[RSQ_U16__N] = {"rsmi_dev_id_get", "rsmi_dev_vendor_id_get",
						       "rsmi_dev_revision_get"};
	q->calls++;
	char d[16];
	/* a zeroed 64-bit word: uint16_t in current libraries, uint64_t in the oldest */
	uint64_t v = 0;
	rsmi_status_t r = 0;
	if (q->v.mode != AXL__VREC_REPLAY) {
		const struct axl__rsmi_fns *fn = q->fn;
		uint16_t *p = (uint16_t *)(void *)&v;
		switch (k) {
		case RSQ_DEVICE_ID: r = LIVE(fn->dev_id_get, dv, p); break;
		case RSQ_VENDOR_ID: r = LIVE(fn->dev_vendor_id_get, dv, p); break;
		case RSQ_REVISION: r = LIVE(fn->dev_revision_get, dv, p); break;
		default: r = AXL_RSMI_NO_FUNCTION; break;
		}
		v &= 0xffff;
	}
	r = q_uint(q, names[k], dname(d, sizeof d, dv), NULL, NULL, 0, &v, false, r);
	*out = v <= 0xffff ? (unsigned)v : 0x10000; /* a replayed value out of range stays out of range */
	return r;
}

rsmi_status_t axl__rsq_u64a(struct axl__rsq *q, enum axl__rsq_u64a k, unsigned dv, unsigned arg, uint64_t *out)
{
	static const char *const names[RSQ_U64A__N] = {"rsmi_dev_memory_total_get", "rsmi_dev_memory_usage_get",
							"rsmi_dev_power_cap_get"};
	q->calls++;
	char d[16];
	*out = 0;
	rsmi_status_t r = 0;
	if (q->v.mode != AXL__VREC_REPLAY) {
		const struct axl__rsmi_fns *fn = q->fn;
		switch (k) {
		case RSQ_MEMORY_TOTAL: r = LIVE(fn->dev_memory_total_get, dv, (int)arg, out); break;
		case RSQ_MEMORY_USAGE: r = LIVE(fn->dev_memory_usage_get, dv, (int)arg, out); break;
		case RSQ_POWER_CAP: r = LIVE(fn->dev_power_cap_get, dv, arg, out); break;
		default: r = AXL_RSMI_NO_FUNCTION; break;
		}
	}
	return q_uint(q, names[k], dname(d, sizeof d, dv), NULL, &arg, 1, out, false, r);
}

rsmi_status_t axl__rsq_numa(struct axl__rsq *q, unsigned dv, unsigned *node)
{
	q->calls++;
	char d[16];
	uint32_t v = 0;
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->topo_get_numa_node_number, dv, &v);
	uint64_t o = v;
	r = q_uint(q, "rsmi_topo_get_numa_node_number", dname(d, sizeof d, dv), NULL, NULL, 0, &o, false, r);
	*node = o <= 0xffffffffu ? (unsigned)o : 0xffffffffu;
	return r;
}

rsmi_status_t axl__rsq_power_range(struct axl__rsq *q, unsigned dv, uint64_t *max, uint64_t *min)
{
	q->calls++;
	char d[16];
	unsigned sensor = 0;
	*max = *min = 0;
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->dev_power_cap_range_get, dv, 0, max, min);
	return q_uint2(q, "rsmi_dev_power_cap_range_get", dname(d, sizeof d, dv), NULL, &sensor, 1, max, min, r);
}

rsmi_status_t axl__rsq_freq(struct axl__rsq *q, unsigned dv, unsigned clk, struct axl__rsmi_freq *out)
{
	static const char f[] = "rsmi_dev_gpu_clk_freq_get";
	q->calls++;
	char d[16];
	dname(d, sizeof d, dv);
	memset(out, 0, sizeof *out);
	rsmi_status_t r;
	if (q->v.mode == AXL__VREC_REPLAY) {
		const struct axl__jv *o = find(q, f, d, NULL, &clk, 1, &r);
		int64_t v;
		if (o && axl__jv_int(o, "num_supported", &v) && v >= 0 && v <= 0xffffffffll)
			out->num = (uint32_t)v;
		if (o && axl__jv_int(o, "current", &v) && v >= 0 && v <= 0xffffffffll)
			out->current = (uint32_t)v;
		if (o && axl__jv_int(o, "deep_sleep", &v) && v >= 0 && v <= 0xff)
			out->deep_sleep = (unsigned)v;
		const struct axl__jv *fr = axl__jv_get(o, "frequency");
		for (size_t i = 0; fr && fr->type == AXL__J_ARR && i < fr->len && i < AXL_RSMI_FREQ_V6; i++)
			out->hz[i] = get_u64(&fr->items[i]);
		return r;
	}
	axl_rsmi_freq_buf buf;
	memset(&buf, 0, sizeof buf);
	r = LIVE(q->fn->dev_gpu_clk_freq_get, dv, (int)clk, &buf);
	size_t max;
	if (q->freq_v6) {
		out->num = buf.v6.num_supported;
		out->current = buf.v6.current;
		/* a byte, not a bool: a library of the other layout (or a buggy one) leaves
		 * anything there, and loading that as a bool is undefined */
		unsigned char ds;
		memcpy(&ds, (const unsigned char *)&buf + offsetof(rsmi_frequencies_v6_t, has_deep_sleep), 1);
		out->deep_sleep = ds;
		max = AXL_RSMI_FREQ_V6;
		for (size_t i = 0; i < max && i < out->num; i++)
			out->hz[i] = buf.v6.frequency[i];
	} else {
		out->num = buf.v5.num_supported;
		out->current = buf.v5.current;
		max = AXL_RSMI_FREQ_V5;
		for (size_t i = 0; i < max && i < out->num; i++)
			out->hz[i] = buf.v5.frequency[i];
	}
	if (q->v.mode == AXL__VREC_RECORD) {
		struct axl__json w;
		rec_begin(q, &w, f, d, NULL, &clk, 1, r);
		if (r == RSMI_STATUS_SUCCESS) {
			axl__json_key(&w, "o");
			axl__json_obj(&w);
			axl__json_kint(&w, "num_supported", out->num);
			axl__json_kint(&w, "current", out->current);
			axl__json_kint(&w, "deep_sleep", out->deep_sleep);
			axl__json_key(&w, "frequency");
			axl__json_arr(&w);
			for (size_t i = 0; i < max && i < out->num; i++)
				put_u64(&w, out->hz[i], false);
			axl__json_arr_end(&w);
			axl__json_obj_end(&w);
		}
		axl__vrec_end(&q->v, &w);
	}
	return r;
}

rsmi_status_t axl__rsq_link_type(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *hops, unsigned *type)
{
	q->calls++;
	char da[16], db[16];
	int t = 0;
	*hops = 0;
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->topo_get_link_type, a, b, hops, &t);
	uint64_t ty = (unsigned)t;
	r = q_uint2(q, "rsmi_topo_get_link_type", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0, hops,
		    &ty, r);
	*type = ty <= 0xffffffffu ? (unsigned)ty : 0xffffffffu;
	return r;
}

rsmi_status_t axl__rsq_bandwidth(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *min, uint64_t *max)
{
	q->calls++;
	char da[16], db[16];
	*min = *max = 0;
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->minmax_bandwidth_get, a, b, min, max);
	return q_uint2(q, "rsmi_minmax_bandwidth_get", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0,
		       min, max, r);
}

rsmi_status_t axl__rsq_p2p(struct axl__rsq *q, unsigned a, unsigned b, unsigned *accessible)
{
	q->calls++;
	char da[16], db[16];
	/* a bool the library writes: read it back as a byte, whatever it holds */
	unsigned char v[8] = {0};
	rsmi_status_t r = q->v.mode == AXL__VREC_REPLAY ? 0 : LIVE(q->fn->is_p2p_accessible, a, b, (bool *)(void *)v);
	uint64_t o = v[0];
	r = q_uint(q, "rsmi_is_P2P_accessible", dname(da, sizeof da, a), dname(db, sizeof db, b), NULL, 0, &o, false,
		   r);
	*accessible = o <= 0xff ? (unsigned)o : 0xff;
	return r;
}
