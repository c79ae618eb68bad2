/* SPDX-License-Identifier: MIT */
/*
 * Huawei's DCMI library (libdcmi.so, the one npu-smi and Huawei's Kubernetes device plugin
 * use): the part axl calls (lib/backend/ascend/dcmi.c: the HBM size and AI Core count of
 * each Ascend chip), declared once. It mirrors dcmi_interface_api.h as Huawei publishes it,
 * Apache-2.0: Ascend/mind-cluster commit 2c141d42ca7b6b89334dc8ab1876a06df3e849d6,
 * component/ascend-common/devmanager/dcmi/dcmi_interface_api.h (its DCMI_VERSION_2
 * interfaces). Names and layouts are the header's; every call returns 0 on success.
 *
 * No distribution packages the header (Huawei ships it inside its driver's .run
 * installer), so tests/vendorabi has nothing to compare this with; the double
 * (tests/vendorlib/dcmi/double) is written from the same header. LP64 only.
 */
#ifndef AXL_ABI_ASCEND_DCMI_H
#define AXL_ABI_ASCEND_DCMI_H

#include "abi/abi.h"

#define MAX_CHIP_NAME_LEN 32

struct dcmi_chip_info {
	unsigned char chip_type[MAX_CHIP_NAME_LEN];
	unsigned char chip_name[MAX_CHIP_NAME_LEN];
	unsigned char chip_ver[MAX_CHIP_NAME_LEN];
	unsigned int aicore_cnt;
};

struct dcmi_pcie_info_all {
	unsigned int venderid;
	unsigned int subvenderid;
	unsigned int deviceid;
	unsigned int subdeviceid;
	int domain;
	unsigned int bdf_busid;
	unsigned int bdf_deviceid;
	unsigned int bdf_funcid;
	unsigned char reserve[32];
};

/* memory_size and memory_usage in MB (mind-cluster's devmanager: HbmInfo.MemorySize) */
struct dcmi_hbm_info {
	unsigned long long memory_size;
	unsigned int freq;
	unsigned long long memory_usage;
	int temp;
	unsigned int bandwith_util_rate;
};

int dcmi_init(void);
int dcmi_get_card_list(int *card_num, int *card_list, int list_len);
int dcmi_get_device_num_in_card(int card_id, int *device_num);
int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info);
int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info);
int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info);

#endif
