/* SPDX-License-Identifier: MIT */
/*
 * What the files of axl's gRPC glue (the module axl-kubernetes.so, transport.h) share:
 * the plugin, its servers and calls. The log, packing, listening on a socket and a thread
 * of the module's own are ../kubelet/grpc_glue.c's (shared with axl-dra-kubelet.so, the DRA
 * plugin's module; compiled into each). serve.c: the servers
 * on their sockets and the kubelet's calls on the completion queue they share;
 * register.c: registration with the kubelet and its restarts; grpc.c: the module's entry
 * points. Each uses only the ones before it.
 *
 * Threads: one drives the completion queue (k8s_glue_serve_loop: new calls, received
 * requests, finished sends); one registers with the kubelet and watches its directory for
 * a new kubelet.sock (k8s_glue_reg_loop). The command calls start(), changed() and
 * stop(), each of which does its work on a thread of its own, joined before it returns
 * (grpc.c: the command's thread runs no gRPC code). A ListAndWatch stream is sent to
 * from whichever thread learns of a change (grpc_call_start_batch is thread-safe), one
 * message in flight at a time; the plugin's lock guards the streams' state and the
 * servers.
 */
#ifndef AXL_K8S_GLUE_H
#define AXL_K8S_GLUE_H

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
#include "grpc_glue.h"
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
	struct kl_call k; /* gRPC's side of it (grpc_glue.h) */
	enum method m;
	uint8_t *last; /* the list last sent on this stream */
	size_t nlast;
	struct call *next; /* the plugin's streams */
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


/* a line for the log (grpc_glue.h: kl_say) */
#define k8s_glue_say(p, level, ...) kl_say((p)->ops.say, (p)->ops.ud, (p)->cfg.verbose, level, __VA_ARGS__)
/* m packed into a byte buffer for gRPC */
/* the completion queue's loop (serve.c) */
void *k8s_glue_serve_loop(void *arg);
/* ask for the next call on s (the lock held, or s not yet shared) */
void k8s_glue_request_next(struct srv *s);
void k8s_glue_call_free(struct call *c);
/* send stream c its resource's list if it changed since the last one (the lock held) */
void k8s_glue_push(struct call *c);
/* a server for resource r on its socket (the lock held, or not yet shared) */
struct srv *k8s_glue_srv_start(struct plugin *p, size_t r, char *err, size_t cap);
/* shut s down; the serve loop learns when gRPC is done with it (the lock held) */
void k8s_glue_srv_retire(struct plugin *p, struct srv *s);
/* registration and the kubelet's restarts (register.c) */
void *k8s_glue_reg_loop(void *arg);

#endif
