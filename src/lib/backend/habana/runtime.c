/* SPDX-License-Identifier: MIT */
/* What a container needs to use a Habana Gaudi (include/axl/runtime.h): the driver's
 * user-space libraries (unversioned files), SynapseAI and hl-smi. */
#define _GNU_SOURCE
#include "backend.h"
#include "runtime_files.h"

static const char *const libs[] = {"libhl-thunk.so", "libhlml.so", "libSynapse.so", NULL};
static const char *const lib_dirs[] = {AXL__SYSTEM_LIB_DIRS, "/opt/habanalabs/lib", AXL__LOCAL_LIB_DIRS, NULL};
static const char *const bins[] = {"hl-smi", NULL};

static const struct axl_runtime gaudi = {
	.kind = "habana.ai/gaudi",
	.vendor = "Habana",
	.libraries = libs,
	.library_dirs = lib_dirs,
	.binaries = bins,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = axl__runtime_none,
	.env = axl__runtime_none,
	.attrs = axl__runtime_no_attrs,
};

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__habana_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__habana_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &gaudi;
}
