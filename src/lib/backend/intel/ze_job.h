/* SPDX-License-Identifier: MIT */
/* What the Level Zero worker collects (ze.c) and the main thread applies to the
 * inventory (ze_apply.c). Plain data: the worker never touches the inventory. */
#ifndef AXL_ZE_JOB_H
#define AXL_ZE_JOB_H

#include "backend.h"
#include "backend_util.h"
#include "vlib.h"
#include "ze_call.h"

#define ZE_MAX_DEVICES 64   /* sysman devices looked at */
#define ZE_MAX_COMP 32      /* memory modules, frequency and power domains per device */
#define ZE_MAX_ENGINES 128  /* engine groups per device */
#define ZE_MAX_PORTS 64     /* fabric ports per device */
#define ZE_ENGINE_KINDS 15  /* zes_engine_group_t values known */

struct ze_mem {
	zes_mem_properties_t p;
	zes_mem_state_t s;
	bool has_p, has_s;
};

struct ze_pwr {
	zes_power_properties_t p;
	zes_power_ext_properties_t e;
	zes_power_limit_ext_desc_t def;
	bool has_p, has_ext;
	zes_power_limit_ext_desc_t lim[AXL_ZE_MAX_LIMITS];
	unsigned nlim;
	bool has_lim;
	zes_power_sustained_limit_t sus;
	bool has_sus;
};

struct ze_port {
	zes_fabric_port_properties_t p;
	zes_fabric_port_state_t s;
	bool has_p, has_s;
};

struct ze_dev {
	ze_device_handle_t h;
	bool lost;
	zes_device_properties_t props;
	bool has_props;
	zes_pci_properties_t pci;
	bool has_pci;
	zes_pci_state_t pst;
	bool has_pst;
	struct ze_mem mem[ZE_MAX_COMP];
	unsigned nmem;
	zes_freq_properties_t freq[ZE_MAX_COMP];
	unsigned nfreq;
	struct ze_pwr pwr[ZE_MAX_COMP];
	unsigned npwr;
	unsigned engines[ZE_ENGINE_KINDS]; /* engine groups by zes_engine_group_t */
	unsigned engines_other;           /* of a kind this code does not know */
	bool has_engines;
	struct ze_port ports[ZE_MAX_PORTS];
	unsigned nports;
};

struct ze_job {
	struct axl__zeq q; /* first: its calls, warnings, time (vdrv.h) */
	ze_result_t init_rc;
	bool sysman_off; /* legacy initialisation without ZES_ENABLE_SYSMAN: sysman refused */
	struct ze_dev *devs;
	unsigned ndevs;
};

void axl__ze_apply(struct axl__scan *scan, struct ze_job *j, struct axl_device **devs);
void axl__ze_link(struct axl__scan *scan, struct ze_job *j, struct axl_device **devs);

#endif
