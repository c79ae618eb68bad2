/* SPDX-License-Identifier: MIT */
/**
 * @file axl/context.h
 * The context: where axl looks (the sysroot), which backends it uses and where its
 * diagnostics go. Open one with axl_context_open(), free it with axl_context_free().
 *
 * Thread safety: a context may be used from several threads at once for reads
 * (axl_inventory_open() and everything on an inventory); two threads may each use
 * their own context freely.
 */
#ifndef AXL_CONTEXT_H
#define AXL_CONTEXT_H

#include "common.h"

AXL_BEGIN_DECLS

typedef struct axl_context axl_context;

typedef enum axl_log_level {
	AXL_LOG_ERROR = 0,
	AXL_LOG_WARNING = 1,
	AXL_LOG_INFO = 2,
	AXL_LOG_DEBUG = 3
} axl_log_level;

/** Receives the library's diagnostics. The library itself never writes to stdout or
 * stderr. May be called from any thread that uses the context. */
typedef void (*axl_log_fn)(axl_log_level level, const char *message, void *userdata);

/** Flags of axl_context_options. */
enum {
	/** Ignore the process environment (AXL_SYSROOT, AXL_SIM, AXL_BACKENDS, AXL_PCI_IDS and the
	 *  visibility variables such as CUDA_VISIBLE_DEVICES). An explicit
	 *  axl_context_options.env is still read. */
	AXL_CONTEXT_NO_ENV = 1u << 0,
	/** Never load the pci.ids name database. */
	AXL_CONTEXT_NO_PCI_IDS = 1u << 1,
	/** Record every file, directory and symlink axl reads and every answer of a
	 *  vendor library, for axl_capture_write() (axl/capture.h). Slower; off by default. */
	AXL_CONTEXT_RECORD = 1u << 2
};

/** Version 2 added `env`, version 3 `sim`. Callers built with older headers keep
 *  working: the library reads only as much of the struct as their version holds. */
#define AXL_CONTEXT_OPTIONS_VERSION 4

struct axl_context_options {
	/** AXL_CONTEXT_OPTIONS_VERSION of the headers the caller was built with. */
	unsigned version;
	/** Root of the tree to read: NULL for the live system (or $AXL_SYSROOT): a
	 *  directory, or a capture file (.tar.gz or .tar, axl/capture.h), unpacked into a
	 *  private directory under $TMPDIR (or /tmp) until the context is freed. A
	 *  re-rooted context describes another node: control operations refuse. */
	const char *sysroot;
	/** Backend selection: "nvidia,amdgpu" uses only those, "-vulkan" all but that;
	 *  NULL for all (or $AXL_BACKENDS). Unknown names fail with AXL_EINVAL. */
	const char *backends;
	/** Diagnostics sink and its threshold (messages above log_level are dropped). */
	axl_log_fn log;
	void *log_userdata;
	axl_log_level log_level;
	/** AXL_CONTEXT_* flags. */
	unsigned flags;
	/** pci.ids file to use for names; NULL for the system's (or $AXL_PCI_IDS). */
	const char *pci_ids_path;
	/** (version 2) The environment axl reads, "NAME=value" strings ending with a NULL
	 *  pointer, in place of the process environment: AXL_SYSROOT, AXL_BACKENDS,
	 *  AXL_PCI_IDS and the visibility variables (CUDA_VISIBLE_DEVICES,
	 *  NVIDIA_VISIBLE_DEVICES, ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES,
	 *  HABANA_VISIBLE_DEVICES, HABANA_VISIBLE_MODULES, CUDA_DEVICE_ORDER). NULL: the
	 *  process environment, whose visibility variables apply only to the live system
	 *  (a re-rooted context describes another node). Variables given here apply to a
	 *  re-rooted context too. The strings are copied. */
	const char *const *env;
	/** (version 3) A simulated node: the path of an "axl.sim" JSON spec (docs/sim.md)
	 *  naming devices by device-database model; NULL for none (or $AXL_SIM). The spec is
	 *  read and checked when the context opens: a malformed one fails with AXL_EINVAL and
	 *  a message naming the file, line and field. A simulated context never reads the
	 *  hardware (no sysfs, /proc or /dev, no vendor library): inventories and metrics
	 *  come from the spec and the device database. Excludes a sysroot (AXL_EINVAL when
	 *  both are given as options or both come from the environment; otherwise an
	 *  option wins over the other's variable). */
	const char *sim;
	/** (version 4) The root of the vendor's user-space files (driver libraries such as
	 *  NVML, ROCm SMI, Level Zero): where the host's / is seen from this process ("/host"
	 *  in a container that mounts it there; the GPU Operator's "/run/nvidia/driver").
	 *  A vendor library with no AXL_<LIB>_LIBRARY of its own is looked for in the
	 *  vendor's library folders under it, its symbolic links resolved inside it
	 *  (an absolute link to /etc/alternatives is the root's /etc/alternatives), and loaded
	 *  from there. NULL for the system's own loader search (or $AXL_DRIVER_ROOT); "/" is
	 *  the same as NULL. Independent of sysroot: one names the node's sysfs and /dev,
	 *  this one its installed software. */
	const char *driver_root;
};

#define AXL_CONTEXT_OPTIONS_INIT \
	{AXL_CONTEXT_OPTIONS_VERSION, NULL, NULL, NULL, NULL, AXL_LOG_WARNING, 0u, NULL, NULL, NULL, NULL}

/** Open a context. opts may be NULL for the defaults. On failure *out is NULL and
 *  axl_error_last() says why (for example a sysroot that is not a directory). */
AXL_API int axl_context_open(axl_context **out, const struct axl_context_options *opts);
/** Free a context (NULL-safe). Inventories opened from it must be freed first. */
AXL_API void axl_context_free(axl_context *ctx);
/** The sysroot in use ("/" for the live system); borrowed. */
AXL_API const char *axl_context_sysroot(const axl_context *ctx);
/** The driver root in use (axl_context_options.driver_root or $AXL_DRIVER_ROOT; "/"
 *  when none): where vendor libraries and the files `axl cdi` mounts are looked for.
 *  Borrowed. */
AXL_API const char *axl_context_driver_root(const axl_context *ctx);
/** Non-zero when the context reads another tree than the live system's. */
AXL_API int axl_context_is_rerooted(const axl_context *ctx);
/** Non-zero when the context describes a simulated node (axl_context_options.sim): its
 *  devices do not exist, and control operations act on the simulation only. */
AXL_API int axl_context_is_simulated(const axl_context *ctx);
/** The simulation spec's path of a simulated context, else NULL; borrowed. */
AXL_API const char *axl_context_sim_path(const axl_context *ctx);

/** Backends compiled into the library, in probe order. */
AXL_API size_t axl_backend_count(void);
AXL_API const char *axl_backend_name(size_t i);
/** The environment variable that names a library backend i loads instead of the
 * system's ("AXL_NVML_LIBRARY"; read by axl_context_open like AXL_PCI_LIBRARY), or NULL
 * when the backend loads none (or i is out of range). Static storage. */
AXL_API const char *axl_backend_library_variable(size_t i);
/** Non-zero when backend `name` is enabled in this context. */
AXL_API int axl_context_backend_enabled(const axl_context *ctx, const char *name);

AXL_END_DECLS

#endif
