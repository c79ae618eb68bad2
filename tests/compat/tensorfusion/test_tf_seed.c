/* SPDX-License-Identifier: MIT */
/*
 * tf.seed.host: libaccelerator_axl_seed.so as a TensorFusion host of the seed era calls it
 * (src/compat/tensorfusion/seed_abi.h: provider/accelerator.h at commit 0b88c6cd), on the
 * simulated 2 x H100 node (AXL_SIM=tests/sim/h100x2.json, MIG mode). Linked to the library
 * through seed_abi.h's prototypes, so each name resolves at load time. What the upstream
 * test (tf.seed.upstream) does not pin: the values translated from the current interface,
 * the fields the seed lacks (deviceNode, as a property), the topology's one type, the
 * partition's environment as key/value pairs, the seed's snapshot array, and bounds.
 */
#define _GNU_SOURCE
#include "seed_abi.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;
#define CHECK(c)                                                                 \
	do {                                                                     \
		if (!(c)) {                                                      \
			fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
			failures++;                                              \
		}                                                                \
	} while (0)
#define EQ(a, b)                                                                          \
	do {                                                                              \
		long long a_ = (long long)(a), b_ = (long long)(b);                       \
		if (a_ != b_) {                                                           \
			fprintf(stderr, "%s:%d: %s is %lld, want %lld\n", __FILE__, __LINE__, #a, a_, b_); \
			failures++;                                                       \
		}                                                                         \
	} while (0)

static int logged;
static void log_cb(const char *level, const char *message)
{
	logged++;
	if (getenv("AXL_TEST_VERBOSE"))
		fprintf(stderr, "[%s] %s\n", level, message);
}

static int terminated(const char *s, size_t cap)
{
	return memchr(s, '\0', cap) != NULL;
}

static const char *prop(const ExtendedDeviceInfo *d, const char *key)
{
	for (size_t k = 0; k < d->props.count && k < MAX_DEVICE_PROPERTIES; k++)
		if (strcmp(d->props.properties[k].key, key) == 0)
			return d->props.properties[k].value;
	return NULL;
}

static ExtendedDeviceInfo devs[4];

static void t_devices(void)
{
	size_t n = 0;
	EQ(GetDeviceCount(&n), RESULT_SUCCESS);
	EQ(n, 2);
	EQ(GetDeviceCount(NULL), RESULT_ERROR_INVALID_PARAM);
	memset(devs, 0xAA, sizeof devs);
	size_t got = 99;
	EQ(GetAllDevices(devs, 4, &got), RESULT_SUCCESS);
	EQ(got, 2);
	for (size_t i = 0; i < got; i++) {
		DeviceBasicInfo *b = &devs[i].basic;
		char want[32];
		snprintf(want, sizeof want, "stub-device-%zu", i);
		CHECK(strcmp(b->uuid, want) == 0);
		CHECK(strcmp(b->vendor, "NVIDIA") == 0);
		CHECK(strstr(b->model, "H100") != NULL);
		EQ(b->index, (long long)i);
		CHECK(b->totalMemoryBytes >= 80ull * 1000 * 1000 * 1000);
		EQ(b->totalComputeUnits, 132);
		CHECK(b->maxTflops > 500 && b->maxTflops < 2000);
		CHECK(b->numaNode >= -1);
		CHECK(terminated(b->driverVersion, sizeof b->driverVersion));
		CHECK(terminated(b->firmwareVersion, sizeof b->firmwareVersion));
		/* the seed has no deviceNode field: the GPU's own node is a property */
		char node[32];
		snprintf(node, sizeof node, "/dev/nvidia%zu", i);
		const char *dn = prop(&devs[i], "deviceNode");
		CHECK(dn && strcmp(dn, node) == 0);
		CHECK(prop(&devs[i], "architecture") != NULL);
		CHECK(devs[i].props.count > 0 && devs[i].props.count <= MAX_DEVICE_PROPERTIES);
		VirtualizationCapabilities *c = &devs[i].virtualizationCapabilities;
		CHECK(c->supportsPartitioning);
		EQ(c->maxPartitions, 7);
		CHECK(c->supportsSoftIsolation && c->supportsMetrics);
		CHECK(!c->supportsSnapshot && !c->supportsRemoting);
	}
	/* the rows past the count are the caller's */
	const unsigned char *tail = (const unsigned char *)&devs[2];
	for (size_t k = 0; k < 2 * sizeof devs[0]; k++)
		if (tail[k] != 0xAA) {
			CHECK(!"a row past the count was written");
			break;
		}
	/* maxCount smaller than the count: never more than asked */
	memset(devs, 0xAA, sizeof devs);
	EQ(GetAllDevices(devs, 1, &got), RESULT_SUCCESS);
	EQ(got, 1);
	CHECK(strcmp(devs[0].basic.uuid, "stub-device-0") == 0);
	CHECK(((const unsigned char *)&devs[1])[0] == 0xAA);
	EQ(GetAllDevices(devs, 1, NULL), RESULT_ERROR_INVALID_PARAM);
}

static void t_topology(void)
{
	static ExtendedDeviceTopology t;
	int32_t both[2] = {1, 0};
	memset(&t, 0xAA, sizeof t);
	EQ(GetDeviceTopology(both, 2, &t), RESULT_SUCCESS);
	EQ(t.deviceCount, 2);
	/* in the order asked */
	CHECK(strcmp(t.devices[0].deviceUUID, "stub-device-1") == 0);
	CHECK(strcmp(t.devices[1].deviceUUID, "stub-device-0") == 0);
	CHECK(t.devices[0].numaNode >= -1 && t.devices[1].numaNode >= -1);
	CHECK(terminated(t.topologyType, sizeof t.topologyType));
	const char *levels[] = {"Internal", "PCIeSwitch", "PCIeMultiSwitch", "PCIeHostBridge", "NUMANode", "System",
				"Unknown"};
	int known = 0;
	for (size_t k = 0; k < sizeof levels / sizeof levels[0]; k++)
		known |= strcmp(t.topologyType, levels[k]) == 0;
	CHECK(known);
	printf("topology of 2 devices: %s\n", t.topologyType);
	int32_t one[1] = {1};
	EQ(GetDeviceTopology(one, 1, &t), RESULT_SUCCESS);
	EQ(t.deviceCount, 1);
	CHECK(strcmp(t.devices[0].deviceUUID, "stub-device-1") == 0);
	CHECK(strcmp(t.topologyType, "Self") == 0);
	int32_t bad[2] = {0, 2};
	EQ(GetDeviceTopology(bad, 2, &t), RESULT_ERROR_NOT_FOUND);
	bad[1] = -1;
	EQ(GetDeviceTopology(bad, 2, &t), RESULT_ERROR_NOT_FOUND);
	int32_t many[MAX_TOPOLOGY_DEVICES + 1] = {0};
	EQ(GetDeviceTopology(many, MAX_TOPOLOGY_DEVICES + 1, &t), RESULT_ERROR_INVALID_PARAM);
	EQ(GetDeviceTopology(one, 1, NULL), RESULT_ERROR_INVALID_PARAM);
}

static void t_partitions(void)
{
	PartitionAssignment a[8];
	int made = 0;
	for (int i = 0; i < 8; i++) {
		memset(&a[i], 0, sizeof a[i]);
		snprintf(a[i].templateId, sizeof a[i].templateId, "mig-1g.10gb");
		snprintf(a[i].deviceUUID, sizeof a[i].deviceUUID, "stub-device-1");
		if (AssignPartition(&a[i]))
			made++;
	}
	/* an H100 holds seven 1g.10gb */
	EQ(made, 7);
	for (int i = 0; i < made; i++) {
		CHECK(a[i].partitionUUID[0] && terminated(a[i].partitionUUID, 64));
		CHECK(a[i].envVarCount <= MAX_PARTITION_ENVS);
		for (size_t k = 0; k < a[i].envVarCount; k++) {
			CHECK(a[i].envVars[k].key[0] && !strchr(a[i].envVars[k].key, '='));
			CHECK(terminated(a[i].envVars[k].value, MAX_ENV_VALUE_LENGTH));
		}
	}
	EQ(a[0].envVarCount > 0, 1);
	for (int i = 0; i < made; i++)
		CHECK(RemovePartition(a[i].partitionUUID, "stub-device-1"));
	/* strings the host did not terminate, an unknown device */
	PartitionAssignment x;
	memset(&x, 'x', sizeof x);
	x.envVarCount = 0;
	CHECK(!AssignPartition(&x));
	memset(&x, 0, sizeof x);
	snprintf(x.templateId, sizeof x.templateId, "mig-1g.10gb");
	snprintf(x.deviceUUID, sizeof x.deviceUUID, "no-such-gpu");
	CHECK(!AssignPartition(&x));
	CHECK(!RemovePartition("mig-1g.10gb", NULL));
}

static void t_limits(void)
{
	EQ(SetMemHardLimit("w", "stub-device-0", 1ull << 30), RESULT_SUCCESS);
	EQ(SetMemHardLimit("", "stub-device-0", 1ull << 30), RESULT_ERROR_INVALID_PARAM);
	EQ(SetMemHardLimit("w", "stub-device-0", 0), RESULT_ERROR_INVALID_PARAM);
	EQ(SetMemHardLimit("w", "no-such-gpu", 1ull << 30), RESULT_ERROR_NOT_FOUND);
	EQ(SetComputeUnitHardLimit("w", "stub-device-0", 100), RESULT_SUCCESS);
	EQ(SetComputeUnitHardLimit("w", "stub-device-0", 0), RESULT_ERROR_INVALID_PARAM);
	EQ(SetComputeUnitHardLimit("", "stub-device-0", 50), RESULT_ERROR_INVALID_PARAM);
}

static void t_snapshot(void)
{
	static ProcessArray p;
	memset(&p, 0, sizeof p);
	EQ(Snapshot(&p), RESULT_ERROR_INVALID_PARAM); /* no process, no device */
	EQ(Resume(NULL), RESULT_ERROR_INVALID_PARAM);
	p.processCount = MAX_PROCESSES + 1;
	EQ(Snapshot(&p), RESULT_ERROR_INVALID_PARAM);
	p.processCount = 0;
	snprintf(p.deviceUUID, sizeof p.deviceUUID, "stub-device-0");
	EQ(Snapshot(&p), RESULT_ERROR_NOT_SUPPORTED); /* device level: not supported */
	snprintf(p.deviceUUID, sizeof p.deviceUUID, "no-such-gpu");
	p.processCount = 1;
	p.processIds[0] = 1;
	EQ(Snapshot(&p), RESULT_ERROR_NOT_FOUND);
	p.processIds[0] = -5;
	EQ(Resume(&p), RESULT_ERROR_INVALID_PARAM);
}

static void t_metrics(void)
{
	const char *u[2] = {"stub-device-1", "stub-device-0"};
	static DeviceMetrics m[2];
	EQ(GetDeviceMetrics(u, 2, m), RESULT_SUCCESS);
	CHECK(strcmp(m[0].deviceUUID, "stub-device-1") == 0 && strcmp(m[1].deviceUUID, "stub-device-0") == 0);
	CHECK(m[0].extraMetricsCount <= MAX_EXTRA_METRICS);
	const char *none[1] = {"no-such-gpu"};
	CHECK(GetDeviceMetrics(none, 1, m) != RESULT_SUCCESS);
	static ProcessInformation pi[8];
	size_t pc = 99;
	EQ(GetProcessInformation(pi, 8, &pc), RESULT_SUCCESS);
	CHECK(pc <= 8);
	Mount mt[4];
	size_t mc = 99;
	EQ(GetVendorMountLibs(mt, 4, &mc), RESULT_SUCCESS);
	CHECK(mc <= 4);
	for (size_t i = 0; i < mc; i++)
		CHECK(mt[i].hostPath[0] == '/' && terminated(mt[i].guestPath, MAX_MOUNT_PATH));
}

static void t_limiter(void)
{
	/* the limiter functions under the seed's names and Result */
	MemoryOpRecord r;
	EQ(CheckAndRecordMemoryOps(NULL, "stub-device-0", 1, &r), RESULT_ERROR_INVALID_PARAM);
	WorkerFreezeState s;
	EQ(FreezeWorker(NULL, &s), RESULT_ERROR_INVALID_PARAM);
	EQ(AddWorkerProcess(NULL, "1"), RESULT_ERROR_INVALID_PARAM);
}

/* test_tf_seed mixed, on tests/sim/mixed.json (5 NVIDIA devices, then an AMD MI300X):
 * every index unique, the device's position; GetDeviceTopology takes those indexes and
 * gives each asked device's own row; vendor per device. */
static void t_mixed(void)
{
	static ExtendedDeviceInfo all[8];
	size_t got = 0;
	EQ(GetAllDevices(all, 8, &got), RESULT_SUCCESS);
	EQ(got, 6);
	for (size_t i = 0; i < got; i++) {
		EQ(all[i].basic.index, (long long)i);
		CHECK(strcmp(all[i].basic.vendor, i < 5 ? "NVIDIA" : "AMD") == 0);
	}
	if (got != 6)
		return;
	static ExtendedDeviceTopology t;
	int32_t ask[3] = {all[5].basic.index, all[0].basic.index, all[1].basic.index};
	EQ(GetDeviceTopology(ask, 3, &t), RESULT_SUCCESS);
	EQ(t.deviceCount, 3);
	CHECK(strcmp(t.devices[0].deviceUUID, all[5].basic.uuid) == 0);
	CHECK(strcmp(t.devices[1].deviceUUID, all[0].basic.uuid) == 0);
	CHECK(strcmp(t.devices[2].deviceUUID, all[1].basic.uuid) == 0);
	CHECK(strcmp(t.topologyType, "Internal") != 0); /* the MI300X and the H100: no fabric */
	int32_t pair[2] = {all[0].basic.index, all[1].basic.index};
	EQ(GetDeviceTopology(pair, 2, &t), RESULT_SUCCESS);
	CHECK(strcmp(t.topologyType, "Internal") == 0); /* the two H100: NVLink */
}

int main(int argc, char **argv)
{
	/* a private state directory (the partitions and limits made here), unless given */
	char dir[] = "/tmp/axl-tf-seed-XXXXXX";
	if (!getenv("AXL_STATE_DIR")) {
		if (!mkdtemp(dir)) {
			perror("mkdtemp");
			return 2;
		}
		setenv("AXL_STATE_DIR", dir, 1);
	}
	EQ(RegisterLogCallback(log_cb), RESULT_SUCCESS);
	EQ(VirtualGPUInit(), RESULT_SUCCESS);
	CHECK(logged > 0); /* the callback registered under the seed's name gets the library's lines */
	if (argc > 1 && strcmp(argv[1], "mixed") == 0) {
		t_mixed();
		goto done;
	}
	t_devices();
	t_topology();
	t_partitions();
	t_limits();
	t_snapshot();
	t_metrics();
	t_limiter();
done:
	EQ(RegisterLogCallback(NULL), RESULT_SUCCESS);
	if (dir[sizeof dir - 2] != 'X') {
		char cmd[128];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
		if (system(cmd) != 0)
			fprintf(stderr, "could not remove %s\n", dir);
	}
	if (failures) {
		fprintf(stderr, "%d check(s) failed\n", failures);
		return 1;
	}
	printf("tf.seed.host: all checks passed\n");
	return 0;
}
