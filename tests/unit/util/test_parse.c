/* SPDX-License-Identifier: MIT */
/* The attribute parsers on well-formed, malformed, truncated and hostile text. */
#include <stdint.h>
#include <stdlib.h>

#include "axl/error.h"
#include "check.h"
#include "util/parse.h"

static void test_u64(void)
{
	uint64_t v = 7;
	CHECK_INT(axl__parse_u64("42\n", 10, &v), 0);
	CHECK_INT(v, 42);
	CHECK_INT(axl__parse_u64("0x10de\n", 0, &v), 0);
	CHECK_INT(v, 0x10de);
	CHECK_INT(axl__parse_u64("10DE", 16, &v), 0);
	CHECK_INT(v, 0x10de);
	CHECK_INT(axl__parse_u64("  17163091968  ", 10, &v), 0);
	CHECK_INT(v, 17163091968ull);
	v = 7;
	CHECK_INT(axl__parse_u64("", 10, &v), AXL_EPARSE);
	CHECK_INT(axl__parse_u64("\n", 10, &v), AXL_EPARSE);
	CHECK_INT(axl__parse_u64("12abc", 10, &v), AXL_EPARSE);
	CHECK_INT(axl__parse_u64("-1", 10, &v), AXL_EPARSE);
	CHECK_INT(axl__parse_u64("0x", 16, &v), AXL_EPARSE);
	CHECK_INT(axl__parse_u64("18446744073709551616", 10, &v), AXL_ERANGE);
	CHECK_INT(axl__parse_u64("1 2", 10, &v), AXL_EPARSE);
	CHECK_INT(v, 7); /* untouched on failure */
	CHECK_INT(axl__parse_u64(NULL, 10, &v), AXL_EINVAL);
}

static void test_i64(void)
{
	int64_t v = 0;
	CHECK_INT(axl__parse_i64("-1\n", &v), 0);
	CHECK_INT(v, -1);
	CHECK_INT(axl__parse_i64("9223372036854775807", &v), 0);
	CHECK_INT(axl__parse_i64("-9223372036854775808", &v), 0);
	CHECK(v == INT64_MIN);
	CHECK_INT(axl__parse_i64("9223372036854775808", &v), AXL_ERANGE);
	CHECK_INT(axl__parse_i64("--1", &v), AXL_EPARSE);
	CHECK_INT(axl__parse_i64("1.5", &v), AXL_EPARSE);
}

static void test_hex(void)
{
	uint64_t v;
	CHECK_INT(axl__parse_hex("0x030200\n", 0xffffff, &v), 0);
	CHECK_INT(v, 0x030200);
	CHECK_INT(axl__parse_hex("0x1ffff", 0xffff, &v), AXL_ERANGE);
	CHECK_INT(axl__parse_hex("0xzz", 0xffff, &v), AXL_EPARSE);
}

static void test_link(void)
{
	int g = 0;
	CHECK_INT(axl__parse_link_speed("2.5 GT/s PCIe\n", &g), 0);
	CHECK_INT(g, 1);
	CHECK_INT(axl__parse_link_speed("5.0 GT/s PCIe", &g), 0);
	CHECK_INT(g, 2);
	CHECK_INT(axl__parse_link_speed("8 GT/s", &g), 0); /* older kernels */
	CHECK_INT(g, 3);
	CHECK_INT(axl__parse_link_speed("16.0 GT/s PCIe", &g), 0);
	CHECK_INT(g, 4);
	CHECK_INT(axl__parse_link_speed("32.0 GT/s PCIe", &g), 0);
	CHECK_INT(g, 5);
	CHECK_INT(axl__parse_link_speed("64.0 GT/s PCIe", &g), 0);
	CHECK_INT(g, 6);
	g = 0;
	CHECK_INT(axl__parse_link_speed("Unknown", &g), AXL_EPARSE);
	CHECK_INT(axl__parse_link_speed("7.0 GT/s PCIe", &g), AXL_ERANGE);
	CHECK_INT(axl__parse_link_speed("16.0 GB/s", &g), AXL_EPARSE);
	CHECK_INT(axl__parse_link_speed("16.0 GT/s PCIe junk", &g), AXL_EPARSE);
	CHECK_INT(axl__parse_link_speed("", &g), AXL_EPARSE);
	CHECK_INT(g, 0);
}

static void test_cpulist(void)
{
	unsigned n = 0;
	CHECK_INT(axl__parse_cpulist("0-3,8,10-11\n", 1024, &n), 0);
	CHECK_INT(n, 7);
	CHECK_INT(axl__parse_cpulist("\n", 1024, &n), 0); /* memory-only node */
	CHECK_INT(n, 0);
	CHECK_INT(axl__parse_cpulist("0-23,48-71", 1024, &n), 0);
	CHECK_INT(n, 48);
	CHECK_INT(axl__parse_cpulist("3-1", 1024, &n), AXL_ERANGE);
	CHECK_INT(axl__parse_cpulist("1,1", 1024, &n), AXL_ERANGE);
	CHECK_INT(axl__parse_cpulist("0-99999999", 1024, &n), AXL_ERANGE);
	CHECK_INT(axl__parse_cpulist("0-", 1024, &n), AXL_EPARSE);
	CHECK_INT(axl__parse_cpulist("a", 1024, &n), AXL_EPARSE);
	CHECK_INT(axl__parse_cpulist("0,,1", 1024, &n), AXL_EPARSE);
	CHECK_INT(axl__parse_cpulist("99999999999", 1024, &n), AXL_EPARSE);
}

static void test_bdf(void)
{
	unsigned d, b, s, f;
	CHECK_INT(axl__parse_bdf("0000:18:00.0", &d, &b, &s, &f), 0);
	CHECK_INT(b, 0x18);
	CHECK_INT(axl__parse_bdf("0035:04:1f.7", &d, &b, &s, &f), 0);
	CHECK_INT(d, 0x35);
	CHECK_INT(s, 0x1f);
	CHECK_INT(f, 7);
	CHECK_INT(axl__parse_bdf("10000000:01:00.0", &d, &b, &s, &f), 0); /* Hyper-V domains */
	CHECK_INT(d, 0x10000000);
	CHECK_INT(axl__parse_bdf("0000:18:00.8", &d, &b, &s, &f), AXL_EPARSE);
	CHECK_INT(axl__parse_bdf("0000:18:20.0", &d, &b, &s, &f), AXL_ERANGE);
	CHECK_INT(axl__parse_bdf("18:00.0", &d, &b, &s, &f), AXL_EPARSE);
	CHECK_INT(axl__parse_bdf("0000:18:00.0x", &d, &b, &s, &f), AXL_EPARSE);
	CHECK_INT(axl__parse_bdf("", &d, &b, &s, &f), AXL_EPARSE);
	CHECK_INT(axl__parse_bdf("0000:1:00.0", &d, &b, &s, &f), AXL_EPARSE);
}

static void test_kv(void)
{
	const char *info = "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 512\n"
			   "GPU UUID: \t GPU-8d3b8dd7-0000\nDevice Minor: \t 3\n";
	char v[64];
	CHECK_INT(axl__kv_find(info, "Model", ':', v, sizeof v), 0);
	CHECK_STR(v, "NVIDIA H100 80GB HBM3");
	CHECK_INT(axl__kv_find(info, "GPU UUID", ':', v, sizeof v), 0);
	CHECK_STR(v, "GPU-8d3b8dd7-0000");
	CHECK_INT(axl__kv_find(info, "Device Minor", ':', v, sizeof v), 0);
	CHECK_STR(v, "3");
	CHECK_INT(axl__kv_find(info, "Device", ':', v, sizeof v), AXL_ENOENT); /* prefix only */
	CHECK_INT(axl__kv_find(info, "Missing", ':', v, sizeof v), AXL_ENOENT);
	char small[4];
	CHECK_INT(axl__kv_find(info, "Model", ':', small, sizeof small), AXL_ETOOBIG);
	const char *props = "simd_count 152\nsimd_count_x 9\nlocation_id 1280";
	CHECK_INT(axl__kv_find(props, "simd_count", ' ', v, sizeof v), 0);
	CHECK_STR(v, "152");
	CHECK_INT(axl__kv_find(props, "location_id", ' ', v, sizeof v), 0); /* no final newline */
	CHECK_STR(v, "1280");
	CHECK_INT(axl__kv_find("DEVNAME=dri/renderD128\n", "DEVNAME", '=', v, sizeof v), 0);
	CHECK_STR(v, "dri/renderD128");
	CHECK_INT(axl__kv_find("", "x", ':', v, sizeof v), AXL_ENOENT);
}

static void test_kb(void)
{
	uint64_t b;
	CHECK_INT(axl__parse_kb_size("263855128 kB", &b), 0);
	CHECK_INT(b, 263855128ull * 1024);
	CHECK_INT(axl__parse_kb_size("0 kB", &b), 0);
	CHECK_INT(axl__parse_kb_size("kB", &b), AXL_EPARSE);
	CHECK_INT(axl__parse_kb_size("99999999999999999999 kB", &b), AXL_ERANGE);
	CHECK_INT(axl__parse_kb_size("18014398509481984 kB", &b), AXL_ERANGE);
}

static void test_text(void)
{
	CHECK(axl__is_text("GPU-1234\n", 9));
	CHECK(!axl__is_text("a\0b", 3));
	CHECK(!axl__is_text("\x1b[31m", 5));
}

int main(void)
{
	test_u64();
	test_i64();
	test_hex();
	test_link();
	test_cpulist();
	test_bdf();
	test_kv();
	test_kb();
	test_text();
	return check_summary();
}
