/* The optional extra file (AXL_NVML_DOUBLE_EXTRA): NVLink links, GPU-pair topology and
 * energy counters, which `nvidia-smi -q -x` does not carry. Format: README.md. */
#ifndef NVML_DOUBLE_EXTRA_H
#define NVML_DOUBLE_EXTRA_H

#include <stddef.h>

struct bdf {
  unsigned domain, bus, dev, fn;
};

/* "0000:07:00.0", "00000000:07:00.0" or "07:00.0"; 0 on success */
int bdf_parse(const char *s, struct bdf *out);
int bdf_equal(const struct bdf *a, const struct bdf *b);

enum { EXTRA_CAP_UNSET = -1 };

struct nvlink_rec {
  struct bdf gpu;
  unsigned link;
  int state;        /* 0 or 1 */
  unsigned version; /* 0: not given */
  int has_remote;
  struct bdf remote;
  int has_remote_id;
  unsigned remote_id; /* pciDeviceId of the far end: device << 16 | vendor */
  int type;           /* nvmlIntNvLinkDeviceType_t */
  unsigned caps;      /* bit per nvmlNvLinkCapability_t */
  unsigned speed;     /* MB/s; 0: not given */
};

struct topo_rec {
  struct bdf a, b;
  int level;  /* nvmlGpuTopologyLevel_t; -1: not given */
  int p2p[5]; /* per nvmlGpuP2PCapsIndex_t; -1: not given */
};

struct energy_rec {
  struct bdf gpu;
  unsigned long long mj;
  long long step;           /* added per call after the first (a negative one goes back) */
  unsigned long long calls; /* answered so far (the double's lock guards it) */
};

/* volatile ECC error totals (nvmlDeviceGetTotalEccErrors) */
struct ecc_rec {
  struct bdf gpu;
  long long corrected, uncorrected; /* -1: not given (NOT_SUPPORTED) */
};

/* one process's utilisation (nvmlDeviceGetProcessUtilization) */
struct putil_rec {
  struct bdf gpu;
  unsigned pid, sm, mem, enc, dec;
};

struct extra {
  struct nvlink_rec *links;
  size_t nlinks;
  struct topo_rec *topos;
  size_t ntopos;
  struct energy_rec *energy;
  size_t nenergy;
  struct ecc_rec *ecc;
  size_t necc;
  struct putil_rec *putil;
  size_t nputil;
};

/* 0 on success; -1 with a message ("path:line: ...") in err */
int extra_load(const char *path, struct extra *out, char *err, size_t errlen);
void extra_free(struct extra *e);

const struct nvlink_rec *extra_link(const struct extra *e, const struct bdf *gpu, unsigned link);
size_t extra_link_count(const struct extra *e, const struct bdf *gpu);
const struct topo_rec *extra_topo(const struct extra *e, const struct bdf *a, const struct bdf *b);
const struct energy_rec *extra_energy(const struct extra *e, const struct bdf *gpu);
const struct ecc_rec *extra_ecc(const struct extra *e, const struct bdf *gpu);

#endif
