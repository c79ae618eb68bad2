/* SPDX-License-Identifier: MIT */
/*
 * What the files of the DRA kubelet glue share (the module axl-dra-kubelet.so,
 * kubelet.h), in the device plugin's pattern (src/compat/kubernetes/glue.h):
 * kubelet_serve.c: the two servers on their sockets and the kubelet's calls on the
 * completion queue they share; kubelet_grpc.c: the module's entry points and the thread
 * that makes a removed socket again; kubelet_health.c: the liveness probe's health service;
 * kubelet_watch.c: the devices' health streamed to the kubelet (DRAResourceHealth).
 *
 * Threads: one drives the completion queue (dk_serve_loop: new calls, received requests,
 * finished replies; the ops' callbacks run here, one request at a time); one watches the
 * two directories (dk_watch_loop). The command's start() and stop() do their work on a
 * thread of the module's own, joined before they return (kubelet_grpc.c, as grpc.c).
 */
#ifndef AXL_DRA_KUBELET_GLUE_H
#define AXL_DRA_KUBELET_GLUE_H

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
#include <unistd.h>

#include <grpc/byte_buffer.h>
#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/alloc.h>
#include <grpc/support/log.h>
#include <grpc/support/time.h>

#include "dra.pb-c.h"
#include "drahealth.pb-c.h"
#include "pluginregistration.pb-c.h"
#include "grpc_glue.h"
#include "kubelet.h"

/* the generated names, shortened */
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesRequest DkPrepareReq;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesResponse DkPrepareResp;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourcesResponse__ClaimsEntry DkPrepareEntry;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodePrepareResourceResponse DkPrepareOne;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Device DkDevice;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesRequest DkUnprepareReq;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesResponse DkUnprepareResp;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourcesResponse__ClaimsEntry DkUnprepareEntry;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__NodeUnprepareResourceResponse DkUnprepareOne;
typedef K8s__Io__Kubelet__Pkg__Apis__Dra__V1__Claim DkClaim;

/* k8s.io/kubelet pkg/apis/dra/{v1,v1beta1}/types.go DRAPluginService, and the gRPC
 * service names of their api.proto packages */
#define DK_SERVICE_V1      "v1.DRAPlugin"
#define DK_SERVICE_V1BETA1 "v1beta1.DRAPlugin"
#define DK_GRPC_V1         "/k8s.io.kubelet.pkg.apis.dra.v1.DRAPlugin/"
#define DK_GRPC_V1BETA1    "/k8s.io.kubelet.pkg.apis.dra.v1beta1.DRAPlugin/"
#define DK_GRPC_REG        "/pluginregistration.Registration/"
/* kubeletplugin/draplugin.go: "dra" is hard-coded; the registration socket is
 * <driver name>-reg.sock */
#define DK_DRA_SOCKET "dra.sock"
#define DK_REG_SUFFIX "-reg.sock"
/* a directory that is gone is looked for again this often (nothing else is timed) */
#define DK_DIR_RETRY_MS 1000

/* k8s.io/kubelet pkg/apis/dra-health/{v1alpha1,v1}: the service names the kubeletplugin
 * helper lists in GetInfo (DRAResourceHealth_ServiceDesc.ServiceName) and the method */
#define DK_HEALTH_V1ALPHA1 "v1alpha1.DRAResourceHealth"
#define DK_HEALTH_V1       "v1.DRAResourceHealth"
#define DK_WATCH_METHOD    "NodeWatchResources"
/* each device's health_check_timeout_seconds (the kubelet's DefaultHealthTimeout, said
 * outright), and how often every stream is sent the list again within it */
#define DK_WATCH_TIMEOUT_S 30
#define DK_WATCH_RESEND_S  10

enum dk_tag_kind { DK_T_NEW, DK_T_RECV, DK_T_DONE, DK_T_SHUTDOWN, DK_T_SEND, DK_T_CLOSE };
enum dk_method { DK_M_UNKNOWN, DK_M_GETINFO, DK_M_NOTIFY, DK_M_PREPARE, DK_M_UNPREPARE, DK_M_WATCH };
enum { DK_REG = 0, DK_DRA = 1, DK_NSOCK = 2 };

struct dk_plugin;
struct dk_srv;
struct dk_call;
struct dk_hdev;

struct dk_tag {
	enum dk_tag_kind kind;
	struct dk_call *c;
	struct dk_srv *s;
};

struct dk_call {
	struct dk_plugin *p;
	struct dk_srv *s;
	struct kl_call k; /* gRPC's side of it (grpc_glue.h) */
	enum dk_method m;
	struct dk_tag t_new, t_recv, t_done;
	/* a health stream (kubelet_watch.c), under the plugin's lock: the next stream */
	struct dk_call *next;
	struct dk_tag t_send, t_close;
};

/* one socket's server; replaced by a new one when its socket was removed */
struct dk_srv {
	struct dk_plugin *p;
	int which; /* DK_REG or DK_DRA */
	grpc_server *gs;
	int shutting;
	struct dk_tag t_shutdown;
	struct dk_srv *next_all;
};

struct dk_plugin {
	struct dra_kubelet_config cfg;
	struct dra_kubelet_ops ops;
	char *paths[DK_NSOCK]; /* the registration socket, the DRA socket */
	const char *dirs[DK_NSOCK];
	ino_t inos[DK_NSOCK]; /* each socket as we made it */
	struct dk_srv *srv[DK_NSOCK];
	struct dk_srv *all;
	grpc_completion_queue *cq;
	pthread_t serve_thread, watch_thread;
	int watch_started;
	pthread_mutex_t lock;
	int live_servers;
	int stopping;
	int evfd, ino;
	int wd[DK_NSOCK]; /* inotify watches of the two directories (-1: none now) */
	/* counted for the log and the tests: what the kubelet asked, the liveness probes */
	unsigned long n_getinfo, n_notify, n_prepare, n_unprepare, n_remade, n_health;
	unsigned long n_watch, n_watch_sent; /* health streams opened, health lists sent */
	/* the devices' health (set_health) and the streams sent it (kubelet_watch.c) */
	struct dk_hdev *hdevs;
	size_t n_hdevs;
	int health_set;
	struct dk_call *streams;
	gpr_timespec next_resend; /* monotonic; tv_sec 0: not due */
	struct dk_health *health; /* the healthcheck service (kubelet_health.c), NULL: none */
	int registered; /* the last NotifyRegistrationStatus said so */
};

/* a line for the log (grpc_glue.h: kl_say) */
#define dk_say(p, level, ...) kl_say((p)->ops.say, (p)->ops.ud, (p)->cfg.verbose, level, __VA_ARGS__)
void *dk_serve_loop(void *arg);
void dk_call_free(struct dk_call *c);
/* a server on socket which (the lock held, or p not yet shared) */
struct dk_srv *dk_srv_start(struct dk_plugin *p, int which, char *err, size_t cap);
/* shut s down; the serve loop learns when gRPC is done with it (the lock held) */
void dk_srv_retire(struct dk_plugin *p, struct dk_srv *s);
/* the healthcheck service on TCP port (0: the kernel's choice), its own thread; stop: before
 * the sockets' servers */
int dk_health_start(struct dk_plugin *p, int port, char *err, size_t cap);
void dk_health_stop(struct dk_plugin *p);
/* the health streams (kubelet_watch.c): the method a path names (DK_M_WATCH or
 * DK_M_UNKNOWN); a stream's start once its request came (the serve thread; -1: the call
 * is the caller's to free); its send and close events (1: the call is done, the caller's
 * to free); the serve loop's deadline (infinite without a stream) and what is due at it;
 * the transport's set_health; the list freed (plugin_free) */
enum dk_method dk_watch_method(const grpc_slice m);
int dk_watch_start(struct dk_call *c);
int dk_watch_event(struct dk_plugin *p, const struct dk_tag *t);
gpr_timespec dk_watch_deadline(struct dk_plugin *p);
void dk_watch_due(struct dk_plugin *p);
void dk_watch_set(void *server, const struct dra_device_health *devs, size_t n);
void dk_watch_free(struct dk_plugin *p);

#endif
