/* Tests of the NVML double: `test_nvml_double SUITE`, one CTest per suite (each in its own
 * process, since the environment drives the double). The double is loaded the way axl
 * loads NVML: dlopen() by absolute path with RTLD_NOW | RTLD_LOCAL, every entry point
 * through dlsym(). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "nvml_types.h"
#include "xml.h"

/* every entry point of the current build */
#define FUNCS(X)                                                                                             \
  X(nvmlInit) X(nvmlInit_v2) X(nvmlInitWithFlags) X(nvmlShutdown) X(nvmlErrorString)                          \
  X(nvmlSystemGetDriverVersion) X(nvmlSystemGetNVMLVersion) X(nvmlSystemGetCudaDriverVersion)                 \
  X(nvmlSystemGetCudaDriverVersion_v2) X(nvmlDeviceGetCount) X(nvmlDeviceGetCount_v2)                         \
  X(nvmlDeviceGetHandleByIndex) X(nvmlDeviceGetHandleByIndex_v2) X(nvmlDeviceGetHandleByPciBusId)             \
  X(nvmlDeviceGetHandleByPciBusId_v2) X(nvmlDeviceGetHandleByUUID) X(nvmlDeviceGetName) X(nvmlDeviceGetUUID)  \
  X(nvmlDeviceGetSerial) X(nvmlDeviceGetBoardPartNumber) X(nvmlDeviceGetVbiosVersion)                         \
  X(nvmlDeviceGetInforomImageVersion) X(nvmlDeviceGetMinorNumber) X(nvmlDeviceGetIndex) X(nvmlDeviceGetBrand) \
  X(nvmlDeviceGetArchitecture) X(nvmlDeviceGetCudaComputeCapability) X(nvmlDeviceGetNumGpuCores)             \
  X(nvmlDeviceGetPciInfo) X(nvmlDeviceGetPciInfo_v2) X(nvmlDeviceGetPciInfo_v3)                               \
  X(nvmlDeviceGetCurrPcieLinkGeneration) X(nvmlDeviceGetMaxPcieLinkGeneration)                                \
  X(nvmlDeviceGetCurrPcieLinkWidth) X(nvmlDeviceGetMaxPcieLinkWidth) X(nvmlDeviceGetMemoryInfo)              \
  X(nvmlDeviceGetMemoryInfo_v2) X(nvmlDeviceGetBAR1MemoryInfo) X(nvmlDeviceGetClockInfo)                      \
  X(nvmlDeviceGetMaxClockInfo) X(nvmlDeviceGetPowerManagementLimit) X(nvmlDeviceGetPowerManagementDefaultLimit) \
  X(nvmlDeviceGetEnforcedPowerLimit) X(nvmlDeviceGetPowerManagementLimitConstraints) X(nvmlDeviceGetEccMode) \
  X(nvmlDeviceGetPersistenceMode) X(nvmlDeviceGetComputeMode) X(nvmlDeviceGetUtilizationRates)              \
  X(nvmlDeviceGetTemperature) X(nvmlDeviceGetPowerUsage) X(nvmlDeviceGetTotalEnergyConsumption)             \
  X(nvmlDeviceGetFanSpeed) X(nvmlDeviceGetPerformanceState) X(nvmlDeviceGetCurrentClocksThrottleReasons)     \
  X(nvmlDeviceGetCurrentClocksEventReasons) X(nvmlDeviceGetComputeRunningProcesses)                           \
  X(nvmlDeviceGetComputeRunningProcesses_v2) X(nvmlDeviceGetComputeRunningProcesses_v3)                       \
  X(nvmlDeviceGetGraphicsRunningProcesses) X(nvmlDeviceGetGraphicsRunningProcesses_v2)                        \
  X(nvmlDeviceGetGraphicsRunningProcesses_v3) X(nvmlDeviceGetPcieThroughput) X(nvmlDeviceGetNvLinkState)     \
  X(nvmlDeviceGetNvLinkVersion) X(nvmlDeviceGetNvLinkCapability) X(nvmlDeviceGetNvLinkRemotePciInfo)         \
  X(nvmlDeviceGetNvLinkRemotePciInfo_v2) X(nvmlDeviceGetNvLinkRemoteDeviceType) X(nvmlDeviceGetFieldValues)  \
  X(nvmlDeviceGetTopologyCommonAncestor) X(nvmlDeviceGetP2PStatus) X(nvmlDeviceGetMigMode)                   \
  X(nvmlDeviceGetMaxMigDeviceCount) X(nvmlDeviceGetMigDeviceHandleByIndex) X(nvmlDeviceIsMigDeviceHandle)    \
  X(nvmlDeviceGetGpuInstanceId) X(nvmlDeviceGetComputeInstanceId)                                             \
  X(nvmlDeviceGetDeviceHandleFromMigDeviceHandle) X(nvmlDeviceGetAttributes) X(nvmlDeviceGetAttributes_v2)   \
  X(nvmlDeviceGetGpuInstanceProfileInfo) X(nvmlDeviceGetGpuInstanceProfileInfoV)                              \
  X(nvmlDeviceGetGpuInstanceRemainingCapacity) X(nvmlDeviceGetEncoderUtilization)                          \
  X(nvmlDeviceGetDecoderUtilization) X(nvmlDeviceGetTotalEccErrors) X(nvmlDeviceGetProcessUtilization)       \
  X(nvmlEventSetCreate) X(nvmlDeviceGetSupportedEventTypes) X(nvmlDeviceRegisterEvents) X(nvmlEventSetWait)  \
  X(nvmlEventSetWait_v2) X(nvmlEventSetFree)

#define DECLARE(f) static __typeof__(f) *p_##f;
FUNCS(DECLARE)

#include "double_suite.h"

#define MIB(x) ((unsigned long long)(x) << 20)

static void load_current(void)
{
  void *lib = open_double(NVMLD_LIB);
#define LOAD(f)                                                                                              \
  p_##f = (__typeof__(f) *)dlsym(lib, #f);                                                                   \
  if (!p_##f) {                                                                                              \
    fprintf(stderr, "%s: no symbol %s\n", NVMLD_LIB, #f);                                                    \
    exit(2);                                                                                                 \
  }
  FUNCS(LOAD)
#undef LOAD
}

static char fixture_path[4096];
static const char *fixture(const char *name)
{
  snprintf(fixture_path, sizeof(fixture_path), "%s/%s", NVMLD_FIXTURES, name);
  return fixture_path;
}

static void use_xml(const char *name) { setenv("AXL_NVML_DOUBLE_XML", fixture(name), 1); }

static void reset_env(void)
{
  unsetenv("AXL_NVML_DOUBLE_XML");
  unsetenv("AXL_NVML_DOUBLE_EXTRA");
  unsetenv("AXL_NVML_DOUBLE_FAIL");
  unsetenv("AXL_NVML_DOUBLE_HANG");
  unsetenv("AXL_NVML_DOUBLE_NONSENSE");
  unsetenv("AXL_NVML_DOUBLE_LOG");
  unsetenv("AXL_NVML_DOUBLE_EVENTS");
}

static nvmlDevice_t gpu(unsigned i)
{
  nvmlDevice_t d = NULL;
  RC(p_nvmlDeviceGetHandleByIndex_v2(i, &d), NVML_SUCCESS);
  return d;
}

static char *str_of(nvmlReturn_t (*fn)(nvmlDevice_t, char *, unsigned), nvmlDevice_t d, char *buf, unsigned len)
{
  nvmlReturn_t rc = fn(d, buf, len);
  if (rc != NVML_SUCCESS)
    snprintf(buf, len, "<rc %d>", (int)rc);
  return buf;
}

/* a temporary file with the given contents; the path is static storage */
static const char *temp_file(const char *contents)
{
  static char path[64];
  static int n;
  snprintf(path, sizeof(path), "/tmp/nvml_double_test.%d.%d", (int)getpid(), n++);
  FILE *f = fopen(path, "w");
  if (!f) {
    perror(path);
    exit(2);
  }
  fputs(contents, f);
  fclose(f);
  return path;
}

static char *read_file(const char *path)
{
  FILE *f = fopen(path, "rb");
  if (!f)
    return NULL;
  size_t cap = 1 << 16, len = 0;
  char *buf = malloc(cap);
  size_t got;
  while (buf && (got = fread(buf + len, 1, cap - len - 1, f)) > 0) {
    len += got;
    if (len + 1 == cap) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) {
        free(buf);
        buf = NULL;
      } else {
        buf = nb;
      }
    }
  }
  fclose(f);
  if (buf)
    buf[len] = '\0';
  return buf;
}

/* ==== the XML reader ======================================================================== */
static int parses(const char *text)
{
  char err[256];
  struct xml_doc *d = xml_parse(text, strlen(text), err, sizeof(err));
  xml_free(d);
  return d != NULL;
}

static void suite_xml(void)
{
  const char *good = "\xEF\xBB\xBF<?xml version=\"1.0\" ?>\n<!-- c -->\n<!DOCTYPE log SYSTEM \"x.dtd\">\n"
                     "<log>\n <gpu id='00:01.0' x=\"a&amp;b\">\n  <name>A &lt;b&gt; &quot;c&quot; &apos;d&apos; "
                     "&#65;&#x42;&#x20AC;</name>\n  <empty/>\n  <e2 />\n  <mixed> one <!-- no --> two "
                     "<![CDATA[<three>]]> </mixed>\n </gpu>\n <gpu id=\"2\"/>\n</log>\n<!-- end -->\n";
  char err[256];
  struct xml_doc *d = xml_parse(good, strlen(good), err, sizeof(err));
  CHECK(d != NULL);
  if (d) {
    const struct xml_node *root = xml_root(d);
    STREQ(root->name, "log");
    const struct xml_node *g = xml_child(root, "gpu");
    CHECK(g != NULL);
    STREQ(xml_attr(g, "id"), "00:01.0");
    STREQ(xml_attr(g, "x"), "a&b");
    STREQ(xml_path_text(g, "name"), "A <b> \"c\" 'd' AB\xE2\x82\xAC");
    CHECK(xml_path_text(g, "empty") == NULL);
    CHECK(xml_child(g, "e2") != NULL);
    STREQ(xml_path_text(g, "mixed"), "one  two <three>");
    CHECK(g->text == NULL);
    const struct xml_node *g2 = xml_next_same(g);
    CHECK(g2 != NULL && strcmp(xml_attr(g2, "id"), "2") == 0);
    CHECK(xml_next_same(g2) == NULL);
    CHECK(xml_path(root, "gpu/nothing") == NULL);
    xml_free(d);
  }
  static const char *const bad[] = {
      "",
      "   ",
      "text",
      "<a>",
      "<a></b>",
      "<a><b></a></b>",
      "<a>&unknown;</a>",
      "<a>&amp</a>",
      "<a>&#0;</a>",
      "<a>&#xD800;</a>",
      "<a>&#x110000;</a>",
      "<a x=\"1\" x=\"2\"/>",
      "<a x=1/>",
      "<a x=\"1\"y=\"2\"/>",
      "<a x=\"<\"/>",
      "<a>\x01</a>",
      "<a/><b/>",
      "<a/>text",
      "<!DOCTYPE a [<!ENTITY e \"x\">]><a/>",
      "<!DOCTYPE a><!DOCTYPE a><a/>",
      "<a><!-- unterminated </a>",
      "<a><![CDATA[ unterminated </a>",
      "<a>]]></a>",
      "<1a/>",
      "<a></a ",
      "<a><!ELEMENT x></a>",
  };
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
    if (parses(bad[i])) {
      fprintf(stderr, "accepted bad XML #%zu: %s\n", i, bad[i]);
      failures++;
    }
  /* an embedded NUL is an error, not the end */
  CHECK(xml_parse("<a>\0</a>", 8, err, sizeof(err)) == NULL);
  /* nesting: 64 levels are fine, 65 are not */
  char deep[2048] = "", tmp[2048];
  for (int depth = 64; depth <= 65; depth++) {
    deep[0] = '\0';
    for (int i = 0; i < depth; i++)
      strcat(deep, "<a>");
    for (int i = 0; i < depth; i++)
      strcat(deep, "</a>");
    snprintf(tmp, sizeof(tmp), "%s", deep);
    CHECK(parses(tmp) == (depth == 64));
  }
  /* the error names the line */
  CHECK(xml_parse("<a>\n\n<b></a>", 12, err, sizeof(err)) == NULL);
  CHECK(strncmp(err, "line 3:", 7) == 0);
  /* every fixture parses */
  static const char *const files[] = {
      "telegraf-3090-v13.xml", "telegraf-a100-sxm4-v12.xml", "telegraf-a10g.xml", "telegraf-dual_2070-v13.xml",
      "telegraf-dual_2080-v13.xml", "telegraf-dual_a5000-v13.xml", "telegraf-gt-1030.xml",
      "telegraf-gtx-1660-ti.xml", "telegraf-pro-6000-maxq-blackwell-v13.xml", "telegraf-quadro-p2000-v12.xml",
      "telegraf-quadro-p400.xml", "telegraf-rtx-3060-v12.xml", "telegraf-rtx-3080-v12.xml",
      "telegraf-rtx-3080-v13.xml", "telegraf-rtx-3090-v12.xml", "telegraf-rtx-4000-sff-ada-v13.xml",
      "telegraf-tesla-t4.xml", "telegraf-tesla_p4-grid-vgpu.xml", "hgx-8x-h100-q2x.xml"};
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    struct xml_doc *f = xml_load(fixture(files[i]), err, sizeof(err));
    if (!f) {
      fprintf(stderr, "%s\n", err);
      failures++;
    }
    xml_free(f);
  }
}

/* ==== A100-SXM4-80GB with four 1g.20gb MIG devices ========================================== */
static void suite_a100_mig(void)
{
  use_xml("telegraf-a100-sxm4-v12.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  char buf[128];
  unsigned n = 0;
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EQ(n, 1); /* the file says attached_gpus 4 but holds one <gpu> */
  RC(p_nvmlDeviceGetCount(&n), NVML_SUCCESS);
  EQ(n, 1);
  RC(p_nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "535.54.03");
  RC(p_nvmlSystemGetNVMLVersion(buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "12.535.54.03");
  int cuda = 0;
  RC(p_nvmlSystemGetCudaDriverVersion(&cuda), NVML_SUCCESS);
  EQ(cuda, 12020);
  RC(p_nvmlSystemGetCudaDriverVersion_v2(&cuda), NVML_SUCCESS);
  EQ(cuda, 12020);

  nvmlDevice_t d = gpu(0), d1 = NULL;
  RC(p_nvmlDeviceGetHandleByIndex(0, &d1), NVML_SUCCESS);
  CHECK(d == d1);
  RC(p_nvmlDeviceGetHandleByIndex_v2(1, &d1), NVML_ERROR_INVALID_ARGUMENT);
  STREQ(str_of(p_nvmlDeviceGetName, d, buf, sizeof(buf)), "NVIDIA A100-SXM4-80GB");
  STREQ(str_of(p_nvmlDeviceGetUUID, d, buf, sizeof(buf)), "GPU-513536b6-7d19-9063-b049-1e69664bb298");
  STREQ(str_of(p_nvmlDeviceGetSerial, d, buf, sizeof(buf)), "1650522003820");
  STREQ(str_of(p_nvmlDeviceGetBoardPartNumber, d, buf, sizeof(buf)), "692-2G506-0212-002");
  STREQ(str_of(p_nvmlDeviceGetVbiosVersion, d, buf, sizeof(buf)), "92.00.36.00.02");
  STREQ(str_of(p_nvmlDeviceGetInforomImageVersion, d, buf, sizeof(buf)), "G506.0212.00.01");
  RC(p_nvmlDeviceGetName(d, buf, 21), NVML_ERROR_INSUFFICIENT_SIZE); /* 21 chars + NUL */
  RC(p_nvmlDeviceGetName(d, buf, 22), NVML_SUCCESS);
  RC(p_nvmlDeviceGetHandleByUUID("GPU-513536b6-7d19-9063-b049-1e69664bb298", &d1), NVML_SUCCESS);
  CHECK(d1 == d);
  RC(p_nvmlDeviceGetHandleByUUID("GPU-00000000-0000-0000-0000-000000000000", &d1), NVML_ERROR_NOT_FOUND);
  static const char *const ids[] = {"00000000:01:00.0", "0000:01:00.0", "01:00.0", "00000000:01:00"};
  for (size_t i = 0; i < sizeof(ids) / sizeof(ids[0]); i++) {
    d1 = NULL;
    RC(p_nvmlDeviceGetHandleByPciBusId_v2(ids[i], &d1), NVML_SUCCESS);
    CHECK(d1 == d);
  }
  RC(p_nvmlDeviceGetHandleByPciBusId(ids[0], &d1), NVML_SUCCESS);
  RC(p_nvmlDeviceGetHandleByPciBusId_v2("0000:02:00.0", &d1), NVML_ERROR_NOT_FOUND);
  RC(p_nvmlDeviceGetHandleByPciBusId_v2("not a bus id", &d1), NVML_ERROR_INVALID_ARGUMENT);

  unsigned u = 0;
  RC(p_nvmlDeviceGetMinorNumber(d, &u), NVML_SUCCESS);
  EQ(u, 1);
  RC(p_nvmlDeviceGetIndex(d, &u), NVML_SUCCESS);
  EQ(u, 0);
  nvmlBrandType_t brand;
  RC(p_nvmlDeviceGetBrand(d, &brand), NVML_SUCCESS);
  EQ(brand, NVML_BRAND_NVIDIA);
  nvmlDeviceArchitecture_t arch;
  RC(p_nvmlDeviceGetArchitecture(d, &arch), NVML_SUCCESS);
  EQ(arch, NVML_DEVICE_ARCH_AMPERE);
  int major = 0, minor = 0;
  RC(p_nvmlDeviceGetCudaComputeCapability(d, &major, &minor), NVML_SUCCESS);
  EQ(major, 8);
  EQ(minor, 0);
  RC(p_nvmlDeviceGetNumGpuCores(d, &u), NVML_SUCCESS);
  EQ(u, 6912);

  nvmlPciInfo_t pci;
  memset(&pci, 0xee, sizeof(pci));
  RC(p_nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  STREQ(pci.busId, "00000000:01:00.0");
  STREQ(pci.busIdLegacy, "0000:01:00.0");
  EQ(pci.domain, 0);
  EQ(pci.bus, 1);
  EQ(pci.device, 0);
  EQ(pci.pciDeviceId, 0x20B210DE);
  EQ(pci.pciSubSystemId, 0x147F10DE);
  /* the base symbol and _v2 fill the 2012 layout: the first 52 bytes of the nvmlPciInfo_t */
  nvmlPciInfo_t raw;
  nvmld_pci_info_v1_t pci1;
  memset(&raw, 0xab, sizeof(raw));
  RC(p_nvmlDeviceGetPciInfo(d, &raw), NVML_SUCCESS);
  memcpy(&pci1, &raw, sizeof(pci1));
  STREQ(pci1.busId, "0000:01:00.0");
  EQ(pci1.pciDeviceId, 0x20B210DE);
  CHECK(((unsigned char *)&raw)[sizeof(pci1)] == 0xab && ((unsigned char *)&raw)[sizeof(raw) - 1] == 0xab);
  memset(&raw, 0xab, sizeof(raw));
  RC(p_nvmlDeviceGetPciInfo_v2(d, &raw), NVML_SUCCESS);
  memcpy(&pci1, &raw, sizeof(pci1));
  EQ(pci1.bus, 1);
  CHECK(((unsigned char *)&raw)[sizeof(pci1)] == 0xab);
  RC(p_nvmlDeviceGetCurrPcieLinkGeneration(d, &u), NVML_SUCCESS);
  EQ(u, 4);
  RC(p_nvmlDeviceGetMaxPcieLinkGeneration(d, &u), NVML_SUCCESS);
  EQ(u, 4);
  RC(p_nvmlDeviceGetCurrPcieLinkWidth(d, &u), NVML_SUCCESS);
  EQ(u, 16);
  RC(p_nvmlDeviceGetMaxPcieLinkWidth(d, &u), NVML_SUCCESS);
  EQ(u, 16);

  nvmlMemory_t mem;
  RC(p_nvmlDeviceGetMemoryInfo(d, &mem), NVML_SUCCESS);
  EQ(mem.total, MIB(81920));
  EQ(mem.free, MIB(80999));
  EQ(mem.used, MIB(50 + 869));
  nvmlMemory_v2_t mem2;
  memset(&mem2, 0, sizeof(mem2));
  RC(p_nvmlDeviceGetMemoryInfo_v2(d, &mem2), NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  mem2.version = nvmlMemory_v2;
  RC(p_nvmlDeviceGetMemoryInfo_v2(d, &mem2), NVML_SUCCESS);
  EQ(mem2.total, MIB(81920));
  EQ(mem2.reserved, MIB(869));
  EQ(mem2.used, MIB(50));
  EQ(mem2.free, MIB(80999));
  nvmlBAR1Memory_t bar1;
  RC(p_nvmlDeviceGetBAR1MemoryInfo(d, &bar1), NVML_SUCCESS);
  EQ(bar1.bar1Total, MIB(131072));
  EQ(bar1.bar1Used, MIB(1));
  EQ(bar1.bar1Free, MIB(131071));

  static const unsigned clocks[4] = {1275, 1275, 1593, 1275}, max_clocks[4] = {1410, 1410, 1593, 1290};
  for (int t = 0; t < 4; t++) {
    RC(p_nvmlDeviceGetClockInfo(d, (nvmlClockType_t)t, &u), NVML_SUCCESS);
    EQ(u, clocks[t]);
    RC(p_nvmlDeviceGetMaxClockInfo(d, (nvmlClockType_t)t, &u), NVML_SUCCESS);
    EQ(u, max_clocks[t]);
  }
  RC(p_nvmlDeviceGetPowerManagementLimit(d, &u), NVML_SUCCESS);
  EQ(u, 500000);
  RC(p_nvmlDeviceGetPowerManagementDefaultLimit(d, &u), NVML_SUCCESS);
  EQ(u, 500000);
  RC(p_nvmlDeviceGetEnforcedPowerLimit(d, &u), NVML_SUCCESS);
  EQ(u, 500000);
  unsigned lo = 0, hi = 0;
  RC(p_nvmlDeviceGetPowerManagementLimitConstraints(d, &lo, &hi), NVML_SUCCESS);
  EQ(lo, 100000);
  EQ(hi, 500000);
  RC(p_nvmlDeviceGetPowerUsage(d, &u), NVML_SUCCESS);
  EQ(u, 67030);
  nvmlEnableState_t cur, pend;
  RC(p_nvmlDeviceGetEccMode(d, &cur, &pend), NVML_SUCCESS);
  EQ(cur, NVML_FEATURE_ENABLED);
  EQ(pend, NVML_FEATURE_ENABLED);
  RC(p_nvmlDeviceGetPersistenceMode(d, &cur), NVML_SUCCESS);
  EQ(cur, NVML_FEATURE_DISABLED);
  nvmlComputeMode_t cm;
  RC(p_nvmlDeviceGetComputeMode(d, &cm), NVML_SUCCESS);
  EQ(cm, NVML_COMPUTEMODE_DEFAULT);
  nvmlUtilization_t util;
  RC(p_nvmlDeviceGetUtilizationRates(d, &util), NVML_ERROR_NOT_SUPPORTED); /* N/A with MIG on */
  RC(p_nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &u), NVML_SUCCESS);
  EQ(u, 27);
  RC(p_nvmlDeviceGetFanSpeed(d, &u), NVML_ERROR_NOT_SUPPORTED);
  unsigned long long ull = 1;
  RC(p_nvmlDeviceGetTotalEnergyConsumption(d, &ull), NVML_ERROR_NOT_SUPPORTED);
  nvmlPstates_t ps;
  RC(p_nvmlDeviceGetPerformanceState(d, &ps), NVML_SUCCESS);
  EQ(ps, 0);
  RC(p_nvmlDeviceGetCurrentClocksEventReasons(d, &ull), NVML_SUCCESS);
  EQ(ull, 0);
  RC(p_nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &u), NVML_SUCCESS);
  EQ(u, 4000);
  RC(p_nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_RX_BYTES, &u), NVML_SUCCESS);
  EQ(u, 0);
  unsigned count = 0;
  RC(p_nvmlDeviceGetComputeRunningProcesses_v3(d, &count, NULL), NVML_SUCCESS);
  EQ(count, 0);

  /* MIG */
  unsigned mc = 9, mp = 9;
  RC(p_nvmlDeviceGetMigMode(d, &mc, &mp), NVML_SUCCESS);
  EQ(mc, 1);
  EQ(mp, 1);
  RC(p_nvmlDeviceGetMaxMigDeviceCount(d, &u), NVML_SUCCESS);
  EQ(u, 7);
  RC(p_nvmlDeviceIsMigDeviceHandle(d, &u), NVML_SUCCESS);
  EQ(u, 0);
  RC(p_nvmlDeviceGetGpuInstanceId(d, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetDeviceHandleFromMigDeviceHandle(d, &d1), NVML_ERROR_INVALID_ARGUMENT);
  nvmlDeviceAttributes_t attr;
  RC(p_nvmlDeviceGetAttributes_v2(d, &attr), NVML_ERROR_NOT_SUPPORTED);
  char uuids[4][96];
  for (unsigned i = 0; i < 4; i++) {
    nvmlDevice_t m = NULL, parent = NULL;
    RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, i, &m), NVML_SUCCESS);
    if (!m)
      continue;
    RC(p_nvmlDeviceIsMigDeviceHandle(m, &u), NVML_SUCCESS);
    EQ(u, 1);
    RC(p_nvmlDeviceGetGpuInstanceId(m, &u), NVML_SUCCESS);
    EQ(u, 3 + i);
    RC(p_nvmlDeviceGetComputeInstanceId(m, &u), NVML_SUCCESS);
    EQ(u, 0);
    RC(p_nvmlDeviceGetDeviceHandleFromMigDeviceHandle(m, &parent), NVML_SUCCESS);
    CHECK(parent == d);
    RC(p_nvmlDeviceGetMemoryInfo(m, &mem), NVML_SUCCESS);
    EQ(mem.total, MIB(19968));
    EQ(mem.used, MIB(12));
    EQ(mem.free, MIB(19955));
    mem2.version = nvmlMemory_v2;
    RC(p_nvmlDeviceGetMemoryInfo_v2(m, &mem2), NVML_SUCCESS);
    EQ(mem2.total, MIB(19968));
    EQ(mem2.reserved, 0);
    RC(p_nvmlDeviceGetBAR1MemoryInfo(m, &bar1), NVML_SUCCESS);
    EQ(bar1.bar1Total, MIB(32767));
    memset(&attr, 0xee, sizeof(attr));
    RC(p_nvmlDeviceGetAttributes_v2(m, &attr), NVML_SUCCESS);
    EQ(attr.multiprocessorCount, 14);
    EQ(attr.sharedCopyEngineCount, 1);
    EQ(attr.sharedDecoderCount, 1);
    EQ(attr.sharedEncoderCount, 0);
    EQ(attr.sharedJpegCount, 0);
    EQ(attr.sharedOfaCount, 0);
    EQ(attr.gpuInstanceSliceCount, 1);
    EQ(attr.computeInstanceSliceCount, 1);
    EQ(attr.memorySizeMB, 19968);
    RC(p_nvmlDeviceGetAttributes(m, &attr), NVML_SUCCESS);
    STREQ(str_of(p_nvmlDeviceGetName, m, buf, sizeof(buf)), "NVIDIA A100-SXM4-80GB MIG 1g.20gb");
    RC(p_nvmlDeviceGetUUID(m, uuids[i], sizeof(uuids[i])), NVML_SUCCESS);
    CHECK(strncmp(uuids[i], "MIG-", 4) == 0 && strlen(uuids[i]) == 40);
    for (unsigned j = 0; j < i; j++)
      CHECK(strcmp(uuids[i], uuids[j]) != 0);
    RC(p_nvmlDeviceGetHandleByUUID(uuids[i], &d1), NVML_SUCCESS);
    CHECK(d1 == m);
    /* what a MIG handle does not answer */
    RC(p_nvmlDeviceGetPciInfo_v3(m, &pci), NVML_ERROR_NOT_SUPPORTED);
    RC(p_nvmlDeviceGetMigMode(m, &mc, &mp), NVML_ERROR_NOT_SUPPORTED);
    RC(p_nvmlDeviceGetMigDeviceHandleByIndex(m, 0, &d1), NVML_ERROR_INVALID_ARGUMENT);
  }
  nvmlDevice_t m;
  RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, 4, &m), NVML_ERROR_NOT_FOUND);
  RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, 7, &m), NVML_ERROR_INVALID_ARGUMENT);

  /* GPU-instance profiles of the A100 80GB */
  nvmlGpuInstanceProfileInfo_t pi;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE_REV2, &pi), NVML_SUCCESS);
  EQ(pi.id, 15);
  EQ(pi.sliceCount, 1);
  EQ(pi.instanceCount, 4);
  EQ(pi.multiprocessorCount, 14);
  EQ(pi.memorySizeMB, 19968);
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_7_SLICE, &pi), NVML_SUCCESS);
  EQ(pi.id, 0);
  EQ(pi.multiprocessorCount, 98);
  EQ(pi.sliceCount, 7);
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_8_SLICE, &pi), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_COUNT, &pi), NVML_ERROR_INVALID_ARGUMENT);
  nvmlGpuInstanceProfileInfo_v2_t pi2;
  memset(&pi2, 0, sizeof(pi2));
  RC(p_nvmlDeviceGetGpuInstanceProfileInfoV(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi2),
     NVML_ERROR_ARGUMENT_VERSION_MISMATCH);
  pi2.version = nvmlGpuInstanceProfileInfo_v2;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfoV(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi2), NVML_SUCCESS);
  EQ(pi2.id, 19);
  EQ(pi2.instanceCount, 7);
  STREQ(pi2.name, "MIG 1g.10gb");
  EQ(pi2.version, nvmlGpuInstanceProfileInfo_v2);
  /* the four 1g.20gb instances fill all eight memory slices: nothing more fits */
  static const unsigned profile_ids[] = {19, 20, 15, 14, 9, 5, 0};
  for (size_t i = 0; i < sizeof(profile_ids) / sizeof(profile_ids[0]); i++) {
    u = 99;
    RC(p_nvmlDeviceGetGpuInstanceRemainingCapacity(d, profile_ids[i], &u), NVML_SUCCESS);
    EQ(u, 0);
  }
  RC(p_nvmlDeviceGetGpuInstanceRemainingCapacity(d, 99, &u), NVML_ERROR_INVALID_ARGUMENT);

  /* no NVLink data without an extra file */
  nvmlEnableState_t st;
  RC(p_nvmlDeviceGetNvLinkState(d, 0, &st), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetNvLinkState(d, NVML_NVLINK_MAX_LINKS, &st), NVML_ERROR_INVALID_ARGUMENT);
  nvmlFieldValue_t fv[2];
  memset(fv, 0, sizeof(fv));
  fv[0].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
  fv[1].fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
  RC(p_nvmlDeviceGetFieldValues(d, 2, fv), NVML_SUCCESS);
  EQ(fv[0].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  EQ(fv[1].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
  CHECK(fv[0].timestamp > 0);

  /* reference counting */
  RC(p_nvmlInit(), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
  RC(p_nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_ERROR_UNINITIALIZED);
  RC(p_nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  /* the handles are stable across a shutdown and a new init */
  RC(p_nvmlInitWithFlags(0), NVML_SUCCESS);
  CHECK(gpu(0) == d);
  STREQ(str_of(p_nvmlDeviceGetSerial, d, buf, sizeof(buf)), "1650522003820");
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== two GPUs (v13 file) ====================================================================== */
static void suite_dual(void)
{
  use_xml("telegraf-dual_a5000-v13.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  unsigned n = 0, u;
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EQ(n, 2);
  nvmlDevice_t a = gpu(0), b = gpu(1);
  CHECK(a && b && a != b);
  nvmlPciInfo_t pa, pb;
  RC(p_nvmlDeviceGetPciInfo_v3(a, &pa), NVML_SUCCESS);
  RC(p_nvmlDeviceGetPciInfo_v3(b, &pb), NVML_SUCCESS);
  STREQ(pa.busId, "00000000:81:00.0");
  STREQ(pb.busId, "00000000:C1:00.0");
  EQ(pa.pciDeviceId, 0x223110DE);
  char ua[96], ub[96];
  RC(p_nvmlDeviceGetUUID(a, ua, sizeof(ua)), NVML_SUCCESS);
  RC(p_nvmlDeviceGetUUID(b, ub, sizeof(ub)), NVML_SUCCESS);
  CHECK(strcmp(ua, ub) != 0);
  RC(p_nvmlDeviceGetMinorNumber(a, &u), NVML_SUCCESS);
  EQ(u, 1);
  RC(p_nvmlDeviceGetMinorNumber(b, &u), NVML_SUCCESS);
  EQ(u, 0);
  RC(p_nvmlDeviceGetIndex(b, &u), NVML_SUCCESS);
  EQ(u, 1);
  nvmlDevice_t x;
  RC(p_nvmlDeviceGetHandleByPciBusId_v2("0000:c1:00.0", &x), NVML_SUCCESS);
  CHECK(x == b);
  nvmlBrandType_t brand;
  RC(p_nvmlDeviceGetBrand(a, &brand), NVML_SUCCESS);
  EQ(brand, NVML_BRAND_NVIDIA_RTX);
  int major, minor;
  RC(p_nvmlDeviceGetCudaComputeCapability(a, &major, &minor), NVML_SUCCESS);
  EQ(major * 10 + minor, 86);
  RC(p_nvmlDeviceGetNumGpuCores(a, &u), NVML_SUCCESS);
  EQ(u, 8192);

  /* v13 power readings: average_power_draw, current (enforced) and requested limits */
  RC(p_nvmlDeviceGetPowerUsage(a, &u), NVML_SUCCESS);
  EQ(u, 6410);
  RC(p_nvmlDeviceGetEnforcedPowerLimit(a, &u), NVML_SUCCESS);
  EQ(u, 230000);
  RC(p_nvmlDeviceGetPowerManagementLimit(a, &u), NVML_SUCCESS);
  EQ(u, 230000);
  RC(p_nvmlDeviceGetFanSpeed(a, &u), NVML_SUCCESS);
  EQ(u, 30);
  nvmlPstates_t ps;
  RC(p_nvmlDeviceGetPerformanceState(a, &ps), NVML_SUCCESS);
  EQ(ps, 8);
  unsigned long long reasons;
  RC(p_nvmlDeviceGetCurrentClocksEventReasons(a, &reasons), NVML_SUCCESS);
  EQ(reasons, nvmlClocksEventReasonGpuIdle);
  RC(p_nvmlDeviceGetCurrentClocksThrottleReasons(a, &reasons), NVML_SUCCESS);
  EQ(reasons, nvmlClocksEventReasonGpuIdle);
  nvmlUtilization_t util;
  RC(p_nvmlDeviceGetUtilizationRates(a, &util), NVML_SUCCESS);
  EQ(util.gpu, 0);
  nvmlEnableState_t cur, pend;
  RC(p_nvmlDeviceGetEccMode(a, &cur, &pend), NVML_SUCCESS);
  EQ(cur, NVML_FEATURE_DISABLED);
  RC(p_nvmlDeviceGetPersistenceMode(a, &cur), NVML_SUCCESS);
  EQ(cur, NVML_FEATURE_ENABLED);

  /* processes: the count protocol and both struct versions */
  unsigned count = 0;
  RC(p_nvmlDeviceGetComputeRunningProcesses_v3(a, &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
  EQ(count, 1);
  nvmlProcessInfo_t p3[2];
  memset(p3, 0, sizeof(p3));
  count = 2;
  RC(p_nvmlDeviceGetComputeRunningProcesses_v3(a, &count, p3), NVML_SUCCESS);
  EQ(count, 1);
  EQ(p3[0].pid, 100477);
  EQ(p3[0].usedGpuMemory, MIB(22430));
  EQ(p3[0].gpuInstanceId, 0xffffffffu);
  EQ(p3[0].computeInstanceId, 0xffffffffu);
  nvmlProcessInfo_v2_t p2[2];
  memset(p2, 0, sizeof(p2));
  count = 1;
  RC(p_nvmlDeviceGetComputeRunningProcesses_v2(a, &count, p2), NVML_SUCCESS);
  EQ(p2[0].pid, 100477);
  EQ(p2[0].computeInstanceId, 0xffffffffu);
  nvmlProcessInfo_v1_t p1[2];
  count = 2;
  RC(p_nvmlDeviceGetComputeRunningProcesses(a, &count, p1), NVML_SUCCESS);
  EQ(count, 1);
  EQ(p1[0].pid, 100477);
  count = 0;
  RC(p_nvmlDeviceGetGraphicsRunningProcesses_v3(a, &count, NULL), NVML_SUCCESS);
  EQ(count, 0);
  count = 1;
  RC(p_nvmlDeviceGetComputeRunningProcesses(a, &count, NULL), NVML_ERROR_INVALID_ARGUMENT);

  /* no MIG on an RTX A5000; no topology without an extra file */
  unsigned mc, mp;
  RC(p_nvmlDeviceGetMigMode(a, &mc, &mp), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetMaxMigDeviceCount(a, &u), NVML_SUCCESS);
  EQ(u, 0);
  nvmlGpuInstanceProfileInfo_t pi;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(a, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi), NVML_ERROR_NOT_SUPPORTED);
  nvmlGpuTopologyLevel_t level;
  RC(p_nvmlDeviceGetTopologyCommonAncestor(a, b, &level), NVML_ERROR_NOT_SUPPORTED);
  nvmlGpuP2PStatus_t p2p;
  RC(p_nvmlDeviceGetP2PStatus(a, b, NVML_P2P_CAPS_INDEX_READ, &p2p), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* the 2070 file masks both UUIDs to the same value: the first GPU wins */
  use_xml("telegraf-dual_2070-v13.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetUUID(gpu(0), ua, sizeof(ua)), NVML_SUCCESS);
  RC(p_nvmlDeviceGetUUID(gpu(1), ub, sizeof(ub)), NVML_SUCCESS);
  if (strcmp(ua, ub) == 0) {
    RC(p_nvmlDeviceGetHandleByUUID(ua, &x), NVML_SUCCESS);
    CHECK(x == gpu(0));
  }
  RC(p_nvmlDeviceGetPciInfo_v3(gpu(0), &pa), NVML_SUCCESS);
  RC(p_nvmlDeviceGetPciInfo_v3(gpu(1), &pb), NVML_SUCCESS);
  CHECK(strcmp(pa.busId, pb.busId) != 0);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== files of old drivers: fields missing ======================================================= */
static void suite_old_files(void)
{
  char buf[96];
  unsigned u;
  int major, minor;
  /* driver 418.43: no product_architecture, board part number, reserved memory, ... */
  use_xml("telegraf-gtx-1660-ti.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0);
  STREQ(str_of(p_nvmlDeviceGetName, d, buf, sizeof(buf)), "Graphics Device");
  RC(p_nvmlSystemGetNVMLVersion(buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "10.418.43");
  int cuda;
  RC(p_nvmlSystemGetCudaDriverVersion(&cuda), NVML_SUCCESS);
  EQ(cuda, 10010);
  nvmlDeviceArchitecture_t arch;
  RC(p_nvmlDeviceGetArchitecture(d, &arch), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetCudaComputeCapability(d, &major, &minor), NVML_SUCCESS); /* from device 0x2184 */
  EQ(major * 10 + minor, 75);
  RC(p_nvmlDeviceGetNumGpuCores(d, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetSerial(d, buf, sizeof(buf)), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetBoardPartNumber(d, buf, sizeof(buf)), NVML_ERROR_NOT_SUPPORTED);
  nvmlMemory_v2_t mem2;
  memset(&mem2, 0, sizeof(mem2));
  mem2.version = nvmlMemory_v2;
  RC(p_nvmlDeviceGetMemoryInfo_v2(d, &mem2), NVML_SUCCESS);
  EQ(mem2.total, MIB(5912));
  EQ(mem2.reserved, 0);
  RC(p_nvmlDeviceGetPowerManagementLimit(d, &u), NVML_SUCCESS);
  EQ(u, 130000);
  RC(p_nvmlDeviceGetEnforcedPowerLimit(d, &u), NVML_SUCCESS);
  EQ(u, 130000);
  RC(p_nvmlDeviceGetPowerUsage(d, &u), NVML_SUCCESS);
  EQ(u, 8930);
  unsigned lo, hi;
  RC(p_nvmlDeviceGetPowerManagementLimitConstraints(d, &lo, &hi), NVML_SUCCESS);
  EQ(lo, 70000);
  EQ(hi, 130000);
  unsigned long long reasons;
  RC(p_nvmlDeviceGetCurrentClocksThrottleReasons(d, &reasons), NVML_SUCCESS);
  EQ(reasons, nvmlClocksEventReasonGpuIdle);
  RC(p_nvmlDeviceGetCurrPcieLinkGeneration(d, &u), NVML_SUCCESS);
  EQ(u, 1);
  RC(p_nvmlDeviceGetMaxPcieLinkGeneration(d, &u), NVML_SUCCESS);
  EQ(u, 3);
  unsigned mc, mp;
  RC(p_nvmlDeviceGetMigMode(d, &mc, &mp), NVML_ERROR_NOT_SUPPORTED);
  nvmlEnableState_t cur, pend;
  RC(p_nvmlDeviceGetEccMode(d, &cur, &pend), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  use_xml("telegraf-quadro-p400.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetCudaComputeCapability(gpu(0), &major, &minor), NVML_SUCCESS);
  EQ(major * 10 + minor, 61);
  nvmlBrandType_t brand;
  RC(p_nvmlDeviceGetBrand(gpu(0), &brand), NVML_SUCCESS);
  EQ(brand, NVML_BRAND_QUADRO);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* a Windows host: processes without per-process memory ("N/A") */
  use_xml("telegraf-gt-1030.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  unsigned count = 0;
  RC(p_nvmlDeviceGetGraphicsRunningProcesses_v3(gpu(0), &count, NULL), NVML_ERROR_INSUFFICIENT_SIZE);
  EQ(count, 10);
  nvmlProcessInfo_t procs[16];
  count = 16;
  RC(p_nvmlDeviceGetGraphicsRunningProcesses_v3(gpu(0), &count, procs), NVML_SUCCESS);
  EQ(count, 10);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* Blackwell workstation card: compute capability 12.0 */
  use_xml("telegraf-pro-6000-maxq-blackwell-v13.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetArchitecture(gpu(0), &arch), NVML_SUCCESS);
  EQ(arch, NVML_DEVICE_ARCH_BLACKWELL);
  RC(p_nvmlDeviceGetCudaComputeCapability(gpu(0), &major, &minor), NVML_SUCCESS);
  EQ(major * 10 + minor, 120);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  use_xml("telegraf-rtx-4000-sff-ada-v13.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlDeviceGetArchitecture(gpu(0), &arch), NVML_SUCCESS);
  EQ(arch, NVML_DEVICE_ARCH_ADA);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== every fixture, every entry point: no crash, only SUCCESS or a documented error ======== */
static int ok_or_unsupported(nvmlReturn_t rc)
{
  return rc == NVML_SUCCESS || rc == NVML_ERROR_NOT_SUPPORTED || rc == NVML_ERROR_NOT_FOUND;
}

#define ANY(expr)                                                                                            \
  do {                                                                                                       \
    nvmlReturn_t r_ = (expr);                                                                                \
    if (!ok_or_unsupported(r_)) {                                                                            \
      fprintf(stderr, "%s:%d: [%s] %s: %s = %d\n", __FILE__, __LINE__, suite_name, file, #expr, (int)r_);    \
      failures++;                                                                                            \
    }                                                                                                        \
  } while (0)

static void query_everything(const char *file, nvmlDevice_t d)
{
  char buf[NVML_DEVICE_NAME_V2_BUFFER_SIZE];
  unsigned u, lo, hi;
  int a, b;
  unsigned long long ull;
  nvmlEnableState_t e1, e2;
  ANY(p_nvmlDeviceGetName(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetUUID(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetSerial(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetBoardPartNumber(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetVbiosVersion(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetInforomImageVersion(d, buf, sizeof(buf)));
  ANY(p_nvmlDeviceGetMinorNumber(d, &u));
  ANY(p_nvmlDeviceGetIndex(d, &u));
  nvmlBrandType_t brand;
  ANY(p_nvmlDeviceGetBrand(d, &brand));
  nvmlDeviceArchitecture_t arch;
  ANY(p_nvmlDeviceGetArchitecture(d, &arch));
  ANY(p_nvmlDeviceGetCudaComputeCapability(d, &a, &b));
  ANY(p_nvmlDeviceGetNumGpuCores(d, &u));
  nvmlPciInfo_t pci;
  ANY(p_nvmlDeviceGetPciInfo(d, &pci));
  ANY(p_nvmlDeviceGetPciInfo_v2(d, &pci));
  ANY(p_nvmlDeviceGetPciInfo_v3(d, &pci));
  ANY(p_nvmlDeviceGetCurrPcieLinkGeneration(d, &u));
  ANY(p_nvmlDeviceGetMaxPcieLinkGeneration(d, &u));
  ANY(p_nvmlDeviceGetCurrPcieLinkWidth(d, &u));
  ANY(p_nvmlDeviceGetMaxPcieLinkWidth(d, &u));
  nvmlMemory_t mem;
  nvmlReturn_t rc = p_nvmlDeviceGetMemoryInfo(d, &mem);
  ANY(rc);
  if (rc == NVML_SUCCESS)
    CHECK(mem.total > 0 && mem.free <= mem.total);
  nvmlMemory_v2_t mem2;
  mem2.version = nvmlMemory_v2;
  ANY(p_nvmlDeviceGetMemoryInfo_v2(d, &mem2));
  nvmlBAR1Memory_t bar1;
  ANY(p_nvmlDeviceGetBAR1MemoryInfo(d, &bar1));
  for (int t = 0; t < 4; t++) {
    ANY(p_nvmlDeviceGetClockInfo(d, (nvmlClockType_t)t, &u));
    ANY(p_nvmlDeviceGetMaxClockInfo(d, (nvmlClockType_t)t, &u));
  }
  ANY(p_nvmlDeviceGetPowerManagementLimit(d, &u));
  ANY(p_nvmlDeviceGetPowerManagementDefaultLimit(d, &u));
  ANY(p_nvmlDeviceGetEnforcedPowerLimit(d, &u));
  ANY(p_nvmlDeviceGetPowerManagementLimitConstraints(d, &lo, &hi));
  ANY(p_nvmlDeviceGetEccMode(d, &e1, &e2));
  ANY(p_nvmlDeviceGetPersistenceMode(d, &e1));
  nvmlComputeMode_t cm;
  ANY(p_nvmlDeviceGetComputeMode(d, &cm));
  nvmlUtilization_t ut;
  ANY(p_nvmlDeviceGetUtilizationRates(d, &ut));
  ANY(p_nvmlDeviceGetTemperature(d, NVML_TEMPERATURE_GPU, &u));
  ANY(p_nvmlDeviceGetPowerUsage(d, &u));
  ANY(p_nvmlDeviceGetTotalEnergyConsumption(d, &ull));
  ANY(p_nvmlDeviceGetFanSpeed(d, &u));
  nvmlPstates_t ps;
  ANY(p_nvmlDeviceGetPerformanceState(d, &ps));
  ANY(p_nvmlDeviceGetCurrentClocksThrottleReasons(d, &ull));
  ANY(p_nvmlDeviceGetCurrentClocksEventReasons(d, &ull));
  nvmlProcessInfo_t procs3[64];
  nvmlProcessInfo_v2_t procs[64];
  nvmlProcessInfo_v1_t procs1[64];
  unsigned n = 64;
  ANY(p_nvmlDeviceGetComputeRunningProcesses_v3(d, &n, procs3));
  n = 64;
  ANY(p_nvmlDeviceGetGraphicsRunningProcesses_v2(d, &n, procs));
  n = 64;
  ANY(p_nvmlDeviceGetGraphicsRunningProcesses(d, &n, procs1));
  ANY(p_nvmlDeviceGetPcieThroughput(d, NVML_PCIE_UTIL_TX_BYTES, &u));
  ANY(p_nvmlDeviceGetNvLinkState(d, 0, &e1));
  nvmlFieldValue_t fv;
  memset(&fv, 0, sizeof(fv));
  fv.fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
  ANY(p_nvmlDeviceGetFieldValues(d, 1, &fv));
  unsigned mc, mp;
  ANY(p_nvmlDeviceGetMigMode(d, &mc, &mp));
  ANY(p_nvmlDeviceGetMaxMigDeviceCount(d, &u));
  ANY(p_nvmlDeviceIsMigDeviceHandle(d, &u));
  nvmlGpuInstanceProfileInfo_t pi;
  for (unsigned p = 0; p < NVML_GPU_INSTANCE_PROFILE_COUNT; p++)
    ANY(p_nvmlDeviceGetGpuInstanceProfileInfo(d, p, &pi));
}

static void suite_all_fixtures(void)
{
  static const char *const files[] = {
      "telegraf-3090-v13.xml", "telegraf-a100-sxm4-v12.xml", "telegraf-a10g.xml", "telegraf-dual_2070-v13.xml",
      "telegraf-dual_2080-v13.xml", "telegraf-dual_a5000-v13.xml", "telegraf-gt-1030.xml",
      "telegraf-gtx-1660-ti.xml", "telegraf-pro-6000-maxq-blackwell-v13.xml", "telegraf-quadro-p2000-v12.xml",
      "telegraf-quadro-p400.xml", "telegraf-rtx-3060-v12.xml", "telegraf-rtx-3080-v12.xml",
      "telegraf-rtx-3080-v13.xml", "telegraf-rtx-3090-v12.xml", "telegraf-rtx-4000-sff-ada-v13.xml",
      "telegraf-tesla-t4.xml", "telegraf-tesla_p4-grid-vgpu.xml", "hgx-8x-h100-q2x.xml"};
  for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
    const char *file = files[i];
    use_xml(file);
    char *text = read_file(fixture(file));
    unsigned want = 0;
    for (const char *p = text; p && (p = strstr(p, "<gpu id=")) != NULL; p++)
      want++;
    free(text);
    RC(p_nvmlInit_v2(), NVML_SUCCESS);
    unsigned n = 0;
    RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
    if (n != want) {
      fprintf(stderr, "%s: %u GPUs, want %u\n", file, n, want);
      failures++;
    }
    for (unsigned g = 0; g < n; g++) {
      nvmlDevice_t d = gpu(g);
      query_everything(file, d);
      for (unsigned m = 0; m < 7; m++) {
        nvmlDevice_t md;
        if (p_nvmlDeviceGetMigDeviceHandleByIndex(d, m, &md) == NVML_SUCCESS)
          query_everything(file, md);
      }
    }
    RC(p_nvmlShutdown(), NVML_SUCCESS);
  }
}

/* ==== 8x H100 SXM with NVLink to four NVSwitches (extra file) ================================= */
static void suite_h100_nvlink(void)
{
  use_xml("hgx-8x-h100-q2x.xml");
  setenv("AXL_NVML_DOUBLE_EXTRA", fixture("hgx-8x-h100.extra"), 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  unsigned n = 0, u;
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  EQ(n, 8);
  static const unsigned buses[8] = {0x19, 0x3b, 0x4c, 0x5d, 0x9b, 0xbb, 0xcb, 0xdb};
  for (unsigned g = 0; g < n && g < 8; g++) {
    nvmlDevice_t d = gpu(g);
    nvmlPciInfo_t pci;
    RC(p_nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
    EQ(pci.bus, buses[g]);
    EQ(pci.pciDeviceId, 0x233010DE);
    nvmlMemory_t mem;
    RC(p_nvmlDeviceGetMemoryInfo(d, &mem), NVML_SUCCESS);
    EQ(mem.total, MIB(81559));
    RC(p_nvmlDeviceGetPowerManagementLimit(d, &u), NVML_SUCCESS);
    EQ(u, 700000);
    RC(p_nvmlDeviceGetCurrPcieLinkGeneration(d, &u), NVML_SUCCESS);
    EQ(u, 5);
    RC(p_nvmlDeviceGetMaxPcieLinkWidth(d, &u), NVML_SUCCESS);
    EQ(u, 16);
    int major, minor;
    RC(p_nvmlDeviceGetCudaComputeCapability(d, &major, &minor), NVML_SUCCESS);
    EQ(major * 10 + minor, 90);
    RC(p_nvmlDeviceGetNumGpuCores(d, &u), NVML_SUCCESS);
    EQ(u, 16896);
    RC(p_nvmlDeviceGetMinorNumber(d, &u), NVML_SUCCESS);
    EQ(u, g);
    for (unsigned l = 0; l < 18; l++) {
      nvmlEnableState_t st;
      RC(p_nvmlDeviceGetNvLinkState(d, l, &st), NVML_SUCCESS);
      EQ(st, NVML_FEATURE_ENABLED);
      RC(p_nvmlDeviceGetNvLinkVersion(d, l, &u), NVML_SUCCESS);
      EQ(u, 4);
      nvmlIntNvLinkDeviceType_t type;
      RC(p_nvmlDeviceGetNvLinkRemoteDeviceType(d, l, &type), NVML_SUCCESS);
      EQ(type, NVML_NVLINK_DEVICE_TYPE_SWITCH);
      nvmlPciInfo_t rp;
      RC(p_nvmlDeviceGetNvLinkRemotePciInfo_v2(d, l, &rp), NVML_SUCCESS);
      EQ(rp.pciDeviceId, 0x22A310DE);
      EQ(rp.bus, l < 5 ? 0x83 : l < 9 ? 0x84 : l < 13 ? 0x85 : 0x86);
      nvmlPciInfo_t rp1raw;
      nvmld_pci_info_v1_t rp1;
      RC(p_nvmlDeviceGetNvLinkRemotePciInfo(d, l, &rp1raw), NVML_SUCCESS);
      memcpy(&rp1, &rp1raw, sizeof(rp1));
      EQ(rp1.bus, rp.bus);
      RC(p_nvmlDeviceGetNvLinkCapability(d, l, NVML_NVLINK_CAP_P2P_SUPPORTED, &u), NVML_SUCCESS);
      EQ(u, 1);
      RC(p_nvmlDeviceGetNvLinkCapability(d, l, NVML_NVLINK_CAP_SYSMEM_ACCESS, &u), NVML_SUCCESS);
      EQ(u, 0);
    }
    nvmlEnableState_t st;
    RC(p_nvmlDeviceGetNvLinkState(d, 18, &st), NVML_ERROR_INVALID_ARGUMENT);
    RC(p_nvmlDeviceGetNvLinkCapability(d, 0, NVML_NVLINK_CAP_COUNT, &u), NVML_ERROR_INVALID_ARGUMENT);
    nvmlFieldValue_t fv[3];
    memset(fv, 0, sizeof(fv));
    fv[0].fieldId = NVML_FI_DEV_NVLINK_LINK_COUNT;
    fv[1].fieldId = NVML_FI_DEV_NVLINK_SPEED_MBPS_COMMON;
    fv[2].fieldId = 1; /* anything else */
    RC(p_nvmlDeviceGetFieldValues(d, 3, fv), NVML_SUCCESS);
    EQ(fv[0].nvmlReturn, NVML_SUCCESS);
    EQ(fv[0].valueType, NVML_VALUE_TYPE_UNSIGNED_INT);
    EQ(fv[0].value.uiVal, 18);
    EQ(fv[1].nvmlReturn, NVML_SUCCESS);
    EQ(fv[1].value.uiVal, 26562);
    EQ(fv[2].nvmlReturn, NVML_ERROR_NOT_SUPPORTED);
    /* MIG is disabled on these */
    RC(p_nvmlDeviceGetMaxMigDeviceCount(d, &u), NVML_SUCCESS);
    EQ(u, 0);
    nvmlGpuInstanceProfileInfo_t pi;
    RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi), NVML_ERROR_NOT_SUPPORTED);
  }
  unsigned long long reasons;
  RC(p_nvmlDeviceGetCurrentClocksEventReasons(gpu(0), &reasons), NVML_SUCCESS);
  EQ(reasons, nvmlClocksThrottleReasonHwSlowdown | nvmlClocksThrottleReasonHwPowerBrakeSlowdown);
  nvmlGpuTopologyLevel_t level;
  RC(p_nvmlDeviceGetTopologyCommonAncestor(gpu(0), gpu(1), &level), NVML_SUCCESS);
  EQ(level, NVML_TOPOLOGY_NODE);
  RC(p_nvmlDeviceGetTopologyCommonAncestor(gpu(5), gpu(2), &level), NVML_SUCCESS);
  EQ(level, NVML_TOPOLOGY_SYSTEM);
  RC(p_nvmlDeviceGetTopologyCommonAncestor(gpu(0), gpu(0), &level), NVML_ERROR_NOT_SUPPORTED);
  nvmlGpuP2PStatus_t p2p;
  for (int i = 0; i < NVML_P2P_CAPS_INDEX_UNKNOWN; i++) {
    RC(p_nvmlDeviceGetP2PStatus(gpu(3), gpu(7), (nvmlGpuP2PCapsIndex_t)i, &p2p), NVML_SUCCESS);
    EQ(p2p, NVML_P2P_STATUS_OK);
  }
  RC(p_nvmlDeviceGetP2PStatus(gpu(3), gpu(7), NVML_P2P_CAPS_INDEX_UNKNOWN, &p2p), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== argument checks, init flags, the extra file ================================================ */
static void suite_args(void)
{
  char buf[96];
  unsigned u;
  /* before any init */
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_ERROR_UNINITIALIZED);
  RC(p_nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  STREQ(p_nvmlErrorString(NVML_ERROR_NOT_SUPPORTED), "Not Supported");
  STREQ(p_nvmlErrorString(NVML_ERROR_GPU_IS_LOST), "GPU is lost");
  STREQ(p_nvmlErrorString((nvmlReturn_t)12345), "Unknown Error");

  use_xml("telegraf-tesla-t4.xml");
  const char *extra = temp_file("# energy and a link with default capabilities\n"
                                "energy 00000000:00:1E.0 mj=123456789\n"
                                "nvlink 0000:00:1e.0 link=2 state=0 type=ibmnpu\n");
  setenv("AXL_NVML_DOUBLE_EXTRA", extra, 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0);
  unsigned long long energy = 0;
  RC(p_nvmlDeviceGetTotalEnergyConsumption(d, &energy), NVML_SUCCESS);
  EQ(energy, 123456789ULL);
  nvmlEnableState_t st;
  RC(p_nvmlDeviceGetNvLinkState(d, 2, &st), NVML_SUCCESS);
  EQ(st, NVML_FEATURE_DISABLED);
  RC(p_nvmlDeviceGetNvLinkVersion(d, 2, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetNvLinkCapability(d, 2, NVML_NVLINK_CAP_SYSMEM_ACCESS, &u), NVML_SUCCESS);
  EQ(u, 1);
  nvmlPciInfo_t rp;
  RC(p_nvmlDeviceGetNvLinkRemotePciInfo_v2(d, 2, &rp), NVML_ERROR_NOT_SUPPORTED); /* no remote= */
  RC(p_nvmlDeviceGetNvLinkState(d, 1, &st), NVML_ERROR_NOT_SUPPORTED);

  /* NULL pointers, bad handles, bad enums, short buffers */
  int stack_thing = 0;
  nvmlDevice_t bogus = (nvmlDevice_t)&stack_thing;
  RC(p_nvmlDeviceGetName(bogus, buf, sizeof(buf)), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetName(NULL, buf, sizeof(buf)), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetMemoryInfo(bogus, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetName(d, NULL, 64), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetName(d, buf, 0), NVML_ERROR_INSUFFICIENT_SIZE);
  RC(p_nvmlDeviceGetUUID(d, buf, 10), NVML_ERROR_INSUFFICIENT_SIZE);
  RC(p_nvmlSystemGetDriverVersion(buf, 3), NVML_ERROR_INSUFFICIENT_SIZE);
  RC(p_nvmlSystemGetDriverVersion(NULL, 80), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetCount_v2(NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetHandleByIndex_v2(0, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetHandleByIndex_v2(1, &d), NVML_ERROR_INVALID_ARGUMENT);
  d = gpu(0);
  RC(p_nvmlDeviceGetHandleByUUID(NULL, &d), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetHandleByPciBusId_v2(NULL, &d), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetMemoryInfo(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetMemoryInfo_v2(d, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetClockInfo(d, (nvmlClockType_t)4, &u), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetTemperature(d, (nvmlTemperatureSensors_t)1, &u), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetPcieThroughput(d, (nvmlPcieUtilCounter_t)2, &u), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetEccMode(d, NULL, &st), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetPowerManagementLimitConstraints(d, &u, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetComputeRunningProcesses_v3(d, NULL, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetFieldValues(d, -1, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetFieldValues(d, 1, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceGetFieldValues(d, 0, NULL), NVML_SUCCESS);
  nvmlGpuTopologyLevel_t level;
  RC(p_nvmlDeviceGetTopologyCommonAncestor(d, bogus, &level), NVML_ERROR_INVALID_ARGUMENT);
  int cc;
  RC(p_nvmlDeviceGetCudaComputeCapability(d, &cc, NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* a malformed extra file fails the init */
  static const char *const bad_extra[] = {
      "nvlink 0000:00:1e.0 state=1\n",
      "nvlink 0000:00:1e.0 link=18\n",
      "nvlink 0000:00:1e.0 link=1\nnvlink 0000:00:1e.0 link=1\n",
      "nvlink 0000:00:1e.0 link=1 type=bridge\n",
      "nvlink nonsense link=1\n",
      "topo 0000:00:1e.0 0000:00:1e.0 level=10\n",
      "topo 0000:00:1e.0 0000:00:1f.0 level=sideways\n",
      "energy 0000:00:1e.0 mj=-1\n",
      "fabric 0000:00:1e.0\n",
      "nvlink 0000:00:1e.0 link=1 colour=blue\n",
  };
  for (size_t i = 0; i < sizeof(bad_extra) / sizeof(bad_extra[0]); i++) {
    setenv("AXL_NVML_DOUBLE_EXTRA", temp_file(bad_extra[i]), 1);
    RC(p_nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  }
  setenv("AXL_NVML_DOUBLE_EXTRA", "/nonexistent/extra", 1);
  RC(p_nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  unsetenv("AXL_NVML_DOUBLE_EXTRA");

  /* a document without GPUs: NOT_FOUND, unless NVML_INIT_FLAG_NO_GPUS */
  setenv("AXL_NVML_DOUBLE_XML",
         temp_file("<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>550.1</driver_version>"
                   "<cuda_version>12.4</cuda_version><attached_gpus>0</attached_gpus></nvidia_smi_log>\n"),
         1);
  RC(p_nvmlInit_v2(), NVML_ERROR_NOT_FOUND);
  RC(p_nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS), NVML_SUCCESS);
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_SUCCESS);
  EQ(u, 0);
  RC(p_nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "550.1");
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== AXL_NVML_DOUBLE_FAIL ===================================================================== */
static void suite_fail(void)
{
  char buf[96];
  unsigned u;
  nvmlMemory_t mem;
  use_xml("telegraf-dual_2080-v13.xml");
  setenv(
      "AXL_NVML_DOUBLE_FAIL",
      "nvmlDeviceGetMemoryInfo@1=GPU_IS_LOST,nvmlDeviceGetName=NO_PERMISSION,"
      "nvmlSystemGetDriverVersion=UNKNOWN,nvmlDeviceGetSerial=10,nvmlDeviceGetHandleByIndex_v2@1=NVML_ERROR_NOT_FOUND",
      1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t a = gpu(0), b = NULL;
  RC(p_nvmlDeviceGetMemoryInfo(a, &mem), NVML_SUCCESS);
  RC(p_nvmlDeviceGetHandleByIndex_v2(1, &b), NVML_ERROR_NOT_FOUND);
  RC(p_nvmlDeviceGetHandleByIndex(1, &b), NVML_SUCCESS);
  RC(p_nvmlDeviceGetMemoryInfo(b, &mem), NVML_ERROR_GPU_IS_LOST);
  RC(p_nvmlDeviceGetName(a, buf, sizeof(buf)), NVML_ERROR_NO_PERMISSION);
  RC(p_nvmlDeviceGetName(b, buf, sizeof(buf)), NVML_ERROR_NO_PERMISSION);
  RC(p_nvmlDeviceGetSerial(a, buf, sizeof(buf)), NVML_ERROR_TIMEOUT);
  RC(p_nvmlSystemGetDriverVersion(buf, sizeof(buf)), NVML_ERROR_UNKNOWN);
  RC(p_nvmlDeviceGetUUID(b, buf, sizeof(buf)), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* '*' is every query taking a device handle; exact names win */
  setenv("AXL_NVML_DOUBLE_FAIL", "*@1=GPU_IS_LOST,nvmlDeviceGetIndex=NOT_SUPPORTED", 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  a = gpu(0);
  b = gpu(1);
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_SUCCESS);
  RC(p_nvmlDeviceGetMemoryInfo(a, &mem), NVML_SUCCESS);
  RC(p_nvmlDeviceGetMemoryInfo(b, &mem), NVML_ERROR_GPU_IS_LOST);
  RC(p_nvmlDeviceGetUUID(b, buf, sizeof(buf)), NVML_ERROR_GPU_IS_LOST);
  RC(p_nvmlDeviceGetIndex(b, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetIndex(a, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* failing the init itself */
  setenv("AXL_NVML_DOUBLE_FAIL", "nvmlInit_v2=DRIVER_NOT_LOADED", 1);
  RC(p_nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_ERROR_UNINITIALIZED);
  RC(p_nvmlInit(), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* a malformed rule list is an init failure, not silence */
  static const char *const bad[] = {"garbage", "=3", "nvmlDeviceGetName=", "nvmlDeviceGetName=NOPE",
                                    "nvmlDeviceGetName@x=3", "nvmlDeviceGetName@99=3"};
  for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
    setenv("AXL_NVML_DOUBLE_FAIL", bad[i], 1);
    RC(p_nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  }
  unsetenv("AXL_NVML_DOUBLE_FAIL");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== AXL_NVML_DOUBLE_NONSENSE ================================================================= */
static void suite_nonsense(void)
{
  use_xml("telegraf-a100-sxm4-v12.xml");
  setenv("AXL_NVML_DOUBLE_NONSENSE", "1", 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0);
  char buf[96 + 8];
  memset(buf, 0, sizeof(buf));
  RC(p_nvmlDeviceGetName(d, buf, 96), NVML_SUCCESS);
  CHECK(memchr(buf, '\0', 96) == NULL); /* filled to the last byte, no terminator */
  CHECK(memchr(buf, 0xff, 96) != NULL);
  CHECK(memchr(buf, 0x1b, 96) != NULL);
  EQ(buf[96], 0); /* and not a byte further */
  RC(p_nvmlDeviceGetUUID(d, buf, 80), NVML_SUCCESS);
  CHECK(memchr(buf, '\0', 80) == NULL);
  RC(p_nvmlSystemGetDriverVersion(buf, 80), NVML_SUCCESS);
  CHECK(memchr(buf, '\0', 80) == NULL);
  nvmlMemory_t mem;
  RC(p_nvmlDeviceGetMemoryInfo(d, &mem), NVML_SUCCESS);
  CHECK(mem.used > mem.total);
  unsigned u;
  RC(p_nvmlDeviceGetCurrPcieLinkGeneration(d, &u), NVML_SUCCESS);
  EQ(u, 99);
  RC(p_nvmlDeviceGetCurrPcieLinkWidth(d, &u), NVML_SUCCESS);
  EQ(u, 0);
  RC(p_nvmlDeviceGetClockInfo(d, NVML_CLOCK_SM, &u), NVML_SUCCESS);
  EQ(u, 4294967295u);
  RC(p_nvmlDeviceGetMaxMigDeviceCount(d, &u), NVML_SUCCESS);
  EQ(u, 1000);
  int major = 0, minor = 0;
  RC(p_nvmlDeviceGetCudaComputeCapability(d, &major, &minor), NVML_SUCCESS);
  CHECK(major < 0 && minor < 0);
  nvmlPciInfo_t pci;
  RC(p_nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  CHECK(memchr(pci.busId, '\0', sizeof(pci.busId)) == NULL);
  nvmlGpuInstanceProfileInfo_v2_t pi;
  memset(&pi, 0, sizeof(pi));
  pi.version = nvmlGpuInstanceProfileInfo_v2;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfoV(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &pi), NVML_SUCCESS);
  CHECK(memchr(pi.name, '\0', sizeof(pi.name)) == NULL);
  /* a short buffer is still filled, not overrun */
  memset(buf, 0, sizeof(buf));
  RC(p_nvmlDeviceGetSerial(d, buf, 4), NVML_SUCCESS);
  EQ(buf[4], 0);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== no XML, an unreadable one ==================================================================== */
static void suite_noxml(void)
{
  unsigned u;
  RC(p_nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  RC(p_nvmlInit(), NVML_ERROR_DRIVER_NOT_LOADED);
  RC(p_nvmlInitWithFlags(NVML_INIT_FLAG_NO_GPUS), NVML_ERROR_DRIVER_NOT_LOADED);
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_ERROR_UNINITIALIZED);
  RC(p_nvmlShutdown(), NVML_ERROR_UNINITIALIZED);
  setenv("AXL_NVML_DOUBLE_XML", "", 1);
  RC(p_nvmlInit_v2(), NVML_ERROR_DRIVER_NOT_LOADED);
  setenv("AXL_NVML_DOUBLE_XML", "/nonexistent/nvidia-smi.xml", 1);
  RC(p_nvmlInit_v2(), NVML_ERROR_UNKNOWN);
  RC(p_nvmlDeviceGetCount_v2(&u), NVML_ERROR_UNINITIALIZED);
}

/* stderr of one call into a buffer */
static nvmlReturn_t init_capturing_stderr(char *out, size_t len)
{
  char path[64];
  snprintf(path, sizeof(path), "/tmp/nvml_double_stderr.%d", (int)getpid());
  fflush(stderr);
  int saved = dup(2), fd = open(path, O_RDWR | O_CREAT | O_TRUNC, 0600);
  dup2(fd, 2);
  nvmlReturn_t rc = p_nvmlInit_v2();
  fflush(stderr);
  dup2(saved, 2);
  close(saved);
  ssize_t n = pread(fd, out, len - 1, 0);
  out[n > 0 ? n : 0] = '\0';
  close(fd);
  unlink(path);
  return rc;
}

static void suite_badxml(void)
{
  static const char *const docs[] = {
      "<nvidia_smi_log><gpu id=\"00000000:01:00.0\"><product_name>x</product_name></nvidia_smi_log>",
      "<nvidia_smi_log><gpu id=\"00000000:01:00.0\">&nbsp;</gpu></nvidia_smi_log>",
      "<not_nvidia_smi_log/>",
      "<nvidia_smi_log><gpu><product_name>no bus id</product_name></gpu></nvidia_smi_log>",
      ("<nvidia_smi_log><gpu id=\"01:00.0\"><mig_devices><mig_device><index>0</index></mig_device>"
       "</mig_devices></gpu></nvidia_smi_log>"),
      "",
  };
  char err[1024];
  for (size_t i = 0; i < sizeof(docs) / sizeof(docs[0]); i++) {
    setenv("AXL_NVML_DOUBLE_XML", temp_file(docs[i]), 1);
    RC(init_capturing_stderr(err, sizeof(err)), NVML_ERROR_UNKNOWN);
    if (strncmp(err, "nvml_double: ", 13) != 0) {
      fprintf(stderr, "doc %zu: no message on stderr (got \"%s\")\n", i, err);
      failures++;
    }
  }
  /* a GPU id attribute is enough when <pci_bus_id> is missing */
  setenv("AXL_NVML_DOUBLE_XML",
         temp_file("<nvidia_smi_log><gpu id=\"00000000:0A:00.0\"><fb_memory_usage><total>[N/A]</total>"
                   "</fb_memory_usage><serial>[Not Supported]</serial><uuid>Unknown Error</uuid>"
                   "<vbios_version>[Insufficient Permissions]</vbios_version></gpu></nvidia_smi_log>"),
         1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlPciInfo_t pci;
  RC(p_nvmlDeviceGetPciInfo_v3(gpu(0), &pci), NVML_SUCCESS);
  EQ(pci.bus, 0x0a);
  nvmlMemory_t mem;
  RC(p_nvmlDeviceGetMemoryInfo(gpu(0), &mem), NVML_ERROR_NOT_SUPPORTED);
  char buf[96];
  RC(p_nvmlDeviceGetSerial(gpu(0), buf, sizeof(buf)), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetUUID(gpu(0), buf, sizeof(buf)), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetVbiosVersion(gpu(0), buf, sizeof(buf)), NVML_ERROR_NO_PERMISSION);
  RC(p_nvmlDeviceGetName(gpu(0), buf, sizeof(buf)), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== MIG layouts: profile matching, compute-instance names, remaining capacity ============== */
struct mig_spec {
  unsigned gi, ci, sm, ce, dec, jpeg, ofa, mib;
};

/* a minimal document: one GPU with MIG enabled and the given MIG devices */
static const char *mig_doc(const char *product, const struct mig_spec *m, unsigned n)
{
  static char doc[16384];
  size_t len = (size_t)snprintf(doc, sizeof(doc),
                                "<?xml version=\"1.0\" ?>\n<nvidia_smi_log><driver_version>590.48.01</driver_version>"
                                "<cuda_version>13.1</cuda_version><gpu id=\"00000000:09:00.0\"><product_name>%s"
                                "</product_name><product_architecture>Hopper</product_architecture><uuid>GPU-"
                                "0a0b0c0d-0000-0000-0000-000000000001</uuid><mig_mode><current_mig>Enabled"
                                "</current_mig><pending_mig>Enabled</pending_mig></mig_mode><mig_devices>",
                                product);
  for (unsigned i = 0; i < n && len < sizeof(doc); i++)
    len += (size_t)snprintf(doc + len, sizeof(doc) - len,
                            "<mig_device><index>%u</index><gpu_instance_id>%u</gpu_instance_id><compute_instance_id>%u"
                            "</compute_instance_id><device_attributes><shared><multiprocessor_count>%u"
                            "</multiprocessor_count><copy_engine_count>%u</copy_engine_count><encoder_count>0"
                            "</encoder_count><decoder_count>%u</decoder_count><ofa_count>%u</ofa_count><jpg_count>%u"
                            "</jpg_count></shared></device_attributes><fb_memory_usage><total>%u MiB</total>"
                            "<reserved>0 MiB</reserved><used>9 MiB</used><free>%u MiB</free></fb_memory_usage>"
                            "</mig_device>",
                            i, m[i].gi, m[i].ci, m[i].sm, m[i].ce, m[i].dec, m[i].ofa, m[i].jpeg, m[i].mib,
                            m[i].mib - 9);
  if (len < sizeof(doc))
    snprintf(doc + len, sizeof(doc) - len, "</mig_devices><pci><pci_device_id>233510DE</pci_device_id>"
                                           "<pci_bus_id>00000000:09:00.0</pci_bus_id></pci></gpu></nvidia_smi_log>\n");
  return temp_file(doc);
}

static void check_remaining(nvmlDevice_t d, const unsigned *ids, const unsigned *want, size_t n)
{
  for (size_t i = 0; i < n; i++) {
    unsigned u = 99;
    RC(p_nvmlDeviceGetGpuInstanceRemainingCapacity(d, ids[i], &u), NVML_SUCCESS);
    if (u != want[i]) {
      fprintf(stderr, "[%s] remaining capacity of profile id %u = %u, want %u\n", suite_name, ids[i], u, want[i]);
      failures++;
    }
  }
}

static void suite_mig_capacity(void)
{
  /* the H200 MIG layout of the real capture nvgpuexp-linux__h200-mig__590.48.01.txt:
   * GI 2 (3g.71gb) split in a 1-slice and a 2-slice compute instance, GI 3 (2g.35gb),
   * GI 9 and 10 (1g.18gb): all eight memory slices in use */
  static const struct mig_spec h200[] = {{2, 0, 16, 3, 3, 3, 0, 71424}, {2, 1, 32, 3, 3, 3, 0, 71424},
                                         {3, 0, 32, 2, 2, 2, 0, 33280}, {9, 0, 16, 1, 1, 1, 0, 16384},
                                         {10, 0, 16, 1, 1, 1, 0, 16384}};
  setenv("AXL_NVML_DOUBLE_XML", mig_doc("NVIDIA H200", h200, 5), 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0);
  static const char *const names[] = {"NVIDIA H200 MIG 1c.3g.71gb", "NVIDIA H200 MIG 2c.3g.71gb",
                                      "NVIDIA H200 MIG 2g.35gb", "NVIDIA H200 MIG 1g.18gb", "NVIDIA H200 MIG 1g.18gb"};
  static const unsigned gi_slices[] = {3, 3, 2, 1, 1}, ci_slices[] = {1, 2, 2, 1, 1};
  for (unsigned i = 0; i < 5; i++) {
    nvmlDevice_t m = NULL;
    char buf[96];
    RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, i, &m), NVML_SUCCESS);
    STREQ(str_of(p_nvmlDeviceGetName, m, buf, sizeof(buf)), names[i]);
    nvmlDeviceAttributes_t a;
    RC(p_nvmlDeviceGetAttributes_v2(m, &a), NVML_SUCCESS);
    EQ(a.gpuInstanceSliceCount, gi_slices[i]);
    EQ(a.computeInstanceSliceCount, ci_slices[i]);
  }
  nvmlGpuInstanceProfileInfo_v2_t pi;
  memset(&pi, 0, sizeof(pi));
  pi.version = nvmlGpuInstanceProfileInfo_v2;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfoV(d, NVML_GPU_INSTANCE_PROFILE_7_SLICE, &pi), NVML_SUCCESS);
  STREQ(pi.name, "MIG 7g.141gb");
  EQ(pi.multiprocessorCount, 132);
  EQ(pi.memorySizeMB, 143104);
  static const unsigned ids[] = {19, 20, 15, 14, 9, 5, 0}, none[] = {0, 0, 0, 0, 0, 0, 0};
  check_remaining(d, ids, none, 7);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* A100 80GB with one 3g.40gb: 4 x 1g, 2 x 1g.20gb, 2 x 2g, 1 x 3g or 1 x 4g still fit */
  static const struct mig_spec a100[] = {{1, 0, 42, 3, 2, 0, 0, 40192}};
  setenv("AXL_NVML_DOUBLE_XML", mig_doc("NVIDIA A100-SXM4-80GB", a100, 1), 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  d = gpu(0);
  static const unsigned a100_left[] = {4, 1, 2, 2, 1, 1, 0};
  check_remaining(d, ids, a100_left, 7);
  unsigned u;
  RC(p_nvmlDeviceGetMaxMigDeviceCount(d, &u), NVML_SUCCESS);
  EQ(u, 7);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* an empty A30: 4 x 1g.6gb, 1 x +me, 2 x 2g, 1 x 2g+me, 1 x 4g */
  setenv("AXL_NVML_DOUBLE_XML", mig_doc("NVIDIA A30", NULL, 0), 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  d = gpu(0);
  static const unsigned a30_ids[] = {14, 21, 5, 6, 0}, a30_left[] = {4, 1, 2, 1, 1};
  check_remaining(d, a30_ids, a30_left, 5);
  RC(p_nvmlDeviceGetMaxMigDeviceCount(d, &u), NVML_SUCCESS);
  EQ(u, 4);
  nvmlGpuInstanceProfileInfo_t p1;
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_3_SLICE, &p1), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_2_SLICE_REV1, &p1), NVML_SUCCESS);
  EQ(p1.id, 6);
  RC(p_nvmlShutdown(), NVML_SUCCESS);

  /* a product without a table: MIG mode answers, the profiles do not */
  setenv("AXL_NVML_DOUBLE_XML", mig_doc("NVIDIA Future GPU", NULL, 0), 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  d = gpu(0);
  unsigned c, pm;
  RC(p_nvmlDeviceGetMigMode(d, &c, &pm), NVML_SUCCESS);
  EQ(c, 1);
  RC(p_nvmlDeviceGetGpuInstanceProfileInfo(d, NVML_GPU_INSTANCE_PROFILE_1_SLICE, &p1), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceGetGpuInstanceRemainingCapacity(d, 19, &u), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
}

/* ==== AXL_NVML_DOUBLE_LOG ======================================================================== */
static void suite_log(void)
{
  char path[64];
  snprintf(path, sizeof(path), "/tmp/nvml_double_log.%d", (int)getpid());
  unlink(path);
  setenv("AXL_NVML_DOUBLE_LOG", path, 1);
  use_xml("telegraf-a100-sxm4-v12.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  unsigned n;
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0), m = NULL;
  char buf[96];
  RC(p_nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_SUCCESS);
  RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, 2, &m), NVML_SUCCESS);
  unsigned u;
  RC(p_nvmlDeviceGetGpuInstanceId(m, &u), NVML_SUCCESS);
  nvmlPciInfo_t pci;
  RC(p_nvmlDeviceGetPciInfo_v3(d, &pci), NVML_SUCCESS);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  char *log = read_file(path);
  CHECK(log != NULL);
  if (log) {
    STREQ(log, "nvmlInit_v2(flags=0)\n"
               "nvmlDeviceGetCount_v2()\n"
               "nvmlDeviceGetHandleByIndex_v2(0)\n"
               "nvmlDeviceGetName(gpu0, length=96)\n"
               "nvmlDeviceGetMigDeviceHandleByIndex(gpu0, 2)\n"
               "nvmlDeviceGetGpuInstanceId(gpu0/mig2)\n"
               "nvmlDeviceGetPciInfo_v3(gpu0)\n"
               "nvmlShutdown()\n");
    free(log);
  }
  unlink(path);
}

/* ==== threads: the double is thread-safe ============================================================ */
static void *worker(void *arg)
{
  unsigned long long bad = 0;
  (void)arg;
  for (int i = 0; i < 1500; i++) {
    nvmlDevice_t d;
    unsigned idx = (unsigned)i % 2;
    if (p_nvmlDeviceGetHandleByIndex_v2(idx, &d) != NVML_SUCCESS) {
      bad++;
      continue;
    }
    char buf[96];
    nvmlPciInfo_t pci;
    nvmlMemory_t mem;
    bad += p_nvmlDeviceGetName(d, buf, sizeof(buf)) != NVML_SUCCESS || strcmp(buf, "NVIDIA RTX A5000") != 0;
    bad += p_nvmlDeviceGetPciInfo_v3(d, &pci) != NVML_SUCCESS || pci.bus != (idx ? 0xC1u : 0x81u);
    bad += p_nvmlDeviceGetMemoryInfo(d, &mem) != NVML_SUCCESS || mem.total != MIB(24564);
  }
  return (void *)(uintptr_t)bad;
}

static void *init_churn(void *arg)
{
  unsigned long long bad = 0;
  (void)arg;
  for (int i = 0; i < 200; i++) {
    bad += p_nvmlInit_v2() != NVML_SUCCESS;
    bad += p_nvmlShutdown() != NVML_SUCCESS;
  }
  return (void *)(uintptr_t)bad;
}

static void suite_threads(void)
{
  use_xml("telegraf-dual_a5000-v13.xml");
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  pthread_t t[6];
  for (int i = 0; i < 6; i++)
    pthread_create(&t[i], NULL, i == 5 ? init_churn : worker, NULL);
  for (int i = 0; i < 6; i++) {
    void *bad;
    pthread_join(t[i], &bad);
    EQ((uintptr_t)bad, 0);
  }
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  unsigned n;
  RC(p_nvmlDeviceGetCount_v2(&n), NVML_ERROR_UNINITIALIZED);
}

/* ==== AXL_NVML_DOUBLE_HANG ======================================================================== */
static volatile int hang_returned;

static void *hang_call(void *arg)
{
  unsigned u;
  p_nvmlDeviceGetTemperature((nvmlDevice_t)arg, NVML_TEMPERATURE_GPU, &u);
  hang_returned = 1;
  return NULL;
}

static void suite_hang(void)
{
  use_xml("telegraf-tesla-t4.xml");
  setenv("AXL_NVML_DOUBLE_HANG", "nvmlDeviceGetTemperature,nvmlDeviceGetPowerUsage", 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0);
  pthread_t t;
  pthread_create(&t, NULL, hang_call, d);
  pthread_detach(t);
  struct timespec ts = {0, 300 * 1000 * 1000};
  nanosleep(&ts, NULL);
  CHECK(!hang_returned);
  /* the hanging call holds no lock: everything else still answers */
  char buf[96];
  RC(p_nvmlDeviceGetName(d, buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "Tesla T4");
  CHECK(!hang_returned);
  /* the thread sleeps on; the process exits past it */
}

/* ==== events (events.inc) ==================================================================== */
static void append(const char *path, const char *text)
{
  int fd = open(path, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
  if (fd < 0 || write(fd, text, strlen(text)) != (ssize_t)strlen(text)) {
    perror(path);
    exit(2);
  }
  close(fd);
}

static double now_s(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static const char *late_path;
static void *append_later(void *arg)
{
  struct timespec ts = {0, 150 * 1000 * 1000};
  nanosleep(&ts, NULL);
  append(late_path, (const char *)arg);
  return NULL;
}

static void suite_events(void)
{
  use_xml("telegraf-a100-sxm4-v12.xml"); /* one A100, ECC on, four MIG devices */
  const char *gpu0 = "GPU-513536b6-7d19-9063-b049-1e69664bb298";
  char events[64];
  snprintf(events, sizeof(events), "%s", temp_file("# before anything: never delivered\n"));
  append(events, "GPU-513536b6-7d19-9063-b049-1e69664bb298 xid 79\n");
  setenv("AXL_NVML_DOUBLE_EVENTS", events, 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  nvmlDevice_t d = gpu(0), m = NULL;
  RC(p_nvmlDeviceGetMigDeviceHandleByIndex(d, 1, &m), NVML_SUCCESS);
  unsigned gi = 0, ci = 0;
  RC(p_nvmlDeviceGetGpuInstanceId(m, &gi), NVML_SUCCESS);
  RC(p_nvmlDeviceGetComputeInstanceId(m, &ci), NVML_SUCCESS);
  char mig_uuid[96];
  str_of(p_nvmlDeviceGetUUID, m, mig_uuid, sizeof(mig_uuid));

  nvmlEventSet_t set = NULL;
  RC(p_nvmlEventSetCreate(NULL), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlEventSetCreate(&set), NVML_SUCCESS);
  unsigned long long types = 0;
  RC(p_nvmlDeviceGetSupportedEventTypes(d, &types), NVML_SUCCESS);
  EQ(types, nvmlEventTypeXidCriticalError | nvmlEventTypePState | nvmlEventTypeSingleBitEccError |
                nvmlEventTypeDoubleBitEccError);
  RC(p_nvmlDeviceGetSupportedEventTypes(m, &types), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceRegisterEvents(m, nvmlEventTypeXidCriticalError, set), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceRegisterEvents(d, 1ull << 40, set), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlDeviceRegisterEvents(d, nvmlEventTypeClock, set), NVML_ERROR_NOT_SUPPORTED);
  RC(p_nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError, NULL), NVML_ERROR_INVALID_ARGUMENT);
  /* the Xid written before the registration is not delivered */
  nvmlEventData_t e;
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  RC(p_nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError | nvmlEventTypeDoubleBitEccError, set),
     NVML_SUCCESS);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  double t0 = now_s();
  RC(p_nvmlEventSetWait_v2(set, &e, 60), NVML_ERROR_TIMEOUT);
  CHECK(now_s() - t0 >= 0.055 && now_s() - t0 < 2);
  RC(p_nvmlEventSetWait_v2(set, NULL, 0), NVML_ERROR_INVALID_ARGUMENT);

  char line[160];
  snprintf(line, sizeof(line), "%s xid 79\n", gpu0);
  append(events, line);
  memset(&e, 0, sizeof(e));
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  CHECK(e.device == d);
  EQ(e.eventType, nvmlEventTypeXidCriticalError);
  EQ(e.eventData, 79);
  EQ(e.gpuInstanceId, 0xFFFFFFFFu);
  EQ(e.computeInstanceId, 0xFFFFFFFFu);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT); /* delivered once */
  /* a MIG device's Xid comes on its GPU with the instance ids; its DBE without */
  snprintf(line, sizeof(line), "%s xid 31 # a comment\n\n%s dbe\n", mig_uuid, mig_uuid);
  append(events, line);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  CHECK(e.device == d);
  EQ(e.eventData, 31);
  EQ(e.gpuInstanceId, gi);
  EQ(e.computeInstanceId, ci);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  EQ(e.eventType, nvmlEventTypeDoubleBitEccError);
  EQ(e.eventData, 0);
  EQ(e.gpuInstanceId, 0xFFFFFFFFu);
  /* a type not registered, an unknown device: nothing */
  snprintf(line, sizeof(line), "%s sbe\nGPU-00000000-0000-0000-0000-000000000000 xid 48\n", gpu0);
  append(events, line);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  /* half a line is not read until it is whole */
  snprintf(line, sizeof(line), "%s xi", gpu0);
  append(events, line);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_TIMEOUT);
  append(events, "d 999\n");
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  EQ(e.eventData, 999);
  /* a waiting call returns as soon as an event arrives */
  snprintf(line, sizeof(line), "%s xid 48\n", gpu0);
  late_path = events;
  pthread_t t;
  pthread_create(&t, NULL, append_later, line);
  t0 = now_s();
  RC(p_nvmlEventSetWait_v2(set, &e, 5000), NVML_SUCCESS);
  CHECK(now_s() - t0 < 2);
  EQ(e.eventData, 48);
  pthread_join(t, NULL);
  /* a malformed line: UNKNOWN (and a message), then the next line */
  snprintf(line, sizeof(line), "%s xid\n%s xid 94\n", gpu0, gpu0);
  append(events, line);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_UNKNOWN);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  EQ(e.eventData, 94);
  /* the base symbol fills the 24-byte struct of drivers before R450 */
  nvmlEventData_t full;
  memset(&full, 0xab, sizeof(full));
  snprintf(line, sizeof(line), "%s xid 95\n", gpu0);
  append(events, line);
  RC(p_nvmlEventSetWait(set, &full, 0), NVML_SUCCESS);
  nvmld_event_data_v1_t v1;
  memcpy(&v1, &full, sizeof(v1));
  EQ(v1.eventData, 95);
  CHECK(full.gpuInstanceId == 0xababababu && full.computeInstanceId == 0xababababu);
  /* a second set sees only what came after its registration */
  nvmlEventSet_t set2 = NULL;
  RC(p_nvmlEventSetCreate(&set2), NVML_SUCCESS);
  RC(p_nvmlDeviceRegisterEvents(d, nvmlEventTypeXidCriticalError, set2), NVML_SUCCESS);
  RC(p_nvmlEventSetWait_v2(set2, &e, 0), NVML_ERROR_TIMEOUT);
  snprintf(line, sizeof(line), "%s xid 74\n", gpu0);
  append(events, line);
  RC(p_nvmlEventSetWait_v2(set2, &e, 0), NVML_SUCCESS);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_SUCCESS);
  EQ(e.eventData, 74);
  RC(p_nvmlEventSetFree(set2), NVML_SUCCESS);
  RC(p_nvmlEventSetWait_v2(set2, &e, 0), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlEventSetFree(set2), NVML_ERROR_INVALID_ARGUMENT);
  RC(p_nvmlEventSetFree(set), NVML_SUCCESS);
  /* AXL_NVML_DOUBLE_FAIL reaches the wait too */
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  RC(p_nvmlEventSetCreate(&set), NVML_ERROR_UNINITIALIZED);
  setenv("AXL_NVML_DOUBLE_FAIL", "nvmlEventSetWait_v2=GPU_IS_LOST", 1);
  RC(p_nvmlInit_v2(), NVML_SUCCESS);
  RC(p_nvmlEventSetCreate(&set), NVML_SUCCESS);
  RC(p_nvmlEventSetWait_v2(set, &e, 0), NVML_ERROR_GPU_IS_LOST);
  RC(p_nvmlShutdown(), NVML_SUCCESS);
  unlink(events);
}

/* ==== the 2017-era build ============================================================================ */
static void suite_old_variant(void)
{
  void *lib = open_double(NVMLD_OLD_LIB);
  static const char *const absent[] = {
      "nvmlInit_v2", "nvmlInitWithFlags", "nvmlDeviceGetCount_v2", "nvmlDeviceGetHandleByIndex_v2",
      "nvmlDeviceGetHandleByPciBusId_v2", "nvmlDeviceGetPciInfo_v2", "nvmlDeviceGetPciInfo_v3",
      "nvmlDeviceGetMemoryInfo_v2", "nvmlSystemGetCudaDriverVersion_v2", "nvmlDeviceGetComputeRunningProcesses_v2",
      "nvmlDeviceGetComputeRunningProcesses_v3", "nvmlDeviceGetGraphicsRunningProcesses_v3",
      "nvmlDeviceGetNvLinkRemotePciInfo_v2", "nvmlDeviceGetAttributes_v2", "nvmlDeviceGetGpuInstanceProfileInfoV",
      "nvmlDeviceGetMigMode", "nvmlDeviceGetMaxMigDeviceCount", "nvmlDeviceGetMigDeviceHandleByIndex",
      "nvmlDeviceIsMigDeviceHandle", "nvmlDeviceGetGpuInstanceId", "nvmlDeviceGetComputeInstanceId",
      "nvmlDeviceGetDeviceHandleFromMigDeviceHandle", "nvmlDeviceGetAttributes",
      "nvmlDeviceGetGpuInstanceProfileInfo", "nvmlDeviceGetGpuInstanceRemainingCapacity", "nvmlDeviceGetNumGpuCores",
      "nvmlDeviceGetArchitecture", "nvmlDeviceGetCurrentClocksEventReasons", "nvmlDeviceGetNvLinkRemoteDeviceType",
      "nvmlEventSetWait_v2"};
  for (size_t i = 0; i < sizeof(absent) / sizeof(absent[0]); i++)
    if (dlsym(lib, absent[i]) != NULL) {
      fprintf(stderr, "old variant has %s\n", absent[i]);
      failures++;
    }
  __typeof__(nvmlInit) *init = (__typeof__(nvmlInit) *)dlsym(lib, "nvmlInit");
  __typeof__(nvmlShutdown) *shutdown = (__typeof__(nvmlShutdown) *)dlsym(lib, "nvmlShutdown");
  __typeof__(nvmlDeviceGetCount) *count = (__typeof__(nvmlDeviceGetCount) *)dlsym(lib, "nvmlDeviceGetCount");
  __typeof__(nvmlDeviceGetHandleByIndex) *by_index =
      (__typeof__(nvmlDeviceGetHandleByIndex) *)dlsym(lib, "nvmlDeviceGetHandleByIndex");
  __typeof__(nvmlDeviceGetPciInfo) *pci_info = (__typeof__(nvmlDeviceGetPciInfo) *)dlsym(lib, "nvmlDeviceGetPciInfo");
  __typeof__(nvmlDeviceGetMemoryInfo) *mem_info =
      (__typeof__(nvmlDeviceGetMemoryInfo) *)dlsym(lib, "nvmlDeviceGetMemoryInfo");
  __typeof__(nvmlDeviceGetName) *name = (__typeof__(nvmlDeviceGetName) *)dlsym(lib, "nvmlDeviceGetName");
  __typeof__(nvmlDeviceGetCudaComputeCapability) *cc =
      (__typeof__(nvmlDeviceGetCudaComputeCapability) *)dlsym(lib, "nvmlDeviceGetCudaComputeCapability");
  CHECK(init && shutdown && count && by_index && pci_info && mem_info && name && cc);
  if (!(init && shutdown && count && by_index && pci_info && mem_info && name && cc))
    return;
  use_xml("telegraf-a100-sxm4-v12.xml");
  RC(init(), NVML_SUCCESS);
  unsigned n = 0;
  RC(count(&n), NVML_SUCCESS);
  EQ(n, 1);
  nvmlDevice_t d = NULL;
  RC(by_index(0, &d), NVML_SUCCESS);
  nvmlPciInfo_t raw;
  nvmld_pci_info_v1_t pci;
  RC(pci_info(d, &raw), NVML_SUCCESS);
  memcpy(&pci, &raw, sizeof(pci));
  STREQ(pci.busId, "0000:01:00.0");
  EQ(pci.pciDeviceId, 0x20B210DE);
  nvmlMemory_t mem;
  RC(mem_info(d, &mem), NVML_SUCCESS);
  EQ(mem.total, MIB(81920));
  char buf[64];
  RC(name(d, buf, sizeof(buf)), NVML_SUCCESS);
  STREQ(buf, "NVIDIA A100-SXM4-80GB");
  int major, minor;
  RC(cc(d, &major, &minor), NVML_SUCCESS);
  EQ(major * 10 + minor, 80);
  RC(shutdown(), NVML_SUCCESS);
  RC(count(&n), NVML_ERROR_UNINITIALIZED);
}

int main(int argc, char **argv)
{
  static const struct {
    const char *name;
    void (*fn)(void);
    int needs_current;
  } suites[] = {
      {"xml", suite_xml, 0},
      {"a100_mig", suite_a100_mig, 1},
      {"dual", suite_dual, 1},
      {"old_files", suite_old_files, 1},
      {"all_fixtures", suite_all_fixtures, 1},
      {"h100_nvlink", suite_h100_nvlink, 1},
      {"mig_capacity", suite_mig_capacity, 1},
      {"args", suite_args, 1},
      {"fail", suite_fail, 1},
      {"nonsense", suite_nonsense, 1},
      {"noxml", suite_noxml, 1},
      {"badxml", suite_badxml, 1},
      {"log", suite_log, 1},
      {"threads", suite_threads, 1},
      {"hang", suite_hang, 1},
      {"events", suite_events, 1},
      {"old_variant", suite_old_variant, 0},
  };
  int ran = 0;
  for (size_t i = 0; i < sizeof(suites) / sizeof(suites[0]); i++) {
    if (argc > 1 && strcmp(argv[1], suites[i].name) != 0)
      continue;
    reset_env();
    suite_name = suites[i].name;
    if (suites[i].needs_current && !p_nvmlInit)
      load_current();
    suites[i].fn();
    ran++;
  }
  if (!ran) {
    fprintf(stderr, "usage: %s [suite]\n", argv[0]);
    return 2;
  }
  if (failures)
    fprintf(stderr, "%d failure(s)\n", failures);
  return failures ? 1 : 0;
}
