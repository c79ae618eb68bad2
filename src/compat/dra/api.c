/* SPDX-License-Identifier: MIT */
/*
 * The API-server client of `axl dra-plugin` (api.h), in the module axl-dra.so: libcurl
 * with OpenSSL from Debian (libcurl4-openssl-dev), loaded by that command only.
 *
 * Where the server is and who we are, as client-go's rest.InClusterConfig and its
 * kubeconfig loader find them (kubernetes/kubernetes staging/src/k8s.io/client-go/rest/
 * config.go and tools/clientcmd):
 *  - in cluster: https://$KUBERNETES_SERVICE_HOST:$KUBERNETES_SERVICE_PORT, the CA in
 *    <sa>/ca.crt, the token in <sa>/token, read again when the file changes (the kubelet
 *    rotates a projected token well before it expires); <sa> is client-go's
 *    /var/run/secrets/kubernetes.io/serviceaccount, or the command's sa_dir;
 *  - --kubeconfig FILE: the current context's cluster (server, certificate-authority or
 *    certificate-authority-data) and user (token, tokenFile, client-certificate(-data) and
 *    client-key(-data)); paths relative to the file's folder. The reader takes the block
 *    YAML that kubectl writes (mappings, sequences of mappings, plain and quoted
 *    scalars), not YAML's flow style or anchors.
 * The server's certificate is always verified: insecure-skip-tls-verify is refused.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <curl/curl.h>

#include "../../util/file.h"
#include "api.h"
#include "client.h"

#define DEFAULT_TIMEOUT_S 10.0
#define MAX_KUBECONFIG    (4u << 20)
#define MAX_TOKEN         (64u << 10)
#define MAX_BODY          (64u << 20)

struct dra_conn {
	char *server; /* https://host:port, no trailing slash */
	char *ca_file;
	struct curl_blob ca_blob; /* certificate-authority-data, decoded */
	char *ca_data;
	char *cert_file, *key_file;
	char *cert_data, *key_data;
	size_t cert_len, key_len;
	char *user_agent;
	long timeout_ms;
	pthread_mutex_t lock; /* the token and the share's data */
	char *token;          /* static, or the token file's content */
	char *token_file;
	struct timespec token_mtime;
	off_t token_size;
	CURLSH *share;
	pthread_mutex_t share_lock[CURL_LOCK_DATA_LAST];
};

static void errf(char *err, size_t cap, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, cap, fmt, ap);
	va_end(ap);
}

/* ---- a kubeconfig's block YAML, flattened to "clusters[0].cluster.server" = value ---- */

struct ykv {
	char *path, *value;
};

struct yflat {
	struct ykv *kv;
	size_t n, cap;
};

static void yflat_free(struct yflat *y)
{
	for (size_t i = 0; i < y->n; i++) {
		free(y->kv[i].path);
		free(y->kv[i].value);
	}
	free(y->kv);
}

static int yflat_add(struct yflat *y, const char *path, const char *value)
{
	if (y->n == y->cap) {
		size_t nc = y->cap ? y->cap * 2 : 64;
		struct ykv *k = realloc(y->kv, nc * sizeof *k);
		if (!k)
			return -1;
		y->kv = k;
		y->cap = nc;
	}
	y->kv[y->n].path = strdup(path);
	y->kv[y->n].value = strdup(value);
	if (!y->kv[y->n].path || !y->kv[y->n].value)
		return -1;
	y->n++;
	return 0;
}

static const char *yget(const struct yflat *y, const char *fmt, ...)
{
	char path[512];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(path, sizeof path, fmt, ap);
	va_end(ap);
	for (size_t i = y->n; i-- > 0;)
		if (strcmp(y->kv[i].path, path) == 0)
			return y->kv[i].value;
	return NULL;
}

/* A scalar: "double" (with \" \\ \n \t escapes), 'single' ('' is '), or plain (a " #"
 * comment cut off, trailing spaces trimmed). */
static void yscalar(const char *s, char *out, size_t cap)
{
	size_t o = 0;
	if (*s == '"') {
		for (s++; *s && *s != '"' && o + 1 < cap; s++) {
			if (*s == '\\' && s[1]) {
				s++;
				out[o++] = *s == 'n' ? '\n' : *s == 't' ? '\t' : *s;
			} else {
				out[o++] = *s;
			}
		}
	} else if (*s == '\'') {
		for (s++; *s && o + 1 < cap; s++) {
			if (*s == '\'') {
				if (s[1] != '\'')
					break;
				s++;
			}
			out[o++] = *s;
		}
	} else {
		for (; *s && o + 1 < cap; s++) {
			if (*s == '#' && o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t'))
				break;
			out[o++] = *s;
		}
		while (o > 0 && (out[o - 1] == ' ' || out[o - 1] == '\t' || out[o - 1] == '\r'))
			o--;
	}
	out[o] = 0;
}

struct yframe {
	int col; /* the column of this mapping's keys (or of a sequence's dashes); -1: not yet known */
	int seq; /* a sequence: only "- " lines belong to it */
	int items;
	char path[384];
};

static int yparse(const char *text, struct yflat *y, char *err, size_t cap)
{
	struct yframe st[32];
	int depth = 1;
	memset(st, 0, sizeof st);
	static char val[MAX_TOKEN];
	int lineno = 0;
	for (const char *p = text; *p;) {
		const char *eol = strchr(p, '\n');
		size_t len = eol ? (size_t)(eol - p) : strlen(p);
		char line[MAX_TOKEN];
		lineno++;
		if (len >= sizeof line) {
			errf(err, cap, "line %d is longer than %zu bytes", lineno, sizeof line - 1);
			return -1;
		}
		memcpy(line, p, len);
		line[len] = 0;
		p = eol ? eol + 1 : p + len;
		int ind = 0;
		while (line[ind] == ' ')
			ind++;
		char *t = line + ind;
		if (!*t || *t == '#' || *t == '\r' || strncmp(t, "---", 3) == 0)
			continue;
		if (*t == '\t') {
			errf(err, cap, "line %d: a tab in the indentation", lineno);
			return -1;
		}
		for (;;) {
			struct yframe *top = &st[depth - 1];
			if (depth > 1 && top->col < 0) { /* the first line under "key:" */
				int pcol = st[depth - 2].col;
				if (ind > pcol || (ind == pcol && t[0] == '-' && (t[1] == ' ' || !t[1]))) {
					top->col = ind;
					top->seq = t[0] == '-';
				} else {
					depth--; /* "key:" with nothing under it */
					continue;
				}
			}
			if (depth > 1 && (ind < top->col || (top->seq && ind == top->col && t[0] != '-'))) {
				depth--;
				continue;
			}
			break;
		}
		struct yframe *top = &st[depth - 1];
		if (t[0] == '-' && (t[1] == ' ' || !t[1])) {
			if (!top->seq || ind != top->col) {
				errf(err, cap, "line %d: a sequence item where none was expected", lineno);
				return -1;
			}
			if (depth == (int)(sizeof st / sizeof st[0])) {
				errf(err, cap, "line %d: nested too deeply", lineno);
				return -1;
			}
			char ipath[sizeof top->path];
			snprintf(ipath, sizeof ipath, "%s[%d]", top->path, top->items++);
			struct yframe *f = &st[depth++];
			memset(f, 0, sizeof *f);
			memcpy(f->path, ipath, sizeof f->path);
			t++;
			ind++;
			while (*t == ' ')
				t++, ind++;
			f->col = ind;
			top = f;
			if (!*t)
				continue;
		}
		/* key: value */
		char *colon = NULL;
		for (char *q = t; *q; q++)
			if (*q == ':' && (q[1] == ' ' || q[1] == 0 || q[1] == '\r')) {
				colon = q;
				break;
			}
		if (!colon)
			continue; /* a scalar item of a sequence (contexts' extensions...): not read */
		*colon = 0;
		char key[256];
		yscalar(t, key, sizeof key);
		const char *v = colon + 1;
		while (*v == ' ')
			v++;
		char path[512];
		snprintf(path, sizeof path, "%s%s%s", top->path, *top->path ? "." : "", key);
		if (!*v || *v == '\r' || *v == '#') {
			if (depth == (int)(sizeof st / sizeof st[0])) {
				errf(err, cap, "line %d: nested too deeply", lineno);
				return -1;
			}
			struct yframe *f = &st[depth++];
			memset(f, 0, sizeof *f);
			f->col = -1;
			snprintf(f->path, sizeof f->path, "%s", path);
			continue;
		}
		if (*v == '|' || *v == '>' || *v == '{' || *v == '[' || *v == '&' || *v == '*') {
			if ((*v == '{' && v[1] == '}') || (*v == '[' && v[1] == ']'))
				continue; /* an empty mapping or sequence */
			errf(err, cap, "line %d: %s: only block mappings and plain or quoted scalars are read", lineno,
			     key);
			return -1;
		}
		yscalar(v, val, sizeof val);
		if (yflat_add(y, path, val) != 0) {
			errf(err, cap, "out of memory");
			return -1;
		}
	}
	return 0;
}

/* ---- base64 (the kubeconfig's *-data fields) --------------------------------------- */

static int b64val(int c)
{
	if (c >= 'A' && c <= 'Z')
		return c - 'A';
	if (c >= 'a' && c <= 'z')
		return c - 'a' + 26;
	if (c >= '0' && c <= '9')
		return c - '0' + 52;
	if (c == '+')
		return 62;
	if (c == '/')
		return 63;
	return -1;
}

static char *b64dec(const char *s, size_t *outlen)
{
	size_t n = strlen(s);
	char *out = malloc(n / 4 * 3 + 4);
	if (!out)
		return NULL;
	size_t o = 0;
	unsigned acc = 0;
	int bits = 0;
	for (; *s; s++) {
		if (*s == '=' || isspace((unsigned char)*s))
			continue;
		int v = b64val((unsigned char)*s);
		if (v < 0) {
			free(out);
			return NULL;
		}
		acc = (acc << 6) | (unsigned)v;
		bits += 6;
		if (bits >= 8) {
			bits -= 8;
			out[o++] = (char)((acc >> bits) & 0xff);
		}
	}
	out[o] = 0;
	*outlen = o;
	return out;
}

/* ---- the connection ---------------------------------------------------------------- */

static char *relpath(const char *dir, const char *p)
{
	char *out = NULL;
	if (p[0] == '/' || !dir)
		return strdup(p);
	return asprintf(&out, "%s/%s", dir, p) < 0 ? NULL : out;
}

void dra_conn_free(struct dra_conn *c)
{
	if (!c)
		return;
	if (c->share)
		curl_share_cleanup(c->share);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_destroy(&c->share_lock[i]);
	pthread_mutex_destroy(&c->lock);
	free(c->server);
	free(c->ca_file);
	free(c->ca_data);
	free(c->cert_file);
	free(c->key_file);
	free(c->cert_data);
	free(c->key_data);
	free(c->user_agent);
	if (c->token)
		explicit_bzero(c->token, strlen(c->token));
	free(c->token);
	free(c->token_file);
	free(c);
}

static void share_lock(CURL *h, curl_lock_data data, curl_lock_access access, void *ud)
{
	(void)h, (void)access;
	struct dra_conn *c = ud;
	pthread_mutex_lock(&c->share_lock[data]);
}

static void share_unlock(CURL *h, curl_lock_data data, void *ud)
{
	(void)h;
	struct dra_conn *c = ud;
	pthread_mutex_unlock(&c->share_lock[data]);
}

/* Read the token file again when it changed (c->lock held). */
static int token_refresh(struct dra_conn *c, char *err, size_t cap)
{
	if (!c->token_file)
		return 0;
	struct stat st;
	if (stat(c->token_file, &st) != 0) {
		errf(err, cap, "the token %s: %s", c->token_file, strerror(errno));
		return -1;
	}
	if (c->token && st.st_mtim.tv_sec == c->token_mtime.tv_sec && st.st_mtim.tv_nsec == c->token_mtime.tv_nsec &&
	    st.st_size == c->token_size)
		return 0;
	char *text = NULL;
	size_t len = 0;
	if (axl__file_read(c->token_file, MAX_TOKEN, 0, &text, &len) != 0) {
		errf(err, cap, "the token %s cannot be read", c->token_file);
		return -1;
	}
	while (len > 0 && isspace((unsigned char)text[len - 1]))
		text[--len] = 0;
	if (!len) {
		free(text);
		errf(err, cap, "the token %s is empty", c->token_file);
		return -1;
	}
	if (c->token)
		explicit_bzero(c->token, strlen(c->token));
	free(c->token);
	c->token = text;
	c->token_mtime = st.st_mtim;
	c->token_size = st.st_size;
	return 0;
}

static int from_kubeconfig(struct dra_conn *c, const char *file, char *err, size_t cap)
{
	char *text = NULL;
	size_t len = 0;
	if (axl__file_read(file, MAX_KUBECONFIG, 0, &text, &len) != 0) {
		errf(err, cap, "--kubeconfig %s: %s", file, errno ? strerror(errno) : "cannot be read");
		return -1;
	}
	struct yflat y = { 0 };
	char perr[256];
	int rc = -1;
	char *dir = strdup(file), *slash = dir ? strrchr(dir, '/') : NULL;
	if (slash)
		*slash = 0;
	const char *base = slash ? dir : ".";
	if (yparse(text, &y, perr, sizeof perr) != 0) {
		errf(err, cap, "--kubeconfig %s: %s", file, perr);
		goto out;
	}
	const char *cur = yget(&y, "current-context"), *cluster = NULL, *user = NULL;
	for (int k = 0; yget(&y, "contexts[%d].name", k); k++)
		if (!cur || strcmp(yget(&y, "contexts[%d].name", k), cur) == 0) {
			cluster = yget(&y, "contexts[%d].context.cluster", k);
			user = yget(&y, "contexts[%d].context.user", k);
			break;
		}
	int ci = -1, ui = -1;
	for (int k = 0; yget(&y, "clusters[%d].name", k) && ci < 0; k++)
		if (!cluster || strcmp(yget(&y, "clusters[%d].name", k), cluster) == 0)
			ci = k;
	for (int k = 0; yget(&y, "users[%d].name", k) && ui < 0; k++)
		if (!user || strcmp(yget(&y, "users[%d].name", k), user) == 0)
			ui = k;
	const char *server = ci >= 0 ? yget(&y, "clusters[%d].cluster.server", ci) : NULL;
	if (!server) {
		errf(err, cap, "--kubeconfig %s: no cluster with a server for context '%s'", file,
		     cur ? cur : "(none)");
		goto out;
	}
	if (strncmp(server, "https://", 8) != 0) {
		errf(err, cap, "--kubeconfig %s: server %s is not https://", file, server);
		goto out;
	}
	const char *skip = yget(&y, "clusters[%d].cluster.insecure-skip-tls-verify", ci);
	if (skip && strcmp(skip, "true") == 0) {
		errf(err, cap, "--kubeconfig %s: insecure-skip-tls-verify is refused: name the cluster's CA", file);
		goto out;
	}
	c->server = strdup(server);
	size_t sl = c->server ? strlen(c->server) : 0;
	while (sl > 0 && c->server[sl - 1] == '/')
		c->server[--sl] = 0;
	const char *v;
	if ((v = yget(&y, "clusters[%d].cluster.certificate-authority-data", ci))) {
		size_t n;
		if (!(c->ca_data = b64dec(v, &n))) {
			errf(err, cap, "--kubeconfig %s: certificate-authority-data is not base64", file);
			goto out;
		}
		c->ca_blob.data = c->ca_data;
		c->ca_blob.len = n;
		c->ca_blob.flags = CURL_BLOB_NOCOPY;
	} else if ((v = yget(&y, "clusters[%d].cluster.certificate-authority", ci))) {
		c->ca_file = relpath(base, v);
	}
	if (ui >= 0) {
		if ((v = yget(&y, "users[%d].user.token", ui)))
			c->token = strdup(v);
		else if ((v = yget(&y, "users[%d].user.tokenFile", ui)))
			c->token_file = relpath(base, v);
		if ((v = yget(&y, "users[%d].user.client-certificate-data", ui)) &&
		    !(c->cert_data = b64dec(v, &c->cert_len))) {
			errf(err, cap, "--kubeconfig %s: client-certificate-data is not base64", file);
			goto out;
		} else if (!v && (v = yget(&y, "users[%d].user.client-certificate", ui))) {
			c->cert_file = relpath(base, v);
		}
		if ((v = yget(&y, "users[%d].user.client-key-data", ui)) && !(c->key_data = b64dec(v, &c->key_len))) {
			errf(err, cap, "--kubeconfig %s: client-key-data is not base64", file);
			goto out;
		} else if (!v && (v = yget(&y, "users[%d].user.client-key", ui))) {
			c->key_file = relpath(base, v);
		}
		if (yget(&y, "users[%d].user.exec.command", ui) && !c->token && !c->token_file && !c->cert_data &&
		    !c->cert_file) {
			errf(err, cap,
			     "--kubeconfig %s: user '%s' uses an exec credential plugin, which is not run: give a "
			     "token, tokenFile or client certificate",
			     file, user ? user : "");
			goto out;
		}
	}
	rc = 0;
out:
	yflat_free(&y);
	free(text);
	free(dir);
	return rc;
}

/* libcurl's global state, once per process (the module is never unloaded) */
static CURLcode curl_init_rc;
static void curl_init_once(void)
{
	curl_init_rc = curl_global_init(CURL_GLOBAL_DEFAULT);
}

int dra_conn_open(const struct dra_conn_config *cfg, void **out, char *err, size_t cap)
{
	*out = NULL;
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, curl_init_once);
	if (curl_init_rc != CURLE_OK) {
		errf(err, cap, "libcurl: %s", curl_easy_strerror(curl_init_rc));
		return -1;
	}
	struct dra_conn *c = calloc(1, sizeof *c);
	if (!c) {
		errf(err, cap, "out of memory");
		return -1;
	}
	pthread_mutex_init(&c->lock, NULL);
	for (int i = 0; i < CURL_LOCK_DATA_LAST; i++)
		pthread_mutex_init(&c->share_lock[i], NULL);
	c->timeout_ms = (long)((cfg->timeout_s > 0 ? cfg->timeout_s : DEFAULT_TIMEOUT_S) * 1000);
	c->user_agent = strdup(cfg->user_agent ? cfg->user_agent : "axl-dra-plugin");
	if (cfg->kubeconfig) {
		if (from_kubeconfig(c, cfg->kubeconfig, err, cap) != 0)
			goto fail;
	} else {
		if (!cfg->host || !*cfg->host || !cfg->port || !*cfg->port) {
			errf(err, cap,
			     "not in a cluster (KUBERNETES_SERVICE_HOST and KUBERNETES_SERVICE_PORT are not set): "
			     "name a --kubeconfig");
			goto fail;
		}
		const char *sa =
		    cfg->sa_dir && *cfg->sa_dir ? cfg->sa_dir : "/var/run/secrets/kubernetes.io/serviceaccount";
		/* an IPv6 address in brackets, as net.JoinHostPort writes it */
		if (asprintf(&c->server, strchr(cfg->host, ':') ? "https://[%s]:%s" : "https://%s:%s", cfg->host,
			     cfg->port) < 0) {
			c->server = NULL;
			errf(err, cap, "out of memory");
			goto fail;
		}
		if (asprintf(&c->ca_file, "%s/ca.crt", sa) < 0 || asprintf(&c->token_file, "%s/token", sa) < 0) {
			errf(err, cap, "out of memory");
			goto fail;
		}
	}
	if (!c->server || !c->user_agent) {
		errf(err, cap, "out of memory");
		goto fail;
	}
	if (c->ca_file && access(c->ca_file, R_OK) != 0) {
		errf(err, cap, "the cluster's CA %s: %s", c->ca_file, strerror(errno));
		goto fail;
	}
	if (c->token_file && token_refresh(c, err, cap) != 0)
		goto fail;
	if (!c->token && !c->cert_data && !c->cert_file) {
		errf(err, cap, "no credentials: the kubeconfig's user has no token, tokenFile or client certificate");
		goto fail;
	}
	c->share = curl_share_init();
	if (c->share) {
		curl_share_setopt(c->share, CURLSHOPT_LOCKFUNC, share_lock);
		curl_share_setopt(c->share, CURLSHOPT_UNLOCKFUNC, share_unlock);
		curl_share_setopt(c->share, CURLSHOPT_USERDATA, c);
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_DNS);
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_SSL_SESSION);
		curl_share_setopt(c->share, CURLSHOPT_SHARE, CURL_LOCK_DATA_CONNECT);
	}
	*out = c;
	return 0;
fail:
	dra_conn_free(c);
	return -1;
}

const char *dra_conn_server(const struct dra_conn *c)
{
	return c->server;
}

CURL *dra_conn_easy(struct dra_conn *c, const char *method, const char *path, struct curl_slist **hdrs, char *err,
		    size_t cap)
{
	*hdrs = NULL;
	char url[4096];
	if ((size_t)snprintf(url, sizeof url, "%s%s", c->server, path) >= sizeof url) {
		errf(err, cap, "a path too long: %.80s...", path);
		return NULL;
	}
	pthread_mutex_lock(&c->lock);
	int rc = token_refresh(c, err, cap);
	char *auth = NULL;
	if (rc == 0 && c->token && asprintf(&auth, "Authorization: Bearer %s", c->token) < 0)
		auth = NULL, rc = -1;
	pthread_mutex_unlock(&c->lock);
	if (rc != 0)
		return NULL;
	CURL *h = curl_easy_init();
	if (!h) {
		free(auth);
		errf(err, cap, "libcurl: no handle");
		return NULL;
	}
	struct curl_slist *l = NULL;
	if (auth)
		l = curl_slist_append(l, auth);
	l = curl_slist_append(l, "Accept: application/json");
	l = curl_slist_append(l, "Content-Type: application/json");
	if (auth) {
		explicit_bzero(auth, strlen(auth));
		free(auth);
	}
	*hdrs = l;
	curl_easy_setopt(h, CURLOPT_URL, url);
	curl_easy_setopt(h, CURLOPT_PROTOCOLS_STR, "https");
	curl_easy_setopt(h, CURLOPT_HTTPHEADER, l);
	curl_easy_setopt(h, CURLOPT_USERAGENT, c->user_agent);
	curl_easy_setopt(h, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYPEER, 1L);
	curl_easy_setopt(h, CURLOPT_SSL_VERIFYHOST, 2L);
	curl_easy_setopt(h, CURLOPT_CONNECTTIMEOUT_MS, c->timeout_ms);
	if (c->ca_data)
		curl_easy_setopt(h, CURLOPT_CAINFO_BLOB, &c->ca_blob);
	else if (c->ca_file)
		curl_easy_setopt(h, CURLOPT_CAINFO, c->ca_file);
	if (c->cert_data) {
		struct curl_blob b = { c->cert_data, c->cert_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLCERT_BLOB, &b);
		curl_easy_setopt(h, CURLOPT_SSLCERTTYPE, "PEM");
	} else if (c->cert_file) {
		curl_easy_setopt(h, CURLOPT_SSLCERT, c->cert_file);
	}
	if (c->key_data) {
		struct curl_blob b = { c->key_data, c->key_len, CURL_BLOB_COPY };
		curl_easy_setopt(h, CURLOPT_SSLKEY_BLOB, &b);
		curl_easy_setopt(h, CURLOPT_SSLKEYTYPE, "PEM");
	} else if (c->key_file) {
		curl_easy_setopt(h, CURLOPT_SSLKEY, c->key_file);
	}
	if (c->share)
		curl_easy_setopt(h, CURLOPT_SHARE, c->share);
	if (strcmp(method, "GET") != 0)
		curl_easy_setopt(h, CURLOPT_CUSTOMREQUEST, method);
	return h;
}

struct membuf {
	char *p;
	size_t n, cap;
	int over;
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *ud)
{
	struct membuf *b = ud;
	size_t n = size * nmemb;
	if (b->n + n + 1 > MAX_BODY) {
		b->over = 1;
		return 0;
	}
	if (b->n + n + 1 > b->cap) {
		size_t nc = b->cap ? b->cap : 4096;
		while (nc < b->n + n + 1)
			nc *= 2;
		char *q = realloc(b->p, nc);
		if (!q)
			return 0;
		b->p = q;
		b->cap = nc;
	}
	memcpy(b->p + b->n, data, n);
	b->n += n;
	b->p[b->n] = 0;
	return n;
}

int dra_conn_do(struct dra_conn *c, const char *method, const char *path, const char *body, long *status, char **resp,
		size_t *len, char *err, size_t cap)
{
	*resp = NULL;
	*len = 0;
	*status = 0;
	struct curl_slist *hdrs;
	CURL *h = dra_conn_easy(c, method, path, &hdrs, err, cap);
	if (!h) {
		curl_slist_free_all(hdrs);
		return -1;
	}
	struct membuf b = { 0 };
	char cerr[CURL_ERROR_SIZE] = "";
	curl_easy_setopt(h, CURLOPT_ERRORBUFFER, cerr);
	curl_easy_setopt(h, CURLOPT_TIMEOUT_MS, c->timeout_ms);
	curl_easy_setopt(h, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(h, CURLOPT_WRITEDATA, &b);
	if (body) {
		curl_easy_setopt(h, CURLOPT_POSTFIELDS, body);
		curl_easy_setopt(h, CURLOPT_POSTFIELDSIZE_LARGE, (curl_off_t)strlen(body));
	}
	CURLcode rc = curl_easy_perform(h);
	if (rc == CURLE_OK)
		curl_easy_getinfo(h, CURLINFO_RESPONSE_CODE, status);
	curl_easy_cleanup(h);
	curl_slist_free_all(hdrs);
	if (rc != CURLE_OK) {
		free(b.p);
		errf(err, cap, "%s %s%s: %s", method, c->server, path,
		     b.over  ? "the answer is larger than 64 MiB"
		     : *cerr ? cerr
			     : curl_easy_strerror(rc));
		return -1;
	}
	if (!b.p && !(b.p = calloc(1, 1))) {
		errf(err, cap, "out of memory");
		return -1;
	}
	*resp = b.p;
	*len = b.n;
	return 0;
}
