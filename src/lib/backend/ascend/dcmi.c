/* SPDX-License-Identifier: MIT */
/*
 * Huawei Ascend NPUs through Huawei's DCMI library (libdcmi.so, loaded with dlopen; the
 * library npu-smi and Huawei's Kubernetes device plugin use; src/abi/ascend/dcmi.h). The
 * Ascend 910B variants (910B1..910B4) share PCI device id d802 and differ in HBM size and
 * AI Core count, which nothing in sysfs and no public table by subsystem id tells; DCMI
 * reports both per chip:
 *   dcmi_get_card_list, dcmi_get_device_num_in_card   the chips, as (card, device);
 *   dcmi_get_device_pcie_info_v2                      each chip's PCI address (the match
 *                                                     with axl's device);
 *   dcmi_get_device_hbm_info                          memory_size: its HBM, in MB;
 *   dcmi_get_device_chip_info                         aicore_cnt: its AI Cores.
 * The ascend backend's sysfs view stays; without the library its memory and AI Cores
 * stay unknown, with data/devices.db's reasons.
 *
 * The calls run in a worker thread started before the PCI scan (vendorlib/vdrv.h), as
 * NVML's do; a re-rooted tree that holds axl-capture/dcmi.jsonl is answered from it;
 * $AXL_DCMI_LIBRARY loads a given library instead of the system's (the test suite's
 * double, tests/vendorlib/dcmi/double).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/ascend/dcmi.h"
#include "backend.h"
#include "backend_util.h"
#include "vdrv.h"
#include "util/json.h"
#include "util/jsonr.h"

#define SRC "dcmi"
static const axl_source D = AXL_SOURCE_DCMI;

/* what a function the library lacks answers, and a call no capture recorded: no DCMI
 * status (DCMI answers 0 for success and negative error codes, -80xx) */
#define AXL_DCMI_NO_FUNCTION (-1000000)

/* at most this many chips (an Atlas 800T A2 holds 8; a card up to 4 chips) */
#define DCMI_MAX_CARDS 64
#define DCMI_MAX_CHIPS 64

/* ---- the library ---------------------------------------------------------------------- */

struct axl__dcmi_fns {
	__typeof__(&dcmi_init) init;
	__typeof__(&dcmi_get_card_list) get_card_list;
	__typeof__(&dcmi_get_device_num_in_card) get_device_num_in_card;
	__typeof__(&dcmi_get_device_pcie_info_v2) get_device_pcie_info_v2;
	__typeof__(&dcmi_get_device_chip_info) get_device_chip_info;
	__typeof__(&dcmi_get_device_hbm_info) get_device_hbm_info;
};

/* Huawei installs it unversioned, in the driver's folders (the driver's installer;
 * Huawei's device plugin and npu-exporter load it from the loader's path, which the
 * installer's LD_LIBRARY_PATH and ld.so.conf entries name); the absolute paths for a
 * process started without them */
static const char *const sonames[] = {
	"libdcmi.so",
	"/usr/local/Ascend/driver/lib64/driver/libdcmi.so",
	"/usr/local/Ascend/driver/lib64/common/libdcmi.so",
	"/usr/local/Ascend/driver/lib64/libdcmi.so",
	"/usr/local/dcmi/libdcmi.so",
};
static const char *const dirs[] = {
	"/usr/local/Ascend/driver/lib64/driver",
	"/usr/local/Ascend/driver/lib64/common",
	"/usr/local/Ascend/driver/lib64",
	"/usr/local/dcmi",
	NULL,
};

#define F(member) offsetof(struct axl__dcmi_fns, member)
static const struct axl__vsym symbols[] = {
	{F(init), {"dcmi_init"}},
	{F(get_card_list), {"dcmi_get_card_list"}},
	{F(get_device_num_in_card), {"dcmi_get_device_num_in_card"}},
	{F(get_device_pcie_info_v2), {"dcmi_get_device_pcie_info_v2"}},
	{F(get_device_chip_info), {"dcmi_get_device_chip_info"}},
	{F(get_device_hbm_info), {"dcmi_get_device_hbm_info"}},
};
#undef F

static struct axl__vlib_cache cache = AXL__VLIB_CACHE_INIT;

static bool usable(const void *table, const char *name, char *why, size_t cap)
{
	const struct axl__dcmi_fns *fns = table;
	if (fns->init && fns->get_card_list && fns->get_device_num_in_card && fns->get_device_pcie_info_v2)
		return true;
	snprintf(why, cap, "%s lacks dcmi_init/dcmi_get_card_list/dcmi_get_device_num_in_card/"
		 "dcmi_get_device_pcie_info_v2", name);
	return false;
}

static const struct axl__vlibrary dcmi_library = {
	sonames, sizeof sonames / sizeof *sonames, symbols, sizeof symbols / sizeof *symbols,
	sizeof(struct axl__dcmi_fns), usable, &cache, dirs};

/* ---- the job: what the worker collects ------------------------------------------------- */

struct dcmi_chip {
	int card, dev;
	int pci_rc, chip_rc, hbm_rc;
	struct dcmi_pcie_info_all pci;
	struct dcmi_chip_info chip;
	struct dcmi_hbm_info hbm;
};

struct dcmi_job {
	struct axl__vwork w;
	int init_rc, list_rc;
	struct dcmi_chip chips[DCMI_MAX_CHIPS];
	size_t n;
};

#define VQ (&j->w.q)
#define LIVE(fnptr, ...) AXL__VQ_LIVE(VQ, AXL_DCMI_NO_FUNCTION, fnptr, __VA_ARGS__)
#define FN(member) (VQ->lib ? ((const struct axl__dcmi_fns *)VQ->lib)->member : NULL)
#define ANSWER(f, d, vo, out, live) axl__vq_answer(VQ, &(const struct axl__vkey){f, d, NULL, NULL, 0}, vo, out, live)

static int init_live(const void *lib)
{
	const struct axl__dcmi_fns *fn = lib;
	return fn->init ? fn->init() : AXL_DCMI_NO_FUNCTION;
}

/* dcmi_get_card_list's answer: {"card_num":N,"card_list":[ids]} */
struct card_list {
	int n;
	int id[DCMI_MAX_CARDS];
};
static void cards_put(struct axl__json *w, const void *out)
{
	const struct card_list *c = out;
	axl__json_obj(w);
	axl__json_kint(w, "card_num", c->n);
	axl__json_key(w, "card_list");
	axl__json_arr(w);
	for (int i = 0; i < c->n && i < DCMI_MAX_CARDS; i++)
		axl__json_int(w, c->id[i]);
	axl__json_arr_end(w);
	axl__json_obj_end(w);
}
static void cards_get(const struct axl__jv *o, void *out)
{
	struct card_list *c = out;
	memset(c, 0, sizeof *c);
	const struct axl__jv *l = o ? axl__jv_get(o, "card_list") : NULL;
	if (!l || l->type != AXL__J_ARR)
		return;
	for (size_t i = 0; i < l->len && c->n < DCMI_MAX_CARDS; i++)
		if (l->items[i].type == AXL__J_NUM && l->items[i].is_int && l->items[i].i >= 0 &&
		    l->items[i].i < 1 << 20)
			c->id[c->n++] = (int)l->items[i].i;
}

static const struct axl__vfield pcie_fields[] = {
	AXL__VF_UINT(struct dcmi_pcie_info_all, venderid),
	AXL__VF_UINT(struct dcmi_pcie_info_all, deviceid),
	AXL__VF_UINT(struct dcmi_pcie_info_all, subvenderid),
	AXL__VF_UINT(struct dcmi_pcie_info_all, subdeviceid),
	AXL__VF_INT(struct dcmi_pcie_info_all, domain),
	AXL__VF_UINT(struct dcmi_pcie_info_all, bdf_busid),
	AXL__VF_UINT(struct dcmi_pcie_info_all, bdf_deviceid),
	AXL__VF_UINT(struct dcmi_pcie_info_all, bdf_funcid),
	{"", 0, 0, 0},
};
static const struct axl__vfield chip_fields[] = {
	AXL__VF_CHARS(struct dcmi_chip_info, chip_type),
	AXL__VF_CHARS(struct dcmi_chip_info, chip_name),
	AXL__VF_CHARS(struct dcmi_chip_info, chip_ver),
	AXL__VF_UINT(struct dcmi_chip_info, aicore_cnt),
	{"", 0, 0, 0},
};
static const struct axl__vfield hbm_fields[] = {
	AXL__VF_ULL(struct dcmi_hbm_info, memory_size),
	AXL__VF_UINT(struct dcmi_hbm_info, freq),
	AXL__VF_ULL(struct dcmi_hbm_info, memory_usage),
	AXL__VF_INT(struct dcmi_hbm_info, temp),
	AXL__VF_UINT(struct dcmi_hbm_info, bandwith_util_rate),
	{"", 0, 0, 0},
};

#define jwarn(j, ...) axl__vwarn_add(&(j)->w.warn, __VA_ARGS__)

static void collect_chip(struct dcmi_job *j, struct dcmi_chip *c)
{
	static const struct axl__vout vo_pcie = {AXL__VO_FIELDS, sizeof(struct dcmi_pcie_info_all), pcie_fields, NULL,
						 NULL};
	static const struct axl__vout vo_chip = { AXL__VO_FIELDS, sizeof(struct dcmi_chip_info), chip_fields, NULL,
						  NULL };
	static const struct axl__vout vo_hbm = {AXL__VO_FIELDS, sizeof(struct dcmi_hbm_info), hbm_fields, NULL, NULL};
	char name[24];
	snprintf(name, sizeof name, "%d/%d", c->card, c->dev);
	c->pci_rc = ANSWER("dcmi_get_device_pcie_info_v2", name, &vo_pcie, &c->pci,
			   LIVE(FN(get_device_pcie_info_v2), c->card, c->dev, &c->pci));
	if (c->pci_rc != 0) {
		if (c->pci_rc != AXL_DCMI_NO_FUNCTION)
			jwarn(j, "card %d device %d: dcmi_get_device_pcie_info_v2: error %d", c->card, c->dev,
			      c->pci_rc);
		return; /* a chip that cannot say where it is matches no device */
	}
	c->chip_rc = ANSWER("dcmi_get_device_chip_info", name, &vo_chip, &c->chip,
			    LIVE(FN(get_device_chip_info), c->card, c->dev, &c->chip));
	if (c->chip_rc != 0 && c->chip_rc != AXL_DCMI_NO_FUNCTION)
		jwarn(j, "card %d device %d: dcmi_get_device_chip_info: error %d", c->card, c->dev, c->chip_rc);
	c->hbm_rc = ANSWER("dcmi_get_device_hbm_info", name, &vo_hbm, &c->hbm,
			   LIVE(FN(get_device_hbm_info), c->card, c->dev, &c->hbm));
	/* a chip without HBM (the Ascend 310 series) answers an error: not worth a warning */
}

static void collect(void *arg)
{
	struct dcmi_job *j = arg;
	j->init_rc = axl__vq_init(VQ, &cache, 0, "dcmi_init", AXL_DCMI_NO_FUNCTION, init_live);
	if (j->init_rc != 0)
		return;
	static const struct axl__vout vo_cards = {AXL__VO_CUSTOM, 0, NULL, cards_put, cards_get};
	static const struct axl__vout vo_int = {AXL__VO_INT, 0, NULL, NULL, NULL};
	struct card_list cl;
	memset(&cl, 0, sizeof cl);
	int live = LIVE(FN(get_card_list), &cl.n, cl.id, DCMI_MAX_CARDS);
	if (cl.n < 0 || cl.n > DCMI_MAX_CARDS)
		cl.n = cl.n < 0 ? 0 : DCMI_MAX_CARDS;
	j->list_rc = ANSWER("dcmi_get_card_list", NULL, &vo_cards, &cl, live);
	if (j->list_rc != 0) {
		jwarn(j, "dcmi_get_card_list: error %d", j->list_rc);
		return;
	}
	for (int k = 0; k < cl.n && j->n < DCMI_MAX_CHIPS; k++) {
		char name[16];
		snprintf(name, sizeof name, "%d", cl.id[k]);
		int num = 0;
		int r = ANSWER("dcmi_get_device_num_in_card", name, &vo_int, &num,
			       LIVE(FN(get_device_num_in_card), cl.id[k], &num));
		if (r != 0) {
			jwarn(j, "card %d: dcmi_get_device_num_in_card: error %d", cl.id[k], r);
			continue;
		}
		/* chips are numbered 0..num-1 in a card (the device plugin's devmanager) */
		for (int d = 0; d < num && d < 16 && j->n < DCMI_MAX_CHIPS; d++) {
			struct dcmi_chip *c = &j->chips[j->n++];
			c->card = cl.id[k];
			c->dev = d;
			collect_chip(j, c);
		}
	}
}

/* ---- on the inventory's thread ---------------------------------------------------------- */

static bool ready(struct axl__scan *scan, void *arg, size_t *n)
{
	struct dcmi_job *j = arg;
	const char *asked = axl__vdrv_library(scan->inv->ctx, SRC);
	if (j->init_rc == AXL_DCMI_NO_FUNCTION && j->w.q.v.mode == AXL__VREC_REPLAY)
		return false; /* a capture taken without the library */
	if (j->init_rc != 0) {
		/* the driver is there (or the library was named): the library should work */
		axl__warn(scan->inv, SRC, asked, "dcmi_init: error %d", j->init_rc);
		return false;
	}
	*n = j->n;
	return true;
}

static void apply(struct axl__scan *scan, void *arg, struct axl_device **dev)
{
	struct dcmi_job *j = arg;
	struct axl_inventory *inv = scan->inv;
	for (size_t i = 0; i < j->n; i++) {
		const struct dcmi_chip *c = &j->chips[i];
		if (c->pci_rc != 0 || c->pci.domain < 0 || c->pci.bdf_busid > 0xff || c->pci.bdf_deviceid > 0x1f ||
		    c->pci.bdf_funcid > 7)
			continue;
		struct axl_device *d = axl__find_pci(inv, (unsigned)c->pci.domain, c->pci.bdf_busid,
						     c->pci.bdf_deviceid, c->pci.bdf_funcid);
		if (!d || axl__int(d, AXL_ATTR_VENDOR_ID, -1) != 0x19e5) {
			axl__warn(inv, SRC, NULL, "card %d device %d: %04x:%02x:%02x.%u is no Huawei device axl sees",
				  c->card, c->dev, (unsigned)c->pci.domain, c->pci.bdf_busid, c->pci.bdf_deviceid,
				  c->pci.bdf_funcid);
			continue;
		}
		dev[i] = d;
		/* MB; 0 (a chip without HBM) says nothing. At most 1 TiB of HBM per chip. */
		if (c->hbm_rc == 0 && c->hbm.memory_size > 0 && c->hbm.memory_size <= (1ull << 20))
			axl__set_int(d, AXL_ATTR_MEMORY_TOTAL, D, (int64_t)(c->hbm.memory_size << 20));
		else if (c->hbm_rc == 0)
			axl__warn(inv, SRC, NULL,
				  "card %d device %d: dcmi_get_device_hbm_info: %llu MB of HBM; ignored", c->card,
				  c->dev, c->hbm.memory_size);
		if (c->chip_rc == 0 && c->chip.aicore_cnt > 0 && c->chip.aicore_cnt <= 4096)
			axl__add_cu(inv, d, "AI Core", c->chip.aicore_cnt, D);
		else if (c->chip_rc == 0)
			axl__warn(inv, SRC, NULL, "card %d device %d: dcmi_get_device_chip_info: %u AI Cores; ignored",
				  c->card, c->dev, c->chip.aicore_cnt);
	}
}

/* the Ascend driver's host modules: its PCIe driver (drv_pcie_host, the module of
 * devdrv_device_driver on tests/trees/nodes/ascend-910b.json) or its device manager */
static bool ascend_driver_here(const struct axl__fs *fs)
{
	return axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/drv_pcie_host") ||
	       axl__fs_exists(fs, AXL__FS_ROOT, "/sys/module/drv_devmng_host");
}

/* DCMI comes with the Ascend driver: where the driver is, a library that is missing or
 * fails says so, unless none of it is installed (a container given the devices alone) */
static const struct axl__vdrv dcmi = {
	.name = SRC,
	.display = "DCMI",
	.devices = "Ascend NPUs",
	.timing = "dcmi.calls",
	.lib = &dcmi_library,
	.quiet = AXL__VDRV_WARN_THERE,
	.missing = AXL_DCMI_NO_FUNCTION,
	.job_size = sizeof(struct dcmi_job),
	.present = ascend_driver_here,
	.collect = collect,
	.ready = ready,
	.apply = apply,
};
AXL__VDRV_HOOKS(dcmi, dcmi)

static const struct axl__library_ops dcmi_libs = {
	.env = "AXL_DCMI_LIBRARY",
};

const struct axl__backend axl__backend_dcmi = {
	.name = SRC,
	.discover = &dcmi_discover,
	.libs = &dcmi_libs,
};
