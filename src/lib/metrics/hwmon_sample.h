/* SPDX-License-Identifier: MIT */
/* A device's hwmon directory, opened once and read each sample (metrics/hwmon_sample.c). */
#ifndef AXL_LIB_SAMPLE_HWMON_H
#define AXL_LIB_SAMPLE_HWMON_H

#include "sample.h"

#define AXL__SHWMON_TEMPS 3

struct axl__shwmon {
	bool open;
	int power, power_cap, energy, pwm, fan, fan_max;
	int freq[2]; /* freq1_input (graphics), freq2_input (memory) */
	int temp[AXL__SHWMON_TEMPS];
	int temp_metric[AXL__SHWMON_TEMPS];
	struct axl__srate energy_rate;
};

/* Open the hwmon directory of dev whose name is `name` (any when NULL). false (and every
 * fd -1) when there is none. */
bool axl__shwmon_open(struct axl_sampler *s, const struct axl_device *dev, const char *name,
		      struct axl__shwmon *h);
/* Put what it reads into device i of out; false when the device went away (marked lost). */
bool axl__shwmon_read(struct axl__shwmon *h, struct axl_sample *out, size_t i, double now_ms);
void axl__shwmon_close(struct axl__shwmon *h);

#endif
