/* SPDX-License-Identifier: MIT */
/*
 * axl serve: live metrics over HTTP for Prometheus (docs/metrics.md, "axl serve").
 *
 *   GET /metrics    the sample in the text format 0.0.4 (axl_sample_prometheus)
 *   GET /healthz    "ok"
 *   GET /inventory  the axl.inventory document
 *   GET /           a page that links the three, as node_exporter's and dcgm-exporter's do
 *   anything else 404; a method other than GET or HEAD 405. Nothing can be changed.
 *
 * libmicrohttpd runs a small pool of threads, each with its own event loop: a client
 * that sends half a request, or nothing, holds a socket until the connection timeout,
 * never a thread, so other scrapes go on. The sampler is not thread-safe and sampling
 * costs more than handing out text, so one sample is taken at most every --interval
 * milliseconds (100 by default) under a mutex; scrapes within that window get the
 * response already rendered (a reference-counted libmicrohttpd response, not a copy).
 * libmicrohttpd itself is loaded with dlopen when serve starts (below, and dl.c).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "cli.h"

static struct serve_opts so;

#ifndef AXL_HAVE_MHD

int serve_start(const struct opts *o, const struct serve_opts *sopt, int ready, struct serve **out)
{
	(void)o;
	(void)sopt;
	(void)ready;
	*out = NULL;
	fprintf(stderr, "axl: serve is not available: this axl was built without libmicrohttpd "
			"(install libmicrohttpd-dev, or run scripts/deps.sh, and build again)\n");
	return 1;
}
void serve_ready(struct serve *s)
{
	(void)s;
}
void serve_stop(struct serve *s)
{
	(void)s;
}
static int cmd_serve(struct opts *o, int argc, char **argv)
{
	(void)argc;
	(void)argv;
	struct serve *s;
	return serve_start(o, &so, 1, &s);
}

#else

#include <arpa/inet.h>
#include <errno.h>
#include <microhttpd.h>
#include <netdb.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdlib.h>
#include <sys/socket.h>
#include <time.h>

#if MHD_VERSION < 0x00097002
typedef int MHD_RESULT;
#else
typedef enum MHD_Result MHD_RESULT;
#endif

/* libmicrohttpd is loaded when axl serve runs, not linked (dl.c): the functions used,
 * typed by <microhttpd.h>, in a table resolved from libmicrohttpd.so.12. The macros
 * after it route every call below through the table; one left out is an undefined
 * reference when linking. $AXL_MHD_LIBRARY loads that file instead (tests). */
#define MHD_FUNCTIONS(X)                                                                               \
	X(MHD_start_daemon)                                                                            \
	X(MHD_stop_daemon)                                                                             \
	X(MHD_get_daemon_info)                                                                         \
	X(MHD_create_response_from_buffer)                                                             \
	X(MHD_create_response_from_buffer_with_free_callback)                                          \
	X(MHD_add_response_header)                                                                     \
	X(MHD_queue_response)                                                                          \
	X(MHD_destroy_response)
static struct {
#define X(f) __typeof__(f) *f;
	MHD_FUNCTIONS(X)
#undef X
} mhd;
static const struct cli_sym mhd_syms[] = {
#define X(f) {#f, offsetof(__typeof__(mhd), f)},
	MHD_FUNCTIONS(X)
#undef X
};
#define MHD_start_daemon (*mhd.MHD_start_daemon)
#define MHD_stop_daemon (*mhd.MHD_stop_daemon)
#define MHD_get_daemon_info (*mhd.MHD_get_daemon_info)
#define MHD_create_response_from_buffer (*mhd.MHD_create_response_from_buffer)
#define MHD_create_response_from_buffer_with_free_callback (*mhd.MHD_create_response_from_buffer_with_free_callback)
#define MHD_add_response_header (*mhd.MHD_add_response_header)
#define MHD_queue_response (*mhd.MHD_queue_response)
#define MHD_destroy_response (*mhd.MHD_destroy_response)

#define DEFAULT_LISTEN "127.0.0.1:9400"
#define DEFAULT_MIN_INTERVAL_MS 100
#define POOL_THREADS 4
#define CONNECTION_LIMIT 256
#define PER_IP_LIMIT 64
#define CONNECTION_TIMEOUT_S 10

static const char PROM_TYPE[] = "text/plain; version=0.0.4; charset=utf-8";

struct serve {
	pthread_mutex_t lock;
	atomic_int ready;            /* /healthz: 200 when set, else 503 (axl agent before its first write) */
	struct MHD_Daemon *daemon;
	axl_context *ctx;
	axl_inventory *inv;
	char *inv_json;
	axl_sampler *sampler;        /* under lock */
	struct MHD_Response *metrics; /* the last rendered /metrics, under lock */
	double metrics_ms;           /* monotonic time it was sampled */
	double min_interval_ms;
	unsigned prom_flags;
	uint64_t samples;            /* samples taken, under lock */
	struct MHD_Response *healthz, *starting, *inventory, *not_found, *not_allowed, *index;
	char index_html[1024];       /* GET /: what serves here, with links (index's buffer) */
};

static double mono_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static struct MHD_Response *text_response(const char *text, const char *type)
{
	struct MHD_Response *r =
		MHD_create_response_from_buffer(strlen(text), (void *)(uintptr_t)text, MHD_RESPMEM_PERSISTENT);
	if (r)
		MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, type);
	return r;
}

/* Take a sample and render it as the new /metrics response; called under the lock. */
static int refresh(struct serve *sv, double now)
{
	axl_sample *smp;
	if (axl_sampler_sample(sv->sampler, &smp) != 0)
		return -1;
	char *text;
	size_t len;
	int rc = axl_sample_prometheus(smp, sv->prom_flags, &text, &len);
	axl_sample_free(smp);
	if (rc)
		return -1;
	/* libmicrohttpd frees the text with free(); axl_free is free() underneath, but
	 * say so through a callback rather than assume it */
	struct MHD_Response *r = MHD_create_response_from_buffer_with_free_callback(len, text, axl_free);
	if (!r) {
		axl_free(text);
		return -1;
	}
	MHD_add_response_header(r, MHD_HTTP_HEADER_CONTENT_TYPE, PROM_TYPE);
	if (sv->metrics)
		MHD_destroy_response(sv->metrics); /* connections still sending it keep it alive */
	sv->metrics = r;
	sv->metrics_ms = now;
	sv->samples++;
	return 0;
}

static MHD_RESULT serve_metrics(struct serve *sv, struct MHD_Connection *c)
{
	MHD_RESULT ret;
	pthread_mutex_lock(&sv->lock);
	double now = mono_ms();
	if (!sv->metrics || now - sv->metrics_ms >= sv->min_interval_ms) {
		if (refresh(sv, now) != 0 && !sv->metrics) {
			pthread_mutex_unlock(&sv->lock);
			static const char failed[] = "sampling failed\n";
			struct MHD_Response *r = text_response(failed, "text/plain; charset=utf-8");
			if (!r)
				return MHD_NO;
			ret = MHD_queue_response(c, MHD_HTTP_INTERNAL_SERVER_ERROR, r);
			MHD_destroy_response(r);
			return ret;
		}
	}
	/* queued under the lock: the response cannot be replaced and freed meanwhile */
	ret = MHD_queue_response(c, MHD_HTTP_OK, sv->metrics);
	pthread_mutex_unlock(&sv->lock);
	return ret;
}

static MHD_RESULT handle(void *cls, struct MHD_Connection *c, const char *url, const char *method,
			 const char *version, const char *upload_data, size_t *upload_data_size, void **con_cls)
{
	struct serve *sv = cls;
	(void)version;
	(void)upload_data;
	if (strcmp(method, MHD_HTTP_METHOD_GET) != 0 && strcmp(method, MHD_HTTP_METHOD_HEAD) != 0)
		return MHD_queue_response(c, MHD_HTTP_METHOD_NOT_ALLOWED, sv->not_allowed); /* and close */
	/* answer once the whole request is in (the first call only has the headers): a
	 * response queued earlier makes libmicrohttpd close the connection */
	static int seen;
	if (*con_cls != &seen) {
		*con_cls = &seen;
		return MHD_YES;
	}
	if (*upload_data_size) {
		*upload_data_size = 0; /* a GET with a body: ignored */
		return MHD_YES;
	}
	if (strcmp(url, "/metrics") == 0)
		return serve_metrics(sv, c);
	if (strcmp(url, "/healthz") == 0)
		return atomic_load(&sv->ready) ? MHD_queue_response(c, MHD_HTTP_OK, sv->healthz)
					       : MHD_queue_response(c, MHD_HTTP_SERVICE_UNAVAILABLE, sv->starting);
	if (strcmp(url, "/inventory") == 0)
		return MHD_queue_response(c, MHD_HTTP_OK, sv->inventory);
	if (strcmp(url, "/") == 0)
		return MHD_queue_response(c, MHD_HTTP_OK, sv->index);
	return MHD_queue_response(c, MHD_HTTP_NOT_FOUND, sv->not_found);
}

/* "127.0.0.1:9400", "[::1]:9400", "0.0.0.0:9400", "localhost:9400", ":9400" (every
 * IPv4 address). 0 with the address, or -1 with a message. */
static int parse_listen(const char *spec, struct sockaddr_storage *ss, socklen_t *sl, char *shown, size_t cap)
{
	char host[256];
	const char *port;
	if (spec[0] == '[') {
		const char *end = strchr(spec, ']');
		if (!end || end[1] != ':' || (size_t)(end - spec - 1) >= sizeof host) {
			fprintf(stderr, "axl: --listen takes ADDR:PORT or [IPV6]:PORT, not '%s'\n", spec);
			return -1;
		}
		memcpy(host, spec + 1, (size_t)(end - spec - 1));
		host[end - spec - 1] = '\0';
		port = end + 2;
	} else {
		const char *colon = strrchr(spec, ':');
		if (!colon || (size_t)(colon - spec) >= sizeof host || strchr(spec, ':') != colon) {
			fprintf(stderr,
				"axl: --listen takes ADDR:PORT (an IPv6 address in brackets: [::1]:9400), not '%s'\n",
				spec);
			return -1;
		}
		memcpy(host, spec, (size_t)(colon - spec));
		host[colon - spec] = '\0';
		if (!host[0])
			snprintf(host, sizeof host, "0.0.0.0");
		port = colon + 1;
	}
	char *end;
	long p = strtol(port, &end, 10);
	if (!*port || *end || p < 0 || p > 65535) {
		fprintf(stderr, "axl: --listen: '%s' is not a port (0..65535)\n", port);
		return -1;
	}
	struct addrinfo hints = {0}, *res = NULL;
	hints.ai_family = AF_UNSPEC;
	hints.ai_socktype = SOCK_STREAM;
	hints.ai_flags = AI_NUMERICSERV;
	int rc = getaddrinfo(host, port, &hints, &res);
	if (rc || !res) {
		fprintf(stderr, "axl: --listen: cannot resolve '%s': %s\n", host, gai_strerror(rc));
		return -1;
	}
	memcpy(ss, res->ai_addr, res->ai_addrlen);
	*sl = res->ai_addrlen;
	freeaddrinfo(res);
	char buf[INET6_ADDRSTRLEN];
	if (ss->ss_family == AF_INET6) {
		inet_ntop(AF_INET6, &((struct sockaddr_in6 *)ss)->sin6_addr, buf, sizeof buf);
		snprintf(shown, cap, "[%s]", buf);
	} else {
		inet_ntop(AF_INET, &((struct sockaddr_in *)ss)->sin_addr, buf, sizeof buf);
		snprintf(shown, cap, "%s", buf);
	}
	return 0;
}

static void log_mhd(void *cls, const char *fmt, va_list ap)
{
	(void)cls;
	fprintf(stderr, "axl: http: ");
	vfprintf(stderr, fmt, ap);
}

static void free_responses(struct serve *sv)
{
	struct MHD_Response **rs[] = {&sv->metrics,   &sv->healthz,   &sv->starting,
				      &sv->inventory, &sv->not_found, &sv->not_allowed, &sv->index};
	for (size_t i = 0; i < sizeof rs / sizeof rs[0]; i++)
		if (*rs[i]) {
			MHD_destroy_response(*rs[i]);
			*rs[i] = NULL;
		}
}

void serve_ready(struct serve *sv)
{
	if (sv)
		atomic_store(&sv->ready, 1);
}

void serve_stop(struct serve *sv)
{
	if (!sv)
		return;
	if (sv->daemon)
		MHD_stop_daemon(sv->daemon); /* waits for its threads: nothing uses sv after this */
	free_responses(sv);
	axl_free(sv->inv_json);
	axl_sampler_free(sv->sampler);
	pthread_mutex_destroy(&sv->lock);
	axl_inventory_free(sv->inv);
	axl_context_free(sv->ctx);
	free(sv);
}

/* The caller has blocked SIGINT and SIGTERM (libmicrohttpd's threads inherit the mask)
 * and waits for them itself. */
int serve_start(const struct opts *o, const struct serve_opts *sopt, int ready, struct serve **out)
{
	*out = NULL;
	struct sockaddr_storage ss;
	socklen_t sl;
	char host[INET6_ADDRSTRLEN + 8];
	if (parse_listen(sopt->listen ? sopt->listen : DEFAULT_LISTEN, &ss, &sl, host, sizeof host))
		return EXIT_USAGE;
	if (cli_dlopen("serve", "AXL_MHD_LIBRARY", "libmicrohttpd.so.12", "libmicrohttpd12", mhd_syms,
		       sizeof mhd_syms / sizeof *mhd_syms, &mhd))
		return 1;
	struct serve *sv = calloc(1, sizeof *sv);
	if (!sv) {
		fprintf(stderr, "axl: out of memory\n");
		return 1;
	}
	pthread_mutex_init(&sv->lock, NULL);
	atomic_init(&sv->ready, ready);
	if (open_inventory(o, &sv->ctx, &sv->inv)) {
		serve_stop(sv);
		return 1;
	}
	print_warnings(sv->inv);
	/* axl agent's --interval is its refresh period in seconds: it samples at the default rate */
	sv->min_interval_ms = sopt->interval_ms ? (double)sopt->interval_ms : DEFAULT_MIN_INTERVAL_MS;
	sv->prom_flags = sopt->dcgm ? AXL_METRICS_DCGM : 0;
	if (axl_sampler_open(&sv->sampler, sv->inv, sopt->processes ? AXL_SAMPLER_PROCESSES : 0) ||
	    axl_inventory_json(sv->inv, 0, &sv->inv_json, NULL)) {
		fprintf(stderr, "axl: %s\n", axl_error_last());
		serve_stop(sv);
		return 1;
	}
	sv->healthz = text_response("ok\n", "text/plain; charset=utf-8");
	sv->starting = text_response("starting: the first labels and CDI specs are not written yet\n",
				     "text/plain; charset=utf-8");
	sv->inventory = text_response(sv->inv_json, "application/json");
	sv->not_found = text_response("not found: try /metrics, /healthz or /inventory\n", "text/plain; charset=utf-8");
	sv->not_allowed = text_response("method not allowed: this server is read-only (GET, HEAD)\n",
					"text/plain; charset=utf-8");
	/* the landing page a browser gets, as node_exporter's and dcgm-exporter's: what this
	 * is and where its documents are (relative links: it may sit behind a proxy's prefix) */
	size_t nacc = 0;
	for (size_t i = 0; i < axl_inventory_device_count(sv->inv); i++)
		nacc += axl_device_family(axl_inventory_device(sv->inv, i)) != AXL_FAMILY_CPU;
	snprintf(sv->index_html, sizeof sv->index_html,
		 "<!DOCTYPE html>\n<html><head><meta charset=\"utf-8\"><title>axl</title></head>\n<body>\n"
		 "<h1>axl</h1>\n<p>%zu accelerator%s on this node.</p>\n<ul>\n"
		 "<li><a href=\"metrics\">/metrics</a>: the metrics, for Prometheus%s</li>\n"
		 "<li><a href=\"healthz\">/healthz</a>: ok when serving</li>\n"
		 "<li><a href=\"inventory\">/inventory</a>: the devices (axl.inventory JSON)</li>\n"
		 "</ul>\n</body></html>\n",
		 nacc, nacc == 1 ? "" : "s",
		 sv->prom_flags & AXL_METRICS_DCGM ? " (also under dcgm-exporter's names)" : "");
	sv->index = text_response(sv->index_html, "text/html; charset=utf-8");
	if (!sv->healthz || !sv->starting || !sv->inventory || !sv->not_found || !sv->not_allowed || !sv->index) {
		fprintf(stderr, "axl: out of memory\n");
		serve_stop(sv);
		return 1;
	}
	MHD_add_response_header(sv->not_allowed, MHD_HTTP_HEADER_ALLOW, "GET, HEAD");
	/* a first sample now, so that the first scrape already has rates */
	pthread_mutex_lock(&sv->lock);
	refresh(sv, mono_ms());
	pthread_mutex_unlock(&sv->lock);
	signal(SIGPIPE, SIG_IGN);

	unsigned flags = MHD_USE_INTERNAL_POLLING_THREAD | MHD_USE_AUTO;
	if (ss.ss_family == AF_INET6)
		flags |= MHD_USE_IPv6;
	if (o->verbose)
		flags |= MHD_USE_ERROR_LOG;
	sv->daemon = MHD_start_daemon(
	    flags, 0, NULL, NULL, handle, sv, MHD_OPTION_SOCK_ADDR, (struct sockaddr *)&ss, MHD_OPTION_THREAD_POOL_SIZE,
	    (unsigned)POOL_THREADS, MHD_OPTION_CONNECTION_LIMIT, (unsigned)CONNECTION_LIMIT,
	    MHD_OPTION_PER_IP_CONNECTION_LIMIT, (unsigned)PER_IP_LIMIT, MHD_OPTION_CONNECTION_TIMEOUT,
	    (unsigned)CONNECTION_TIMEOUT_S, MHD_OPTION_EXTERNAL_LOGGER, log_mhd, NULL, MHD_OPTION_END);
	if (!sv->daemon) {
		fprintf(stderr, "axl: cannot listen on %s: %s\n", sopt->listen ? sopt->listen : DEFAULT_LISTEN,
			errno ? strerror(errno) : "libmicrohttpd could not start");
		serve_stop(sv);
		return 1;
	}
	unsigned port = 0;
	const union MHD_DaemonInfo *info = MHD_get_daemon_info(sv->daemon, MHD_DAEMON_INFO_BIND_PORT);
	if (info)
		port = info->port;
	size_t nd = axl_inventory_device_count(sv->inv);
	fprintf(stderr, "axl: serving http://%s:%u/metrics (%zu device%s, a sample at most every %.0f ms%s%s)\n", host,
		port, nd, nd == 1 ? "" : "s", sv->min_interval_ms, sopt->dcgm ? ", DCGM names" : "",
		sopt->processes ? ", processes" : "");
	fflush(stderr);
	*out = sv;
	return 0;
}

static int cmd_serve(struct opts *o, int argc, char **argv)
{
	(void)argc, (void)argv;
	/* the signals are waited for below, by this thread only: block them before
	 * libmicrohttpd's threads start (they inherit the mask) */
	sigset_t sigs;
	sigemptyset(&sigs);
	sigaddset(&sigs, SIGINT);
	sigaddset(&sigs, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &sigs, NULL);
	struct serve *sv;
	int rc = serve_start(o, &so, 1, &sv);
	if (rc)
		return rc;
	int sig = 0;
	while (sigwait(&sigs, &sig) != 0)
		;
	if (o->verbose)
		fprintf(stderr, "axl: signal %d: stopping\n", sig);
	serve_stop(sv);
	return 0;
}

#endif

static const struct cli_opt options[] = {
	{.type = CLI_OPT_STRING, .name = "listen", .value = &so.listen, .value_name = "ADDR:PORT",
	 .help = "127.0.0.1:9400 by default; 0.0.0.0:9400 for every IPv4 address,\n[::1]:9400 for IPv6"},
	{.type = CLI_OPT_DURATION, .name = "interval", .value = &so.interval_ms,
	 .help = "sample at most every DURATION (default 100ms); scrapes in between\nshare the last sample", .min = 1,
	 .max = 86400000},
	{.type = CLI_OPT_FLAG, .name = "dcgm", .value = &so.dcgm,
	 .help = "also dcgm-exporter's DCGM_FI_* names, for its dashboards"},
	{.type = CLI_OPT_FLAG, .name = "processes", .value = &so.processes,
	 .help = "also per-process series (one per process and device)"},
	{0},
};

const struct cli_command cli_cmd_serve = {
	"serve", cmd_serve, CLI_G_NODE, options, NULL, "serve live metrics over HTTP for Prometheus",
	"Serve live metrics over HTTP for Prometheus: /metrics (text format 0.0.4), /healthz,\n"
	"/inventory (docs/metrics.md).",
};
