/* GPU-instance profile tables.
 *
 * `nvidia-smi -q -x` has no profile tables, so they are embedded here. The profile set,
 * slice counts, instance counts and engine counts per profile follow the NVIDIA
 * Multi-Instance GPU User Guide, "Supported MIG Profiles"
 * (https://docs.nvidia.com/datacenter/tesla/mig-user-guide/supported-mig-profiles.html).
 * The guide gives memory as fractions; the MiB values and the profile ids come from
 * published `nvidia-smi mig -lgip` outputs (GiB with two decimals, times 1024):
 *   - H100 80GB HBM3: jbarrow.ai/field_notes/nvidia-mig, matching the real H100 MIG capture
 *     in shared/fixtures/nvidia-smi-capture (1g.10gb 9984 MiB/16 SMs, 2g.20gb 20096/32,
 *     3g.40gb 40448/60);
 *   - H200 141GB: NVIDIA/mig-parted issue #120;
 *   - H100 NVL 94GB: NVIDIA/gpu-operator pull request #900 (7g.94gb memory derived: the
 *     output was cut before that row, so it is 2 x 3g + 256 MiB as on the H100 80GB);
 *   - A100 80GB: 1g.20gb 19968 MiB/14 SMs is in the real A100 capture of the fixtures and
 *     2g.20gb 19968 MiB/28 SMs in NVIDIA A100-SXM4-80GB output quoted in XuehaiPan/nvitop
 *     pull request #8; 3g/4g 40192 MiB (39.25 GiB, the "3g.39gb" naming in NVIDIA/mig-parted
 *     issue #31); 1g.10gb and 7g.80gb from NVIDIA's go-nvml A100 mock;
 *   - A100 40GB and A30 24GB: NVIDIA's go-nvml mocks (pkg/nvml/mock/shared/gpus).
 *   - H100 PCIe: the H100 80GB table with 114 SMs for 7g (derived, not verified).
 * Profile ids (19 = 1g, 20 = 1g+me, 15 = 1g with two memory slices, 14 = 2g, 9 = 3g,
 * 5 = 4g, 0 = 7g) are those every lgip output above shows; the A30 ids (14, 21, 5, 6, 0)
 * are from recollection of A30 output and not verified here. */
#include "mig.h"

#include <stddef.h>
#include <string.h>

#include "nvml_types.h"

#define P1 NVML_GPU_INSTANCE_PROFILE_1_SLICE
#define P2 NVML_GPU_INSTANCE_PROFILE_2_SLICE
#define P3 NVML_GPU_INSTANCE_PROFILE_3_SLICE
#define P4 NVML_GPU_INSTANCE_PROFILE_4_SLICE
#define P7 NVML_GPU_INSTANCE_PROFILE_7_SLICE
#define P1R1 NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV1
#define P2R1 NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1
#define P1R2 NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2

/* profile, id, name, slices, mem slices, placements, instances, SM, CE, DEC, ENC, JPEG, OFA, MiB */
static const struct gi_profile a100_40gb[] = {
    {P1, 19, "1g.5gb", 1, 1, 7, 7, 14, 1, 0, 0, 0, 0, 4864},
    {P1R1, 20, "1g.5gb+me", 1, 1, 7, 1, 14, 1, 1, 0, 1, 1, 4864},
    {P1R2, 15, "1g.10gb", 1, 2, 4, 4, 14, 1, 1, 0, 0, 0, 9856},
    {P2, 14, "2g.10gb", 2, 2, 3, 3, 28, 2, 1, 0, 0, 0, 9856},
    {P3, 9, "3g.20gb", 3, 4, 2, 2, 42, 3, 2, 0, 0, 0, 19968},
    {P4, 5, "4g.20gb", 4, 4, 1, 1, 56, 4, 2, 0, 0, 0, 19968},
    {P7, 0, "7g.40gb", 7, 8, 1, 1, 98, 7, 5, 0, 1, 1, 40192},
};

static const struct gi_profile a100_80gb[] = {
    {P1, 19, "1g.10gb", 1, 1, 7, 7, 14, 1, 0, 0, 0, 0, 9856},
    {P1R1, 20, "1g.10gb+me", 1, 1, 7, 1, 14, 1, 1, 0, 1, 1, 9856},
    {P1R2, 15, "1g.20gb", 1, 2, 4, 4, 14, 1, 1, 0, 0, 0, 19968},
    {P2, 14, "2g.20gb", 2, 2, 3, 3, 28, 2, 1, 0, 0, 0, 19968},
    {P3, 9, "3g.40gb", 3, 4, 2, 2, 42, 3, 2, 0, 0, 0, 40192},
    {P4, 5, "4g.40gb", 4, 4, 1, 1, 56, 4, 2, 0, 0, 0, 40192},
    {P7, 0, "7g.80gb", 7, 8, 1, 1, 98, 7, 5, 0, 1, 1, 80384},
};

static const struct gi_profile a30_24gb[] = {
    {P1, 14, "1g.6gb", 1, 1, 4, 4, 14, 1, 0, 0, 0, 0, 5836},
    {P1R1, 21, "1g.6gb+me", 1, 1, 4, 1, 14, 1, 1, 0, 1, 1, 5836},
    {P2, 5, "2g.12gb", 2, 2, 2, 2, 28, 2, 2, 0, 0, 0, 11672},
    {P2R1, 6, "2g.12gb+me", 2, 2, 2, 1, 28, 2, 2, 0, 1, 1, 11672},
    {P4, 0, "4g.24gb", 4, 4, 1, 1, 56, 4, 4, 0, 1, 1, 23344},
};

static const struct gi_profile h100_80gb[] = {
    {P1, 19, "1g.10gb", 1, 1, 7, 7, 16, 1, 1, 0, 1, 0, 9984},
    {P1R1, 20, "1g.10gb+me", 1, 1, 7, 1, 16, 1, 1, 0, 1, 1, 9984},
    {P1R2, 15, "1g.20gb", 1, 2, 4, 4, 26, 1, 1, 0, 1, 0, 20096},
    {P2, 14, "2g.20gb", 2, 2, 3, 3, 32, 2, 2, 0, 2, 0, 20096},
    {P3, 9, "3g.40gb", 3, 4, 2, 2, 60, 3, 3, 0, 3, 0, 40448},
    {P4, 5, "4g.40gb", 4, 4, 1, 1, 64, 4, 4, 0, 4, 0, 40448},
    {P7, 0, "7g.80gb", 7, 8, 1, 1, 132, 8, 7, 0, 7, 1, 81152},
};

static const struct gi_profile h100_pcie[] = {
    {P1, 19, "1g.10gb", 1, 1, 7, 7, 16, 1, 1, 0, 1, 0, 9984},
    {P1R1, 20, "1g.10gb+me", 1, 1, 7, 1, 16, 1, 1, 0, 1, 1, 9984},
    {P1R2, 15, "1g.20gb", 1, 2, 4, 4, 26, 1, 1, 0, 1, 0, 20096},
    {P2, 14, "2g.20gb", 2, 2, 3, 3, 32, 2, 2, 0, 2, 0, 20096},
    {P3, 9, "3g.40gb", 3, 4, 2, 2, 60, 3, 3, 0, 3, 0, 40448},
    {P4, 5, "4g.40gb", 4, 4, 1, 1, 64, 4, 4, 0, 4, 0, 40448},
    {P7, 0, "7g.80gb", 7, 8, 1, 1, 114, 8, 7, 0, 7, 1, 81152},
};

static const struct gi_profile h100_nvl[] = {
    {P1, 19, "1g.12gb", 1, 1, 7, 7, 16, 1, 1, 0, 1, 0, 11008},
    {P1R1, 20, "1g.12gb+me", 1, 1, 7, 1, 16, 1, 1, 0, 1, 1, 11008},
    {P1R2, 15, "1g.24gb", 1, 2, 4, 4, 26, 1, 1, 0, 1, 0, 22144},
    {P2, 14, "2g.24gb", 2, 2, 3, 3, 32, 2, 2, 0, 2, 0, 22144},
    {P3, 9, "3g.47gb", 3, 4, 2, 2, 60, 3, 3, 0, 3, 0, 47488},
    {P4, 5, "4g.47gb", 4, 4, 1, 1, 64, 4, 4, 0, 4, 0, 47488},
    {P7, 0, "7g.94gb", 7, 8, 1, 1, 132, 8, 7, 0, 7, 1, 95232},
};

static const struct gi_profile h200_141gb[] = {
    {P1, 19, "1g.18gb", 1, 1, 7, 7, 16, 1, 1, 0, 1, 0, 16384},
    {P1R1, 20, "1g.18gb+me", 1, 1, 7, 1, 16, 1, 1, 0, 1, 1, 16384},
    {P1R2, 15, "1g.35gb", 1, 2, 4, 4, 26, 1, 1, 0, 1, 0, 33024},
    {P2, 14, "2g.35gb", 2, 2, 3, 3, 32, 2, 2, 0, 2, 0, 33024},
    {P3, 9, "3g.71gb", 3, 4, 2, 2, 60, 3, 3, 0, 3, 0, 71168},
    {P4, 5, "4g.71gb", 4, 4, 1, 1, 64, 4, 4, 0, 4, 0, 71168},
    {P7, 0, "7g.141gb", 7, 8, 1, 1, 132, 8, 7, 0, 7, 1, 143104},
};

#define TABLE(label, ms, cs, maxd, arr) {label, ms, cs, maxd, arr, sizeof(arr) / sizeof(arr[0])}
static const struct gi_table tables[] = {
    TABLE("A100 40GB", 8, 7, 7, a100_40gb), TABLE("A100 80GB", 8, 7, 7, a100_80gb),
    TABLE("A30 24GB", 4, 4, 4, a30_24gb),   TABLE("H100 80GB", 8, 7, 7, h100_80gb),
    TABLE("H100 PCIe", 8, 7, 7, h100_pcie), TABLE("H100 NVL", 8, 7, 7, h100_nvl),
    TABLE("H200", 8, 7, 7, h200_141gb),
};

/* `word` appears in `s` as a whole word (bounded by start/end, space or '-') */
static int has_word(const char *s, const char *word)
{
  size_t n = strlen(word);
  for (const char *p = s; (p = strstr(p, word)) != NULL; p++) {
    int left = p == s || p[-1] == ' ' || p[-1] == '-';
    char r = p[n];
    if (left && (r == '\0' || r == ' ' || r == '-'))
      return 1;
  }
  return 0;
}

const struct gi_table *mig_table_for(const char *name)
{
  if (!name)
    return NULL;
  if (has_word(name, "H100") && has_word(name, "NVL"))
    return &tables[5];
  if (has_word(name, "H100") && (has_word(name, "PCIe") || has_word(name, "PCIE")))
    return &tables[4];
  if (has_word(name, "H100"))
    return &tables[3];
  if (has_word(name, "H200"))
    return &tables[6];
  if (has_word(name, "A30"))
    return &tables[2];
  if (strstr(name, "A100") || strstr(name, "A800")) {
    if (strstr(name, "80GB"))
      return &tables[1];
    return &tables[0];
  }
  return NULL;
}

const struct gi_profile *mig_profile_by_enum(const struct gi_table *t, unsigned profile)
{
  for (unsigned i = 0; t && i < t->nprofiles; i++)
    if (t->profiles[i].profile == profile)
      return &t->profiles[i];
  return NULL;
}

const struct gi_profile *mig_profile_by_id(const struct gi_table *t, unsigned id)
{
  for (unsigned i = 0; t && i < t->nprofiles; i++)
    if (t->profiles[i].id == id)
      return &t->profiles[i];
  return NULL;
}

int mig_match_profile(const struct gi_table *t, unsigned sm, unsigned long long mem_mib, unsigned dec, unsigned jpeg,
                      unsigned ofa)
{
  int best = -1;
  double best_score = 1e9;
  for (unsigned i = 0; t && i < t->nprofiles; i++) {
    const struct gi_profile *p = &t->profiles[i];
    double d = (double)(mem_mib > p->mem_mib ? mem_mib - p->mem_mib : p->mem_mib - mem_mib) / (double)p->mem_mib;
    if (d > 0.05 || sm > p->sm)
      continue;
    /* a compute instance smaller than its GPU instance has fewer SMs */
    double score = d * 100.0 + (sm == p->sm ? 0.0 : 10.0);
    if (dec != p->dec || jpeg != p->jpeg || ofa != p->ofa)
      score += 1.0;
    if (score < best_score) {
      best_score = score;
      best = (int)i;
    }
  }
  return best;
}

/* the free placements of p with `used` occupied (p's own placements never overlap) */
static unsigned free_placements(const struct gi_table *t, const struct gi_profile *p, const unsigned char *used)
{
  unsigned n = 0;
  for (unsigned k = 0; k < p->placements; k++) {
    unsigned start = k * p->mem_slices, free = start + p->mem_slices <= t->mem_slices;
    for (unsigned s = start; free && s < start + p->mem_slices; s++)
      free = used[s] == 0;
    n += free;
  }
  return n;
}

/* Every arrangement of the existing instances on their placements; *best is the most free
 * placements of p any complete arrangement leaves. The file does not say where instances
 * sit, so the answer is the most favourable arrangement. At most 16 instances of 8
 * placements each, and overlapping choices are cut at once. */
static void arrange(const struct gi_table *t, const int *existing, unsigned n, unsigned i, unsigned char *used,
                    const struct gi_profile *p, int *best)
{
  if (i == n) {
    int f = (int)free_placements(t, p, used);
    if (f > *best)
      *best = f;
    return;
  }
  if (existing[i] < 0 || (unsigned)existing[i] >= t->nprofiles) {
    arrange(t, existing, n, i + 1, used, p, best); /* unknown profile: ignored */
    return;
  }
  const struct gi_profile *e = &t->profiles[existing[i]];
  for (unsigned k = 0; k < e->placements; k++) {
    unsigned start = k * e->mem_slices, free = start + e->mem_slices <= t->mem_slices;
    for (unsigned s = start; free && s < start + e->mem_slices; s++)
      free = used[s] == 0;
    if (!free)
      continue;
    memset(used + start, 1, e->mem_slices);
    arrange(t, existing, n, i + 1, used, p, best);
    memset(used + start, 0, e->mem_slices);
  }
}

unsigned mig_remaining(const struct gi_table *t, const int *existing, unsigned nexisting, int pi)
{
  if (!t || pi < 0 || (unsigned)pi >= t->nprofiles || t->mem_slices > 16)
    return 0;
  const struct gi_profile *p = &t->profiles[pi];
  unsigned compute = 0, same = 0;
  for (unsigned i = 0; i < nexisting; i++) {
    if (existing[i] < 0 || (unsigned)existing[i] >= t->nprofiles)
      continue;
    compute += t->profiles[existing[i]].slices;
    same += existing[i] == pi;
  }
  unsigned char used[16] = {0};
  int best = -1; /* -1: the existing instances fit no arrangement */
  arrange(t, existing, nexisting, 0, used, p, &best);
  if (best <= 0 || same >= p->instances || compute + p->slices > t->compute_slices)
    return 0;
  unsigned n = (unsigned)best;
  if (n > p->instances - same)
    n = p->instances - same;
  if (n > (t->compute_slices - compute) / p->slices)
    n = (t->compute_slices - compute) / p->slices;
  return n;
}
