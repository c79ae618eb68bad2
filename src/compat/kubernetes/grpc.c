/* SPDX-License-Identifier: MIT */
/*
 * The kubelet device plugin API v1beta1 over gRPC's C core (libgrpc, Debian's
 * libgrpc-dev) with protobuf-c messages (deviceplugin.proto): the module
 * axl-kubernetes.so (transport.h), whose files share glue.h. Here: the log, the servers
 * on their sockets, and the module's entry points (start, changed, stop).
 *
 * The command's thread runs no gRPC code: each entry point does its work on a thread of
 * the module's own and joins it before it returns (kl_apart()). gRPC and Abseil keep
 * thread-local state in libraries loaded with dlopen (gRPC's ExecCtx, the Cord sampling
 * counter an error status touches: grpc_server_add_http2_port makes one when a unix
 * socket refuses SO_ZEROCOPY), so whichever thread calls them gets dynamic TLS blocks.
 * A thread of the module's is joined before the command exits; the command's thread
 * lives until the exit, where LeakSanitizer scans the dynamic TLS of every thread still
 * there; the sanitizer runtime of GCC 12 (Debian 12's) reads a malloc'd block that
 * starts 16 bytes into a page as one with a glibc 2.19 header, takes the allocator's
 * chunk header for its bounds and faults in its scan (google/sanitizers#1322): `axl
 * device-plugin` ended in "Tracer caught signal 11" one run in four under ASan. The
 * serving and registration threads are joined by stop(), and gRPC is shut down
 * blocking (grpc_shutdown_blocking: its threads are gone when stop() returns).
 */
#define _GNU_SOURCE
#include "glue.h"

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

/* Shut down the first n servers of p before its serve loop ever ran: their shutdown
 * notifications and the calls they had pending drained here, then the queue; gRPC shut
 * down, p freed. */
static void abandon(struct plugin *p, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		grpc_server_shutdown_and_notify(p->srv[k]->gs, p->cq, &p->srv[k]->t_shutdown);
		grpc_server_cancel_all_calls(p->srv[k]->gs);
	}
	size_t left = n;
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
			k8s_glue_call_free(t->c);
		}
	}
	kl_queue_close(p->cq);
	grpc_shutdown_blocking();
	plugin_free(p);
}

static int start_here(const struct k8s_config *cfg, const struct k8s_ops *ops, void **server, char *err, size_t cap)
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
		k8s_glue_say(p, 1, "cannot watch %s (%s): registering again only every %d s after a failure", cfg->dir,
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
		p->srv[r] = k8s_glue_srv_start(p, r, err, cap);
		if (!p->srv[r]) {
			abandon(p, r);
			return -1;
		}
	}
	if (pthread_create(&p->serve_thread, NULL, k8s_glue_serve_loop, p) != 0) {
		snprintf(err, cap, "cannot start the thread that serves the kubelet's calls");
		abandon(p, cfg->n);
		return -1;
	}
	if (pthread_create(&p->reg_thread, NULL, k8s_glue_reg_loop, p) == 0)
		p->reg_started = 1;
	else
		k8s_glue_say(p, 0, "cannot start the registration thread: not registering");
	*server = p;
	return 0;
}

struct start_call {
	const struct k8s_config *cfg;
	const struct k8s_ops *ops;
	void **server;
	char *err;
	size_t cap;
	int rc;
};

static void start_apart(void *arg)
{
	struct start_call *a = arg;
	a->rc = start_here(a->cfg, a->ops, a->server, a->err, a->cap);
}

static int k8s_start(const struct k8s_config *cfg, const struct k8s_ops *ops, void **server, char *err, size_t cap)
{
	struct start_call a = {cfg, ops, server, err, cap, -1};
	*server = NULL;
	int e = kl_apart(start_apart, &a);
	if (e != 0) {
		snprintf(err, cap, "cannot start a thread: %s", strerror(e));
		return -1;
	}
	return a.rc;
}

static void changed_here(void *server)
{
	struct plugin *p = server;
	pthread_mutex_lock(&p->lock);
	for (struct call *c = p->streams; c; c = c->next)
		k8s_glue_push(c);
	pthread_mutex_unlock(&p->lock);
}

static void k8s_changed(void *server)
{
	if (!server)
		return;
	if (kl_apart(changed_here, server) != 0) /* no thread to spare: the streams still learn of it */
		changed_here(server);
}

static void stop_here(void *server)
{
	struct plugin *p = server;
	uint64_t one = 1;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_mutex_unlock(&p->lock);
	if (p->reg_started) {
		if (write(p->evfd, &one, sizeof one) != (ssize_t)sizeof one)
			k8s_glue_say(p, 0, "cannot wake the registration thread");
		pthread_join(p->reg_thread, NULL);
	}
	pthread_mutex_lock(&p->lock);
	for (size_t r = 0; r < p->cfg.n; r++)
		if (p->srv[r] && !p->srv[r]->shutting)
			k8s_glue_srv_retire(p, p->srv[r]);
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
	grpc_shutdown_blocking(); /* gRPC's threads are gone when it returns */
	plugin_free(p);
}

static void k8s_stop(void *server)
{
	if (!server)
		return;
	if (kl_apart(stop_here, server) != 0) /* no thread to spare: stopped all the same */
		stop_here(server);
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
