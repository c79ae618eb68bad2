/* SPDX-License-Identifier: MIT */
/* Reading the kernel's files under the sysroot (src/lib/sysfs): one bounded attribute
 * reader with warnings (attr.c) and the sampler's file helpers (sfile.c). */
#ifndef AXL_LIB_SYSFS_H
#define AXL_LIB_SYSFS_H

#include "backend.h"

/* ---- reading attributes (bounded, with warnings) ------------------------------- */
enum {
	AXL__RD_OPTIONAL = 0,     /* missing: silently unknown */
	AXL__RD_REQUIRED = 1u << 0, /* missing: warning */
	AXL__RD_EMPTY_OK = 1u << 1  /* an empty file is a valid (empty) value */
};
#define AXL__ATTR_CAP 4096

/* Read dir/name (dirfd may be AXL__FS_ROOT with a full path in name). dirpath is used
 * only for messages. Returns true with the stripped content in buf (NUL-terminated),
 * false (with a warning where appropriate) otherwise. */
bool axl__read_attr(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		    const char *name, char *buf, size_t cap, unsigned flags);
/* Same, then parse. */
bool axl__read_u64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int base, uint64_t *out, unsigned flags);
bool axl__read_i64(struct axl_inventory *inv, const char *source, int dirfd, const char *dirpath,
		   const char *name, int64_t *out, unsigned flags);

/* ---- an attribute directory (attr.c) ---------------------------------------------- */
enum {
	/* the driver always publishes it: missing is a warning */
	AXL__SA_REQUIRED = 1u << 0,
	/* mode 0400 in the driver: "permission denied" for a normal user is not damage */
	AXL__SA_ROOT_ONLY = 1u << 1,
	/* an empty file is the driver saying "not known" (no warning, no value) */
	AXL__SA_EMPTY_UNKNOWN = 1u << 2
};

struct axl__adir {
	struct axl__scan *scan;
	int fd;
	const char *path; /* for messages */
	const char *source;
};

/* Open path (under the sysroot) as an attribute directory; false when it cannot be
 * opened (nothing is reported: the caller decides whether it was expected). */
bool axl__adir_open(struct axl__adir *d, struct axl__scan *scan, const char *path, const char *source);
void axl__adir_close(struct axl__adir *d);
/* Is there such an entry? */
bool axl__adir_has(const struct axl__adir *d, const char *name);

/* The stripped text of name (NUL-terminated); false when unknown (see the flags). */
bool axl__adir_text(struct axl__adir *d, const char *name, char *buf, size_t cap, unsigned flags);
/* An unsigned integer (base 10, 16, or 0 for a "0x" prefix). */
bool axl__adir_u64(struct axl__adir *d, const char *name, int base, uint64_t *out, unsigned flags);

/* name as a string attribute (sysfs); true when set. */
bool axl__adir_set_str(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       unsigned flags);
/* name as an integer attribute, times mul divided by div; zero is kept only with
 * keep_zero (a clock of 0 MHz is real, a power limit of 0 means "none set"). */
bool axl__adir_set_int(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       int64_t mul, int64_t div, bool keep_zero, unsigned flags);
/* name as a number attribute scaled by factor (microwatts -> watts: 1e-6); zero is
 * kept only with keep_zero. */
bool axl__adir_set_num(struct axl__adir *d, struct axl_device *dev, const char *name, axl_attr attr,
		       double factor, bool keep_zero, unsigned flags);
/* A warning about name in this directory. */
#if defined(__GNUC__)
__attribute__((format(printf, 3, 4)))
#endif
void axl__adir_warn(struct axl__adir *d, const char *name, const char *fmt, ...);

/* The hwmon directory (".../hwmon/hwmonN") of the PCI device whose "name" is name
 * (any name when NULL; the lowest-numbered one wins). false when there is none. */
bool axl__hwmon_find(struct axl__scan *scan, const struct axl_device *dev, const char *name, char *out,
		     size_t cap);

#endif
