/* SPDX-License-Identifier: MIT */
/* What the kubelet plugins' two gRPC modules share (grpc_glue.h): the log, messages packed
 * and unpacked, a thread of the module's own, a server on a unix socket, its end. */
#define _GNU_SOURCE
#include "grpc_glue.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <grpc/byte_buffer_reader.h>
#include <grpc/grpc_security.h>
#include <grpc/slice.h>
#include <grpc/support/time.h>

void kl_say(kl_say_fn say, void *ud, int verbose, int level, const char *fmt, ...)
{
	if (level >= 2 && !verbose)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	say(ud, level, msg);
}

grpc_byte_buffer *kl_pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(n);
	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}

ProtobufCMessage *kl_unpack(const ProtobufCMessageDescriptor *d, grpc_byte_buffer *bb)
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

void kl_call_init(struct kl_call *k)
{
	memset(k, 0, sizeof *k);
	grpc_call_details_init(&k->det);
	grpc_metadata_array_init(&k->md);
	k->details = grpc_empty_slice();
}

void kl_call_destroy(struct kl_call *k)
{
	if (k->call)
		grpc_call_unref(k->call);
	grpc_call_details_destroy(&k->det);
	grpc_metadata_array_destroy(&k->md);
	if (k->in)
		grpc_byte_buffer_destroy(k->in);
	if (k->out)
		grpc_byte_buffer_destroy(k->out);
	grpc_slice_unref(k->details);
}

grpc_call_error kl_call_request(struct kl_call *k, grpc_server *gs, grpc_completion_queue *cq, void *tag)
{
	return grpc_server_request_call(gs, &k->call, &k->det, &k->md, cq, cq, tag);
}

/* ops[0..n) as one batch, counted in k->pending */
static grpc_call_error batch(struct kl_call *k, const grpc_op *ops, size_t n, void *tag)
{
	k->pending++;
	grpc_call_error e = grpc_call_start_batch(k->call, ops, n, tag, NULL);
	if (e != GRPC_CALL_OK)
		k->pending--;
	return e;
}

grpc_call_error kl_call_begin(struct kl_call *k, void *tag)
{
	grpc_op ops[2];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_RECV_MESSAGE;
	ops[1].data.recv_message.recv_message = &k->in;
	return batch(k, ops, 2, tag);
}

grpc_call_error kl_call_finish(struct kl_call *k, const ProtobufCMessage *reply, grpc_status_code code,
			       const char *msg, void *tag)
{
	grpc_op ops[3];
	memset(ops, 0, sizeof ops);
	size_t n = 0;
	if (reply && code == GRPC_STATUS_OK) {
		if (k->out)
			grpc_byte_buffer_destroy(k->out);
		k->out = kl_pack(reply);
		ops[n].op = GRPC_OP_SEND_MESSAGE;
		ops[n++].data.send_message.send_message = k->out;
	}
	grpc_slice_unref(k->details);
	k->details = grpc_slice_from_copied_string(msg ? msg : "");
	ops[n].op = GRPC_OP_SEND_STATUS_FROM_SERVER;
	ops[n].data.send_status_from_server.status = code;
	ops[n++].data.send_status_from_server.status_details = msg ? &k->details : NULL;
	ops[n].op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	ops[n++].data.recv_close_on_server.cancelled = &k->cancelled;
	return batch(k, ops, n, tag);
}

grpc_call_error kl_call_watch_close(struct kl_call *k, void *tag)
{
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_RECV_CLOSE_ON_SERVER;
	op.data.recv_close_on_server.cancelled = &k->cancelled;
	return batch(k, &op, 1, tag);
}

grpc_call_error kl_call_send(struct kl_call *k, grpc_byte_buffer *msg, void *tag)
{
	if (k->out)
		grpc_byte_buffer_destroy(k->out);
	k->out = msg;
	if (!msg)
		return GRPC_CALL_ERROR;
	grpc_op op;
	memset(&op, 0, sizeof op);
	op.op = GRPC_OP_SEND_MESSAGE;
	op.data.send_message.send_message = msg;
	grpc_call_error e = batch(k, &op, 1, tag);
	k->sending = e == GRPC_CALL_OK;
	return e;
}

void kl_unary_init(struct kl_unary *u, const ProtobufCMessage *req)
{
	u->send = kl_pack(req);
	u->recv = NULL;
	grpc_metadata_array_init(&u->imd);
	grpc_metadata_array_init(&u->tmd);
	u->status = GRPC_STATUS_UNKNOWN;
	u->details = grpc_empty_slice();
}

grpc_call_error kl_unary_start(struct kl_unary *u, grpc_call *call, void *tag)
{
	grpc_op ops[6];
	memset(ops, 0, sizeof ops);
	ops[0].op = GRPC_OP_SEND_INITIAL_METADATA;
	ops[1].op = GRPC_OP_SEND_MESSAGE;
	ops[1].data.send_message.send_message = u->send;
	ops[2].op = GRPC_OP_SEND_CLOSE_FROM_CLIENT;
	ops[3].op = GRPC_OP_RECV_INITIAL_METADATA;
	ops[3].data.recv_initial_metadata.recv_initial_metadata = &u->imd;
	ops[4].op = GRPC_OP_RECV_MESSAGE;
	ops[4].data.recv_message.recv_message = &u->recv;
	ops[5].op = GRPC_OP_RECV_STATUS_ON_CLIENT;
	ops[5].data.recv_status_on_client.trailing_metadata = &u->tmd;
	ops[5].data.recv_status_on_client.status = &u->status;
	ops[5].data.recv_status_on_client.status_details = &u->details;
	return grpc_call_start_batch(call, ops, 6, tag, NULL);
}

void kl_unary_free(struct kl_unary *u)
{
	grpc_byte_buffer_destroy(u->send);
	if (u->recv)
		grpc_byte_buffer_destroy(u->recv);
	grpc_metadata_array_destroy(&u->imd);
	grpc_metadata_array_destroy(&u->tmd);
	grpc_slice_unref(u->details);
}

void kl_pluck_queue_close(grpc_completion_queue *q)
{
	grpc_completion_queue_shutdown(q);
	while (grpc_completion_queue_pluck(q, NULL, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type !=
	       GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(q);
}

struct apart {
	void (*fn)(void *);
	void *arg;
};

static void *apart_main(void *arg)
{
	const struct apart *a = arg;
	a->fn(a->arg);
	return NULL;
}

int kl_apart(void (*fn)(void *), void *arg)
{
	struct apart a = {fn, arg};
	pthread_t th;
	int e = pthread_create(&th, NULL, apart_main, &a);
	if (e == 0)
		pthread_join(th, NULL);
	return e;
}

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

grpc_server *kl_listen(grpc_completion_queue *cq, const char *path, const char *dir, const struct kl_hints *h,
		       kl_say_fn say, void *ud, int verbose, ino_t *ino, char *err, size_t cap)
{
	struct sockaddr_un sa;
	if (strlen(path) >= sizeof sa.sun_path) {
		snprintf(err, cap, "%s: a unix socket's path is at most %zu bytes, this one has %zu%s", path,
			 sizeof sa.sun_path - 1, strlen(path), h->long_hint);
		return NULL;
	}
	int alive = socket_alive(path);
	if (alive == 1) {
		snprintf(err, cap, "%s is in use by another process%s", path, h->in_use);
		return NULL;
	}
	if (alive < 0) {
		snprintf(err, cap, "%s exists and is not a socket; not removing it", path);
		return NULL;
	}
	struct stat st;
	if (lstat(path, &st) == 0) {
		kl_say(say, ud, verbose, 1, "removing the stale socket %s of an earlier run", path);
		if (unlink(path) != 0) {
			snprintf(err, cap, "cannot remove the stale socket %s: %s", path, strerror(errno));
			return NULL;
		}
	}
	grpc_server *gs = grpc_server_create(NULL, NULL);
	grpc_server_register_completion_queue(gs, cq, NULL);
	char addr[4200];
	snprintf(addr, sizeof addr, "unix:%s", path);
	grpc_server_credentials *cr = grpc_insecure_server_credentials_create();
	int port = grpc_server_add_http2_port(gs, addr, cr);
	grpc_server_credentials_release(cr);
	if (port == 0 || lstat(path, &st) != 0) {
		int e = access(dir, W_OK) != 0 ? errno : 0;
		snprintf(err, cap, "cannot listen on %s%s%s", path, e ? ": " : "", e ? strerror(e) : "");
		grpc_server_destroy(gs);
		return NULL;
	}
	*ino = st.st_ino;
	grpc_server_start(gs);
	return gs;
}

void kl_server_gone(pthread_mutex_t *lock, grpc_server **gs, int *live_servers, const int *stopping,
		    grpc_completion_queue *cq)
{
	pthread_mutex_lock(lock);
	(*live_servers)--;
	int last = *stopping && *live_servers == 0;
	grpc_server_destroy(*gs);
	*gs = NULL;
	pthread_mutex_unlock(lock);
	if (last)
		grpc_completion_queue_shutdown(cq);
}

void kl_queue_close(grpc_completion_queue *cq)
{
	grpc_completion_queue_shutdown(cq);
	while (grpc_completion_queue_next(cq, gpr_inf_future(GPR_CLOCK_MONOTONIC), NULL).type != GRPC_QUEUE_SHUTDOWN)
		;
	grpc_completion_queue_destroy(cq);
}
