/* SPDX-License-Identifier: MIT */
/* The public API: errors, context options, backend selection, NULL safety, a small
 * synthetic tree built here, and two threads sharing one context. */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"

static char root[256];

static void put(const char *rel, const char *content)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	/* mkdir -p of the parent */
	for (char *p = path + strlen(root) + 1; *p; p++) {
		if (*p == '/') {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
	}
	FILE *f = fopen(path, "w");
	if (!f) {
		perror(path);
		exit(2);
	}
	fputs(content, f);
	fclose(f);
}

static void link_(const char *target, const char *rel)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", root, rel);
	if (symlink(target, path) != 0) {
		perror(path);
		exit(2);
	}
}

/* One NVIDIA H100 behind a switch, one ASPEED BMC display, one RDMA NIC, one NVSwitch. */
static void build_tree(void)
{
	snprintf(root, sizeof root, "/tmp/axl-test-api-%d", (int)getpid());
	mkdir(root, 0755);
	const char *gpu = "sys/devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0";
	char p[512];
#define ATTR(dir, name, val)                                   \
	do {                                                   \
		snprintf(p, sizeof p, "%s/%s", dir, name);     \
		put(p, val);                                   \
	} while (0)
	ATTR(gpu, "vendor", "0x10de\n");
	ATTR(gpu, "device", "0x2330\n");
	ATTR(gpu, "class", "0x030200\n");
	ATTR(gpu, "revision", "0xa1\n");
	ATTR(gpu, "subsystem_vendor", "0x10de\n");
	ATTR(gpu, "subsystem_device", "0x16c1\n");
	ATTR(gpu, "numa_node", "1\n");
	ATTR(gpu, "local_cpulist", "24-47\n");
	ATTR(gpu, "current_link_speed", "32.0 GT/s PCIe\n");
	ATTR(gpu, "current_link_width", "16\n");
	ATTR(gpu, "max_link_speed", "32.0 GT/s PCIe\n");
	ATTR(gpu, "max_link_width", "16\n");
	put("sys/bus/pci/drivers/nvidia/.keep", "");
	snprintf(p, sizeof p, "%s/driver", gpu);
	link_("../../../../../../bus/pci/drivers/nvidia", p);
	put("sys/bus/pci/devices/.keep", "");
	link_("../../../devices/pci0000:00/0000:00:01.0/0000:01:00.0/0000:02:00.0/0000:03:00.0",
	      "sys/bus/pci/devices/0000:03:00.0");
	const char *bmc = "sys/devices/pci0000:00/0000:00:1c.0/0000:05:00.0";
	ATTR(bmc, "vendor", "0x1a03\n");
	ATTR(bmc, "device", "0x2000\n");
	ATTR(bmc, "class", "0x030000\n");
	link_("../../../devices/pci0000:00/0000:00:1c.0/0000:05:00.0", "sys/bus/pci/devices/0000:05:00.0");
	const char *nic = "sys/devices/pci0000:00/0000:00:1d.0/0000:06:00.0";
	ATTR(nic, "vendor", "0x15b3\n");
	ATTR(nic, "device", "0x1021\n");
	ATTR(nic, "class", "0x020000\n");
	ATTR(nic, "numa_node", "1\n");
	link_("../../../devices/pci0000:00/0000:00:1d.0/0000:06:00.0", "sys/bus/pci/devices/0000:06:00.0");
	/* its RDMA device: port 1 down, port 2 active (drivers/infiniband/core/sysfs.c formats) */
	const char *ib = "sys/devices/pci0000:00/0000:00:1d.0/0000:06:00.0/infiniband/mlx5_0";
	ATTR(ib, "node_guid", "b8ce:f603:00a1:2b3c\n");
	ATTR(ib, "ports/1/state", "1: DOWN\n");
	ATTR(ib, "ports/1/rate", "10 Gb/sec (4X SDR)\n");
	ATTR(ib, "ports/1/link_layer", "InfiniBand\n");
	ATTR(ib, "ports/2/state", "4: ACTIVE\n");
	ATTR(ib, "ports/2/rate", "400 Gb/sec (4X NDR)\n");
	ATTR(ib, "ports/2/link_layer", "InfiniBand\n");
	snprintf(p, sizeof p, "%s/device", ib);
	link_("../../../0000:06:00.0", p);
	put("sys/class/infiniband/.keep", "");
	link_("../../devices/pci0000:00/0000:00:1d.0/0000:06:00.0/infiniband/mlx5_0", "sys/class/infiniband/mlx5_0");
	/* an NVSwitch of the H100 generation, no driver bound */
	const char *nvs = "sys/devices/pci0000:00/0000:00:1e.0/0000:07:00.0";
	ATTR(nvs, "vendor", "0x10de\n");
	ATTR(nvs, "device", "0x22a3\n");
	ATTR(nvs, "class", "0x068000\n");
	ATTR(nvs, "numa_node", "0\n");
	link_("../../../devices/pci0000:00/0000:00:1e.0/0000:07:00.0", "sys/bus/pci/devices/0000:07:00.0");
	put("proc/driver/nvidia/gpus/0000:03:00.0/information",
	    "Model: \t\t NVIDIA H100 80GB HBM3\nIRQ:   \t\t 300\nGPU UUID: \t "
	    "GPU-11111111-2222-3333-4444-555555555555\nVideo BIOS: \t 96.00.99.00.01\n"
	    "Bus Type: \t PCIe\nDMA Size: \t 52 bits\nDMA Mask: \t 0xfffffffffffff\n"
	    "Bus Location: \t 0000:03:00.0\nDevice Minor: \t 4\nGPU Excluded:\t No\n");
	put("proc/driver/nvidia/version",
	    "NVRM version: NVIDIA UNIX x86_64 Kernel Module  550.90.07  Fri May 31 09:35:42 UTC 2024\n");
	put("proc/cpuinfo", "processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\n"
			    "physical id\t: 0\ncore id\t\t: 0\nflags\t\t: fpu lm avx2 avx512f amx_tile\n\n"
			    "processor\t: 1\nvendor_id\t: GenuineIntel\nmodel name\t: Test CPU\n"
			    "physical id\t: 1\ncore id\t\t: 0\nflags\t\t: fpu lm avx2 avx512f amx_tile\n\n");
	put("proc/meminfo", "MemTotal:       16384 kB\nMemFree: 1 kB\n");
	put("proc/sys/kernel/hostname", "node-a\n");
	put("proc/sys/kernel/osrelease", "6.1.0-test\n");
	put("proc/self/cgroup", "0::/kubepods/pod1\n");
	put("sys/fs/cgroup/kubepods/pod1/memory.max", "max\n");
	put("sys/fs/cgroup/kubepods/memory.max", "8388608\n");
	put("sys/devices/system/node/node0/cpulist", "0\n");
	put("sys/devices/system/node/node0/meminfo", "Node 0 MemTotal:       8192 kB\n");
	put("sys/devices/system/node/node0/distance", "10 21\n");
	put("sys/devices/system/node/node1/cpulist", "1\n");
	put("sys/devices/system/node/node1/meminfo", "Node 1 MemTotal:       8192 kB\n");
	put("sys/devices/system/node/node1/distance", "21 10\n");
}

static void test_errors(void)
{
	CHECK_STR(axl_strerror(AXL_ENOENT), "not found");
	CHECK_STR(axl_err_name(AXL_EPARSE), "EPARSE");
	CHECK_STR(axl_err_name(12345), "EUNKNOWNCODE");
	CHECK_STR(axl_strerror(-999), "unknown error");
	CHECK(axl_error_last() != NULL);
	CHECK_STR(axl_source_name(AXL_SOURCE_DEVICEDB), "devicedb");
	CHECK_STR(axl_source_name((axl_source)99), "unknown");
	CHECK_STR(axl_family_name(AXL_FAMILY_TPU), "tpu");
	/* the public lists give every value, in value order (the numbers are ABI), with the
	 * names the functions return */
#define CHECK_SOURCE_(name, str) CHECK_STR(axl_source_name(AXL_SOURCE_##name), str);
	AXL_SOURCE_LIST(CHECK_SOURCE_)
#undef CHECK_SOURCE_
	CHECK_INT(AXL_SOURCE_NVML, 8);
	CHECK_INT(AXL_SOURCE_SIM, 11);
	CHECK_INT(AXL_SOURCE_DCMI, 12);
	CHECK_INT(AXL_SOURCE__COUNT, 13);
#define CHECK_FAMILY_(name, str) CHECK_STR(axl_family_name(AXL_FAMILY_##name), str);
	AXL_FAMILY_LIST(CHECK_FAMILY_)
#undef CHECK_FAMILY_
	CHECK_INT(AXL_FAMILY_TPU, 3);
	CHECK_INT(AXL_FAMILY__COUNT, 7);
	CHECK_STR(axl_format_name(AXL_FORMAT_BF16), "BF16");
	CHECK(axl_format_name((axl_format)99) == NULL);
	CHECK_STR(axl_attr_name(AXL_ATTR_MEMORY_TOTAL), "memory.total_bytes");
	CHECK_STR(axl_version(), AXL_VERSION_STRING);
}

static void test_context_options(void)
{
	axl_context *ctx = (axl_context *)1;
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sysroot = "/nonexistent/axl/root";
	CHECK_INT(axl_context_open(&ctx, &o), AXL_ENOENT);
	CHECK(ctx == NULL);
	CHECK(strstr(axl_error_last(), "/nonexistent/axl/root") != NULL);
	o.sysroot = root;
	o.backends = "nvidia,bogus";
	CHECK_INT(axl_context_open(&ctx, &o), AXL_EINVAL);
	CHECK(strstr(axl_error_last(), "bogus") != NULL);
	o.backends = NULL;
	o.version = 999;
	CHECK_INT(axl_context_open(&ctx, &o), AXL_EVERSION);
	CHECK_INT(axl_context_open(NULL, NULL), AXL_EINVAL);
	axl_context_free(NULL);
	axl_inventory_free(NULL);
	CHECK(axl_inventory_device(NULL, 0) == NULL);
	CHECK_INT(axl_inventory_device_count(NULL), 0);
	CHECK_STR(axl_device_id(NULL), "");
	CHECK_INT(axl_device_get_int(NULL, AXL_ATTR_INDEX, NULL), AXL_EINVAL);
	CHECK(axl_backend_count() > 5);
	CHECK_STR(axl_backend_name(0), "pci");
	/* the vendor libraries' variables come from their backends */
	int libs = 0;
	for (size_t i = 0; i < axl_backend_count() + 1; i++) {
		const char *v = axl_backend_library_variable(i);
		if (v && strcmp(v, "AXL_NVML_LIBRARY") == 0 && strcmp(axl_backend_name(i), "nvml") == 0)
			libs |= 1;
		if (v && strcmp(v, "AXL_ROCM_SMI_LIBRARY") == 0)
			libs |= 2;
		if (v && strcmp(v, "AXL_ZE_LIBRARY") == 0)
			libs |= 4;
	}
	CHECK_INT(libs, 7);
	CHECK(axl_backend_library_variable(0) == NULL);
	CHECK(axl_backend_library_variable(axl_backend_count()) == NULL);
}

static axl_context *open_ctx(const char *backends)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.flags = AXL_CONTEXT_NO_ENV;
	o.sysroot = root;
	o.backends = backends;
	axl_context *ctx = NULL;
	int rc = axl_context_open(&ctx, &o);
	CHECK_INT(rc, 0);
	return ctx;
}

static void test_inventory(void)
{
	axl_context *ctx = open_ctx(NULL);
	if (!ctx)
		return;
	CHECK(axl_context_is_rerooted(ctx));
	axl_inventory *inv = NULL;
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	CHECK_INT(axl_inventory_device_count(inv), 1); /* the BMC and the NIC are not accelerators */
	const axl_device *d = axl_inventory_device(inv, 0);
	CHECK_STR(axl_device_id(d), "nvidia:0");
	const char *s = NULL;
	int64_t v = -1;
	double f = -1;
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_MODEL, &s), 0);
	CHECK_STR(s, "NVIDIA H100 80GB HBM3");
	CHECK_INT(axl_device_source(d, AXL_ATTR_MODEL), AXL_SOURCE_PROCFS);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_UUID, &s), 0);
	CHECK_STR(s, "GPU-11111111-2222-3333-4444-555555555555");
	CHECK_INT(axl_device_get_int(d, AXL_ATTR_NUMA_NODE, &v), 0);
	CHECK_INT(v, 1);
	CHECK_INT(axl_device_get_int(d, AXL_ATTR_LINK_CURRENT_GEN, &v), 0);
	CHECK_INT(v, 5);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_DRIVER_VERSION, &s), 0);
	CHECK_STR(s, "550.90.07");
	CHECK_INT(axl_device_get_int(d, AXL_ATTR_FAMILY, &v), 0);
	CHECK_INT(v, AXL_FAMILY_GPU);
	/* type mismatch and unknown */
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_NUMA_NODE, &s), AXL_EINVAL);
	CHECK_INT(axl_device_get_int(d, AXL_ATTR_SERIAL, &v), AXL_EINVAL);
	CHECK_INT(axl_device_get_num(d, AXL_ATTR_NUMA_NODE, &f), 0);
	CHECK(f == 1.0);
	s = "untouched";
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_SERIAL, &s), AXL_EUNKNOWN);
	CHECK_STR(s, "untouched");
	CHECK_INT(axl_device_get_int(d, (axl_attr)9999, &v), AXL_EINVAL);
	/* nodes */
	CHECK_INT(axl_device_node_count(d), 4);
	CHECK_STR(axl_device_node(d, 0), "/dev/nvidia-uvm");
	CHECK_STR(axl_device_node(d, 2), "/dev/nvidia4");
	CHECK(axl_device_node(d, 99) == NULL);
	/* find by id, uuid, PCI address, short address */
	CHECK(axl_inventory_find(inv, "nvidia:0") == d);
	CHECK(axl_inventory_find(inv, "GPU-11111111-2222-3333-4444-555555555555") == d);
	CHECK(axl_inventory_find(inv, "0000:03:00.0") == d);
	CHECK(axl_inventory_find(inv, "03:00.0") == d);
	CHECK(axl_inventory_find(inv, "nvidia:1") == NULL);
	/* host */
	const axl_host *h = axl_inventory_host(inv);
	CHECK_INT(axl_host_get_int(h, AXL_HOST_CPU_SOCKETS, &v), 0);
	CHECK_INT(v, 2);
	CHECK_INT(axl_host_get_int(h, AXL_HOST_MEMORY_TOTAL, &v), 0);
	CHECK_INT(v, 16384 * 1024);
	CHECK_INT(axl_host_get_int(h, AXL_HOST_MEMORY_LIMIT, &v), 0);
	CHECK_INT(v, 8388608); /* the parent's limit is the effective one */
	CHECK_INT(axl_host_get_str(h, AXL_HOST_HOSTNAME, &s), 0);
	CHECK_STR(s, "node-a");
	CHECK_INT(axl_host_numa_node_count(h), 2);
	CHECK_INT(axl_host_numa_node(h, 1)->distances[0], 21);
	CHECK_INT(axl_host_isa_count(h), 3);
	/* JSON */
	char *doc = NULL;
	size_t len = 0;
	CHECK_INT(axl_inventory_json(inv, 0, &doc, &len), 0);
	CHECK(doc && strlen(doc) == len);
	CHECK(doc && strstr(doc, "\"schema\":\"axl.inventory\"") != NULL);
	CHECK(doc && strstr(doc, "\"vendor_id\":\"0x10de\"") != NULL);
	axl_free(doc);
	CHECK_INT(axl_inventory_warning_count(inv), 0);
	/* the NVSwitch, the RDMA NIC and the path to it */
	CHECK_INT(axl_inventory_switch_count(inv), 1);
	const struct axl_switch *sw = axl_inventory_switch(inv, 0);
	CHECK(sw && strcmp(sw->kind, "nvswitch") == 0 && strcmp(sw->pci_address, "0000:07:00.0") == 0);
	CHECK(sw && sw->generation == 3 && sw->device_id == 0x22a3 && sw->driver == NULL && sw->numa_node == 0);
	CHECK(axl_inventory_switch(inv, 1) == NULL);
	CHECK_INT(axl_inventory_nic_count(inv), 1);
	const struct axl_nic *nic = axl_inventory_nic(inv, 0);
	CHECK(nic && strcmp(nic->name, "mlx5_0") == 0);
	CHECK(nic && nic->pci_address && strcmp(nic->pci_address, "0000:06:00.0") == 0);
	CHECK(nic && nic->numa_node == 1 && nic->port_count == 2 && nic->rate_gbit == 400.0);
	CHECK(nic && nic->state && strcmp(nic->state, "ACTIVE") == 0);
	CHECK(nic && nic->link_layer && strcmp(nic->link_layer, "InfiniBand") == 0);
	CHECK(nic && nic->node_guid && strcmp(nic->node_guid, "b8ce:f603:00a1:2b3c") == 0);
	CHECK_INT(axl_inventory_nic_link_count(inv), 1);
	const struct axl_link *nl = axl_inventory_nic_link(inv, 0);
	CHECK(nl && strcmp(nl->a, "nvidia:0") == 0 && strcmp(nl->b, "mlx5_0") == 0);
	CHECK(nl && strcmp(nl->kind, "host-bridge") == 0 && nl->pcie_switches == 1);
	CHECK(axl_inventory_nic_link(inv, 1) == NULL);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_NEAREST_NIC, &s), 0);
	CHECK_STR(s, "mlx5_0");
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_NEAREST_NIC_PATH, &s), 0);
	CHECK_STR(s, "host-bridge");
	CHECK_INT(axl_device_source(d, AXL_ATTR_NEAREST_NIC), AXL_SOURCE_DERIVED);
	CHECK_INT(axl_inventory_link_count(inv), 0); /* one accelerator */
	CHECK(axl_inventory_nic(NULL, 0) == NULL && axl_inventory_nic_count(NULL) == 0);
	CHECK(axl_inventory_switch_count(NULL) == 0 && axl_inventory_nic_link_count(NULL) == 0);
	axl_inventory_free(inv);

	/* --all: the CPU and every PCI function */
	CHECK_INT(axl_inventory_open(&inv, ctx, AXL_INVENTORY_ALL), 0);
	CHECK_INT(axl_inventory_device_count(inv), 2);
	CHECK_INT(axl_device_family(axl_inventory_device(inv, 1)), AXL_FAMILY_CPU);
	CHECK_INT(axl_inventory_pci_function_count(inv), 4);
	const struct axl_pci_function *pf = axl_inventory_pci_function(inv, 1);
	CHECK(pf && !pf->accelerator && pf->vendor_id == 0x1a03);
	axl_inventory_free(inv);
	axl_context_free(ctx);

	/* backend selection: without the nvidia backend the GPU is not listed */
	ctx = open_ctx("-nvidia");
	CHECK(!axl_context_backend_enabled(ctx, "nvidia"));
	CHECK(axl_context_backend_enabled(ctx, "amdgpu"));
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	CHECK_INT(axl_inventory_device_count(inv), 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	/* without the device database: no architecture, procfs model still there */
	ctx = open_ctx("-devicedb");
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	d = axl_inventory_device(inv, 0);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_ARCHITECTURE, &s), AXL_EUNKNOWN);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_MODEL, &s), 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
	ctx = open_ctx(NULL);
	CHECK_INT(axl_inventory_open(&inv, ctx, 0), 0);
	d = axl_inventory_device(inv, 0);
	CHECK_INT(axl_device_get_str(d, AXL_ATTR_ARCHITECTURE, &s), 0);
	CHECK_STR(s, "Hopper");
	CHECK_INT(axl_device_source(d, AXL_ATTR_ARCHITECTURE), AXL_SOURCE_DEVICEDB);
	CHECK(axl_device_precision_count(d) > 0);
	CHECK(axl_device_partitioning_count(d) > 0);
	axl_inventory_free(inv);
	axl_context_free(ctx);
}

struct thread_arg {
	axl_context *ctx;
	int ok;
};

static void *worker(void *p)
{
	struct thread_arg *a = p;
	a->ok = 1;
	for (int i = 0; i < 50; i++) {
		axl_inventory *inv;
		if (axl_inventory_open(&inv, a->ctx, AXL_INVENTORY_ALL) != 0) {
			a->ok = 0;
			break;
		}
		char *doc;
		if (axl_inventory_device_count(inv) != 2 || axl_inventory_json(inv, 0, &doc, NULL) != 0)
			a->ok = 0;
		else
			axl_free(doc);
		axl_inventory_free(inv);
	}
	return NULL;
}

static void test_threads(void)
{
	axl_context *ctx = open_ctx(NULL);
	pthread_t t[4];
	struct thread_arg args[4];
	for (int i = 0; i < 4; i++) {
		args[i].ctx = ctx;
		pthread_create(&t[i], NULL, worker, &args[i]);
	}
	for (int i = 0; i < 4; i++) {
		pthread_join(t[i], NULL);
		CHECK(args[i].ok);
	}
	axl_context_free(ctx);
}

int main(void)
{
	build_tree();
	test_errors();
	test_context_options();
	test_inventory();
	test_threads();
	char cmd[300];
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
	if (!getenv("AXL_TEST_KEEP") && system(cmd) != 0)
		fprintf(stderr, "could not remove %s\n", root);
	return check_summary();
}
