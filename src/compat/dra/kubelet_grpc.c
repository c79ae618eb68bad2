/* SPDX-License-Identifier: MIT */
/*
 * The DRA kubelet plugin's gRPC glue (kubelet.h, kubelet_glue.h): the module
 * axl-dra-kubelet.so's entry points (start, stop) and the thread that makes a socket
 * again when it was removed from under us (the liveness probe's service: kubelet_health.c).
 *
 * A restarting kubelet may wipe its plugin directories; its plugin watcher
 * (kubernetes/kubernetes pkg/kubelet/pluginmanager/pluginwatcher/plugin_watcher.go)
 * registers a plugin when its socket appears in the registry directory, so a socket
 * made again is a registration made again. The watch thread sleeps in poll() on inotify
 * for the two directories (a removal or a rename of our socket, or of the directory
 * itself) and an eventfd for stop; only while a directory is missing does it look for
 * it again, every DK_DIR_RETRY_MS.
 *
 * As the device plugin's grpc.c explains, the command's thread runs no gRPC code: start()
 * and stop() do their work on a thread of the module's own and join it.
 */
#define _GNU_SOURCE
#include "kubelet_glue.h"

static int grpc_verbose;
static void grpc_logger(gpr_log_func_args *a)
{
	if (a->severity == GPR_LOG_SEVERITY_ERROR && grpc_verbose)
		fprintf(stderr, "axl: dra-plugin: grpc: %s\n", a->message);
}

static void plugin_free(struct dk_plugin *p)
{
	for (int i = 0; i < DK_NSOCK; i++)
		free(p->paths[i]);
	while (p->all) {
		struct dk_srv *s = p->all;
		p->all = s->next_all;
		free(s);
	}
	if (p->evfd >= 0)
		close(p->evfd);
	if (p->ino >= 0)
		close(p->ino);
	dk_watch_free(p);
	pthread_mutex_destroy(&p->lock);
	free(p);
}

/* ---- the watch thread ------------------------------------------------------------- */

/* (Re)watch every directory not watched now: 0 when both are watched. */
static int watch_dirs(struct dk_plugin *p)
{
	int missing = 0;
	for (int i = 0; i < DK_NSOCK; i++) {
		if (p->wd[i] >= 0)
			continue;
		int same = i > 0 && strcmp(p->dirs[i], p->dirs[0]) == 0;
		if (same) {
			p->wd[i] = p->wd[0];
			missing |= p->wd[i] < 0;
			continue;
		}
		p->wd[i] = inotify_add_watch(p->ino, p->dirs[i],
					     IN_DELETE | IN_MOVED_FROM | IN_DELETE_SELF | IN_MOVE_SELF | IN_ONLYDIR);
		if (p->wd[i] < 0)
			missing = 1;
	}
	return missing ? -1 : 0;
}

/* Make every socket that is not ours any more again. */
static void remake(struct dk_plugin *p)
{
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < DK_NSOCK && !p->stopping; i++) {
		struct stat st;
		if (p->srv[i] && lstat(p->paths[i], &st) == 0 && st.st_ino == p->inos[i])
			continue;
		if (access(p->dirs[i], W_OK | X_OK) != 0)
			continue; /* the directory is gone: when it is back */
		char err[512] = "";
		dk_say(p, 1, "%s was removed: listening on it again", p->paths[i]);
		if (p->srv[i])
			dk_srv_retire(p, p->srv[i]);
		p->srv[i] = dk_srv_start(p, i, err, sizeof err);
		if (p->srv[i])
			p->n_remade++;
		else
			dk_say(p, 0, "%s", err);
	}
	pthread_mutex_unlock(&p->lock);
}

/* Read the inotify events: did one touch our sockets or directories? */
static int events(struct dk_plugin *p)
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
			if (e->mask & IN_Q_OVERFLOW) {
				hit = 1;
				continue;
			}
			for (int i = 0; i < DK_NSOCK; i++) {
				if (e->wd != p->wd[i])
					continue;
				if (e->mask & (IN_DELETE_SELF | IN_MOVE_SELF | IN_IGNORED)) {
					p->wd[i] = -1;
					hit = 1;
				} else if (e->len) {
					const char *base = strrchr(p->paths[i], '/');
					if (strcmp(e->name, base ? base + 1 : p->paths[i]) == 0)
						hit = 1;
				}
			}
		}
	}
}

static void *watch_loop(void *arg)
{
	struct dk_plugin *p = arg;
	int missing = watch_dirs(p) != 0;
	for (;;) {
		struct pollfd pf[2] = { { p->evfd, POLLIN, 0 }, { p->ino, POLLIN, 0 } };
		int r = poll(pf, 2, missing ? DK_DIR_RETRY_MS : -1);
		if (r < 0 && errno != EINTR)
			break;
		if (pf[0].revents & POLLIN)
			break;
		int hit = r > 0 && (pf[1].revents & POLLIN) && events(p);
		if (r > 0 && !hit)
			continue;
		/* a directory removed and made again is a new inode: watch it anew */
		for (int i = 0; i < DK_NSOCK; i++)
			if (p->wd[i] >= 0 && access(p->dirs[i], X_OK) != 0) {
				inotify_rm_watch(p->ino, p->wd[i]);
				p->wd[i] = -1;
			}
		missing = watch_dirs(p) != 0;
		remake(p);
	}
	return NULL;
}

/* Shut down the servers started so far before the serve loop ever ran, then gRPC. */
static void abandon(struct dk_plugin *p)
{
	int left = 0;
	for (int i = 0; i < DK_NSOCK; i++)
		if (p->srv[i]) {
			grpc_server_shutdown_and_notify(p->srv[i]->gs, p->cq, &p->srv[i]->t_shutdown);
			grpc_server_cancel_all_calls(p->srv[i]->gs);
			left++;
		}
	while (left) {
		grpc_event ev = grpc_completion_queue_next(p->cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL);
		if (ev.type != GRPC_OP_COMPLETE)
			break;
		struct dk_tag *t = ev.tag;
		if (t->kind == DK_T_SHUTDOWN) {
			grpc_server_destroy(t->s->gs);
			t->s->gs = NULL;
			unlink(p->paths[t->s->which]);
			left--;
		} else if (t->kind == DK_T_NEW) {
			dk_call_free(t->c);
		}
	}
	kl_queue_close(p->cq);
	grpc_shutdown_blocking();
	plugin_free(p);
}

static void stop_here(void *server);

static int start_here(const struct dra_kubelet_config *cfg, const struct dra_kubelet_ops *ops, void **server, char *err,
		      size_t cap)
{
	*server = NULL;
	struct dk_plugin *p = calloc(1, sizeof *p);
	if (!p) {
		snprintf(err, cap, "out of memory");
		return -1;
	}
	p->cfg = *cfg;
	p->ops = *ops;
	p->evfd = p->ino = -1;
	p->wd[0] = p->wd[1] = -1;
	pthread_mutex_init(&p->lock, NULL);
	p->dirs[DK_REG] = cfg->registry_dir;
	p->dirs[DK_DRA] = cfg->plugin_dir;
	if (asprintf(&p->paths[DK_REG], "%s/%s%s", cfg->registry_dir, cfg->driver, DK_REG_SUFFIX) < 0)
		p->paths[DK_REG] = NULL;
	if (asprintf(&p->paths[DK_DRA], "%s/%s", cfg->plugin_dir, DK_DRA_SOCKET) < 0)
		p->paths[DK_DRA] = NULL;
	if (!p->paths[DK_REG] || !p->paths[DK_DRA]) {
		snprintf(err, cap, "out of memory");
		plugin_free(p);
		return -1;
	}
	for (int i = 0; i < DK_NSOCK; i++) {
		struct stat st;
		if (stat(p->dirs[i], &st) != 0 || !S_ISDIR(st.st_mode)) {
			snprintf(err, cap, "the kubelet's %s directory %s does not exist",
				 i == DK_REG ? "plugin registry" : "plugin", p->dirs[i]);
			plugin_free(p);
			return -1;
		}
		if (access(p->dirs[i], W_OK | X_OK) != 0) {
			snprintf(err, cap, "cannot create sockets in %s: %s", p->dirs[i], strerror(errno));
			plugin_free(p);
			return -1;
		}
	}
	p->evfd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	p->ino = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
	if (p->evfd < 0 || p->ino < 0) {
		snprintf(err, cap, "%s: %s", p->evfd < 0 ? "eventfd" : "inotify", strerror(errno));
		plugin_free(p);
		return -1;
	}
	grpc_verbose = cfg->verbose;
	gpr_set_log_function(grpc_logger);
	grpc_init();
	p->cq = grpc_completion_queue_create_for_next(NULL);
	/* the DRA socket first, so that it answers once the kubelet learns of it (Start) */
	for (int i = DK_DRA; i >= 0; i--) {
		p->srv[i] = dk_srv_start(p, i, err, cap);
		if (!p->srv[i]) {
			abandon(p);
			return -1;
		}
	}
	if (pthread_create(&p->serve_thread, NULL, dk_serve_loop, p) != 0) {
		snprintf(err, cap, "cannot start the thread that serves the kubelet's calls");
		abandon(p);
		return -1;
	}
	if (cfg->health_port >= 0 && dk_health_start(p, cfg->health_port, err, cap) != 0) {
		stop_here(p);
		return -1;
	}
	if (pthread_create(&p->watch_thread, NULL, watch_loop, p) == 0)
		p->watch_started = 1;
	else
		dk_say(p, 0, "cannot start the thread that watches %s: a socket removed stays removed",
		       p->dirs[DK_REG]);
	dk_say(p, 1, "serving %s and %s for the kubelet", p->paths[DK_REG], p->paths[DK_DRA]);
	*server = p;
	return 0;
}

struct start_call {
	const struct dra_kubelet_config *cfg;
	const struct dra_kubelet_ops *ops;
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

static int dk_start(const struct dra_kubelet_config *cfg, const struct dra_kubelet_ops *ops, void **server, char *err,
		    size_t cap)
{
	struct start_call a = { cfg, ops, server, err, cap, -1 };
	*server = NULL;
	int e = kl_apart(start_apart, &a);
	if (e != 0) {
		snprintf(err, cap, "cannot start a thread: %s", strerror(e));
		return -1;
	}
	return a.rc;
}

static void stop_here(void *server)
{
	struct dk_plugin *p = server;
	uint64_t one = 1;
	pthread_mutex_lock(&p->lock);
	p->stopping = 1;
	pthread_mutex_unlock(&p->lock);
	dk_health_stop(p);
	if (p->watch_started) {
		if (write(p->evfd, &one, sizeof one) != (ssize_t)sizeof one)
			dk_say(p, 0, "cannot wake the watch thread");
		pthread_join(p->watch_thread, NULL);
	}
	pthread_mutex_lock(&p->lock);
	for (int i = 0; i < DK_NSOCK; i++)
		if (p->srv[i] && !p->srv[i]->shutting)
			dk_srv_retire(p, p->srv[i]);
	if (p->live_servers == 0)
		grpc_completion_queue_shutdown(p->cq);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->serve_thread, NULL);
	grpc_completion_queue_destroy(p->cq);
	for (int i = 0; i < DK_NSOCK; i++) {
		struct stat st;
		/* ours only: a new instance may own the name now */
		if (lstat(p->paths[i], &st) == 0 && st.st_ino == p->inos[i])
			unlink(p->paths[i]);
	}
	dk_say(p, 2,
	       "kubelet calls: GetInfo %lu, NotifyRegistrationStatus %lu, NodePrepareResources %lu, "
	       "NodeUnprepareResources %lu, NodeWatchResources %lu (health lists sent %lu); sockets made again %lu; "
	       "liveness checks %lu",
	       p->n_getinfo, p->n_notify, p->n_prepare, p->n_unprepare, p->n_watch, p->n_watch_sent, p->n_remade,
	       p->n_health);
	grpc_shutdown_blocking();
	plugin_free(p);
}

static void dk_stop(void *server)
{
	if (!server)
		return;
	if (kl_apart(stop_here, server) != 0)
		stop_here(server);
}

static const struct dra_kubelet_transport transport = {
	.abi = DRA_KUBELET_ABI,
	.start = dk_start,
	.stop = dk_stop,
	.set_health = dk_watch_set,
};

__attribute__((visibility("default"))) const struct dra_kubelet_transport *axl_dra_kubelet_transport(void);
__attribute__((visibility("default"))) const struct dra_kubelet_transport *axl_dra_kubelet_transport(void)
{
	return &transport;
}
