/* SPDX-License-Identifier: MIT */
/* What a container needs to use an AWS Inferentia or Trainium device (include/axl/
 * runtime.h): the Neuron runtime library and neuron-ls, from the Neuron SDK's places. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const char *const libs[] = {"libnrt.so.*", NULL};
static const char *const lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, "/opt/aws/neuron/lib", AXL__LOCAL_LIB_DIRS, NULL};
static const char *const bins[] = {"neuron-ls", NULL};
static const char *const bin_dirs[] = {AXL__SYSTEM_BIN_DIRS, "/opt/aws/neuron/bin", NULL};

static const struct axl_runtime dev_rt = {
	.kind = "aws.amazon.com/neuron",
	/* TensorFusion's name for the vendor (AcceleratorVendorAWSNeuron in NexusGPU/
	 * tensor-fusion pkg/constants/vendors.go, commit 3e0a4901) */
	.vendor = "AWSNeuron",
	.libraries = libs,
	.library_dirs = lib_dirs,
	.binaries = bins,
	.binary_dirs = bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__neuron_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__neuron_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &dev_rt;
}
