/* SPDX-License-Identifier: MIT */
/*
 * The devices' health streamed to the kubelet (KEP-4680's DRA part: drahealth.proto,
 * DRAResourceHealth.NodeWatchResources), on the DRA socket beside NodePrepareResources.
 *
 * What the kubelet does with it, from kubernetes/kubernetes (read with the fetch tool):
 *  - pkg/kubelet/cm/dra/plugin/dra_plugin_manager.go (f8297306) add(): with the
 *    ResourceHealthStatus gate, once a plugin registers, NodeWatchResources of
 *    "v1alpha1.DRAResourceHealth" is called, and called again 5 s after it fails or ends
 *    (wait.UntilWithContext): a plugin without the service is asked every 5 s forever;
 *  - pkg/kubelet/cm/dra/manager.go HandleWatchResourcesStream: each message is the
 *    driver's whole list of (pool_name, device_name, health, health_check_timeout_seconds,
 *    message); the stream's end clears the driver's cache;
 *  - pkg/kubelet/cm/dra/healthinfo.go: a device not reported again within its timeout
 *    (DefaultHealthTimeout 30 s when the field is 0) becomes Unknown; a change of health,
 *    message or timeout updates the pod status (allocatedResourcesStatus) of the pods
 *    whose claims hold the device.
 * k8s.io/dynamic-resource-allocation kubeletplugin/draplugin.go lists
 * "v1alpha1.DRAResourceHealth" in GetInfo when the driver serves it; the v1 package
 * (k8s.io/kubelet pkg/apis/dra-health/v1, same messages) is served and listed as well.
 *
 * So: a stream is sent the list when it opens, when a device's health or message changes
 * (set_health), and every DK_WATCH_RESEND_S whatever happened, each device with
 * health_check_timeout_seconds DK_WATCH_TIMEOUT_S. A stream lives until the kubelet closes
 * it or the server stops ({receive close} -> DK_T_CLOSE); sends are one at a time
 * ({send} -> DK_T_SEND), a change meanwhile sent after. The serve loop wakes at the resend
 * deadline (dk_watch_deadline) only while a stream is open.
 */
#define _GNU_SOURCE
#include "kubelet_glue.h"

struct dk_hdev {
	char *pool, *device, *message;
	int health;
	long long updated;
};

/* drahealth.proto DeviceHealth.message: "Maximum length is 1024 characters" */
#define DK_WATCH_MESSAGE_MAX 1024

enum dk_method dk_watch_method(const grpc_slice m)
{
	if (grpc_slice_str_cmp(m, "/" DK_HEALTH_V1ALPHA1 "/" DK_WATCH_METHOD) == 0 ||
	    grpc_slice_str_cmp(m, "/" DK_HEALTH_V1 "/" DK_WATCH_METHOD) == 0)
		return DK_M_WATCH;
	return DK_M_UNKNOWN;
}

static void hdevs_free(struct dk_hdev *h, size_t n)
{
	for (size_t i = 0; h && i < n; i++) {
		free(h[i].pool);
		free(h[i].device);
		free(h[i].message);
	}
	free(h);
}

void dk_watch_free(struct dk_plugin *p)
{
	hdevs_free(p->hdevs, p->n_hdevs);
	p->hdevs = NULL;
	p->n_hdevs = 0;
}

/* The list now as a NodeWatchResourcesResponse (lock held); NULL: out of memory. */
static grpc_byte_buffer *list_message(const struct dk_plugin *p)
{
	size_t n = p->n_hdevs;
	V1alpha1__DeviceHealth *dh = calloc(n ? n : 1, sizeof *dh);
	V1alpha1__DeviceHealth **dhp = calloc(n ? n : 1, sizeof *dhp);
	V1alpha1__DeviceIdentifier *id = calloc(n ? n : 1, sizeof *id);
	grpc_byte_buffer *bb = NULL;
	if (dh && dhp && id) {
		for (size_t i = 0; i < n; i++) {
			const struct dk_hdev *h = &p->hdevs[i];
			v1alpha1__device_identifier__init(&id[i]);
			id[i].pool_name = h->pool;
			id[i].device_name = h->device;
			v1alpha1__device_health__init(&dh[i]);
			dh[i].device = &id[i];
			dh[i].health = (V1alpha1__HealthStatus)h->health;
			dh[i].last_updated_time = h->updated;
			dh[i].health_check_timeout_seconds = DK_WATCH_TIMEOUT_S;
			if (h->message)
				dh[i].message = h->message;
			dhp[i] = &dh[i];
		}
		V1alpha1__NodeWatchResourcesResponse r = V1ALPHA1__NODE_WATCH_RESOURCES_RESPONSE__INIT;
		r.n_devices = n;
		r.devices = dhp;
		bb = kl_pack(&r.base);
	}
	free(dh);
	free(dhp);
	free(id);
	return bb;
}

/* Send stream c the list (lock held): after the send in flight when there is one. */
static void push(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	if (c->k.closed || !p->health_set)
		return;
	if (c->k.sending) {
		c->k.dirty = 1;
		return;
	}
	if (kl_call_send(&c->k, list_message(p), &c->t_send) == GRPC_CALL_OK)
		p->n_watch_sent++;
}

static void push_all(void *arg)
{
	struct dk_plugin *p = arg;
	pthread_mutex_lock(&p->lock);
	for (struct dk_call *c = p->streams; c; c = c->next)
		push(c);
	pthread_mutex_unlock(&p->lock);
}

static gpr_timespec resend_at(void)
{
	return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_seconds(DK_WATCH_RESEND_S, GPR_TIMESPAN));
}

int dk_watch_start(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	V1alpha1__NodeWatchResourcesRequest *rq = (V1alpha1__NodeWatchResourcesRequest *)kl_unpack(
	    &v1alpha1__node_watch_resources_request__descriptor, c->k.in);
	if (!rq) {
		return kl_call_finish(&c->k, NULL, GRPC_STATUS_INVALID_ARGUMENT,
				      "NodeWatchResources: the request is not a NodeWatchResourcesRequest",
				      &c->t_done) == GRPC_CALL_OK ? 0 : -1;
	}
	protobuf_c_message_free_unpacked(&rq->base, NULL);
	c->t_send = (struct dk_tag){ DK_T_SEND, c, c->s };
	c->t_close = (struct dk_tag){ DK_T_CLOSE, c, c->s };
	pthread_mutex_lock(&p->lock);
	if (kl_call_watch_close(&c->k, &c->t_close) != GRPC_CALL_OK) {
		pthread_mutex_unlock(&p->lock);
		return -1;
	}
	if (!p->streams)
		p->next_resend = resend_at();
	c->next = p->streams;
	p->streams = c;
	p->n_watch++;
	dk_say(p, 2, "NodeWatchResources: the kubelet is watching the devices' health");
	push(c);
	pthread_mutex_unlock(&p->lock);
	return 0;
}

int dk_watch_event(struct dk_plugin *p, const struct dk_tag *t)
{
	struct dk_call *c = t->c;
	pthread_mutex_lock(&p->lock);
	c->k.pending--;
	if (t->kind == DK_T_SEND) {
		c->k.sending = 0;
		if (!c->k.closed && c->k.dirty) {
			c->k.dirty = 0;
			push(c);
		}
	} else {
		c->k.closed = 1;
		for (struct dk_call **pp = &p->streams; *pp; pp = &(*pp)->next)
			if (*pp == c) {
				*pp = c->next;
				break;
			}
		dk_say(p, 2, "NodeWatchResources: the stream closed");
	}
	int done = c->k.closed && !c->k.pending;
	pthread_mutex_unlock(&p->lock);
	return done;
}

gpr_timespec dk_watch_deadline(struct dk_plugin *p)
{
	pthread_mutex_lock(&p->lock);
	gpr_timespec t = p->streams ? p->next_resend : gpr_inf_future(GPR_CLOCK_MONOTONIC);
	pthread_mutex_unlock(&p->lock);
	return t;
}

void dk_watch_due(struct dk_plugin *p)
{
	pthread_mutex_lock(&p->lock);
	if (p->streams && gpr_time_cmp(gpr_now(GPR_CLOCK_MONOTONIC), p->next_resend) >= 0) {
		for (struct dk_call *c = p->streams; c; c = c->next)
			push(c);
		p->next_resend = resend_at();
	}
	pthread_mutex_unlock(&p->lock);
}

static char *dup_max(const char *s, size_t max)
{
	return s ? strndup(s, max) : NULL;
}

/* Do a and b say the same of the same devices (the times aside)? */
static int same(const struct dk_hdev *a, size_t na, const struct dk_hdev *b, size_t nb)
{
	if (na != nb)
		return 0;
	for (size_t i = 0; i < na; i++)
		if (a[i].health != b[i].health || strcmp(a[i].pool, b[i].pool) != 0 ||
		    strcmp(a[i].device, b[i].device) != 0 ||
		    strcmp(a[i].message ? a[i].message : "", b[i].message ? b[i].message : "") != 0)
			return 0;
	return 1;
}

void dk_watch_set(void *server, const struct dra_device_health *devs, size_t n)
{
	struct dk_plugin *p = server;
	if (!p)
		return;
	struct dk_hdev *h = calloc(n ? n : 1, sizeof *h);
	int ok = h != NULL;
	for (size_t i = 0; ok && i < n; i++) {
		h[i].pool = strdup(devs[i].pool ? devs[i].pool : "");
		h[i].device = strdup(devs[i].device ? devs[i].device : "");
		h[i].message = dup_max(devs[i].message, DK_WATCH_MESSAGE_MAX);
		h[i].health = devs[i].health >= DRA_HEALTH_UNKNOWN && devs[i].health <= DRA_HEALTH_UNHEALTHY ?
				      devs[i].health :
				      DRA_HEALTH_UNKNOWN;
		h[i].updated = devs[i].updated;
		ok = h[i].pool && h[i].device && (h[i].message || !devs[i].message);
	}
	if (!ok) {
		hdevs_free(h, n);
		dk_say(p, 0, "out of memory: the kubelet is not told of the devices' health now");
		return;
	}
	pthread_mutex_lock(&p->lock);
	int changed = !p->health_set || !same(p->hdevs, p->n_hdevs, h, n);
	hdevs_free(p->hdevs, p->n_hdevs);
	p->hdevs = h;
	p->n_hdevs = n;
	p->health_set = 1;
	int streams = p->streams != NULL;
	pthread_mutex_unlock(&p->lock);
	/* gRPC only on a thread of the module's (kubelet_grpc.c), and only for a change */
	if (changed && streams && kl_apart(push_all, p) != 0)
		push_all(p);
}
