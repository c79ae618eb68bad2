/* SPDX-License-Identifier: MIT */
/*
 * The device plugin's health policy and the devices it holds Unhealthy (health.h,
 * docs/kubernetes.md "Health").
 *
 * The variables are read as NVIDIA's k8s-device-plugin reads them (internal/rm/health.go):
 * DP_DISABLE_HEALTHCHECKS "all" or "xids" turns the checks off, numbers are Xids ignored
 * besides those an application causes (which the vendor backend already calls harmless);
 * DP_ENABLE_HEALTHCHECKS numbers are Xids that count even so, "all" every Xid, and an Xid
 * enabled wins over one disabled. One difference: with the checks off, Xids enabled by
 * number still count (that plugin's comment promises it; its code checks nothing then).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "health.h"

#define DEFAULT_RECOVERY_S 300

static bool in(const int64_t *codes, size_t n, int64_t c)
{
	for (size_t i = 0; i < n; i++)
		if (codes[i] == c)
			return true;
	return false;
}

static void notef(char *note, size_t cap, const char *fmt, const char *var, const char *tok)
{
	size_t len = strlen(note);
	if (len + 1 < cap)
		snprintf(note + len, cap - len, fmt, len ? "; " : "", var, tok);
}

/* One variable's list: *all for "all" / "xids", the numbers into codes. */
static void parse_list(const char *v, const char *var, bool *all, int64_t *codes, size_t *n, char *note, size_t cap)
{
	char buf[1024];
	snprintf(buf, sizeof buf, "%s", v ? v : "");
	for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		while (isspace((unsigned char)*tok))
			tok++;
		size_t len = strlen(tok);
		while (len && isspace((unsigned char)tok[len - 1]))
			tok[--len] = '\0';
		for (char *c = tok; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		if (!len)
			continue;
		if (strcmp(tok, "all") == 0 || strcmp(tok, "xids") == 0) {
			*all = true;
			continue;
		}
		char *end;
		errno = 0;
		unsigned long long x = isdigit((unsigned char)tok[0]) ? strtoull(tok, &end, 10) : 0;
		if (!isdigit((unsigned char)tok[0]) || *end || errno || x > INT64_MAX) {
			notef(note, cap, "%s%s: '%s' is not an Xid: ignored", var, tok);
			continue;
		}
		if (*n < KP_HEALTH_MAX_CODES && !in(codes, *n, (int64_t)x))
			codes[(*n)++] = (int64_t)x;
	}
}

int kp_health_policy(struct kp_health_policy *p, const char *checks, double recovery_s, const char *disable,
		     const char *enable, char *note, size_t note_cap, char *err, size_t cap)
{
	memset(p, 0, sizeof *p);
	if (note_cap)
		note[0] = '\0';
	p->recovery_s = DEFAULT_RECOVERY_S;
	if (checks && strcmp(checks, "none") == 0) {
		p->none = true;
	} else if (checks && strcmp(checks, "all") != 0) {
		snprintf(err, cap, "--health-checks takes all or none, not '%s'", checks);
		return -1;
	}
	if (recovery_s >= 0) {
		if (recovery_s > 86400) {
			snprintf(err, cap, "--health-recovery takes 0s..1d (0: until a restart), not %.0f s",
				 recovery_s);
			return -1;
		}
		p->recovery_s = recovery_s;
	}
	bool off = false;
	parse_list(disable, "DP_DISABLE_HEALTHCHECKS", &off, p->skip, &p->nskip, note, note_cap);
	parse_list(enable, "DP_ENABLE_HEALTHCHECKS", &p->errors_all, p->keep, &p->nkeep, note, note_cap);
	p->off = off;
	return 0;
}

/* Why an event does not count (NULL: it does). */
static const char *ignored(const struct kp_health_policy *p, const struct axl_health_event *e)
{
	if (p->none)
		return "--health-checks none";
	if (e->kind == AXL_HEALTH_DRIVER_ERROR) {
		if (in(p->keep, p->nkeep, e->code) || p->errors_all)
			return NULL;
		if (in(p->skip, p->nskip, e->code))
			return "DP_DISABLE_HEALTHCHECKS";
	}
	if (p->off)
		return "DP_DISABLE_HEALTHCHECKS";
	return e->critical ? NULL : "not one its vendor takes a device out of service for";
}

bool kp_health_counts(const struct kp_health_policy *p, const struct axl_health_event *e)
{
	return ignored(p, e) == NULL;
}

static void codes_text(const int64_t *codes, size_t n, char *out, size_t cap)
{
	size_t len = 0;
	out[0] = '\0';
	for (size_t i = 0; i < n && len + 1 < cap; i++)
		len += (size_t)snprintf(out + len, cap - len, "%s%lld", i ? "," : "", (long long)codes[i]);
}

void kp_health_describe(const struct kp_health_policy *p, char *out, size_t cap)
{
	if (p->none) {
		snprintf(out, cap, "health checks off (--health-checks none): only a device that is gone is Unhealthy");
		return;
	}
	char skip[512], keep[512], after[96];
	codes_text(p->skip, p->nskip, skip, sizeof skip);
	codes_text(p->keep, p->nkeep, keep, sizeof keep);
	if (p->recovery_s > 0)
		snprintf(after, sizeof after, "Healthy again after %.0f s without another", p->recovery_s);
	else
		snprintf(after, sizeof after, "Unhealthy until the plugin restarts");
	if (p->off && !p->errors_all && !p->nkeep)
		snprintf(out, cap,
			 "health checks off (DP_DISABLE_HEALTHCHECKS): only a device that is gone is Unhealthy");
	else
		snprintf(out, cap, "health: %s%s%s%s%s%s; %s",
			 p->off ? "only the Xids enabled" : "the errors vendors call critical",
			 p->errors_all ? " and every Xid (DP_ENABLE_HEALTHCHECKS)" : "", p->nskip ? ", not Xid " : "",
			 skip, p->nkeep && !p->errors_all ? ", and always Xid " : "", p->errors_all ? "" : keep, after);
}

/* ---- the devices held Unhealthy ---------------------------------------------------- */

struct mark {
	char id[128];
	char why[384];
	double until; /* < 0: until a restart */
	int severity; /* the worst of its events since it was marked (kp_health_severity) */
	long long since; /* wall-clock seconds when it was marked */
	char value[64];  /* the worst event as a label value */
};

struct kp_health {
	struct kp_health_policy p;
	struct mark *m;
	size_t n, cap;
};

struct kp_health *kp_health_new(const struct kp_health_policy *p)
{
	struct kp_health *h = calloc(1, sizeof *h);
	if (h)
		h->p = *p;
	return h;
}

void kp_health_free(struct kp_health *h)
{
	if (!h)
		return;
	free(h->m);
	free(h);
}

static struct mark *find(const struct kp_health *h, const char *id, size_t len)
{
	for (size_t i = 0; i < h->n; i++)
		if (strlen(h->m[i].id) == len && strncmp(h->m[i].id, id, len) == 0)
			return &h->m[i];
	return NULL;
}

bool kp_health_take(struct kp_health *h, const axl_sample *smp, double now,
		    void (*say)(void *ud, bool counted, const char *msg), void *ud)
{
	bool became = false;
	for (size_t i = 0; i < axl_sample_health_count(smp); i++) {
		const struct axl_health_event *e = axl_sample_health_event(smp, i);
		const axl_device *d = axl_sample_device(smp, e->device);
		if (!d)
			continue;
		const char *id = axl_device_id(d), *uuid = NULL;
		axl_device_get_str(d, AXL_ATTR_UUID, &uuid);
		const char *no = ignored(&h->p, e);
		char msg[640], until[96];
		if (no) {
			snprintf(msg, sizeof msg, "%s%s%s%s: %s: ignored (%s)", id, uuid ? " (" : "", uuid ? uuid : "",
				 uuid ? ")" : "", e->message, no);
			if (say)
				say(ud, false, msg);
			continue;
		}
		if (h->p.recovery_s > 0)
			snprintf(until, sizeof until, "until %.0f s pass without another", h->p.recovery_s);
		else
			snprintf(until, sizeof until, "until the plugin restarts");
		snprintf(msg, sizeof msg, "%s%s%s%s: %s: Unhealthy %s", id, uuid ? " (" : "", uuid ? uuid : "",
			 uuid ? ")" : "", e->message, until);
		if (say)
			say(ud, true, msg);
		struct mark *m = find(h, id, strlen(id));
		if (!m) {
			if (h->n == h->cap) {
				size_t nc = h->cap ? h->cap * 2 : 16;
				struct mark *nm = realloc(h->m, nc * sizeof *nm);
				if (!nm)
					continue;
				h->m = nm;
				h->cap = nc;
			}
			m = &h->m[h->n++];
			memset(m, 0, sizeof *m);
			snprintf(m->id, sizeof m->id, "%s", id);
			m->since = (long long)time(NULL);
			became = true;
		}
		int sev = e->critical && e->kind != AXL_HEALTH_WATCH_FAILED ? KP_SEVERE_EVICT : KP_SEVERE_NO_NEW;
		if (sev > m->severity) {
			m->severity = sev;
			if (e->kind == AXL_HEALTH_DRIVER_ERROR)
				snprintf(m->value, sizeof m->value, "DriverError-%lld", (long long)e->code);
			else
				snprintf(m->value, sizeof m->value, "%s",
					 e->kind == AXL_HEALTH_UNCORRECTABLE ? "Uncorrectable" : "WatchFailed");
		}
		snprintf(m->why, sizeof m->why, "%s", e->message);
		m->until = h->p.recovery_s > 0 ? now + h->p.recovery_s : -1;
	}
	return became;
}

bool kp_health_expire(struct kp_health *h, double now, void (*say)(void *ud, bool counted, const char *msg),
		      void *ud)
{
	bool any = false;
	for (size_t i = 0; i < h->n;) {
		if (h->m[i].until < 0 || now < h->m[i].until) {
			i++;
			continue;
		}
		char msg[640];
		snprintf(msg, sizeof msg, "%s: no critical error for %.0f s (the last: %s): Healthy again", h->m[i].id,
			 h->p.recovery_s, h->m[i].why);
		if (say)
			say(ud, true, msg);
		h->m[i] = h->m[--h->n];
		any = true;
	}
	return any;
}

static const struct mark *marked(const struct kp_health *h, const axl_device *d)
{
	const struct mark *m = find(h, axl_device_id(d), strlen(axl_device_id(d)));
	const axl_device *parent = axl_device_parent(d);
	if (!m && parent)
		m = find(h, axl_device_id(parent), strlen(axl_device_id(parent)));
	return m;
}

void kp_health_apply(const struct kp_health *h, struct kp_node *node, const axl_inventory *inv)
{
	if (!h || !h->n || !node)
		return;
	for (size_t r = 0; r < node->n; r++)
		for (size_t k = 0; k < node->res[r].n; k++) {
			struct kp_dev *dv = &node->res[r].devs[k];
			const axl_device *d = axl_inventory_find(inv, dv->axl_id);
			if (d && marked(h, d))
				dv->healthy = 0;
		}
}

const char *kp_health_why(const struct kp_health *h, const char *axl_id)
{
	if (!h || !axl_id)
		return NULL;
	const struct mark *m = find(h, axl_id, strlen(axl_id));
	const char *slash = strchr(axl_id, '/');
	if (!m && slash)
		m = find(h, axl_id, (size_t)(slash - axl_id));
	return m ? m->why : NULL;
}

int kp_health_severity(const struct kp_health *h, const char *axl_id, long long *since, const char **value)
{
	if (!h || !axl_id)
		return 0;
	const struct mark *m = find(h, axl_id, strlen(axl_id));
	const char *slash = strchr(axl_id, '/');
	if (!m && slash)
		m = find(h, axl_id, (size_t)(slash - axl_id));
	if (!m)
		return 0;
	if (since)
		*since = m->since;
	if (value)
		*value = m->value;
	return m->severity;
}

double kp_health_next(const struct kp_health *h)
{
	double next = -1;
	for (size_t i = 0; h && i < h->n; i++)
		if (h->m[i].until >= 0 && (next < 0 || h->m[i].until < next))
			next = h->m[i].until;
	return next;
}

/* ---- the health sampler a command keeps ---------------------------------------------- */

/* The devices of inv and their partitions, by id and UUID: what a health sampler watches. */
static char *signature(const axl_inventory *inv)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return NULL;
	for (size_t i = 0; i < axl_inventory_device_count(inv); i++) {
		const axl_device *dev = axl_inventory_device(inv, i);
		for (size_t c = 0; c <= axl_device_child_count(dev); c++) {
			const axl_device *x = c ? axl_device_child(dev, c - 1) : dev;
			const char *uuid = NULL;
			axl_device_get_str(x, AXL_ATTR_UUID, &uuid);
			fprintf(f, "%s|%s;", axl_device_id(x), uuid ? uuid : "");
		}
	}
	return fclose(f) == 0 ? buf : (free(buf), NULL);
}

bool kp_health_watch_poll(struct kp_health_watch *w, struct kp_health *h, double now,
			  void (*say)(void *ud, bool counted, const char *msg), void *ud)
{
	axl_sample *smp = NULL;
	if (!w->hs || axl_sampler_sample(w->hs, &smp) != 0)
		return false;
	bool became = kp_health_take(h, smp, now, say, ud);
	axl_sample_free(smp);
	return became;
}

void kp_health_watch_close(struct kp_health_watch *w)
{
	axl_sampler_free(w->hs);
	axl_inventory_free(w->inv);
	axl_context_free(w->ctx);
	free(w->sig);
	memset(w, 0, sizeof *w);
}

bool kp_health_watch_set(struct kp_health_watch *w, struct kp_health *h, axl_context *ctx, axl_inventory *inv,
			 double now, void (*say)(void *ud, bool counted, const char *msg), void *ud)
{
	char *sig = signature(inv);
	if (!sig || (w->hs && strcmp(sig, w->sig) == 0) || (!w->hs && !*sig)) {
		free(sig); /* the same devices; or none at all (an idle node is not sampled) */
		return false;
	}
	axl_sampler *s = NULL;
	if (axl_sampler_open(&s, inv, AXL_SAMPLER_HEALTH | AXL_SAMPLER_NO_METRICS) != 0) {
		char msg[1024];
		snprintf(msg, sizeof msg, "the devices' errors cannot be watched: %s", axl_error_last());
		say(ud, true, msg);
		free(sig);
		return false;
	}
	kp_health_watch_poll(w, h, now, say, ud);
	kp_health_watch_close(w);
	*w = (struct kp_health_watch){ctx, inv, s, sig};
	return true;
}

double kp_health_watch_wake(const struct kp_health_watch *w, const struct kp_health *h, double next_sample,
			    double wake)
{
	if (w->hs) {
		double back = kp_health_next(h);
		wake = next_sample < wake ? next_sample : wake;
		wake = back >= 0 && back < wake ? back : wake;
	}
	return wake;
}

const char *kp_health_watch_tick(struct kp_health_watch *w, struct kp_health *h, double now, double *next_sample,
				 double period, void (*say)(void *ud, bool counted, const char *msg), void *ud)
{
	const char *why = NULL;
	if (w->hs && now >= *next_sample - 0.001) {
		*next_sample = now + period;
		if (kp_health_watch_poll(w, h, now, say, ud))
			why = "a device's error";
	}
	if (h && kp_health_expire(h, now + 0.001, say, ud))
		why = "a device's recovery";
	return why;
}
