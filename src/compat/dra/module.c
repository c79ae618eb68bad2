/* SPDX-License-Identifier: MIT */
/* The entry of the module axl-dra.so (api.h): its one exported table, joining the
 * API-server client (api.c) and the ResourceSlice publisher (publish.c), so that neither
 * of those files calls the other both ways (layers.roles). */
#include "client.h"

/* ---- the module's table ------------------------------------------------------------ */

static int api_request(void *conn, const char *method, const char *path, const char *body, long *status, char **resp,
		       size_t *len, char *err, size_t cap)
{
	return dra_conn_do(conn, method, path, body, status, resp, len, err, cap);
}

static void api_close(void *conn)
{
	dra_conn_free(conn);
}

__attribute__((visibility("default"))) const struct dra_api *axl_dra_api(void);
const struct dra_api *axl_dra_api(void)
{
	static const struct dra_api api = {
		.abi = DRA_API_ABI,
		.open = dra_conn_open,
		.request = api_request,
		.close = api_close,
		.pub_start = dra_pub_start,
		.pub_set = dra_pub_set,
		.pub_stats = dra_pub_stats,
		.pub_stop = dra_pub_stop,
	};
	return &api;
}
