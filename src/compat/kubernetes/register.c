/* SPDX-License-Identifier: MIT */
/* Registration with the kubelet at DIR/kubelet.sock, and again when it restarts (glue.h). */
#define _GNU_SOURCE
#include "glue.h"

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
	struct kl_unary u;
	kl_unary_init(&u, &rq.base);
	int rc = -1;
	static char tag;
	if (kl_unary_start(&u, call, &tag) == GRPC_CALL_OK) {
		/* wait in slices, so that a stop cancels the call rather than waiting it out */
		grpc_event ev;
		int cancelled = 0;
		for (;;) {
			ev = grpc_completion_queue_pluck(
			    q, &tag,
			    gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC), gpr_time_from_millis(100, GPR_TIMESPAN)), NULL);
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
		if (ev.type == GRPC_OP_COMPLETE && u.status == GRPC_STATUS_OK) {
			rc = 0;
		} else {
			char *d = grpc_slice_to_c_string(u.details);
			if (u.status == GRPC_STATUS_DEADLINE_EXCEEDED)
				snprintf(err, cap, "the kubelet at %s did not answer Register within %.0f s",
					 p->kubelet, p->cfg.register_timeout_s);
			else
				snprintf(err, cap, "the kubelet at %s refused Register (status %d: %s)", p->kubelet,
					 (int)u.status, d && *d ? d : "no details");
			gpr_free(d);
		}
	} else {
		snprintf(err, cap, "cannot call the kubelet at %s", p->kubelet);
	}
	grpc_call_unref(call);
	kl_unary_free(&u);
	kl_pluck_queue_close(q);
	grpc_channel_destroy(ch);
	return rc;
}

/* Make sure every resource's socket is still ours (a starting kubelet removes every
 * socket in its directory), then register every resource. 0 when all registered. */
static int register_all(struct plugin *p)
{
	struct stat st;
	if (lstat(p->kubelet, &st) != 0 || !S_ISSOCK(st.st_mode)) {
		k8s_glue_say(p, 1, "waiting for the kubelet: %s does not exist yet", p->kubelet);
		return -1;
	}
	int failed = 0;
	for (size_t r = 0; r < p->cfg.n; r++) {
		char err[512] = "";
		pthread_mutex_lock(&p->lock);
		struct srv *s = p->srv[r];
		if (!p->stopping && (!s || lstat(p->paths[r], &st) != 0 || st.st_ino != p->inos[r])) {
			k8s_glue_say(p, 1, "%s: the kubelet removed %s: listening again", p->cfg.resources[r],
				     p->paths[r]);
			if (s)
				k8s_glue_srv_retire(p, s);
			p->srv[r] = k8s_glue_srv_start(p, r, err, sizeof err);
			if (!p->srv[r]) {
				k8s_glue_say(p, 0, "%s: %s", p->cfg.resources[r], err);
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
			k8s_glue_say(p, 1, "%s: registered with the kubelet (endpoint %s)", p->cfg.resources[r],
				     p->cfg.sockets[r]);
		} else {
			p->registered[r] = 0;
			k8s_glue_say(p, 0, "%s: %s", p->cfg.resources[r], err);
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

void *k8s_glue_reg_loop(void *arg)
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
			k8s_glue_say(p, 1, "the kubelet's socket %s was created: registering again", p->kubelet);
			retry = RETRY_MIN_S;
		} else {
			k8s_glue_say(p, 1, "retrying registration (every %d s until it succeeds)", retry);
			retry = retry * 2 > RETRY_MAX_S ? RETRY_MAX_S : retry * 2;
		}
		ok = register_all(p) == 0;
		if (ok)
			retry = RETRY_MIN_S;
	}
	return NULL;
}

