/* SPDX-License-Identifier: MIT */
/* What every file of the gRPC glue uses (glue.h): the log, and a message packed for gRPC. */
#define _GNU_SOURCE
#include "glue.h"

void k8s_glue_say(struct plugin *p, int level, const char *fmt, ...)
{
	if (level >= 2 && !p->cfg.verbose)
		return;
	char msg[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof msg, fmt, ap);
	va_end(ap);
	p->ops.say(p->ops.ud, level, msg);
}

grpc_byte_buffer *k8s_glue_pack(const ProtobufCMessage *m)
{
	size_t n = protobuf_c_message_get_packed_size(m);
	grpc_slice s = grpc_slice_malloc(n);
	protobuf_c_message_pack(m, GRPC_SLICE_START_PTR(s));
	grpc_byte_buffer *bb = grpc_raw_byte_buffer_create(&s, 1);
	grpc_slice_unref(s);
	return bb;
}
