/* SPDX-License-Identifier: MIT */
/* What a container needs to use an NVIDIA GPU (include/axl/runtime.h): the driver's
 * user-space libraries and tools to mount, the control nodes every CUDA process opens,
 * NVIDIA_VISIBLE_DEVICES=void so that an image built for the NVIDIA container runtime
 * does not ask it for devices again, and the labels of NVIDIA's GPU Feature Discovery. */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>

#include "backend.h"
#include "nvidia_runtime.h"
#include "runtime_files.h"

/* The driver's libraries as their versioned files and SONAME links (libcuda.so.1,
 * libcuda.so.550.54.15); the unversioned dev link is for building, not running. */
static const char *const libs[] = {
	"libcuda.so.*",           "libcudadebugger.so.*",     "libnvidia-ml.so.*",
	"libnvidia-ptxjitcompiler.so.*", "libnvidia-nvvm.so.*", "libnvidia-opencl.so.*",
	"libnvidia-cfg.so.*",     "libnvidia-gpucomp.so.*",   "libnvidia-allocator.so.*",
	NULL};
/* the CUDA toolkit's places, then where GKE's driver installer puts the driver (also where
 * NVML and CUDA are looked for under a driver root: vlib.h) */
const char *const axl__nvidia_lib_dirs[] = {
	AXL__SYSTEM_LIB_DIRS,   "/usr/local/cuda/lib64", "/usr/local/cuda/targets/x86_64-linux/lib",
	"/usr/local/cuda/compat", "/usr/local/nvidia/lib64", AXL__LOCAL_LIB_DIRS, NULL};
static const char *const bins[] = {"nvidia-smi", "nvidia-debugdump", "nvidia-persistenced", NULL};
static const char *const control[] = {"/dev/nvidiactl", "/dev/nvidia-uvm", "/dev/nvidia-uvm-tools",
				      "/dev/nvidia-modeset", NULL};
static const char *const env[] = {"NVIDIA_VISIBLE_DEVICES=void", NULL};

static const struct axl_runtime_attr attrs[] = {
	{AXL_ATTR_CUDA_DRIVER_VERSION, "cuda.version", "cudaDriverVersion"},
	{AXL_ATTR__COUNT, NULL, NULL},
};

static void labels(const struct axl_runtime_group *g, axl_runtime_label_fn add, void *ud);
static int mig_resource(const axl_device *dev, char *buf, size_t cap);

static const struct axl_runtime gpu = {
	.kind = "nvidia.com/gpu",
	.vendor = "NVIDIA",
	.libraries = libs,
	.library_dirs = axl__nvidia_lib_dirs,
	.binaries = bins,
	.binary_dirs = axl__runtime_bin_dirs,
	.control_nodes = control,
	.env = env,
	/* a MIG device is opened through its GPU's node and its own capability nodes */
	.flags = AXL_RUNTIME_CHILD_NEEDS_PARENT | AXL_RUNTIME_PRELOAD_LIMITS,
	.partitions = "MIG",
	.attrs = attrs,
	.labels = labels,
	/* NVIDIA's k8s-device-plugin: nvidia.com/gpu, and nvidia.com/mig-<profile> for each
	 * MIG profile under --mig-strategy=mixed (internal/rm, AddDefaultResourcesToConfig) */
	.partition_resource = "nvidia.com/mig-",
	/* CUDA takes GPU-... and MIG-... UUIDs (CUDA C Programming Guide, CUDA Environment
	 * Variables) */
	.visible_env = "CUDA_VISIBLE_DEVICES",
	.partition_resource_name = mig_resource,
};

/* the backend's operation (axl__backend.runtime) */
const struct axl_runtime *axl__nvidia_runtime(const struct axl_device *dev);
const struct axl_runtime *axl__nvidia_runtime(const struct axl_device *dev)
{
	(void)dev;
	return &gpu;
}

static const char *str(const axl_device *d, axl_attr a)
{
	const char *s = NULL;
	return axl_device_get_str(d, a, &s) == 0 ? s : NULL;
}

/* NVIDIA's plugin under --mig-strategy=mixed: "mig-" and the MIG device's profile with
 * each '+' as '.', since a resource name takes no '+' (internal/rm/rm.go,
 * AddDefaultResourcesToConfig: strings.ReplaceAll("mig-"+p.String(), "+", ".")): 1g.10gb+me
 * is nvidia.com/mig-1g.10gb.me, 1g.24gb+gfx nvidia.com/mig-1g.24gb.gfx, 1g.24gb+me.all
 * nvidia.com/mig-1g.24gb.me.all, 1g.24gb-me keeps its '-'. It names only profiles whose
 * compute instance is its whole GPU instance (info.C == info.G there): a 1c.3g.40gb MIG
 * device has no resource, nor has a whole GPU. */
static int mig_resource(const axl_device *dev, char *buf, size_t cap)
{
	const char *prof = axl_device_parent(dev) ? str(dev, AXL_ATTR_PARTITION_PROFILE) : NULL;
	if (!prof || !isdigit((unsigned char)prof[0]))
		return -1;
	size_t k = 0;
	while (isdigit((unsigned char)prof[k]))
		k++;
	if (prof[k] == 'c')
		return -1; /* "1c.3g.40gb": a compute instance smaller than its GPU instance */
	int n = snprintf(buf, cap, "nvidia.com/mig-%s", prof);
	if (n < 0 || (size_t)n >= cap)
		return -1;
	for (char *p = buf; *p; p++)
		if (*p == '+')
			*p = '.';
	return 0;
}

/* GFD's family from a compute capability (its getArchFamily table). */
static const char *gfd_family(int major, int minor)
{
	switch (major) {
	case 1: return "tesla";
	case 2: return "fermi";
	case 3: return "kepler";
	case 5: return "maxwell";
	case 6: return "pascal";
	case 7: return minor < 5 ? "volta" : "turing";
	case 8: return minor < 9 ? "ampere" : "ada-lovelace";
	case 9: return "hopper";
	case 10:
	case 12: return "blackwell";
	default: return "undefined";
	}
}

/* An architecture as a label segment: lowercase, runs of other characters one '-'
 * ("Ada Lovelace" -> "ada-lovelace"). */
static void segment(const char *in, char *out, size_t cap)
{
	size_t o = 0;
	for (const unsigned char *p = (const unsigned char *)in; *p && o + 1 < cap; p++) {
		char c = isalnum(*p) ? (char)tolower(*p) : '-';
		if (c == '-' && (o == 0 || out[o - 1] == '-'))
			continue;
		out[o++] = c;
	}
	while (o > 0 && out[o - 1] == '-')
		o--;
	out[o] = '\0';
}

/* The names NVIDIA's GPU Feature Discovery writes, from what axl knows. */
static void labels(const struct axl_runtime_group *g, axl_runtime_label_fn add, void *ud)
{
	char raw[128];
	snprintf(raw, sizeof raw, "%zu", g->n);
	add("nvidia.com/gpu.count", raw, ud);
	if (!g->rep)
		return;
	if (g->model)
		add("nvidia.com/gpu.product", g->model, ud);
	if (g->memory_mib > 0) {
		snprintf(raw, sizeof raw, "%lld", (long long)g->memory_mib);
		add("nvidia.com/gpu.memory", raw, ud);
	}
	const char *cc = str(g->rep, AXL_ATTR_COMPUTE_CAPABILITY);
	int major, minor;
	if (cc && sscanf(cc, "%d.%d", &major, &minor) == 2) {
		snprintf(raw, sizeof raw, "%d", major);
		add("nvidia.com/gpu.compute.major", raw, ud);
		snprintf(raw, sizeof raw, "%d", minor);
		add("nvidia.com/gpu.compute.minor", raw, ud);
		add("nvidia.com/gpu.family", gfd_family(major, minor), ud);
	} else {
		/* without the compute capability, the architecture axl's database names */
		static const char *const fams[] = {"tesla",  "fermi",  "kepler", "maxwell",      "pascal",
						   "volta",  "turing", "ampere", "ada-lovelace", "hopper",
						   "blackwell"};
		const char *arch = str(g->rep, AXL_ATTR_ARCHITECTURE);
		char seg[40];
		if (arch) {
			segment(arch, seg, sizeof seg);
			for (size_t i = 0; i < sizeof fams / sizeof fams[0]; i++)
				if (strcmp(seg, fams[i]) == 0)
					add("nvidia.com/gpu.family", seg, ud);
		}
	}
	/* the driver: "550.90.07" -> major 550, minor 90, rev 07 (GFD splits on dots) */
	const char *dv = str(g->rep, AXL_ATTR_DRIVER_VERSION);
	if (dv) {
		char buf[64], *parts[4] = {0};
		int np = 0;
		snprintf(buf, sizeof buf, "%s", dv);
		for (char *save = NULL, *t = strtok_r(buf, ".", &save); t && np < 4; t = strtok_r(NULL, ".", &save))
			parts[np++] = t;
		if (np == 2 || np == 3) {
			add("nvidia.com/cuda.driver.major", parts[0], ud);
			add("nvidia.com/cuda.driver.minor", parts[1], ud);
			add("nvidia.com/cuda.driver.rev", np == 3 ? parts[2] : "", ud);
		}
	}
	/* GFD's cuda.runtime.* is the CUDA version the driver supports */
	const char *cv = str(g->rep, AXL_ATTR_CUDA_DRIVER_VERSION);
	if (cv && sscanf(cv, "%d.%d", &major, &minor) == 2) {
		snprintf(raw, sizeof raw, "%d", major);
		add("nvidia.com/cuda.runtime.major", raw, ud);
		snprintf(raw, sizeof raw, "%d", minor);
		add("nvidia.com/cuda.runtime.minor", raw, ud);
	}
	/* of the product the labels name (gpu.product): on a node with H100s and L4s, the L4s
	 * are not made MIG-capable by the H100s */
	int mig = 0;
	for (size_t i = 0; i < g->n; i++) {
		const char *m = str(g->devs[i], AXL_ATTR_MODEL);
		if (g->model && (!m || strcmp(m, g->model) != 0))
			continue;
		for (size_t j = 0; j < axl_device_partitioning_count(g->devs[i]); j++)
			if (strcmp(axl_device_partitioning(g->devs[i], j)->technology, "MIG") == 0)
				mig = 1;
	}
	add("nvidia.com/mig.capable", mig ? "true" : "false", ud);
}
