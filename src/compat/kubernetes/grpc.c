/* SPDX-License-Identifier: MIT */
/*
 * The kubelet device plugin API v1beta1 over gRPC's C core (libgrpc, Debian's
 * libgrpc-dev) with protobuf-c messages (deviceplugin.proto): the whole of axl's gRPC
 * glue, built alone as the module axl-kubernetes.so (transport.h).
 *
 * Threads: one drives the completion queue that all the plugin's servers share
 * (serve_loop: new calls, received requests, finished sends); one registers with the
 * kubelet and watches its directory for a new kubelet.sock (reg_loop). The command's
 * thread calls changed() and stop(). A ListAndWatch stream is sent to from whichever
 * thread learns of a change (grpc_call_start_batch is thread-safe), one message in
 * flight at a time; the lock guards the streams' state.
 *
 * Calls, as the completion queue sees them:
 *   request_call -> T_NEW -> {send initial metadata, receive the request} -> T_RECV
 *   unary: {send reply, send status, receive close} -> T_DONE -> freed
 *   ListAndWatch: {receive close} -> T_CLOSE (the kubelet went, or we stop), and a
 *   {send list} -> T_SEND per change; freed when closed and nothing is in flight.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/eventfd.h>
#include <sys/inotify.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

/* protoc-c names the Registration service's method member `register`, a C keyword */
#define register register_
#include "deviceplugin.pb-c.h"
#undef register
#include "transport.h"

#define API_VERSION "v1beta1"
#define KUBELET_SOCKET "kubelet.sock"
#define METHOD_PREFIX "/v1beta1.DevicePlugin/"
#define RETRY_MIN_S 5
#define RETRY_MAX_S 60

enum tag_kind { T_NEW, T_RECV, T_DONE, T_SEND, T_CLOSE, T_SHUTDOWN };
enum method { M_UNKNOWN, M_OPTIONS, M_LIST, M_PREFERRED, M_ALLOCATE, M_PRESTART };

struct plugin;
struct srv;
struct call;

struct tag {
	enum tag_kind kind;
	struct call *c;
	struct srv *s;
};

struct call {
	struct plugin *p;
	struct srv *s;
	size_t r;
	grpc_call *call;
	grpc_call_details det;
	grpc_metadata_array md;
	grpc_byte_buffer *in, *out;
	int cancelled;
	enum method m;
	int pending; /* batches in flight */
	int closed, sending, dirty;
	uint8_t *last; /* the list last sent on this stream */
	size_t nlast;
	struct call *next; /* the plugin's streams */
	grpc_slice details;
	struct tag t_new, t_recv, t_done, t_send, t_close;
};

/* one resource's server; replaced by a new one when the kubelet removed its socket */
struct srv {
	struct plugin *p;
	size_t r;
	grpc_server *gs;
	int shutting;
	struct tag t_shutdown;
	struct srv *next_all; /* every server ever started, freed with the plugin */
};

struct plugin {
	struct k8s_config cfg;
	struct k8s_ops ops;
	char **paths;  /* each resource's socket path */
	struct srv **srv;
	grpc_completion_queue *cq;
	pthread_t serve_thread, reg_thread;
	int reg_started;
	pthread_mutex_t lock;
	struct call *streams;
	struct srv *all;   /* every server started (a call may still name a retired one) */
	ino_t *inos;       /* each resource's socket as we made it */
	int live_servers;  /* servers not yet notified of their shutdown */
	int stopping;
	int evfd, ino;
	char kubelet[4096];
	int *registered;   /* per resource: registered with the kubelet now */
};

static void say(struct plugin *p, int level, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(struct plugin *p, int level, const char *fmt, ...)
{
	if (level >= 2 && !p->cfg.verbose)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->ops.say(p->ops.ud, level, msg);
}

/* ---- messages ------------------------------------------------------------------- */

static grpc_byte_buffer *pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(n);
	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

static ProtobufCMessage *unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb)
{
	if (!bb)
		return NULL;
	grpc_byte_buffer_reader rd;
	if (!grpc_byte_buffer_reader_init(&rd, bb))
		return NULL;
	grpc_slice s = grpc_byte_buffer_reader_readall(&rd);
	grpc_byte_buffer_reader_destroy(&rd);
	ProtobufCMessage *m = protobuf_c_message_unpack(d, NULL, GRPC_SLICE_LENGTH(s), GRPC_SLICE_START_PTR(s));
	grpc_slice_unref(s);
	return m;
}

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

static void call_free(struct call *c)
{
	if (c->call)
		grpc_call_unref(c->call);
	grpc_call_details_destroy(&c->det);
	grpc_metadata_array_destroy(&c->md);
	if (c->in)
		grpc_byte_buffer_destroy(c->in);
	if (c->out)
		grpc_byte_buffer_destroy(c->out);
	grpc_slice_unref(c->details);
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
	grpc_call_details_init(&c->det);
	grpc_metadata_array_init(&c->md);
	c->details = grpc_empty_slice();
	c->t_new = (struct tag){T_NEW, c, s};
	c->t_recv = (struct tag){T_RECV, c, s};
	c->t_done = (struct tag){T_DONE, c, s};
	c->t_send = (struct tag){T_SEND, c, s};
	c->t_close = (struct tag){T_CLOSE, c, s};
	return c;
}

/* Ask for the next call on s (the lock is held or s is not yet shared). */
static void request_next(struct srv *s)
{
	if (s->shutting)
		return;
	struct call *c = call_new(s);
	if (!c)
		return;
	if (grpc_server_request_call(s->gs, &c->call, &c->det, &c->md, s->p->cq, s->p->cq, &c->t_new) != GRPC_CALL_OK)
		call_free(c);
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
	grpc_op ops[3];
	memset(ops, 0, sizeof ops);
	size_t n = 0;
	if (reply && code == GRPC_STATUS_OK) {
		c->out = pack(reply);
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n++].data.send_message.send_message = c->out;
	}
	grpc_slice_unref(c->details);
	c->details = grpc_slice_from_copied_string(msg ? msg : "");
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = code;
	ops[n++].data.send_status_from_server.status_details = msg ? &c->details : NULL;
	ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	ops[n++].data.recv_close_on_server.cancelled = &c->cancelled;
	c->pending++;
	if (grpc_call_start_batch(c->call, ops, n, &c->t_done, NULL) != GRPC_CALL_OK) {
		c->pending--;
		call_free(c);
	}
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
	V1beta1__PreferredAllocationRequest *rq = (V1beta1__PreferredAllocationRequest *)unpack(
		&v1beta1__preferred_allocation_request__descriptor, c->in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT, "GetPreferredAllocation: the request is not a PreferredAllocationRequest");
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
		if (p->ops.preferred(p->ops.ud, c->r, (const char *const *)q->available_deviceids, q->n_available_deviceids,
				     (const char *const *)q->must_include_deviceids, q->n_must_include_deviceids,
				     q->allocation_size, &ids, &n, &owners[i], &k, err, sizeof err) != 0) {
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
		say(p, 1, "%s: GetPreferredAllocation refused: %s", p->cfg.resources[c->r], err);
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
	V1beta1__ContainerAllocateResponse__AnnotationsEntry **anp = b->blk[3] = calloc(k->n_annotations + 1, sizeof *anp);
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
	V1beta1__AllocateRequest *rq = (V1beta1__AllocateRequest *)unpack(&v1beta1__allocate_request__descriptor, c->in);
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
		if (p->ops.allocate(p->ops.ud, c->r, (const char *const *)q->devices_ids, q->n_devices_ids, &k, &owners[i],
				    &kc, err, sizeof err) != 0) {
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
		say(p, 1, "%s: Allocate refused: %s", p->cfg.resources[c->r], err);
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
static void push(struct call *c)
{
	if (c->closed)
		return;
	if (c->sending) {
		c->dirty = 1;
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
	if (c->out)
		grpc_byte_buffer_destroy(c->out);
	c->out = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = c->out;
	c->sending = 1;
	c->pending++;
	if (grpc_call_start_batch(c->call, &op, 1, &c->t_send, NULL) != GRPC_CALL_OK) {
		c->sending = 0;
		c->pending--;
	} else {
		say(c->p, 2, "%s: ListAndWatch: sent the device list", c->p->cfg.resources[c->r]);
	}
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
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &c->cancelled;
	pthread_mutex_lock(&p->lock);
	c->pending++;
	if (grpc_call_start_batch(c->call, &op, 1, &c->t_close, NULL) != GRPC_CALL_OK) {
		c->pending--;
		pthread_mutex_unlock(&p->lock);
		call_free(c);
		return;
	}
	c->next = p->streams;
	p->streams = c;
	say(p, 2, "%s: ListAndWatch: the kubelet is watching", p->cfg.resources[c->r]);
	push(c);
	pthread_mutex_unlock(&p->lock);
}

static void on_recv(struct call *c, int ok)
{
	c->pending--;
	if (!ok) {
		call_free(c);
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
		char *m = grpc_slice_to_c_string(c->det.method);
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
		call_free(c);
		return;
	}
	pthread_mutex_lock(&p->lock);
	request_next(c->s);
	pthread_mutex_unlock(&p->lock);
	c->m = method_of(c->det.method);
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_RECV_MESSAGE;
	ops[1].data.recv_message.recv_message = &c->in;
	c->pending++;
	if (grpc_call_start_batch(c->call, ops, 2, &c->t_recv, NULL) != GRPC_CALL_OK) {
		c->pending--;
		call_free(c);
	}
}

static void *serve_loop(void *arg)
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
			c->pending--;
			call_free(c);
			break;
		case T_SEND:
			pthread_mutex_lock(&p->lock);
			c->pending--;
			c->sending = 0;
			if (c->closed) {
				if (!c->pending)
					call_free(c);
			} else if (c->dirty) {
				c->dirty = 0;
				push(c);
			}
			pthread_mutex_unlock(&p->lock);
			break;
		case T_CLOSE:
			pthread_mutex_lock(&p->lock);
			c->pending--;
			c->closed = 1;
			unlink_stream(p, c);
			say(p, 2, "%s: ListAndWatch: the stream closed", p->cfg.resources[c->r]);
			if (!c->pending)
				call_free(c);
			pthread_mutex_unlock(&p->lock);
			break;
		case T_SHUTDOWN: {
			struct srv *s = t->s;
			pthread_mutex_lock(&p->lock);
			p->live_servers--;
			int last = p->stopping && p->live_servers == 0;
			grpc_server_destroy(s->gs);
			s->gs = NULL;
			pthread_mutex_unlock(&p->lock);
			if (last)
				grpc_completion_queue_shutdown(p->cq);
			break;
		}
		}
	}
	return NULL;
}

/* ---- servers -------------------------------------------------------------------- */

/* Is something listening on path? 1 yes, 0 a stale socket (or none), -1 not a socket. */
static int socket_alive(const char *path)
{
	struct stat st;
	if (lstat(path, &st) != 0)
		return 0;
	if (!S_ISSOCK(st.st_mode))
		return -1;
	int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0)
		return 0;
	struct sockaddr_un a = {.sun_family = AF_UNIX};
	snprintf(a.sun_path, sizeof a.sun_path, "%s", path);
	int r = connect(fd, (struct sockaddr *)&a, sizeof a) == 0;
	close(fd);
	return r;
}

/* A server for resource r on its socket (lock held or not yet shared). */
static struct srv *srv_start(struct plugin *p, size_t r, char *err, size_t cap)
{
	const char *path = p->paths[r];
	struct sockaddr_un sa;
	if (strlen(path) >= sizeof sa.sun_path) {
		snprintf(err, cap, "%s: a unix socket's path is at most %zu bytes, this one has %zu (a shorter --kubelet-dir)",
			 path, sizeof sa.sun_path - 1, strlen(path));
		return NULL;
	}
	int alive = socket_alive(path);
	if (alive == 1) {
		snprintf(err, cap, "%s is in use by another process (another device plugin for %s?)", path,
			 p->cfg.resources[r]);
		return NULL;
	}
	if (alive < 0) {
		snprintf(err, cap, "%s exists and is not a socket; not removing it", path);
		return NULL;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		say(p, 1, "removing the stale socket %s of an earlier run", path);
		if (unlink(path) != 0) {
			snprintf(err, cap, "cannot remove the stale socket %s: %s", path, strerror(errno));
			return NULL;
		}
	}
	struct srv *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	s->p = p;
	s->r = r;
	s->t_shutdown = (struct tag){T_SHUTDOWN, NULL, s};
	s->gs = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(s->gs, p->cq, NULL);
	char addr[4200];
	snprintf(addr, sizeof addr, "unix:%s", path);
	grpc_server_credentials *cr = grpc_insecure_server_credentials_create();
	int port = grpc_server_add_http2_port(s->gs, addr, cr);
	grpc_server_credentials_release(cr);
	if (port == 0 || lstat(path, &st) != 0) {
		int e = access(p->cfg.dir, W_OK) != 0 ? errno : 0;
		snprintf(err, cap, "cannot listen on %s%s%s", path, e ? ": " : "", e ? strerror(e) : "");
		grpc_server_destroy(s->gs);
		free(s);
		return NULL;
	}
	p->inos[r] = st.st_ino;
	grpc_server_start(s->gs);
	s->next_all = p->all;
	p->all = s;
	p->live_servers++;
	request_next(s);
	return s;
}

/* Shut s down; the serve loop frees it when gRPC says it is done (lock held). */
static void srv_retire(struct plugin *p, struct srv *s)
{
	s->shutting = 1;
	grpc_server_shutdown_and_notify(s->gs, p->cq, &s->t_shutdown);
	grpc_server_cancel_all_calls(s->gs);
}

/* ---- registration --------------------------------------------------------------- */

/* Register resource r with the kubelet: 0, or -1 with the reason in err. */
static int register_one(struct plugin *p, size_t r, char *err, size_t cap)
{
	char target[4200];
	snprintf(target, sizeof target, "unix:%s", p->kubelet);
	grpc_channel_credentials *cr = grpc_insecure_credentials_create();
	grpc_channel *ch = grpc_channel_create(target, cr, NULL);
	grpc_channel_credentials_release(cr);
	grpc_completion_queue *q = grpc_completion_queue_create_for_pluck(NULL);
	gpr_timespec dl = gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
				       gpr_time_from_millis((int64_t)(p->cfg.register_timeout_s * 1000), GPR_TIMESPAN));
	grpc_slice method = grpc_slice_from_static_string("/v1beta1.Registration/Register");
	grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, q, method, NULL, dl, NULL);

	V1beta1__DevicePluginOptions o = V1BETA1__DEVICE_PLUGIN_OPTIONS__INIT;
	o.get_preferred_allocation_available = p->cfg.preferred != 0;
	V1beta1__RegisterRequest rq = V1BETA1__REGISTER_REQUEST__INIT;
	rq.version = API_VERSION;
	rq.endpoint = (char *)p->cfg.sockets[r];
	rq.resource_name = (char *)p->cfg.resources[r];
	rq.options = &o;
	grpc_byte_buffer *out = pack(&rq.base), *in = NULL;
	grpc_metadata_array imd, tmd;
	grpc_metadata_array_init(&imd);
	grpc_metadata_array_init(&tmd);
	grpc_status_code status = GRPC_STATUS_UNKNOWN;
	grpc_slice details = grpc_empty_slice();
	grpc_op ops[6];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = out;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &imd;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &in;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &tmd;
	ops[5].data.recv_status_on_client.status = &status;
	ops[5].data.recv_status_on_client.status_details = &details;
	int rc = -1;
	static char tag;
	if (grpc_call_start_batch(call, ops, 6, &tag, NULL) == GRPC_CALL_OK) {
		/* wait in slices, so that a stop cancels the call rather than waiting it out */
		grpc_event ev;
		int cancelled = 0;
		for (;;) {
			ev = grpc_completion_queue_pluck(
				q, &tag, gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(100, GPR_TIMESPAN)),
				NULL);
			if (ev.type != GRPC_QUEUE_TIMEOUT)
				break;
			pthread_mutex_lock(&p->lock);
			int stopping = p->stopping;
			pthread_mutex_unlock(&p->lock);
			if (stopping && !cancelled) {
				grpc_call_cancel(call, NULL);
				cancelled = 1;
			}
		}
		if (ev.type == GRPC_OP_COMPLETE && status == GRPC_STATUS_OK) {
			rc = 0;
		} else {
			char *d = grpc_slice_to_c_string(details);
			if (status == GRPC_STATUS_DEADLINE_EXCEEDED)
				snprintf(err, cap, "the kubelet at %s did not answer Register within %.0f s", p->kubelet,
					 p->cfg.register_timeout_s);
			else
				snprintf(err, cap, "the kubelet at %s refused Register (status %d: %s)", p->kubelet, (int)status,
					 d && *d ? d : "no details");
			gpr_free(d);
		}
	} else {
		snprintf(err, cap, "cannot call the kubelet at %s", p->kubelet);
	}
	grpc_call_unref(call);
	grpc_byte_buffer_destroy(out);
	if (in)
		grpc_byte_buffer_destroy(in);
	grpc_metadata_array_destroy(&imd);
	grpc_metadata_array_destroy(&tmd);
	grpc_slice_unref(details);
	grpc_completion_queue_shutdown(q);
	while (grpc_completion_queue_pluck(q, NULL, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(q);
	grpc_channel_destroy(ch);
	return rc;
}

/* Make sure every resource's socket is still ours (a starting kubelet removes every
 * socket in its directory), then register every resource. 0 when all registered. */
static int register_all(struct plugin *p)
{
	struct stat st;
	if (lstat(p->kubelet, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		say(p, 1, "waiting for the kubelet: %s does not exist yet", p->kubelet);
		return -1;
	}
	int failed = 0;
	for (size_t r = 0; r < p->cfg.n; r++) {
		char err[512] = "";
		pthread_mutex_lock(&p->lock);
		struct srv *s = p->srv[r];
		if (!p->stopping && (!s || lstat(p->paths[r], &st) != 0 || st.st_ino != p->inos[r])) {
			say(p, 1, "%s: the kubelet removed %s: listening again", p->cfg.resources[r], p->paths[r]);
			if (s)
				srv_retire(p, s);
			p->srv[r] = srv_start(p, r, err, sizeof err);
			if (!p->srv[r]) {
				say(p, 0, "%s: %s", p->cfg.resources[r], err);
				failed = 1;
				pthread_mutex_unlock(&p->lock);
				continue;
			}
		}
		int stopping = p->stopping;
		pthread_mutex_unlock(&p->lock);
		if (stopping)
			return -1;
		if (register_one(p, r, err, sizeof err) == 0) {
			p->registered[r] = 1;
			say(p, 1, "%s: registered with the kubelet (endpoint %s)", p->cfg.resources[r], p->cfg.sockets[r]);
		} else {
			p->registered[r] = 0;
			say(p, 0, "%s: %s", p->cfg.resources[r], err);
			failed = 1;
		}
	}
	return failed ? -1 : 0;
}

/* Is the event the kubelet's socket appearing? */
static int kubelet_event(struct plugin *p)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int hit = 0;
	for (;;) {
		ssize_t n = read(p->ino, buf, sizeof buf);
		if (n <= 0)
			return hit;
		for (char *q = buf; q < buf + n;) {
			const struct inotify_event *e = (const struct inotify_event *)q;
			q += sizeof *e + e->len;
			if ((e->mask & IN_Q_OVERFLOW) || (e->len && strcmp(e->name, KUBELET_SOCKET) == 0))
				hit = 1;
		}
	}
}

static void *reg_loop(void *arg)
{
	struct plugin *p = arg;
	int retry = RETRY_MIN_S;
	int ok = register_all(p) == 0;
	for (;;) {
		struct pollfd pf[2] = {{p->evfd, POLLIN, 0}, {p->ino, POLLIN, 0}};
		/* after a failure, try again later; the kubelet's socket appearing wakes us sooner */
		int r = poll(pf, p->ino >= 0 ? 2 : 1, ok ? -1 : retry * 1000);
		if (r < 0 && errno != EINTR)
			break;
		if (pf[0].revents & POLLIN)
			break;
		int kubelet_new = r > 0 && p->ino >= 0 && (pf[1].revents & POLLIN) && kubelet_event(p);
		if (r > 0 && !kubelet_new)
			continue;
		if (kubelet_new) {
			say(p, 1, "the kubelet's socket %s was created: registering again", p->kubelet);
			retry = RETRY_MIN_S;
		} else {
			say(p, 1, "retrying registration (every %d s until it succeeds)", retry);
			retry = retry * 2 > RETRY_MAX_S ? RETRY_MAX_S : retry * 2;
		}
		ok = register_all(p) == 0;
		if (ok)
			retry = RETRY_MIN_S;
	}
	return NULL;
}

/* ---- the module's entry points ------------------------------------------------------ */

/* gRPC's own errors, with -v only (its log has no user data: one process, one plugin) */
static int grpc_verbose;
static void grpc_logger(gpr_log_func_args *a)
{
	if (a->severity == GPR_LOG_SEVERITY_ERROR && grpc_verbose)
		fprintf(stderr, "axl: device-plugin: grpc: %s\n", a->message);
}

static void plugin_free(struct plugin *p)
{
	for (size_t r = 0; p->paths && r < p->cfg.n; r++)
		free(p->paths[r]);
	free(p->paths);
	free(p->srv);
	free(p->inos);
	while (p->all) {
		struct srv *s = p->all;
		p->all = s->next_all;
		free(s);
	}
	free(p->registered);
	if (p->evfd >= 0)
		close(p->evfd);
	if (p->ino >= 0)
		close(p->ino);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

static void k8s_stop(void *server);

static int k8s_start(const struct k8s_config *cfg, const struct k8s_ops *ops, void **server, char *err, size_t cap)
{
	*server = NULL;
	struct plugin *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	p->cfg = *cfg;
	p->ops = *ops;
	p->evfd = p->ino = -1;
	pthread_mutex_init(&p->lock, NULL);
	p->paths = calloc(cfg->n, sizeof *p->paths);
	p->srv = calloc(cfg->n, sizeof *p->srv);
	p->registered = calloc(cfg->n, sizeof *p->registered);
	p->inos = calloc(cfg->n, sizeof *p->inos);
	if (!p->paths || !p->srv || !p->registered || !p->inos) {
		snprintf(err, cap, "out of memory");
		plugin_free(p);
		return -1;
	}
	snprintf(p->kubelet, sizeof p->kubelet, "%s/%s", cfg->dir, KUBELET_SOCKET);
	for (size_t r = 0; r < cfg->n; r++)
		if (asprintf(&p->paths[r], "%s/%s", cfg->dir, cfg->sockets[r]) < 0) {
			p->paths[r] = NULL;
			snprintf(err, cap, "out of memory");
			plugin_free(p);
			return -1;
		}
	struct stat st;
	if (stat(cfg->dir, &st) != 0 || !S_ISDIR(st.st_mode)) {
		snprintf(err, cap, "the kubelet's device plugin directory %s %s", cfg->dir,
			 errno == ENOENT || !S_ISDIR(st.st_mode) ? "does not exist" : strerror(errno));
		plugin_free(p);
		return -1;
	}
	if (access(cfg->dir, W_OK | X_OK) != 0) {
		snprintf(err, cap, "cannot create sockets in %s: %s", cfg->dir, strerror(errno));
		plugin_free(p);
		return -1;
	}
	p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (p->ino >= 0 && inotify_add_watch(p->ino, cfg->dir, IN_CREATE | IN_MOVED_TO) < 0) {
		say(p, 1, "cannot watch %s (%s): registering again only every %d s after a failure", cfg->dir,
		    strerror(errno), RETRY_MAX_S);
		close(p->ino);
		p->ino = -1;
	}
	if (p->evfd < 0) {
		snprintf(err, cap, "eventfd: %s", strerror(errno));
		plugin_free(p);
		return -1;
	}
	grpc_verbose = cfg->verbose;
	gpr_set_log_function(grpc_logger);
	grpc_init();
	p->cq = grpc_completion_queue_create_for_next(NULL);
	for (size_t r = 0; r < cfg->n; r++) {
		p->srv[r] = srv_start(p, r, err, cap);
		if (!p->srv[r]) {
			for (size_t k = 0; k < r; k++) {
				grpc_server_shutdown_and_notify(p->srv[k]->gs, p->cq, &p->srv[k]->t_shutdown);
				grpc_server_cancel_all_calls(p->srv[k]->gs);
			}
			/* drain: the servers' notifications and their pending calls */
			size_t left = r;
			while (left) {
				grpc_event ev = grpc_completion_queue_next(p->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
				struct tag *t = ev.tag;
				if (ev.type != GRPC_OP_COMPLETE)
					break;
				if (t->kind == T_SHUTDOWN) {
					grpc_server_destroy(t->s->gs);
					t->s->gs = NULL;
					unlink(p->paths[t->s->r]);
					left--;
				} else if (t->kind == T_NEW) {
					call_free(t->c);
				}
			}
			grpc_completion_queue_shutdown(p->cq);
			while (grpc_completion_queue_next(p->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
			       GRPC_QUEUE_SHUTDOWN)
				;
			grpc_completion_queue_destroy(p->cq);
			grpc_shutdown();
			plugin_free(p);
			return -1;
		}
	}
	if (pthread_create(&p->serve_thread, NULL, serve_loop, p) != 0) {
		snprintf(err, cap, "cannot start a thread");
		p->stopping = 1; /* never reached by the serve loop: leak the servers rather than hang */
		return -1;
	}
	if (pthread_create(&p->reg_thread, NULL, reg_loop, p) == 0)
		p->reg_started = 1;
	else
		say(p, 0, "cannot start the registration thread: not registering");
	*server = p;
	return 0;
}

static void k8s_changed(void *server)
{
	struct plugin *p = server;
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	for (struct call *c = p->streams; c; c = c->next)
		push(c);
	pthread_mutex_unlock(&p->lock);
}

static void k8s_stop(void *server)
{
	struct plugin *p = server;
	if (!p)
		return;
	uint64_t one = 1;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_mutex_unlock(&p->lock);
	if (p->reg_started) {
		if (write(p->evfd, &one, sizeof one) != (ssize_t)sizeof one)
			say(p, 0, "cannot wake the registration thread");
		pthread_join(p->reg_thread, NULL);
	}
	pthread_mutex_lock(&p->lock);
	for (size_t r = 0; r < p->cfg.n; r++)
		if (p->srv[r] && !p->srv[r]->shutting)
			srv_retire(p, p->srv[r]);
	if (p->live_servers == 0) /* nothing left to notify the serve loop */
		grpc_completion_queue_shutdown(p->cq);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->serve_thread, NULL);
	grpc_completion_queue_destroy(p->cq);
	for (size_t r = 0; r < p->cfg.n; r++) {
		struct stat st;
		/* ours only: a new kubelet may have removed it, another plugin may own the name now */
		if (lstat(p->paths[r], &st) == 0 && st.st_ino == p->inos[r])
			unlink(p->paths[r]);
	}
	grpc_shutdown();
	plugin_free(p);
}

static const struct k8s_transport transport = {
	.abi = K8S_TRANSPORT_ABI,
	.start = k8s_start,
	.changed = k8s_changed,
	.stop = k8s_stop,
};

__attribute__((visibility("default"))) const struct k8s_transport *axl_kubernetes_transport(void);
__attribute__((visibility("default"))) const struct k8s_transport *axl_kubernetes_transport(void)
{
	return &transport;
}
