/* The public structs are a contract: their layout may only grow at the end. These are
 * the offsets of axl 0.1 on LP64; a change here is an ABI break (bump the SONAME). */
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
	S(struct axl_context_options, 56);
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
	S(struct axl_partitioning, 48);
	L(struct axl_numa_node, cpulist, 8);
	L(struct axl_numa_node, memory_bytes, 16);
	L(struct axl_numa_node, distances, 24);
	L(struct axl_numa_node, distance_count, 32);
	S(struct axl_numa_node, 40);
	L(struct axl_link, b, 8);
	L(struct axl_link, kind, 16);
	L(struct axl_link, bandwidth_gbps, 24);
	L(struct axl_link, source, 32);
	S(struct axl_link, 40);
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
	S(struct axl_timing, 16);
	L(struct axl_capture_options, version, 0);
	L(struct axl_capture_options, flags, 4);
	L(struct axl_capture_options, command_line, 8);
	S(struct axl_capture_options, 16);
	/* enum values are part of the ABI too */
	if (AXL_ATTR_DB_KEY != 33 || AXL_HOST_MEMORY_LIMIT != 9 || AXL_FORMAT_INT4 != 9 ||
	    AXL_SOURCE_ENV != 7 || AXL_SOURCE_NVML != 8 || AXL_SOURCE_LEVEL_ZERO != 10 || AXL_ENOTSYS != -13 ||
	    AXL_CONTEXT_RECORD != 4 || AXL_CAPTURE_OPTIONS_VERSION != 1) {
		printf("an enum value moved\n");
		failed++;
	} else
		passed++;
	printf("%d passed, %d failed\n", passed, failed);
	return failed != 0;
}
