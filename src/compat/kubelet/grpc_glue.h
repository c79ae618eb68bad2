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

/* Finish a unary call: the reply packed into *out (only when code is GRPC_STATUS_OK and
 * reply is not NULL), the status with msg (NULL: none) kept in *details, the close received
 * into *cancelled; tag when gRPC is done. grpc_call_start_batch's answer: not GRPC_CALL_OK,
 * the call is the caller's to free. */
grpc_call_error kl_finish_unary(grpc_call *call, grpc_byte_buffer **out, grpc_slice *details, int *cancelled,
				const ProtobufCMessage *reply, grpc_status_code code, const char *msg, void *tag);

/* A server stream (the device plugin's ListAndWatch, the DRA plugin's NodeWatchResources):
 * the close awaited (tag when the client goes or the call is cancelled), and one message
 * sent, msg taken into *out (destroying the one before, kept until the next) and sent
 * with tag; *pending counts the batches in flight and *sending the send. The close's
 * answer is grpc_call_start_batch's; the send's 0, or -1 when msg is NULL or the batch
 * did not start. */
grpc_call_error kl_stream_close_watch(grpc_call *call, int *cancelled, int *pending, void *tag);
int kl_stream_send(grpc_call *call, grpc_byte_buffer **out, grpc_byte_buffer *msg, int *sending, int *pending,
		   void *tag);

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
