/* SPDX-License-Identifier: MIT */
/* Clouds as their virtual (or bare-metal) machines' SMBIOS strings name them: a table
 * of data (tests/layers lists this file among the vendor tables). The facts and where
 * each comes from: docs/json.md "The runtime and the host's memory bandwidth" and tests/trees/README.md. */
#include <stddef.h>

#include "discover.h"

const struct axl__cloud_rule axl__cloud_rules[] = {
	/* Nitro instances: the system vendor, and the instance type as the product name
	 * ("p5.48xlarge"); the board asset tag is the instance id (EC2 User Guide,
	 * "Detect whether a host is an EC2 instance") */
	{"aws", "sys_vendor", "Amazon EC2", AXL__CLOUD_EXACT, true},
	/* Xen instances (before Nitro): "Xen"/"HVM domU", the BIOS version "4.11.amazon" */
	{"aws", "bios_version", "amazon", AXL__CLOUD_SUFFIX, false},
	/* Compute Engine: vendor "Google", product "Google Compute Engine" (Compute Engine
	 * docs, "Detect if running in Compute Engine"); the machine type is not in SMBIOS */
	{"gcp", "product_name", "Google Compute Engine", AXL__CLOUD_EXACT, false},
	/* Azure: Hyper-V's "Microsoft Corporation"/"Virtual Machine" with the chassis
	 * asset tag Azure sets (cloud-init's Azure data source); Hyper-V elsewhere lacks it */
	{"azure", "chassis_asset_tag", "7783-7084-3265-9085-8269-3286-77", AXL__CLOUD_EXACT, false},
	/* Oracle Cloud Infrastructure: the chassis asset tag (cloud-init's Oracle source) */
	{"oci", "chassis_asset_tag", "OracleCloud.com", AXL__CLOUD_EXACT, false},
	/* Alibaba Cloud ECS: vendor "Alibaba Cloud", product "Alibaba Cloud ECS" */
	{"alibaba", "sys_vendor", "Alibaba Cloud", AXL__CLOUD_EXACT, false},
	/* Tencent Cloud CVM: vendor "Tencent Cloud", product "CVM" */
	{"tencent", "sys_vendor", "Tencent Cloud", AXL__CLOUD_EXACT, false},
	/* Huawei Cloud ECS: chassis asset tag "HUAWEICLOUD" */
	{"huawei", "chassis_asset_tag", "HUAWEICLOUD", AXL__CLOUD_EXACT, false},
	/* IBM Cloud virtual servers: vendor "IBM", product "IBM Cloud..." (not z/POWER) */
	{"ibm", "product_name", "IBM Cloud", AXL__CLOUD_PREFIX, false},
	{"digitalocean", "sys_vendor", "DigitalOcean", AXL__CLOUD_EXACT, false},
	{"hetzner", "sys_vendor", "Hetzner", AXL__CLOUD_EXACT, false},
	{"scaleway", "sys_vendor", "Scaleway", AXL__CLOUD_EXACT, false},
	{"vultr", "sys_vendor", "Vultr", AXL__CLOUD_EXACT, false},
	/* OpenStack clouds name the platform, not the operator */
	{"openstack", "product_name", "OpenStack Nova", AXL__CLOUD_EXACT, false},
	{"openstack", "product_name", "OpenStack Compute", AXL__CLOUD_EXACT, false},
};
const size_t axl__cloud_rule_count = sizeof axl__cloud_rules / sizeof *axl__cloud_rules;
