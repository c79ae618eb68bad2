/* SPDX-License-Identifier: MIT */
/*
 * Calls into ROCm SMI, live, recorded or replayed (vrec.h). Every ROCm SMI call axl
 * makes goes through one of the axl__rsq_* helpers below, which
 *   live:    call the function resolved from librocm_smi64.so.N (NULL: the library
 *            lacks it, answered as AXL_RSMI_NO_FUNCTION);
 *   record:  also append the answer as one JSON line to the capture
 *            {"f":"rsmi_dev_name_get","d":"0","r":0,"o":"Arcturus GL-XL [Instinct MI100]"};
 *   replay:  answer from such lines (a call nobody recorded answers NOT_SUPPORTED).
 * Devices are named by their ROCm SMI index ("0"); a pair call names the second one in
 * "e". 64-bit ids (BDF, unique id) are recorded as "0x..." strings, so that
 * values above 2^63 come back exactly. Frequency tables are recorded decoded (whatever
 * layout the library had): {"num_supported":N,"current":C,"deep_sleep":0|1,"frequency":[Hz...]}.
 */
#ifndef AXL_RSMI_CALL_H
#define AXL_RSMI_CALL_H

#include <stdbool.h>
#include <stdint.h>

#include "rsmi_api.h"
#include "vdrv.h"

/* The calls' state: the generic job head (vdrv.h; w.q.lib is a struct axl__rsmi_fns),
 * and what the library's version decides. A ROCm SMI job starts with it. */
struct axl__rsq {
	struct axl__vwork w;
	bool freq_v6; /* live: the library's rsmi_frequencies_t layout */
};

/* A frequency table, whatever the library's layout. num and current as the library
 * said (not checked here); hz[] holds the first min(num, 33) levels. */
struct axl__rsmi_freq {
	uint32_t num, current;
	unsigned deep_sleep; /* the byte the library wrote into its bool (0 or 1 when sane) */
	uint64_t hz[AXL_RSMI_FREQ_V6];
	size_t nhz; /* live: how many levels the library's layout held */
};

/* The library: the system's newest SONAME first (librocm_smi64.so.7, .6, .5, .1), or the
 * one named; loaded by the driver (vdrv.h), never unloaded. */
extern const struct axl__vlibrary axl__rsmi_library;

/* ROCm SMI's name of a status ("RSMI_STATUS_PERMISSION"), for warnings. */
const char *axl__rsmi_strerror(rsmi_status_t r);

/* rsmi_init(0), once per process per library (later calls answer its first success). */
rsmi_status_t axl__rsq_init(struct axl__rsq *q);
/* rsmi_version_get; live, it also picks the frequency layout (q->freq_v6). */
rsmi_status_t axl__rsq_version(struct axl__rsq *q, unsigned *major, unsigned *minor, unsigned *patch);
/* rsmi_version_str_get(RSMI_SW_COMP_DRIVER) */
rsmi_status_t axl__rsq_driver(struct axl__rsq *q, char *buf, unsigned cap);
rsmi_status_t axl__rsq_count(struct axl__rsq *q, unsigned *n);

/* Per-device calls, by kind. */
enum axl__rsq_str {
	RSQ_NAME, RSQ_BRAND, RSQ_SERIAL, RSQ_VBIOS, RSQ_COMPUTE_PARTITION, RSQ_MEMORY_PARTITION,
	RSQ_STR__N
};
enum axl__rsq_u64 { RSQ_PCI_ID, RSQ_UNIQUE_ID, RSQ_POWER_CAP_DEFAULT, RSQ_U64__N };
enum axl__rsq_u16 { RSQ_DEVICE_ID, RSQ_VENDOR_ID, RSQ_REVISION, RSQ_U16__N };
/* with one integer argument: a memory type, a sensor index */
enum axl__rsq_u64a { RSQ_MEMORY_TOTAL, RSQ_MEMORY_USAGE, RSQ_POWER_CAP, RSQ_U64A__N };

rsmi_status_t axl__rsq_str(struct axl__rsq *q, enum axl__rsq_str k, unsigned dv, char *buf, unsigned cap);
rsmi_status_t axl__rsq_u64(struct axl__rsq *q, enum axl__rsq_u64 k, unsigned dv, uint64_t *out);
rsmi_status_t axl__rsq_u16(struct axl__rsq *q, enum axl__rsq_u16 k, unsigned dv, unsigned *out);
rsmi_status_t axl__rsq_u64a(struct axl__rsq *q, enum axl__rsq_u64a k, unsigned dv, unsigned arg, uint64_t *out);
rsmi_status_t axl__rsq_numa(struct axl__rsq *q, unsigned dv, unsigned *node);
rsmi_status_t axl__rsq_power_range(struct axl__rsq *q, unsigned dv, uint64_t *max, uint64_t *min);
rsmi_status_t axl__rsq_freq(struct axl__rsq *q, unsigned dv, unsigned clk, struct axl__rsmi_freq *out);

/* Pair calls (a, b: ROCm SMI indices). */
rsmi_status_t axl__rsq_link_type(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *hops, unsigned *type);
rsmi_status_t axl__rsq_bandwidth(struct axl__rsq *q, unsigned a, unsigned b, uint64_t *min, uint64_t *max);
/* *accessible: the byte the library wrote into its bool (0 or 1 when it is sane) */
rsmi_status_t axl__rsq_p2p(struct axl__rsq *q, unsigned a, unsigned b, unsigned *accessible);

#endif
