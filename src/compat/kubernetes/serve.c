/* SPDX-License-Identifier: MIT */
/*
 * The plugin's servers on their sockets, and the kubelet's calls on them (glue.h), as the
 * completion queue they share sees them:
 *   request_call -> T_NEW -> {send initial metadata, receive the request} -> T_RECV
 *   unary: {send reply, send status, receive close} -> T_DONE -> freed
 *   ListAndWatch: {receive close} -> T_CLOSE (the kubelet went, or we stop), and a
 *   {send list} -> T_SEND per change; freed when closed and nothing is in flight.
 */
#define _GNU_SOURCE
#include "glue.h"

/* ---- messages ------------------------------------------------------------------- */

/* The ListAndWatch message of resource r now, packed; NULL when the list failed. */
static uint8_t *list_bytes(struct plugin *p, size_t r, size_t *len)
{
	const struct k8s_device *devs;
	size_t n = 0;
	void *owner = NULL;
	if (p->ops.list(p->ops.ud, r, &devs, &n, &owner) != 0)
		return NULL;
	V1beta1__ListAndWatchResponse msg = V1BETA1__LIST_AND_WATCH_RESPONSE__INIT;
	V1beta1__Device *dv = calloc(n ? n : 1, sizeof *dv);
	V1beta1__Device **dp = calloc(n ? n : 1, sizeof *dp);
	V1beta1__TopologyInfo *ti = calloc(n ? n : 1, sizeof *ti);
	V1beta1__NUMANode *nn = calloc(n ? n : 1, sizeof *nn);
	V1beta1__NUMANode **np = calloc(n ? n : 1, sizeof *np);
	uint8_t *buf = NULL;
	if (dv && dp && ti && nn && np) {
		for (size_t i = 0; i < n; i++) {
			v1beta1__device__init(&dv[i]);
			dv[i].id = (char *)devs[i].id;
			dv[i].health = devs[i].healthy ? "Healthy" : "Unhealthy";
			if (devs[i].numa >= 0) {
				v1beta1__topology_info__init(&ti[i]);
				v1beta1__numanode__init(&nn[i]);
				nn[i].id = devs[i].numa;
				np[i] = &nn[i];
				ti[i].n_nodes = 1;
				ti[i].nodes = &np[i];
				dv[i].topology = &ti[i];
			}
			dp[i] = &dv[i];
		}
		msg.n_devices = n;
		msg.devices = dp;
		*len = v1beta1__list_and_watch_response__get_packed_size(&msg);
		buf = malloc(*len ? *len : 1);
		if (buf)
			v1beta1__list_and_watch_response__pack(&msg, buf);
	}
	free(dv);
	free(dp);
	free(ti);
	free(nn);
	free(np);
	p->ops.release(p->ops.ud, owner);
	return buf;
}

/* ---- calls ---------------------------------------------------------------------- */

void k8s_glue_call_free(struct call *c)
{
	kl_call_destroy(&c->k);
	free(c->last);
	free(c);
}

static struct call *call_new(struct srv *s)
{
	struct call *c = calloc(1, sizeof *c);
	if (!c)
		return NULL;
	c->p = s->p;
	c->s = s;
	c->r = s->r;
	kl_call_init(&c->k);
	c->t_new = (struct tag){T_NEW, c, s};
	c->t_recv = (struct tag){T_RECV, c, s};
	c->t_done = (struct tag){T_DONE, c, s};
	c->t_send = (struct tag){T_SEND, c, s};
	c->t_close = (struct tag){T_CLOSE, c, s};
	return c;
}

/* Ask for the next call on s (the lock is held or s is not yet shared). */
void k8s_glue_request_next(struct srv *s)
{
	if (s->shutting)
		return;
	struct call *c = call_new(s);
	if (!c)
		return;
	if (kl_call_request(&c->k, s->gs, s->p->cq, &c->t_new) != GRPC_CALL_OK)
		k8s_glue_call_free(c);
}

static enum method method_of(const grpc_slice m)
{
	static const struct {
		const char *name;
		enum method m;
	} names[] = {
		{METHOD_PREFIX "GetDevicePluginOptions", M_OPTIONS}, {METHOD_PREFIX "ListAndWatch", M_LIST},
		{METHOD_PREFIX "GetPreferredAllocation", M_PREFERRED}, {METHOD_PREFIX "Allocate", M_ALLOCATE},
		{METHOD_PREFIX "PreStartContainer", M_PRESTART},
	};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
		if (grpc_slice_str_cmp(m, names[i].name) == 0)
			return names[i].m;
	return M_UNKNOWN;
}

/* Finish a unary call: the reply (may be NULL) and the status. */
static void finish(struct call *c, ProtobufCMessage *reply, grpc_status_code code, const char *msg)
{
	if (kl_call_finish(&c->k, reply, code, msg, &c->t_done) != GRPC_CALL_OK)
		k8s_glue_call_free(c);
}

static void do_options(struct call *c)
{
	V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
	o.pre_start_required = 0;
	o.get_preferred_allocation_available = c->p->cfg.preferred != 0;
	finish(c, &o.base, GRPC_STATUS_OK, NULL);
}

static void do_prestart(struct call *c)
{
	V1beta1__PreStartContainerResponse o = V1BETA1__PRE_START_CONTAINER_RESPONSE__INIT;
	finish(c, &o.base, GRPC_STATUS_OK, NULL);
}

static void do_preferred(struct call *c)
{
	struct plugin *p = c->p;
	V1beta1__PreferredAllocationRequest *rq = (V1beta1__PreferredAllocationRequest *)kl_unpack(
		&v1beta1__preferred_allocation_request__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT,
		       "GetPreferredAllocation: the request is not a PreferredAllocationRequest");
		return;
	}
	size_t nc = rq->n_container_requests;
	V1beta1__PreferredAllocationResponse rs = V1BETA1__PREFERRED_ALLOCATION_RESPONSE__INIT;
	V1beta1__ContainerPreferredAllocationResponse *cr = calloc(nc ? nc : 1, sizeof *cr);
	V1beta1__ContainerPreferredAllocationResponse **crp = calloc(nc ? nc : 1, sizeof *crp);
	void **owners = calloc(nc ? nc : 1, sizeof *owners);
	int code = GRPC_STATUS_OK;
	char err[512] = "";
	if (!cr || !crp || !owners) {
		code = GRPC_STATUS_RESOURCE_EXHAUSTED;
		snprintf(err, sizeof err, "out of memory");
	}
	for (size_t i = 0; i < nc && code == GRPC_STATUS_OK; i++) {
		V1beta1__ContainerPreferredAllocationRequest *q = rq->container_requests[i];
		const char *const *ids = NULL;
		size_t n = 0;
		int k = K8S_INTERNAL;
		if (p->ops.preferred(p->ops.ud, c->r, (const char *const *)q->available_deviceids,
				     q->n_available_deviceids, (const char *const *)q->must_include_deviceids,
				     q->n_must_include_deviceids, q->allocation_size, &ids, &n, &owners[i], &k, err,
				     sizeof err) != 0) {
			code = k;
			break;
		}
		v1beta1__container_preferred_allocation_response__init(&cr[i]);
		cr[i].n_deviceids = n;
		cr[i].deviceids = (char **)ids;
		crp[i] = &cr[i];
	}
	rs.n_container_responses = nc;
	rs.container_responses = crp;
	if (code != GRPC_STATUS_OK)
		k8s_glue_say(p, 1, "%s: GetPreferredAllocation refused: %s", p->cfg.resources[c->r], err);
	finish(c, &rs.base, code, code == GRPC_STATUS_OK ? NULL : err);
	for (size_t i = 0; owners && i < nc; i++)
		if (owners[i])
			p->ops.release(p->ops.ud, owners[i]);
	free(owners);
	free(cr);
	free(crp);
	protobuf_c_message_free_unpacked(&rq->base, NULL);
}

/* The blocks behind one container's response. */
struct cblocks {
	void *blk[10];
};

static void free_container(struct cblocks *b)
{
	for (size_t i = 0; i < 10; i++)
		free(b->blk[i]);
}

/* One container's response from what the command answered: 0, or -1 out of memory. */
static int fill_container(V1beta1__ContainerAllocateResponse *o, struct cblocks *b, const struct k8s_container *k)
{
	v1beta1__container_allocate_response__init(o);
	memset(b, 0, sizeof *b);
	V1beta1__ContainerAllocateResponse__EnvsEntry *ev = b->blk[0] = calloc(k->n_envs + 1, sizeof *ev);
	V1beta1__ContainerAllocateResponse__EnvsEntry **evp = b->blk[1] = calloc(k->n_envs + 1, sizeof *evp);
	V1beta1__ContainerAllocateResponse__AnnotationsEntry *an = b->blk[2] = calloc(k->n_annotations + 1, sizeof *an);
	V1beta1__ContainerAllocateResponse__AnnotationsEntry **anp = b->blk[3] =
	    calloc(k->n_annotations + 1, sizeof *anp);
	V1beta1__Mount *mo = b->blk[4] = calloc(k->n_mounts + 1, sizeof *mo);
	V1beta1__Mount **mop = b->blk[5] = calloc(k->n_mounts + 1, sizeof *mop);
	V1beta1__DeviceSpec *ds = b->blk[6] = calloc(k->n_nodes + 1, sizeof *ds);
	V1beta1__DeviceSpec **dsp = b->blk[7] = calloc(k->n_nodes + 1, sizeof *dsp);
	V1beta1__CDIDevice *cd = b->blk[8] = calloc(k->n_cdi + 1, sizeof *cd);
	V1beta1__CDIDevice **cdp = b->blk[9] = calloc(k->n_cdi + 1, sizeof *cdp);
	for (size_t i = 0; i < 10; i++)
		if (!b->blk[i])
			return -1;
	for (size_t i = 0; i < k->n_envs; i++) {
		v1beta1__container_allocate_response__envs_entry__init(&ev[i]);
		ev[i].key = (char *)k->envs[i].key;
		ev[i].value = (char *)k->envs[i].value;
		evp[i] = &ev[i];
	}
	for (size_t i = 0; i < k->n_annotations; i++) {
		v1beta1__container_allocate_response__annotations_entry__init(&an[i]);
		an[i].key = (char *)k->annotations[i].key;
		an[i].value = (char *)k->annotations[i].value;
		anp[i] = &an[i];
	}
	for (size_t i = 0; i < k->n_mounts; i++) {
		v1beta1__mount__init(&mo[i]);
		mo[i].container_path = (char *)k->mounts[i].container_path;
		mo[i].host_path = (char *)k->mounts[i].host_path;
		mo[i].read_only = k->mounts[i].read_only != 0;
		mop[i] = &mo[i];
	}
	for (size_t i = 0; i < k->n_nodes; i++) {
		v1beta1__device_spec__init(&ds[i]);
		ds[i].container_path = (char *)k->nodes[i].container_path;
		ds[i].host_path = (char *)k->nodes[i].host_path;
		ds[i].permissions = (char *)k->nodes[i].permissions;
		dsp[i] = &ds[i];
	}
	for (size_t i = 0; i < k->n_cdi; i++) {
		v1beta1__cdidevice__init(&cd[i]);
		cd[i].name = (char *)k->cdi[i];
		cdp[i] = &cd[i];
	}
	o->n_envs = k->n_envs;
	o->envs = evp;
	o->n_annotations = k->n_annotations;
	o->annotations = anp;
	o->n_mounts = k->n_mounts;
	o->mounts = mop;
	o->n_devices = k->n_nodes;
	o->devices = dsp;
	o->n_cdi_devices = k->n_cdi;
	o->cdi_devices = cdp;
	return 0;
}

static void do_allocate(struct call *c)
{
	struct plugin *p = c->p;
	V1beta1__AllocateRequest *rq =
	    (V1beta1__AllocateRequest *)kl_unpack(&v1beta1__allocate_request__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT, "Allocate: the request is not an AllocateRequest");
		return;
	}
	size_t nc = rq->n_container_requests;
	V1beta1__AllocateResponse rs = V1BETA1__ALLOCATE_RESPONSE__INIT;
	V1beta1__ContainerAllocateResponse *cr = calloc(nc ? nc : 1, sizeof *cr);
	V1beta1__ContainerAllocateResponse **crp = calloc(nc ? nc : 1, sizeof *crp);
	struct cblocks *blocks = calloc(nc ? nc : 1, sizeof *blocks);
	void **owners = calloc(nc ? nc : 1, sizeof *owners);
	int code = GRPC_STATUS_OK;
	char err[512] = "";
	if (!cr || !crp || !owners || !blocks) {
		code = GRPC_STATUS_RESOURCE_EXHAUSTED;
		snprintf(err, sizeof err, "out of memory");
	}
	for (size_t i = 0; i < nc && code == GRPC_STATUS_OK; i++) {
		V1beta1__ContainerAllocateRequest *q = rq->container_requests[i];
		struct k8s_container k;
		memset(&k, 0, sizeof k);
		int kc = K8S_INTERNAL;
		if (p->ops.allocate(p->ops.ud, c->r, (const char *const *)q->devices_ids, q->n_devices_ids, &k,
				    &owners[i], &kc, err, sizeof err) != 0) {
			code = kc;
			break;
		}
		if (fill_container(&cr[i], &blocks[i], &k) != 0) {
			code = GRPC_STATUS_RESOURCE_EXHAUSTED;
			snprintf(err, sizeof err, "out of memory");
			break;
		}
		crp[i] = &cr[i];
	}
	rs.n_container_responses = nc;
	rs.container_responses = crp;
	if (code != GRPC_STATUS_OK)
		k8s_glue_say(p, 1, "%s: Allocate refused: %s", p->cfg.resources[c->r], err);
	finish(c, &rs.base, code, code == GRPC_STATUS_OK ? NULL : err);
	for (size_t i = 0; blocks && i < nc; i++)
		free_container(&blocks[i]);
	free(blocks);
	for (size_t i = 0; owners && i < nc; i++)
		if (owners[i])
			p->ops.release(p->ops.ud, owners[i]);
	free(owners);
	free(cr);
	free(crp);
	protobuf_c_message_free_unpacked(&rq->base, NULL);
}

/* Send stream c its resource's list if it changed since the last one (lock held). */
void k8s_glue_push(struct call *c)
{
	if (c->k.closed)
		return;
	if (c->k.sending) {
		c->k.dirty = 1;
		return;
	}
	size_t n = 0;
	uint8_t *b = list_bytes(c->p, c->r, &n);
	if (!b)
		return;
	if (c->last && n == c->nlast && memcmp(b, c->last, n) == 0) {
		free(b);
		return;
	}
	free(c->last);
	c->last = b;
	c->nlast = n;
	grpc_slice s = grpc_slice_from_copied_buffer((const char *)b, n);
	grpc_byte_buffer *msg = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	if (kl_call_send(&c->k, msg, &c->t_send) == GRPC_CALL_OK)
		k8s_glue_say(c->p, 2, "%s: ListAndWatch: sent the device list", c->p->cfg.resources[c->r]);
}

static void unlink_stream(struct plugin *p, struct call *c)
{
	for (struct call **pp = &p->streams; *pp; pp = &(*pp)->next)
		if (*pp == c) {
			*pp = c->next;
			return;
		}
}

static void start_stream(struct call *c)
{
	struct plugin *p = c->p;
	pthread_mutex_lock(&p->lock);
	if (kl_call_watch_close(&c->k, &c->t_close) != GRPC_CALL_OK) {
		pthread_mutex_unlock(&p->lock);
		k8s_glue_call_free(c);
		return;
	}
	c->next = p->streams;
	p->streams = c;
	k8s_glue_say(p, 2, "%s: ListAndWatch: the kubelet is watching", p->cfg.resources[c->r]);
	k8s_glue_push(c);
	pthread_mutex_unlock(&p->lock);
}

static void on_recv(struct call *c, int ok)
{
	c->k.pending--;
	if (!ok) {
		k8s_glue_call_free(c);
		return;
	}
	switch (c->m) {
	case M_OPTIONS:
		do_options(c);
		break;
	case M_LIST:
		start_stream(c);
		break;
	case M_PREFERRED:
		do_preferred(c);
		break;
	case M_ALLOCATE:
		do_allocate(c);
		break;
	case M_PRESTART:
		do_prestart(c);
		break;
	default: {
		char msg[300];
		char *m = grpc_slice_to_c_string(c->k.det.method);
		snprintf(msg, sizeof msg, "axl's device plugin does not implement %s", m ? m : "this method");
		gpr_free(m);
		finish(c, NULL, GRPC_STATUS_UNIMPLEMENTED, msg);
	}
	}
}

static void on_new(struct call *c, int ok)
{
	struct plugin *p = c->p;
	if (!ok) { /* the server is shutting down */
		k8s_glue_call_free(c);
		return;
	}
	pthread_mutex_lock(&p->lock);
	k8s_glue_request_next(c->s);
	pthread_mutex_unlock(&p->lock);
	c->m = method_of(c->k.det.method);
	if (kl_call_begin(&c->k, &c->t_recv) != GRPC_CALL_OK)
		k8s_glue_call_free(c);
}

void *k8s_glue_serve_loop(void *arg)
{
	struct plugin *p = arg;
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(p->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type != GRPC_OP_COMPLETE)
			continue;
		struct tag *t = ev.tag;
		struct call *c = t->c;
		switch (t->kind) {
		case T_NEW:
			on_new(c, ev.success);
			break;
		case T_RECV:
			on_recv(c, ev.success);
			break;
		case T_DONE:
			c->k.pending--;
			k8s_glue_call_free(c);
			break;
		case T_SEND:
			pthread_mutex_lock(&p->lock);
			c->k.pending--;
			c->k.sending = 0;
			if (c->k.closed) {
				if (!c->k.pending)
					k8s_glue_call_free(c);
			} else if (c->k.dirty) {
				c->k.dirty = 0;
				k8s_glue_push(c);
			}
			pthread_mutex_unlock(&p->lock);
			break;
		case T_CLOSE:
			pthread_mutex_lock(&p->lock);
			c->k.pending--;
			c->k.closed = 1;
			unlink_stream(p, c);
			k8s_glue_say(p, 2, "%s: ListAndWatch: the stream closed", p->cfg.resources[c->r]);
			if (!c->k.pending)
				k8s_glue_call_free(c);
			pthread_mutex_unlock(&p->lock);
			break;
		case T_SHUTDOWN:
			kl_server_gone(&p->lock, &t->s->gs, &p->live_servers, &p->stopping, p->cq);
			break;
		}
	}
	return NULL;
}

/* ---- servers -------------------------------------------------------------------- */

/* A server for resource r on its socket (lock held or not yet shared). */
struct srv *k8s_glue_srv_start(struct plugin *p, size_t r, char *err, size_t cap)
{
	char in_use[512];
	snprintf(in_use, sizeof in_use, " (another device plugin for %s?)", p->cfg.resources[r]);
	const struct kl_hints h = {" (a shorter --kubelet-dir)", in_use};
	struct srv *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	s->gs = kl_listen(p->cq, p->paths[r], p->cfg.dir, &h, p->ops.say, p->ops.ud, p->cfg.verbose, &p->inos[r], err,
			  cap);
	if (!s->gs) {
		free(s);
		return NULL;
	}
	s->p = p;
	s->r = r;
	s->t_shutdown = (struct tag){T_SHUTDOWN, NULL, s};
	s->next_all = p->all;
	p->all = s;
	p->live_servers++;
	k8s_glue_request_next(s);
	return s;
}

/* Shut s down; the serve loop frees it when gRPC says it is done (lock held). */
void k8s_glue_srv_retire(struct plugin *p, struct srv *s)
{
	s->shutting = 1;
	grpc_server_shutdown_and_notify(s->gs, p->cq, &s->t_shutdown);
	grpc_server_cancel_all_calls(s->gs);
}
