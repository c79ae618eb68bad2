/* SPDX-License-Identifier: MIT */
/*
 * The DRA plugin's two servers and the kubelet's calls on them (kubelet_glue.h), as the
 * completion queue they share sees them (the device plugin's serve.c, unary calls only):
 *   request_call -> DK_T_NEW -> {send initial metadata, receive the request} -> DK_T_RECV
 *   -> {send reply, send status, receive close} -> DK_T_DONE -> freed;
 * a health stream (NodeWatchResources) goes on in kubelet_watch.c after DK_T_RECV.
 *
 * What the kubelet sends and expects, from kubernetes/kubernetes and k8s.io/kubelet:
 *  - pkg/kubelet/pluginmanager/operationexecutor/operation_generator.go: the plugin
 *    watcher calls GetInfo on a socket that appears in the registry directory, hands
 *    type, name, endpoint and supported_versions to the handler of that type (DRA:
 *    pkg/kubelet/cm/dra/plugin/registration.go, ValidatePlugin/RegisterPlugin, which
 *    refuses an empty supported_versions and picks the newest DRA service it knows from
 *    it), then calls NotifyRegistrationStatus with the outcome;
 *  - k8s.io/dynamic-resource-allocation kubeletplugin/draplugin.go (29367deb): GetInfo
 *    names the DRA socket as endpoint and the services "v1.DRAPlugin",
 *    "v1beta1.DRAPlugin"; NodePrepareResources answers a map claim UID -> {devices
 *    {request_names, pool_name, device_name, cdi_device_ids}, error} with an entry for
 *    every claim of the request, NodeUnprepareResources one {error} per claim UID.
 * The v1 and v1beta1 messages are the same but for Device.share_id (field 5, v1 only: set
 * for a device shared under --shares, which a v1beta1 kubelet skips as an unknown field),
 * so one set of messages serves both services (dra.proto).
 */
#define _GNU_SOURCE
#include "kubelet_glue.h"

/* ---- calls ---------------------------------------------------------------------- */

void dk_call_free(struct dk_call *c)
{
	kl_call_destroy(&c->k);
	free(c);
}

static void request_next(struct dk_srv *s)
{
	if (s->shutting)
		return;
	struct dk_call *c = calloc(1, sizeof *c);
	if (!c)
		return;
	c->p = s->p;
	c->s = s;
	kl_call_init(&c->k);
	c->t_new = (struct dk_tag){ DK_T_NEW, c, s };
	c->t_recv = (struct dk_tag){ DK_T_RECV, c, s };
	c->t_done = (struct dk_tag){ DK_T_DONE, c, s };
	if (kl_call_request(&c->k, s->gs, s->p->cq, &c->t_new) != GRPC_CALL_OK)
		dk_call_free(c);
}

/* Which method, on which socket: the registration service is served on the registration
 * socket only, the DRA services on the DRA socket only. */
static enum dk_method method_of(const struct dk_srv *s, const grpc_slice m)
{
	if (s->which == DK_REG) {
		if (grpc_slice_str_cmp(m, DK_GRPC_REG "GetInfo") == 0)
			return DK_M_GETINFO;
		if (grpc_slice_str_cmp(m, DK_GRPC_REG "NotifyRegistrationStatus") == 0)
			return DK_M_NOTIFY;
		return DK_M_UNKNOWN;
	}
	static const char *const pre[] = { DK_GRPC_V1, DK_GRPC_V1BETA1 };
	for (size_t i = 0; i < 2; i++) {
		char name[128];
		snprintf(name, sizeof name, "%sNodePrepareResources", pre[i]);
		if (grpc_slice_str_cmp(m, name) == 0)
			return DK_M_PREPARE;
		snprintf(name, sizeof name, "%sNodeUnprepareResources", pre[i]);
		if (grpc_slice_str_cmp(m, name) == 0)
			return DK_M_UNPREPARE;
	}
	return dk_watch_method(m);
}

/* Finish a unary call: the reply (may be NULL) and the status. */
static void finish(struct dk_call *c, ProtobufCMessage *reply, grpc_status_code code, const char *msg)
{
	if (kl_call_finish(&c->k, reply, code, msg, &c->t_done) != GRPC_CALL_OK)
		dk_call_free(c);
}

static void do_getinfo(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	Pluginregistration__InfoRequest *rq =
	    (Pluginregistration__InfoRequest *)kl_unpack(&pluginregistration__info_request__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT, "GetInfo: the request is not an InfoRequest");
		return;
	}
	protobuf_c_message_free_unpacked(&rq->base, NULL);
	/* the DRA services newest first, then the health services (the kubelet picks the DRA
	 * service it knows and passes over the rest: registration.go) */
	static char *versions[] = { DK_SERVICE_V1, DK_SERVICE_V1BETA1, DK_HEALTH_V1ALPHA1, DK_HEALTH_V1 };
	Pluginregistration__PluginInfo o = PLUGINREGISTRATION__PLUGIN_INFO__INIT;
	o.type = "DRAPlugin"; /* k8s.io/kubelet pkg/apis/pluginregistration/v1/constants.go DRAPlugin */
	o.name = (char *)p->cfg.driver;
	o.endpoint = p->paths[DK_DRA];
	o.n_supported_versions = sizeof versions / sizeof *versions;
	o.supported_versions = versions;
	pthread_mutex_lock(&p->lock);
	p->n_getinfo++;
	pthread_mutex_unlock(&p->lock);
	dk_say(p, 2, "GetInfo: the kubelet asked who we are");
	finish(c, &o.base, GRPC_STATUS_OK, NULL);
}

static void do_notify(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	Pluginregistration__RegistrationStatus *rq = (Pluginregistration__RegistrationStatus *)kl_unpack(
	    &pluginregistration__registration_status__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT,
		       "NotifyRegistrationStatus: the request is not a RegistrationStatus");
		return;
	}
	pthread_mutex_lock(&p->lock);
	p->n_notify++;
	p->registered = rq->plugin_registered != 0;
	pthread_mutex_unlock(&p->lock);
	if (rq->plugin_registered)
		dk_say(p, 1, "registered with the kubelet as %s (endpoint %s)", p->cfg.driver, p->paths[DK_DRA]);
	else
		dk_say(p, 0, "the kubelet refused the registration: %s",
		       rq->error && *rq->error ? rq->error : "no reason given");
	protobuf_c_message_free_unpacked(&rq->base, NULL);
	Pluginregistration__RegistrationStatusResponse o = PLUGINREGISTRATION__REGISTRATION_STATUS_RESPONSE__INIT;
	finish(c, &o.base, GRPC_STATUS_OK, NULL);
}

/* The claims of a request as the callbacks take them. */
static struct dra_claim_ref *claim_refs(DkClaim **claims, size_t n)
{
	struct dra_claim_ref *r = calloc(n ? n : 1, sizeof *r);
	for (size_t i = 0; r && i < n; i++) {
		r[i].ns = claims[i]->namespace_;
		r[i].uid = claims[i]->uid;
		r[i].name = claims[i]->name;
	}
	return r;
}

/* The claims of a NodePrepareResources or NodeUnprepareResources request (what) handed to
 * fn (ops.prepare, ops.unprepare), counted: 0 with *refs, *out and *owner for the answer;
 * -1 when the call was finished here (out of memory, or fn failed: said). */
static int claims_call(struct dk_call *c, unsigned long *count, DkClaim **claims, size_t n,
		       int (*fn)(void *ud, const struct dra_claim_ref *claims, size_t n, struct dra_claim_out **out,
				 void **owner, char *err, size_t cap),
		       const char *what, struct dra_claim_ref **refs, struct dra_claim_out **out, void **owner)
{
	struct dk_plugin *p = c->p;
	pthread_mutex_lock(&p->lock);
	(*count)++;
	pthread_mutex_unlock(&p->lock);
	*refs = claim_refs(claims, n);
	*out = NULL;
	*owner = NULL;
	char err[512] = "";
	if (!*refs) {
		finish(c, NULL, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
		return -1;
	}
	if (n && fn(p->ops.ud, *refs, n, out, owner, err, sizeof err) != 0) {
		dk_say(p, 0, "%s failed: %s", what, err);
		finish(c, NULL, GRPC_STATUS_INTERNAL, err);
		free(*refs);
		return -1;
	}
	return 0;
}

static void do_prepare(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	DkPrepareReq *rq = (DkPrepareReq *)kl_unpack(
	    &k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resources_request__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT,
		       "NodePrepareResources: the request is not a NodePrepareResourcesRequest");
		return;
	}
	size_t n = rq->n_claims;
	struct dra_claim_ref *refs;
	struct dra_claim_out *out;
	void *owner;
	if (claims_call(c, &p->n_prepare, rq->claims, n, p->ops.prepare, "NodePrepareResources", &refs, &out, &owner)) {
		protobuf_c_message_free_unpacked(&rq->base, NULL);
		return;
	}
	size_t nd = 0;
	for (size_t i = 0; i < n; i++)
		nd += out[i].n_devs;
	DkPrepareResp rs = K8S__IO__KUBELET__PKG__APIS__DRA__V1__NODE_PREPARE_RESOURCES_RESPONSE__INIT;
	DkPrepareEntry *ent = calloc(n ? n : 1, sizeof *ent);
	DkPrepareEntry **entp = calloc(n ? n : 1, sizeof *entp);
	DkPrepareOne *one = calloc(n ? n : 1, sizeof *one);
	DkDevice *dv = calloc(nd ? nd : 1, sizeof *dv);
	DkDevice **dvp = calloc(nd ? nd : 1, sizeof *dvp);
	if (!ent || !entp || !one || !dv || !dvp) {
		finish(c, NULL, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
	} else {
		size_t k = 0;
		for (size_t i = 0; i < n; i++) {
			k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resources_response__claims_entry__init(
			    &ent[i]);
			k8s__io__kubelet__pkg__apis__dra__v1__node_prepare_resource_response__init(&one[i]);
			ent[i].key = (char *)out[i].uid;
			ent[i].value = &one[i];
			if (out[i].error) {
				one[i].error = (char *)out[i].error;
			} else {
				one[i].devices = &dvp[k];
				one[i].n_devices = out[i].n_devs;
				for (size_t d = 0; d < out[i].n_devs; d++, k++) {
					const struct dra_device_out *o = &out[i].devs[d];
					k8s__io__kubelet__pkg__apis__dra__v1__device__init(&dv[k]);
					dv[k].request_names = (char **)o->requests;
					dv[k].n_request_names = o->n_requests;
					dv[k].pool_name = (char *)o->pool;
					dv[k].device_name = (char *)o->device;
					dv[k].cdi_device_ids = (char **)o->cdi;
					dv[k].n_cdi_device_ids = o->n_cdi;
					if (o->share_id)
						dv[k].share_id = (char *)o->share_id;
					dvp[k] = &dv[k];
				}
			}
			entp[i] = &ent[i];
		}
		rs.n_claims = n;
		rs.claims = entp;
		finish(c, &rs.base, GRPC_STATUS_OK, NULL);
	}
	free(ent);
	free(entp);
	free(one);
	free(dv);
	free(dvp);
	if (owner)
		p->ops.release(p->ops.ud, owner);
	free(refs);
	protobuf_c_message_free_unpacked(&rq->base, NULL);
}

static void do_unprepare(struct dk_call *c)
{
	struct dk_plugin *p = c->p;
	DkUnprepareReq *rq = (DkUnprepareReq *)kl_unpack(
	    &k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resources_request__descriptor, c->k.in);
	if (!rq) {
		finish(c, NULL, GRPC_STATUS_INVALID_ARGUMENT,
		       "NodeUnprepareResources: the request is not a NodeUnprepareResourcesRequest");
		return;
	}
	size_t n = rq->n_claims;
	struct dra_claim_ref *refs;
	struct dra_claim_out *out;
	void *owner;
	if (claims_call(c, &p->n_unprepare, rq->claims, n, p->ops.unprepare, "NodeUnprepareResources", &refs, &out,
			&owner)) {
		protobuf_c_message_free_unpacked(&rq->base, NULL);
		return;
	}
	DkUnprepareResp rs = K8S__IO__KUBELET__PKG__APIS__DRA__V1__NODE_UNPREPARE_RESOURCES_RESPONSE__INIT;
	DkUnprepareEntry *ent = calloc(n ? n : 1, sizeof *ent);
	DkUnprepareEntry **entp = calloc(n ? n : 1, sizeof *entp);
	DkUnprepareOne *one = calloc(n ? n : 1, sizeof *one);
	if (!ent || !entp || !one) {
		finish(c, NULL, GRPC_STATUS_RESOURCE_EXHAUSTED, "out of memory");
	} else {
		for (size_t i = 0; i < n; i++) {
			k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resources_response__claims_entry__init(
			    &ent[i]);
			k8s__io__kubelet__pkg__apis__dra__v1__node_unprepare_resource_response__init(&one[i]);
			ent[i].key = (char *)out[i].uid;
			ent[i].value = &one[i];
			if (out[i].error)
				one[i].error = (char *)out[i].error;
			entp[i] = &ent[i];
		}
		rs.n_claims = n;
		rs.claims = entp;
		finish(c, &rs.base, GRPC_STATUS_OK, NULL);
	}
	free(ent);
	free(entp);
	free(one);
	if (owner)
		p->ops.release(p->ops.ud, owner);
	free(refs);
	protobuf_c_message_free_unpacked(&rq->base, NULL);
}

static void on_recv(struct dk_call *c, int ok)
{
	c->k.pending--;
	if (!ok) {
		dk_call_free(c);
		return;
	}
	switch (c->m) {
	case DK_M_GETINFO: do_getinfo(c); break;
	case DK_M_NOTIFY: do_notify(c); break;
	case DK_M_PREPARE: do_prepare(c); break;
	case DK_M_UNPREPARE: do_unprepare(c); break;
	case DK_M_WATCH:
		if (dk_watch_start(c) != 0)
			dk_call_free(c);
		break;
	default: {
		char msg[300];
		char *m = grpc_slice_to_c_string(c->k.det.method);
		snprintf(msg, sizeof msg, "axl's DRA plugin does not implement %s on this socket",
			 m ? m : "this method");
		gpr_free(m);
		finish(c, NULL, GRPC_STATUS_UNIMPLEMENTED, msg);
	}
	}
}

static void on_new(struct dk_call *c, int ok)
{
	struct dk_plugin *p = c->p;
	if (!ok) { /* the server is shutting down */
		dk_call_free(c);
		return;
	}
	pthread_mutex_lock(&p->lock);
	request_next(c->s);
	pthread_mutex_unlock(&p->lock);
	c->m = method_of(c->s, c->k.det.method);
	if (kl_call_begin(&c->k, &c->t_recv) != GRPC_CALL_OK)
		dk_call_free(c);
}

void *dk_serve_loop(void *arg)
{
	struct dk_plugin *p = arg;
	for (;;) {
		/* asleep until a call's event, or the health streams' resend */
		grpc_event ev = grpc_completion_queue_next(p->cq, dk_watch_deadline(p), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type == GRPC_QUEUE_TIMEOUT)
			dk_watch_due(p);
		if (ev.type != GRPC_OP_COMPLETE)
			continue;
		struct dk_tag *t = ev.tag;
		switch (t->kind) {
		case DK_T_NEW: on_new(t->c, ev.success); break;
		case DK_T_RECV: on_recv(t->c, ev.success); break;
		case DK_T_DONE: dk_call_free(t->c); break;
		case DK_T_SHUTDOWN: kl_server_gone(&p->lock, &t->s->gs, &p->live_servers, &p->stopping, p->cq); break;
		case DK_T_SEND:
		case DK_T_CLOSE:
			if (dk_watch_event(p, t))
				dk_call_free(t->c);
			break;
		}
	}
	return NULL;
}

/* ---- servers -------------------------------------------------------------------- */

struct dk_srv *dk_srv_start(struct dk_plugin *p, int which, char *err, size_t cap)
{
	char in_use[512];
	snprintf(in_use, sizeof in_use, " (another instance of the driver %s?)", p->cfg.driver);
	const struct kl_hints h = { "", in_use };
	struct dk_srv *s = calloc(1, sizeof *s);
	if (!s) {
		snprintf(err, cap, "out of memory");
		return NULL;
	}
	s->gs = kl_listen(p->cq, p->paths[which], p->dirs[which], &h, p->ops.say, p->ops.ud, p->cfg.verbose,
			  &p->inos[which], err, cap);
	if (!s->gs) {
		free(s);
		return NULL;
	}
	s->p = p;
	s->which = which;
	s->t_shutdown = (struct dk_tag){ DK_T_SHUTDOWN, NULL, s };
	s->next_all = p->all;
	p->all = s;
	p->live_servers++;
	request_next(s);
	return s;
}

void dk_srv_retire(struct dk_plugin *p, struct dk_srv *s)
{
	s->shutting = 1;
	grpc_server_shutdown_and_notify(s->gs, p->cq, &s->t_shutdown);
	grpc_server_cancel_all_calls(s->gs);
}
