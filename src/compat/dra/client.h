/* SPDX-License-Identifier: MIT */
/* Inside the module axl-dra.so: the API-server client of api.c, for publish.c and the
 * module's entry (module.c). */
#ifndef AXL_DRA_CLIENT_H
#define AXL_DRA_CLIENT_H

#include <curl/curl.h>
#include <stddef.h>

#include "api.h"

struct dra_conn;

/* A libcurl handle for method on path (with its query) of the API server: TLS verified
 * against the cluster's CA, the bearer token of now (a token file is read again when it
 * changed: the kubelet rotates projected tokens), JSON accepted; *hdrs is the header list
 * to free after the transfer. NULL with err. */
CURL *dra_conn_easy(struct dra_conn *c, const char *method, const char *path, struct curl_slist **hdrs, char *err,
		    size_t cap);
/* One request with a deadline: 0 with status and body (malloc'd), -1 with err. */
int dra_conn_do(struct dra_conn *c, const char *method, const char *path, const char *body, long *status, char **resp,
		size_t *len, char *err, size_t cap);
/* the server's URL, for messages */
const char *dra_conn_server(const struct dra_conn *c);
/* A connection to the API server of cfg (api.h's open) and its end (close). */
int dra_conn_open(const struct dra_conn_config *cfg, void **out, char *err, size_t cap);
void dra_conn_free(struct dra_conn *c);

/* publish.c */
int dra_pub_start(void *conn, const struct dra_pub_config *cfg, void **pub, char *err, size_t cap);
int dra_pub_set(void *pub, const char *devices, char *err, size_t cap);
void dra_pub_stats(void *pub, struct dra_pub_stats *out);
void dra_pub_stop(void *pub, int remove);

#endif
