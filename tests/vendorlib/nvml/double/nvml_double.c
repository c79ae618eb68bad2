/* A test double of NVIDIA's NVML (libnvidia-ml.so.1) that answers from a captured
 * `nvidia-smi -q -x` document. README.md describes the environment variables, the extra
 * file and every entry point. Built twice: as a current driver, and with
 * -DNVML_DOUBLE_OLD as a 2017-era one without versioned, MIG and later entry points. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "extra.h"
#include "mig.h"
#include "nvml_types.h"
#include "xml.h"

#define MAX_GPUS 64
#define MAX_MIGS 16 /* MIG devices (compute instances) per GPU */
#define HANG_SECONDS 3600

/* ---- the device model ----------------------------------------------------------------------- */
struct nvmlDevice_st {
  int used;
  int is_mig;
  unsigned index; /* GPU: enumeration index (order in the file); MIG: <index> in the file */
  const struct xml_node *node; /* <gpu> or <mig_device> */
  struct nvmlDevice_st *parent; /* MIG: its GPU */
  /* GPU */
  struct bdf bdf;
  const struct gi_table *mig_table;
  unsigned nmig;
  unsigned ngi;
  int gi_profile[MAX_MIGS]; /* per distinct GPU instance: index into mig_table->profiles, or -1 */
  /* MIG device */
  unsigned gi, ci;
  int profile; /* index into parent->mig_table->profiles, or -1 */
  char uuid[48];
  int created;          /* made by nvmlGpuInstanceCreateComputeInstance (no <mig_device>) */
  unsigned ci_slices;   /* created: the compute instance's slices */
  unsigned ci_profile;  /* created: NVML_COMPUTE_INSTANCE_PROFILE_* */
};

/* GPU instances (MIG control): those of the file's MIG devices, and created ones */
#define MAX_GIS 8
struct nvmlGpuInstance_st {
  int used;
  unsigned id;
  int profile;    /* index into the GPU's mig_table->profiles, or -1 */
  unsigned start; /* placement start (memory slice); ~0u: unknown */
  struct nvmlDevice_st *gpu;
};
static struct nvmlGpuInstance_st g_gis[MAX_GPUS][MAX_GIS];

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_refs; /* nvmlInit minus nvmlShutdown */
static struct xml_doc *g_doc;
static const struct xml_node *g_log_root;
static struct nvmlDevice_st g_gpu[MAX_GPUS];
static struct nvmlDevice_st g_mig[MAX_GPUS][MAX_MIGS];
static unsigned g_ngpu;
static struct extra g_extra;

/* ---- behaviour switches (environment, read by every nvmlInit*) ------------------------------ */
struct fail_rule {
  char name[96];
  int index; /* -1: any GPU */
  nvmlReturn_t code;
};
static struct fail_rule g_fail[64];
static unsigned g_nfail;
static char g_hang[32][96];
static unsigned g_nhang;
static int g_nonsense;
static int g_force_mig; /* AXL_NVML_DOUBLE_MIG=1: MIG enabled on every MIG-capable GPU */
static int g_busy;      /* AXL_NVML_DOUBLE_BUSY=1: destroying an instance answers IN_USE */

static const struct {
  nvmlReturn_t code;
  const char *name;
  const char *text;
} errors[] = {
    {NVML_SUCCESS, "SUCCESS", "Success"},
    {NVML_ERROR_UNINITIALIZED, "UNINITIALIZED", "Uninitialized"},
    {NVML_ERROR_INVALID_ARGUMENT, "INVALID_ARGUMENT", "Invalid Argument"},
    {NVML_ERROR_NOT_SUPPORTED, "NOT_SUPPORTED", "Not Supported"},
    {NVML_ERROR_NO_PERMISSION, "NO_PERMISSION", "Insufficient Permissions"},
    {NVML_ERROR_ALREADY_INITIALIZED, "ALREADY_INITIALIZED", "Already Initialized"},
    {NVML_ERROR_NOT_FOUND, "NOT_FOUND", "Not Found"},
    {NVML_ERROR_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE", "Insufficient Size"},
    {NVML_ERROR_INSUFFICIENT_POWER, "INSUFFICIENT_POWER", "Insufficient External Power"},
    {NVML_ERROR_DRIVER_NOT_LOADED, "DRIVER_NOT_LOADED", "Driver Not Loaded"},
    {NVML_ERROR_TIMEOUT, "TIMEOUT", "Timeout"},
    {NVML_ERROR_IRQ_ISSUE, "IRQ_ISSUE", "Interrupt Request Issue"},
    {NVML_ERROR_LIBRARY_NOT_FOUND, "LIBRARY_NOT_FOUND", "NVML Shared Library Not Found"},
    {NVML_ERROR_FUNCTION_NOT_FOUND, "FUNCTION_NOT_FOUND", "Function Not Found"},
    {NVML_ERROR_CORRUPTED_INFOROM, "CORRUPTED_INFOROM", "Corrupted infoROM"},
    {NVML_ERROR_GPU_IS_LOST, "GPU_IS_LOST", "GPU is lost"},
    {NVML_ERROR_RESET_REQUIRED, "RESET_REQUIRED", "GPU requires restart"},
    {NVML_ERROR_OPERATING_SYSTEM, "OPERATING_SYSTEM", "The operating system has blocked the request"},
    {NVML_ERROR_LIB_RM_VERSION_MISMATCH, "LIB_RM_VERSION_MISMATCH", "RM has detected an NVML/RM version mismatch"},
    {NVML_ERROR_IN_USE, "IN_USE", "In use by another client"},
    {NVML_ERROR_MEMORY, "MEMORY", "Insufficient Memory"},
    {NVML_ERROR_NO_DATA, "NO_DATA", "No data"},
    {NVML_ERROR_VGPU_ECC_NOT_SUPPORTED, "VGPU_ECC_NOT_SUPPORTED", "vGPU operation not available while ECC is enabled"},
    {NVML_ERROR_INSUFFICIENT_RESOURCES, "INSUFFICIENT_RESOURCES", "Insufficient resources"},
    {NVML_ERROR_FREQ_NOT_SUPPORTED, "FREQ_NOT_SUPPORTED", "Frequency not supported"},
    {NVML_ERROR_ARGUMENT_VERSION_MISMATCH, "ARGUMENT_VERSION_MISMATCH", "Argument version mismatch"},
    {NVML_ERROR_DEPRECATED, "DEPRECATED", "Deprecated"},
    {NVML_ERROR_NOT_READY, "NOT_READY", "Not ready"},
    {NVML_ERROR_UNKNOWN, "UNKNOWN", "Unknown Error"},
};

static int parse_code(const char *s, nvmlReturn_t *out)
{
  if (strncmp(s, "NVML_ERROR_", 11) == 0)
    s += 11;
  else if (strncmp(s, "NVML_", 5) == 0)
    s += 5;
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
    if (strcmp(errors[i].name, s) == 0) {
      *out = errors[i].code;
      return 0;
    }
  if (*s < '0' || *s > '9')
    return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v > 100000)
    return -1;
  *out = (nvmlReturn_t)v;
  return 0;
}

/* AXL_NVML_DOUBLE_FAIL, _HANG and _NONSENSE; called with the lock held */
static int parse_rules(char *err, size_t errlen)
{
  g_nfail = 0;
  g_nhang = 0;
  const char *ns = getenv("AXL_NVML_DOUBLE_NONSENSE");
  g_nonsense = ns && strcmp(ns, "1") == 0;
  const char *fm = getenv("AXL_NVML_DOUBLE_MIG");
  g_force_mig = fm && strcmp(fm, "1") == 0;
  const char *busy = getenv("AXL_NVML_DOUBLE_BUSY");
  g_busy = busy && strcmp(busy, "1") == 0;

  const char *fail = getenv("AXL_NVML_DOUBLE_FAIL");
  if (fail && *fail) {
    char buf[4096];
    if (strlen(fail) >= sizeof(buf)) {
      snprintf(err, errlen, "AXL_NVML_DOUBLE_FAIL is too long");
      return -1;
    }
    strcpy(buf, fail);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
      char *eq = strchr(item, '=');
      if (!eq || eq == item || g_nfail == sizeof(g_fail) / sizeof(g_fail[0])) {
        snprintf(err, errlen, "AXL_NVML_DOUBLE_FAIL: bad item '%s' (name[@index]=CODE)", item);
        return -1;
      }
      *eq = '\0';
      struct fail_rule *r = &g_fail[g_nfail];
      r->index = -1;
      char *at = strchr(item, '@');
      if (at) {
        *at = '\0';
        char *end;
        long idx = strtol(at + 1, &end, 10);
        if (at[1] < '0' || at[1] > '9' || *end || idx >= MAX_GPUS) {
          snprintf(err, errlen, "AXL_NVML_DOUBLE_FAIL: bad index '%s'", at + 1);
          return -1;
        }
        r->index = (int)idx;
      }
      if (strlen(item) >= sizeof(r->name) || parse_code(eq + 1, &r->code)) {
        snprintf(err, errlen, "AXL_NVML_DOUBLE_FAIL: bad item '%s=%s'", item, eq + 1);
        return -1;
      }
      strcpy(r->name, item);
      g_nfail++;
    }
  }

  const char *hang = getenv("AXL_NVML_DOUBLE_HANG");
  if (hang && *hang) {
    const char *p = hang;
    while (*p) {
      size_t n = strcspn(p, ",");
      if (n == 0 || n >= sizeof(g_hang[0]) || g_nhang == sizeof(g_hang) / sizeof(g_hang[0])) {
        snprintf(err, errlen, "AXL_NVML_DOUBLE_HANG: bad list '%s'", hang);
        return -1;
      }
      memcpy(g_hang[g_nhang], p, n);
      g_hang[g_nhang++][n] = '\0';
      p += n;
      if (*p == ',')
        p++;
    }
  }
  return 0;
}

/* exact names win over '*', which matches every function taking a device handle */
static int fail_match(const char *fn, int takes_device, int index, nvmlReturn_t *code)
{
  for (int pass = 0; pass < 2; pass++)
    for (unsigned i = 0; i < g_nfail; i++) {
      const struct fail_rule *r = &g_fail[i];
      int name_ok = pass == 0 ? strcmp(r->name, fn) == 0 : takes_device && strcmp(r->name, "*") == 0;
      if (name_ok && (r->index < 0 || r->index == index)) {
        *code = r->code;
        return 1;
      }
    }
  return 0;
}

static int hang_match(const char *fn, int takes_device)
{
  for (unsigned i = 0; i < g_nhang; i++)
    if (strcmp(g_hang[i], fn) == 0 || (takes_device && strcmp(g_hang[i], "*") == 0))
      return 1;
  return 0;
}

static void hang_sleep(void)
{
  struct timespec t = {HANG_SECONDS, 0}, rem;
  while (nanosleep(&t, &rem) != 0 && errno == EINTR)
    t = rem;
}

/* ---- the call log (AXL_NVML_DOUBLE_LOG) ---------------------------------------------------- */
static _Thread_local char t_args[256];

static const char *args(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static const char *args(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(t_args, sizeof(t_args), fmt, ap);
  va_end(ap);
  return t_args;
}

/* the handle as "gpu0" or "gpu0/mig1", from its address alone (no dereference) */
static void handle_label(nvmlDevice_t d, char *buf, size_t len)
{
  uintptr_t p = (uintptr_t)d;
  uintptr_t g0 = (uintptr_t)&g_gpu[0], m0 = (uintptr_t)&g_mig[0][0];
  size_t es = sizeof(struct nvmlDevice_st);
  if (p >= g0 && p < g0 + MAX_GPUS * es && (p - g0) % es == 0)
    snprintf(buf, len, "gpu%zu", (size_t)((p - g0) / es));
  else if (p >= m0 && p < m0 + (size_t)MAX_GPUS * MAX_MIGS * es && (p - m0) % es == 0)
    snprintf(buf, len, "gpu%zu/mig%zu", (size_t)((p - m0) / es / MAX_MIGS), (size_t)((p - m0) / es % MAX_MIGS));
  else if (!d)
    snprintf(buf, len, "NULL");
  else
    snprintf(buf, len, "bad:%p", (void *)d);
}

static void log_call(const char *fn, const char *dev, const char *a)
{
  const char *path = getenv("AXL_NVML_DOUBLE_LOG");
  if (!path || !*path)
    return;
  char line[512];
  int n;
  if (dev && a)
    n = snprintf(line, sizeof(line), "%s(%s, %s)\n", fn, dev, a);
  else if (dev || a)
    n = snprintf(line, sizeof(line), "%s(%s)\n", fn, dev ? dev : a);
  else
    n = snprintf(line, sizeof(line), "%s()\n", fn);
  if (n < 0)
    return;
  if ((size_t)n >= sizeof(line)) {
    n = (int)sizeof(line) - 1;
    line[n - 1] = '\n';
  }
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0)
    return;
  ssize_t w = write(fd, line, (size_t)n); /* one write per line: lines of threads do not mix */
  (void)w;
  close(fd);
}

/* ---- entering and leaving a call -------------------------------------------------------------- */
static struct nvmlDevice_st *handle(nvmlDevice_t d)
{
  uintptr_t p = (uintptr_t)d;
  uintptr_t g0 = (uintptr_t)&g_gpu[0], m0 = (uintptr_t)&g_mig[0][0];
  size_t es = sizeof(struct nvmlDevice_st);
  struct nvmlDevice_st *x = NULL;
  if (p >= g0 && p < g0 + MAX_GPUS * es && (p - g0) % es == 0)
    x = &g_gpu[(p - g0) / es];
  else if (p >= m0 && p < m0 + (size_t)MAX_GPUS * MAX_MIGS * es && (p - m0) % es == 0)
    x = &g_mig[(p - m0) / es / MAX_MIGS][(p - m0) / es % MAX_MIGS];
  return x && x->used ? x : NULL;
}

static unsigned gpu_index(const struct nvmlDevice_st *d) { return d->is_mig ? d->parent->index : d->index; }

enum { SYS = 0, DEV = 1 };

/* Logs the call, hangs or fails it on request and checks initialisation and the handle.
 * On NVML_SUCCESS the lock is held and the caller must end with leave(). `index` is the
 * GPU index FAIL rules with @N compare with for calls without a handle (-1: none). */
static nvmlReturn_t enter(const char *fn, int kind, nvmlDevice_t dev, int index, const char *a,
                          struct nvmlDevice_st **out)
{
  char label[64];
  if (kind == DEV)
    handle_label(dev, label, sizeof(label));
  log_call(fn, kind == DEV ? label : NULL, a);

  pthread_mutex_lock(&g_lock);
  int hang = g_refs && hang_match(fn, kind == DEV);
  pthread_mutex_unlock(&g_lock);
  if (hang)
    hang_sleep();

  pthread_mutex_lock(&g_lock);
  if (!g_refs) {
    pthread_mutex_unlock(&g_lock);
    return NVML_ERROR_UNINITIALIZED;
  }
  if (kind == DEV) {
    struct nvmlDevice_st *d = handle(dev);
    if (!d) {
      pthread_mutex_unlock(&g_lock);
      return NVML_ERROR_INVALID_ARGUMENT;
    }
    index = (int)gpu_index(d);
    if (out)
      *out = d;
  }
  nvmlReturn_t code;
  if (fail_match(fn, kind == DEV, index, &code)) {
    pthread_mutex_unlock(&g_lock);
    return code;
  }
  return NVML_SUCCESS;
}

static nvmlReturn_t leave(nvmlReturn_t rc)
{
  pthread_mutex_unlock(&g_lock);
  return rc;
}

#define ENTER_SYS(a)                                                                                         \
  do {                                                                                                       \
    nvmlReturn_t e_ = enter(__func__, SYS, NULL, -1, (a), NULL);                                             \
    if (e_ != NVML_SUCCESS)                                                                                  \
      return e_;                                                                                             \
  } while (0)
#define ENTER_IDX(idx, a)                                                                                    \
  do {                                                                                                       \
    nvmlReturn_t e_ = enter(__func__, SYS, NULL, (int)(idx), (a), NULL);                                     \
    if (e_ != NVML_SUCCESS)                                                                                  \
      return e_;                                                                                             \
  } while (0)
#define ENTER_DEV(dev, a, d)                                                                                 \
  do {                                                                                                       \
    nvmlReturn_t e_ = enter(__func__, DEV, (dev), -1, (a), &(d));                                            \
    if (e_ != NVML_SUCCESS)                                                                                  \
      return e_;                                                                                             \
  } while (0)

/* ---- reading values from the document ------------------------------------------------------------ */
static const struct xml_node *gpu_node(const struct nvmlDevice_st *d) { return d->is_mig ? d->parent->node : d->node; }

/* a value the file marks as unavailable answers NOT_SUPPORTED (NO_PERMISSION for
 * "Insufficient Permissions"); an absent one too */
static nvmlReturn_t check_text(const char *t, const char **out)
{
  static const char *const na[] = {"N/A", "Not Supported", "Unknown Error", "Not Available",
                                   "Requested functionality has been deprecated", "Unknown"};
  if (!t)
    return NVML_ERROR_NOT_SUPPORTED;
  size_t len = strlen(t);
  const char *in = t;
  if (len >= 2 && t[0] == '[' && t[len - 1] == ']') {
    in = t + 1;
    len -= 2;
  }
  if (len == 0)
    return NVML_ERROR_NOT_SUPPORTED;
  for (size_t i = 0; i < sizeof(na) / sizeof(na[0]); i++)
    if (strlen(na[i]) == len && strncmp(in, na[i], len) == 0)
      return NVML_ERROR_NOT_SUPPORTED;
  if (strncmp(in, "Insufficient Permissions", len) == 0 && len == 24)
    return NVML_ERROR_NO_PERMISSION;
  *out = t;
  return NVML_SUCCESS;
}

static nvmlReturn_t get_text(const struct xml_node *n, const char *path, const char **out)
{
  return check_text(xml_path_text(n, path), out);
}

/* "<digits>[.<digits>][ ]<unit>": the number times 10^frac_digits, the fraction cut
 * to frac_digits digits. "67.03 W" with 3 digits is 67030. -1 when malformed. */
static int parse_scaled(const char *t, const char *unit, unsigned frac_digits, unsigned long long *out)
{
  const unsigned long long limit = 1ULL << 60;
  unsigned long long v = 0;
  const char *p = t;
  if (*p < '0' || *p > '9')
    return -1;
  while (*p >= '0' && *p <= '9') {
    v = v * 10 + (unsigned long long)(*p++ - '0');
    if (v > limit)
      return -1;
  }
  unsigned long long frac = 0;
  unsigned nfrac = 0;
  if (*p == '.') {
    p++;
    if (*p < '0' || *p > '9')
      return -1;
    while (*p >= '0' && *p <= '9') {
      if (nfrac < frac_digits) {
        frac = frac * 10 + (unsigned long long)(*p - '0');
        nfrac++;
      }
      p++;
    }
  }
  for (unsigned i = 0; i < frac_digits; i++) {
    if (v > limit)
      return -1;
    v *= 10;
  }
  for (; nfrac < frac_digits; nfrac++)
    frac *= 10;
  v += frac;
  while (*p == ' ')
    p++;
  if (strcmp(p, unit ? unit : "") != 0)
    return -1;
  *out = v;
  return 0;
}

static nvmlReturn_t get_num(const struct xml_node *n, const char *path, const char *unit, unsigned frac,
                            unsigned long long *out)
{
  const char *t;
  nvmlReturn_t rc = get_text(n, path, &t);
  if (rc != NVML_SUCCESS)
    return rc;
  return parse_scaled(t, unit, frac, out) == 0 ? NVML_SUCCESS : NVML_ERROR_NOT_SUPPORTED;
}

static nvmlReturn_t get_u32(const struct xml_node *n, const char *path, const char *unit, unsigned *out)
{
  unsigned long long v;
  nvmlReturn_t rc = get_num(n, path, unit, 0, &v);
  if (rc == NVML_SUCCESS && v > 0xffffffffULL)
    rc = NVML_ERROR_NOT_SUPPORTED;
  if (rc == NVML_SUCCESS)
    *out = (unsigned)v;
  return rc;
}

static nvmlReturn_t get_mib(const struct xml_node *n, const char *path, unsigned long long *bytes)
{
  unsigned long long mib;
  nvmlReturn_t rc = get_num(n, path, "MiB", 0, &mib);
  if (rc == NVML_SUCCESS)
    *bytes = mib << 20;
  return rc;
}

/* "20B210DE" or "0x20B210DE" */
static nvmlReturn_t get_hex32(const struct xml_node *n, const char *path, unsigned *out)
{
  const char *t;
  nvmlReturn_t rc = get_text(n, path, &t);
  if (rc != NVML_SUCCESS)
    return rc;
  if (t[0] == '0' && (t[1] == 'x' || t[1] == 'X'))
    t += 2;
  unsigned v = 0, nd = 0;
  for (; *t; t++, nd++) {
    int c = (unsigned char)*t, d;
    if (c >= '0' && c <= '9')
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    else
      return NVML_ERROR_NOT_SUPPORTED;
    if (nd == 8)
      return NVML_ERROR_NOT_SUPPORTED;
    v = v * 16u + (unsigned)d;
  }
  if (nd == 0)
    return NVML_ERROR_NOT_SUPPORTED;
  *out = v;
  return NVML_SUCCESS;
}

/* "Enabled" / "Disabled" */
static nvmlReturn_t get_enabled(const struct xml_node *n, const char *path, unsigned *out)
{
  const char *t;
  nvmlReturn_t rc = get_text(n, path, &t);
  if (rc != NVML_SUCCESS)
    return rc;
  if (strcmp(t, "Enabled") == 0)
    *out = 1;
  else if (strcmp(t, "Disabled") == 0)
    *out = 0;
  else
    return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

/* the first of several paths that has a usable value */
static nvmlReturn_t get_first_num(const struct xml_node *n, const char *const *paths, const char *unit,
                                  unsigned frac, unsigned long long *out)
{
  nvmlReturn_t rc = NVML_ERROR_NOT_SUPPORTED;
  for (; *paths; paths++) {
    rc = get_num(n, *paths, unit, frac, out);
    if (rc == NVML_SUCCESS || rc == NVML_ERROR_NO_PERMISSION)
      return rc;
  }
  return rc;
}

/* power readings: <gpu_power_readings> (v12+) or <power_readings> (v11 and older) */
static const struct xml_node *power_node(const struct xml_node *gpu)
{
  const struct xml_node *p = xml_child(gpu, "gpu_power_readings");
  return p ? p : xml_child(gpu, "power_readings");
}

static nvmlReturn_t get_milliwatts(const struct xml_node *gpu, const char *const *names, unsigned *mw)
{
  unsigned long long v;
  nvmlReturn_t rc = get_first_num(power_node(gpu), names, "W", 3, &v);
  if (rc == NVML_SUCCESS && v > 0xffffffffULL)
    rc = NVML_ERROR_NOT_SUPPORTED;
  if (rc == NVML_SUCCESS)
    *mw = (unsigned)v;
  return rc;
}

/* ---- answers for nonsense mode --------------------------------------------------------------- */
/* a buffer filled to its last byte: no terminator, invalid UTF-8, control characters */
static void nonsense_fill(char *buf, unsigned len)
{
  static const char pat[] = "\xff\xfe\xc3\x28\x01\x1b[2J\x7fGPU\t\xe2\x82\n\xa0\x80";
  for (unsigned i = 0; i < len; i++)
    buf[i] = pat[i % (sizeof(pat) - 1)];
}

/* NVML's string protocol: NULL is invalid, a short buffer INSUFFICIENT_SIZE */
static nvmlReturn_t put_str(char *buf, unsigned len, const char *s)
{
  if (!buf)
    return NVML_ERROR_INVALID_ARGUMENT;
  if (g_nonsense && len) {
    nonsense_fill(buf, len);
    return NVML_SUCCESS;
  }
  size_t n = strlen(s);
  if ((size_t)len < n + 1)
    return NVML_ERROR_INSUFFICIENT_SIZE;
  memcpy(buf, s, n + 1);
  return NVML_SUCCESS;
}

static nvmlReturn_t str_query(nvmlDevice_t device, const char *fn, const char *path, char *buf, unsigned len,
                              int mig_ok)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, args("length=%u", len), &d);
  if (e != NVML_SUCCESS)
    return e;
  if (d->is_mig && !mig_ok)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  if (!buf)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const char *t;
  nvmlReturn_t rc = get_text(gpu_node(d), path, &t);
  if (rc == NVML_SUCCESS)
    rc = put_str(buf, len, t);
  return leave(rc);
}

/* ---- loading a document -------------------------------------------------------------------- */
static uint64_t fnv1a(uint64_t h, const char *s)
{
  for (; *s; s++) {
    h ^= (unsigned char)*s;
    h *= 0x100000001b3ULL;
  }
  return h;
}

/* The file has no MIG UUIDs. This one is stable and documented: S = "<parent uuid>/<gi>/<ci>",
 * h1 = FNV-1a-64(S) from the standard offset basis, h2 = FNV-1a-64(S) continuing from h1;
 * "MIG-" then the 16 bytes h1 || h2 (big-endian) as 8-4-4-4-12 lowercase hex. */
static void mig_uuid(const char *parent, unsigned gi, unsigned ci, char *out, size_t len)
{
  char s[160];
  snprintf(s, sizeof(s), "%s/%u/%u", parent, gi, ci);
  uint64_t h1 = fnv1a(0xcbf29ce484222325ULL, s), h2 = fnv1a(h1, s);
  snprintf(out, len, "MIG-%08x-%04x-%04x-%04x-%012llx", (unsigned)(h1 >> 32), (unsigned)(h1 >> 16) & 0xffffu,
           (unsigned)h1 & 0xffffu, (unsigned)(h2 >> 48), (unsigned long long)(h2 & 0xffffffffffffULL));
}

static int build_migs(struct nvmlDevice_st *g, unsigned gi_index, char *err, size_t errlen)
{
  const struct xml_node *mds = xml_child(g->node, "mig_devices");
  const char *puuid = xml_path_text(g->node, "uuid");
  unsigned gi_ids[MAX_MIGS];
  if (!puuid)
    puuid = "GPU-unknown";
  for (const struct xml_node *m = xml_child(mds, "mig_device"); m; m = xml_next_same(m)) {
    if (g->nmig == MAX_MIGS) {
      snprintf(err, errlen, "GPU %u: more than %d MIG devices", gi_index, MAX_MIGS);
      return -1;
    }
    struct nvmlDevice_st *d = &g_mig[gi_index][g->nmig];
    memset(d, 0, sizeof(*d));
    d->used = 1;
    d->is_mig = 1;
    d->node = m;
    d->parent = g;
    unsigned v;
    d->index = get_u32(m, "index", NULL, &v) == NVML_SUCCESS ? v : g->nmig;
    if (get_u32(m, "gpu_instance_id", NULL, &d->gi) != NVML_SUCCESS ||
        get_u32(m, "compute_instance_id", NULL, &d->ci) != NVML_SUCCESS) {
      snprintf(err, errlen, "GPU %u: <mig_device> (line %u) without gpu_instance_id/compute_instance_id", gi_index,
               m->line);
      return -1;
    }
    mig_uuid(puuid, d->gi, d->ci, d->uuid, sizeof(d->uuid));
    unsigned sm = 0, dec = 0, jpeg = 0, ofa = 0;
    unsigned long long mem = 0;
    get_u32(m, "device_attributes/shared/multiprocessor_count", NULL, &sm);
    get_u32(m, "device_attributes/shared/decoder_count", NULL, &dec);
    get_u32(m, "device_attributes/shared/jpg_count", NULL, &jpeg);
    get_u32(m, "device_attributes/shared/ofa_count", NULL, &ofa);
    get_num(m, "fb_memory_usage/total", "MiB", 0, &mem);
    d->profile = mig_match_profile(g->mig_table, sm, mem, dec, jpeg, ofa);
    /* one entry per GPU instance, for the remaining-capacity model */
    unsigned k;
    for (k = 0; k < g->ngi; k++)
      if (gi_ids[k] == d->gi)
        break;
    if (k == g->ngi) {
      gi_ids[g->ngi] = d->gi;
      g->gi_profile[g->ngi++] = d->profile;
    }
    g->nmig++;
  }
  return 0;
}

static void gis_from_file(struct nvmlDevice_st *g);
static int state_load(char *err, size_t errlen);
static void events_unload(void);

static void unload(void)
{
  xml_free(g_doc);
  g_doc = NULL;
  g_log_root = NULL;
  extra_free(&g_extra);
  memset(g_gpu, 0, sizeof(g_gpu));
  memset(g_mig, 0, sizeof(g_mig));
  memset(g_gis, 0, sizeof(g_gis));
  events_unload();
  g_ngpu = 0;
}

static nvmlReturn_t load(unsigned flags, char *err, size_t errlen)
{
  const char *path = getenv("AXL_NVML_DOUBLE_XML");
  if (!path || !*path)
    return NVML_ERROR_DRIVER_NOT_LOADED;
  g_doc = xml_load(path, err, errlen);
  if (!g_doc)
    return NVML_ERROR_UNKNOWN;
  g_log_root = xml_root(g_doc);
  if (strcmp(g_log_root->name, "nvidia_smi_log") != 0) {
    snprintf(err, errlen, "%s: the root element is <%s>, not <nvidia_smi_log>", path, g_log_root->name);
    unload();
    return NVML_ERROR_UNKNOWN;
  }
  for (const struct xml_node *n = xml_child(g_log_root, "gpu"); n; n = xml_next_same(n)) {
    if (g_ngpu == MAX_GPUS) {
      snprintf(err, errlen, "%s: more than %d GPUs", path, MAX_GPUS);
      unload();
      return NVML_ERROR_UNKNOWN;
    }
    struct nvmlDevice_st *g = &g_gpu[g_ngpu];
    memset(g, 0, sizeof(*g));
    g->used = 1;
    g->index = g_ngpu;
    g->node = n;
    g->profile = -1;
    const char *busid = xml_path_text(n, "pci/pci_bus_id");
    if (!busid || bdf_parse(busid, &g->bdf) != 0) {
      busid = xml_attr(n, "id");
      if (!busid || bdf_parse(busid, &g->bdf) != 0) {
        snprintf(err, errlen, "%s: <gpu> at line %u has no usable PCI bus id", path, n->line);
        unload();
        return NVML_ERROR_UNKNOWN;
      }
    }
    g->mig_table = mig_table_for(xml_path_text(n, "product_name"));
    if (build_migs(g, g_ngpu, err, errlen)) {
      unload();
      return NVML_ERROR_UNKNOWN;
    }
    gis_from_file(g);
    g_ngpu++;
  }
  if (g_ngpu == 0 && !(flags & NVML_INIT_FLAG_NO_GPUS)) {
    unload();
    return NVML_ERROR_NOT_FOUND;
  }
  const char *extra = getenv("AXL_NVML_DOUBLE_EXTRA");
  if (extra && *extra && extra_load(extra, &g_extra, err, errlen)) {
    unload();
    return NVML_ERROR_UNKNOWN;
  }
  if (state_load(err, errlen)) {
    unload();
    return NVML_ERROR_UNKNOWN;
  }
  return NVML_SUCCESS;
}

static nvmlReturn_t do_init(const char *fn, unsigned flags)
{
  log_call(fn, NULL, args("flags=%u", flags));
  char err[512] = "";
  pthread_mutex_lock(&g_lock);
  if (parse_rules(err, sizeof(err))) {
    pthread_mutex_unlock(&g_lock);
    fprintf(stderr, "nvml_double: %s\n", err);
    return NVML_ERROR_UNKNOWN;
  }
  int hang = hang_match(fn, 0);
  pthread_mutex_unlock(&g_lock);
  if (hang)
    hang_sleep();
  pthread_mutex_lock(&g_lock);
  nvmlReturn_t rc;
  if (fail_match(fn, 0, -1, &rc)) {
    pthread_mutex_unlock(&g_lock);
    return rc;
  }
  if (g_refs == 0) {
    rc = load(flags, err, sizeof(err));
    if (rc != NVML_SUCCESS) {
      pthread_mutex_unlock(&g_lock);
      if (err[0])
        fprintf(stderr, "nvml_double: %s\n", err);
      return rc;
    }
  }
  g_refs++;
  pthread_mutex_unlock(&g_lock);
  return NVML_SUCCESS;
}

/* ==== system ================================================================================ */
nvmlReturn_t nvmlInit(void) { return do_init(__func__, 0); }

nvmlReturn_t nvmlShutdown(void)
{
  ENTER_SYS(NULL);
  if (--g_refs == 0)
    unload();
  return leave(NVML_SUCCESS);
}

const char *nvmlErrorString(nvmlReturn_t result)
{
  log_call(__func__, NULL, args("%d", (int)result));
  for (size_t i = 0; i < sizeof(errors) / sizeof(errors[0]); i++)
    if (errors[i].code == result)
      return errors[i].text;
  return "Unknown Error";
}

nvmlReturn_t nvmlSystemGetDriverVersion(char *version, unsigned int length)
{
  ENTER_SYS(args("length=%u", length));
  const char *t;
  nvmlReturn_t rc = get_text(g_log_root, "driver_version", &t);
  if (!version)
    rc = NVML_ERROR_INVALID_ARGUMENT;
  if (rc == NVML_SUCCESS)
    rc = put_str(version, length, t);
  return leave(rc);
}

/* "12.2" -> 12, 2 */
static nvmlReturn_t cuda_version(int *major, int *minor)
{
  unsigned long long v;
  nvmlReturn_t rc = get_num(g_log_root, "cuda_version", NULL, 2, &v);
  if (rc != NVML_SUCCESS)
    return rc;
  const char *t = xml_path_text(g_log_root, "cuda_version");
  const char *dot = strchr(t, '.');
  /* "12.2" is 1220 with two fraction digits; "12.10" would be 1210: read the digits */
  *major = (int)(v / 100);
  *minor = dot ? atoi(dot + 1) : 0;
  if (*minor > 99)
    return NVML_ERROR_NOT_SUPPORTED;
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlSystemGetNVMLVersion(char *version, unsigned int length)
{
  ENTER_SYS(args("length=%u", length));
  int major, minor;
  const char *drv;
  nvmlReturn_t rc = cuda_version(&major, &minor);
  if (rc == NVML_SUCCESS)
    rc = get_text(g_log_root, "driver_version", &drv);
  if (!version)
    rc = NVML_ERROR_INVALID_ARGUMENT;
  if (rc == NVML_SUCCESS) {
    char buf[NVML_SYSTEM_NVML_VERSION_BUFFER_SIZE];
    snprintf(buf, sizeof(buf), "%d.%s", major, drv);
    rc = put_str(version, length, buf);
  }
  return leave(rc);
}

static nvmlReturn_t cuda_driver_version(const char *fn, int *out)
{
  nvmlReturn_t e = enter(fn, SYS, NULL, -1, NULL, NULL);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  int major, minor;
  nvmlReturn_t rc = cuda_version(&major, &minor);
  if (rc == NVML_SUCCESS)
    *out = g_nonsense ? -12020 : major * 1000 + minor * 10;
  return leave(rc);
}

nvmlReturn_t nvmlSystemGetCudaDriverVersion(int *cudaDriverVersion)
{
  return cuda_driver_version(__func__, cudaDriverVersion);
}

static nvmlReturn_t device_count(const char *fn, unsigned *count)
{
  nvmlReturn_t e = enter(fn, SYS, NULL, -1, NULL, NULL);
  if (e != NVML_SUCCESS)
    return e;
  if (!count)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *count = g_ngpu;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCount(unsigned int *deviceCount) { return device_count(__func__, deviceCount); }

static nvmlReturn_t handle_by_index(const char *fn, unsigned index, nvmlDevice_t *device)
{
  nvmlReturn_t e = enter(fn, SYS, NULL, (int)(index < MAX_GPUS ? index : MAX_GPUS), args("%u", index), NULL);
  if (e != NVML_SUCCESS)
    return e;
  if (!device || index >= g_ngpu)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *device = &g_gpu[index];
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetHandleByIndex(unsigned int index, nvmlDevice_t *device)
{
  return handle_by_index(__func__, index, device);
}

static nvmlReturn_t handle_by_bus_id(const char *fn, const char *busid, nvmlDevice_t *device)
{
  char shown[40];
  snprintf(shown, sizeof(shown), "%s", busid ? busid : "NULL");
  nvmlReturn_t e = enter(fn, SYS, NULL, -1, args("%s", shown), NULL);
  if (e != NVML_SUCCESS)
    return e;
  struct bdf b;
  if (!busid || !device || bdf_parse(busid, &b) != 0)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned i = 0; i < g_ngpu; i++) {
    struct bdf x = g_gpu[i].bdf;
    if (x.domain == b.domain && x.bus == b.bus && x.dev == b.dev) {
      *device = &g_gpu[i];
      return leave(NVML_SUCCESS);
    }
  }
  return leave(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId(const char *pciBusId, nvmlDevice_t *device)
{
  return handle_by_bus_id(__func__, pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetHandleByUUID(const char *uuid, nvmlDevice_t *device)
{
  char shown[100];
  snprintf(shown, sizeof(shown), "%s", uuid ? uuid : "NULL");
  ENTER_SYS(args("%s", shown));
  if (!uuid || !device)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned i = 0; i < g_ngpu; i++) {
    const char *u = xml_path_text(g_gpu[i].node, "uuid");
    if (u && strcmp(u, uuid) == 0) {
      *device = &g_gpu[i];
      return leave(NVML_SUCCESS);
    }
    for (unsigned j = 0; j < g_gpu[i].nmig; j++)
      if (g_mig[i][j].used && strcmp(g_mig[i][j].uuid, uuid) == 0) {
        *device = &g_mig[i][j];
        return leave(NVML_SUCCESS);
      }
  }
  return leave(NVML_ERROR_NOT_FOUND);
}

/* ==== identity ============================================================================== */
static const char *mig_profile_name(const struct nvmlDevice_st *m)
{
  const struct gi_table *t = m->parent->mig_table;
  return t && m->profile >= 0 ? t->profiles[m->profile].name : NULL;
}

nvmlReturn_t nvmlDeviceGetName(nvmlDevice_t device, char *name, unsigned int length)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("length=%u", length), d);
  if (!name)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const char *t;
  nvmlReturn_t rc = get_text(gpu_node(d), "product_name", &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  if (!d->is_mig)
    return leave(put_str(name, length, t));
  /* "NVIDIA A100-SXM4-80GB MIG 1g.20gb"; a compute instance smaller than its GPU
   * instance is "MIG 1c.3g.71gb" */
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  const char *pn = mig_profile_name(d);
  const struct gi_profile *p = pn ? &d->parent->mig_table->profiles[d->profile] : NULL;
  unsigned sm = 0;
  get_u32(d->node, "device_attributes/shared/multiprocessor_count", NULL, &sm);
  if (d->created && p)
    sm = p->sm * d->ci_slices / p->slices;
  if (!p)
    snprintf(buf, sizeof(buf), "%s MIG", t);
  else if (sm && sm < p->sm)
    snprintf(buf, sizeof(buf), "%s MIG %uc.%s", t, (sm + p->sm / p->slices - 1) / (p->sm / p->slices), pn);
  else
    snprintf(buf, sizeof(buf), "%s MIG %s", t, pn);
  return leave(put_str(name, length, buf));
}

nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t device, char *uuid, unsigned int length)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("length=%u", length), d);
  if (!uuid)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(put_str(uuid, length, d->uuid));
  const char *t;
  nvmlReturn_t rc = get_text(d->node, "uuid", &t);
  if (rc == NVML_SUCCESS)
    rc = put_str(uuid, length, t);
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetSerial(nvmlDevice_t device, char *serial, unsigned int length)
{
  return str_query(device, __func__, "serial", serial, length, 0);
}

nvmlReturn_t nvmlDeviceGetBoardPartNumber(nvmlDevice_t device, char *partNumber, unsigned int length)
{
  return str_query(device, __func__, "board_part_number", partNumber, length, 0);
}

nvmlReturn_t nvmlDeviceGetVbiosVersion(nvmlDevice_t device, char *version, unsigned int length)
{
  return str_query(device, __func__, "vbios_version", version, length, 0);
}

nvmlReturn_t nvmlDeviceGetInforomImageVersion(nvmlDevice_t device, char *version, unsigned int length)
{
  return str_query(device, __func__, "inforom_version/img_version", version, length, 0);
}

nvmlReturn_t nvmlDeviceGetMinorNumber(nvmlDevice_t device, unsigned int *minorNumber)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!minorNumber)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc = get_u32(d->node, "minor_number", NULL, minorNumber);
  if (rc == NVML_SUCCESS && g_nonsense)
    *minorNumber = 0xffffffffu;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetIndex(nvmlDevice_t device, unsigned int *index)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!index)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *index = d->index;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetBrand(nvmlDevice_t device, nvmlBrandType_t *type)
{
  static const struct {
    const char *name;
    nvmlBrandType_t brand;
  } brands[] = {{"Quadro", NVML_BRAND_QUADRO},
                {"Tesla", NVML_BRAND_TESLA},
                {"NVS", NVML_BRAND_NVS},
                {"GRID", NVML_BRAND_GRID},
                {"GeForce", NVML_BRAND_GEFORCE},
                {"Titan", NVML_BRAND_TITAN},
                {"TITAN", NVML_BRAND_TITAN},
                {"NVIDIA Virtual Applications", NVML_BRAND_NVIDIA_VAPPS},
                {"NVIDIA Virtual PC", NVML_BRAND_NVIDIA_VPC},
                {"NVIDIA Virtual Compute Server", NVML_BRAND_NVIDIA_VCS},
                {"NVIDIA RTX Virtual Workstation", NVML_BRAND_NVIDIA_VWS},
                {"NVIDIA Cloud Gaming", NVML_BRAND_NVIDIA_CLOUD_GAMING},
                {"Quadro RTX", NVML_BRAND_QUADRO_RTX},
                {"NVIDIA RTX", NVML_BRAND_NVIDIA_RTX},
                {"NVIDIA", NVML_BRAND_NVIDIA},
                {"GeForce RTX", NVML_BRAND_GEFORCE_RTX},
                {"Titan RTX", NVML_BRAND_TITAN_RTX}};
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!type)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const char *t;
  nvmlReturn_t rc = get_text(d->node, "product_brand", &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  *type = NVML_BRAND_UNKNOWN;
  for (size_t i = 0; i < sizeof(brands) / sizeof(brands[0]); i++)
    if (strcmp(brands[i].name, t) == 0)
      *type = brands[i].brand;
  if (g_nonsense)
    *type = (nvmlBrandType_t)9999;
  return leave(NVML_SUCCESS);
}

/* ---- architecture, compute capability, cores ------------------------------------------------- */
static int arch_from_text(const char *t)
{
  static const struct {
    const char *name;
    int arch;
  } archs[] = {{"Kepler", NVML_DEVICE_ARCH_KEPLER}, {"Maxwell", NVML_DEVICE_ARCH_MAXWELL},
               {"Pascal", NVML_DEVICE_ARCH_PASCAL}, {"Volta", NVML_DEVICE_ARCH_VOLTA},
               {"Turing", NVML_DEVICE_ARCH_TURING}, {"Ampere", NVML_DEVICE_ARCH_AMPERE},
               {"Ada Lovelace", NVML_DEVICE_ARCH_ADA}, {"Hopper", NVML_DEVICE_ARCH_HOPPER},
               {"Blackwell", NVML_DEVICE_ARCH_BLACKWELL}};
  for (size_t i = 0; t && i < sizeof(archs) / sizeof(archs[0]); i++)
    if (strcmp(archs[i].name, t) == 0)
      return archs[i].arch;
  return -1;
}

/* for files without <product_architecture>: the PCI device id ranges of the chips */
static int arch_from_device_id(unsigned id)
{
  if (id >= 0x15f0 && id <= 0x15ff)
    return NVML_DEVICE_ARCH_PASCAL; /* GP100 */
  if (id >= 0x1b00 && id <= 0x1d7f)
    return NVML_DEVICE_ARCH_PASCAL; /* GP10x */
  if (id >= 0x1db0 && id <= 0x1dbf)
    return NVML_DEVICE_ARCH_VOLTA; /* GV100 */
  if ((id >= 0x1e00 && id <= 0x1fff) || (id >= 0x2180 && id <= 0x21ff))
    return NVML_DEVICE_ARCH_TURING;
  if ((id >= 0x20b0 && id <= 0x20ff) || (id >= 0x2200 && id <= 0x22ff) || (id >= 0x2400 && id <= 0x25ff))
    return NVML_DEVICE_ARCH_AMPERE;
  if (id >= 0x2300 && id <= 0x234f)
    return NVML_DEVICE_ARCH_HOPPER;
  if (id >= 0x2600 && id <= 0x28ff)
    return NVML_DEVICE_ARCH_ADA;
  if ((id >= 0x2900 && id <= 0x29ff) || (id >= 0x2b00 && id <= 0x2fff) || (id >= 0x3180 && id <= 0x31ff))
    return NVML_DEVICE_ARCH_BLACKWELL;
  return -1;
}

static unsigned device_id(const struct xml_node *gpu)
{
  unsigned v = 0;
  get_hex32(gpu, "pci/pci_device_id", &v);
  return v >> 16;
}

static int gpu_arch(const struct xml_node *gpu, int derive)
{
  int a = arch_from_text(xml_path_text(gpu, "product_architecture"));
  if (a < 0 && derive)
    a = arch_from_device_id(device_id(gpu));
  return a;
}

/* Compute capability: the file has none, so it is derived from the architecture (from the
 * file, else from the PCI device id) and the product: Kepler 3.5 (K80 3.7), Maxwell 5.2
 * (GM107/GM108 5.0), Pascal 6.1 (GP100 6.0), Volta 7.0, Turing 7.5, Ampere 8.6 (GA100:
 * A100/A30/A800 8.0), Ada 8.9, Hopper 9.0, Blackwell 12.0 (GB100/GB200 10.0, GB300/B300 10.3). */
static int compute_capability(const struct xml_node *gpu, int *major, int *minor)
{
  const char *name = xml_path_text(gpu, "product_name");
  unsigned id = device_id(gpu);
  if (!name)
    name = "";
  switch (gpu_arch(gpu, 1)) {
  case NVML_DEVICE_ARCH_KEPLER:
    *major = 3;
    *minor = strstr(name, "K80") ? 7 : 5;
    return 0;
  case NVML_DEVICE_ARCH_MAXWELL:
    *major = 5;
    *minor = id >= 0x1340 && id <= 0x13bf ? 0 : 2;
    return 0;
  case NVML_DEVICE_ARCH_PASCAL:
    *major = 6;
    *minor = (id >= 0x15f0 && id <= 0x15ff) || strstr(name, "P100") ? 0 : 1;
    return 0;
  case NVML_DEVICE_ARCH_VOLTA:
    *major = 7;
    *minor = 0;
    return 0;
  case NVML_DEVICE_ARCH_TURING:
    *major = 7;
    *minor = 5;
    return 0;
  case NVML_DEVICE_ARCH_AMPERE:
    *major = 8;
    *minor = (id >= 0x20b0 && id <= 0x20ff) || strstr(name, "A100") || strstr(name, "A800") ? 0 : 6;
    return 0;
  case NVML_DEVICE_ARCH_ADA:
    *major = 8;
    *minor = 9;
    return 0;
  case NVML_DEVICE_ARCH_HOPPER:
    *major = 9;
    *minor = 0;
    return 0;
  case NVML_DEVICE_ARCH_BLACKWELL:
    if ((id >= 0x3180 && id <= 0x31ff) || strstr(name, "B300")) {
      *major = 10;
      *minor = 3;
    } else if ((id >= 0x2900 && id <= 0x29ff) || strstr(name, "B200") || strstr(name, "B100")) {
      *major = 10;
      *minor = 0;
    } else {
      *major = 12;
      *minor = 0;
    }
    return 0;
  default:
    return -1;
  }
}

#ifndef NVML_DOUBLE_OLD
/* CUDA cores: SMs x cores per SM, for the products of the fixtures and a few more
 * (datasheet SM counts); anything else is NOT_SUPPORTED */
static int gpu_cores(const char *name, unsigned *cores)
{
  static const struct {
    const char *name;
    unsigned sms, per_sm;
  } t[] = {
      {"A100-SXM4-80GB", 108, 64}, {"A100-SXM4-40GB", 108, 64}, {"A100-PCIE-40GB", 108, 64},
      {"A100 80GB PCIe", 108, 64}, {"A30", 56, 64}, {"A10", 72, 128}, {"A10G", 80, 128},
      {"H100 80GB HBM3", 132, 128}, {"H100 PCIe", 114, 128}, {"H100 NVL", 132, 128}, {"H200", 132, 128},
      {"Tesla T4", 40, 64}, {"Tesla P4", 20, 128}, {"Tesla V100-SXM2-16GB", 80, 64},
      {"GeForce RTX 3090", 82, 128}, {"GeForce RTX 3080", 68, 128}, {"GeForce RTX 3060", 28, 128},
      {"RTX A5000", 64, 128}, {"GeForce RTX 2070", 36, 64}, {"GeForce RTX 2080", 46, 64},
      {"RTX 4000 SFF Ada Generation", 48, 128}, {"RTX PRO 6000 Blackwell Max-Q Workstation Edition", 188, 128},
      {"Quadro P2000", 8, 128}, {"Quadro P400", 2, 128}, {"GeForce GT 1030", 3, 128},
  };
  if (!name)
    return -1;
  if (strncmp(name, "NVIDIA ", 7) == 0)
    name += 7;
  for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++)
    if (strcmp(t[i].name, name) == 0) {
      *cores = t[i].sms * t[i].per_sm;
      return 0;
    }
  return -1;
}
#endif

nvmlReturn_t nvmlDeviceGetCudaComputeCapability(nvmlDevice_t device, int *major, int *minor)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!major || !minor)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (compute_capability(gpu_node(d), major, minor))
    return leave(NVML_ERROR_NOT_SUPPORTED);
  if (g_nonsense) {
    *major = -1;
    *minor = -7;
  }
  return leave(NVML_SUCCESS);
}

/* ---- PCI ---------------------------------------------------------------------------------------- */
struct pci {
  unsigned domain, bus, device, devid, subsys;
};

static void pci_of(const struct nvmlDevice_st *g, struct pci *p)
{
  p->domain = g->bdf.domain;
  p->bus = g->bdf.bus;
  p->device = g->bdf.dev;
  p->devid = 0;
  p->subsys = 0;
  get_hex32(g->node, "pci/pci_device_id", &p->devid);
  get_hex32(g->node, "pci/pci_sub_system_id", &p->subsys);
  if (g_nonsense) {
    p->devid = 0xffffffffu;
    p->bus = 0x1ff;
  }
}

static void put_pci_v1(const struct pci *p, nvmld_pci_info_v1_t *out)
{
  memset(out, 0, sizeof(*out));
  snprintf(out->busId, sizeof(out->busId), "%04X:%02X:%02X.0", p->domain, p->bus, p->device);
  out->domain = p->domain;
  out->bus = p->bus;
  out->device = p->device;
  out->pciDeviceId = p->devid;
  out->pciSubSystemId = p->subsys;
  if (g_nonsense)
    memset(out->busId, 'Z', sizeof(out->busId));
}

static void put_pci_v3(const struct pci *p, nvmlPciInfo_t *out)
{
  memset(out, 0, sizeof(*out));
  snprintf(out->busIdLegacy, sizeof(out->busIdLegacy), "%04X:%02X:%02X.0", p->domain, p->bus, p->device);
  snprintf(out->busId, sizeof(out->busId), "%08X:%02X:%02X.0", p->domain, p->bus, p->device);
  out->domain = p->domain;
  out->bus = p->bus;
  out->device = p->device;
  out->pciDeviceId = p->devid;
  out->pciSubSystemId = p->subsys;
  if (g_nonsense) {
    memset(out->busIdLegacy, 'Z', sizeof(out->busIdLegacy));
    memset(out->busId, 'Z', sizeof(out->busId));
  }
}

static nvmlReturn_t pci_info(const char *fn, nvmlDevice_t device, void *out, int v3)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  struct pci p;
  pci_of(d, &p);
  if (v3)
    put_pci_v3(&p, out);
  else
    put_pci_v1(&p, out);
  return leave(NVML_SUCCESS);
}

/* the base symbol and _v2 fill the 2012 layout (nvmld_pci_info_v1_t) of the caller's struct */
nvmlReturn_t nvmlDeviceGetPciInfo(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
  return pci_info(__func__, device, pci, 0);
}

static nvmlReturn_t gpu_u32(const char *fn, nvmlDevice_t device, const char *path, const char *unit,
                            unsigned *out, unsigned nonsense)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc = get_u32(d->node, path, unit, out);
  if (rc == NVML_SUCCESS && g_nonsense)
    *out = nonsense;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkGeneration(nvmlDevice_t device, unsigned int *currLinkGen)
{
  return gpu_u32(__func__, device, "pci/pci_gpu_link_info/pcie_gen/current_link_gen", NULL, currLinkGen, 99);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkGeneration(nvmlDevice_t device, unsigned int *maxLinkGen)
{
  return gpu_u32(__func__, device, "pci/pci_gpu_link_info/pcie_gen/max_link_gen", NULL, maxLinkGen, 99);
}

nvmlReturn_t nvmlDeviceGetCurrPcieLinkWidth(nvmlDevice_t device, unsigned int *currLinkWidth)
{
  return gpu_u32(__func__, device, "pci/pci_gpu_link_info/link_widths/current_link_width", "x", currLinkWidth, 0);
}

nvmlReturn_t nvmlDeviceGetMaxPcieLinkWidth(nvmlDevice_t device, unsigned int *maxLinkWidth)
{
  return gpu_u32(__func__, device, "pci/pci_gpu_link_info/link_widths/max_link_width", "x", maxLinkWidth, 0);
}

/* ==== memory ================================================================================= */
struct mem {
  unsigned long long total, reserved, used, free;
};

/* <fb_memory_usage> of the GPU or of the MIG device */
static nvmlReturn_t mem_of(const struct nvmlDevice_st *d, struct mem *m)
{
  if (d->created) {
    /* a new instance: its profile's memory, all free */
    m->total = d->parent->mig_table->profiles[d->profile].mem_mib << 20;
    m->reserved = 0;
    m->used = 0;
    m->free = m->total;
    return NVML_SUCCESS;
  }
  const struct xml_node *fb = xml_child(d->node, "fb_memory_usage");
  nvmlReturn_t rc = get_mib(fb, "total", &m->total);
  if (rc == NVML_SUCCESS)
    rc = get_mib(fb, "used", &m->used);
  if (rc == NVML_SUCCESS)
    rc = get_mib(fb, "free", &m->free);
  if (rc != NVML_SUCCESS)
    return rc;
  if (get_mib(fb, "reserved", &m->reserved) != NVML_SUCCESS)
    m->reserved = 0; /* files of drivers before R510 have no <reserved> */
  if (g_nonsense) {
    m->total = 1ULL << 30;
    m->used = 3ULL << 30;
    m->reserved = 5ULL << 30;
    m->free = ~0ULL - 5;
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t device, nvmlMemory_t *memory)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!memory)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  struct mem m;
  nvmlReturn_t rc = mem_of(d, &m);
  if (rc == NVML_SUCCESS) {
    /* v1: "used" includes the memory reserved by the driver */
    memory->total = m.total;
    memory->free = m.free;
    memory->used = m.used + m.reserved;
  }
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetBAR1MemoryInfo(nvmlDevice_t device, nvmlBAR1Memory_t *bar1Memory)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!bar1Memory)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct xml_node *b = xml_child(d->node, "bar1_memory_usage");
  unsigned long long total, used, free;
  nvmlReturn_t rc = get_mib(b, "total", &total);
  if (rc == NVML_SUCCESS)
    rc = get_mib(b, "used", &used);
  if (rc == NVML_SUCCESS)
    rc = get_mib(b, "free", &free);
  if (rc == NVML_SUCCESS) {
    bar1Memory->bar1Total = total;
    bar1Memory->bar1Used = g_nonsense ? total * 2 + 1 : used;
    bar1Memory->bar1Free = free;
  }
  return leave(rc);
}

/* ==== clocks, power, modes ====================================================================== */
static nvmlReturn_t clock_info(const char *fn, nvmlDevice_t device, nvmlClockType_t type, unsigned *clock,
                               const char *section)
{
  static const char *const names[] = {"graphics_clock", "sm_clock", "mem_clock", "video_clock"};
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, args("type=%d", (int)type), &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!clock || (unsigned)type > NVML_CLOCK_VIDEO)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  char path[64];
  snprintf(path, sizeof(path), "%s/%s", section, names[type]);
  nvmlReturn_t rc = get_u32(d->node, path, "MHz", clock);
  if (rc == NVML_SUCCESS && g_nonsense)
    *clock = 4294967295u;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
  return clock_info(__func__, device, type, clock, "clocks");
}

nvmlReturn_t nvmlDeviceGetMaxClockInfo(nvmlDevice_t device, nvmlClockType_t type, unsigned int *clock)
{
  return clock_info(__func__, device, type, clock, "max_clocks");
}

static const char *const limit_mgmt[] = {"power_limit", "requested_power_limit", "current_power_limit", NULL};
static const char *const limit_enforced[] = {"enforced_power_limit", "current_power_limit", "power_limit", NULL};
static const char *const limit_default[] = {"default_power_limit", NULL};
static const char *const limit_min[] = {"min_power_limit", NULL};
static const char *const limit_max[] = {"max_power_limit", NULL};
static const char *const power_draw[] = {"power_draw", "average_power_draw", "instant_power_draw", NULL};

static nvmlReturn_t power_value(const char *fn, nvmlDevice_t device, const char *const *names, unsigned *out)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc = get_milliwatts(d->node, names, out);
  if (rc == NVML_SUCCESS && g_nonsense)
    *out = 4294967295u;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimit(nvmlDevice_t device, unsigned int *limit)
{
  return power_value(__func__, device, limit_mgmt, limit);
}

nvmlReturn_t nvmlDeviceGetPowerManagementDefaultLimit(nvmlDevice_t device, unsigned int *defaultLimit)
{
  return power_value(__func__, device, limit_default, defaultLimit);
}

nvmlReturn_t nvmlDeviceGetEnforcedPowerLimit(nvmlDevice_t device, unsigned int *limit)
{
  return power_value(__func__, device, limit_enforced, limit);
}

nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t device, unsigned int *power)
{
  return power_value(__func__, device, power_draw, power);
}

nvmlReturn_t nvmlDeviceGetPowerManagementLimitConstraints(nvmlDevice_t device, unsigned int *minLimit,
                                                          unsigned int *maxLimit)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!minLimit || !maxLimit)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned lo, hi;
  nvmlReturn_t rc = get_milliwatts(d->node, limit_min, &lo);
  if (rc == NVML_SUCCESS)
    rc = get_milliwatts(d->node, limit_max, &hi);
  if (rc == NVML_SUCCESS) {
    *minLimit = g_nonsense ? hi + 1000 : lo;
    *maxLimit = g_nonsense ? lo : hi;
  }
  return leave(rc);
}

static nvmlReturn_t enable_state(const char *fn, nvmlDevice_t device, const char *path, nvmlEnableState_t *out)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned v;
  nvmlReturn_t rc = get_enabled(d->node, path, &v);
  if (rc == NVML_SUCCESS)
    *out = g_nonsense ? (nvmlEnableState_t)7 : (nvmlEnableState_t)v;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetPersistenceMode(nvmlDevice_t device, nvmlEnableState_t *mode)
{
  return enable_state(__func__, device, "persistence_mode", mode);
}

nvmlReturn_t nvmlDeviceGetEccMode(nvmlDevice_t device, nvmlEnableState_t *current, nvmlEnableState_t *pending)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!current || !pending)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned c, p;
  nvmlReturn_t rc = get_enabled(d->node, "ecc_mode/current_ecc", &c);
  if (rc == NVML_SUCCESS)
    rc = get_enabled(d->node, "ecc_mode/pending_ecc", &p);
  if (rc == NVML_SUCCESS) {
    *current = g_nonsense ? (nvmlEnableState_t)7 : (nvmlEnableState_t)c;
    *pending = (nvmlEnableState_t)p;
  }
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetComputeMode(nvmlDevice_t device, nvmlComputeMode_t *mode)
{
  static const struct {
    const char *name;
    nvmlComputeMode_t mode;
  } modes[] = {{"Default", NVML_COMPUTEMODE_DEFAULT},
               {"Exclusive_Thread", NVML_COMPUTEMODE_EXCLUSIVE_THREAD},
               {"Prohibited", NVML_COMPUTEMODE_PROHIBITED},
               {"Exclusive_Process", NVML_COMPUTEMODE_EXCLUSIVE_PROCESS}};
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!mode)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const char *t;
  nvmlReturn_t rc = get_text(d->node, "compute_mode", &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  for (size_t i = 0; i < sizeof(modes) / sizeof(modes[0]); i++)
    if (strcmp(modes[i].name, t) == 0) {
      *mode = g_nonsense ? (nvmlComputeMode_t)42 : modes[i].mode;
      return leave(NVML_SUCCESS);
    }
  return leave(NVML_ERROR_NOT_SUPPORTED);
}

/* ==== metrics ================================================================================= */
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t device, nvmlUtilization_t *utilization)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!utilization)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned g, m;
  nvmlReturn_t rc = get_u32(d->node, "utilization/gpu_util", "%", &g);
  if (rc == NVML_SUCCESS)
    rc = get_u32(d->node, "utilization/memory_util", "%", &m);
  if (rc == NVML_SUCCESS) {
    utilization->gpu = g_nonsense ? 250 : g;
    utilization->memory = g_nonsense ? 4294967295u : m;
  }
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t device, nvmlTemperatureSensors_t sensorType, unsigned int *temp)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("sensor=%d", (int)sensorType), d);
  if (!temp || sensorType != NVML_TEMPERATURE_GPU)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc = get_u32(d->node, "temperature/gpu_temp", "C", temp);
  if (rc == NVML_SUCCESS && g_nonsense)
    *temp = 1000000;
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetTotalEnergyConsumption(nvmlDevice_t device, unsigned long long *energy)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!energy)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const struct energy_rec *r = extra_energy(&g_extra, &d->bdf);
  if (!r)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  struct energy_rec *w = (struct energy_rec *)r; /* the call count lives in the record */
  long long v = (long long)r->mj + (long long)w->calls * r->step;
  w->calls++;
  *energy = g_nonsense ? ~0ULL : (unsigned long long)(v < 0 ? 0 : v);
  return leave(NVML_SUCCESS);
}

/* <utilization>/<encoder_util>, <decoder_util>; a sampling period of 167 ms, as NVML
 * reports on current GPUs */
static nvmlReturn_t codec_util(const char *fn, nvmlDevice_t device, const char *path, unsigned *util,
                               unsigned *period)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!util || !period)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc = get_u32(d->node, path, "%", util);
  if (rc == NVML_SUCCESS) {
    *period = 167000;
    if (g_nonsense)
      *util = 4294967295u;
  }
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetEncoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs)
{
  return codec_util(__func__, device, "utilization/encoder_util", utilization, samplingPeriodUs);
}

nvmlReturn_t nvmlDeviceGetDecoderUtilization(nvmlDevice_t device, unsigned int *utilization,
                                             unsigned int *samplingPeriodUs)
{
  return codec_util(__func__, device, "utilization/decoder_util", utilization, samplingPeriodUs);
}

/* only from an `ecc` line of the extra file */
nvmlReturn_t nvmlDeviceGetTotalEccErrors(nvmlDevice_t device, nvmlMemoryErrorType_t errorType,
                                         nvmlEccCounterType_t counterType, unsigned long long *eccCounts)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("type=%d, counter=%d", (int)errorType, (int)counterType), d);
  if (!eccCounts || (unsigned)errorType > 1 || (unsigned)counterType > 1)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const struct ecc_rec *r = extra_ecc(&g_extra, &d->bdf);
  long long v = !r ? -1 : errorType == NVML_MEMORY_ERROR_TYPE_CORRECTED ? r->corrected : r->uncorrected;
  if (v < 0)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *eccCounts = g_nonsense ? ~0ULL : (unsigned long long)v;
  return leave(NVML_SUCCESS);
}

/* `procutil` lines of the extra file, time-stamped now (so every call has samples newer
 * than the last one seen); none: NOT_FOUND, as NVML says when no process ran */
nvmlReturn_t nvmlDeviceGetProcessUtilization(nvmlDevice_t device, nvmlProcessUtilizationSample_t *utilization,
                                             unsigned int *processSamplesCount, unsigned long long lastSeenTimeStamp)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("last=%llu", lastSeenTimeStamp), d);
  if (!processSamplesCount)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  unsigned long long now = (unsigned long long)ts.tv_sec * 1000000ULL + (unsigned long long)ts.tv_nsec / 1000;
  unsigned n = 0;
  for (size_t i = 0; i < g_extra.nputil; i++)
    if (bdf_equal(&g_extra.putil[i].gpu, &d->bdf))
      n++;
  if (!n || now <= lastSeenTimeStamp)
    return leave(NVML_ERROR_NOT_FOUND);
  if (!utilization || *processSamplesCount < n) {
    *processSamplesCount = n;
    return leave(NVML_ERROR_INSUFFICIENT_SIZE);
  }
  unsigned k = 0;
  for (size_t i = 0; i < g_extra.nputil; i++) {
    const struct putil_rec *r = &g_extra.putil[i];
    if (!bdf_equal(&r->gpu, &d->bdf))
      continue;
    nvmlProcessUtilizationSample_t *o = &utilization[k++];
    memset(o, 0, sizeof(*o));
    o->pid = r->pid;
    o->timeStamp = now;
    o->smUtil = g_nonsense ? 4294967295u : r->sm;
    o->memUtil = r->mem;
    o->encUtil = r->enc;
    o->decUtil = r->dec;
  }
  *processSamplesCount = n;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetFanSpeed(nvmlDevice_t device, unsigned int *speed)
{
  return gpu_u32(__func__, device, "fan_speed", "%", speed, 255);
}

nvmlReturn_t nvmlDeviceGetPerformanceState(nvmlDevice_t device, nvmlPstates_t *pState)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!pState)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const char *t = xml_path_text(d->node, "performance_state");
  if (t && strcmp(t, "Unknown") == 0) {
    *pState = NVML_PSTATE_UNKNOWN;
    return leave(NVML_SUCCESS);
  }
  nvmlReturn_t rc = check_text(t, &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  unsigned long long v;
  if (t[0] != 'P' || parse_scaled(t + 1, NULL, 0, &v) || v > 15)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *pState = g_nonsense ? (nvmlPstates_t)99 : (nvmlPstates_t)v;
  return leave(NVML_SUCCESS);
}

static nvmlReturn_t clocks_reasons(const char *fn, nvmlDevice_t device, unsigned long long *out)
{
  static const struct {
    const char *name;
    unsigned long long bit;
  } bits[] = {{"gpu_idle", nvmlClocksEventReasonGpuIdle},
              {"applications_clocks_setting", nvmlClocksEventReasonApplicationsClocksSetting},
              {"sw_power_cap", nvmlClocksEventReasonSwPowerCap},
              {"hw_slowdown", nvmlClocksThrottleReasonHwSlowdown},
              {"sync_boost", nvmlClocksEventReasonSyncBoost},
              {"sw_thermal_slowdown", nvmlClocksEventReasonSwThermalSlowdown},
              {"hw_thermal_slowdown", nvmlClocksThrottleReasonHwThermalSlowdown},
              {"hw_power_brake_slowdown", nvmlClocksThrottleReasonHwPowerBrakeSlowdown},
              {"display_clocks_setting", nvmlClocksEventReasonDisplayClockSetting}};
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!out)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const char *prefix = "clocks_event_reason_";
  const struct xml_node *sec = xml_child(d->node, "clocks_event_reasons");
  if (!sec) {
    sec = xml_child(d->node, "clocks_throttle_reasons");
    prefix = "clocks_throttle_reason_";
  }
  if (!sec)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned long long mask = 0;
  for (size_t i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
    char name[96];
    snprintf(name, sizeof(name), "%s%s", prefix, bits[i].name);
    const char *t = xml_path_text(sec, name);
    if (t && strcmp(t, "Active") == 0)
      mask |= bits[i].bit;
  }
  *out = g_nonsense ? ~0ULL : mask;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksThrottleReasons(nvmlDevice_t device, unsigned long long *reasons)
{
  return clocks_reasons(__func__, device, reasons);
}

/* the processes of a GPU (all) or of a MIG device (its GI/CI), of one kind */
static nvmlReturn_t processes(const char *fn, nvmlDevice_t device, int graphics, unsigned *count, void *infos,
                              int v2)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, args("count=%u", count ? *count : 0u), &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!count)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct xml_node *ps = xml_child(gpu_node(d), "processes");
  if (!ps)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned n = 0;
  for (int fill = 0; fill < 2; fill++) {
    n = 0;
    for (const struct xml_node *p = xml_child(ps, "process_info"); p; p = xml_next_same(p)) {
      const char *type = xml_path_text(p, "type");
      unsigned pid, gi = 0xffffffffu, ci = 0xffffffffu;
      unsigned long long mem = (unsigned long long)NVML_VALUE_NOT_AVAILABLE;
      if (!type || get_u32(p, "pid", NULL, &pid) != NVML_SUCCESS)
        continue;
      int is_c = strcmp(type, "C") == 0 || strcmp(type, "C+G") == 0;
      int is_g = strcmp(type, "G") == 0 || strcmp(type, "C+G") == 0;
      if (graphics ? !is_g : !is_c)
        continue;
      get_u32(p, "gpu_instance_id", NULL, &gi);
      get_u32(p, "compute_instance_id", NULL, &ci);
      if (d->is_mig && (gi != d->gi || ci != d->ci))
        continue;
      get_mib(p, "used_memory", &mem);
      if (fill) {
        if (g_nonsense) {
          pid = 0;
          mem = 1ULL << 62;
        }
        if (v2) {
          nvmlProcessInfo_v2_t *o = (nvmlProcessInfo_v2_t *)infos + n;
          memset(o, 0, sizeof(*o));
          o->pid = pid;
          o->usedGpuMemory = mem;
          o->gpuInstanceId = gi;
          o->computeInstanceId = ci;
        } else {
          nvmlProcessInfo_v1_t *o = (nvmlProcessInfo_v1_t *)infos + n;
          memset(o, 0, sizeof(*o));
          o->pid = pid;
          o->usedGpuMemory = mem;
        }
      }
      n++;
    }
    if (fill)
      break;
    if (*count < n) {
      *count = n;
      return leave(NVML_ERROR_INSUFFICIENT_SIZE);
    }
    if (n && !infos)
      return leave(NVML_ERROR_INVALID_ARGUMENT);
  }
  *count = n;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                  nvmlProcessInfo_v1_t *infos)
{
  return processes(__func__, device, 0, infoCount, infos, 0);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses(nvmlDevice_t device, unsigned int *infoCount,
                                                   nvmlProcessInfo_v1_t *infos)
{
  return processes(__func__, device, 1, infoCount, infos, 0);
}

nvmlReturn_t nvmlDeviceGetPcieThroughput(nvmlDevice_t device, nvmlPcieUtilCounter_t counter, unsigned int *value)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("counter=%d", (int)counter), d);
  if (!value || (counter != NVML_PCIE_UTIL_TX_BYTES && counter != NVML_PCIE_UTIL_RX_BYTES))
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  nvmlReturn_t rc =
      get_u32(d->node, counter == NVML_PCIE_UTIL_TX_BYTES ? "pci/tx_util" : "pci/rx_util", "KB/s", value);
  if (rc == NVML_SUCCESS && g_nonsense)
    *value = 4294967295u;
  return leave(rc);
}

/* ==== NVLink and topology ========================================================================= */
static nvmlReturn_t link_rec(const char *fn, nvmlDevice_t device, unsigned link, struct nvmlDevice_st **dp,
                             const struct nvlink_rec **out)
{
  nvmlReturn_t e = enter(fn, DEV, device, -1, args("link=%u", link), dp);
  if (e != NVML_SUCCESS)
    return e;
  if (link >= NVML_NVLINK_MAX_LINKS)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if ((*dp)->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *out = extra_link(&g_extra, &(*dp)->bdf, link);
  if (!*out)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  return NVML_SUCCESS; /* locked */
}

nvmlReturn_t nvmlDeviceGetNvLinkState(nvmlDevice_t device, unsigned int link, nvmlEnableState_t *isActive)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!isActive)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *isActive = (nvmlEnableState_t)r->state;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNvLinkVersion(nvmlDevice_t device, unsigned int link, unsigned int *version)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!version)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (!r->version)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *version = g_nonsense ? 99 : r->version;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNvLinkCapability(nvmlDevice_t device, unsigned int link, nvmlNvLinkCapability_t capability,
                                           unsigned int *capResult)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!capResult || (unsigned)capability >= NVML_NVLINK_CAP_COUNT)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *capResult = (r->caps >> (unsigned)capability) & 1u;
  return leave(NVML_SUCCESS);
}

/* the far end of a link; its device id from remote_id= or from a GPU of the file */
static nvmlReturn_t link_remote(const struct nvlink_rec *r, struct pci *p)
{
  if (!r->has_remote)
    return NVML_ERROR_NOT_SUPPORTED;
  memset(p, 0, sizeof(*p));
  p->domain = r->remote.domain;
  p->bus = r->remote.bus;
  p->device = r->remote.dev;
  if (r->has_remote_id) {
    p->devid = r->remote_id;
  } else {
    for (unsigned i = 0; i < g_ngpu; i++)
      if (bdf_equal(&g_gpu[i].bdf, &r->remote)) {
        struct pci q;
        pci_of(&g_gpu[i], &q);
        p->devid = q.devid;
        p->subsys = q.subsys;
      }
  }
  return NVML_SUCCESS;
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!pci)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  struct pci p;
  nvmlReturn_t rc = link_remote(r, &p);
  if (rc == NVML_SUCCESS)
    put_pci_v1(&p, (nvmld_pci_info_v1_t *)(void *)pci); /* the 2012 layout, as the base symbol */
  return leave(rc);
}

/* NVML_FI_DEV_NVLINK_LINK_COUNT, _SPEED_MBPS_COMMON and _SPEED_MBPS_L0.._L5; any other
 * field answers NOT_SUPPORTED in its own nvmlReturn */
static nvmlReturn_t field_value(const struct nvmlDevice_st *d, nvmlFieldValue_t *v)
{
  size_t nlinks = d->is_mig ? 0 : extra_link_count(&g_extra, &d->bdf);
  if (nlinks == 0)
    return NVML_ERROR_NOT_SUPPORTED;
  v->valueType = NVML_VALUE_TYPE_UNSIGNED_INT;
  if (v->fieldId == NVML_FI_DEV_NVLINK_LINK_COUNT) {
    v->value.uiVal = (unsigned)nlinks;
    return NVML_SUCCESS;
  }
  if (v->fieldId == NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON) {
    unsigned speed = 0;
    for (unsigned l = 0; l < NVML_NVLINK_MAX_LINKS; l++) {
      const struct nvlink_rec *r = extra_link(&g_extra, &d->bdf, l);
      if (r && r->state && r->speed && (speed == 0 || r->speed < speed))
        speed = r->speed;
    }
    if (!speed)
      return NVML_ERROR_NOT_SUPPORTED;
    v->value.uiVal = speed;
    return NVML_SUCCESS;
  }
  if (v->fieldId >= NVML_FI_DEV_NVLINK_SPEED_MBPS_L0 && v->fieldId <= NVML_FI_DEV_NVLINK_SPEED_MBPS_L5) {
    const struct nvlink_rec *r = extra_link(&g_extra, &d->bdf, v->fieldId - NVML_FI_DEV_NVLINK_SPEED_MBPS_L0);
    if (!r || !r->speed)
      return NVML_ERROR_NOT_SUPPORTED;
    v->value.uiVal = r->speed;
    return NVML_SUCCESS;
  }
  return NVML_ERROR_NOT_SUPPORTED;
}

nvmlReturn_t nvmlDeviceGetFieldValues(nvmlDevice_t device, int valuesCount, nvmlFieldValue_t *values)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("count=%d", valuesCount), d);
  if (valuesCount < 0 || (valuesCount > 0 && !values))
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  for (int i = 0; i < valuesCount; i++) {
    nvmlFieldValue_t *v = &values[i];
    v->timestamp = (long long)ts.tv_sec * 1000000LL + ts.tv_nsec / 1000;
    v->latencyUsec = 0;
    v->nvmlReturn = field_value(d, v);
  }
  return leave(NVML_SUCCESS);
}

/* both handles must be GPUs of the file; the answer comes from a topo line */
static nvmlReturn_t pair(const char *fn, nvmlDevice_t a, nvmlDevice_t b, const char *extra_args,
                         const struct topo_rec **out)
{
  char lb[64];
  handle_label(b, lb, sizeof(lb));
  char all[160];
  snprintf(all, sizeof(all), "%s%s%s", lb, extra_args ? ", " : "", extra_args ? extra_args : "");
  struct nvmlDevice_st *d1;
  nvmlReturn_t e = enter(fn, DEV, a, -1, all, &d1);
  if (e != NVML_SUCCESS)
    return e;
  struct nvmlDevice_st *d2 = handle(b);
  if (!d2)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d1->is_mig || d2->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *out = extra_topo(&g_extra, &d1->bdf, &d2->bdf);
  if (!*out)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  return NVML_SUCCESS; /* locked */
}

nvmlReturn_t nvmlDeviceGetTopologyCommonAncestor(nvmlDevice_t device1, nvmlDevice_t device2,
                                                 nvmlGpuTopologyLevel_t *pathInfo)
{
  const struct topo_rec *t;
  nvmlReturn_t e = pair(__func__, device1, device2, NULL, &t);
  if (e != NVML_SUCCESS)
    return e;
  if (!pathInfo)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (t->level < 0)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *pathInfo = (nvmlGpuTopologyLevel_t)t->level;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetP2PStatus(nvmlDevice_t device1, nvmlDevice_t device2, nvmlGpuP2PCapsIndex_t p2pIndex,
                                    nvmlGpuP2PStatus_t *p2pStatus)
{
  const struct topo_rec *t;
  nvmlReturn_t e = pair(__func__, device1, device2, args("index=%d", (int)p2pIndex), &t);
  if (e != NVML_SUCCESS)
    return e;
  if (!p2pStatus || (unsigned)p2pIndex >= NVML_P2P_CAPS_INDEX_UNKNOWN)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  int s = t->p2p[p2pIndex];
  *p2pStatus = s < 0 ? NVML_P2P_STATUS_NOT_SUPPORTED : (nvmlGpuP2PStatus_t)s;
  return leave(NVML_SUCCESS);
}

/* ==== only in current drivers ===================================================================== */
#ifndef NVML_DOUBLE_OLD
nvmlReturn_t nvmlInit_v2(void) { return do_init(__func__, 0); }

nvmlReturn_t nvmlInitWithFlags(unsigned int flags) { return do_init(__func__, flags); }

nvmlReturn_t nvmlSystemGetCudaDriverVersion_v2(int *cudaDriverVersion)
{
  return cuda_driver_version(__func__, cudaDriverVersion);
}

nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *deviceCount) { return device_count(__func__, deviceCount); }

nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int index, nvmlDevice_t *device)
{
  return handle_by_index(__func__, index, device);
}

nvmlReturn_t nvmlDeviceGetHandleByPciBusId_v2(const char *pciBusId, nvmlDevice_t *device)
{
  return handle_by_bus_id(__func__, pciBusId, device);
}

nvmlReturn_t nvmlDeviceGetArchitecture(nvmlDevice_t device, nvmlDeviceArchitecture_t *arch)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!arch)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const char *t;
  nvmlReturn_t rc = get_text(d->node, "product_architecture", &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  int a = arch_from_text(t);
  *arch = g_nonsense ? 0xdeadu : a < 0 ? NVML_DEVICE_ARCH_UNKNOWN : (unsigned)a;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetNumGpuCores(nvmlDevice_t device, unsigned int *numCores)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!numCores)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig || gpu_cores(xml_path_text(d->node, "product_name"), numCores))
    return leave(NVML_ERROR_NOT_SUPPORTED);
  if (g_nonsense)
    *numCores = 0;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v2(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
  return pci_info(__func__, device, pci, 0);
}

nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t device, nvmlPciInfo_t *pci)
{
  return pci_info(__func__, device, pci, 1);
}

nvmlReturn_t nvmlDeviceGetMemoryInfo_v2(nvmlDevice_t device, nvmlMemory_v2_t *memory)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!memory)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (memory->version != nvmlMemory_v2)
    return leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  struct mem m;
  nvmlReturn_t rc = mem_of(d, &m);
  if (rc == NVML_SUCCESS) {
    memory->total = m.total;
    memory->reserved = m.reserved;
    memory->free = m.free;
    memory->used = m.used;
  }
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetCurrentClocksEventReasons(nvmlDevice_t device, unsigned long long *reasons)
{
  return clocks_reasons(__func__, device, reasons);
}

nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_v2_t *infos)
{
  return processes(__func__, device, 0, infoCount, infos, 1);
}

/* _v3's rows are nvmlProcessInfo_t, of _v2's layout (nvml_types.h) */
nvmlReturn_t nvmlDeviceGetComputeRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                     nvmlProcessInfo_t *infos)
{
  return processes(__func__, device, 0, infoCount, infos, 1);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v2(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_v2_t *infos)
{
  return processes(__func__, device, 1, infoCount, infos, 1);
}

nvmlReturn_t nvmlDeviceGetGraphicsRunningProcesses_v3(nvmlDevice_t device, unsigned int *infoCount,
                                                      nvmlProcessInfo_t *infos)
{
  return processes(__func__, device, 1, infoCount, infos, 1);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemotePciInfo_v2(nvmlDevice_t device, unsigned int link, nvmlPciInfo_t *pci)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!pci)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  struct pci p;
  nvmlReturn_t rc = link_remote(r, &p);
  if (rc == NVML_SUCCESS)
    put_pci_v3(&p, pci);
  return leave(rc);
}

nvmlReturn_t nvmlDeviceGetNvLinkRemoteDeviceType(nvmlDevice_t device, unsigned int link,
                                                 nvmlIntNvLinkDeviceType_t *pNvLinkDeviceType)
{
  struct nvmlDevice_st *d;
  const struct nvlink_rec *r;
  nvmlReturn_t e = link_rec(__func__, device, link, &d, &r);
  if (e != NVML_SUCCESS)
    return e;
  if (!pNvLinkDeviceType)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *pNvLinkDeviceType = (nvmlIntNvLinkDeviceType_t)r->type;
  return leave(NVML_SUCCESS);
}

/* ---- MIG ---------------------------------------------------------------------------------------- */
nvmlReturn_t nvmlDeviceGetMigMode(nvmlDevice_t device, unsigned int *currentMode, unsigned int *pendingMode)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!currentMode || !pendingMode)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned c, p;
  nvmlReturn_t rc = get_enabled(d->node, "mig_mode/current_mig", &c);
  if (rc == NVML_SUCCESS)
    rc = get_enabled(d->node, "mig_mode/pending_mig", &p);
  if (g_force_mig && d->mig_table) {
    c = p = 1;
    rc = NVML_SUCCESS;
  }
  if (rc == NVML_SUCCESS) {
    *currentMode = g_nonsense ? 3 : c;
    *pendingMode = p;
  }
  return leave(rc);
}

static int mig_enabled(const struct nvmlDevice_st *g)
{
  unsigned c = 0;
  if (g_force_mig && g->mig_table)
    return 1;
  return get_enabled(g->node, "mig_mode/current_mig", &c) == NVML_SUCCESS && c == 1;
}

/* "Returns zero if MIG is not supported or enabled" (NVML reference) */
static unsigned max_mig_devices(const struct nvmlDevice_st *g)
{
  if (!mig_enabled(g))
    return 0;
  return g->mig_table ? g->mig_table->max_devices : 7;
}

nvmlReturn_t nvmlDeviceGetMaxMigDeviceCount(nvmlDevice_t device, unsigned int *count)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!count)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *count = g_nonsense ? 1000 : max_mig_devices(d);
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetMigDeviceHandleByIndex(nvmlDevice_t device, unsigned int index, nvmlDevice_t *migDevice)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("%u", index), d);
  if (!migDevice || d->is_mig)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  unsigned c;
  if (!(g_force_mig && d->mig_table) && get_enabled(d->node, "mig_mode/current_mig", &c) != NVML_SUCCESS)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned max = d->mig_table ? d->mig_table->max_devices : 7;
  if (index >= max)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  for (unsigned j = 0; j < d->nmig; j++)
    if (g_mig[d->index][j].used && g_mig[d->index][j].index == index) {
      *migDevice = &g_mig[d->index][j];
      return leave(NVML_SUCCESS);
    }
  return leave(NVML_ERROR_NOT_FOUND);
}

nvmlReturn_t nvmlDeviceIsMigDeviceHandle(nvmlDevice_t device, unsigned int *isMigDevice)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!isMigDevice)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *isMigDevice = (unsigned)d->is_mig;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceId(nvmlDevice_t device, unsigned int *id)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!id)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (!d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *id = d->gi;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetComputeInstanceId(nvmlDevice_t device, unsigned int *id)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, NULL, d);
  if (!id)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (!d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  *id = d->ci;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetDeviceHandleFromMigDeviceHandle(nvmlDevice_t migDevice, nvmlDevice_t *device)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(migDevice, NULL, d);
  if (!device || !d->is_mig)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *device = d->parent;
  return leave(NVML_SUCCESS);
}

/* the attributes of a MIG device, from its <device_attributes> and its profile */
static nvmlReturn_t attributes(const char *fn, nvmlDevice_t device, nvmlDeviceAttributes_t *a, int v2)
{
  struct nvmlDevice_st *d;
  nvmlReturn_t e = enter(fn, DEV, device, -1, NULL, &d);
  if (e != NVML_SUCCESS)
    return e;
  if (!a)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (!d->is_mig)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  const struct xml_node *s = xml_path(d->node, "device_attributes/shared");
  unsigned sm, ce, dec, enc, jpeg, ofa;
  unsigned long long mem;
  if (d->created) {
    const struct gi_profile *p = &d->parent->mig_table->profiles[d->profile];
    if (v2)
      memset(a, 0, sizeof(*a));
    a->multiprocessorCount = p->sm * d->ci_slices / p->slices;
    a->sharedCopyEngineCount = p->ce;
    a->sharedDecoderCount = p->dec;
    a->sharedEncoderCount = p->enc;
    a->sharedJpegCount = p->jpeg;
    a->sharedOfaCount = p->ofa;
    if (v2) {
      a->gpuInstanceSliceCount = p->slices;
      a->computeInstanceSliceCount = d->ci_slices;
      a->memorySizeMB = p->mem_mib;
    }
    return leave(NVML_SUCCESS);
  }
  nvmlReturn_t rc = get_u32(s, "multiprocessor_count", NULL, &sm);
  if (rc == NVML_SUCCESS)
    rc = get_u32(s, "copy_engine_count", NULL, &ce);
  if (rc == NVML_SUCCESS)
    rc = get_u32(s, "decoder_count", NULL, &dec);
  if (rc == NVML_SUCCESS)
    rc = get_u32(s, "encoder_count", NULL, &enc);
  if (rc == NVML_SUCCESS)
    rc = get_u32(s, "jpg_count", NULL, &jpeg);
  if (rc == NVML_SUCCESS)
    rc = get_u32(s, "ofa_count", NULL, &ofa);
  if (rc == NVML_SUCCESS)
    rc = get_num(d->node, "fb_memory_usage/total", "MiB", 0, &mem);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  /* the base entry point predates the slice counts and memory size: it fills the first
   * six fields only, so a caller with the old, smaller struct is safe */
  if (v2)
    memset(a, 0, sizeof(*a));
  a->multiprocessorCount = g_nonsense ? 0 : sm;
  a->sharedCopyEngineCount = ce;
  a->sharedDecoderCount = dec;
  a->sharedEncoderCount = enc;
  a->sharedJpegCount = jpeg;
  a->sharedOfaCount = ofa;
  if (v2) {
    const struct gi_table *t = d->parent->mig_table;
    if (t && d->profile >= 0) {
      const struct gi_profile *p = &t->profiles[d->profile];
      unsigned per = p->sm / p->slices;
      a->gpuInstanceSliceCount = p->slices;
      a->computeInstanceSliceCount = sm >= p->sm ? p->slices : (sm + per - 1) / per;
    }
    a->memorySizeMB = g_nonsense ? ~0ULL : mem;
  }
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetAttributes(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
  return attributes(__func__, device, attributes_, 0);
}

nvmlReturn_t nvmlDeviceGetAttributes_v2(nvmlDevice_t device, nvmlDeviceAttributes_t *attributes_)
{
  return attributes(__func__, device, attributes_, 1);
}

/* the profile table of a GPU with MIG enabled, or an error */
static nvmlReturn_t profile_table(const struct nvmlDevice_st *d, const struct gi_table **t)
{
  if (d->is_mig || !d->mig_table || !mig_enabled(d))
    return NVML_ERROR_NOT_SUPPORTED;
  *t = d->mig_table;
  return NVML_SUCCESS;
}

static void fill_profile(const struct gi_profile *p, unsigned *id, unsigned *p2p, unsigned *slices,
                         unsigned *instances, unsigned *sm, unsigned *ce, unsigned *dec, unsigned *enc,
                         unsigned *jpeg, unsigned *ofa, unsigned long long *mem)
{
  *id = p->id;
  *p2p = 0;
  *slices = p->slices;
  *instances = p->instances;
  *sm = p->sm;
  *ce = p->ce;
  *dec = p->dec;
  *enc = p->enc;
  *jpeg = p->jpeg;
  *ofa = p->ofa;
  *mem = p->mem_mib;
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfo(nvmlDevice_t device, unsigned int profile,
                                                 nvmlGpuInstanceProfileInfo_t *info)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("profile=%u", profile), d);
  if (!info || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct gi_table *t;
  nvmlReturn_t rc = profile_table(d, &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  const struct gi_profile *p = mig_profile_by_enum(t, profile);
  if (!p)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  memset(info, 0, sizeof(*info));
  fill_profile(p, &info->id, &info->isP2pSupported, &info->sliceCount, &info->instanceCount,
               &info->multiprocessorCount, &info->copyEngineCount, &info->decoderCount, &info->encoderCount,
               &info->jpegCount, &info->ofaCount, &info->memorySizeMB);
  if (g_nonsense)
    info->memorySizeMB = 0;
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceProfileInfoV(nvmlDevice_t device, unsigned int profile,
                                                  nvmlGpuInstanceProfileInfo_v2_t *info)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("profile=%u", profile), d);
  if (!info || profile >= NVML_GPU_INSTANCE_PROFILE_COUNT)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  if (info->version != nvmlGpuInstanceProfileInfo_v2)
    return leave(NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  const struct gi_table *t;
  nvmlReturn_t rc = profile_table(d, &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  const struct gi_profile *p = mig_profile_by_enum(t, profile);
  if (!p)
    return leave(NVML_ERROR_NOT_SUPPORTED);
  unsigned version = info->version;
  memset(info, 0, sizeof(*info));
  info->version = version;
  fill_profile(p, &info->id, &info->isP2pSupported, &info->sliceCount, &info->instanceCount,
               &info->multiprocessorCount, &info->copyEngineCount, &info->decoderCount, &info->encoderCount,
               &info->jpegCount, &info->ofaCount, &info->memorySizeMB);
  if (g_nonsense)
    nonsense_fill(info->name, sizeof(info->name));
  else
    snprintf(info->name, sizeof(info->name), "MIG %s", p->name);
  return leave(NVML_SUCCESS);
}

nvmlReturn_t nvmlDeviceGetGpuInstanceRemainingCapacity(nvmlDevice_t device, unsigned int profileId,
                                                       unsigned int *count)
{
  struct nvmlDevice_st *d;
  ENTER_DEV(device, args("profileId=%u", profileId), d);
  if (!count)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  const struct gi_table *t;
  nvmlReturn_t rc = profile_table(d, &t);
  if (rc != NVML_SUCCESS)
    return leave(rc);
  const struct gi_profile *p = mig_profile_by_id(t, profileId);
  if (!p)
    return leave(NVML_ERROR_INVALID_ARGUMENT);
  *count = mig_remaining(t, d->gi_profile, d->ngi, (int)(p - t->profiles));
  return leave(NVML_SUCCESS);
}
#endif /* NVML_DOUBLE_OLD */

#include "mig_ctl.inc"
#include "events.inc"

