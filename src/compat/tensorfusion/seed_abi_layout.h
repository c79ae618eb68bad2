/* SPDX-License-Identifier: MIT */
/*
 * The x86_64 layouts of TensorFusion's seed-era provider types (provider/accelerator.h
 * and limiter.h at commit 0b88c6cd), pinned: included at the end of seed_abi.h, and by
 * tests/compat/tensorfusion/run_seed_test.sh after that commit's own accelerator.h, so
 * the same numbers are checked against both declarations. No include guard: each
 * inclusion checks the declarations in scope.
 */
#if defined(__x86_64__) && defined(__LP64__)
#define AXL_TF_SEED_SIZE_(t, s, a) _Static_assert(sizeof(t) == (s) && _Alignof(t) == (a), #t " size/alignment")
#define AXL_TF_SEED_OFF_(t, f, o) _Static_assert(offsetof(t, f) == (o), #t "." #f " offset")
AXL_TF_SEED_SIZE_(Result, 4, 4);
AXL_TF_SEED_SIZE_(VirtualizationCapabilities, 16, 4);
AXL_TF_SEED_OFF_(VirtualizationCapabilities, maxPartitions, 8);
AXL_TF_SEED_OFF_(VirtualizationCapabilities, maxWorkersPerDevice, 12);
AXL_TF_SEED_SIZE_(DeviceBasicInfo, 392, 8);
AXL_TF_SEED_OFF_(DeviceBasicInfo, vendor, 64);
AXL_TF_SEED_OFF_(DeviceBasicInfo, model, 96);
AXL_TF_SEED_OFF_(DeviceBasicInfo, driverVersion, 224);
AXL_TF_SEED_OFF_(DeviceBasicInfo, firmwareVersion, 288);
AXL_TF_SEED_OFF_(DeviceBasicInfo, index, 352);
AXL_TF_SEED_OFF_(DeviceBasicInfo, numaNode, 356);
AXL_TF_SEED_OFF_(DeviceBasicInfo, totalMemoryBytes, 360);
AXL_TF_SEED_OFF_(DeviceBasicInfo, totalComputeUnits, 368);
AXL_TF_SEED_OFF_(DeviceBasicInfo, maxTflops, 376);
AXL_TF_SEED_OFF_(DeviceBasicInfo, pcieGen, 384);
AXL_TF_SEED_OFF_(DeviceBasicInfo, pcieWidth, 388);
AXL_TF_SEED_SIZE_(DevicePropertyKV, 320, 1);
AXL_TF_SEED_SIZE_(DeviceProperties, 20488, 8);
AXL_TF_SEED_OFF_(DeviceProperties, count, 20480);
AXL_TF_SEED_SIZE_(ExtendedDeviceInfo, 20896, 8);
AXL_TF_SEED_OFF_(ExtendedDeviceInfo, props, 392);
AXL_TF_SEED_OFF_(ExtendedDeviceInfo, virtualizationCapabilities, 20880);
AXL_TF_SEED_SIZE_(PartitionTemplate, 480, 8);
AXL_TF_SEED_OFF_(PartitionTemplate, isDefault, 220);
AXL_TF_SEED_OFF_(PartitionTemplate, description, 221);
AXL_TF_SEED_SIZE_(DeviceTopology, 68, 4);
AXL_TF_SEED_OFF_(DeviceTopology, numaNode, 64);
AXL_TF_SEED_SIZE_(ExtendedDeviceTopology, 4392, 8);
AXL_TF_SEED_OFF_(ExtendedDeviceTopology, deviceCount, 4352);
AXL_TF_SEED_OFF_(ExtendedDeviceTopology, topologyType, 4360);
AXL_TF_SEED_SIZE_(EnvVar, 320, 1);
AXL_TF_SEED_SIZE_(PartitionAssignment, 5320, 8);
AXL_TF_SEED_OFF_(PartitionAssignment, partitionUUID, 128);
AXL_TF_SEED_OFF_(PartitionAssignment, envVars, 192);
AXL_TF_SEED_OFF_(PartitionAssignment, envVarCount, 5312);
AXL_TF_SEED_SIZE_(WorkerInfo, 152, 8);
AXL_TF_SEED_OFF_(WorkerInfo, processId, 128);
AXL_TF_SEED_OFF_(WorkerInfo, memoryLimitBytes, 136);
AXL_TF_SEED_OFF_(WorkerInfo, computeUnitLimit, 144);
AXL_TF_SEED_SIZE_(ProcessArray, 4168, 8);
AXL_TF_SEED_OFF_(ProcessArray, processCount, 4096);
AXL_TF_SEED_OFF_(ProcessArray, deviceUUID, 4104);
AXL_TF_SEED_SIZE_(ExtraMetric, 72, 8);
AXL_TF_SEED_SIZE_(ProcessInformation, 144, 8);
AXL_TF_SEED_OFF_(ProcessInformation, memoryUtilizationPercent, 136);
AXL_TF_SEED_SIZE_(DeviceMetrics, 4728, 8);
AXL_TF_SEED_OFF_(DeviceMetrics, extraMetrics, 112);
AXL_TF_SEED_OFF_(DeviceMetrics, extraMetricsCount, 4720);
AXL_TF_SEED_SIZE_(DeviceUUIDEntry, 64, 1);
AXL_TF_SEED_SIZE_(Mount, 1024, 1);
AXL_TF_SEED_SIZE_(MemoryOpRecord, 88, 8);
AXL_TF_SEED_OFF_(MemoryOpRecord, shouldBlock, 72);
AXL_TF_SEED_OFF_(MemoryOpRecord, availableBytes, 80);
AXL_TF_SEED_SIZE_(ComputeOpRecord, 88, 8);
AXL_TF_SEED_SIZE_(WorkerFreezeState, 80, 8);
AXL_TF_SEED_OFF_(WorkerFreezeState, freezeTimeMs, 72);
#undef AXL_TF_SEED_SIZE_
#undef AXL_TF_SEED_OFF_
#endif
