/* SPDX-License-Identifier: MIT */
/*
 * src/compat/dra/prepare.c and checkpoint.c on their own: claims from a fake API server
 * read (the claim_source interface) answering ResourceClaims written from
 * resource.k8s.io/v1 (kubernetes/api resource/v1/types.go: ResourceClaim{metadata,
 * spec.devices.requests[], status.allocation.devices.results[] {request, driver, pool,
 * device, adminAccess}, status.reservedFor[]}), and what
 * k8s.io/dynamic-resource-allocation kubeletplugin/draplugin.go (29367deb) asks of a
 * driver: one answer per claim UID, idempotent, errors per claim, request names without
 * their subrequest, a device of another claim refused, unprepare of an unknown claim
 * fine. Then the checkpoint: a restart finds what was prepared, a corrupt one is
 * refused, a checkpoint that cannot be written leaves the claim unprepared.
 * Usage: test_prepare WORKDIR (removed when every check passed).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "compat/dra/prepare.h"

static int failures;
#define CHECK(c)                                                                        \
	do {                                                                            \
		if (!(c)) {                                                             \
			fprintf(stderr, "%s:%d: FAILED: %s\n", __FILE__, __LINE__, #c); \
			failures++;                                                     \
		}                                                                       \
	} while (0)

#define DRIVER "gpu.axl.example"
#define POOL   "node-a"

/* the fake API server: one claim per name, its JSON, or a refusal */
struct fake_claim {
	const char *name;
	const char *json; /* NULL: the GET fails */
};
static const struct fake_claim *fake_claims;
static size_t fake_n;
static unsigned long fake_gets;

static int fake_fetch(void *ud, const char *ns, const char *name, const char *uid, char **json, char *err, size_t cap)
{
	(void)ud;
	(void)ns;
	(void)uid;
	fake_gets++;
	for (size_t i = 0; i < fake_n; i++)
		if (strcmp(fake_claims[i].name, name) == 0) {
			if (!fake_claims[i].json)
				break;
			*json = strdup(fake_claims[i].json);
			return *json ? 0 : -1;
		}
	snprintf(err, cap, "resourceclaims.resource.k8s.io \"%s\" not found", name);
	return -1;
}

/* A ResourceClaim as the API server returns it, allocated: results is the JSON list. */
static char *claim_json(const char *name, const char *uid, const char *results)
{
	char *s = NULL;
	if (asprintf(
		&s,
		"{\"apiVersion\":\"resource.k8s.io/v1\",\"kind\":\"ResourceClaim\","
		"\"metadata\":{\"name\":\"%s\",\"namespace\":\"default\",\"uid\":\"%s\",\"resourceVersion\":\"41\"},"
		"\"spec\":{\"devices\":{\"requests\":[{\"name\":\"gpus\",\"exactly\":{\"deviceClassName\":\"gpu.axl."
		"example\","
		"\"allocationMode\":\"ExactCount\",\"count\":2}}]}},"
		"\"status\":{\"allocation\":{\"devices\":{\"results\":%s},"
		"\"nodeSelector\":{\"nodeSelectorTerms\":[{\"matchFields\":[{\"key\":\"metadata.name\",\"operator\":"
		"\"In\","
		"\"values\":[\"node-a\"]}]}]}},"
		"\"reservedFor\":[{\"resource\":\"pods\",\"name\":\"pod-%s\",\"uid\":\"pod-uid-%s\"}]}}",
		name, uid, results, name, name) < 0)
		return NULL;
	return s;
}

static const struct dra_claim_out *by_uid(const struct dra_claim_out *a, size_t n, const char *uid)
{
	for (size_t i = 0; i < n; i++)
		if (a[i].uid && strcmp(a[i].uid, uid) == 0)
			return &a[i];
	return NULL;
}

static int has(const char *s, const char *part)
{
	return s && strstr(s, part) != NULL;
}

static void set_devices(struct dra_prep *p)
{
	struct dra_dev d[8];
	char names[8][16], ids[8][32];
	char *cdi[8];
	for (int i = 0; i < 8; i++) {
		snprintf(names[i], sizeof names[i], "gpu-%d", i);
		snprintf(ids[i], sizeof ids[i], "example.com/gpu=%d", i);
		cdi[i] = ids[i];
		d[i] = (struct dra_dev){ (char *)POOL, names[i], &cdi[i], 1, NULL };
	}
	CHECK(dra_prep_set_devices(p, d, 8) == 0);
}

/* --shares (shares.c): quantities read as the API server writes them, the policy of a
 * device shared n ways, and a shared device prepared from consumedCapacity: the claim's
 * CDI spec with the limiter's variables, refused past the device, removed at unprepare,
 * and removed with the claim when the checkpoint cannot be written. */
static void test_shares(const char *work)
{
	long long v = -1;
	CHECK(dra_quantity_parse("20Gi", &v) == 0 && v == 20LL << 30);
	CHECK(dra_quantity_parse("21474836480", &v) == 0 && v == 21474836480LL);
	CHECK(dra_quantity_parse("1.5Gi", &v) == 0 && v == 3LL << 29);
	CHECK(dra_quantity_parse("25", &v) == 0 && v == 25);
	CHECK(dra_quantity_parse("2k", &v) == 0 && v == 2000);
	CHECK(dra_quantity_parse("1e3", &v) == 0 && v == 1000);
	CHECK(dra_quantity_parse("500m", &v) == 0 && v == 1); /* Value() rounds up */
	CHECK(dra_quantity_parse("-1", &v) != 0 && dra_quantity_parse("lots", &v) != 0);
	CHECK(dra_quantity_parse("20Gb", &v) != 0 && dra_quantity_parse("", &v) != 0);
	CHECK(dra_quantity_parse("9Ei", &v) != 0); /* past int64's Value() */

	struct dra_share_dev sd;
	CHECK(dra_share_policy(80LL << 30, 4, &sd) == 0);
	CHECK(sd.mem.value == 80LL << 30 && sd.mem.def == 20LL << 30 && sd.mem.min == sd.mem.def);
	CHECK(sd.mem.step == sd.mem.def && sd.mem.max == 80LL << 30);
	CHECK(sd.compute.value == 100 && sd.compute.def == 25 && sd.compute.max == 100);
	CHECK(dra_share_policy(80LL << 30, 3, &sd) == 0); /* a MiB multiple; max a multiple of step */
	CHECK(sd.mem.step == 27306LL << 20 && sd.mem.max == 3 * sd.mem.step && sd.compute.max == 99);
	CHECK(dra_share_policy(80LL << 30, 1, &sd) != 0 && dra_share_policy(1 << 20, 2, &sd) != 0);

	char ckpt[4200], cdi_dir[4200], spec[4300];
	snprintf(ckpt, sizeof ckpt, "%s/shares.json", work);
	snprintf(cdi_dir, sizeof cdi_dir, "%s/cdi", work);
	mkdir(cdi_dir, 0755);
	snprintf(spec, sizeof spec, "%s/" DRIVER "-claim-uid-q.json", cdi_dir);
	const char *res = "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":"
			  "\"gpu-0\",\"shareID\":\"0d1c\",\"consumedCapacity\":{\"memory\":\"20Gi\"}}]";
	const char *big = "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":"
			  "\"gpu-0\",\"consumedCapacity\":{\"memory\":\"81Gi\"}}]";
	char *q = claim_json("q", "uid-q", res), *q2 = claim_json("q2", "uid-q2", res),
	     *b = claim_json("b", "uid-b", big);
	struct fake_claim fc[] = { { "q", q }, { "q2", q2 }, { "b", b } };
	fake_claims = fc;
	fake_n = 3;
	struct dra_claim_source src = { NULL, fake_fetch };
	struct dra_prep *p = NULL;
	char err[512];
	CHECK(dra_prep_open(&p, DRIVER, ckpt, &src, err, sizeof err) == 0);
	if (!p)
		return;
	set_devices(p);
	CHECK(dra_share_policy(80LL << 30, 4, &sd) == 0);
	snprintf(sd.uuid, sizeof sd.uuid, "GPU-0000");
	char *id0 = (char *)"example.com/gpu=0";
	struct dra_dev d0 = { (char *)POOL, (char *)"gpu-0", &id0, 1, &sd };
	CHECK(dra_prep_set_devices(p, &d0, 1) == 0);
	struct dra_share_cfg cfg = { cdi_dir, DRIVER, "/host/libaxl_limiter.so", NULL };
	CHECK(dra_prep_set_shares(p, &cfg) == 0);
	struct dra_claim_ref refs[] = { { "default", "uid-q", "q" }, { "default", "uid-q2", "q2" },
					{ "default", "uid-b", "b" } };
	struct dra_claim_out *out = NULL;
	void *own = NULL;
	CHECK(dra_prep_prepare(p, refs, 3, &out, &own, err, sizeof err) == 0);
	if (out) {
		CHECK(!out[0].error && out[0].n_devs == 1 && out[0].devs[0].n_cdi == 2);
		CHECK(!out[1].error); /* a second claim on the shared device */
		if (!out[0].error && out[0].devs[0].n_cdi == 2) {
			CHECK(strcmp(out[0].devs[0].cdi[1], DRIVER "/claim=uid-q-shares") == 0);
			CHECK(out[0].devs[0].share_id && strcmp(out[0].devs[0].share_id, "0d1c") == 0);
		}
		CHECK(has(out[2].error, "more than the device has"));
	}
	dra_prep_release(p, own);
	char *text = NULL;
	FILE *f = fopen(spec, "r");
	size_t cap = 0;
	if (f) {
		CHECK(getdelim(&text, &cap, 0, f) > 0);
		fclose(f);
	}
	CHECK(has(text, "AXL_LIMIT_MEMORY_BYTES_UID_Q=21474836480") && has(text, "AXL_LIMIT_COMPUTE_PERCENT_UID_Q=25"));
	CHECK(has(text, "AXL_LIMIT_DEVICES_UID_Q=GPU-0000") && has(text, "LD_PRELOAD=/opt/axl/lib/libaxl_limiter.so"));
	CHECK(!has(text, "AXL_LIMIT_DEVICES=")); /* the claim's own set only */
	CHECK(has(text, "/host/libaxl_limiter.so"));
	free(text);
	struct dra_claim_ref un = { "default", "uid-q", "q" };
	CHECK(dra_prep_unprepare(p, &un, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && !out[0].error && access(spec, F_OK) != 0);
	dra_prep_release(p, own);
	dra_prep_free(p);
	/* a checkpoint that cannot be written: no spec left behind */
	snprintf(ckpt, sizeof ckpt, "%s/missing/dir/ckpt.json", work);
	p = NULL;
	CHECK(dra_prep_open(&p, DRIVER, ckpt, &src, err, sizeof err) == 0);
	if (p) {
		CHECK(dra_prep_set_devices(p, &d0, 1) == 0 && dra_prep_set_shares(p, &cfg) == 0);
		CHECK(dra_prep_prepare(p, refs, 1, &out, &own, err, sizeof err) == 0);
		CHECK(out && has(out[0].error, "cannot checkpoint") && access(spec, F_OK) != 0);
		dra_prep_release(p, own);
		dra_prep_free(p);
	}
	free(q);
	free(q2);
	free(b);
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_prepare WORKDIR\n");
		return 2;
	}
	const char *work = argv[1];
	char cmd[4200], ckpt[4200];
	snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s'", work, work);
	if (system(cmd) != 0)
		return 2;
	snprintf(ckpt, sizeof ckpt, "%s/dra-" DRIVER ".json", work);

	char *a_json = claim_json(
	    "a", "uid-a",
	    "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":\"gpu-0\"},"
	    "{\"request\":\"gpus/large\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":\"gpu-1\"},"
	    "{\"request\":\"nic\",\"driver\":\"nic.example.com\",\"pool\":\"" POOL "\",\"device\":\"eth0\"}]");
	char *other = claim_json("other", "uid-other",
				 "[{\"request\":\"nic\",\"driver\":\"nic.example.com\",\"pool\":\"" POOL
				 "\",\"device\":\"eth0\"}]");
	char *unknown =
	    claim_json("unknown", "uid-unknown",
		       "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":\"gpu-9\"}]");
	char *taken =
	    claim_json("taken", "uid-taken",
		       "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":\"gpu-0\"}]");
	char *admin = claim_json("admin", "uid-admin",
				 "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL
				 "\",\"device\":\"gpu-0\",\"adminAccess\":true}]");
	char *d_json =
	    claim_json("d", "uid-d",
		       "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\",\"pool\":\"" POOL "\",\"device\":\"gpu-7\"}]");
	char *nofield = claim_json("nofield", "uid-nofield", "[{\"request\":\"gpus\",\"driver\":\"" DRIVER "\"}]");
	const struct fake_claim claims[] = {
		{ "a", a_json },
		{ "other", other },
		{ "unknown", unknown },
		{ "taken", taken },
		{ "admin", admin },
		{ "d", d_json },
		{ "nofield", nofield },
		{ "malformed", "{\"metadata\": {\"uid\": \"uid-malformed\"" },
		{ "unallocated",
		  "{\"metadata\":{\"name\":\"unallocated\",\"namespace\":\"default\",\"uid\":\"uid-un\"},"
		  "\"status\":{}}" },
		{ "gone", NULL },
	};
	fake_claims = claims;
	fake_n = sizeof claims / sizeof claims[0];
	struct dra_claim_source src = { NULL, fake_fetch };
	char err[512] = "";
	struct dra_prep *p = NULL;
	CHECK(dra_prep_open(&p, DRIVER, ckpt, &src, err, sizeof err) == 0);
	if (!p)
		return 1;
	set_devices(p);

	/* one claim: its two devices of this driver, not the other driver's NIC */
	struct dra_claim_ref ra = { "default", "uid-a", "a" };
	struct dra_claim_out *out = NULL;
	void *own = NULL;
	CHECK(dra_prep_prepare(p, &ra, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && out[0].error == NULL && out[0].n_devs == 2);
	if (out && out[0].n_devs == 2) {
		CHECK(strcmp(out[0].uid, "uid-a") == 0);
		CHECK(strcmp(out[0].devs[0].device, "gpu-0") == 0 && strcmp(out[0].devs[0].pool, POOL) == 0);
		CHECK(out[0].devs[0].n_cdi == 1 && strcmp(out[0].devs[0].cdi[0], "example.com/gpu=0") == 0);
		CHECK(out[0].devs[1].n_requests == 1 &&
		      strcmp(out[0].devs[1].requests[0], "gpus") == 0); /* no "/large" */
		CHECK(strcmp(out[0].devs[1].cdi[0], "example.com/gpu=1") == 0);
	}
	dra_prep_release(p, own);
	CHECK(fake_gets == 1 && p->ckpt_writes == 1);
	struct stat st;
	CHECK(stat(ckpt, &st) == 0 && (st.st_mode & 0777) == 0600);

	/* again: the same answer, no read, no write (idempotent) */
	CHECK(dra_prep_prepare(p, &ra, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && out[0].error == NULL && out[0].n_devs == 2);
	dra_prep_release(p, own);
	CHECK(fake_gets == 1 && p->ckpt_writes == 1);

	/* a batch of bad claims and one good: an error each, the good one prepared */
	struct dra_claim_ref batch[] = {
		{ "default", "uid-other", "other" },
		{ "default", "uid-unknown", "unknown" },
		{ "default", "uid-taken", "taken" },
		{ "default", "uid-malformed", "malformed" },
		{ "default", "uid-un", "unallocated" },
		{ "default", "uid-gone", "gone" },
		{ "default", "uid-replaced", "d" },
		{ "default", "uid-nofield", "nofield" },
		{ "default", "", "d" },
		{ "default", "uid-d", "d" },
		{ "default", "uid-admin", "admin" },
	};
	size_t nb = sizeof batch / sizeof batch[0];
	CHECK(dra_prep_prepare(p, batch, nb, &out, &own, err, sizeof err) == 0);
	if (out) {
		CHECK(has(by_uid(out, nb, "uid-other")->error, "has no device of the driver " DRIVER));
		CHECK(has(by_uid(out, nb, "uid-unknown")->error, "gpu-9 is not one of this node's devices"));
		CHECK(has(by_uid(out, nb, "uid-taken")->error, "already prepared for claim default/a (uid uid-a)"));
		CHECK(has(by_uid(out, nb, "uid-malformed")->error, "is not JSON"));
		CHECK(has(by_uid(out, nb, "uid-un")->error, "not allocated"));
		CHECK(has(by_uid(out, nb, "uid-gone")->error, "retrieve claim default/gone"));
		CHECK(has(by_uid(out, nb, "uid-replaced")->error, "got replaced"));
		CHECK(has(by_uid(out, nb, "uid-nofield")->error, "lacks driver, pool, device or request"));
		CHECK(has(by_uid(out, nb, "")->error, "no uid"));
		const struct dra_claim_out *d = by_uid(out, nb, "uid-d");
		CHECK(d && !d->error && d->n_devs == 1 && strcmp(d->devs[0].cdi[0], "example.com/gpu=7") == 0);
		const struct dra_claim_out *ad = by_uid(out, nb, "uid-admin");
		CHECK(ad && !ad->error && ad->n_devs == 1); /* adminAccess shares gpu-0 */
		for (size_t i = 0; i < nb; i++)
			CHECK(out[i].uid && strcmp(out[i].uid, batch[i].uid) == 0);
	}
	dra_prep_release(p, own);
	CHECK(p->nclaims == 3 && p->ckpt_writes == 2); /* one write for the batch */

	/* an empty request: the liveness probe */
	CHECK(dra_prep_prepare(p, NULL, 0, &out, &own, err, sizeof err) == 0);
	dra_prep_release(p, own);

	/* a restart (or kill -9): the checkpoint holds a, d and admin; nothing is read again */
	dra_prep_free(p);
	p = NULL;
	unsigned long gets = fake_gets;
	CHECK(dra_prep_open(&p, DRIVER, ckpt, &src, err, sizeof err) == 0);
	if (!p)
		return 1;
	set_devices(p);
	CHECK(p->nclaims == 3);
	CHECK(dra_prep_prepare(p, &ra, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && !out[0].error && out[0].n_devs == 2 && strcmp(out[0].devs[1].cdi[0], "example.com/gpu=1") == 0);
	dra_prep_release(p, own);
	CHECK(fake_gets == gets && p->ckpt_writes == 0);

	/* unprepare: a, an unknown claim (fine: idempotent), then a again */
	struct dra_claim_ref un[] = { { "default", "uid-a", "a" }, { "default", "uid-never", "never" } };
	CHECK(dra_prep_unprepare(p, un, 2, &out, &own, err, sizeof err) == 0);
	CHECK(out && !out[0].error && !out[1].error && strcmp(out[1].uid, "uid-never") == 0);
	dra_prep_release(p, own);
	CHECK(p->nclaims == 2 && p->ckpt_writes == 1);
	CHECK(dra_prep_unprepare(p, un, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && !out[0].error);
	dra_prep_release(p, own);
	CHECK(p->ckpt_writes == 1);
	/* gpu-0 is free again for another claim */
	struct dra_claim_ref rt = { "default", "uid-taken", "taken" };
	CHECK(dra_prep_prepare(p, &rt, 1, &out, &own, err, sizeof err) == 0);
	CHECK(out && !out[0].error && out[0].n_devs == 1);
	dra_prep_release(p, own);
	dra_prep_free(p);

	/* what the file says after the restart: taken, d, admin; a gone */
	p = NULL;
	CHECK(dra_prep_open(&p, DRIVER, ckpt, &src, err, sizeof err) == 0);
	if (p) {
		CHECK(p->nclaims == 3);
		int a_there = 0;
		for (size_t i = 0; i < p->nclaims; i++)
			a_there |= strcmp(p->claims[i].uid, "uid-a") == 0;
		CHECK(!a_there);
		dra_prep_free(p);
	}

	/* another driver's checkpoint, a corrupt one: refused with the file named */
	p = NULL;
	CHECK(dra_prep_open(&p, "other.example.com", ckpt, &src, err, sizeof err) != 0 && !p);
	CHECK(has(err, "belongs to the driver " DRIVER));
	char bad[4300];
	snprintf(bad, sizeof bad, "%s/bad.json", work);
	FILE *f = fopen(bad, "w");
	if (f) {
		fputs("{\"schema\":\"axl.dra.checkpoint\",\"schema_version\":1,\"driver\":\"" DRIVER
		      "\",\"claims\":[{\"uid\":1}]}",
		      f);
		fclose(f);
	}
	CHECK(dra_prep_open(&p, DRIVER, bad, &src, err, sizeof err) != 0 && has(err, bad));

	/* a checkpoint that cannot be written: the claim is answered with that, not prepared */
	char nodir[4300];
	snprintf(nodir, sizeof nodir, "%s/missing/dir/ckpt.json", work);
	p = NULL;
	CHECK(dra_prep_open(&p, DRIVER, nodir, &src, err, sizeof err) == 0);
	if (p) {
		set_devices(p);
		CHECK(dra_prep_prepare(p, &ra, 1, &out, &own, err, sizeof err) == 0);
		CHECK(out && has(out[0].error, "cannot checkpoint") && out[0].n_devs == 0);
		dra_prep_release(p, own);
		CHECK(p->nclaims == 0);
		dra_prep_free(p);
	}

	test_shares(work);
	free(a_json);
	free(other);
	free(unknown);
	free(taken);
	free(admin);
	free(d_json);
	free(nofield);
	if (failures) {
		fprintf(stderr, "%d check(s) failed; work directory kept: %s\n", failures, work);
		return 1;
	}
	snprintf(cmd, sizeof cmd, "rm -rf '%s'", work);
	if (!getenv("AXL_KEEP_WORK") && system(cmd) != 0) /* kept when asked, as tests/workdir.py */
		return 1;
	printf("ok: prepare, idempotence, errors per claim, checkpoint and restart, shares\n");
	return 0;
}
