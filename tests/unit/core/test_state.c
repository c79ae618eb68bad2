/* SPDX-License-Identifier: MIT */
/* The state directory: limits recorded, listed and cleared; malformed and oversized
 * state files refused with the line and the field; concurrent writers under the lock;
 * writers killed with SIGKILL at random moments leave the old or the new file. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "axl.h"
#include "check.h"
#include "internal.h"
#include "state.h"

static char dir[256];

static axl_context *open_ctx(const char *state_dir)
{
	char var[512];
	snprintf(var, sizeof var, "AXL_STATE_DIR=%s", state_dir);
	const char *env[] = {var, NULL};
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.env = state_dir ? env : NULL;
	o.flags = AXL_CONTEXT_NO_ENV;
	axl_context *ctx = NULL;
	int rc = axl_context_open(&ctx, &o);
	CHECK_INT(rc, 0);
	return ctx;
}

static void write_file(const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs(text, f);
		fclose(f);
	}
}

static void rm_rf(const char *d)
{
	DIR *dp = opendir(d);
	if (!dp)
		return;
	struct dirent *e;
	while ((e = readdir(dp)))
		if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
			unlinkat(dirfd(dp), e->d_name, 0);
	closedir(dp);
	rmdir(d);
}

static void test_basic(void)
{
	axl_context *ctx = open_ctx(dir);
	CHECK_STR(axl_state_dir(ctx), dir);
	struct axl_limit *rows = (void *)1;
	size_t n = 99;
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0); /* no directory yet: nothing */
	CHECK_INT(n, 0);
	CHECK(rows == NULL);
	CHECK_INT(axl__limit_put(ctx, "nvidia:0", "GPU-aaaa", 1 << 30, 50), 0);
	CHECK_INT(axl__limit_put(ctx, "amdgpu:1", NULL, -1, 25), 0);
	CHECK_INT(axl__limit_put(ctx, "nvidia:0", "GPU-aaaa", 2ll << 30, -1), 0); /* replaces */
	struct stat sb;
	CHECK(stat(dir, &sb) == 0 && (sb.st_mode & 0777) == 0700);
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0);
	CHECK_INT(n, 2);
	if (n == 2) {
		CHECK_STR(rows[0].device, "nvidia:0");
		CHECK_STR(rows[0].uuid, "GPU-aaaa");
		CHECK_INT(rows[0].memory_bytes, 2ll << 30);
		CHECK_INT(rows[0].compute_percent, -1);
		CHECK_INT(rows[0].pid, getpid());
		CHECK(rows[0].created > 1600000000);
		CHECK_STR(rows[1].device, "amdgpu:1");
		CHECK(rows[1].uuid == NULL);
		CHECK_INT(rows[1].memory_bytes, -1);
		CHECK_INT(rows[1].compute_percent, 25);
	}
	axl_free(rows);
	/* bad values */
	CHECK_INT(axl__limit_put(ctx, "x:0", NULL, -1, -1), AXL_EINVAL);
	CHECK_INT(axl__limit_put(ctx, "x:0", NULL, 0, -1), AXL_ERANGE);
	CHECK_INT(axl__limit_put(ctx, "x:0", NULL, -1, 101), AXL_ERANGE);
	CHECK_INT(axl__limit_put(ctx, "x:0", NULL, -1, 0), AXL_ERANGE);
	/* clear by uuid, then again (idempotent), then by id */
	size_t removed = 9;
	CHECK_INT(axl_limit_clear(ctx, NULL, "GPU-aaaa", &removed), 0);
	CHECK_INT(removed, 1);
	CHECK_INT(axl_limit_clear(ctx, NULL, "GPU-aaaa", &removed), 0);
	CHECK_INT(removed, 0);
	CHECK_INT(axl_limit_clear(ctx, NULL, "amdgpu:1", &removed), 0);
	CHECK_INT(removed, 1);
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0);
	CHECK_INT(n, 0);
	/* partitions survive limit changes and go away idempotently */
	struct axl__state_part p = {.device = "nvidia:0", .uuid = "GPU-aaaa", .kind = "mig", .partition = "gi1/ci0",
				    .profile = "1g.10gb", .pid = (int)getpid(), .owner = AXL_PARTITION_OWNER_WORKLOAD};
	CHECK_INT(axl__state_part_add(ctx, &p), 0);
	CHECK_INT(axl__limit_put(ctx, "nvidia:0", "GPU-aaaa", -1, 10), 0);
	struct axl__state st;
	CHECK_INT(axl__state_read(ctx, &st), 0);
	CHECK_INT(st.parts.n, 1);
	CHECK_INT(st.limits.n, 1);
	if (st.parts.n == 1) {
		CHECK_STR(st.parts.v[0].profile, "1g.10gb");
		CHECK_INT(st.parts.v[0].pid, getpid());
		CHECK_INT(st.parts.v[0].owner, AXL_PARTITION_OWNER_WORKLOAD);
	}
	axl__state_free(&st);
	/* the owner round trip, and records that break its rules */
	{
		static const char *const ok[] = {
			"{\"schema\":\"axl.state\",\"schema_version\":1,"
			"\"partitions\":[{\"device\":\"d\",\"kind\":\"mig\","
			"\"partition\":\"p\",\"pid\":0,\"owner\":\"operator\"}]}",
			"{\"schema\":\"axl.state\",\"schema_version\":1,"
			"\"partitions\":[{\"device\":\"d\",\"kind\":\"mig\","
			"\"partition\":\"p\",\"pid\":7}]}"};
		static const int want[] = {AXL_PARTITION_OWNER_OPERATOR, AXL_PARTITION_OWNER_UNKNOWN};
		for (int i = 0; i < 2; i++) {
			struct axl__state t;
			CHECK_INT(axl__state_parse("t.json", ok[i], strlen(ok[i]), &t), 0);
			CHECK_INT(t.parts.n, 1);
			if (t.parts.n == 1)
				CHECK_INT(t.parts.v[0].owner, want[i]);
			size_t len = 0;
			char *txt = axl__state_format(&t, &len);
			CHECK(txt &&
			      (i == 0 ? strstr(txt, "\"owner\": \"operator\"") != NULL : strstr(txt, "owner") == NULL));
			free(txt);
			axl__state_free(&t);
		}
		static const char *const bad[] = {
			"{\"schema\":\"axl.state\",\"schema_version\":1,"
			"\"partitions\":[{\"device\":\"d\",\"kind\":\"mig\","
			"\"partition\":\"p\",\"pid\":0,\"owner\":\"root\"}]}",
			"{\"schema\":\"axl.state\",\"schema_version\":1,"
			"\"partitions\":[{\"device\":\"d\",\"kind\":\"mig\","
			"\"partition\":\"p\",\"pid\":0,\"owner\":\"workload\"}]}",
			"{\"schema\":\"axl.state\",\"schema_version\":1,"
			"\"partitions\":[{\"device\":\"d\",\"kind\":\"mig\","
			"\"partition\":\"p\",\"pid\":9,\"owner\":\"operator\"}]}"};
		for (int i = 0; i < 3; i++) {
			struct axl__state t;
			CHECK_INT(axl__state_parse("t.json", bad[i], strlen(bad[i]), &t), AXL_EPARSE);
			CHECK(strstr(axl_error_last(), "owner") != NULL || strstr(axl_error_last(), "pid") != NULL);
		}
	}
	CHECK_INT(axl__state_part_remove(ctx, "GPU-aaaa", "gi1/ci0", &removed), 0);
	CHECK_INT(removed, 1);
	CHECK_INT(axl__state_part_remove(ctx, "GPU-aaaa", "gi1/ci0", &removed), 0);
	CHECK_INT(removed, 0);
	CHECK_INT(axl_limit_clear(ctx, NULL, "nvidia:0", NULL), 0);
	axl_context_free(ctx);
}

/* Each malformed document, refused with the line and the field. */
static void test_malformed(void)
{
	axl_context *ctx = open_ctx(dir);
	static const struct {
		const char *text, *msg;
		int rc;
	} cases[] = {
		{"{\"schema\":\"axl.state\",\n\"schema_version\":1,\n\"limits\":[\n"
		 "{\"device\":\"a:0\",\"memory_bytes\":1},\n"
		 "{\"device\":\"a:1\",\"memory_bytes\":2},\n{\"device\":\"a:2\",\n\"memory_bytes\":-5}]}",
		 "state.json:7: limits[2].memory_bytes: must be a positive integer", AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\n\"limits\":[{\"device\":\"a:0\",\n"
		 "\"compute_percent\":101}]}",
		 "state.json:3: limits[0].compute_percent: must be an integer from 1 to 100", AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\n\"limits\":[\n{\"memory_bytes\":1}]}",
		 "state.json:3: limits[0].device: missing", AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\n\"limits\":[{\"device\":\"a:0\"}]}",
		 "state.json:2: limits[0]: neither memory_bytes nor compute_percent", AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\n\"limits\":{}}",
		 "state.json:2: limits: must be an array",
		 AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\n\"limits\":[\n7]}",
		 "state.json:3: limits[0]: must be an object",
		 AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\"partitions\":[\n"
		 "{\"device\":\"a:0\",\"kind\":\"mig\"}]}",
		 "state.json:2: partitions[0].partition: missing", AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\"schema_version\":1,\"partitions\":[{\"device\":\"a:0\",\n"
		 "\"kind\":\"\",\"partition\":\"1\"}]}",
		 "state.json:2: partitions[0].kind: must be a non-empty string", AXL_EPARSE},
		{"{\"schema\":\"axl.stat\",\"schema_version\":1}", "state.json:1: schema: must be \"axl.state\"",
		 AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\n\"schema_version\":\"1\"}",
		 "state.json:2: schema_version: must be a positive integer",
		 AXL_EPARSE},
		{"{\"schema\":\"axl.state\",\n\"schema_version\":2}",
		 "state.json:2: schema_version 2: this axl reads 1",
		 AXL_EVERSION},
		{"{\"schema\":\"axl.state\",\n\"schema_version\":1,\n\"limits\":[\n{\"device\":\"a:0\",",
		 "state.json:4: not JSON",
		 AXL_EPARSE},
		{"[]", "state.json:1: the document must be an object", AXL_EPARSE},
		{"", "state.json:1: not JSON", AXL_EPARSE},
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		write_file("state.json", cases[i].text);
		struct axl_limit *rows = NULL;
		size_t n = 0;
		int rc = axl_limit_list(ctx, &rows, &n);
		if (rc != cases[i].rc || !strstr(axl_error_last(), cases[i].msg))
			fprintf(stderr, "case %zu: rc %d: %s\n", i, rc, axl_error_last());
		CHECK_INT(rc, cases[i].rc);
		CHECK(strstr(axl_error_last(), cases[i].msg) != NULL);
		/* a writer refuses to replace a file it cannot read */
		CHECK_INT(axl__limit_put(ctx, "b:0", NULL, 5, -1), cases[i].rc);
	}
	/* oversized */
	char path[512];
	snprintf(path, sizeof path, "%s/state.json", dir);
	FILE *f = fopen(path, "w");
	CHECK(f != NULL);
	if (f) {
		fputs("{\"schema\":\"axl.state\",\"schema_version\":1,\"pad\":\"", f);
		for (int i = 0; i < 1100 * 1024; i++)
			fputc('x', f);
		fputs("\"}", f);
		fclose(f);
	}
	struct axl_limit *rows = NULL;
	size_t n = 0;
	CHECK_INT(axl_limit_list(ctx, &rows, &n), AXL_ETOOBIG);
	CHECK(strstr(axl_error_last(), "state.json") != NULL);
	/* unknown members are ignored (a later version may add some) */
	write_file("state.json", "{\"schema\":\"axl.state\",\"schema_version\":1,\"x\":[1],\n"
				 "\"limits\":[{\"device\":\"a:0\",\"compute_percent\":5,\"future\":true}]}");
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0);
	CHECK_INT(n, 1);
	axl_free(rows);
	unlink(path);
	axl_context_free(ctx);
}

static void test_rerooted(void)
{
	struct axl_context_options o = AXL_CONTEXT_OPTIONS_INIT;
	o.sysroot = dir; /* any directory: a re-rooted context */
	o.flags = AXL_CONTEXT_NO_ENV;
	axl_context *ctx = NULL;
	CHECK_INT(axl_context_open(&ctx, &o), 0);
	CHECK(axl_state_dir(ctx) == NULL);
	CHECK_INT(axl__limit_put(ctx, "a:0", NULL, 5, -1), AXL_ENOTSYS);
	CHECK(strstr(axl_error_last(), "AXL_STATE_DIR") != NULL);
	struct axl_limit *rows = NULL;
	size_t n = 1;
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0);
	CHECK_INT(n, 0);
	axl_context_free(ctx);
	/* a relative AXL_STATE_DIR is refused */
	const char *env[] = {"AXL_STATE_DIR=rel/dir", NULL};
	o.env = env;
	CHECK_INT(axl_context_open(&ctx, &o), AXL_EINVAL);
	/* a directory others may write is refused */
	char open_dir[300];
	snprintf(open_dir, sizeof open_dir, "%s/open", dir);
	mkdir(open_dir, 0777);
	chmod(open_dir, 0777);
	ctx = open_ctx(open_dir);
	CHECK_INT(axl__limit_put(ctx, "a:0", NULL, 5, -1), AXL_EPERM);
	axl_context_free(ctx);
	rmdir(open_dir);
}

/* N processes each add a limit at once: all N are there at the end. */
static void test_concurrent(void)
{
	enum { N = 12 };
	for (int i = 0; i < N; i++) {
		pid_t pid = fork();
		if (pid == 0) {
			axl_context *ctx = open_ctx(dir);
			char dev[32];
			int rc = 0;
			for (int k = 0; k < 5 && !rc; k++) {
				snprintf(dev, sizeof dev, "p%d:%d", i, k);
				rc = axl__limit_put(ctx, dev, NULL, 1000 + i, -1);
			}
			axl_context_free(ctx);
			_exit(rc ? 1 : 0);
		}
	}
	int ok = 0;
	for (int i = 0; i < N; i++) {
		int status;
		if (wait(&status) > 0 && WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
	}
	CHECK_INT(ok, N);
	axl_context *ctx = open_ctx(dir);
	struct axl_limit *rows = NULL;
	size_t n = 0;
	CHECK_INT(axl_limit_list(ctx, &rows, &n), 0);
	CHECK_INT(n, N * 5);
	axl_free(rows);
	for (int i = 0; i < N; i++)
		for (int k = 0; k < 5; k++) {
			char dev[32];
			snprintf(dev, sizeof dev, "p%d:%d", i, k);
			CHECK_INT(axl_limit_clear(ctx, NULL, dev, NULL), 0);
		}
	axl_context_free(ctx);
}

/* The counter of a state written by the crash child: every record holds the same value
 * (a torn write would mix two); -1 when the file is not there. */
static long long state_counter(void)
{
	struct axl__state st;
	int rc = axl__state_load(dir, &st);
	CHECK_INT(rc, 0);
	if (rc) {
		fprintf(stderr, "%s\n", axl_error_last());
		return -2;
	}
	long long v = st.limits.n ? st.limits.v[0].memory_bytes : -1;
	for (size_t i = 0; i < st.limits.n; i++)
		if (st.limits.v[i].memory_bytes != v)
			v = -3;
	if (st.limits.n && st.limits.n != 64)
		v = -4;
	axl__state_free(&st);
	return v;
}

static int bump_all(struct axl__state *st, void *arg)
{
	long long *seen = arg;
	long long v = st->limits.n ? st->limits.v[0].memory_bytes + 1 : 1;
	while (st->limits.n < 64) {
		struct axl__state_limit *l = AXL__VEC_PUSH(st->limits);
		if (!l)
			return AXL_ENOMEM;
		char dev[32];
		snprintf(dev, sizeof dev, "d:%zu", st->limits.n - 1);
		l->device = strdup(dev);
		l->compute_percent = -1;
	}
	for (size_t i = 0; i < st->limits.n; i++)
		st->limits.v[i].memory_bytes = v;
	*seen = v;
	return 1;
}

static void test_crash(void)
{
	unsigned seed = (unsigned)time(NULL) ^ (unsigned)getpid();
	srand(seed);
	long long last = -1; /* the value last confirmed written */
	int iterations = 150, tmp_seen = 0;
	for (int it = 0; it < iterations; it++) {
		int pfd[2];
		if (pipe(pfd))
			break;
		pid_t pid = fork();
		if (pid == 0) {
			close(pfd[0]);
			axl_context *ctx = open_ctx(dir);
			for (;;) {
				long long v = 0;
				if (axl__state_update(ctx, bump_all, &v))
					_exit(3);
				if (write(pfd[1], &v, sizeof v) != sizeof v)
					_exit(0);
			}
		}
		close(pfd[1]);
		struct timespec ts = {0, (long)(rand() % 8000) * 1000}; /* 0..8 ms */
		nanosleep(&ts, NULL);
		kill(pid, SIGKILL);
		int status;
		waitpid(pid, &status, 0);
		CHECK(WIFSIGNALED(status));
		long long v, confirmed = last;
		while (read(pfd[0], &v, sizeof v) == sizeof v)
			confirmed = v;
		close(pfd[0]);
		long long now = state_counter();
		/* the new state (the write that was confirmed or the one after it) or, when
		 * nothing was confirmed, the old one */
		bool ok = now == confirmed || now == confirmed + 1 || (confirmed == -1 && now == 1);
		if (!ok)
			fprintf(stderr, "crash iteration %d: state %lld, last confirmed %lld\n", it, now, confirmed);
		CHECK(ok);
		last = now;
		DIR *d = opendir(dir);
		struct dirent *e;
		while (d && (e = readdir(d)))
			tmp_seen += strncmp(e->d_name, "state.json.tmp-", 15) == 0;
		if (d)
			closedir(d);
	}
	fprintf(stderr, "crash test: %d kills (seed %u), counter reached %lld, %d stale temporary files seen\n",
		iterations, seed, last, tmp_seen);
	CHECK(last > 1);
	/* a writer after the crashes removes the stale temporary files */
	axl_context *ctx = open_ctx(dir);
	CHECK_INT(axl_limit_clear(ctx, NULL, "none", NULL), 0);
	long long v = 0;
	CHECK_INT(axl__state_update(ctx, bump_all, &v), 0);
	axl_context_free(ctx);
	int left = 0;
	DIR *d = opendir(dir);
	struct dirent *e;
	while (d && (e = readdir(d)))
		left += strncmp(e->d_name, "state.json.tmp-", 15) == 0;
	if (d)
		closedir(d);
	CHECK_INT(left, 0);
}

/* A lock held elsewhere: a writer gives up after the timeout with a message. */
static void test_lock_timeout(void)
{
	char path[512];
	snprintf(path, sizeof path, "%s/state.lock", dir);
	pid_t pid = fork();
	if (pid == 0) {
		/* its own open file description: flock belongs to it */
		int fd = open(path, O_RDWR | O_CREAT, 0600);
		if (fd < 0 || flock(fd, LOCK_EX))
			_exit(1);
		sleep(5);
		_exit(0);
	}
	usleep(100 * 1000);
	axl__state_lock_timeout_ms = 200;
	axl_context *ctx = open_ctx(dir);
	CHECK_INT(axl__limit_put(ctx, "a:0", NULL, 5, -1), AXL_EIO);
	CHECK(strstr(axl_error_last(), "state.lock") != NULL);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	CHECK_INT(axl__limit_put(ctx, "a:0", NULL, 5, -1), 0);
	axl_context_free(ctx);
	axl__state_lock_timeout_ms = 10000;
}

int main(void)
{
	const char *base = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/axl-state-test-%d", base && *base == '/' ? base : "/tmp", (int)getpid());
	test_basic();
	test_malformed();
	test_rerooted();
	test_concurrent();
	test_crash();
	test_lock_timeout();
	rm_rf(dir);
	printf("%d passed, %d failed\n", check_passed, check_failed);
	return check_failed ? 1 : 0;
}
