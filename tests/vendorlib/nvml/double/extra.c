/* The extra file: one record per line (README.md has the format). Strict: an unknown
 * keyword or key, a malformed value or a duplicate record is an error. */
#define _GNU_SOURCE
#include "extra.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nvml_types.h"

#define EXTRA_MAX_LINE 1024
#define EXTRA_MAX_RECORDS 65536

static int hexval(int c)
{
  if (c >= '0' && c <= '9')
    return c - '0';
  if (c >= 'a' && c <= 'f')
    return c - 'a' + 10;
  if (c >= 'A' && c <= 'F')
    return c - 'A' + 10;
  return -1;
}

/* up to `max` hex digits, at least one; returns the end or NULL */
static const char *hex_field(const char *s, unsigned max, unsigned *out)
{
  unsigned v = 0, n = 0;
  while (n < max && hexval((unsigned char)s[n]) >= 0) {
    v = v * 16u + (unsigned)hexval((unsigned char)s[n]);
    n++;
  }
  if (n == 0 || hexval((unsigned char)s[n]) >= 0)
    return NULL;
  *out = v;
  return s + n;
}

int bdf_parse(const char *s, struct bdf *out)
{
  struct bdf b = {0, 0, 0, 0};
  unsigned a, c;
  const char *p = hex_field(s, 8, &a);
  if (!p || *p != ':')
    return -1;
  const char *q = hex_field(p + 1, 8, &c);
  if (!q)
    return -1;
  if (*q == ':') { /* domain:bus:dev.fn */
    if (c > 0xff)
      return -1;
    b.domain = a;
    b.bus = c;
    q = hex_field(q + 1, 2, &b.dev);
    if (!q)
      return -1;
  } else { /* bus:dev.fn */
    if (a > 0xff)
      return -1;
    b.bus = a;
    b.dev = c;
  }
  if (b.dev > 0x1f)
    return -1;
  if (*q == '.') {
    q = hex_field(q + 1, 1, &b.fn);
    if (!q || b.fn > 7)
      return -1;
  }
  if (*q != '\0')
    return -1;
  *out = b;
  return 0;
}

int bdf_equal(const struct bdf *a, const struct bdf *b)
{
  return a->domain == b->domain && a->bus == b->bus && a->dev == b->dev && a->fn == b->fn;
}

struct lp {
  const char *path;
  unsigned line;
  char *err;
  size_t errlen;
};

static int lfail(struct lp *l, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int lfail(struct lp *l, const char *fmt, ...)
{
  int n = snprintf(l->err, l->errlen, "%s:%u: ", l->path, l->line);
  if (n >= 0 && (size_t)n < l->errlen) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(l->err + n, l->errlen - (size_t)n, fmt, ap);
    va_end(ap);
  }
  return -1;
}

/* decimal, or hexadecimal after 0x */
static int parse_u64(const char *s, unsigned long long max, unsigned long long *out)
{
  int base = 10;
  if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
    base = 16;
    s += 2;
  }
  if (hexval((unsigned char)*s) < 0)
    return -1;
  errno = 0;
  char *end;
  unsigned long long v = strtoull(s, &end, base);
  if (errno || *end || v > max)
    return -1;
  *out = v;
  return 0;
}

static int parse_uint(const char *s, unsigned max, unsigned *out)
{
  unsigned long long v;
  if (parse_u64(s, max, &v))
    return -1;
  *out = (unsigned)v;
  return 0;
}

struct name_val {
  const char *name;
  int val;
};

static int lookup(const struct name_val *t, const char *s, int *out)
{
  for (; t->name; t++)
    if (strcmp(t->name, s) == 0) {
      *out = t->val;
      return 0;
    }
  return -1;
}

static const struct name_val dev_types[] = {{"gpu", NVML_NVLINK_DEVICE_TYPE_GPU},
                                            {"ibmnpu", NVML_NVLINK_DEVICE_TYPE_IBMNPU},
                                            {"switch", NVML_NVLINK_DEVICE_TYPE_SWITCH},
                                            {"unknown", NVML_NVLINK_DEVICE_TYPE_UNKNOWN},
                                            {NULL, 0}};
static const struct name_val cap_names[] = {{"p2p", NVML_NVLINK_CAP_P2P_SUPPORTED},
                                            {"sysmem", NVML_NVLINK_CAP_SYSMEM_ACCESS},
                                            {"p2p_atomics", NVML_NVLINK_CAP_P2P_ATOMICS},
                                            {"sysmem_atomics", NVML_NVLINK_CAP_SYSMEM_ATOMICS},
                                            {"sli", NVML_NVLINK_CAP_SLI_BRIDGE},
                                            {"valid", NVML_NVLINK_CAP_VALID},
                                            {NULL, 0}};
static const struct name_val levels[] = {{"internal", NVML_TOPOLOGY_INTERNAL},
                                         {"single", NVML_TOPOLOGY_SINGLE},
                                         {"multiple", NVML_TOPOLOGY_MULTIPLE},
                                         {"hostbridge", NVML_TOPOLOGY_HOSTBRIDGE},
                                         {"node", NVML_TOPOLOGY_NODE},
                                         {"system", NVML_TOPOLOGY_SYSTEM},
                                         {NULL, 0}};
static const struct name_val p2p_status[] = {{"ok", NVML_P2P_STATUS_OK},
                                             {"chipset_not_supported", NVML_P2P_STATUS_CHIPSET_NOT_SUPPORTED},
                                             {"gpu_not_supported", NVML_P2P_STATUS_GPU_NOT_SUPPORTED},
                                             {"ioh_topology_not_supported", NVML_P2P_STATUS_IOH_TOPOLOGY_NOT_SUPPORTED},
                                             {"disabled_by_regkey", NVML_P2P_STATUS_DISABLED_BY_REGKEY},
                                             {"not_supported", NVML_P2P_STATUS_NOT_SUPPORTED},
                                             {"unknown", NVML_P2P_STATUS_UNKNOWN},
                                             {NULL, 0}};
static const char *const p2p_keys[5] = {"p2p_read", "p2p_write", "p2p_nvlink", "p2p_atomics", "p2p_prop"};

/* a name from the table or a number */
static int name_or_number(const struct name_val *t, const char *s, unsigned max, int *out)
{
  unsigned v;
  if (lookup(t, s, out) == 0)
    return 0;
  if (parse_uint(s, max, &v))
    return -1;
  *out = (int)v;
  return 0;
}

static int grow(void **arr, size_t n, size_t elem)
{
  if (n >= EXTRA_MAX_RECORDS)
    return -1;
  if ((n & (n - 1)) == 0) { /* 0, 1, 2, 4, ...: double */
    void *p = realloc(*arr, (n ? n * 2 : 4) * elem);
    if (!p)
      return -1;
    *arr = p;
  }
  return 0;
}

static int parse_nvlink(struct lp *l, struct extra *e, char **tok, int ntok)
{
  struct nvlink_rec r;
  memset(&r, 0, sizeof(r));
  r.state = 1;
  r.type = NVML_NVLINK_DEVICE_TYPE_GPU;
  int have_link = 0, have_caps = 0;
  if (ntok < 3 || bdf_parse(tok[1], &r.gpu))
    return lfail(l, "expected: nvlink <gpu bus id> link=N ...");
  for (int i = 2; i < ntok; i++) {
    char *eq = strchr(tok[i], '=');
    if (!eq)
      return lfail(l, "expected key=value, got '%s'", tok[i]);
    *eq = '\0';
    const char *k = tok[i], *v = eq + 1;
    int iv;
    if (strcmp(k, "link") == 0) {
      if (parse_uint(v, NVML_NVLINK_MAX_LINKS - 1, &r.link))
        return lfail(l, "link must be 0..%d", NVML_NVLINK_MAX_LINKS - 1);
      have_link = 1;
    } else if (strcmp(k, "state") == 0) {
      unsigned s;
      if (parse_uint(v, 1, &s))
        return lfail(l, "state must be 0 or 1");
      r.state = (int)s;
    } else if (strcmp(k, "version") == 0) {
      if (parse_uint(v, 1000, &r.version))
        return lfail(l, "bad version '%s'", v);
    } else if (strcmp(k, "remote") == 0) {
      if (bdf_parse(v, &r.remote))
        return lfail(l, "bad remote bus id '%s'", v);
      r.has_remote = 1;
    } else if (strcmp(k, "remote_id") == 0) {
      if (parse_uint(v, 0xffffffffu, &r.remote_id))
        return lfail(l, "bad remote_id '%s'", v);
      r.has_remote_id = 1;
    } else if (strcmp(k, "type") == 0) {
      if (name_or_number(dev_types, v, 0xff, &iv))
        return lfail(l, "bad type '%s' (gpu, ibmnpu, switch, unknown)", v);
      r.type = iv;
    } else if (strcmp(k, "caps") == 0) {
      have_caps = 1;
      r.caps = 0;
      if (strcmp(v, "none") != 0) {
        char buf[256];
        snprintf(buf, sizeof(buf), "%s", v);
        for (char *save = NULL, *c = strtok_r(buf, ",", &save); c; c = strtok_r(NULL, ",", &save)) {
          if (lookup(cap_names, c, &iv))
            return lfail(l, "unknown capability '%s'", c);
          r.caps |= 1u << iv;
        }
      }
    } else if (strcmp(k, "speed") == 0) {
      if (parse_uint(v, 0xffffffffu, &r.speed))
        return lfail(l, "bad speed '%s'", v);
    } else {
      return lfail(l, "unknown nvlink key '%s'", k);
    }
  }
  if (!have_link)
    return lfail(l, "nvlink without link=");
  if (!have_caps) {
    r.caps = 1u << NVML_NVLINK_CAP_VALID;
    if (r.type == NVML_NVLINK_DEVICE_TYPE_GPU || r.type == NVML_NVLINK_DEVICE_TYPE_SWITCH)
      r.caps |= 1u << NVML_NVLINK_CAP_P2P_SUPPORTED | 1u << NVML_NVLINK_CAP_P2P_ATOMICS;
    else if (r.type == NVML_NVLINK_DEVICE_TYPE_IBMNPU)
      r.caps |= 1u << NVML_NVLINK_CAP_SYSMEM_ACCESS | 1u << NVML_NVLINK_CAP_SYSMEM_ATOMICS;
  }
  if (extra_link(e, &r.gpu, r.link))
    return lfail(l, "link %u of %s described twice", r.link, tok[1]);
  if (grow((void **)&e->links, e->nlinks, sizeof(r)))
    return lfail(l, "too many records");
  e->links[e->nlinks++] = r;
  return 0;
}

static int parse_topo(struct lp *l, struct extra *e, char **tok, int ntok)
{
  struct topo_rec r;
  memset(&r, 0, sizeof(r));
  r.level = -1;
  for (int i = 0; i < 5; i++)
    r.p2p[i] = -1;
  if (ntok < 3 || bdf_parse(tok[1], &r.a) || bdf_parse(tok[2], &r.b))
    return lfail(l, "expected: topo <gpu bus id> <gpu bus id> level=N ...");
  if (bdf_equal(&r.a, &r.b))
    return lfail(l, "topo between a GPU and itself");
  for (int i = 3; i < ntok; i++) {
    char *eq = strchr(tok[i], '=');
    if (!eq)
      return lfail(l, "expected key=value, got '%s'", tok[i]);
    *eq = '\0';
    const char *k = tok[i], *v = eq + 1;
    int iv, found = 0;
    if (strcmp(k, "level") == 0) {
      if (name_or_number(levels, v, 1000, &iv))
        return lfail(l, "bad level '%s'", v);
      r.level = iv;
      found = 1;
    }
    for (int j = 0; j < 5 && !found; j++)
      if (strcmp(k, p2p_keys[j]) == 0) {
        if (name_or_number(p2p_status, v, 1000, &iv))
          return lfail(l, "bad p2p status '%s'", v);
        r.p2p[j] = iv;
        found = 1;
      }
    if (!found)
      return lfail(l, "unknown topo key '%s'", k);
  }
  if (extra_topo(e, &r.a, &r.b))
    return lfail(l, "topology of %s and %s described twice", tok[1], tok[2]);
  if (grow((void **)&e->topos, e->ntopos, sizeof(r)))
    return lfail(l, "too many records");
  e->topos[e->ntopos++] = r;
  return 0;
}

static int parse_energy(struct lp *l, struct extra *e, char **tok, int ntok)
{
  struct energy_rec r;
  memset(&r, 0, sizeof(r));
  if (ntok < 3 || ntok > 4 || bdf_parse(tok[1], &r.gpu) || strncmp(tok[2], "mj=", 3) != 0 ||
      parse_u64(tok[2] + 3, ~0ULL, &r.mj))
    return lfail(l, "expected: energy <gpu bus id> mj=N [step=N]");
  if (ntok == 4) {
    char *end;
    errno = 0;
    if (strncmp(tok[3], "step=", 5) != 0)
      return lfail(l, "expected: energy <gpu bus id> mj=N [step=N]");
    r.step = strtoll(tok[3] + 5, &end, 10);
    if (errno || end == tok[3] + 5 || *end)
      return lfail(l, "bad step '%s'", tok[3] + 5);
  }
  if (extra_energy(e, &r.gpu))
    return lfail(l, "energy of %s given twice", tok[1]);
  if (grow((void **)&e->energy, e->nenergy, sizeof(r)))
    return lfail(l, "too many records");
  e->energy[e->nenergy++] = r;
  return 0;
}

/* ecc <gpu> [corrected=N] [uncorrected=N] */
static int parse_ecc(struct lp *l, struct extra *e, char **tok, int ntok)
{
  struct ecc_rec r;
  r.corrected = r.uncorrected = -1;
  if (ntok < 2 || bdf_parse(tok[1], &r.gpu))
    return lfail(l, "expected: ecc <gpu bus id> [corrected=N] [uncorrected=N]");
  for (int i = 2; i < ntok; i++) {
    unsigned long long v;
    if (strncmp(tok[i], "corrected=", 10) == 0 && !parse_u64(tok[i] + 10, 1ULL << 62, &v))
      r.corrected = (long long)v;
    else if (strncmp(tok[i], "uncorrected=", 12) == 0 && !parse_u64(tok[i] + 12, 1ULL << 62, &v))
      r.uncorrected = (long long)v;
    else
      return lfail(l, "bad ecc field '%s'", tok[i]);
  }
  if (extra_ecc(e, &r.gpu))
    return lfail(l, "ecc of %s given twice", tok[1]);
  if (grow((void **)&e->ecc, e->necc, sizeof(r)))
    return lfail(l, "too many records");
  e->ecc[e->necc++] = r;
  return 0;
}

/* procutil <gpu> pid=N [sm=N] [mem=N] [enc=N] [dec=N] */
static int parse_putil(struct lp *l, struct extra *e, char **tok, int ntok)
{
  struct putil_rec r;
  memset(&r, 0, sizeof(r));
  int have_pid = 0;
  if (ntok < 3 || bdf_parse(tok[1], &r.gpu))
    return lfail(l, "expected: procutil <gpu bus id> pid=N [sm=N] [mem=N] [enc=N] [dec=N]");
  for (int i = 2; i < ntok; i++) {
    static const char *const keys[] = {"pid=", "sm=", "mem=", "enc=", "dec="};
    unsigned *dst[] = {&r.pid, &r.sm, &r.mem, &r.enc, &r.dec};
    int found = 0;
    for (int k = 0; k < 5 && !found; k++) {
      size_t kl = strlen(keys[k]);
      if (strncmp(tok[i], keys[k], kl) == 0) {
        if (parse_uint(tok[i] + kl, 0xffffffffu, dst[k]))
          return lfail(l, "bad procutil value '%s'", tok[i]);
        found = 1;
        have_pid |= k == 0;
      }
    }
    if (!found)
      return lfail(l, "unknown procutil key '%s'", tok[i]);
  }
  if (!have_pid)
    return lfail(l, "procutil needs pid=");
  if (grow((void **)&e->putil, e->nputil, sizeof(r)))
    return lfail(l, "too many records");
  e->putil[e->nputil++] = r;
  return 0;
}

int extra_load(const char *path, struct extra *out, char *err, size_t errlen)
{
  memset(out, 0, sizeof(*out));
  struct lp l = {path, 0, err, errlen};
  FILE *f = fopen(path, "r");
  if (!f) {
    snprintf(err, errlen, "%s: %s", path, strerror(errno));
    return -1;
  }
  char line[EXTRA_MAX_LINE + 2];
  int rc = 0;
  while (fgets(line, sizeof(line), f)) {
    l.line++;
    size_t n = strlen(line);
    if (n == sizeof(line) - 1 && line[n - 1] != '\n') {
      rc = lfail(&l, "line longer than %d bytes", EXTRA_MAX_LINE);
      break;
    }
    char *hash = strchr(line, '#');
    if (hash)
      *hash = '\0';
    char *tok[64];
    int ntok = 0;
    for (char *save = NULL, *t = strtok_r(line, " \t\r\n", &save); t; t = strtok_r(NULL, " \t\r\n", &save)) {
      if (ntok == 64) {
        rc = lfail(&l, "too many fields");
        break;
      }
      tok[ntok++] = t;
    }
    if (rc)
      break;
    if (ntok == 0)
      continue;
    if (strcmp(tok[0], "nvlink") == 0)
      rc = parse_nvlink(&l, out, tok, ntok);
    else if (strcmp(tok[0], "topo") == 0)
      rc = parse_topo(&l, out, tok, ntok);
    else if (strcmp(tok[0], "energy") == 0)
      rc = parse_energy(&l, out, tok, ntok);
    else if (strcmp(tok[0], "ecc") == 0)
      rc = parse_ecc(&l, out, tok, ntok);
    else if (strcmp(tok[0], "procutil") == 0)
      rc = parse_putil(&l, out, tok, ntok);
    else
      rc = lfail(&l, "unknown record '%s' (nvlink, topo, energy, ecc, procutil)", tok[0]);
    if (rc)
      break;
  }
  if (!rc && ferror(f))
    rc = lfail(&l, "read error");
  fclose(f);
  if (rc)
    extra_free(out);
  return rc;
}

void extra_free(struct extra *e)
{
  free(e->links);
  free(e->topos);
  free(e->energy);
  free(e->ecc);
  free(e->putil);
  memset(e, 0, sizeof(*e));
}

const struct nvlink_rec *extra_link(const struct extra *e, const struct bdf *gpu, unsigned link)
{
  for (size_t i = 0; i < e->nlinks; i++)
    if (e->links[i].link == link && bdf_equal(&e->links[i].gpu, gpu))
      return &e->links[i];
  return NULL;
}

size_t extra_link_count(const struct extra *e, const struct bdf *gpu)
{
  size_t n = 0;
  for (size_t i = 0; i < e->nlinks; i++)
    n += bdf_equal(&e->links[i].gpu, gpu);
  return n;
}

const struct topo_rec *extra_topo(const struct extra *e, const struct bdf *a, const struct bdf *b)
{
  for (size_t i = 0; i < e->ntopos; i++) {
    const struct topo_rec *t = &e->topos[i];
    if ((bdf_equal(&t->a, a) && bdf_equal(&t->b, b)) || (bdf_equal(&t->a, b) && bdf_equal(&t->b, a)))
      return t;
  }
  return NULL;
}

const struct energy_rec *extra_energy(const struct extra *e, const struct bdf *gpu)
{
  for (size_t i = 0; i < e->nenergy; i++)
    if (bdf_equal(&e->energy[i].gpu, gpu))
      return &e->energy[i];
  return NULL;
}

const struct ecc_rec *extra_ecc(const struct extra *e, const struct bdf *gpu)
{
  for (size_t i = 0; i < e->necc; i++)
    if (bdf_equal(&e->ecc[i].gpu, gpu))
      return &e->ecc[i];
  return NULL;
}
