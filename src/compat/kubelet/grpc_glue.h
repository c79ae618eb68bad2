/* SPDX-License-Identifier: MIT */
/*
 * What the two gRPC modules of the kubelet's plugins have in common: axl-kubernetes.so
 * (`axl device-plugin`, src/compat/kubernetes/) and axl-dra-kubelet.so (`axl dra-plugin`,
 * src/compat/dra/). grpc_glue.c is compiled into each module (its symbols hidden there), so
 * that neither module needs the other. Plain gRPC core and protobuf-c: no type of either
 * plugin's, no axl type.
 */
#ifndef AXL_KUBELET_GRPC_GLUE_H
#define AXL_KUBELET_GRPC_GLUE_H

#include <stdarg.h>
#include <pthread.h>
#include <stddef.h>
#include <sys/types.h>

#include <grpc/byte_buffer.h>
#include <grpc/grpc.h>
#include <protobuf-c/protobuf-c.h>

/* The log's callback: a line, level 0 error, 1 notice, 2 verbose. */
typedef void (*kl_say_fn)(void *ud, int level, const char *msg);

/* fmt's line (at most 1023 bytes) to say(ud, level, ...); a verbose line (level >= 2) only
 * when verbose is set. */
void kl_say(kl_say_fn say, void *ud, int verbose, int level, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* m packed into a byte buffer for gRPC (the caller destroys it). */
grpc_byte_buffer *kl_pack(const ProtobufCMessage *m);
/* The message of descriptor d in bb, or NULL (none received, or not one). */
ProtobufCMessage *kl_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb);

/* A call the kubelet makes on a server of ours, as both modules hold it: what gRPC gives
 * and is given for it, and, for a stream (the device plugin's ListAndWatch, the DRA
 * plugin's NodeWatchResources), the sends' state. */
struct kl_call {
	grpc_call *call;
	grpc_call_details det;
	grpc_metadata_array md;
	grpc_byte_buffer *in, *out; /* the request received; the message sent last */
	grpc_slice details;         /* the status's message */
	int cancelled;              /* the close received */
	int pending;                /* batches in flight */
	int sending, dirty, closed; /* a stream: a send in flight, a change meanwhile, the client gone */
};
void kl_call_init(struct kl_call *k);
void kl_call_destroy(struct kl_call *k);
/* Each starts one batch and counts it in pending (not when it did not start); tag when
 * gRPC is done with it; grpc_call_start_batch's answer (not GRPC_CALL_OK: the call is the
 * caller's to free).
 * request: the server gs's next call into k, on cq (no batch: not counted);
 * begin: a new call's initial metadata sent and its request received into in;
 * finish: a unary call's reply (packed into out, when code is GRPC_STATUS_OK and reply is
 * not NULL), its status with msg (NULL: none) and the close received;
 * watch_close: a stream's close awaited (the client went, or the call was cancelled);
 * send: msg sent on a stream, taken into out (the message before destroyed), sending set
 * (msg NULL: nothing sent, GRPC_CALL_ERROR). */
grpc_call_error kl_call_request(struct kl_call *k, grpc_server *gs, grpc_completion_queue *cq, void *tag);
grpc_call_error kl_call_begin(struct kl_call *k, void *tag);
grpc_call_error kl_call_finish(struct kl_call *k, const ProtobufCMessage *reply, grpc_status_code code,
			       const char *msg, void *tag);
grpc_call_error kl_call_watch_close(struct kl_call *k, void *tag);
grpc_call_error kl_call_send(struct kl_call *k, grpc_byte_buffer *msg, void *tag);

/* A unary call of a client's (the device plugin's Register, the DRA liveness probe's calls):
 * what it sends and receives. */
struct kl_unary {
	grpc_byte_buffer *send, *recv; /* recv: NULL when no message came */
	grpc_metadata_array imd, tmd;
	grpc_status_code status;
	grpc_slice details;
};
/* u ready to send req. */
void kl_unary_init(struct kl_unary *u, const ProtobufCMessage *req);
/* The whole call in one batch (send, close, receive the answer and the status); tag when it
 * is done. */
grpc_call_error kl_unary_start(struct kl_unary *u, grpc_call *call, void *tag);
void kl_unary_free(struct kl_unary *u);
/* Shut a queue made for pluck down, drain it, destroy it. */
void kl_pluck_queue_close(grpc_completion_queue *q);

/* fn(arg) on a thread of the module's own, joined: 0, or pthread_create's error when no
 * thread could start (fn not run). The thread inherits the caller's signal mask. The
 * command's thread runs no gRPC code (src/compat/kubernetes/grpc.c explains why). */
int kl_apart(void (*fn)(void *), void *arg);

/* What kl_listen says in its errors: after "a unix socket's path is at most N bytes, this
 * one has M" (long_hint) and after "PATH is in use by another process" (in_use): each
 * " (...)" or "". */
struct kl_hints {
	const char *long_hint, *in_use;
};

/* A gRPC server on the unix socket path in dir, its queue cq, started: a stale socket of an
 * earlier run removed first (said at level 1), a live one or something not a socket
 * refused. *ino: the socket's inode (to tell when it was removed and made anew). NULL with
 * err on failure. */
grpc_server *kl_listen(grpc_completion_queue *cq, const char *path, const char *dir, const struct kl_hints *h,
		       kl_say_fn say, void *ud, int verbose, ino_t *ino, char *err, size_t cap);

/* The serve loop's answer to a server's shutdown notification: under lock, one server fewer
 * live, *gs destroyed and NULL; then, when it was the last one and the plugin is stopping,
 * cq shut down (the serve loop ends when cq is drained). */
void kl_server_gone(pthread_mutex_t *lock, grpc_server **gs, int *live_servers, const int *stopping,
		    grpc_completion_queue *cq);

/* Shut cq down, drain it, destroy it. */
void kl_queue_close(grpc_completion_queue *cq);

#endif
