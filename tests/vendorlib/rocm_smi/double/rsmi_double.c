/* A test double of AMD's ROCm SMI library (librocm_smi64.so.N) that answers from a
 * captured `rocm-smi --showallinfo --json` document and an optional extra file.
 * README.md describes the environment variables, the extra file and every entry point.
 * Built twice: as ROCm SMI 7 (ROCm 6.x: SONAME librocm_smi64.so.7, the ROCm 6 layout of
 * rsmi_frequencies_t, partition calls) and with -DRSMI_DOUBLE_OLD as ROCm SMI 5 (ROCm
 * 5.7: SONAME librocm_smi64.so.5, the ROCm 5 layout, none of the later entry points). */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "jsonr.h"
#include "rsmi_types.h"

#define API __attribute__((visibility("default")))
#define MAX_GPUS 64
#define MAX_LEVELS 40
#define HANG_SECONDS 3600

/* ---- the model ----------------------------------------------------------------------------- */
struct clock {
  int has;           /* from the extra file */
  unsigned n;
  uint64_t mhz[MAX_LEVELS];
  int has_current;
  unsigned current;
  int deep_sleep;
};

struct gpu {
  const struct axl__jv *card;
  char key[16]; /* "card3" */
  int has_bdf;
  uint64_t bdf;
  struct clock clk[5]; /* by rsmi_clk_type_t: SYS DF DCEF SOC MEM */
  int has_pdef, has_pmin, has_pmax;
  uint64_t pdef, pmin, pmax; /* microwatts */
  char compute[16], memory[16];
  int has_hive;
  uint64_t hive;
};

struct link {
  int has_type, has_hops, has_weight, has_bw, has_p2p;
  unsigned type, p2p;
  uint64_t hops, weight, bw_min, bw_max;
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static unsigned g_refs; /* rsmi_init minus rsmi_shut_down */
static struct axl__jdoc *g_doc;
static const struct axl__jv *g_system;
static struct gpu g_gpu[MAX_GPUS];
static unsigned g_n;
static struct link g_link[MAX_GPUS][MAX_GPUS];
static unsigned g_version[3];

/* ---- behaviour switches (environment, read by rsmi_init) --------------------------------------- */
struct fail_rule {
  char name[96];
  int index; /* -1: any device */
  rsmi_status_t code;
};
static struct fail_rule g_fail[64];
static unsigned g_nfail;
static char g_hang[32][96];
static unsigned g_nhang;
static int g_nonsense;

static const struct {
  rsmi_status_t code;
  const char *name;
  const char *text;
} statuses[] = {
	{ RSMI_STATUS_SUCCESS, "SUCCESS", "RSMI_STATUS_SUCCESS: The function has been executed successfully." },
	{ RSMI_STATUS_INVALID_ARGS, "INVALID_ARGS",
	  "RSMI_STATUS_INVALID_ARGS: The provided arguments do not meet the preconditions required for input." },
	{ RSMI_STATUS_NOT_SUPPORTED, "NOT_SUPPORTED",
	  "RSMI_STATUS_NOT_SUPPORTED: This function is not supported in the current environment." },
	{ RSMI_STATUS_FILE_ERROR, "FILE_ERROR",
	  "RSMI_STATUS_FILE_ERROR: There was an error in finding or opening a file or directory." },
	{ RSMI_STATUS_PERMISSION, "PERMISSION",
	  "RSMI_STATUS_PERMISSION: The user ID of the calling process does not have sufficient permission to execute a "
	  "command." },
	{ RSMI_STATUS_OUT_OF_RESOURCES, "OUT_OF_RESOURCES",
	  "RSMI_STATUS_OUT_OF_RESOURCES: Unable to acquire memory or other resource" },
	{ RSMI_STATUS_INTERNAL_EXCEPTION, "INTERNAL_EXCEPTION",
	  "RSMI_STATUS_INTERNAL_EXCEPTION: An internal exception was caught" },
	{ RSMI_STATUS_INPUT_OUT_OF_BOUNDS, "INPUT_OUT_OF_BOUNDS",
	  "RSMI_STATUS_INPUT_OUT_OF_BOUNDS: The provided input is out of allowable or safe range" },
	{ RSMI_STATUS_INIT_ERROR, "INIT_ERROR", "RSMI_STATUS_INIT_ERROR: An error occurred during initialization" },
	{ RSMI_STATUS_NOT_YET_IMPLEMENTED, "NOT_YET_IMPLEMENTED",
	  "RSMI_STATUS_NOT_YET_IMPLEMENTED: The called function has not been implemented in this system" },
	{ RSMI_STATUS_NOT_FOUND, "NOT_FOUND",
	  "RSMI_STATUS_NOT_FOUND: An item required to complete the call was not found" },
	{ RSMI_STATUS_INSUFFICIENT_SIZE, "INSUFFICIENT_SIZE",
	  "RSMI_STATUS_INSUFFICIENT_SIZE: Not enough resources were available to fully execute the call" },
	{ RSMI_STATUS_INTERRUPT, "INTERRUPT",
	  "RSMI_STATUS_INTERRUPT: An interrupt occurred while executing the function" },
	{ RSMI_STATUS_UNEXPECTED_SIZE, "UNEXPECTED_SIZE",
	  "RSMI_STATUS_UNEXPECTED_SIZE: Data (usually from reading a file) was out of range" },
	{ RSMI_STATUS_NO_DATA, "NO_DATA", "RSMI_STATUS_NO_DATA: No data was found for a given input" },
	{ RSMI_STATUS_UNEXPECTED_DATA, "UNEXPECTED_DATA",
	  "RSMI_STATUS_UNEXPECTED_DATA: The data read or provided was not what was expected" },
	{ RSMI_STATUS_BUSY, "BUSY",
	  "RSMI_STATUS_BUSY: A resource or mutex could not be acquired because it is already being used" },
	{ RSMI_STATUS_REFCOUNT_OVERFLOW, "REFCOUNT_OVERFLOW",
	  "RSMI_STATUS_REFCOUNT_OVERFLOW: An internal reference counter exceeded INT32_MAX" },
	{ RSMI_STATUS_SETTING_UNAVAILABLE, "SETTING_UNAVAILABLE",
	  "RSMI_STATUS_SETTING_UNAVAILABLE: Requested setting is unavailable for the current device" },
	{ RSMI_STATUS_AMDGPU_RESTART_ERR, "AMDGPU_RESTART_ERR",
	  "RSMI_STATUS_AMDGPU_RESTART_ERR: Could not successfully restart the amdgpu driver" },
#if AXL_ABI_HAVE(60400)
	{ RSMI_STATUS_DRM_ERROR, "DRM_ERROR", "RSMI_STATUS_DRM_ERROR: Error when calling libdrm" },
	{ RSMI_STATUS_FAIL_LOAD_MODULE, "FAIL_LOAD_MODULE", "RSMI_STATUS_FAIL_LOAD_MODULE: Fail to load lib" },
	{ RSMI_STATUS_FAIL_LOAD_SYMBOL, "FAIL_LOAD_SYMBOL", "RSMI_STATUS_FAIL_LOAD_SYMBOL: Fail to load symbol" },
#endif
	{ RSMI_STATUS_UNKNOWN_ERROR, "UNKNOWN_ERROR", "RSMI_STATUS_UNKNOWN_ERROR: An unknown error occurred" },
};

static int parse_code(const char *s, rsmi_status_t *out)
{
  if (strncmp(s, "RSMI_STATUS_", 12) == 0)
    s += 12;
  for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
    if (strcmp(statuses[i].name, s) == 0) {
      *out = statuses[i].code;
      return 0;
    }
  if (*s < '0' || *s > '9')
    return -1;
  char *end;
  errno = 0;
  long v = strtol(s, &end, 10);
  if (errno || *end || v > 100000)
    return -1;
  *out = (rsmi_status_t)v;
  return 0;
}

static void complain(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void complain(const char *fmt, ...)
{
  va_list ap;
  va_start(ap, fmt);
  fprintf(stderr, "rsmi_double: ");
  vfprintf(stderr, fmt, ap);
  fprintf(stderr, "\n");
  va_end(ap);
}

/* AXL_RSMI_DOUBLE_FAIL, _HANG, _NONSENSE, _VERSION; with the lock held */
static int parse_rules(void)
{
  g_nfail = 0;
  g_nhang = 0;
  const char *ns = getenv("AXL_RSMI_DOUBLE_NONSENSE");
  g_nonsense = ns && strcmp(ns, "1") == 0;
#ifdef RSMI_DOUBLE_OLD
  g_version[0] = 5, g_version[1] = 7, g_version[2] = 1;
#else
  g_version[0] = 7, g_version[1] = 3, g_version[2] = 0;
#endif
  const char *ver = getenv("AXL_RSMI_DOUBLE_VERSION");
  if (ver && *ver) {
    char tail;
    if (sscanf(ver, "%u.%u.%u%c", &g_version[0], &g_version[1], &g_version[2], &tail) != 3) {
      complain("AXL_RSMI_DOUBLE_VERSION: '%s' is not MAJOR.MINOR.PATCH", ver);
      return -1;
    }
  }
  const char *fail = getenv("AXL_RSMI_DOUBLE_FAIL");
  if (fail && *fail) {
    char buf[4096];
    if (strlen(fail) >= sizeof(buf)) {
      complain("AXL_RSMI_DOUBLE_FAIL is too long");
      return -1;
    }
    strcpy(buf, fail);
    for (char *save = NULL, *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
      char *eq = strchr(item, '=');
      if (!eq || eq == item || g_nfail == sizeof(g_fail) / sizeof(g_fail[0])) {
        complain("AXL_RSMI_DOUBLE_FAIL: bad item '%s' (name[@index]=CODE)", item);
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
          complain("AXL_RSMI_DOUBLE_FAIL: bad index '%s'", at + 1);
          return -1;
        }
        r->index = (int)idx;
      }
      if (strlen(item) >= sizeof(r->name) || parse_code(eq + 1, &r->code)) {
        complain("AXL_RSMI_DOUBLE_FAIL: bad item '%s=%s'", item, eq + 1);
        return -1;
      }
      strcpy(r->name, item);
      g_nfail++;
    }
  }
  const char *hang = getenv("AXL_RSMI_DOUBLE_HANG");
  if (hang && *hang) {
    const char *p = hang;
    while (*p) {
      size_t n = strcspn(p, ",");
      if (n == 0 || n >= sizeof(g_hang[0]) || g_nhang == sizeof(g_hang) / sizeof(g_hang[0])) {
        complain("AXL_RSMI_DOUBLE_HANG: bad list '%s'", hang);
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

/* exact names win over '*', which matches every function taking a device index */
static int fail_match(const char *fn, int takes_device, int index, rsmi_status_t *code)
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

/* ---- the call log (AXL_RSMI_DOUBLE_LOG) ----------------------------------------------------- */
static void log_call(const char *fn, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void log_call(const char *fn, const char *fmt, ...)
{
  const char *path = getenv("AXL_RSMI_DOUBLE_LOG");
  if (!path || !*path)
    return;
  char a[200], line[320];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(a, sizeof(a), fmt, ap);
  va_end(ap);
  int n = snprintf(line, sizeof(line), "%s(%s)\n", fn, a);
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

/* ---- reading the capture ---------------------------------------------------------------------- */

/* A card's value for the first of the keys it has, as the capture wrote it. */
static const char *val(const struct axl__jv *obj, const char *const *keys)
{
  for (; *keys; keys++) {
    const char *s = axl__jv_str(obj, *keys);
    if (s)
      return s;
  }
  return NULL;
}
#define VAL(obj, ...) val(obj, (const char *const[]){__VA_ARGS__, NULL})

/* rocm-smi's spellings of "there is no value" */
static int absent(const char *s)
{
  if (!s)
    return 1;
  while (*s == ' ')
    s++;
  return !*s || strncmp(s, "N/A", 3) == 0 || strcmp(s, "Unsupported") == 0 || strcmp(s, "unknown") == 0;
}

static int parse_u64(const char *s, int base, uint64_t *out)
{
  if (absent(s))
    return -1;
  while (*s == ' ')
    s++;
  if (base == 16 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
    s += 2;
  if (!isxdigit((unsigned char)*s))
    return -1;
  char *end;
  errno = 0;
  unsigned long long v = strtoull(s, &end, base);
  while (*end == ' ')
    end++;
  if (errno || *end)
    return -1;
  *out = v;
  return 0;
}

/* "290.0" watts -> microwatts, exactly (no floating point) */
static int parse_watts(const char *s, uint64_t *uw)
{
  if (absent(s))
    return -1;
  uint64_t whole = 0, frac = 0;
  int digits = 0;
  const char *p = s;
  if (!isdigit((unsigned char)*p))
    return -1;
  while (isdigit((unsigned char)*p))
    whole = whole * 10 + (uint64_t)(*p++ - '0');
  if (*p == '.') {
    p++;
    while (isdigit((unsigned char)*p)) {
      if (digits < 6) {
        frac = frac * 10 + (uint64_t)(*p - '0');
        digits++;
      }
      p++;
    }
  }
  if (*p)
    return -1;
  while (digits++ < 6)
    frac *= 10;
  *uw = whole * 1000000 + frac;
  return 0;
}

/* "(1402Mhz)" or "1402Mhz" -> 1402 */
static int parse_mhz(const char *s, uint64_t *mhz)
{
  if (absent(s))
    return -1;
  if (*s == '(')
    s++;
  char *end;
  unsigned long long v = strtoull(s, &end, 10);
  if (end == s || strncasecmp(end, "mhz", 3) != 0)
    return -1;
  *mhz = v;
  return 0;
}

static int parse_bdf(const char *s, uint64_t *bdf)
{
  unsigned dom, bus, dev, fn;
  char tail;
  if (absent(s) || sscanf(s, "%x:%x:%x.%x%c", &dom, &bus, &dev, &fn, &tail) != 4 || bus > 0xff || dev > 0x1f || fn > 7)
    return -1;
  *bdf = (uint64_t)dom << 32 | bus << 8 | dev << 3 | fn;
  return 0;
}

/* A device index of the capture's "... between DRM devices A and B" keys. */
static struct link *pair(unsigned a, unsigned b)
{
  return a < b ? &g_link[a][b] : &g_link[b][a];
}

static void read_topology(void)
{
  if (!g_system || g_system->type != AXL__J_OBJ)
    return;
  for (size_t k = 0; k < g_system->len; k++) {
    const char *key = g_system->keys[k];
    const struct axl__jv *v = &g_system->items[k];
    unsigned a, b;
    char what[32];
    if (v->type != AXL__J_STR)
      continue;
    if (sscanf(key, "(Topology) Link type between DRM devices %u and %u", &a, &b) == 2)
      snprintf(what, sizeof(what), "Link");
    else if (sscanf(key, "(Topology) %31s between DRM devices %u and %u", what, &a, &b) != 3)
      continue;
    if (a >= MAX_GPUS || b >= MAX_GPUS || a == b)
      continue;
    struct link *l = pair(a, b);
    uint64_t x;
    if (strcmp(what, "Weight") == 0 && parse_u64(v->s, 10, &x) == 0) {
      l->has_weight = 1;
      l->weight = x;
    } else if (strcmp(what, "Hops") == 0 && parse_u64(v->s, 10, &x) == 0) {
      l->has_hops = 1;
      l->hops = x;
    } else if (strcmp(what, "Link") == 0) {
      /* "(Topology) Link type between DRM devices 0 and 1": "PCIE" / "XGMI" */
      l->has_type = 1;
      l->type = strcmp(v->s, "XGMI") == 0 ? RSMI_IOLINK_TYPE_XGMI
                : strcmp(v->s, "PCIE") == 0 ? RSMI_IOLINK_TYPE_PCIEXPRESS
                                            : RSMI_IOLINK_TYPE_UNDEFINED;
    }
  }
}

/* ---- the extra file (AXL_RSMI_DOUBLE_EXTRA) ------------------------------------------------------ */

/* the GPUs a selector names: "*" every one, "cardN" the capture's cardN, else every one
 * at that PCI address (all partitions of a GPU) */
static int select_gpus(const char *sel, int *out)
{
  int n = 0;
  uint64_t bdf = 0;
  int any = strcmp(sel, "*") == 0, card = strncmp(sel, "card", 4) == 0;
  if (!any && !card && parse_bdf(sel, &bdf))
    return -1;
  for (unsigned i = 0; i < g_n; i++)
    if (any || (card && strcmp(g_gpu[i].key, sel) == 0) ||
        (!card && g_gpu[i].has_bdf && (g_gpu[i].bdf & ~0xf0000000ull) == bdf))
      out[n++] = (int)i;
  if (card && n == 0)
    return -1;
  return n;
}

static int kv(const char *tok, const char *key, const char **v)
{
  size_t n = strlen(key);
  if (strncmp(tok, key, n) == 0 && tok[n] == '=') {
    *v = tok + n + 1;
    return 1;
  }
  return 0;
}

static int extra_line(char *line, unsigned lineno)
{
  char *tok[24];
  int nt = 0;
  for (char *save = NULL, *t = strtok_r(line, " \t", &save); t && nt < 24; t = strtok_r(NULL, " \t", &save))
    tok[nt++] = t;
  if (nt == 0)
    return 0;
  int sel[MAX_GPUS], ns;
  if (nt < 2 || (ns = select_gpus(tok[1], sel)) < 0) {
    complain("extra line %u: '%s' needs a PCI address or '*'", lineno, tok[0]);
    return -1;
  }
  const char *v;
  uint64_t x;
  if (strcmp(tok[0], "clocks") == 0) {
    if (nt < 3 || (strcmp(tok[2], "sys") && strcmp(tok[2], "mem"))) {
      complain("extra line %u: clocks <bdf> sys|mem levels=...", lineno);
      return -1;
    }
    int type = strcmp(tok[2], "sys") == 0 ? 0 : 4;
    struct clock c = {.has = 1};
    for (int t = 3; t < nt; t++) {
      if (kv(tok[t], "levels", &v)) {
        char buf[512];
        snprintf(buf, sizeof(buf), "%s", v);
        for (char *s2 = NULL, *m = strtok_r(buf, ",", &s2); m; m = strtok_r(NULL, ",", &s2)) {
          if (c.n == MAX_LEVELS || parse_u64(m, 10, &c.mhz[c.n])) {
            complain("extra line %u: bad level '%s'", lineno, m);
            return -1;
          }
          c.n++;
        }
      } else if (kv(tok[t], "current", &v) && parse_u64(v, 10, &x) == 0) {
        c.has_current = 1;
        c.current = (unsigned)x;
      } else if (kv(tok[t], "deep_sleep", &v)) {
        c.deep_sleep = strcmp(v, "1") == 0;
      } else {
        complain("extra line %u: bad field '%s'", lineno, tok[t]);
        return -1;
      }
    }
    for (int i = 0; i < ns; i++)
      g_gpu[sel[i]].clk[type] = c;
  } else if (strcmp(tok[0], "power") == 0) {
    for (int t = 2; t < nt; t++) {
      uint64_t uw;
      int which = kv(tok[t], "default", &v) ? 0 : kv(tok[t], "min", &v) ? 1 : kv(tok[t], "max", &v) ? 2 : -1;
      if (which < 0 || parse_watts(v, &uw)) {
        complain("extra line %u: bad field '%s'", lineno, tok[t]);
        return -1;
      }
      for (int i = 0; i < ns; i++) {
        struct gpu *g = &g_gpu[sel[i]];
        if (which == 0)
          g->has_pdef = 1, g->pdef = uw;
        else if (which == 1)
          g->has_pmin = 1, g->pmin = uw;
        else
          g->has_pmax = 1, g->pmax = uw;
      }
    }
  } else if (strcmp(tok[0], "partition") == 0) {
    for (int t = 2; t < nt; t++) {
      for (int i = 0; i < ns; i++) {
        struct gpu *g = &g_gpu[sel[i]];
        if (kv(tok[t], "compute", &v))
          snprintf(g->compute, sizeof(g->compute), "%s", v);
        else if (kv(tok[t], "memory", &v))
          snprintf(g->memory, sizeof(g->memory), "%s", v);
        else if (kv(tok[t], "id", &v) && parse_u64(v, 10, &x) == 0 && x < 16)
          g->bdf = (g->bdf & ~0xf0000000ull) | x << 28;
        else {
          complain("extra line %u: bad field '%s'", lineno, tok[t]);
          return -1;
        }
      }
    }
  } else if (strcmp(tok[0], "hive") == 0) {
    if (nt != 3 || parse_u64(tok[2], 16, &x)) {
      complain("extra line %u: hive <bdf> 0xID", lineno);
      return -1;
    }
    for (int i = 0; i < ns; i++)
      g_gpu[sel[i]].has_hive = 1, g_gpu[sel[i]].hive = x;
  } else if (strcmp(tok[0], "link") == 0) {
    int sel2[MAX_GPUS], ns2;
    if (nt < 3 || (ns2 = select_gpus(tok[2], sel2)) < 0) {
      complain("extra line %u: link <bdf|*> <bdf|*> ...", lineno);
      return -1;
    }
    struct link add = {0};
    for (int t = 3; t < nt; t++) {
      if (kv(tok[t], "type", &v)) {
        add.has_type = 1;
	add.type = strcmp(v, "xgmi") == 0   ? RSMI_IOLINK_TYPE_XGMI
		   : strcmp(v, "pcie") == 0 ? RSMI_IOLINK_TYPE_PCIEXPRESS
					    : 0;
      } else if (kv(tok[t], "hops", &v) && parse_u64(v, 10, &x) == 0) {
        add.has_hops = 1, add.hops = x;
      } else if (kv(tok[t], "weight", &v) && parse_u64(v, 10, &x) == 0) {
        add.has_weight = 1, add.weight = x;
      } else if (kv(tok[t], "min", &v) && parse_u64(v, 10, &x) == 0) {
        add.has_bw = 1, add.bw_min = x;
      } else if (kv(tok[t], "max", &v) && parse_u64(v, 10, &x) == 0) {
        add.has_bw = 1, add.bw_max = x;
      } else if (kv(tok[t], "p2p", &v) && parse_u64(v, 10, &x) == 0 && x <= 1) {
        add.has_p2p = 1, add.p2p = (unsigned)x;
      } else {
        complain("extra line %u: bad field '%s'", lineno, tok[t]);
        return -1;
      }
    }
    for (int i = 0; i < ns; i++)
      for (int k = 0; k < ns2; k++) {
        if (sel[i] == sel2[k])
          continue;
        struct link *l = pair((unsigned)sel[i], (unsigned)sel2[k]);
        if (add.has_type)
          l->has_type = 1, l->type = add.type;
        if (add.has_hops)
          l->has_hops = 1, l->hops = add.hops;
        if (add.has_weight)
          l->has_weight = 1, l->weight = add.weight;
        if (add.has_bw)
          l->has_bw = 1, l->bw_min = add.bw_min, l->bw_max = add.bw_max;
        if (add.has_p2p)
          l->has_p2p = 1, l->p2p = add.p2p;
      }
  } else {
    complain("extra line %u: unknown record '%s'", lineno, tok[0]);
    return -1;
  }
  return 0;
}

static int read_extra(const char *path)
{
  FILE *f = fopen(path, "r");
  if (!f) {
    complain("%s: %s", path, strerror(errno));
    return -1;
  }
  char line[2048];
  unsigned lineno = 0;
  int rc = 0;
  while (rc == 0 && fgets(line, sizeof(line), f)) {
    lineno++;
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    line[strcspn(line, "\r\n")] = '\0';
    rc = extra_line(line, lineno);
  }
  fclose(f);
  return rc;
}

static int card_order(const void *a, const void *b)
{
  const struct gpu *x = a, *y = b;
  unsigned nx = (unsigned)strtoul(x->key + 4, NULL, 10), ny = (unsigned)strtoul(y->key + 4, NULL, 10);
  return nx < ny ? -1 : nx > ny;
}

/* Load the capture (and the extra file); with the lock held. */
static rsmi_status_t load(void)
{
  axl__jdoc_free(g_doc);
  g_doc = NULL;
  g_system = NULL;
  g_n = 0;
  memset(g_gpu, 0, sizeof(g_gpu));
  memset(g_link, 0, sizeof(g_link));
  if (parse_rules())
    return RSMI_STATUS_INIT_ERROR;
  const char *path = getenv("AXL_RSMI_DOUBLE_JSON");
  if (!path || !*path)
    return RSMI_STATUS_SUCCESS; /* a node without AMD GPUs: no devices */
  FILE *f = fopen(path, "rb");
  if (!f) {
    complain("%s: %s", path, strerror(errno));
    return RSMI_STATUS_INIT_ERROR;
  }
  static char text[4 << 20];
  size_t len = fread(text, 1, sizeof(text), f);
  fclose(f);
  char err[160];
  if (axl__jdoc_parse(text, len, &g_doc, err, sizeof(err))) {
    complain("%s: %s", path, err);
    return RSMI_STATUS_INIT_ERROR;
  }
  const struct axl__jv *root = axl__jdoc_root(g_doc);
  if (root->type != AXL__J_OBJ) {
    complain("%s: not a rocm-smi --json document", path);
    return RSMI_STATUS_INIT_ERROR;
  }
  for (size_t k = 0; k < root->len; k++) {
    const char *key = root->keys[k];
    if (strcmp(key, "system") == 0) {
      g_system = &root->items[k];
      continue;
    }
    if (strncmp(key, "card", 4) || !isdigit((unsigned char)key[4]) || root->items[k].type != AXL__J_OBJ)
      continue;
    if (g_n == MAX_GPUS)
      break;
    struct gpu *g = &g_gpu[g_n++];
    g->card = &root->items[k];
    snprintf(g->key, sizeof(g->key), "%.15s", key);
  }
  qsort(g_gpu, g_n, sizeof(g_gpu[0]), card_order);
  for (unsigned i = 0; i < g_n; i++)
    g_gpu[i].has_bdf = parse_bdf(VAL(g_gpu[i].card, "PCI Bus"), &g_gpu[i].bdf) == 0;
  read_topology();
  const char *extra = getenv("AXL_RSMI_DOUBLE_EXTRA");
  if (extra && *extra && read_extra(extra))
    return RSMI_STATUS_INIT_ERROR;
  return RSMI_STATUS_SUCCESS;
}

/* ---- entering and leaving a call ----------------------------------------------------------------- */
#define NODEV (-1)

/* Hangs or fails the call on request, checks initialisation and the device index. On
 * RSMI_STATUS_SUCCESS the lock is held and the caller must end with leave(). */
static rsmi_status_t enter(const char *fn, int dv)
{
  pthread_mutex_lock(&g_lock);
  int hang = g_refs && hang_match(fn, dv != NODEV);
  pthread_mutex_unlock(&g_lock);
  if (hang)
    hang_sleep();
  pthread_mutex_lock(&g_lock);
  if (!g_refs) {
    pthread_mutex_unlock(&g_lock);
    return RSMI_STATUS_INIT_ERROR;
  }
  if (dv != NODEV && (unsigned)dv >= g_n) {
    pthread_mutex_unlock(&g_lock);
    return RSMI_STATUS_INVALID_ARGS;
  }
  rsmi_status_t code;
  if (fail_match(fn, dv != NODEV, dv, &code)) {
    pthread_mutex_unlock(&g_lock);
    return code;
  }
  return RSMI_STATUS_SUCCESS;
}

static rsmi_status_t leave(rsmi_status_t r)
{
  pthread_mutex_unlock(&g_lock);
  return r;
}

#define ENTER(dv)                                  \
  do {                                             \
    rsmi_status_t e_ = enter(__func__, (int)(dv)); \
    if (e_ != RSMI_STATUS_SUCCESS)                 \
      return e_;                                   \
  } while (0)

/* A string answer into buf[len]: ROCm SMI copies what fits, terminates it and says
 * INSUFFICIENT_SIZE when it did not all fit. NONSENSE: the whole buffer, unterminated. */
static rsmi_status_t put_str(char *buf, size_t len, const char *s)
{
  if (!buf || len == 0)
    return RSMI_STATUS_INVALID_ARGS;
  if (g_nonsense) {
    static const char junk[] = "\xff\xfe\xc3(\x01\x1b[2J\x7f";
    for (size_t i = 0; i < len; i++)
      buf[i] = junk[i % (sizeof(junk) - 1)];
    return RSMI_STATUS_SUCCESS;
  }
  if (absent(s))
    return RSMI_STATUS_NOT_SUPPORTED;
  size_t n = strlen(s);
  size_t c = n < len - 1 ? n : len - 1;
  memcpy(buf, s, c);
  buf[c] = '\0';
  return n + 1 > len ? RSMI_STATUS_INSUFFICIENT_SIZE : RSMI_STATUS_SUCCESS;
}

/* ---- entry points ------------------------------------------------------------------------------ */

API rsmi_status_t rsmi_init(uint64_t flags)
{
  log_call(__func__, "flags=0x%" PRIx64, flags);
  pthread_mutex_lock(&g_lock);
  int hang = hang_match(__func__, 0);
  pthread_mutex_unlock(&g_lock);
  if (hang)
    hang_sleep();
  pthread_mutex_lock(&g_lock);
  rsmi_status_t r = RSMI_STATUS_SUCCESS;
  if (g_refs == 0)
    r = load();
  if (r == RSMI_STATUS_SUCCESS) {
    rsmi_status_t code;
    if (fail_match(__func__, 0, -1, &code))
      r = code;
  }
  if (r == RSMI_STATUS_SUCCESS)
    g_refs++;
  pthread_mutex_unlock(&g_lock);
  return r;
}

API rsmi_status_t rsmi_shut_down(void)
{
  log_call(__func__, "%s", "");
  pthread_mutex_lock(&g_lock);
  rsmi_status_t r = RSMI_STATUS_SUCCESS;
  if (g_refs == 0)
    r = RSMI_STATUS_INIT_ERROR;
  else
    g_refs--;
  pthread_mutex_unlock(&g_lock);
  return r;
}

API rsmi_status_t rsmi_status_string(rsmi_status_t status, const char **str)
{
  if (!str)
    return RSMI_STATUS_INVALID_ARGS;
  for (size_t i = 0; i < sizeof(statuses) / sizeof(statuses[0]); i++)
    if (statuses[i].code == status) {
      *str = statuses[i].text;
      return RSMI_STATUS_SUCCESS;
    }
  *str = "An unknown error occurred";
  return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_version_get(rsmi_version_t *v)
{
  log_call(__func__, "%s", "");
  ENTER(NODEV);
  if (!v)
    return leave(RSMI_STATUS_INVALID_ARGS);
  v->major = g_version[0];
  v->minor = g_version[1];
  v->patch = g_version[2];
  v->build = "rsmi_double";
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_version_str_get(rsmi_sw_component_t component, char *buf, uint32_t len)
{
  log_call(__func__, "component=%d, len=%u", (int)component, len);
  ENTER(NODEV);
  if (component != RSMI_SW_COMP_DRIVER)
    return leave(RSMI_STATUS_INVALID_ARGS);
  return leave(put_str(buf, len, VAL(g_system, "Driver version")));
}

API rsmi_status_t rsmi_num_monitor_devices(uint32_t *n)
{
  log_call(__func__, "%s", "");
  ENTER(NODEV);
  if (!n)
    return leave(RSMI_STATUS_INVALID_ARGS);
  *n = g_n;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_dev_pci_id_get(uint32_t dv, uint64_t *bdfid)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!bdfid)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (!g_gpu[dv].has_bdf)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  /* NONSENSE keeps the address (the other answers must meet the GPU) */
  *bdfid = g_gpu[dv].bdf;
  return leave(RSMI_STATUS_SUCCESS);
}

static rsmi_status_t hex16(uint32_t dv, uint16_t *out, const char *s)
{
  if (!out)
    return RSMI_STATUS_INVALID_ARGS;
  if (g_nonsense) {
    *out = 0xffff;
    return RSMI_STATUS_SUCCESS;
  }
  uint64_t v;
  (void)dv;
  if (parse_u64(s, 16, &v) || v > 0xffff)
    return RSMI_STATUS_NOT_SUPPORTED;
  *out = (uint16_t)v;
  return RSMI_STATUS_SUCCESS;
}

API rsmi_status_t rsmi_dev_id_get(uint32_t dv, uint16_t *id)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  return leave(hex16(dv, id, VAL(g_gpu[dv].card, "Device ID", "GPU ID")));
}

API rsmi_status_t rsmi_dev_vendor_id_get(uint32_t dv, uint16_t *id)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  const char *vendor = VAL(g_gpu[dv].card, "Card vendor", "Card Vendor");
  const char *hex = NULL;
  if (vendor && strstr(vendor, "Advanced Micro Devices"))
    hex = "0x1002";
  else if (vendor && strncmp(vendor, "0x", 2) == 0)
    hex = vendor; /* rocm-smi printed the id: pci.ids did not know it */
  return leave(hex16(dv, id, hex));
}

#ifndef RSMI_DOUBLE_OLD
API rsmi_status_t rsmi_dev_revision_get(uint32_t dv, uint16_t *rev)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  return leave(hex16(dv, rev, VAL(g_gpu[dv].card, "Device Rev")));
}
#endif

API rsmi_status_t rsmi_dev_name_get(uint32_t dv, char *name, size_t len)
{
  log_call(__func__, "%u, len=%zu", dv, len);
  ENTER(dv);
  return leave(put_str(name, len, VAL(g_gpu[dv].card, "Device Name", "Card series", "Card Series")));
}

/* rsmi_dev_brand_get: the SKU (the VBIOS version's middle part) names a few boards
 * ("mi25", "mi50", "mi60"); every other board answers its marketing name. */
API rsmi_status_t rsmi_dev_brand_get(uint32_t dv, char *brand, uint32_t len)
{
  log_call(__func__, "%u, len=%u", dv, len);
  ENTER(dv);
  static const char *const skus[][2] = {{"D05121", "mi25"}, {"D05131", "mi25"}, {"D05133", "mi25"},
                                        {"D05151", "mi25"}, {"D16304", "mi50"}, {"D16302", "mi60"}};
  const char *vbios = VAL(g_gpu[dv].card, "VBIOS version");
  if (vbios && strlen(vbios) == 16)
    for (size_t i = 0; i < sizeof(skus) / sizeof(skus[0]); i++)
      if (strncmp(vbios + 4, skus[i][0], 6) == 0)
        return leave(put_str(brand, len, skus[i][1]));
  return leave(put_str(brand, len, VAL(g_gpu[dv].card, "Device Name", "Card series", "Card Series")));
}

API rsmi_status_t rsmi_dev_vendor_name_get(uint32_t dv, char *name, size_t len)
{
  log_call(__func__, "%u, len=%zu", dv, len);
  ENTER(dv);
  return leave(put_str(name, len, VAL(g_gpu[dv].card, "Card vendor", "Card Vendor")));
}

API rsmi_status_t rsmi_dev_serial_number_get(uint32_t dv, char *serial, uint32_t len)
{
  log_call(__func__, "%u, len=%u", dv, len);
  ENTER(dv);
  return leave(put_str(serial, len, VAL(g_gpu[dv].card, "Serial Number")));
}

API rsmi_status_t rsmi_dev_vbios_version_get(uint32_t dv, char *vbios, uint32_t len)
{
  log_call(__func__, "%u, len=%u", dv, len);
  ENTER(dv);
  return leave(put_str(vbios, len, VAL(g_gpu[dv].card, "VBIOS version")));
}

API rsmi_status_t rsmi_dev_unique_id_get(uint32_t dv, uint64_t *id)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!id)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *id = 0;
    return leave(RSMI_STATUS_SUCCESS);
  }
  uint64_t v;
  if (parse_u64(VAL(g_gpu[dv].card, "Unique ID"), 16, &v))
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *id = v;
  return leave(RSMI_STATUS_SUCCESS);
}

/* "VRAM Total Memory (B)", "VRAM Total Used Memory (B)", or in MiB (Hygon's) */
static rsmi_status_t memory(uint32_t dv, int type, int used, uint64_t *out)
{
  static const char *const names[] = {"VRAM", "VIS_VRAM", "GTT"};
  if (!out || type < 0 || type > 2)
    return RSMI_STATUS_INVALID_ARGS;
  if (g_nonsense) {
    /* more used than there is, and a total of 2^63 */
    *out = used ? UINT64_MAX - 5 : 1ull << 63;
    return RSMI_STATUS_SUCCESS;
  }
  char key[64], key_mib[64];
  snprintf(key, sizeof(key), "%s Total %sMemory (B)", names[type], used ? "Used " : "");
  snprintf(key_mib, sizeof(key_mib), "%s Total %sMemory (MiB)", names[type], used ? "Used " : "");
  uint64_t v;
  if (parse_u64(VAL(g_gpu[dv].card, key), 10, &v) == 0) {
    *out = v;
    return RSMI_STATUS_SUCCESS;
  }
  for (size_t k = 0; k < g_gpu[dv].card->len; k++)
    if (strcasecmp(g_gpu[dv].card->keys[k], key_mib) == 0 && g_gpu[dv].card->items[k].type == AXL__J_STR &&
        parse_u64(g_gpu[dv].card->items[k].s, 10, &v) == 0) {
      *out = v << 20;
      return RSMI_STATUS_SUCCESS;
    }
  return RSMI_STATUS_NOT_SUPPORTED;
}

API rsmi_status_t rsmi_dev_memory_total_get(uint32_t dv, rsmi_memory_type_t type, uint64_t *total)
{
  log_call(__func__, "%u, type=%d", dv, (int)type);
  ENTER(dv);
  return leave(memory(dv, (int)type, 0, total));
}

API rsmi_status_t rsmi_dev_memory_usage_get(uint32_t dv, rsmi_memory_type_t type, uint64_t *used)
{
  log_call(__func__, "%u, type=%d", dv, (int)type);
  ENTER(dv);
  return leave(memory(dv, (int)type, 1, used));
}

API rsmi_status_t rsmi_dev_power_cap_get(uint32_t dv, uint32_t sensor, uint64_t *cap)
{
  log_call(__func__, "%u, sensor=%u", dv, sensor);
  ENTER(dv);
  if (!cap || sensor != 0)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *cap = 1ull << 63;
    return leave(RSMI_STATUS_SUCCESS);
  }
  if (parse_watts(VAL(g_gpu[dv].card, "Max Graphics Package Power (W)"), cap))
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_dev_power_cap_default_get(uint32_t dv, uint64_t *cap)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!cap)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *cap = UINT64_MAX;
    return leave(RSMI_STATUS_SUCCESS);
  }
  if (!g_gpu[dv].has_pdef)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *cap = g_gpu[dv].pdef;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_dev_power_cap_range_get(uint32_t dv, uint32_t sensor, uint64_t *max, uint64_t *min)
{
  log_call(__func__, "%u, sensor=%u", dv, sensor);
  ENTER(dv);
  if (!max || !min || sensor != 0)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *max = 100, *min = 900000000; /* min above max */
    return leave(RSMI_STATUS_SUCCESS);
  }
  if (!g_gpu[dv].has_pmax || !g_gpu[dv].has_pmin)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *max = g_gpu[dv].pmax;
  *min = g_gpu[dv].pmin;
  return leave(RSMI_STATUS_SUCCESS);
}

/* The frequency table of a clock: the extra file's levels, else the one level the
 * capture shows ("sclk clock speed:" "(500Mhz)", "sclk clock level:" "1"). */
API rsmi_status_t rsmi_dev_gpu_clk_freq_get(uint32_t dv, rsmi_clk_type_t clk_type, rsmi_frequencies_t *f)
{
  int type = (int)clk_type; /* a caller's out-of-range value stays out of range */
  log_call(__func__, "%u, type=%d", dv, type);
  ENTER(dv);
  static const char *const names[] = {"sclk", "fclk", "dcefclk", "socclk", "mclk"};
  if (type < 0 || type > 4)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (!f)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    memset(f, 0, sizeof(*f));
    f->num_supported = 99;
    f->current = 77;
    for (unsigned i = 0; i < RSMI_MAX_NUM_FREQUENCIES; i++)
      f->frequency[i] = 4000000000000ull; /* 4 THz */
    return leave(RSMI_STATUS_SUCCESS);
  }
  const struct gpu *g = &g_gpu[dv];
  char key[48];
  snprintf(key, sizeof(key), "%s clock speed:", names[type]);
  uint64_t cur_mhz = 0;
  int has_cur = parse_mhz(VAL(g->card, key), &cur_mhz) == 0;
  snprintf(key, sizeof(key), "%s clock level:", names[type]);
  uint64_t level = 0;
  int has_level = parse_u64(VAL(g->card, key), 10, &level) == 0;
  memset(f, 0, sizeof(*f));
  const struct clock *c = &g->clk[type];
  if (c->has) {
    if (c->n > RSMI_MAX_NUM_FREQUENCIES)
      return leave(RSMI_STATUS_UNEXPECTED_SIZE);
    f->num_supported = c->n;
    for (unsigned i = 0; i < c->n; i++)
      f->frequency[i] = c->mhz[i] * 1000000;
    f->current = c->has_current ? c->current : has_level ? (uint32_t)level : 0;
#if AXL_ABI_HAVE(60000)
    f->has_deep_sleep = c->deep_sleep;
#endif
    return leave(RSMI_STATUS_SUCCESS);
  }
  if (!has_cur)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  f->num_supported = 1;
  f->current = 0;
  f->frequency[0] = cur_mhz * 1000000;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_topo_get_numa_node_number(uint32_t dv, uint32_t *node)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!node)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *node = 70000;
    return leave(RSMI_STATUS_SUCCESS);
  }
  uint64_t v;
  if (parse_u64(VAL(g_gpu[dv].card, "(Topology) Numa Node"), 10, &v) || v > 0xffffffffu)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *node = (uint32_t)v;
  return leave(RSMI_STATUS_SUCCESS);
}

#if AXL_ABI_HAVE(60000)
API rsmi_status_t rsmi_topo_numa_affinity_get(uint32_t dv, int32_t *node)
#else
API rsmi_status_t rsmi_topo_numa_affinity_get(uint32_t dv, uint32_t *node)
#endif
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!node)
    return leave(RSMI_STATUS_INVALID_ARGS);
  const char *s = VAL(g_gpu[dv].card, "(Topology) Numa Affinity");
  if (absent(s))
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *node = (__typeof__(*node))strtoll(s, NULL, 10);
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_dev_xgmi_hive_id_get(uint32_t dv, uint64_t *hive)
{
  log_call(__func__, "%u", dv);
  ENTER(dv);
  if (!hive)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (!g_gpu[dv].has_hive)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *hive = g_gpu[dv].hive;
  return leave(RSMI_STATUS_SUCCESS);
}

static rsmi_status_t pair_enter(const char *fn, uint32_t a, uint32_t b)
{
  rsmi_status_t r = enter(fn, (int)a);
  if (r != RSMI_STATUS_SUCCESS)
    return r;
  if (b >= g_n || a == b) {
    pthread_mutex_unlock(&g_lock);
    return RSMI_STATUS_INVALID_ARGS;
  }
  return RSMI_STATUS_SUCCESS;
}

#define PAIR_ENTER(a, b)                                \
  do {                                                  \
    rsmi_status_t e_ = pair_enter(__func__, (a), (b));  \
    if (e_ != RSMI_STATUS_SUCCESS)                      \
      return e_;                                        \
  } while (0)

API rsmi_status_t rsmi_topo_get_link_type(uint32_t a, uint32_t b, uint64_t *hops, RSMI_IO_LINK_TYPE *type)
{
  log_call(__func__, "%u, %u", a, b);
  PAIR_ENTER(a, b);
  if (!hops || !type)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *hops = 1;
    *type = (RSMI_IO_LINK_TYPE)7;
    return leave(RSMI_STATUS_SUCCESS);
  }
  const struct link *l = pair(a, b);
  if (!l->has_type || !l->has_hops)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *hops = l->hops;
  *type = (RSMI_IO_LINK_TYPE)l->type;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_topo_get_link_weight(uint32_t a, uint32_t b, uint64_t *weight)
{
  log_call(__func__, "%u, %u", a, b);
  PAIR_ENTER(a, b);
  if (!weight)
    return leave(RSMI_STATUS_INVALID_ARGS);
  const struct link *l = pair(a, b);
  if (!l->has_weight)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *weight = l->weight;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_minmax_bandwidth_get(uint32_t a, uint32_t b, uint64_t *min, uint64_t *max)
{
  log_call(__func__, "%u, %u", a, b);
  PAIR_ENTER(a, b);
  if (!min || !max)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    *min = 900000, *max = 3; /* max below min */
    return leave(RSMI_STATUS_SUCCESS);
  }
  const struct link *l = pair(a, b);
  /* "works if src and dst are connected via xgmi and have 1 hop distance" */
  if (!l->has_bw || !l->has_type || l->type != RSMI_IOLINK_TYPE_XGMI || !l->has_hops || l->hops != 1)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *min = l->bw_min;
  *max = l->bw_max;
  return leave(RSMI_STATUS_SUCCESS);
}

API rsmi_status_t rsmi_is_P2P_accessible(uint32_t a, uint32_t b, bool *accessible)
{
  log_call(__func__, "%u, %u", a, b);
  PAIR_ENTER(a, b);
  if (!accessible)
    return leave(RSMI_STATUS_INVALID_ARGS);
  if (g_nonsense) {
    memset(accessible, 5, 1); /* a bool that is neither */
    return leave(RSMI_STATUS_SUCCESS);
  }
  const struct link *l = pair(a, b);
  if (!l->has_p2p)
    return leave(RSMI_STATUS_NOT_SUPPORTED);
  *accessible = l->p2p != 0;
  return leave(RSMI_STATUS_SUCCESS);
}

#ifndef RSMI_DOUBLE_OLD
API rsmi_status_t rsmi_dev_compute_partition_get(uint32_t dv, char *buf, uint32_t len)
{
  log_call(__func__, "%u, len=%u", dv, len);
  ENTER(dv);
  if (g_nonsense)
    return leave(put_str(buf, len, "XYZ"));
  return leave(put_str(buf, len, g_gpu[dv].compute[0] ? g_gpu[dv].compute : NULL));
}

API rsmi_status_t rsmi_dev_memory_partition_get(uint32_t dv, char *buf, uint32_t len)
{
  log_call(__func__, "%u, len=%u", dv, len);
  ENTER(dv);
  return leave(put_str(buf, len, g_gpu[dv].memory[0] ? g_gpu[dv].memory : NULL));
}

/* ROCm 6 and later only: its presence tells the two layouts of rsmi_frequencies_t
 * apart when the version says 1.x. The double has no activity counters. */
API rsmi_status_t rsmi_dev_activity_metric_get(uint32_t dv, rsmi_activity_metric_t metric,
                                               rsmi_activity_metric_counter_t *counter)
{
  log_call(__func__, "%u, metric=%d", dv, (int)metric);
  ENTER(dv);
  (void)counter;
  return leave(RSMI_STATUS_NOT_SUPPORTED);
}
#endif
