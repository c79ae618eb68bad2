/* SPDX-License-Identifier: MIT */
/*
 * What NVML said, onto the inventory (main thread). Every value is checked before it
 * is believed: a library that returns nonsense (a link generation of 99, more memory
 * used than there is, a name full of control characters) costs that value and a
 * warning, nothing else.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend.h"
#include "nvml_job.h"
#include "nvidia_dev.h"
#include "util/parse.h"

#define SRC "nvml"
static const axl_source N = AXL_SOURCE_NVML;

/* "00000000:07:00.0" or "0000:07:00.0" → numbers; false when it is neither. */
static bool parse_busid(const char *s, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	unsigned long long d;
	unsigned b, v, f;
	char tail;
	if (sscanf(s, "%llx:%x:%x.%x%c", &d, &b, &v, &f, &tail) != 4)
		return false;
	if (d > 0xffff || b > 0xff || v > 0x1f || f > 7)
		return false;
	*dom = (unsigned)d;
	*bus = b;
	*dev = v;
	*fn = f;
	return true;
}

static bool pci_of(const nvmlPciInfo_t *p, unsigned *dom, unsigned *bus, unsigned *dev, unsigned *fn)
{
	if (p->busId[0] && parse_busid(p->busId, dom, bus, dev, fn))
		return true;
	return p->busIdLegacy[0] && parse_busid(p->busIdLegacy, dom, bus, dev, fn);
}

/* A string NVML returned, if it is text: no control characters. */
static const char *text(struct axl_inventory *inv, unsigned i, const char *what, const char *s)
{
	for (const unsigned char *p = (const unsigned char *)s; *p; p++) {
		if (*p < 0x20 || *p == 0x7f) {
			axl__warn(inv, SRC, NULL, "GPU %u: %s holds control characters; ignored", i, what);
			return NULL;
		}
	}
	return s[0] ? s : NULL;
}

static const char *arch_name(nvmlDeviceArchitecture_t a)
{
	static const char *const names[] = {
		[NVML_DEVICE_ARCH_KEPLER] = "Kepler", [NVML_DEVICE_ARCH_MAXWELL] = "Maxwell",
		[NVML_DEVICE_ARCH_PASCAL] = "Pascal", [NVML_DEVICE_ARCH_VOLTA] = "Volta",
		[NVML_DEVICE_ARCH_TURING] = "Turing", [NVML_DEVICE_ARCH_AMPERE] = "Ampere",
		[NVML_DEVICE_ARCH_ADA] = "Ada Lovelace", [NVML_DEVICE_ARCH_HOPPER] = "Hopper",
		[NVML_DEVICE_ARCH_BLACKWELL] = "Blackwell"};
	return a < sizeof names / sizeof *names ? names[a] : NULL;
}

/* NVLink generation of a GPU architecture, and one link's bandwidth per direction
 * (GB/s) in that generation: P100 NVLink 1 (20), V100 2, A100 3, H100 4 (25 each),
 * B200 5 (50). NVML's own version number changed encoding across drivers (plain
 * generation numbers, later nvmlNvlinkVersion_t values), so the architecture decides. */
static int nvlink_gen(const char *arch)
{
	if (!arch)
		return -1;
	if (strcmp(arch, "Pascal") == 0)
		return 1;
	if (strcmp(arch, "Volta") == 0)
		return 2;
	if (strcmp(arch, "Ampere") == 0)
		return 3;
	if (strcmp(arch, "Hopper") == 0)
		return 4;
	if (strcmp(arch, "Blackwell") == 0)
		return 5;
	return -1;
}

static double nvlink_gbps(int gen)
{
	switch (gen) {
	case 1: return 20;
	case 2:
	case 3:
	case 4: return 25;
	case 5: return 50;
	default: return -1;
	}
}

static void fmt_pci(char *out, size_t cap, unsigned dom, unsigned bus, unsigned dev, unsigned fn)
{
	snprintf(out, cap, "%04x:%02x:%02x.%u", dom, bus, dev, fn);
}

/* /proc/driver/nvidia-caps/mig-minors: "gpu0/gi3/access 30", "gpu0/gi3/ci0/access 31".
 * The /dev/nvidia-caps/nvidia-capN a container needs for one MIG device. */
static void mig_nodes(struct axl__scan *scan, struct axl_device *child, int gpu_minor, unsigned gi,
		      unsigned ci, const char *minors)
{
	if (!minors || gpu_minor < 0)
		return;
	char want_gi[64], want_ci[64];
	snprintf(want_gi, sizeof want_gi, "gpu%d/gi%u/access", gpu_minor, gi);
	snprintf(want_ci, sizeof want_ci, "gpu%d/gi%u/ci%u/access", gpu_minor, gi, ci);
	for (const char *p = minors; *p;) {
		const char *e = strchr(p, '\n');
		size_t len = e ? (size_t)(e - p) : strlen(p);
		char line[128];
		if (len < sizeof line) {
			memcpy(line, p, len);
			line[len] = '\0';
			char *sp = strchr(line, ' ');
			if (sp) {
				*sp = '\0';
				uint64_t minor;
				if ((strcmp(line, want_gi) == 0 || strcmp(line, want_ci) == 0) &&
				    axl__parse_u64(sp + 1, 10, &minor) == 0 && minor < (1u << 20)) {
					char node[64];
					snprintf(node, sizeof node, "/dev/nvidia-caps/nvidia-cap%u", (unsigned)minor);
					axl__add_node(scan->inv, child, node);
				}
			}
		}
		p += len + (e ? 1 : 0);
	}
}

/* A profile name: NVML's own ("MIG 1g.10gb" → "1g.10gb"), or made from its numbers. */
static void profile_name(const nvmlGpuInstanceProfileInfo_v2_t *p, char *out, size_t cap)
{
	const char *n = p->name;
	if (strncmp(n, "MIG ", 4) == 0)
		n += 4;
	if (n[0]) {
		snprintf(out, cap, "%s", n);
		return;
	}
	/* NVIDIA names round the memory up to whole GB */
	unsigned long long gb = (p->memorySizeMB + 1023) / 1024;
	snprintf(out, cap, "%ug.%llugb", p->sliceCount, gb);
}

static void apply_mig(struct axl__scan *scan, unsigned i, const struct nv_gpu *g, struct axl_device *dev,
		      const char *minors)
{
	struct axl_inventory *inv = scan->inv;
	struct axl__part *part = axl__add_part(inv, dev, "MIG", N);
	if (!part)
		return;
	part->pub.source = N;
	part->pub.mode = g->mig == NVML_DEVICE_MIG_ENABLE ? "enabled" : "disabled";
	part->pub.pending_mode = g->mig_pend == NVML_DEVICE_MIG_ENABLE ? "enabled" : "disabled";
	if (g->has_mig_max) {
		if (g->mig_max <= 7)
			part->pub.max_partitions = g->mig_max;
		else
			axl__warn(inv, SRC, NULL, "GPU %u: %u MIG devices at most? ignored", i, g->mig_max);
	}
	char names[AXL_NVML_GI_PROFILE_MAX][AXL_NVML_STR];
	for (unsigned p = 0; p < g->nprofs; p++) {
		const struct nv_prof *pr = &g->profs[p];
		profile_name(&pr->info, names[p], sizeof names[p]);
		if (!text(inv, i, "a MIG profile name", names[p]))
			continue;
		struct axl_partition_profile *d = axl__part_profile(inv, part, names[p], N);
		if (!d)
			continue;
		d->source = N;
		d->id = pr->info.id;
		if (pr->info.memorySizeMB < (1ull << 30))
			d->memory_bytes = (int64_t)(pr->info.memorySizeMB << 20);
		d->compute_units = pr->info.multiprocessorCount;
		d->slices = pr->info.sliceCount;
		d->max_instances = pr->info.instanceCount;
		if (pr->has_remaining && pr->remaining <= pr->info.instanceCount)
			d->free_instances = pr->remaining;
	}
	for (unsigned k = 0; k < g->nmigs; k++) {
		const struct nv_mig *m = &g->migs[k];
		char suffix[48];
		if (m->has_gi && m->has_ci)
			snprintf(suffix, sizeof suffix, "mig%u.%u", m->gi, m->ci);
		else
			snprintf(suffix, sizeof suffix, "mig-index%u", k);
		struct axl_device *c = axl__child_new(inv, dev, suffix);
		if (!c)
			return;
		((struct nv_mig *)m)->dev = c; /* for the sampler */
		axl__set_int(c, AXL_ATTR_FAMILY, N, AXL_FAMILY_GPU);
		const axl_attr inherit[] = {AXL_ATTR_VENDOR, AXL_ATTR_VENDOR_ID, AXL_ATTR_DEVICE_ID,
					    AXL_ATTR_PCI_ADDRESS, AXL_ATTR_NUMA_NODE, AXL_ATTR_ARCHITECTURE,
					    AXL_ATTR_DRIVER, AXL_ATTR_DRIVER_VERSION, AXL_ATTR_COMPUTE_CAPABILITY};
		for (size_t a = 0; a < sizeof inherit / sizeof *inherit; a++) {
			if (!axl__known(dev, inherit[a]))
				continue;
			c->attr[inherit[a]] = dev->attr[inherit[a]];
			c->sources |= 1u << dev->attr[inherit[a]].src;
		}
		c->numa_node = dev->numa_node;
		if (text(inv, i, "a MIG device UUID", m->uuid))
			axl__set_str(inv, c, AXL_ATTR_UUID, N, m->uuid);
		if (m->has_gi)
			axl__set_int(c, AXL_ATTR_PARTITION_GPU_INSTANCE, N, m->gi);
		if (m->has_ci)
			axl__set_int(c, AXL_ATTR_PARTITION_COMPUTE_INSTANCE, N, m->ci);
		if (m->has_mem && m->mem.total > 0 && m->mem.total < (1ull << 50)) {
			axl__set_int(c, AXL_ATTR_MEMORY_TOTAL, N, (int64_t)m->mem.total);
			if (m->mem.used <= m->mem.total)
				axl__set_int(c, AXL_ATTR_MEMORY_USED, N, (int64_t)m->mem.used);
		} else if (m->has_attr && m->attr.memorySizeMB > 0 && m->attr.memorySizeMB < (1ull << 30)) {
			axl__set_int(c, AXL_ATTR_MEMORY_TOTAL, N, (int64_t)(m->attr.memorySizeMB << 20));
		}
		if (m->has_attr) {
			if (m->attr.multiprocessorCount > 0 && m->attr.multiprocessorCount < 1024)
				axl__add_cu(inv, c, "SM", m->attr.multiprocessorCount, N);
			/* which profile: the one with this many slices and this memory; where two
			 * have both (1g.10gb and 1g.10gb+me, whose GPU instance also holds the
			 * media engines), the one whose engines the instance has */
			const char *prof = NULL;
			bool engines = false;
			for (unsigned p = 0; p < g->nprofs && !engines; p++) {
				const nvmlGpuInstanceProfileInfo_v2_t *pi = &g->profs[p].info;
				if (pi->sliceCount != m->attr.gpuInstanceSliceCount ||
				    pi->memorySizeMB != m->attr.memorySizeMB)
					continue;
				engines = pi->decoderCount == m->attr.sharedDecoderCount &&
					  pi->encoderCount == m->attr.sharedEncoderCount &&
					  pi->jpegCount == m->attr.sharedJpegCount &&
					  pi->ofaCount == m->attr.sharedOfaCount;
				if (!prof || engines)
					prof = names[p];
			}
			char full[AXL_NVML_STR + 16];
			if (prof && m->attr.computeInstanceSliceCount &&
			    m->attr.computeInstanceSliceCount < m->attr.gpuInstanceSliceCount) {
				snprintf(full, sizeof full, "%uc.%s", m->attr.computeInstanceSliceCount, prof);
				prof = full;
			}
			if (prof) {
				axl__set_str(inv, c, AXL_ATTR_PARTITION_PROFILE, N, prof);
				const char *model = axl__str(dev, AXL_ATTR_MODEL);
				if (model) {
					char name[300];
					snprintf(name, sizeof name, "%s MIG %s", model, prof);
					axl__set_str(inv, c, AXL_ATTR_MODEL, N, name);
				}
			}
		}
		for (size_t n = 0; n < dev->nodes.n; n++)
			axl__add_node(inv, c, dev->nodes.v[n]);
		if (m->has_gi && m->has_ci)
			mig_nodes(scan, c, axl__nvidia_minor(dev), m->gi, m->ci, minors);
	}
}

static void apply_gpu(struct axl__scan *scan, struct nv_job *j, unsigned i, struct axl_device **devs,
		      const char *minors)
{
	struct axl_inventory *inv = scan->inv;
	const struct nv_gpu *g = &j->gpus[i];
	unsigned dom, bus, dv, fn;
	if (!g->h || !g->has_pci)
		return;
	if (!pci_of(&g->pci, &dom, &bus, &dv, &fn)) {
		axl__warn(inv, SRC, NULL, "GPU %u: PCI bus id '%.32s' is not an address; GPU skipped", i,
			  g->pci.busId[0] ? g->pci.busId : g->pci.busIdLegacy);
		return;
	}
	char addr[32];
	fmt_pci(addr, sizeof addr, dom, bus, dv, fn);
	struct axl_device *dev = axl__find_pci(inv, dom, bus, dv, fn);
	if (!dev) {
		/* NVML sees a GPU that the PCI scan did not (a container without /sys) */
		dev = axl__device_new(inv, "nvidia", "nvidia");
		if (!dev)
			return;
		dev->has_pci = true;
		dev->domain = dom;
		dev->bus = bus;
		dev->devno = dv;
		dev->fn = fn;
		axl__set_str(inv, dev, AXL_ATTR_PCI_ADDRESS, N, addr);
		axl__set_int(dev, AXL_ATTR_FAMILY, N, AXL_FAMILY_GPU);
		axl__set_str(inv, dev, AXL_ATTR_DRIVER, AXL_SOURCE_DERIVED, "nvidia");
		axl__set_str(inv, dev, AXL_ATTR_VENDOR, AXL_SOURCE_DERIVED, "NVIDIA");
	}
	devs[i] = dev;
	dev->prefix = "nvidia";
	unsigned vid = g->pci.pciDeviceId & 0xffff, did = g->pci.pciDeviceId >> 16;
	if (vid == 0x10de) {
		axl__fill_int(dev, AXL_ATTR_VENDOR_ID, N, vid);
		axl__fill_int(dev, AXL_ATTR_DEVICE_ID, N, did);
		if (g->pci.pciSubSystemId) {
			axl__fill_int(dev, AXL_ATTR_SUBSYSTEM_VENDOR_ID, N, g->pci.pciSubSystemId & 0xffff);
			axl__fill_int(dev, AXL_ATTR_SUBSYSTEM_DEVICE_ID, N, g->pci.pciSubSystemId >> 16);
		}
	} else if (g->pci.pciDeviceId) {
		axl__warn(inv, SRC, NULL, "GPU %u: PCI id 0x%08x is not NVIDIA's; ids ignored", i, g->pci.pciDeviceId);
	}
	if (g->lost)
		axl__set_str(inv, dev, AXL_ATTR_STATE, N, "lost");

	/* identity: NVML knows better than the PCI id (shared ids, board names) */
	const char *s;
	if (g->has_str[S_NAME] && (s = text(inv, i, "the name", g->str[S_NAME])) && strcmp(s, "Graphics Device") != 0)
		axl__set_str(inv, dev, AXL_ATTR_MODEL, N, s);
	if (g->has_str[S_UUID] && (s = text(inv, i, "the UUID", g->str[S_UUID])))
		axl__set_str(inv, dev, AXL_ATTR_UUID, N, s);
	if (g->has_str[S_SERIAL] && (s = text(inv, i, "the serial number", g->str[S_SERIAL])))
		axl__set_str(inv, dev, AXL_ATTR_SERIAL, N, s);
	if (g->has_str[S_PART] && (s = text(inv, i, "the board part number", g->str[S_PART])))
		axl__set_str(inv, dev, AXL_ATTR_BOARD_PART_NUMBER, N, s);
	if (g->has_str[S_VBIOS] && (s = text(inv, i, "the VBIOS version", g->str[S_VBIOS])))
		axl__set_str(inv, dev, AXL_ATTR_VBIOS_VERSION, N, s);
	if (g->has_str[S_INFOROM] && (s = text(inv, i, "the InfoROM version", g->str[S_INFOROM])))
		axl__set_str(inv, dev, AXL_ATTR_INFOROM_VERSION, N, s);
	if (j->driver[0] && (s = text(inv, i, "the driver version", j->driver)))
		axl__fill_str(inv, dev, AXL_ATTR_DRIVER_VERSION, N, s);
	if (j->has_cuda && j->cuda >= 1000 && j->cuda < 100000) {
		char v[32];
		snprintf(v, sizeof v, "%d.%d", j->cuda / 1000, (j->cuda % 1000) / 10);
		axl__set_str(inv, dev, AXL_ATTR_CUDA_DRIVER_VERSION, N, v);
	}
	if (g->has_u[U_ARCH] && arch_name(g->u[U_ARCH]))
		axl__fill_str(inv, dev, AXL_ATTR_ARCHITECTURE, N, arch_name(g->u[U_ARCH]));
	if (g->has_cc) {
		if (g->cc_major >= 1 && g->cc_major < 100 && g->cc_minor >= 0 && g->cc_minor < 10) {
			char v[16];
			snprintf(v, sizeof v, "%d.%d", g->cc_major, g->cc_minor);
			axl__set_str(inv, dev, AXL_ATTR_COMPUTE_CAPABILITY, N, v);
		} else {
			axl__warn(inv, SRC, NULL, "GPU %u: compute capability %d.%d? ignored", i, g->cc_major,
				  g->cc_minor);
		}
	}
	if (g->has_u[U_CORES] && g->u[U_CORES] > 0 && g->u[U_CORES] < (1u << 20))
		axl__add_cu(inv, dev, "CUDA core", g->u[U_CORES], N);
	if (g->has_u[U_MINOR]) {
		if (g->u[U_MINOR] < 256) {
			if (axl__nvidia_minor(dev) < 0) {
				axl__nvidia_set_minor(inv, dev, (int)g->u[U_MINOR]);
				char node[32];
				snprintf(node, sizeof node, "/dev/nvidia%u", g->u[U_MINOR]);
				axl__add_node(inv, dev, node);
				axl__add_node(inv, dev, "/dev/nvidiactl");
				axl__add_node(inv, dev, "/dev/nvidia-uvm");
				axl__add_node(inv, dev, "/dev/nvidia-uvm-tools");
			}
		} else {
			axl__warn(inv, SRC, NULL, "GPU %u: minor number %u? ignored", i, g->u[U_MINOR]);
		}
	}

	/* PCIe: the kernel's view stays when it has one */
	static const struct {
		int u;
		axl_attr a;
	} link[] = {{U_GEN, AXL_ATTR_LINK_CURRENT_GEN},
		    {U_GEN_MAX, AXL_ATTR_LINK_MAX_GEN},
		    {U_WIDTH, AXL_ATTR_LINK_CURRENT_WIDTH},
		    {U_WIDTH_MAX, AXL_ATTR_LINK_MAX_WIDTH}};
	for (size_t k = 0; k < 4; k++) {
		if (!g->has_u[link[k].u])
			continue;
		unsigned v = g->u[link[k].u];
		bool gen = link[k].u == U_GEN || link[k].u == U_GEN_MAX;
		bool ok =
		    gen ? v >= 1 && v <= 7 : (v == 1 || v == 2 || v == 4 || v == 8 || v == 12 || v == 16 || v == 32);
		if (ok)
			axl__fill_int(dev, link[k].a, N, v);
		else
			axl__warn(inv, SRC, NULL, "GPU %u: PCIe link %s %u? ignored", i, gen ? "generation" : "width",
				  v);
	}

	/* power (NVML: milliwatts) */
	if (g->has_u[U_PLIMIT] && g->u[U_PLIMIT] > 0 && g->u[U_PLIMIT] < 10000000)
		axl__set_num(dev, AXL_ATTR_POWER_LIMIT, N, g->u[U_PLIMIT] / 1000.0);
	if (g->has_u[U_PDEFAULT] && g->u[U_PDEFAULT] > 0 && g->u[U_PDEFAULT] < 10000000)
		axl__set_num(dev, AXL_ATTR_POWER_DEFAULT_LIMIT, N, g->u[U_PDEFAULT] / 1000.0);
	if (g->has_pconstr && g->pmax > 0 && g->pmax < 10000000 && g->pmin <= g->pmax)
		axl__set_num(dev, AXL_ATTR_POWER_MAX_LIMIT, N, g->pmax / 1000.0);

	/* clocks (MHz) */
	static const axl_attr clk[] = {AXL_ATTR_CLOCK_GRAPHICS, AXL_ATTR_CLOCK_SM, AXL_ATTR_CLOCK_MEMORY,
				       AXL_ATTR_CLOCK_GRAPHICS_MAX, AXL_ATTR_CLOCK_SM_MAX, AXL_ATTR_CLOCK_MEMORY_MAX};
	for (int c = 0; c < 6; c++) {
		int u = U_CLK_G + c;
		if (!g->has_u[u])
			continue;
		if (g->u[u] > 0 && g->u[u] < 100000)
			axl__set_int(dev, clk[c], N, g->u[u]);
		else if (g->u[u] != 0)
			axl__warn(inv, SRC, NULL, "GPU %u: a clock of %u MHz? ignored", i, g->u[u]);
	}

	/* modes */
	if (g->has_ecc && g->ecc <= 1 && g->ecc_pend <= 1) {
		axl__set_int(dev, AXL_ATTR_ECC_MODE, N, g->ecc);
		axl__set_int(dev, AXL_ATTR_ECC_PENDING_MODE, N, g->ecc_pend);
	}
	if (g->has_u[U_PERSIST] && g->u[U_PERSIST] <= 1)
		axl__set_int(dev, AXL_ATTR_PERSISTENCE_MODE, N, g->u[U_PERSIST]);
	if (g->has_u[U_CMODE]) {
		static const char *const modes[] = {"default", "exclusive-thread", "prohibited", "exclusive-process"};
		if (g->u[U_CMODE] < 4)
			axl__set_str(inv, dev, AXL_ATTR_COMPUTE_MODE, N, modes[g->u[U_CMODE]]);
	}

	/* memory */
	if (g->has_mem) {
		if (g->mem.total > 0 && g->mem.total < (1ull << 50)) {
			axl__set_int(dev, AXL_ATTR_MEMORY_TOTAL, N, (int64_t)g->mem.total);
			if (g->mem_v2 && g->mem.reserved <= g->mem.total)
				axl__set_int(dev, AXL_ATTR_MEMORY_RESERVED, N, (int64_t)g->mem.reserved);
			if (g->mem.used <= g->mem.total)
				axl__set_int(dev, AXL_ATTR_MEMORY_USED, N, (int64_t)g->mem.used);
			else
				axl__warn(inv, SRC, NULL, "GPU %u: %llu bytes used of %llu? used ignored", i,
					  g->mem.used, g->mem.total);
		} else {
			axl__warn(inv, SRC, NULL, "GPU %u: memory total of %llu bytes? ignored", i, g->mem.total);
		}
	}
	if (g->has_bar1 && g->bar1.bar1Total > 0 && g->bar1.bar1Total < (1ull << 50))
		axl__set_int(dev, AXL_ATTR_MEMORY_BAR1, N, (int64_t)g->bar1.bar1Total);

	if (g->has_mig)
		apply_mig(scan, i, g, dev, minors);

	/* NVLink ports */
	int gen = nvlink_gen(axl__str(dev, AXL_ATTR_ARCHITECTURE));
	for (unsigned k = 0; k < g->nlinks; k++) {
		const struct nv_link *l = &g->links[k];
		struct axl_port *p = axl__add_port(inv, dev, "nvlink", N);
		if (!p)
			break;
		p->index = (int)l->index;
		p->active = l->state == NVML_FEATURE_ENABLED;
		if (!p->active)
			continue;
		p->version = gen > 0 ? gen : (l->has_version && l->version < 16 ? (int)l->version : -1);
		p->bandwidth_gbps = nvlink_gbps(gen);
		unsigned rd, rb, rv, rf;
		if (l->has_remote && pci_of(&l->remote, &rd, &rb, &rv, &rf)) {
			char ra[32];
			fmt_pci(ra, sizeof ra, rd, rb, rv, rf);
			p->remote_pci = axl__arena_strdup(&inv->arena, ra);
		}
		if (l->has_type)
			p->remote_kind = l->type == NVML_NVLINK_DEVICE_TYPE_GPU      ? "gpu"
					 : l->type == NVML_NVLINK_DEVICE_TYPE_SWITCH ? "nvswitch"
					 : l->type == NVML_NVLINK_DEVICE_TYPE_IBMNPU ? "cpu"
										     : "unknown";
	}
}

void axl__nvml_apply(struct axl__scan *scan, struct nv_job *j, struct axl_device **devs)
{
	char *minors = NULL;
	char buf[16384];
	long n = axl__fs_read(scan->fs, AXL__FS_ROOT, "/proc/driver/nvidia-caps/mig-minors", buf, sizeof buf);
	if (n > 0)
		minors = buf;
	for (unsigned i = 0; i < j->ngpus; i++)
		apply_gpu(scan, j, i, devs, minors);
}

/* ---- links: after ids exist ---------------------------------------------------------------- */

static unsigned count_links(const struct axl_device *a, const char *to_pci, const char *kind)
{
	unsigned n = 0;
	for (size_t k = 0; k < a->ports.n; k++) {
		const struct axl_port *p = &a->ports.v[k];
		if (p->active != 1 || !p->remote_kind || strcmp(p->remote_kind, kind) != 0)
			continue;
		if (!to_pci || (p->remote_pci && strcmp(p->remote_pci, to_pci) == 0))
			n++;
	}
	return n;
}

void axl__nvml_link(struct axl__scan *scan, struct nv_job *j, struct axl_device **devs)
{
	struct axl_inventory *inv = scan->inv;
	/* each port's far end, by id, when it is a listed device */
	for (unsigned i = 0; i < j->ngpus; i++) {
		struct axl_device *d = devs[i];
		if (!d)
			continue;
		for (size_t k = 0; k < d->ports.n; k++) {
			struct axl_port *p = &d->ports.v[k];
			if (!p->remote_pci)
				continue;
			for (size_t x = 0; x < inv->devs.n; x++) {
				const char *pa = axl__str(inv->devs.v[x], AXL_ATTR_PCI_ADDRESS);
				if (pa && strcmp(pa, p->remote_pci) == 0) {
					p->remote_id = axl_device_id(inv->devs.v[x]);
					break;
				}
			}
		}
	}
	for (size_t k = 0; k < j->npairs; k++) {
		const struct nv_pair *pr = &j->pairs[k];
		struct axl_device *a = devs[pr->a], *b = devs[pr->b];
		if (!a || !b || a == b)
			continue;
		const char *pb = axl__str(b, AXL_ATTR_PCI_ADDRESS);
		unsigned direct = count_links(a, pb, "gpu");
		unsigned sa = count_links(a, NULL, "nvswitch"), sb = count_links(b, NULL, "nvswitch");
		double per = -1; /* one NVLink's bandwidth: from any port that is up */
		for (size_t q = 0; q < a->ports.n && per < 0; q++)
			if (a->ports.v[q].active == 1)
				per = a->ports.v[q].bandwidth_gbps;
		const char *kind = NULL;
		int nlinks = -1;
		double gbps = -1;
		if (direct) {
			kind = "nvlink";
			nlinks = (int)direct;
		} else if (sa && sb) {
			kind = "nvswitch";
			nlinks = (int)(sa < sb ? sa : sb);
		}
		if (kind) {
			gbps = per > 0 ? per * nlinks : -1;
		} else if (pr->has_level) {
			switch (pr->level) {
			case NVML_TOPOLOGY_INTERNAL: kind = "board"; break;
			case NVML_TOPOLOGY_SINGLE:
			case NVML_TOPOLOGY_MULTIPLE: kind = "pcie-switch"; break;
			case NVML_TOPOLOGY_HOSTBRIDGE: kind = "host-bridge"; break;
			case NVML_TOPOLOGY_NODE: kind = "numa"; break;
			case NVML_TOPOLOGY_SYSTEM: kind = "system"; break;
			default: break;
			}
			double ga = axl__pcie_gbps(a), gb = axl__pcie_gbps(b);
			gbps = ga < 0 || gb < 0 ? -1 : (ga < gb ? ga : gb);
		}
		if (!kind)
			continue;
		struct axl_link *l = axl__link_add(inv, a, b, kind, gbps, N);
		if (l) {
			l->link_count = nlinks;
			l->p2p = pr->p2p;
		}
	}
}
