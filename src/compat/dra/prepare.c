/* SPDX-License-Identifier: MIT */
/* NodePrepareResources / NodeUnprepareResources on the command's side (prepare.h). */
#define _GNU_SOURCE
#include "prepare.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../util/jsonr.h"

/* ---- what an answer owns ------------------------------------------------------------ */

struct owner {
	void **blocks;
	size_t n, cap;
	struct dra_claim_out *out;
};

static void *keep(struct owner *o, void *b)
{
	if (!b)
		return NULL;
	if (o->n == o->cap) {
		size_t nc = o->cap ? o->cap * 2 : 32;
		void **nb = realloc(o->blocks, nc * sizeof *nb);
		if (!nb) {
			free(b);
			return NULL;
		}
		o->blocks = nb;
		o->cap = nc;
	}
	o->blocks[o->n++] = b;
	return b;
}

static char *kstrdup(struct owner *o, const char *s)
{
	return keep(o, strdup(s ? s : ""));
}

static char *kprintf(struct owner *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static char *kprintf(struct owner *o, const char *fmt, ...)
{
	char *s = NULL;
	va_list ap;
	va_start(ap, fmt);
	int r = vasprintf(&s, fmt, ap);
	va_end(ap);
	return r < 0 ? NULL : keep(o, s);
}

void dra_prep_release(void *ud, void *owner)
{
	(void)ud;
	struct owner *o = owner;
	if (!o)
		return;
	for (size_t i = 0; i < o->n; i++)
		free(o->blocks[i]);
	free(o->blocks);
	free(o->out);
	free(o);
}

/* ---- the table of devices and of prepared claims ------------------------------------ */

static void strv_free(char **v, size_t n)
{
	for (size_t i = 0; v && i < n; i++)
		free(v[i]);
	free(v);
}

static char **strv_dup(const char *const *v, size_t n)
{
	char **r = calloc(n ? n : 1, sizeof *r);
	for (size_t i = 0; r && i < n; i++)
		if (!(r[i] = strdup(v[i]))) {
			strv_free(r, i);
			return NULL;
		}
	return r;
}

static void devs_free(struct dra_dev *d, size_t n)
{
	for (size_t i = 0; d && i < n; i++) {
		free(d[i].pool);
		free(d[i].device);
		strv_free(d[i].cdi, d[i].n_cdi);
		free(d[i].share);
	}
	free(d);
}

int dra_prep_set_devices(struct dra_prep *p, const struct dra_dev *devs, size_t n)
{
	struct dra_dev *d = calloc(n ? n : 1, sizeof *d);
	if (!d)
		return -1;
	for (size_t i = 0; i < n; i++) {
		d[i].pool = strdup(devs[i].pool);
		d[i].device = strdup(devs[i].device);
		d[i].cdi = strv_dup((const char *const *)devs[i].cdi, devs[i].n_cdi);
		d[i].n_cdi = devs[i].n_cdi;
		if (devs[i].share && (d[i].share = malloc(sizeof *d[i].share)))
			*d[i].share = *devs[i].share;
		if (!d[i].pool || !d[i].device || !d[i].cdi || (devs[i].share && !d[i].share)) {
			devs_free(d, i + 1);
			return -1;
		}
	}
	pthread_mutex_lock(&p->lock);
	devs_free(p->devs, p->ndevs);
	p->devs = d;
	p->ndevs = n;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

static void share_cfg_free(struct dra_share_cfg *c)
{
	free((char *)c->cdi_dir);
	free((char *)c->driver);
	free((char *)c->limiter);
	free((char *)c->preload);
	memset(c, 0, sizeof *c);
}

int dra_prep_set_shares(struct dra_prep *p, const struct dra_share_cfg *c)
{
	struct dra_share_cfg n = { c->cdi_dir ? strdup(c->cdi_dir) : NULL, c->driver ? strdup(c->driver) : NULL,
				   c->limiter ? strdup(c->limiter) : NULL, c->preload ? strdup(c->preload) : NULL };
	if ((c->cdi_dir && !n.cdi_dir) || (c->driver && !n.driver) || (c->limiter && !n.limiter) ||
	    (c->preload && !n.preload)) {
		share_cfg_free(&n);
		return -1;
	}
	pthread_mutex_lock(&p->lock);
	share_cfg_free(&p->share);
	p->share = n;
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int dra_prep_open(struct dra_prep **out, const char *driver, const char *ckpt, const struct dra_claim_source *src,
		  char *err, size_t cap)
{
	*out = NULL;
	struct dra_prep *p = calloc(1, sizeof *p);
	if (!p || !(p->driver = strdup(driver)) || (ckpt && !(p->ckpt = strdup(ckpt)))) {
		snprintf(err, cap, "out of memory");
		if (p) {
			free(p->driver);
			free(p);
		}
		return -1;
	}
	pthread_mutex_init(&p->lock, NULL);
	p->src = *src;
	if (p->ckpt && dra_ckpt_load(p, err, cap) != 0) {
		dra_prep_free(p);
		return -1;
	}
	*out = p;
	return 0;
}

void dra_prep_free(struct dra_prep *p)
{
	if (!p)
		return;
	for (size_t i = 0; i < p->nclaims; i++)
		dra_prepared_clear(&p->claims[i]);
	free(p->claims);
	devs_free(p->devs, p->ndevs);
	share_cfg_free(&p->share);
	free(p->driver);
	free(p->ckpt);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static struct dra_prepared *find_claim(struct dra_prep *p, const char *uid)
{
	for (size_t i = 0; i < p->nclaims; i++)
		if (strcmp(p->claims[i].uid, uid) == 0)
			return &p->claims[i];
	return NULL;
}

static const struct dra_dev *find_dev(const struct dra_prep *p, const char *pool, const char *device)
{
	for (size_t i = 0; i < p->ndevs; i++)
		if (strcmp(p->devs[i].pool, pool) == 0 && strcmp(p->devs[i].device, device) == 0)
			return &p->devs[i];
	return NULL;
}

/* ---- one claim ---------------------------------------------------------------------- */

/* The answer for a prepared claim, copied into o. */
static int answer(struct owner *o, const struct dra_prepared *c, struct dra_claim_out *a)
{
	a->uid = kstrdup(o, c->uid);
	a->error = NULL;
	a->n_devs = c->n;
	struct dra_device_out *d = keep(o, calloc(c->n ? c->n : 1, sizeof *d));
	if (!a->uid || !d)
		return -1;
	for (size_t i = 0; i < c->n; i++) {
		const struct dra_pdev *s = &c->devs[i];
		const char **rq = keep(o, calloc(s->n_requests ? s->n_requests : 1, sizeof *rq));
		const char **cdi = keep(o, calloc(s->n_cdi ? s->n_cdi : 1, sizeof *cdi));
		if (!rq || !cdi)
			return -1;
		for (size_t k = 0; k < s->n_requests; k++)
			if (!(rq[k] = kstrdup(o, s->requests[k])))
				return -1;
		for (size_t k = 0; k < s->n_cdi; k++)
			if (!(cdi[k] = kstrdup(o, s->cdi[k])))
				return -1;
		d[i].requests = rq;
		d[i].n_requests = s->n_requests;
		d[i].cdi = cdi;
		d[i].n_cdi = s->n_cdi;
		if (!(d[i].pool = kstrdup(o, s->pool)) || !(d[i].device = kstrdup(o, s->device)))
			return -1;
		if (s->share_id && !(d[i].share_id = kstrdup(o, s->share_id)))
			return -1;
	}
	a->devs = d;
	return 0;
}

/* a message made in o, or that there was no memory for it */
static const char *oom(const char *m)
{
	return m ? m : "out of memory";
}

/* Another prepared claim holding (pool, device) without admin access, or NULL. */
static const struct dra_prepared *holder(struct dra_prep *p, const char *uid, const char *pool, const char *device)
{
	for (size_t i = 0; i < p->nclaims; i++) {
		if (strcmp(p->claims[i].uid, uid) == 0)
			continue;
		for (size_t k = 0; k < p->claims[i].n; k++) {
			const struct dra_pdev *d = &p->claims[i].devs[k];
			if (!d->admin && strcmp(d->pool, pool) == 0 && strcmp(d->device, device) == 0)
				return &p->claims[i];
		}
	}
	return NULL;
}

/* A result res of claim r on shared device d: what it consumes, added to the claim's use
 * of d. NULL, or the error for the claim (kept in o). */
static const char *share(struct owner *o, const struct dra_claim_ref *r, const struct axl__jv *res,
			 const struct dra_dev *d, struct dra_share_use *use, const struct dra_dev **used, size_t *nuse)
{
	char e[256];
	long long mem = 0, pct = 0;
	if (dra_share_consumed(d->share, axl__jv_get(res, "consumedCapacity"), &mem, &pct, e, sizeof e) != 0)
		return oom(kprintf(o, "claim %s/%s: device %s/%s: %s", r->ns, r->name, d->pool, d->device, e));
	size_t k = 0;
	while (k < *nuse && used[k] != d)
		k++;
	if (k == *nuse) {
		used[k] = d;
		use[k] = (struct dra_share_use){ d->share->uuid, 0, 0 };
		(*nuse)++;
	}
	use[k].mem += mem;
	use[k].pct += pct;
	if (use[k].mem > d->share->mem.value || use[k].pct > d->share->compute.value)
		return oom(kprintf(o,
				   "claim %s/%s: its shares of device %s/%s add up to more than the device has (%lld "
				   "of %lld bytes, %lld of %lld%% compute)",
				   r->ns, r->name, d->pool, d->device, use[k].mem, d->share->mem.value, use[k].pct,
				   d->share->compute.value));
	return NULL;
}

/* The claim's CDI spec of its shares written, its id added to the CDI ids of the first
 * shared device (once per claim: the limiter's variables are the container's). */
static const char *share_spec(struct dra_prep *p, struct owner *o, const struct dra_claim_ref *r,
			      const struct dra_share_use *use, size_t nuse, struct dra_pdev *pd)
{
	char id[512], e[512];
	if (dra_share_spec_write(&p->share, r->uid, use, nuse, id, sizeof id, e, sizeof e) != 0)
		return oom(kprintf(o, "claim %s/%s: %s", r->ns, r->name, e));
	char **cdi = realloc(pd->cdi, (pd->n_cdi + 1) * sizeof *cdi);
	if (cdi)
		pd->cdi = cdi;
	if (!cdi || !(cdi[pd->n_cdi] = strdup(id))) {
		dra_share_spec_remove(&p->share, r->uid, e, sizeof e);
		return "out of memory";
	}
	pd->n_cdi++;
	return NULL;
}

/* Read the claim ref from the API server and work out its devices into c (0), or an
 * error message for it (kept in o). */
static const char *resolve(struct dra_prep *p, struct owner *o, const struct dra_claim_ref *r, struct dra_prepared *c)
{
	char err[512] = "";
	char *json = NULL;
	p->fetches++;
	pthread_mutex_unlock(&p->lock); /* the API server's read is slow: devices may change meanwhile */
	int rc = p->src.fetch(p->src.ud, r->ns, r->name, r->uid, &json, err, sizeof err);
	pthread_mutex_lock(&p->lock);
	if (rc != 0) {
		free(json);
		return oom(kprintf(o, "retrieve claim %s/%s: %s", r->ns, r->name, *err ? err : "failed"));
	}
	struct axl__jdoc *doc = NULL;
	if (axl__jdoc_parse(json, strlen(json), &doc, err, sizeof err) != 0) {
		free(json);
		return oom(kprintf(o, "claim %s/%s: the API server's answer is not JSON (%s)", r->ns, r->name, err));
	}
	free(json);
	const char *msg = NULL;
	/* the shared devices of the claim, what its results consume of each summed */
	struct dra_share_use *use = NULL;
	const struct dra_dev **used = NULL;
	struct dra_pdev *first_shared = NULL;
	size_t nuse = 0;
	const struct axl__jv *root = axl__jdoc_root(doc);
	const struct axl__jv *meta = axl__jv_get(root, "metadata");
	const char *uid = axl__jv_str(meta, "uid");
	const struct axl__jv *alloc = axl__jv_get(axl__jv_get(root, "status"), "allocation");
	const struct axl__jv *results = axl__jv_get(axl__jv_get(alloc, "devices"), "results");
	if (!meta || !uid) {
		msg = oom(kprintf(o, "claim %s/%s: not a ResourceClaim (no metadata.uid)", r->ns, r->name));
		goto out;
	}
	if (strcmp(uid, r->uid) != 0) { /* draplugin.go getResourceClaims */
		msg = oom(
		    kprintf(o, "claim %s/%s got replaced (uid %s, the kubelet named %s)", r->ns, r->name, uid, r->uid));
		goto out;
	}
	if (!alloc || alloc->type != AXL__J_OBJ) {
		msg = oom(kprintf(o, "claim %s/%s not allocated", r->ns, r->name));
		goto out;
	}
	if (results && results->type != AXL__J_ARR) {
		msg = oom(kprintf(o, "claim %s/%s: status.allocation.devices.results is not a list", r->ns, r->name));
		goto out;
	}
	size_t n = results ? results->len : 0, mine = 0;
	c->devs = calloc(n ? n : 1, sizeof *c->devs);
	use = calloc(n ? n : 1, sizeof *use);
	used = calloc(n ? n : 1, sizeof *used);
	if (!c->devs || !use || !used) {
		msg = "out of memory";
		goto out;
	}
	for (size_t i = 0; i < n; i++) {
		const struct axl__jv *res = &results->items[i];
		const char *drv = axl__jv_str(res, "driver"), *pool = axl__jv_str(res, "pool");
		const char *dev = axl__jv_str(res, "device"), *req = axl__jv_str(res, "request");
		if (!drv || !pool || !dev || !req) {
			msg = oom(kprintf(o, "claim %s/%s: allocation result %zu lacks driver, pool, device or request",
					  r->ns, r->name, i));
			goto out;
		}
		if (strcmp(drv, p->driver) != 0)
			continue; /* another driver's device of the same claim */
		const struct dra_dev *d = find_dev(p, pool, dev);
		if (!d) {
			msg = oom(kprintf(o, "claim %s/%s: device %s/%s is not one of this node's devices of %s", r->ns,
					  r->name, pool, dev, p->driver));
			goto out;
		}
		const struct axl__jv *adm = axl__jv_get(res, "adminAccess");
		int admin = adm && adm->type == AXL__J_BOOL && adm->b;
		const struct dra_prepared *h = admin || d->share ? NULL : holder(p, r->uid, pool, dev);
		if (h) {
			msg = oom(kprintf(o, "claim %s/%s: device %s/%s is already prepared for claim %s/%s (uid %s)",
					  r->ns, r->name, pool, dev, h->ns, h->name, h->uid));
			goto out;
		}
		struct dra_pdev *pd = &c->devs[mine++];
		c->n = mine;
		size_t blen = strcspn(req, "/"); /* resourceclaim.BaseRequestRef: no subrequest */
		pd->requests = calloc(1, sizeof *pd->requests);
		pd->n_requests = pd->requests ? 1 : 0;
		if (pd->requests)
			pd->requests[0] = strndup(req, blen);
		pd->pool = strdup(pool);
		pd->device = strdup(dev);
		pd->cdi = strv_dup((const char *const *)d->cdi, d->n_cdi);
		pd->n_cdi = pd->cdi ? d->n_cdi : 0;
		pd->admin = admin;
		if (!pd->requests || !pd->requests[0] || !pd->pool || !pd->device || !pd->cdi) {
			msg = "out of memory";
			goto out;
		}
		if (d->share && !admin && (msg = share(o, r, res, d, use, used, &nuse)))
			goto out;
		if (d->share && !admin && !first_shared)
			first_shared = pd;
		const char *sid = axl__jv_str(res, "shareID");
		if (d->share && sid && !(pd->share_id = strdup(sid))) {
			msg = "out of memory";
			goto out;
		}
	}
	if (mine == 0) {
		msg =
		    oom(kprintf(o, "claim %s/%s has no device of the driver %s allocated", r->ns, r->name, p->driver));
		goto out;
	}
	if (!(c->uid = strdup(r->uid)) || !(c->ns = strdup(r->ns)) || !(c->name = strdup(r->name)))
		msg = "out of memory";
	else if (first_shared)
		msg = share_spec(p, o, r, use, nuse, first_shared);
out:
	free(use);
	free(used);
	axl__jdoc_free(doc);
	return msg;
}

int dra_prep_prepare(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out, void **owner,
		     char *err, size_t cap)
{
	struct dra_prep *p = ud;
	struct owner *o = calloc(1, sizeof *o);
	struct dra_claim_out *a = calloc(n ? n : 1, sizeof *a);
	if (!o || !a) {
		free(o);
		free(a);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	o->out = a;
	int any = 0;
	pthread_mutex_lock(&p->lock);
	/* done[i]: claim i newly prepared in this call (checkpointed together below) */
	unsigned char *done = calloc(n ? n : 1, 1);
	for (size_t i = 0; done && i < n; i++) {
		const struct dra_claim_ref *r = &claims[i];
		a[i].uid = kstrdup(o, r->uid);
		if (!r->uid || !*r->uid || !r->ns || !r->name || !*r->name) {
			a[i].error = oom(kprintf(o, "claim %zu of the request has no uid, namespace or name", i));
			continue;
		}
		const struct dra_prepared *had = find_claim(p, r->uid);
		if (had) { /* prepared before (this call, an earlier one, an earlier run): the same answer */
			if (answer(o, had, &a[i]) != 0)
				a[i].error = "out of memory";
			continue;
		}
		struct dra_prepared c = { 0 };
		const char *msg = resolve(p, o, r, &c);
		if (msg) {
			dra_prepared_clear(&c);
			a[i].error = msg;
			continue;
		}
		const struct dra_prepared *again = find_claim(p, r->uid);
		if (again) {
			dra_prepared_clear(&c);
		} else {
			if (p->nclaims == p->cap) {
				size_t nc = p->cap ? p->cap * 2 : 16;
				struct dra_prepared *t = realloc(p->claims, nc * sizeof *t);
				if (!t) {
					dra_prepared_clear(&c);
					a[i].error = "out of memory";
					continue;
				}
				p->claims = t;
				p->cap = nc;
			}
			p->claims[p->nclaims++] = c;
			done[i] = 1;
			any = 1;
		}
		if (answer(o, find_claim(p, r->uid), &a[i]) != 0)
			a[i].error = "out of memory";
	}
	if (!done) {
		pthread_mutex_unlock(&p->lock);
		dra_prep_release(NULL, o);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	if (any && p->ckpt) {
		char e[512] = "";
		if (dra_ckpt_write(p, e, sizeof e) != 0) {
			/* not recorded: not prepared (the kubelet asks again) */
			for (size_t i = 0; i < n; i++)
				if (done[i]) {
					struct dra_prepared *c = find_claim(p, claims[i].uid);
					char e2[256];
					dra_share_spec_remove(&p->share, claims[i].uid, e2, sizeof e2);
					if (c) {
						dra_prepared_clear(c);
						*c = p->claims[--p->nclaims];
					}
					a[i].error = oom(kprintf(o, "cannot checkpoint the prepared claim: %s", e));
					a[i].n_devs = 0;
					a[i].devs = NULL;
				}
		}
	}
	pthread_mutex_unlock(&p->lock);
	free(done);
	for (size_t i = 0; i < n; i++)
		if (!a[i].uid) {
			dra_prep_release(NULL, o);
			snprintf(err, cap, "out of memory");
			return -1;
		}
	*out = a;
	*owner = o;
	return 0;
}

int dra_prep_unprepare(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out, void **owner,
		       char *err, size_t cap)
{
	struct dra_prep *p = ud;
	struct owner *o = calloc(1, sizeof *o);
	struct dra_claim_out *a = calloc(n ? n : 1, sizeof *a);
	if (!o || !a) {
		free(o);
		free(a);
		snprintf(err, cap, "out of memory");
		return -1;
	}
	o->out = a;
	pthread_mutex_lock(&p->lock);
	/* removed claims are kept aside until the checkpoint says they are gone */
	struct dra_prepared *gone = calloc(n ? n : 1, sizeof *gone);
	size_t ngone = 0;
	for (size_t i = 0; gone && i < n; i++) {
		a[i].uid = kstrdup(o, claims[i].uid);
		struct dra_prepared *c = claims[i].uid ? find_claim(p, claims[i].uid) : NULL;
		if (!c)
			continue; /* not prepared (any more): nothing to undo */
		gone[ngone++] = *c;
		*c = p->claims[--p->nclaims];
	}
	int rc = 0;
	if (!gone) {
		snprintf(err, cap, "out of memory");
		rc = -1;
	} else if (ngone && p->ckpt) {
		char e[512] = "";
		if (dra_ckpt_write(p, e, sizeof e) != 0) {
			/* still recorded as prepared: put them back, say so per claim */
			for (size_t k = 0; k < ngone; k++) {
				p->claims[p->nclaims++] = gone[k];
				for (size_t i = 0; i < n; i++)
					if (claims[i].uid && strcmp(claims[i].uid, gone[k].uid) == 0)
						a[i].error =
						    oom(kprintf(o, "cannot checkpoint the unprepared claim: %s", e));
				memset(&gone[k], 0, sizeof gone[k]);
			}
		}
	}
	/* the specs of their shares go (also of a claim the checkpoint never held: killed
	 * between the spec and the checkpoint) */
	for (size_t i = 0; gone && i < n; i++) {
		char e[512];
		if (!a[i].error && claims[i].uid && dra_share_spec_remove(&p->share, claims[i].uid, e, sizeof e) != 0)
			a[i].error = oom(kprintf(o, "%s", e));
	}
	pthread_mutex_unlock(&p->lock);
	for (size_t k = 0; gone && k < ngone; k++)
		dra_prepared_clear(&gone[k]);
	free(gone);
	for (size_t i = 0; rc == 0 && i < n; i++)
		if (!a[i].uid) {
			snprintf(err, cap, "out of memory");
			rc = -1;
		}
	if (rc != 0) {
		dra_prep_release(NULL, o);
		return -1;
	}
	*out = a;
	*owner = o;
	return 0;
}
