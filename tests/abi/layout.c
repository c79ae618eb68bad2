/* The public structs are a contract: their layout may only grow at the end. These are
 * the offsets of axl 0.1 on LP64; a moved member is an ABI break (bump the SONAME).
 * Structs the library hands out by pointer (links, partitionings, ports, ...) may grow
 * at the end: their sizes below change then, their members' offsets never. Structs the
 * caller allocates (axl_context_options) grow only with a new version number. */
#include <stddef.h>
#include <stdio.h>

#include "axl.h"

#define L(type, member, off)                                                             \
	do {                                                                             \
		if (offsetof(type, member) != (off)) {                                   \
			printf("offsetof(%s, %s) = %zu, expected %d\n", #type, #member,  \
			       offsetof(type, member), off);                             \
			failed++;                                                        \
		} else                                                                   \
			passed++;                                                        \
	} while (0)
#define S(type, size)                                                                    \
	do {                                                                             \
		if (sizeof(type) != (size)) {                                            \
			printf("sizeof(%s) = %zu, expected %d\n", #type, sizeof(type), size); \
			failed++;                                                        \
		} else                                                                   \
			passed++;                                                        \
	} while (0)

int main(void)
{
	int passed = 0, failed = 0;
	if (sizeof(void *) != 8) {
		printf("layout table is for LP64; skipped\n0 passed, 0 failed\n");
		return 0;
	}
	L(struct axl_context_options, version, 0);
	L(struct axl_context_options, sysroot, 8);
	L(struct axl_context_options, backends, 16);
	L(struct axl_context_options, log, 24);
	L(struct axl_context_options, log_userdata, 32);
	L(struct axl_context_options, log_level, 40);
	L(struct axl_context_options, flags, 44);
	L(struct axl_context_options, pci_ids_path, 48);
	L(struct axl_context_options, env, 56); /* version 2 */
	L(struct axl_context_options, sim, 64); /* version 3 */
	L(struct axl_context_options, driver_root, 72); /* version 4 */
	S(struct axl_context_options, 80);
	L(struct axl_compute_unit, count, 8);
	L(struct axl_compute_unit, source, 16);
	S(struct axl_compute_unit, 24);
	L(struct axl_precision, support, 4);
	L(struct axl_precision, peak_tflops, 8);
	L(struct axl_precision, source, 16);
	S(struct axl_precision, 24);
	L(struct axl_partitioning, max_partitions, 8);
	L(struct axl_partitioning, mode, 16);
	L(struct axl_partitioning, profiles, 24);
	L(struct axl_partitioning, profile_count, 32);
	L(struct axl_partitioning, source, 40);
	L(struct axl_partitioning, pending_mode, 48);
	S(struct axl_partitioning, 56);
	L(struct axl_partition_profile, id, 8);
	L(struct axl_partition_profile, memory_bytes, 16);
	L(struct axl_partition_profile, compute_units, 24);
	L(struct axl_partition_profile, slices, 32);
	L(struct axl_partition_profile, max_instances, 40);
	L(struct axl_partition_profile, free_instances, 48);
	L(struct axl_partition_profile, source, 56);
	S(struct axl_partition_profile, 64);
	L(struct axl_port, index, 8);
	L(struct axl_port, active, 12);
	L(struct axl_port, version, 16);
	L(struct axl_port, remote_pci, 24);
	L(struct axl_port, remote_kind, 32);
	L(struct axl_port, remote_id, 40);
	L(struct axl_port, bandwidth_gbps, 48);
	L(struct axl_port, source, 56);
	S(struct axl_port, 64);
	L(struct axl_numa_node, cpulist, 8);
	L(struct axl_numa_node, memory_bytes, 16);
	L(struct axl_numa_node, distances, 24);
	L(struct axl_numa_node, distance_count, 32);
	S(struct axl_numa_node, 40);
	L(struct axl_link, b, 8);
	L(struct axl_link, kind, 16);
	L(struct axl_link, bandwidth_gbps, 24);
	L(struct axl_link, source, 32);
	L(struct axl_link, link_count, 36);
	L(struct axl_link, p2p, 40);
	L(struct axl_link, pcie_switches, 44);
	S(struct axl_link, 48);
	L(struct axl_switch, pci_address, 8);
	L(struct axl_switch, driver, 16);
	L(struct axl_switch, vendor_id, 24);
	L(struct axl_switch, device_id, 28);
	L(struct axl_switch, generation, 32);
	L(struct axl_switch, numa_node, 36);
	L(struct axl_switch, source, 40);
	S(struct axl_switch, 48);
	L(struct axl_nic, pci_address, 8);
	L(struct axl_nic, link_layer, 16);
	L(struct axl_nic, state, 24);
	L(struct axl_nic, node_guid, 32);
	L(struct axl_nic, rate_gbit, 40);
	L(struct axl_nic, numa_node, 48);
	L(struct axl_nic, port_count, 52);
	L(struct axl_nic, source, 56);
	S(struct axl_nic, 64);
	L(struct axl_warning, path, 8);
	L(struct axl_warning, message, 16);
	S(struct axl_warning, 24);
	L(struct axl_pci_function, vendor_id, 8);
	L(struct axl_pci_function, device_id, 12);
	L(struct axl_pci_function, class_code, 16);
	L(struct axl_pci_function, driver, 24);
	L(struct axl_pci_function, name, 32);
	L(struct axl_pci_function, accelerator, 40);
	L(struct axl_pci_function, reason, 48);
	S(struct axl_pci_function, 56);
	L(struct axl_timing, milliseconds, 8);
	L(struct axl_timing, syscalls, 16);
	S(struct axl_timing, 24);
	L(struct axl_device_filter, family, 4);
	L(struct axl_device_filter, vendor, 8);
	L(struct axl_device_filter, min_memory_bytes, 16);
	L(struct axl_device_filter, precision, 24);
	L(struct axl_device_filter, visible, 28);
	L(struct axl_device_filter, numa_node, 32);
	S(struct axl_device_filter, 40);
	/* version 1 callers pass the struct without env: the library reads that much */
	if (AXL_CONTEXT_OPTIONS_VERSION != 4 || offsetof(struct axl_context_options, env) != 56 ||
	    offsetof(struct axl_context_options, sim) != 64 ||
	    offsetof(struct axl_context_options, driver_root) != 72) {
		printf("axl_context_options version 2 adds env at 56 (version 1 ends there), version 3 sim at 64, "
		       "version 4 driver_root at 72\n");
		failed++;
	} else
		passed++;
	L(struct axl_capture_options, version, 0);
	L(struct axl_capture_options, flags, 4);
	L(struct axl_capture_options, command_line, 8);
	S(struct axl_capture_options, 16);
	L(struct axl_process, pid, 0);
	L(struct axl_process, device, 8);
	L(struct axl_process, name, 16);
	L(struct axl_process, type, 24);
	L(struct axl_process, memory_used_bytes, 32);
	L(struct axl_process, utilization_percent, 40);
	L(struct axl_process, encoder_utilization_percent, 48);
	L(struct axl_process, decoder_utilization_percent, 56);
	L(struct axl_process, cgroup, 64);
	L(struct axl_process, container_id, 72);
	L(struct axl_process, source, 80);
	S(struct axl_process, 88);
	if (AXL_METRIC_UTILIZATION != 0 || AXL_METRIC_MEMORY_USED != 4 || AXL_METRIC_ENERGY != 8 ||
	    AXL_METRIC_SM_CLOCK != 12 || AXL_METRIC_ECC_CORRECTED != 16 || AXL_METRIC_FAN != 19 ||
	    AXL_METRIC__COUNT != 20 || AXL_THROTTLE_CURRENT != 512 || AXL_SAMPLE_LOST != 1 ||
	    AXL_SAMPLER_PROCESSES != 1 || AXL_METRICS_DCGM != 2 || AXL_SAMPLER_HEALTH != 2 ||
	    AXL_SAMPLER_NO_METRICS != 4 || AXL_HEALTH_DRIVER_ERROR != 1 || AXL_HEALTH_UNCORRECTABLE != 2 ||
	    AXL_HEALTH_WATCH_FAILED != 3) {
		printf("a metrics enum value moved\n");
		failed++;
	} else
		passed++;
	L(struct axl_health_event, device, 0);
	L(struct axl_health_event, kind, 8);
	L(struct axl_health_event, critical, 12);
	L(struct axl_health_event, code, 16);
	L(struct axl_health_event, message, 24);
	L(struct axl_health_event, source, 32);
	S(struct axl_health_event, 40);
	L(struct axl_limit, device, 0);
	L(struct axl_limit, uuid, 8);
	L(struct axl_limit, memory_bytes, 16);
	L(struct axl_limit, compute_percent, 24);
	L(struct axl_limit, pid, 28);
	L(struct axl_limit, created, 32);
	S(struct axl_limit, 40);
	L(struct axl_partition, id, 0);
	L(struct axl_partition, device, 8);
	L(struct axl_partition, parent, 16);
	L(struct axl_partition, parent_uuid, 24);
	L(struct axl_partition, kind, 32);
	L(struct axl_partition, profile, 40);
	L(struct axl_partition, profile_id, 48);
	L(struct axl_partition, memory_bytes, 56);
	L(struct axl_partition, compute_units, 64);
	L(struct axl_partition, env, 72);
	L(struct axl_partition, device_nodes, 80);
	L(struct axl_partition, owner_pid, 88);
	L(struct axl_partition, owner_alive, 92);
	L(struct axl_partition, created, 96);
	L(struct axl_partition, source, 104);
	L(struct axl_partition, owner, 108);
	S(struct axl_partition, 112);
	if (AXL_PARTITION_CONFIRM != 1) {
		printf("a partition enum value moved\n");
		failed++;
	} else
		passed++;
	/* the planner's caller-filled request and the structs it fills (axl/plan.h) */
	L(struct axl_plan_request, version, 0);
	L(struct axl_plan_request, quantization, 8);
	L(struct axl_plan_request, kv_dtype, 16);
	L(struct axl_plan_request, context_tokens, 24);
	L(struct axl_plan_request, batch, 32);
	L(struct axl_plan_request, devices, 40);
	L(struct axl_plan_request, network_gbps, 48);
	L(struct axl_plan_request, engine, 56);
	L(struct axl_plan_request, memory_fraction, 64);
	L(struct axl_plan_request, objective, 72);
	L(struct axl_plan_request, price_per_device_hour, 80);
	L(struct axl_plan_request, price_per_node_hour, 88);
	S(struct axl_plan_request, 96);
	L(struct axl_plan_summary, fits, 0);
	L(struct axl_plan_summary, total_bytes, 8);
	L(struct axl_plan_summary, shortfall_bytes, 16);
	L(struct axl_plan_summary, tp, 24);
	L(struct axl_plan_summary, ep, 36);
	L(struct axl_plan_summary, decode_tokens_per_s, 40);
	L(struct axl_plan_summary, prefill_tokens_per_s, 48);
	L(struct axl_plan_summary, bound, 56);
	S(struct axl_plan_summary, 64);
	L(struct axl_model_info, name, 0);
	L(struct axl_model_info, params, 40);
	L(struct axl_model_info, attention, 120);
	L(struct axl_model_info, sliding_window, 128);
	S(struct axl_model_info, 136);
	if (AXL_PLAN_REQUEST_VERSION != 2) {
		printf("the plan request version moved\n");
		failed++;
	} else
		passed++;
	/* enum values are part of the ABI too */
	if (AXL_ATTR_DB_KEY != 33 || AXL_ATTR_BOARD_PART_NUMBER != 34 || AXL_ATTR_NEAREST_NIC_PATH != 70 ||
	    AXL_ATTR_MEMORY_L1_PER_UNIT != 71 || AXL_ATTR_MEMORY_STACKS != 74 || AXL_ATTR_INTERCONNECT_KIND != 75 ||
	    AXL_ATTR_INTERCONNECT_BANDWIDTH != 78 || AXL_ATTR_MEMORY_SHARED_SYSTEM != 79 || AXL_ATTR__COUNT != 80 ||
	    AXL_HOST_MEMORY_LIMIT != 9 || AXL_FORMAT_INT4 != 9 || AXL_SOURCE_ENV != 7 || AXL_SOURCE_NVML != 8 ||
	    AXL_SOURCE_LEVEL_ZERO != 10 || AXL_SOURCE_SIM != 11 || AXL_SOURCE_DCMI != 12 || AXL_SOURCE__COUNT != 13 ||
	    AXL_ENOTSYS != -13 ||
	    AXL_EBUSY != -14 || AXL_ENOSPC != -15 || AXL_CONTEXT_RECORD != 4 ||
	    AXL_CAPTURE_OPTIONS_VERSION != 1 || AXL_COMPUTE_OPTIONS_VERSION != 1 || AXL_MEMORY_DEVICE != 1 ||
	    AXL_MEMORY_PINNED != 2 || AXL_MEMORY_HOST != 3 || AXL_COPY_PATH_HOST != 1 || AXL_COPY_PATH_DEVICE != 2 ||
	    AXL_COPY_PATH_PEER != 3 || AXL_COPY_PATH_STAGED != 4 ||
	    offsetof(struct axl_compute_options, backend) != 8 || sizeof(struct axl_compute_options) != 16) {
		printf("an enum value moved\n");
		failed++;
	} else
		passed++;
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
