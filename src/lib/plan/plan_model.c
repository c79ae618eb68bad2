/* SPDX-License-Identifier: MIT */
/* axl_model_*: a model description from the catalog, a config.json, safetensors headers
 * (with a config.json beside them when there is one) or a GGUF header. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

#include "axl/error.h"
#include "util/file.h"
#include "gguf.h"
#include "axl.h"
#include "util/error.h"
#include "model_catalog.h"
#include "plan.h"
#include "safetensors.h"

#define CONFIG_MAX (16u << 20)

static bool ends_with(const char *s, const char *suffix)
{
	size_t a = strlen(s), b = strlen(suffix);
	return a >= b && strcasecmp(s + a - b, suffix) == 0;
}

static int from_config_file(const char *path, struct axl__model *m)
{
	size_t len = 0;
	char *text = NULL;
	int r = axl__file_read(path, CONFIG_MAX, 0, &text, &len);
	if (r)
		return axl__error(r == -EFBIG ? AXL_ETOOBIG : AXL_EIO, "%s: %s", path,
				  r == -EFBIG ? "larger than 16 MiB, not a config.json" : axl__file_error(r));
	char err[256] = "";
	const char *base = strrchr(path, '/');
	char name[128];
	/* a config.json is named after its directory */
	if (base && strcmp(base + 1, "config.json") == 0 && base > path) {
		const char *d = base;
		while (d > path && d[-1] != '/')
			d--;
		snprintf(name, sizeof name, "%.*s", (int)(base - d), d);
	} else {
		snprintf(name, sizeof name, "%s", base ? base + 1 : path);
	}
	int rc = axl__model_from_config(text, len, name, m, err, sizeof err);
	free(text);
	if (rc != 0)
		return axl__error(AXL_EPARSE, "%s: %s", path, err);
	return 0;
}

/* The config.json in path's directory, or "" */
static void sibling_config(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	if (slash)
		snprintf(out, cap, "%.*sconfig.json", (int)(slash - path + 1), path);
	else
		snprintf(out, cap, "config.json");
	if (access(out, R_OK) != 0)
		out[0] = 0;
}

static int from_safetensors(const char *path, struct axl__model *m)
{
	char err[256] = "";
	if (axl__model_from_safetensors(path, m, err, sizeof err) != 0)
		return axl__error(AXL_EPARSE, "%s", err);
	char cfg[4096];
	sibling_config(path, cfg, sizeof cfg);
	if (!cfg[0])
		return 0;
	struct axl__model c;
	if (from_config_file(cfg, &c) != 0)
		return AXL_EPARSE;
	/* the architecture from the config, the counts and bytes from the headers */
	c.source = AXL__MSRC_SAFETENSORS;
	if (m->params > 0) {
		if (c.params > 0 && c.active_params > 0 && c.params != m->params) {
			/* scale the computed active count to the exact total */
			double f = (double)m->params / (double)c.params;
			c.active_params = (int64_t)((double)c.active_params * f + 0.5);
		}
		c.params = m->params;
		c.params_exact = m->params_exact;
	}
	memcpy(c.dtypes, m->dtypes, sizeof c.dtypes);
	c.ndtypes = m->ndtypes;
	c.weight_bytes = m->weight_bytes;
	snprintf(c.id, sizeof c.id, "%s", m->id);
	*m = c;
	return 0;
}

static int from_gguf(const char *path, struct axl__model *m)
{
	char err[256] = "";
	if (axl__model_from_gguf(path, m, err, sizeof err) != 0)
		return axl__error(AXL_EPARSE, "%s", err);
	return 0;
}

static int from_dir(const char *dir, struct axl__model *m)
{
	char p[4096];
	static const char *const st[] = {"model.safetensors.index.json", "model.safetensors"};
	for (size_t i = 0; i < 2; i++) {
		snprintf(p, sizeof p, "%s/%s", dir, st[i]);
		if (access(p, R_OK) == 0)
			return from_safetensors(p, m);
	}
	snprintf(p, sizeof p, "%s/config.json", dir);
	if (access(p, R_OK) == 0)
		return from_config_file(p, m);
	/* the first .gguf / .safetensors by name */
	DIR *d = opendir(dir);
	if (!d)
		return axl__error(AXL_EIO, "%s: %s", dir, strerror(errno));
	char best[256] = "";
	struct dirent *e;
	while ((e = readdir(d)) != NULL)
		if ((ends_with(e->d_name, ".gguf") || ends_with(e->d_name, ".safetensors")) &&
		    (!best[0] || strcmp(e->d_name, best) < 0))
			snprintf(best, sizeof best, "%s", e->d_name);
	closedir(d);
	if (!best[0])
		return axl__error(AXL_ENOENT, "%s: no config.json, safetensors or GGUF file in the directory", dir);
	snprintf(p, sizeof p, "%s/%s", dir, best);
	return ends_with(best, ".gguf") ? from_gguf(p, m) : from_safetensors(p, m);
}

static bool is_gguf(const char *path)
{
	if (ends_with(path, ".gguf"))
		return true;
	char magic[4] = {0};
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	ssize_t n = read(fd, magic, 4);
	close(fd);
	return n == 4 && memcmp(magic, "GGUF", 4) == 0;
}


int axl_model_open(axl_model **out, const char *name)
{
	axl__error_clear();
	if (!out || !name || !name[0])
		return axl__error(AXL_EINVAL, "axl_model_open: no model named");
	*out = NULL;
	axl_model *md = calloc(1, sizeof *md);
	if (!md)
		return axl__error(AXL_ENOMEM, "out of memory");
	struct axl__model *m = &md->m;
	int rc;
	int64_t sz = 0;
	struct stat st;
	if (stat(name, &st) == 0) {
		if (S_ISDIR(st.st_mode))
			rc = from_dir(name, m);
		else if (is_gguf(name))
			rc = from_gguf(name, m);
		else if (ends_with(name, ".safetensors") || ends_with(name, ".safetensors.index.json"))
			rc = from_safetensors(name, m);
		else
			rc = from_config_file(name, m);
	} else if (axl__model_from_catalog(name, m) == 0) {
		rc = 0;
	} else if ((rc = axl__parse_size(name, &sz)) != -1) {
		if (rc == -2)
			rc = axl__error(AXL_ERANGE, "%s: not a model size (a positive size from 1M to 100T parameters, "
						    "such as 7B, 70b, 1.5B, 7e9)", name);
		else if (axl__model_from_size(sz, m, md->assumption, sizeof md->assumption) != 0)
			rc = axl__error(AXL_ENOENT, "%s: no reference architecture for this size", name);
		else
			snprintf(m->id, sizeof m->id, "%s", name);
	} else {
		char hint[400];
		if (axl__catalog_suggest(name, hint, sizeof hint) == 2)
			rc = axl__error(AXL_ENOENT,
					"%s: not a file and not in the catalog: its config differs from the catalog's "
					"%s in more than generation settings (give its config.json)",
					name, hint);
		else
			rc = axl__error(AXL_ENOENT,
					"%s: not a file and not in the catalog (%s%s%saxl plan --list shows it)", name,
					hint[0] ? "did you mean " : "", hint, hint[0] ? "? " : "");
	}
	if (rc != 0) {
		free(md);
		return rc;
	}
	if (m->params <= 0) {
		int64_t act = -1;
		m->params = axl__model_params(m, &act);
		m->active_params = act;
	}
	static const char *const src[] = {"", "catalog", "config.json", "safetensors", "gguf", "size"};
	snprintf(md->source_name, sizeof md->source_name, "%s",
		 m->source >= AXL__MSRC_CATALOG && m->source <= AXL__MSRC_SIZE ? src[m->source] : "");
	const struct axl__model_dtype *d = NULL;
	for (size_t i = 0; i < m->ndtypes; i++)
		if (!d || m->dtypes[i].params > d->params)
			d = &m->dtypes[i];
	if (d)
		snprintf(md->dtype_name, sizeof md->dtype_name, "%s", d->name);
	*out = md;
	return 0;
}

void axl_model_free(axl_model *model)
{
	free(model);
}

int axl_model_get_info(const axl_model *model, struct axl_model_info *info)
{
	if (!model || !info)
		return axl__error(AXL_EINVAL, "axl_model_get_info: NULL argument");
	const struct axl__model *m = &model->m;
	memset(info, 0, sizeof *info);
	info->name = m->id;
	info->alias = m->alias[0] ? m->alias : NULL;
	info->architecture = m->arch[0] ? m->arch : NULL;
	info->source = model->source_name;
	info->weights_dtype = model->dtype_name[0] ? model->dtype_name : NULL;
	info->params = m->params;
	info->active_params = m->experts > 0 ? m->active_params : m->params;
	info->layers = m->layers;
	info->hidden = m->hidden;
	info->heads = m->heads;
	info->kv_heads = m->attn == AXL__ATTN_MLA ? -1 : m->kv_heads;
	info->head_dim = m->head_dim;
	info->experts = m->experts;
	info->experts_per_token = m->experts_per_token;
	info->max_context = m->max_context;
	static const char *const an[] = {NULL, "mha", "gqa", "mla"};
	info->attention = (int)m->attn >= 0 && m->attn <= AXL__ATTN_MLA ? an[m->attn] : NULL;
	info->sliding_window = m->sliding_window;
	return 0;
}

size_t axl_model_catalog_count(void)
{
	return axl__catalog_count() + axl__catalog_variant_count();
}

const char *axl_model_catalog_id(size_t i)
{
	const struct axl__catalog_entry *e = axl__catalog_at(i);
	return e ? e->id : axl__catalog_variant_at(i - axl__catalog_count());
}

const char *axl_model_catalog_alias(size_t i)
{
	const struct axl__catalog_entry *e = axl__catalog_at(i);
	return e ? e->alias : NULL;
}

const char *axl_model_catalog_entry(const axl_model *model)
{
	if (!model || model->m.source != AXL__MSRC_CATALOG || !model->m.catalog_id[0])
		return NULL;
	return model->m.catalog_id;
}
