/* SPDX-License-Identifier: MIT */
/*
 * The DRA plugin's liveness probe (--healthcheck-port): a gRPC health service
 * (grpc.health.v1.Health, health.proto) on a TCP port, written from
 * kubernetes-sigs/dra-example-driver cmd/dra-example-kubeletplugin/health.go (commit
 * 31914ceacda29bbc55208ef75e68c0991e1c9568), whose DaemonSet probes it with a grpc
 * livenessProbe (service "liveness"):
 *  - Check for the service "" or "liveness" (any other: NOT_FOUND "unknown service")
 *    calls GetInfo on the registration socket, then NodePrepareResources with an empty
 *    request on the DRA socket, each through the socket as the kubelet dials it; both
 *    answering is SERVING, a failure NOT_SERVING (and a line in the log);
 *  - Watch is not served (UNIMPLEMENTED, as the reference's UnimplementedHealthServer).
 * Port 0 takes a port the kernel chooses (logged); the option's default -1 serves none.
 *
 * Its own completion queue and thread, one call at a time: a Check's calls to our two
 * sockets are answered by the serve thread (kubelet_serve.c) meanwhile. Each Check dials
 * anew, so that a socket made again is seen at once (a kept channel would be in gRPC's
 * reconnect backoff after the socket was gone), within the probe's deadline, at most
 * DK_HEALTH_MAX_MS.
 */
#define _GNU_SOURCE
#include "kubelet_glue.h"

#include "health.pb-c.h"

#define DK_HEALTH_CHECK  "/grpc.health.v1.Health/Check"
#define DK_HEALTH_MAX_MS 10000

/* the tags on the health queue: one call at a time, so one of each */
enum { HT_NEW = 1, HT_RECV, HT_DONE, HT_SHUTDOWN };
#define HTAG(k) ((void *)(uintptr_t)(k))

struct dk_health {
	struct dk_plugin *p;
	grpc_server *gs;
	grpc_completion_queue *cq;
	pthread_t th;
	int port;
	grpc_call *out; /* the Check's call to our socket now (the lock held), cancelled by stop */
	int stopping;
	struct kl_call k; /* the call being served (grpc_glue.h) */
};

/* One unary call to target (unix:PATH), req packed; 0 when it answered OK with a message. */
static int call_unary(struct dk_health *h, const char *target, const char *method, const ProtobufCMessage *req,
		      gpr_timespec deadline, char *err, size_t cap)
{
	grpc_channel_credentials *cr = grpc_insecure_credentials_create();
	grpc_channel *ch = grpc_channel_create(target, cr, NULL);
	grpc_channel_credentials_release(cr);
	grpc_completion_queue *cq = grpc_completion_queue_create_for_pluck(NULL);
	grpc_call *call = grpc_channel_create_call(ch, NULL, GRPC_PROPAGATE_DEFAULTS, cq,
						   grpc_slice_from_static_string(method), NULL, deadline, NULL);
	struct kl_unary u;
	kl_unary_init(&u, req);
	int rc = -1;
	pthread_mutex_lock(&h->p->lock);
	int stopping = h->stopping;
	if (!stopping)
		h->out = call;
	pthread_mutex_unlock(&h->p->lock);
	if (stopping) {
		snprintf(err, cap, "the plugin is stopping");
	} else if (kl_unary_start(&u, call, HTAG(1)) != GRPC_CALL_OK) {
		snprintf(err, cap, "%s: the call could not be started", method);
	} else {
		grpc_completion_queue_pluck(cq, HTAG(1), gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		if (u.status == GRPC_STATUS_OK && u.recv) {
			rc = 0;
		} else {
			char *d = grpc_slice_to_c_string(u.details);
			snprintf(err, cap, "%s on %s: status %d%s%s", method, target, (int)u.status,
				 d && *d ? ": " : "", d ? d : "");
			gpr_free(d);
		}
	}
	pthread_mutex_lock(&h->p->lock);
	h->out = NULL;
	pthread_mutex_unlock(&h->p->lock);
	kl_unary_free(&u);
	grpc_call_unref(call);
	kl_pluck_queue_close(cq);
	grpc_channel_destroy(ch);
	return rc;
}

/* health.go Check: the two sockets answer? 0 SERVING, -1 NOT_SERVING. */
static int check(struct dk_health *h, gpr_timespec deadline)
{
	struct dk_plugin *p = h->p;
	char target[4200], err[600];
	Pluginregistration__InfoRequest info = PLUGINREGISTRATION__INFO_REQUEST__INIT;
	snprintf(target, sizeof target, "unix:%s", p->paths[DK_REG]);
	if (call_unary(h, target, DK_GRPC_REG "GetInfo", &info.base, deadline, err, sizeof err) != 0) {
		dk_say(p, 0, "liveness: GetInfo failed: %s", err);
		return -1;
	}
	DkPrepareReq empty = K8S__IO__KUBELET__PKG__APIS__DRA__V1__NODE_PREPARE_RESOURCES_REQUEST__INIT;
	snprintf(target, sizeof target, "unix:%s", p->paths[DK_DRA]);
	if (call_unary(h, target, DK_GRPC_V1 "NodePrepareResources", &empty.base, deadline, err, sizeof err) != 0) {
		dk_say(p, 0, "liveness: NodePrepareResources with an empty request failed: %s", err);
		return -1;
	}
	dk_say(p, 2, "liveness: GetInfo and an empty NodePrepareResources answered");
	return 0;
}

static void request_next(struct dk_health *h)
{
	kl_call_init(&h->k);
	if (kl_call_request(&h->k, h->gs, h->cq, HTAG(HT_NEW)) != GRPC_CALL_OK)
		h->k.call = NULL;
}

static void call_done(struct dk_health *h)
{
	kl_call_destroy(&h->k);
}

/* Answer the received request: the reply and the status. */
static void answer(struct dk_health *h)
{
	grpc_status_code code = GRPC_STATUS_OK;
	const char *msg = NULL;
	Grpc__Health__V1__HealthCheckResponse rs = GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__INIT;
	if (grpc_slice_str_cmp(h->k.det.method, DK_HEALTH_CHECK) != 0) {
		code = GRPC_STATUS_UNIMPLEMENTED;
		msg = "axl's DRA plugin serves grpc.health.v1.Health/Check only";
	} else {
		Grpc__Health__V1__HealthCheckRequest *rq = (Grpc__Health__V1__HealthCheckRequest *)kl_unpack(
		    &grpc__health__v1__health_check_request__descriptor, h->k.in);
		if (!rq) {
			code = GRPC_STATUS_INVALID_ARGUMENT;
			msg = "Check: the request is not a HealthCheckRequest";
		} else if (strcmp(rq->service, "") != 0 && strcmp(rq->service, "liveness") != 0) {
			code = GRPC_STATUS_NOT_FOUND;
			msg = "unknown service";
		} else {
			gpr_timespec now = gpr_now(GPR_CLOCK_MONOTONIC);
			gpr_timespec cap = gpr_time_add(now, gpr_time_from_millis(DK_HEALTH_MAX_MS, GPR_TIMESPAN));
			gpr_timespec dl = gpr_convert_clock_type(h->k.det.deadline, GPR_CLOCK_MONOTONIC);
			if (gpr_time_cmp(dl, cap) > 0)
				dl = cap;
			rs.status = check(h, dl) == 0
					? GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__SERVING
					: GRPC__HEALTH__V1__HEALTH_CHECK_RESPONSE__SERVING_STATUS__NOT_SERVING;
			pthread_mutex_lock(&h->p->lock);
			h->p->n_health++;
			pthread_mutex_unlock(&h->p->lock);
		}
		if (rq)
			grpc__health__v1__health_check_request__free_unpacked(rq, NULL);
	}
	if (kl_call_finish(&h->k, &rs.base, code, msg, HTAG(HT_DONE)) != GRPC_CALL_OK) {
		call_done(h);
		request_next(h);
	}
}

static void *health_loop(void *arg)
{
	struct dk_health *h = arg;
	request_next(h);
	for (;;) {
		grpc_event ev = grpc_completion_queue_next(h->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		if (ev.type == GRPC_QUEUE_SHUTDOWN)
			break;
		if (ev.type != GRPC_OP_COMPLETE)
			continue;
		switch ((int)(uintptr_t)ev.tag) {
		case HT_NEW:
			if (!ev.success) { /* shutting down */
				call_done(h);
				break;
			}
			if (kl_call_begin(&h->k, HTAG(HT_RECV)) != GRPC_CALL_OK) {
				call_done(h);
				request_next(h);
			}
			break;
		case HT_RECV:
			if (ev.success) {
				answer(h);
				break;
			}
			call_done(h);
			request_next(h);
			break;
		case HT_DONE:
			call_done(h);
			request_next(h);
			break;
		case HT_SHUTDOWN: grpc_completion_queue_shutdown(h->cq); break;
		}
	}
	return NULL;
}

int dk_health_start(struct dk_plugin *p, int port, char *err, size_t cap)
{
	struct dk_health *h = calloc(1, sizeof *h);
	if (!h) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	h->p = p;
	h->cq = grpc_completion_queue_create_for_next(NULL);
	h->gs = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(h->gs, h->cq, NULL);
	char addr[64];
	snprintf(addr, sizeof addr, "[::]:%d", port);
	grpc_server_credentials *cr = grpc_insecure_server_credentials_create();
	h->port = grpc_server_add_http2_port(h->gs, addr, cr);
	grpc_server_credentials_release(cr);
	if (h->port == 0) {
		snprintf(err, cap, "cannot listen for the healthcheck service on port %d (in use?)", port);
		grpc_server_destroy(h->gs);
		kl_queue_close(h->cq);
		free(h);
		return -1;
	}
	grpc_server_start(h->gs);
	if (pthread_create(&h->th, NULL, health_loop, h) != 0) {
		snprintf(err, cap, "cannot start the thread of the healthcheck service");
		grpc_server_shutdown_and_notify(h->gs, h->cq, HTAG(HT_SHUTDOWN));
		grpc_server_cancel_all_calls(h->gs);
		grpc_completion_queue_shutdown(h->cq);
		while (grpc_completion_queue_next(h->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
		       GRPC_QUEUE_SHUTDOWN)
			;
		grpc_server_destroy(h->gs);
		grpc_completion_queue_destroy(h->cq);
		free(h);
		return -1;
	}
	p->health = h;
	dk_say(p, 1, "the healthcheck service (grpc.health.v1, service \"liveness\") listens on port %d", h->port);
	return 0;
}

void dk_health_stop(struct dk_plugin *p)
{
	struct dk_health *h = p->health;
	if (!h)
		return;
	pthread_mutex_lock(&p->lock);
	h->stopping = 1;
	if (h->out)
		grpc_call_cancel(h->out, NULL);
	pthread_mutex_unlock(&p->lock);
	grpc_server_shutdown_and_notify(h->gs, h->cq, HTAG(HT_SHUTDOWN));
	grpc_server_cancel_all_calls(h->gs);
	pthread_join(h->th, NULL);
	grpc_server_destroy(h->gs);
	grpc_completion_queue_destroy(h->cq);
	free(h);
	p->health = NULL;
}
