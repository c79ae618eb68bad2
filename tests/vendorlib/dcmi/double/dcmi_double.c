/* SPDX-License-Identifier: MIT */
/*
 * A test double of Huawei's DCMI library (libdcmi.so): the entry points axl calls, as
 * dcmi_interface_api.h declares them (Ascend/mind-cluster commit
 * 2c141d42ca7b6b89334dc8ab1876a06df3e849d6,
 * component/ascend-common/devmanager/dcmi/dcmi_interface_api.h; the declarations are
 * axl's one copy, src/abi/ascend/dcmi.h), answering from the fixture
 * $AXL_DCMI_DOUBLE_FIXTURE, lines of
 *   init RC                                   what dcmi_init answers (0 when absent)
 *   chip CARD DEV DOMAIN:BUS:DEV.FN KEY=VALUE...
 * with the keys chip_type, chip_name, chip_ver, aicore_cnt, hbm_mb (memory_size of
 * dcmi_hbm_info, in MB), hbm_rc and chip_rc (the calls' answers; 0 when absent), and
 * comments (#). Chips are numbered 0.. in their card in the order of the lines; cards are
 * listed in the order they first appear. Every call before a successful dcmi_init answers
 * DOUBLE_NOT_INIT; an unknown card or chip DOUBLE_BAD_ID. The header gives no error codes:
 * the double's are negative numbers in the -80xx range Huawei's DCMI documentation uses,
 * chosen here, not checked against a library.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "abi/ascend/dcmi.h"

#define DOUBLE_NOT_INIT (-8012)
#define DOUBLE_BAD_ID (-8007)
#define DOUBLE_PARAM (-8001)
#define MAX_CHIPS 64

struct chip {
	int card, dev;
	int domain;
	unsigned bus, slot, fn;
	char type[MAX_CHIP_NAME_LEN], name[MAX_CHIP_NAME_LEN], ver[MAX_CHIP_NAME_LEN];
	unsigned aicore;
	unsigned long long hbm_mb;
	int hbm_rc, chip_rc;
};

static struct chip chips[MAX_CHIPS];
static int nchips, init_rc, inited;

static void load(void)
{
	const char *path = getenv("AXL_DCMI_DOUBLE_FIXTURE");
	FILE *f = path ? fopen(path, "r") : NULL;
	if (!f) {
		init_rc = DOUBLE_NOT_INIT;
		return;
	}
	char line[512];
	while (fgets(line, sizeof line, f)) {
		char *save = NULL, *tok = strtok_r(line, " \t\r\n", &save);
		if (!tok || *tok == '#')
			continue;
		if (strcmp(tok, "init") == 0) {
			tok = strtok_r(NULL, " \t\r\n", &save);
			init_rc = tok ? atoi(tok) : 0;
			continue;
		}
		if (strcmp(tok, "chip") != 0 || nchips == MAX_CHIPS)
			continue;
		struct chip *c = &chips[nchips];
		memset(c, 0, sizeof *c);
		char *card = strtok_r(NULL, " \t\r\n", &save), *dev = strtok_r(NULL, " \t\r\n", &save),
		     *addr = strtok_r(NULL, " \t\r\n", &save);
		if (!card || !dev || !addr ||
		    sscanf(addr, "%x:%x:%x.%u", (unsigned *)&c->domain, &c->bus, &c->slot, &c->fn) != 4)
			continue;
		c->card = atoi(card);
		c->dev = atoi(dev);
		while ((tok = strtok_r(NULL, " \t\r\n", &save)) != NULL) {
			char *eq = strchr(tok, '=');
			if (!eq)
				continue;
			*eq++ = '\0';
			if (strcmp(tok, "chip_type") == 0)
				snprintf(c->type, sizeof c->type, "%s", eq);
			else if (strcmp(tok, "chip_name") == 0)
				snprintf(c->name, sizeof c->name, "%s", eq);
			else if (strcmp(tok, "chip_ver") == 0)
				snprintf(c->ver, sizeof c->ver, "%s", eq);
			else if (strcmp(tok, "aicore_cnt") == 0)
				c->aicore = (unsigned)strtoul(eq, NULL, 10);
			else if (strcmp(tok, "hbm_mb") == 0)
				c->hbm_mb = strtoull(eq, NULL, 10);
			else if (strcmp(tok, "hbm_rc") == 0)
				c->hbm_rc = atoi(eq);
			else if (strcmp(tok, "chip_rc") == 0)
				c->chip_rc = atoi(eq);
		}
		nchips++;
	}
	fclose(f);
}

static const struct chip *find(int card, int dev)
{
	for (int i = 0; i < nchips; i++)
		if (chips[i].card == card && chips[i].dev == dev)
			return &chips[i];
	return NULL;
}

int dcmi_init(void)
{
	if (!inited) {
		load();
		inited = 1;
	}
	return init_rc;
}

int dcmi_get_card_list(int *card_num, int *card_list, int list_len)
{
	if (!inited || init_rc)
		return DOUBLE_NOT_INIT;
	if (!card_num || !card_list || list_len <= 0)
		return DOUBLE_PARAM;
	int n = 0;
	for (int i = 0; i < nchips; i++) {
		int seen = 0;
		for (int k = 0; k < n; k++)
			seen |= card_list[k] == chips[i].card;
		if (!seen && n < list_len)
			card_list[n++] = chips[i].card;
	}
	*card_num = n;
	return 0;
}

int dcmi_get_device_num_in_card(int card_id, int *device_num)
{
	if (!inited || init_rc)
		return DOUBLE_NOT_INIT;
	int n = 0;
	for (int i = 0; i < nchips; i++)
		n += chips[i].card == card_id;
	if (!n)
		return DOUBLE_BAD_ID;
	*device_num = n;
	return 0;
}

int dcmi_get_device_pcie_info_v2(int card_id, int device_id, struct dcmi_pcie_info_all *pcie_info)
{
	if (!inited || init_rc)
		return DOUBLE_NOT_INIT;
	const struct chip *c = find(card_id, device_id);
	if (!c)
		return DOUBLE_BAD_ID;
	memset(pcie_info, 0, sizeof *pcie_info);
	pcie_info->venderid = 0x19e5;
	pcie_info->subvenderid = 0x19e5;
	pcie_info->deviceid = 0xd802;
	pcie_info->domain = c->domain;
	pcie_info->bdf_busid = c->bus;
	pcie_info->bdf_deviceid = c->slot;
	pcie_info->bdf_funcid = c->fn;
	return 0;
}

int dcmi_get_device_chip_info(int card_id, int device_id, struct dcmi_chip_info *chip_info)
{
	if (!inited || init_rc)
		return DOUBLE_NOT_INIT;
	const struct chip *c = find(card_id, device_id);
	if (!c)
		return DOUBLE_BAD_ID;
	if (c->chip_rc)
		return c->chip_rc;
	memset(chip_info, 0, sizeof *chip_info);
	memcpy(chip_info->chip_type, c->type, sizeof chip_info->chip_type);
	memcpy(chip_info->chip_name, c->name, sizeof chip_info->chip_name);
	memcpy(chip_info->chip_ver, c->ver, sizeof chip_info->chip_ver);
	chip_info->aicore_cnt = c->aicore;
	return 0;
}

int dcmi_get_device_hbm_info(int card_id, int device_id, struct dcmi_hbm_info *hbm_info)
{
	if (!inited || init_rc)
		return DOUBLE_NOT_INIT;
	const struct chip *c = find(card_id, device_id);
	if (!c)
		return DOUBLE_BAD_ID;
	if (c->hbm_rc)
		return c->hbm_rc;
	memset(hbm_info, 0, sizeof *hbm_info);
	hbm_info->memory_size = c->hbm_mb;
	hbm_info->temp = 40;
	return 0;
}
