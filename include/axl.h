/* SPDX-License-Identifier: MIT */
/**
 * @file axl.h
 * libaxl: discover, describe and watch the AI accelerators of a Linux node.
 * Umbrella header; see docs/ and each concept header.
 */
#ifndef AXL_H
#define AXL_H

#include "axl/common.h"
#include "axl/version.h"
#include "axl/error.h"
#include "axl/context.h"
#include "axl/device.h"
#include "axl/host.h"
#include "axl/inventory.h"
#include "axl/capture.h"
#include "axl/metrics.h"
#include "axl/state.h"
#include "axl/partition.h"
#include "axl/checkpoint.h"
#include "axl/runtime.h"
#include "axl/plan.h"
#include "axl/compute.h"

#endif
