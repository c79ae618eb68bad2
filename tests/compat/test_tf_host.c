/* SPDX-License-Identifier: MIT */
/*
 * Drives libaccelerator_axl.so the way a TensorFusion host does: dlopen(RTLD_NOW |
 * RTLD_GLOBAL), dlsym of every function, then calls, on a simulated node (AXL_SIM, set
 * by CTest) with a private state directory.
 *
 *   test_tf_host LIBRARY CASE
 *
 * CASE: symbols, lifecycle, devices, topology, mixed (tests/sim/mixed.json), nics
 * (the hgx-8x-h100 tree), roce (the gaudi2-8x tree), threads, limits, params, canary, mounts,
 * partitions (needs the partition API: after the merge), reference (TensorFusion's own
 * reference-test expectations, partitions included).
 */
#define _GNU_SOURCE
#include <axl/compat/accelerator.h>
#include <axl/compat/limiter.h>

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <ftw.h>
#include <sys/stat.h>
#include <unistd.h>

static int failures;
#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond)) {                                                        \
			fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #cond); \
			failures++;                                                   \
		}                                                                     \
	} while (0)
#define EQ(a, b)                                                                       \
	do {                                                                           \
		long long a_ = (long long)(a), b_ = (long long)(b);                    \
		if (a_ != b_) {                                                        \
			fprintf(stderr, "%s:%d: FAILED: %s == %s (%lld != %lld)\n", __FILE__, \
				__LINE__, #a, #b, a_, b_);                             \
			failures++;                                                    \
		}                                                                      \
	} while (0)

static struct {
	AccelResult (*Init)(void);
	AccelResult (*Shutdown)(void);
	AccelResult (*GetDeviceCount)(size_t *);
	AccelResult (*GetAllDevices)(ExtendedDeviceInfo *, size_t, size_t *);
	AccelResult (*GetAllDevicesTopology)(ExtendedDeviceTopology *);
	AccelResult (*GetAllDevicesTopologyV2)(ExtendedDeviceTopologyV2 *);
	AccelResult (*AssignPartition)(const char *, const char *, PartitionResult *);
	AccelResult (*RemovePartition)(const char *, const char *);
	AccelResult (*SetMemHardLimit)(const char *, uint64_t);
	AccelResult (*SetComputeUnitHardLimit)(const char *, uint32_t);
	AccelResult (*Snapshot)(SnapshotContext *);
	AccelResult (*Resume)(SnapshotContext *);
	AccelResult (*GetProcessInformation)(ProcessInformation *, size_t, size_t *);
	AccelResult (*GetDeviceMetrics)(const char **, size_t, DeviceMetrics *);
	AccelResult (*GetVendorMountLibs)(MountPath *, size_t, size_t *);
	AccelResult (*RegisterLogCallback)(LogCallbackFunc);
	AccelResult (*OldRegisterLogCallback)(LogCallbackFunc);
} F;

static void *lib;
static const char *lib_path;

static void *sym(const char *name)
{
	void *p = dlsym(lib, name);
	if (!p) {
		fprintf(stderr, "missing symbol %s: %s\n", name, dlerror());
		failures++;
	}
	return p;
}

#define LOAD(field, name) *(void **)&F.field = sym(name)

static void load(const char *path)
{
	lib = dlopen(path, RTLD_NOW | RTLD_GLOBAL);
	if (!lib) {
		fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
		exit(1);
	}
	LOAD(Init, "AccelInit");
	LOAD(Shutdown, "AccelShutdown");
	LOAD(GetDeviceCount, "AccelGetDeviceCount");
	LOAD(GetAllDevices, "AccelGetAllDevices");
	LOAD(GetAllDevicesTopology, "AccelGetAllDevicesTopology");
	LOAD(GetAllDevicesTopologyV2, "AccelGetAllDevicesTopologyV2");
	LOAD(AssignPartition, "AccelAssignPartition");
	LOAD(RemovePartition, "AccelRemovePartition");
	LOAD(SetMemHardLimit, "AccelSetMemHardLimit");
	LOAD(SetComputeUnitHardLimit, "AccelSetComputeUnitHardLimit");
	LOAD(Snapshot, "AccelSnapshot");
	LOAD(Resume, "AccelResume");
	LOAD(GetProcessInformation, "AccelGetProcessInformation");
	LOAD(GetDeviceMetrics, "AccelGetDeviceMetrics");
	LOAD(GetVendorMountLibs, "AccelGetVendorMountLibs");
	LOAD(RegisterLogCallback, "AccelRegisterLogCallback");
	LOAD(OldRegisterLogCallback, "RegisterLogCallback");
	if (failures)
		exit(1);
}

static int fatal_seen;
static void log_cb(const char *level, const char *message)
{
	if (strcmp(level, "FATAL") == 0)
		fatal_seen++;
	if (getenv("TF_TEST_VERBOSE"))
		fprintf(stderr, "[%s] %s\n", level, message);
}

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static size_t count(void)
{
	size_t n = 0;
	EQ(F.GetDeviceCount(&n), ACCEL_SUCCESS);
	return n;
}

static ExtendedDeviceInfo devs[64];

static size_t all_devices(void)
{
	size_t n = 0;
	EQ(F.GetAllDevices(devs, 64, &n), ACCEL_SUCCESS);
	return n;
}

/* ---- cases ------------------------------------------------------------------------- */
static void t_lifecycle(void)
{
	EQ(F.RegisterLogCallback(log_cb), ACCEL_SUCCESS);
	EQ(F.Init(), ACCEL_SUCCESS);
	EQ(F.Init(), ACCEL_SUCCESS);
	EQ(count(), 2);
	EQ(F.Shutdown(), ACCEL_SUCCESS);
	EQ(F.Shutdown(), ACCEL_SUCCESS);
	/* lazily again, without AccelInit */
	EQ(count(), 2);
	EQ(all_devices(), 2);
	EQ(F.Shutdown(), ACCEL_SUCCESS);
	EQ(F.Init(), ACCEL_SUCCESS);
	EQ(count(), 2);
	EQ(F.OldRegisterLogCallback(NULL), ACCEL_SUCCESS);
	EQ(F.RegisterLogCallback(NULL), ACCEL_SUCCESS);
	EQ(F.Shutdown(), ACCEL_SUCCESS);
}

static void t_devices(void)
{
	size_t n = all_devices();
	EQ(n, 2);
	for (size_t i = 0; i < n; i++) {
		DeviceBasicInfo *b = &devs[i].basic;
		char want[32];
		snprintf(want, sizeof want, "stub-device-%zu", i);
		CHECK(strcmp(b->uuid, want) == 0);
		CHECK(strcmp(b->vendor, "NVIDIA") == 0);
		CHECK(strstr(b->model, "H100") != NULL);
		EQ(b->index, (long long)i);
		CHECK(b->totalMemoryBytes >= 80ull * 1000 * 1000 * 1000);
		EQ(b->totalComputeUnits, 132);
		CHECK(b->maxTflops > 500 && b->maxTflops < 2000); /* BF16 dense ~989 */
		CHECK(b->numaNode >= -1);
		CHECK(terminated(b->model, sizeof b->model) && terminated(b->driverVersion, sizeof b->driverVersion));
		/* the GPU's own node, never the driver's shared ones */
		char node[32];
		snprintf(node, sizeof node, "/dev/nvidia%zu", i);
		CHECK(strcmp(b->deviceNode, node) == 0);
		CHECK(devs[i].props.count > 0 && devs[i].props.count <= MAX_DEVICE_PROPERTIES);
		int arch = 0;
		for (size_t k = 0; k < devs[i].props.count; k++) {
			CHECK(terminated(devs[i].props.properties[k].key, 64));
			CHECK(terminated(devs[i].props.properties[k].value, 256));
			arch |= strcmp(devs[i].props.properties[k].key, "architecture") == 0;
		}
		CHECK(arch);
		VirtualizationCapabilities *c = &devs[i].virtualizationCapabilities;
		CHECK(c->supportsPartitioning); /* the simulated H100 is in MIG mode */
		EQ(c->maxPartitions, 7);
		CHECK(c->supportsSoftIsolation);
		CHECK(!c->supportsHardIsolation && !c->supportsSnapshot && !c->supportsRemoting);
		CHECK(c->supportsMetrics);
		CHECK(c->maxWorkersPerDevice >= 1);
	}
	/* maxCount smaller than the count: never more than asked */
	size_t got = 99;
	memset(devs, 0xAA, sizeof devs);
	EQ(F.GetAllDevices(devs, 1, &got), ACCEL_SUCCESS);
	EQ(got, 1);
	unsigned char *tail = (unsigned char *)&devs[1];
	size_t bad = 0;
	for (size_t k = 0; k < sizeof devs - sizeof devs[0]; k++)
		bad += tail[k] != 0xAA;
	EQ(bad, 0);
}

/* Every device of whatever node the provider sees (AXL_SYSROOT, AXL_SIM) names its own
 * node: a /dev path, none of the nodes a driver shares between its devices, and no two
 * devices the same. */
static void t_nodes(void)
{
	static const char *const shared[] = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
					     "/dev/nvidia-modeset", "/dev/kfd", "/dev/vfio/vfio"};
	size_t n = all_devices();
	CHECK(n > 0);
	/* TF_TEST_VENDOR: the vendor field every device must have (TensorFusion's spelling) */
	const char *vendor = getenv("TF_TEST_VENDOR");
	for (size_t i = 0; i < n; i++) {
		if (vendor && strcmp(devs[i].basic.vendor, vendor) != 0) {
			fprintf(stderr, "device %zu: vendor '%s', want '%s'\n", i, devs[i].basic.vendor, vendor);
			failures++;
		}
		const char *node = devs[i].basic.deviceNode;
		CHECK(terminated(node, sizeof devs[i].basic.deviceNode));
		if (strncmp(node, "/dev/", 5) != 0) {
			fprintf(stderr, "device %zu (%s): deviceNode '%s' is not a /dev path\n", i, devs[i].basic.uuid,
				node);
			failures++;
			continue;
		}
		for (size_t k = 0; k < sizeof shared / sizeof *shared; k++)
			if (strcmp(node, shared[k]) == 0) {
				fprintf(stderr, "device %zu: deviceNode %s is shared by every device\n", i, node);
				failures++;
			}
		for (size_t j = 0; j < i; j++)
			if (strcmp(node, devs[j].basic.deviceNode) == 0) {
				fprintf(stderr, "devices %zu and %zu: the same deviceNode %s\n", j, i, node);
				failures++;
			}
	}
}

static const char *prop_of(const ExtendedDeviceInfo *d, const char *key)
{
	for (size_t k = 0; k < d->props.count && k < MAX_DEVICE_PROPERTIES; k++)
		if (strcmp(d->props.properties[k].key, key) == 0)
			return d->props.properties[k].value;
	return NULL;
}

static int streq(const char *a, const char *b)
{
	if (a && b && strcmp(a, b) == 0)
		return 1;
	fprintf(stderr, "  got '%s', want '%s'\n", a ? a : "(none)", b ? b : "(none)");
	return 0;
}

/* tests/sim/mixed.json: 2 x H100, 2 x L4, an RTX 4090 (NVIDIA) and an MI300X (AMD). Each
 * device's index is its position in the list, unique across the two vendors, and the
 * topology's deviceIndex and peerIndex are the same numbers; the vendor field is the
 * device's vendor as TensorFusion spells it; the per-vendor index is the vendorIndex
 * property; no NIC is known, so no NIC property is made up. */
static void t_mixed(void)
{
	static const char *const model[] = {"H100", "H100", "L4", "L4", "RTX 4090", "MI300X"};
	static const char *const vendor[] = {"NVIDIA", "NVIDIA", "NVIDIA", "NVIDIA", "NVIDIA", "AMD"};
	static const char *const vidx[] = {"0", "1", "2", "3", "4", "0"};
	size_t n = all_devices();
	EQ(n, 6);
	for (size_t i = 0; i < n && i < 6; i++) {
		DeviceBasicInfo *b = &devs[i].basic;
		EQ(b->index, (long long)i);
		CHECK(strstr(b->model, model[i]) != NULL);
		CHECK(streq(b->vendor, vendor[i]));
		CHECK(streq(prop_of(&devs[i], "vendorIndex"), vidx[i]));
		CHECK(prop_of(&devs[i], "nics") == NULL && prop_of(&devs[i], "nearestNic") == NULL);
		for (size_t j = 0; j < i; j++)
			CHECK(devs[j].basic.index != b->index);
	}
	static ExtendedDeviceTopology t;
	static ExtendedDeviceTopologyV2 t2;
	memset(&t, 0xAA, sizeof t);
	memset(&t2, 0xAA, sizeof t2);
	EQ(F.GetAllDevicesTopology(&t), ACCEL_SUCCESS);
	EQ(F.GetAllDevicesTopologyV2(&t2), ACCEL_SUCCESS);
	EQ(t.deviceCount, n);
	EQ(t2.deviceCount, n);
	for (size_t i = 0; i < n && i < 6; i++) {
		CHECK(streq(t.devices[i].deviceUUID, devs[i].basic.uuid));
		EQ(t.devices[i].deviceIndex, devs[i].basic.index);
		EQ(t2.devices[i].deviceIndex, devs[i].basic.index);
		EQ(t.devices[i].peerCount, n);
		for (size_t j = 0; j < n && j < 6; j++) {
			CHECK(streq(t.devices[i].peers[j].peerUUID, devs[j].basic.uuid));
			EQ(t.devices[i].peers[j].peerIndex, devs[j].basic.index);
			EQ(t2.devices[i].peers[j].peerIndex, devs[j].basic.index);
		}
	}
	/* the two H100 are joined by NVLink; the MI300X shares no fabric with them */
	EQ(t.devices[0].peers[1].topoLevel, TOPO_LEVEL_INTERNAL);
	CHECK(t.devices[5].peers[0].topoLevel != TOPO_LEVEL_INTERNAL);
}

/* The hgx-8x-h100 tree: 12 RDMA NICs (mlx5_0..11, RoCE, 400 and 100 Gb/s ports). GPU 0
 * sits behind one PCIe switch with mlx5_0..2, GPU 1 with mlx5_3 alone (`axl topo`). */
static void t_nics(void)
{
	size_t n = all_devices();
	EQ(n, 8);
	CHECK(streq(prop_of(&devs[0], "nearestNic"), "mlx5_0"));
	CHECK(streq(prop_of(&devs[0], "nearestNicPath"), "pcie-switch"));
	CHECK(
	    streq(prop_of(&devs[0], "nics"), "mlx5_0:pcie-switch:50,mlx5_1:pcie-switch:12.5,mlx5_2:pcie-switch:12.5"));
	CHECK(streq(prop_of(&devs[1], "nearestNic"), "mlx5_3"));
	CHECK(streq(prop_of(&devs[1], "nics"), "mlx5_3:pcie-switch:50"));
	CHECK(streq(prop_of(&devs[7], "nics"), "mlx5_11:pcie-switch:50"));
	for (size_t i = 0; i < n; i++) {
		const char *v = prop_of(&devs[i], "nics");
		CHECK(v && strncmp(v, "mlx5_", 5) == 0 && strstr(v, ":pcie-switch:") != NULL);
	}
}

/* The gaudi2-8x tree: the 8 Gaudi2 of one baseboard, every pair joined by 3 RoCE ports
 * of 12.5 GB/s (axl's "roce" links): a fabric link (INTERNAL) like NVLink, 37.5 GB/s. */
static void t_roce(void)
{
	size_t n = all_devices();
	EQ(n, 8);
	for (size_t i = 0; i < n; i++) {
		CHECK(streq(devs[i].basic.vendor, "Habana"));
		EQ(devs[i].basic.index, (long long)i);
	}
	static ExtendedDeviceTopology t;
	static ExtendedDeviceTopologyV2 t2;
	EQ(F.GetAllDevicesTopology(&t), ACCEL_SUCCESS);
	EQ(F.GetAllDevicesTopologyV2(&t2), ACCEL_SUCCESS);
	EQ(t.deviceCount, 8);
	for (size_t i = 0; i < 8; i++)
		for (size_t j = 0; j < 8; j++) {
			EQ(t.devices[i].peers[j].topoLevel, i == j ? TOPO_LEVEL_SELF : TOPO_LEVEL_INTERNAL);
			EQ(t2.devices[i].peers[j].topoLevel, i == j ? TOPO_LEVEL_SELF : TOPO_LEVEL_INTERNAL);
			if (i != j)
				EQ(t2.devices[i].peers[j].bandwidthBytesPerSec, 37500000000LL);
		}
}

static void t_topology(void)
{
	static ExtendedDeviceTopology t;
	static ExtendedDeviceTopologyV2 t2;
	memset(&t, 0xAA, sizeof t);
	EQ(F.GetAllDevicesTopology(&t), ACCEL_SUCCESS);
	EQ(t.deviceCount, 2);
	for (size_t i = 0; i < t.deviceCount && i < 64; i++) {
		CHECK(terminated(t.devices[i].deviceUUID, 64));
		EQ(t.devices[i].peerCount, 2);
		for (size_t j = 0; j < t.devices[i].peerCount && j < 64; j++) {
			DeviceTopoNode *p = &t.devices[i].peers[j];
			CHECK(terminated(p->peerUUID, 64));
			CHECK(p->topoLevel <= TOPO_LEVEL_UNKNOWN);
			if (i == j)
				EQ(p->topoLevel, TOPO_LEVEL_SELF);
		}
	}
	CHECK(strcmp(t.devices[0].peers[1].peerUUID, "stub-device-1") == 0);
	memset(&t2, 0xAA, sizeof t2);
	EQ(F.GetAllDevicesTopologyV2(&t2), ACCEL_SUCCESS);
	EQ(t2.deviceCount, 2);
	EQ(t2.devices[1].peerCount, 2);
	CHECK(strcmp(t2.devices[1].deviceUUID, "stub-device-1") == 0);
	EQ(t2.devices[0].peers[1].topoLevel, t.devices[0].peers[1].topoLevel);
	CHECK(t2.devices[0].peers[1].bandwidthBytesPerSec >= 0);
	EQ(t2.devices[0].peers[0].topoLevel, TOPO_LEVEL_SELF);
	/* the environment switch fills the Go layout through the header's symbol */
	setenv("AXL_TF_TOPOLOGY_LAYOUT", "go", 1);
	memset(&t2, 0xAA, sizeof t2);
	EQ(F.GetAllDevicesTopology((ExtendedDeviceTopology *)(void *)&t2), ACCEL_SUCCESS);
	unsetenv("AXL_TF_TOPOLOGY_LAYOUT");
	EQ(t2.deviceCount, 2);
	CHECK(strcmp(t2.devices[1].peers[0].peerUUID, "stub-device-0") == 0);
	EQ(F.GetAllDevicesTopology(NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevicesTopologyV2(NULL), ACCEL_ERROR_INVALID_PARAM);
}

static void *metrics_thread(void *arg)
{
	int id = (int)(intptr_t)arg;
	static __thread DeviceMetrics m[2];
	static __thread ProcessInformation p[64];
	const char *uuids[2] = {"stub-device-0", "STUB-DEVICE-1"};
	for (int it = 0; it < 200; it++) {
		if ((it + id) % 2 == 0) {
			if (F.GetDeviceMetrics(uuids, 2, m) != ACCEL_SUCCESS) {
				failures++;
				continue;
			}
			for (int i = 0; i < 2; i++) {
				if (m[i].powerUsageWatts < 0 || m[i].temperatureCelsius < 0 ||
				    m[i].utilizationPercent > 100 || m[i].extraMetricsCount > MAX_EXTRA_METRICS ||
				    strcmp(m[i].deviceUUID, uuids[i]) != 0)
					failures++;
			}
		} else {
			size_t n = 0;
			if (F.GetProcessInformation(p, 64, &n) != ACCEL_SUCCESS || n > 64)
				failures++;
			for (size_t i = 0; i < n && i < 64; i++)
				if (p[i].activeSMs > p[i].totalSMs || p[i].computeUtilizationPercent < 0 ||
				    p[i].computeUtilizationPercent > 100 || atoi(p[i].processId) <= 0)
					failures++;
		}
		if (id == 3 && it % 50 == 49)
			F.Shutdown(); /* the others re-initialise lazily */
	}
	return NULL;
}

static void t_threads(void)
{
	pthread_t th[4];
	for (int i = 0; i < 4; i++)
		CHECK(pthread_create(&th[i], NULL, metrics_thread, (void *)(intptr_t)i) == 0);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	DeviceMetrics m;
	const char *u[1] = {"stub-device-0"};
	EQ(F.GetDeviceMetrics(u, 1, &m), ACCEL_SUCCESS);
	CHECK(m.powerUsageWatts > 0);
	CHECK(m.temperatureCelsius > 0);
	CHECK(m.memoryUsedBytes > 0);
	CHECK(m.extraMetricsCount > 0);
	const char *bad[1] = {"no-such-gpu"};
	EQ(F.GetDeviceMetrics(bad, 1, &m), ACCEL_ERROR_NOT_FOUND);
	CHECK(strcmp(m.deviceUUID, "no-such-gpu") == 0);
}

static void t_limits(void)
{
	EQ(F.SetMemHardLimit("stub-device-0", 4ull << 30), ACCEL_SUCCESS);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 50), ACCEL_SUCCESS);
	EQ(F.SetComputeUnitHardLimit("STUB-DEVICE-0", 100), ACCEL_SUCCESS);
	EQ(F.SetMemHardLimit(NULL, 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetMemHardLimit("stub-device-0", 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetMemHardLimit("", 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetMemHardLimit("stub-device-0", 1ull << 50), ACCEL_ERROR_INVALID_PARAM); /* > memory */
	EQ(F.SetMemHardLimit("no-such-gpu", 1), ACCEL_ERROR_NOT_FOUND);
	EQ(F.SetComputeUnitHardLimit(NULL, 50), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 101), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit("no-such-gpu", 5), ACCEL_ERROR_NOT_FOUND);
	/* both limits kept: the state file says memory and compute */
	char path[4096];
	snprintf(path, sizeof path, "%s/state.json", getenv("AXL_STATE_DIR"));
	FILE *f = fopen(path, "r");
	CHECK(f != NULL);
	if (f) {
		char buf[8192];
		size_t n = fread(buf, 1, sizeof buf - 1, f);
		buf[n] = '\0';
		fclose(f);
		CHECK(strstr(buf, "4294967296") != NULL);
		CHECK(strstr(buf, "100") != NULL);
	}
}

/* ---- limiter.h (the functions are looked up by name, as a host would) ------------ */
#define LIM(name) ((__typeof__(&name))sym(#name))

static const char *self_id(void)
{
	static char b[32];
	snprintf(b, sizeof b, "%d", (int)getpid());
	return b;
}

/* a host drives a pod's limits; the worker side (this process) is held to them */
static void t_limiter_host(void)
{
	char base[4200], region[4300];
	snprintf(base, sizeof base, "%s/shm", getenv("AXL_STATE_DIR"));
	EQ(LIM(LimiterCreateWorker)("ns", "pod", &(LimiterDeviceConfig){0}, 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterInit)(NULL), ACCEL_ERROR_INVALID_PARAM);
	LimiterDeviceConfig cfg[2] = {{.deviceIdx = 0, .deviceUUID = "GPU-aaaa", .upLimit = 50, .memLimit = 1000},
				      {.deviceIdx = 1, .deviceUUID = "GPU-bbbb", .upLimit = 0, .memLimit = 0}};
	/* before LimiterInit: refused, not a crash */
	EQ(LIM(LimiterCreateWorker)("ns", "pod", cfg, 2), ACCEL_ERROR_OPERATION_FAILED);
	EQ(LIM(LimiterInit)(base), ACCEL_SUCCESS);
	EQ(LIM(LimiterCreateWorker)(NULL, "pod", cfg, 2), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterCreateWorker)("ns", "../x", cfg, 2), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterCreateWorker)("ns", "pod", NULL, 2), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterCreateWorker)("ns", "pod", cfg, 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterCreateWorker)("ns", "pod", cfg, 2), ACCEL_SUCCESS);
	EQ(LIM(LimiterCreateWorker)("ns", "pod", cfg, 2), ACCEL_SUCCESS); /* again: kept */
	snprintf(region, sizeof region, "%s/ns/pod/axl-limiter.region", base);
	struct stat sb;
	CHECK(stat(region, &sb) == 0);
	setenv("AXL_LIMITER_REGION", region, 1);
	const char *me = self_id();
	EQ(LIM(AddWorkerProcess)("GPU-aaaa", me), ACCEL_SUCCESS);
	EQ(LIM(AddWorkerProcess)("GPU-zzzz", me), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(AddWorkerProcess)(NULL, me), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterRegisterPID)("ns", "pod", (uint32_t)getpid()), ACCEL_SUCCESS);
	EQ(LIM(LimiterRegisterPID)("ns", "pod", 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterRegisterPID)("ns", "nopod", (uint32_t)getpid()), ACCEL_ERROR_NOT_FOUND);
	/* memory: exact refusal at the limit, usage in availableBytes */
	MemoryOpRecord m;
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 600, &m), ACCEL_SUCCESS);
	EQ(m.shouldBlock, 0);
	EQ(m.availableBytes, 400);
	CHECK(strcmp(m.deviceUUID, "GPU-aaaa") == 0);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 401, &m), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(m.shouldBlock, 1);
	EQ(m.availableBytes, 400);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 400, &m), ACCEL_SUCCESS);
	EQ(m.availableBytes, 0);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", -1000, &m), ACCEL_SUCCESS);
	EQ(m.availableBytes, 1000);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", -1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-bbbb", 1ll << 40, &m), ACCEL_SUCCESS); /* no limit */
	CHECK(m.availableBytes == UINT64_MAX);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-bbbb", -(1ll << 40), &m), ACCEL_SUCCESS);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-zzzz", 1, &m), ACCEL_ERROR_NOT_FOUND);
	EQ(m.shouldBlock, 1);
	EQ(LIM(CheckAndRecordMemoryOps)("1", "GPU-aaaa", 1, &m), ACCEL_ERROR_NOT_FOUND); /* not us */
	EQ(LIM(CheckAndRecordMemoryOps)("x1", "GPU-aaaa", 1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(CheckAndRecordMemoryOps)(NULL, "GPU-aaaa", 1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(CheckAndRecordMemoryOps)(me, NULL, 1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	/* compute: 50% = 500000 device-us per second, a burst of 250000 */
	ComputeOpRecord c;
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-aaaa", 200000, &c), ACCEL_SUCCESS);
	EQ(c.shouldBlock, 0);
	CHECK(c.availableTokens >= 50000 && c.availableTokens < 250000);
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-aaaa", 240000, &c), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(c.shouldBlock, 1);
	usleep(450000); /* refills (at least 200000 in 0.4 s; capped at 250000) */
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-aaaa", 240000, &c), ACCEL_SUCCESS);
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-bbbb", 1ull << 40, &c), ACCEL_SUCCESS); /* no limit */
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-aaaa", 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-zzzz", 1, &c), ACCEL_ERROR_NOT_FOUND);
	/* freeze: allocations and launches held back until resumed */
	WorkerFreezeState fs;
	EQ(LIM(FreezeWorker)("ns/pod", &fs), ACCEL_SUCCESS);
	EQ(fs.isFrozen, 1);
	CHECK(fs.freezeTimeMs > 0);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-bbbb", 1, &m), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(m.shouldBlock, 1);
	EQ(LIM(CheckAndRecordComputeOps)(me, "GPU-bbbb", 1, &c), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(LIM(ResumeWorker)("ns/pod", &fs), ACCEL_SUCCESS);
	EQ(fs.isFrozen, 0);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-bbbb", 1, &m), ACCEL_SUCCESS);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-bbbb", -1, &m), ACCEL_SUCCESS);
	EQ(LIM(AutoFreeze)("self", "GPU-aaaa", "memory"), ACCEL_SUCCESS);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 1, &m), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(LIM(AutoResume)(me, "GPU-aaaa", "compute"), ACCEL_SUCCESS);
	EQ(LIM(CheckAndRecordMemoryOps)(me, "GPU-aaaa", 1, &m), ACCEL_SUCCESS);
	EQ(LIM(AutoFreeze)("ns/pod", "GPU-aaaa", "disk"), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(AutoFreeze)("ns/pod", "GPU-zzzz", "memory"), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(AutoFreeze)("ns/nopod", "GPU-aaaa", "memory"), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(AutoFreeze)(NULL, "GPU-aaaa", "memory"), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(FreezeWorker)("ns/nopod", &fs), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(FreezeWorker)("ns/pod", NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(ResumeWorker)(NULL, &fs), ACCEL_ERROR_INVALID_PARAM);
	/* the host's loop: ERL (the compute limit), heartbeat, observed memory */
	EQ(LIM(LimiterUpdateERL)("ns", "pod", 0, 30, 42.0, 1), ACCEL_SUCCESS);
	EQ(LIM(LimiterUpdateERL)("ns", "pod", 7, 30, 42.0, 1), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(LimiterUpdateERL)("ns", "pod", 0, 101, 42.0, 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterUpdateERL)("ns", "pod", 0, 30, -1.0, 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterUpdateHeartbeat)("ns", "pod", 1700000000), ACCEL_SUCCESS);
	EQ(LIM(LimiterUpdateHeartbeat)("ns", "nopod", 1), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(LimiterSetPodMemoryUsed)("ns", "pod", 1, 12345), ACCEL_SUCCESS);
	EQ(LIM(LimiterSetPodMemoryUsed)("ns", "pod", 9, 1), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(LimiterSetPodMemoryUsed)(NULL, "pod", 0, 1), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterRemoveWorker)("ns", "pod"), ACCEL_SUCCESS);
	EQ(LIM(LimiterRemoveWorker)("ns", "pod"), ACCEL_ERROR_NOT_FOUND);
	EQ(LIM(LimiterRemoveWorker)(NULL, "pod"), ACCEL_ERROR_INVALID_PARAM);
	EQ(LIM(LimiterShutdown)(), ACCEL_SUCCESS);
	unsetenv("AXL_LIMITER_REGION");
}

/* no region, or a corrupted one: errors that block (fail closed), never a crash */
static void t_limiter_bad(void)
{
	char p[4200];
	MemoryOpRecord m;
	ComputeOpRecord c;
	snprintf(p, sizeof p, "%s/absent.region", getenv("AXL_STATE_DIR"));
	setenv("AXL_LIMITER_REGION", p, 1);
	EQ(LIM(CheckAndRecordMemoryOps)(self_id(), "GPU-aaaa", 1, &m), ACCEL_ERROR_NOT_FOUND);
	EQ(m.shouldBlock, 1);
	snprintf(p, sizeof p, "%s/bad.region", getenv("AXL_STATE_DIR"));
	FILE *f = fopen(p, "w");
	CHECK(f != NULL);
	for (int i = 0; f && i < 100000; i++)
		fputc(i * 7, f);
	if (f)
		fclose(f);
	setenv("AXL_LIMITER_REGION", p, 1);
	EQ(LIM(CheckAndRecordMemoryOps)(self_id(), "GPU-aaaa", 1, &m), ACCEL_ERROR_OPERATION_FAILED);
	EQ(m.shouldBlock, 1);
	EQ(LIM(CheckAndRecordComputeOps)(self_id(), "GPU-aaaa", 1, &c), ACCEL_ERROR_OPERATION_FAILED);
	EQ(c.shouldBlock, 1);
	EQ(LIM(AddWorkerProcess)("GPU-aaaa", self_id()), ACCEL_ERROR_OPERATION_FAILED);
	WorkerFreezeState fs;
	EQ(LIM(FreezeWorker)("self", &fs), ACCEL_ERROR_OPERATION_FAILED);
	unsetenv("AXL_LIMITER_REGION");
}

/* hard isolation is claimed exactly when the limiter library is there; limits bind */
static void t_hard(void)
{
	setenv("AXL_LIMITER_LIBRARY", "/nonexistent/libaxl_limiter.so", 1);
	size_t n = all_devices();
	CHECK(n > 0);
	for (size_t i = 0; i < n; i++)
		EQ(devs[i].virtualizationCapabilities.supportsHardIsolation, 0);
	setenv("AXL_LIMITER_LIBRARY", lib_path, 1); /* any readable file stands for it */
	n = all_devices();
	int hard = 0;
	for (size_t i = 0; i < n; i++) {
		hard += devs[i].virtualizationCapabilities.supportsHardIsolation;
		EQ(devs[i].virtualizationCapabilities.supportsHardIsolation,
		   devs[i].virtualizationCapabilities.supportsSoftIsolation);
	}
	CHECK(hard > 0);
	unsetenv("AXL_LIMITER_LIBRARY");
	/* AccelSetMemHardLimit writes the process's region: the worker is held to it */
	const char *u = devs[0].basic.uuid;
	EQ(F.SetMemHardLimit(u, 1000), ACCEL_SUCCESS);
	EQ(F.SetComputeUnitHardLimit(u, 40), ACCEL_SUCCESS);
	MemoryOpRecord m;
	EQ(LIM(CheckAndRecordMemoryOps)(self_id(), u, 1001, &m), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	EQ(LIM(CheckAndRecordMemoryOps)(self_id(), u, 1000, &m), ACCEL_SUCCESS);
	EQ(m.availableBytes, 0);
	ComputeOpRecord c; /* 40%: a burst of 200000 device-us */
	EQ(LIM(CheckAndRecordComputeOps)(self_id(), u, 210000, &c), ACCEL_ERROR_RESOURCE_EXHAUSTED);
	char p[4200];
	struct stat sb;
	snprintf(p, sizeof p, "%s/limiter.region", getenv("AXL_STATE_DIR"));
	CHECK(stat(p, &sb) == 0);
}

static void t_params(void)
{
	size_t n;
	ExtendedDeviceInfo one;
	EQ(F.GetDeviceCount(NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevices(NULL, 4, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevices(&one, 0, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevices(&one, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	PartitionResult r;
	EQ(F.AssignPartition(NULL, "stub-device-0", &r), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("1g.10gb", NULL, &r), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("1g.10gb", "stub-device-0", NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("", "stub-device-0", &r), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("1g.10gb", "no-such-gpu", &r), ACCEL_ERROR_NOT_FOUND);
	EQ(F.RemovePartition(NULL, "stub-device-0"), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.RemovePartition("x", NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.RemovePartition("x", "no-such-gpu"), ACCEL_ERROR_NOT_FOUND);
	SnapshotContext c;
	memset(&c, 0, sizeof c);
	EQ(F.Snapshot(NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.Resume(NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.Snapshot(&c), ACCEL_ERROR_INVALID_PARAM);
	pid_t pids[2] = {getpid(), 0};
	c.processIds = pids;
	c.processCount = 2000;
	EQ(F.Snapshot(&c), ACCEL_ERROR_INVALID_PARAM);
	c.processCount = 1;
	EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_SUPPORTED);
	EQ(F.Resume(&c), ACCEL_ERROR_NOT_SUPPORTED);
	pids[0] = 0x3ffffff0; /* beyond pid_max */
	EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_FOUND);
	memset(&c, 0, sizeof c);
	c.deviceUUID = "stub-device-1";
	EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_SUPPORTED);
	c.deviceUUID = "no-such-gpu";
	EQ(F.Resume(&c), ACCEL_ERROR_NOT_FOUND);
	ProcessInformation p;
	EQ(F.GetProcessInformation(NULL, 1, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetProcessInformation(&p, 0, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetProcessInformation(&p, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	DeviceMetrics m;
	const char *u[1] = {"stub-device-0"};
	const char *un[1] = {NULL};
	EQ(F.GetDeviceMetrics(NULL, 1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetDeviceMetrics(u, 0, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetDeviceMetrics(u, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetDeviceMetrics(un, 1, &m), ACCEL_ERROR_INVALID_PARAM);
	MountPath mp;
	EQ(F.GetVendorMountLibs(NULL, 1, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetVendorMountLibs(&mp, 0, &n), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetVendorMountLibs(&mp, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
}

static void t_canary(void)
{
	static ProcessInformation p[8];
	static DeviceMetrics m[3];
	static MountPath mp[4];
	size_t n = 99;
	memset(p, 0xAA, sizeof p);
	EQ(F.GetProcessInformation(p, 4, &n), ACCEL_SUCCESS);
	CHECK(n <= 4);
	size_t bad = 0;
	for (size_t k = 4 * sizeof p[0]; k < sizeof p; k++)
		bad += ((unsigned char *)p)[k] != 0xAA;
	memset(m, 0xAA, sizeof m);
	const char *u[2] = {"stub-device-1", "stub-device-0"};
	EQ(F.GetDeviceMetrics(u, 2, m), ACCEL_SUCCESS);
	for (size_t k = 2 * sizeof m[0]; k < sizeof m; k++)
		bad += ((unsigned char *)m)[k] != 0xAA;
	CHECK(strcmp(m[0].deviceUUID, "stub-device-1") == 0);
	for (int i = 0; i < 2; i++)
		CHECK(m[i].extraMetricsCount <= MAX_EXTRA_METRICS);
	memset(mp, 0xAA, sizeof mp);
	EQ(F.GetVendorMountLibs(mp, 2, &n), ACCEL_SUCCESS);
	CHECK(n <= 2);
	for (size_t k = 2 * sizeof mp[0]; k < sizeof mp; k++)
		bad += ((unsigned char *)mp)[k] != 0xAA;
	EQ(bad, 0);
}

static void t_partitions(void)
{
	PartitionResult r;
	memset(&r, 0xAA, sizeof r);
	AccelResult first = F.AssignPartition("1g.10gb", "STUB-DEVICE-0", &r);
	EQ(first, ACCEL_SUCCESS);
	if (first != ACCEL_SUCCESS) {
		fprintf(stderr, "partitions: the first assignment failed; nothing more to check\n");
		return;
	}
	CHECK(terminated(r.deviceUUID, 64) && r.deviceUUID[0]);
	CHECK(!strchr(r.deviceUUID, ':') && !strchr(r.deviceUUID, ','));
	CHECK(r.type == PARTITION_TYPE_ENVIRONMENT_VARIABLE || r.type == PARTITION_TYPE_DEVICE_NODE);
	int env = 0;
	for (int i = 0; i < MAX_PARTITION_ENVS; i++) {
		CHECK(terminated(r.envVars[i], MAX_ENV_VALUE_LENGTH));
		if (r.envVars[i][0]) {
			CHECK(strchr(r.envVars[i], '=') != NULL);
			env |= strstr(r.envVars[i], r.deviceUUID) != NULL;
		}
	}
	CHECK(env);
	/* a MIG device opens through its GPU's node and its two capability nodes */
	int gpu = 0, caps = 0, ctl = 0;
	for (int i = 0; i < MAX_PARTITION_DEVICE_NODES; i++) {
		CHECK(terminated(r.deviceNodes[i], MAX_PARTITION_DEVICE_NODE_LENGTH));
		gpu += strcmp(r.deviceNodes[i], "/dev/nvidia0=/dev/nvidia0") == 0;
		caps += strncmp(r.deviceNodes[i], "/dev/nvidia-caps/nvidia-cap", 27) == 0;
		ctl += strcmp(r.deviceNodes[i], "/dev/nvidiactl=/dev/nvidiactl") == 0;
	}
	EQ(gpu, 1);
	EQ(caps, 2);
	EQ(ctl, 1);
	char id[64];
	memcpy(id, r.deviceUUID, sizeof id);
	/* by profile id too */
	PartitionResult r2;
	EQ(F.AssignPartition("19", "stub-device-0", &r2), ACCEL_SUCCESS);
	CHECK(strcmp(r2.deviceUUID, id) != 0);
	EQ(F.RemovePartition(id, "stub-device-0"), ACCEL_SUCCESS);
	AccelResult again = F.RemovePartition(id, "stub-device-0");
	CHECK(again == ACCEL_SUCCESS || again == ACCEL_ERROR_NOT_FOUND);
	EQ(F.RemovePartition(r2.deviceUUID, "stub-device-0"), ACCEL_SUCCESS);
	/* unknown template */
	AccelResult bad = F.AssignPartition("9g.999gb", "stub-device-0", &r);
	CHECK(bad == ACCEL_ERROR_NOT_FOUND || bad == ACCEL_ERROR_INVALID_PARAM);
	bad = F.AssignPartition("bogus", "stub-device-0", &r);
	CHECK(bad == ACCEL_ERROR_NOT_FOUND || bad == ACCEL_ERROR_INVALID_PARAM);
	/* room: an H100 holds seven 1g.10gb, the eighth finds none */
	char ids[8][64];
	int made = 0;
	for (int i = 0; i < 8; i++) {
		AccelResult a = F.AssignPartition("mig-1g.10gb", "stub-device-1", &r);
		if (a == ACCEL_SUCCESS)
			memcpy(ids[made++], r.deviceUUID, 64);
		else
			EQ(a, ACCEL_ERROR_RESOURCE_EXHAUSTED);
	}
	EQ(made, 7);
	for (int i = 0; i < made; i++)
		EQ(F.RemovePartition(ids[i], "stub-device-1"), ACCEL_SUCCESS);
}

/* TensorFusion's reference test suite, as the spec lists its expectations. */
static void t_reference(void)
{
	EQ(F.RegisterLogCallback(log_cb), ACCEL_SUCCESS);
	EQ(F.Init(), ACCEL_SUCCESS);
	EQ(F.Shutdown(), ACCEL_SUCCESS);
	size_t n = 0;
	EQ(F.GetDeviceCount(&n), ACCEL_SUCCESS);
	CHECK(n > 0);
	EQ(F.GetDeviceCount(NULL), ACCEL_ERROR_INVALID_PARAM);
	size_t got = 0;
	EQ(F.GetAllDevices(devs, n < 64 ? n : 64, &got), ACCEL_SUCCESS);
	CHECK(got > 0 && got <= n);
	for (size_t i = 0; i < got; i++) {
		CHECK(devs[i].basic.uuid[0] && devs[i].basic.vendor[0] && devs[i].basic.model[0]);
		CHECK(devs[i].basic.totalMemoryBytes > 0);
		CHECK(devs[i].basic.totalComputeUnits > 0);
		CHECK(devs[i].basic.maxTflops > 0);
		CHECK(devs[i].virtualizationCapabilities.maxPartitions > 0);
	}
	CHECK(strcmp(devs[0].basic.uuid, "stub-device-0") == 0);
	EQ(F.GetAllDevices(NULL, 1, &got), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevices(devs, 0, &got), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetAllDevices(devs, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	static ExtendedDeviceTopology t;
	EQ(F.GetAllDevicesTopology(&t), ACCEL_SUCCESS);
	CHECK(t.deviceCount > 0);
	PartitionResult r;
	memset(&r, 0, sizeof r);
	EQ(F.AssignPartition("mig-1g.7gb", "stub-device-0", &r), ACCEL_SUCCESS);
	CHECK(r.deviceUUID[0] != '\0');
	CHECK(r.type == PARTITION_TYPE_ENVIRONMENT_VARIABLE || r.type == PARTITION_TYPE_DEVICE_NODE);
	EQ(F.AssignPartition(NULL, "stub-device-0", &r), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("mig-1g.7gb", NULL, &r), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.AssignPartition("mig-1g.7gb", "stub-device-0", NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.RemovePartition("mig-1g.7gb", "stub-device-0"), ACCEL_SUCCESS);
	EQ(F.RemovePartition(NULL, "stub-device-0"), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.RemovePartition("mig-1g.7gb", NULL), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetMemHardLimit("stub-device-0", 4ull << 30), ACCEL_SUCCESS);
	EQ(F.SetMemHardLimit(NULL, 4ull << 30), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetMemHardLimit("stub-device-0", 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 50), ACCEL_SUCCESS);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 150), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit("stub-device-0", 0), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.SetComputeUnitHardLimit(NULL, 50), ACCEL_ERROR_INVALID_PARAM);
	static ProcessInformation p[MAX_PROCESSES];
	size_t pc = 0;
	EQ(F.GetProcessInformation(p, MAX_PROCESSES, &pc), ACCEL_SUCCESS);
	EQ(F.GetProcessInformation(NULL, MAX_PROCESSES, &pc), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetProcessInformation(p, 0, &pc), ACCEL_ERROR_INVALID_PARAM);
	DeviceMetrics m;
	const char *u[1] = {"stub-device-0"};
	EQ(F.GetDeviceMetrics(u, 1, &m), ACCEL_SUCCESS);
	CHECK(m.powerUsageWatts >= 0 && m.temperatureCelsius >= 0);
	EQ(F.GetDeviceMetrics(NULL, 1, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetDeviceMetrics(u, 0, &m), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetDeviceMetrics(u, 1, NULL), ACCEL_ERROR_INVALID_PARAM);
	static MountPath mp[64];
	size_t mc = 0;
	EQ(F.GetVendorMountLibs(mp, 64, &mc), ACCEL_SUCCESS);
	EQ(F.GetVendorMountLibs(NULL, 64, &mc), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.GetVendorMountLibs(mp, 0, &mc), ACCEL_ERROR_INVALID_PARAM);
	EQ(F.RegisterLogCallback(NULL), ACCEL_SUCCESS);
}

/* AccelSnapshot / AccelResume on the CUDA double (AXL_CUDA_LIBRARY, set by ctest): this
 * process locked and checkpointed, then restored and unlocked; with the old double
 * (no checkpoint calls) NOT_SUPPORTED. */
static void t_snapshot(int ok)
{
	EQ(F.Init(), ACCEL_SUCCESS);
	pid_t pids[1] = {getpid()};
	SnapshotContext c;
	memset(&c, 0, sizeof c);
	c.processIds = pids;
	c.processCount = 1;
	if (!ok) {
		EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_SUPPORTED);
		EQ(F.Resume(&c), ACCEL_ERROR_NOT_SUPPORTED);
		return;
	}
	EQ(F.Snapshot(&c), ACCEL_SUCCESS);
	EQ(F.Snapshot(&c), ACCEL_ERROR_OPERATION_FAILED); /* checkpointed already */
	EQ(F.Resume(&c), ACCEL_SUCCESS);
	EQ(F.Resume(&c), ACCEL_ERROR_OPERATION_FAILED); /* running already */
	c.deviceUUID = "stub-device-0";                   /* through that device's vendor */
	EQ(F.Snapshot(&c), ACCEL_SUCCESS);
	EQ(F.Resume(&c), ACCEL_SUCCESS);
	c.deviceUUID = "no-such-gpu";
	EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_FOUND);
	memset(&c, 0, sizeof c);
	c.deviceUUID = "stub-device-0"; /* device level: not supported */
	EQ(F.Snapshot(&c), ACCEL_ERROR_NOT_SUPPORTED);
}

/* the private state directory this test made, removed with what it holds at exit */
static char made_dir[64];

static int remove_one(const char *path, const struct stat *st, int flag, struct FTW *f)
{
	(void)st;
	(void)flag;
	(void)f;
	remove(path);
	return 0;
}

static void remove_made_dir(void)
{
	if (made_dir[0])
		nftw(made_dir, remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: %s LIBRARY CASE\n", argv[0]);
		return 2;
	}
	/* a private state directory, unless the caller gave one */
	char dir[] = "/tmp/axl-tf-test-XXXXXX";
	if (!getenv("AXL_STATE_DIR")) {
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return 2;
		}
		setenv("AXL_STATE_DIR", dir, 1);
		snprintf(made_dir, sizeof(made_dir), "%s", dir);
		atexit(remove_made_dir);
	}
	lib_path = argv[1];
	load(argv[1]);
	F.RegisterLogCallback(log_cb);
	const char *c = argv[2];
	if (!strcmp(c, "symbols"))
		;
	else if (!strcmp(c, "lifecycle"))
		t_lifecycle();
	else if (!strcmp(c, "devices"))
		t_devices();
	else if (!strcmp(c, "nodes"))
		t_nodes();
	else if (!strcmp(c, "topology"))
		t_topology();
	else if (!strcmp(c, "mixed"))
		t_mixed();
	else if (!strcmp(c, "nics"))
		t_nics();
	else if (!strcmp(c, "roce"))
		t_roce();
	else if (!strcmp(c, "threads"))
		t_threads();
	else if (!strcmp(c, "limits"))
		t_limits();
	else if (!strcmp(c, "params"))
		t_params();
	else if (!strcmp(c, "canary"))
		t_canary();
	else if (!strcmp(c, "partitions"))
		t_partitions();
	else if (!strcmp(c, "limiter_host"))
		t_limiter_host();
	else if (!strcmp(c, "limiter_bad"))
		t_limiter_bad();
	else if (!strcmp(c, "hard"))
		t_hard();
	else if (!strcmp(c, "snapshot"))
		t_snapshot(1);
	else if (!strcmp(c, "snapshot_old"))
		t_snapshot(0);
	else if (!strcmp(c, "reference"))
		t_reference();
	else {
		fprintf(stderr, "unknown case %s\n", c);
		return 2;
	}
	F.Shutdown();
	F.RegisterLogCallback(NULL);
	EQ(fatal_seen, 0);
	if (dir[sizeof dir - 2] != 'X') {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	if (failures)
		fprintf(stderr, "%s: %d failure(s)\n", c, failures);
	return failures ? 1 : 0;
}
