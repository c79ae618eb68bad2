/* SPDX-License-Identifier: MIT */
/* The neuron backend's live-metric hooks: neuron_sample.c defines them, its row in neuron.c
 * points at them. */
#ifndef AXL_BACKEND_NEURON_SAMPLE_H
#define AXL_BACKEND_NEURON_SAMPLE_H

#include "sample_backends.h"

AXL__SAMPLE_HOOKS(neuron)

#endif
