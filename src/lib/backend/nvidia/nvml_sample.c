/* SPDX-License-Identifier: MIT */
/*
 * NVIDIA live metrics through NVML (sample.h hooks of the nvml backend).
 *
 * The sampler reuses what discovery found (nvml.c): the loaded library, the handles of
 * the GPUs and MIG devices it matched to inventory devices, and, for a replayed
 * inventory, the capture's recorded answers. Each sample's NVML calls run in one
 * persistent worker thread per sampler (woken by a condition variable, so a sample costs
 * no thread creation); the caller waits for it at most the context's vendor_timeout_ms.
 * A worker that misses its deadline is abandoned, never killed (it may hold NVML's
 * locks): NVML is marked wedged for the process and later samples leave NVIDIA devices
 * unread. The worker fills plain per-device results; only the caller touches the
 * sampler and the sample.
 *
 * Per GPU and sample: nvmlDeviceGetUtilizationRates, ...EncoderUtilization,
 * ...DecoderUtilization, ...MemoryInfo_v2 (base), ...PowerUsage (mW), ...EnforcedPowerLimit
 * (mW), ...TotalEnergyConsumption (mJ), ...Temperature (GPU sensor), ...ClockInfo (SM,
 * MEM), ...PcieThroughput (TX, RX; KB/s), ...TotalEccErrors (volatile), ...CurrentClocks-
 * EventReasons (...ThrottleReasons), ...FanSpeed; per MIG device its memory. With
 * AXL_SAMPLER_PROCESSES also the compute and graphics process lists and
 * nvmlDeviceGetProcessUtilization. A call that fails costs its value only;
 * GPU_IS_LOST / RESET_REQUIRED (or three UNKNOWN answers and no success in one sample)
 * make the device lost in that sample.
 *
 * Health (AXL_SAMPLER_HEALTH): nvml_health.c.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "nvml_job.h"
#include "capture.h"
#include "fdinfo.h"
#include "nvml_sample.h"


/* ---- the worker: every NVML call ------------------------------------------------------ */

static bool gone(nvmlReturn_t r)
{
	return r == NVML_ERROR_GPU_IS_LOST || r == NVML_ERROR_RESET_REQUIRED;
}

struct tally {
	unsigned ok, unknown;
	bool lost;
};

/* Count an answer; false when the device is to be treated as lost. */
static bool note(struct tally *c, nvmlReturn_t r)
{
	if (r == NVML_SUCCESS)
		c->ok++;
	else if (r == NVML_ERROR_UNKNOWN)
		c->unknown++;
	if (gone(r) || (c->unknown >= 3 && !c->ok))
		c->lost = true;
	return !c->lost;
}

static void put(struct nvs_target *t, axl_metric m, double v, double max)
{
	if (v >= 0 && v <= max) {
		t->has[m] = true;
		t->v[m] = v;
	}
}

static void read_memory(struct axl__vq *q, struct nvs_target *t, struct tally *c)
{
	nvmlMemory_v2_t mem;
	bool v2;
	nvmlReturn_t r = axl__nvq_memory(q, t->h, &mem, &v2);
	if (!note(c, r) || r != NVML_SUCCESS)
		return;
	if (mem.total == 0 || mem.total >= (1ull << 50) || mem.used > mem.total)
		return; /* nonsense */
	put(t, AXL_METRIC_MEMORY_TOTAL, (double)mem.total, 1e18);
	put(t, AXL_METRIC_MEMORY_USED, (double)mem.used, 1e18);
}

static void read_gpu(struct axl__vq *q, struct nvs_target *t, struct tally *c)
{
	const struct axl__nvml_fns *fn = q->lib;
	nvmlReturn_t r;
	nvmlUtilization_t u;
	r = axl__nvq_util(q, t->h, &u);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS && u.gpu <= 100 && u.memory <= 100) {
		put(t, AXL_METRIC_UTILIZATION, u.gpu, 100);
		put(t, AXL_METRIC_MEMORY_UTILIZATION, u.memory, 100);
	}
	unsigned a, b;
	r = axl__nvq_u32x2(q, "nvmlDeviceGetEncoderUtilization", fn ? fn->DeviceGetEncoderUtilization : NULL, t->h, &a,
			   &b);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_ENCODER_UTILIZATION, a, 100);
	r = axl__nvq_u32x2(q, "nvmlDeviceGetDecoderUtilization", fn ? fn->DeviceGetDecoderUtilization : NULL, t->h, &a,
			   &b);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_DECODER_UTILIZATION, a, 100);
	read_memory(q, t, c);
	if (c->lost)
		return;
	/* milliwatts; a board above 10 kW is not believed */
	r = axl__nvq_u32(q, "nvmlDeviceGetPowerUsage", fn ? fn->DeviceGetPowerUsage : NULL, t->h, &a);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_POWER, a / 1000.0, 10000);
	r = axl__nvq_u32(q, "nvmlDeviceGetEnforcedPowerLimit", fn ? fn->DeviceGetEnforcedPowerLimit : NULL, t->h, &a);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS && a > 0)
		put(t, AXL_METRIC_POWER_LIMIT, a / 1000.0, 10000);
	unsigned long long e;
	r = axl__nvq_u64(q, "nvmlDeviceGetTotalEnergyConsumption", fn ? fn->DeviceGetTotalEnergyConsumption : NULL,
			 t->h, &e);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS && e < (1ull << 62)) {
		t->has_energy = true;
		t->energy_mj = e;
		put(t, AXL_METRIC_ENERGY, (double)e / 1000.0, 1e18);
	}
	r = axl__nvq_u32a(q, "nvmlDeviceGetTemperature", fn ? fn->DeviceGetTemperature : NULL, t->h,
			  NVML_TEMPERATURE_GPU, &a);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_TEMPERATURE, a, 200);
	static const struct {
		unsigned clock;
		axl_metric m;
	} clocks[] = {{NVML_CLOCK_SM, AXL_METRIC_SM_CLOCK}, {NVML_CLOCK_MEM, AXL_METRIC_MEMORY_CLOCK}};
	for (size_t k = 0; k < 2; k++) {
		r = axl__nvq_u32a(q, "nvmlDeviceGetClockInfo", fn ? fn->DeviceGetClockInfo : NULL, t->h,
				  clocks[k].clock, &a);
		if (!note(c, r))
			return;
		if (r == NVML_SUCCESS)
			put(t, clocks[k].m, a, 100000);
	}
	static const struct {
		unsigned counter;
		axl_metric m;
	} pcie[] = {{NVML_PCIE_UTIL_RX_BYTES, AXL_METRIC_PCIE_RX}, {NVML_PCIE_UTIL_TX_BYTES, AXL_METRIC_PCIE_TX}};
	for (size_t k = 0; k < 2; k++) {
		r = axl__nvq_u32a(q, "nvmlDeviceGetPcieThroughput", fn ? fn->DeviceGetPcieThroughput : NULL, t->h,
				  pcie[k].counter, &a);
		if (!note(c, r))
			return;
		/* KB/s (1024 bytes); above 512 GB/s is beyond any PCIe link */
		if (r == NVML_SUCCESS)
			put(t, pcie[k].m, a * 1024.0, 512e9);
	}
	static const struct {
		unsigned type;
		axl_metric m;
	} ecc[] = {{NVML_MEMORY_ERROR_TYPE_CORRECTED, AXL_METRIC_ECC_CORRECTED},
		   {NVML_MEMORY_ERROR_TYPE_UNCORRECTED, AXL_METRIC_ECC_UNCORRECTED}};
	for (size_t k = 0; k < 2; k++) {
		r = axl__nvq_ecc(q, t->h, ecc[k].type, NVML_VOLATILE_ECC, &e);
		if (!note(c, r))
			return;
		if (r == NVML_SUCCESS && e < (1ull << 48))
			put(t, ecc[k].m, (double)e, 1e18);
	}
	r = axl__nvq_u64(q, "nvmlDeviceGetCurrentClocksEventReasons",
			 fn ? fn->DeviceGetCurrentClocksEventReasons : NULL, t->h, &e);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_THROTTLE_REASONS, (double)(e & 0x1ffull), 1e18);
	r = axl__nvq_u32(q, "nvmlDeviceGetFanSpeed", fn ? fn->DeviceGetFanSpeed : NULL, t->h, &a);
	if (!note(c, r))
		return;
	if (r == NVML_SUCCESS)
		put(t, AXL_METRIC_FAN, a, 100);
}

static struct nvs_proc *proc_row(struct nvs_target *t, unsigned pid, unsigned *cap)
{
	for (unsigned i = 0; i < t->nprocs; i++)
		if (t->procs[i].pid == pid)
			return &t->procs[i];
	if (t->nprocs == *cap) {
		unsigned nc = *cap ? *cap * 2 : 16;
		struct nvs_proc *np = realloc(t->procs, nc * sizeof *np);
		if (!np)
			return NULL;
		t->procs = np;
		*cap = nc;
	}
	struct nvs_proc *p = &t->procs[t->nprocs++];
	memset(p, 0, sizeof *p);
	p->pid = pid;
	p->mem = AXL_NVML_VALUE_NOT_AVAILABLE;
	p->sm = p->enc = p->dec = -1;
	return p;
}

static void read_procs(struct axl__vq *q, struct nvs_target *t, struct tally *c)
{
	unsigned cap = 0;
	for (int g = 0; g < 2; g++) {
		nvmlProcessInfo_v2_t *rows;
		unsigned n;
		nvmlReturn_t r = axl__nvq_procs(q, t->h, g == 1, &rows, &n);
		if (!note(c, r)) {
			free(rows);
			return;
		}
		if (r == NVML_SUCCESS)
			t->procs_known = true;
		for (unsigned i = 0; i < n; i++) {
			if (rows[i].pid == 0 || rows[i].pid > 0x3fffffff)
				continue;
			struct nvs_proc *p = proc_row(t, rows[i].pid, &cap);
			if (!p)
				break;
			if (g)
				p->graphics = true;
			else
				p->compute = true;
			unsigned long long m = rows[i].usedGpuMemory;
			if (m != AXL_NVML_VALUE_NOT_AVAILABLE && m < (1ull << 50) &&
			    (p->mem == AXL_NVML_VALUE_NOT_AVAILABLE || m > p->mem))
				p->mem = m;
		}
		free(rows);
	}
	if (!t->nprocs || t->mig)
		return; /* NVML keeps no per-process utilisation for MIG devices */
	nvmlProcessUtilizationSample_t *s;
	unsigned n;
	nvmlReturn_t r = axl__nvq_proc_util(q, t->h, t->last_ts, &s, &n);
	if (!note(c, r)) {
		free(s);
		return;
	}
	/* the newest sample of each process counts */
	unsigned long long newest = t->last_ts;
	for (unsigned i = 0; i < n; i++) {
		if (s[i].timeStamp > newest)
			newest = s[i].timeStamp;
		for (unsigned k = 0; k < t->nprocs; k++) {
			struct nvs_proc *p = &t->procs[k];
			if (p->pid != s[i].pid)
				continue;
			bool later = true;
			for (unsigned j = 0; j < n; j++)
				if (j != i && s[j].pid == s[i].pid && s[j].timeStamp > s[i].timeStamp)
					later = false;
			if (!later)
				break;
			p->sm = s[i].smUtil <= 100 ? (int)s[i].smUtil : -1;
			p->enc = s[i].encUtil <= 100 ? (int)s[i].encUtil : -1;
			p->dec = s[i].decUtil <= 100 ? (int)s[i].decUtil : -1;
			break;
		}
	}
	t->last_ts = newest;
	free(s);
}

static void work(struct nvs_shared *sh)
{
	if (sh->opening) { /* the sampler's first round: only the event registrations */
		if (sh->health)
			axl__nvs_watch(sh, true);
		return;
	}
	for (size_t k = 0; k < sh->n && sh->metrics; k++) {
		struct nvs_target *t = &sh->t[k];
		t->lost = false;
		t->has_energy = false;
		t->procs_known = false;
		t->nprocs = 0;
		memset(t->has, 0, sizeof t->has);
		if (t->mig && sh->t[t->parent].lost) {
			t->lost = true; /* went with its GPU */
			continue;
		}
		struct tally c = {0, 0, false};
		if (t->mig)
			read_memory(&sh->q, t, &c);
		else
			read_gpu(&sh->q, t, &c);
		if (!c.lost && sh->processes)
			read_procs(&sh->q, t, &c);
		t->lost = c.lost;
	}
	if (sh->health)
		axl__nvs_watch(sh, false);
}

static void shared_unref(struct nvs_shared *sh)
{
	pthread_mutex_lock(&sh->lock);
	int left = --sh->refs;
	pthread_mutex_unlock(&sh->lock);
	if (left)
		return;
	for (size_t k = 0; k < sh->n; k++)
		free(sh->t[k].procs);
	free(sh->t);
	/* the replayed records belong to the inventory's job: only our recording is ours */
	axl__sb_free(&sh->q.v.rec);
	pthread_mutex_destroy(&sh->lock);
	pthread_cond_destroy(&sh->wake);
	pthread_cond_destroy(&sh->done);
	free(sh);
}

static void *worker(void *arg)
{
	struct nvs_shared *sh = arg;
	pthread_mutex_lock(&sh->lock);
	for (;;) {
		while (!sh->quit && sh->answered == sh->asked)
			pthread_cond_wait(&sh->wake, &sh->lock);
		if (sh->quit)
			break;
		uint64_t asked = sh->asked;
		pthread_mutex_unlock(&sh->lock);
		work(sh);
		pthread_mutex_lock(&sh->lock);
		sh->answered = asked;
		pthread_cond_signal(&sh->done);
	}
	pthread_mutex_unlock(&sh->lock);
	axl__nvq_event_free(&sh->q, sh->set); /* here: NVML is called from this thread only */
	shared_unref(sh);
	return NULL;
}

/* ---- the hooks ------------------------------------------------------------------------- */

static struct nvs_target *add_target(struct nvs_shared *sh, size_t *index, struct axl_sampler *s, nvmlDevice_t h,
				     const struct axl_device *dev, bool mig, size_t parent)
{
	size_t i = dev ? axl__sindex(s, dev) : SIZE_MAX;
	if (!h || i == SIZE_MAX)
		return NULL;
	struct nvs_target *t = &sh->t[sh->n];
	t->h = h;
	t->mig = mig;
	t->parent = parent;
	index[sh->n++] = i;
	return t;
}

static void state_free(struct nvs_state *st)
{
	free(st->index);
	free(st->energy);
	free(st);
}

static bool run(struct nvs_state *st, int timeout_ms);

/* The worker missed its deadline: abandoned (it frees the shared state when, if ever, it
 * comes back), and NVML is not asked again by this process. */
static void abandon(struct nvs_state *st)
{
	struct nvs_shared *sh = st->sh;
	st->dead = true;
	st->sh = NULL;
	st->threaded = false;
	axl__vlib_wedge(SRC);
	shared_unref(sh);
}

static void axl__nvml_sample_open(struct axl_sampler *s, const struct axl__backend *self)
{
	struct axl_device **devs = NULL;
	struct nv_job *j = axl__nvml_job(s->inv, self, &devs);
	if (!j || j->init_rc != NVML_SUCCESS || !j->ngpus || axl__vlib_wedged(SRC))
		return;
	if (j->w.q.v.mode != AXL__VREC_REPLAY && !j->w.q.lib)
		return;
	size_t max = 0;
	for (unsigned g = 0; g < j->ngpus; g++)
		max += 1 + j->gpus[g].nmigs;
	struct nvs_state *st = calloc(1, sizeof *st);
	struct nvs_shared *sh = calloc(1, sizeof *sh);
	if (!st || !sh || !(sh->t = calloc(max, sizeof *sh->t)) || !(st->index = calloc(max, sizeof *st->index)) ||
	    !(st->energy = calloc(max, sizeof *st->energy))) {
		if (sh)
			free(sh->t);
		free(sh);
		if (st)
			state_free(st);
		return;
	}
	for (unsigned g = 0; g < j->ngpus; g++) {
		const struct nv_gpu *gpu = &j->gpus[g];
		if (!gpu->h || !devs[g])
			continue;
		size_t before = sh->n;
		add_target(sh, st->index, s, gpu->h, devs[g], false, 0);
		if (sh->n == before)
			continue;
		for (unsigned m = 0; m < gpu->nmigs; m++) {
			const struct nv_mig *mg = &gpu->migs[m];
			struct nvs_target *t = add_target(sh, st->index, s, mg->h, mg->dev, true, before);
			if (t && mg->has_gi && mg->has_ci) {
				t->gi = mg->gi;
				t->ci = mg->ci;
				t->has_ids = true;
			}
		}
	}
	if (!sh->n) {
		free(sh->t);
		free(sh);
		state_free(st);
		return;
	}
	/* the sampler's own call state: discovery's library and handles; a replay reads
	 * the inventory's records (they live as long as the inventory) */
	memcpy(&sh->q, &j->w.q, sizeof sh->q);
	memset(&sh->q.v, 0, sizeof sh->q.v);
	sh->q.v.mode = j->w.q.v.mode;
	if (sh->q.v.mode == AXL__VREC_REPLAY) {
		sh->q.v.doc = j->w.q.v.doc;
		sh->q.v.recs = j->w.q.v.recs;
		sh->q.v.nrecs = j->w.q.v.nrecs;
	} else if (sh->q.v.mode == AXL__VREC_RECORD && !axl__capture_recording(s->ctx)) {
		sh->q.v.mode = AXL__VREC_LIVE;
	}
	sh->q.calls = 0;
	sh->metrics = !(s->flags & AXL_SAMPLER_NO_METRICS);
	sh->processes = sh->metrics && (s->flags & AXL_SAMPLER_PROCESSES);
	sh->health = (s->flags & AXL_SAMPLER_HEALTH) != 0;
	sh->refs = 1;
	pthread_mutex_init(&sh->lock, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&sh->wake, &ca);
	pthread_cond_init(&sh->done, &ca);
	pthread_condattr_destroy(&ca);
	st->sh = sh;
	if (sh->q.v.mode != AXL__VREC_REPLAY) {
		/* live: a worker, so that a hanging call costs a deadline, not the caller */
		pthread_attr_t pa;
		pthread_attr_init(&pa);
		pthread_attr_setdetachstate(&pa, PTHREAD_CREATE_DETACHED);
		pthread_t tid;
		sh->refs = 2;
		if (pthread_create(&tid, &pa, worker, sh) == 0)
			st->threaded = true;
		else
			sh->refs = 1; /* no thread: the calls run on the caller, without a deadline */
		pthread_attr_destroy(&pa);
	}
	*axl__sampler_state(s, self) = st;
	if (sh->health) {
		/* events are recorded from the registration on: register now, not at the
		 * first sample */
		sh->opening = true;
		bool ok = run(st, s->ctx->vendor_timeout_ms);
		if (ok)
			sh->opening = false;
		else
			abandon(st);
	}
}

/* Run one round of calls; false when the worker missed its deadline. */
static bool run(struct nvs_state *st, int timeout_ms)
{
	struct nvs_shared *sh = st->sh;
	if (!st->threaded) {
		work(sh);
		return true;
	}
	struct timespec dl;
	axl__deadline(&dl, timeout_ms);
	pthread_mutex_lock(&sh->lock);
	uint64_t want = ++sh->asked;
	pthread_cond_signal(&sh->wake);
	int rc = 0;
	while (sh->answered != want && rc != ETIMEDOUT)
		rc = pthread_cond_timedwait(&sh->done, &sh->lock, &dl);
	bool done = sh->answered == want;
	if (!done)
		sh->quit = true; /* if it ever comes back, it leaves */
	pthread_mutex_unlock(&sh->lock);
	return done;
}

/* a process's name and cgroup from /proc */
static void read_comm(const struct axl__fs *fs, unsigned pid, char *out, size_t cap)
{
	char path[48];
	snprintf(path, sizeof path, "/proc/%u/comm", pid);
	axl__proc_comm(fs, AXL__FS_ROOT, path, out, cap);
}

static void read_cgroup(const struct axl__fs *fs, unsigned pid, char *out, size_t cap)
{
	char path[48];
	snprintf(path, sizeof path, "/proc/%u/cgroup", pid);
	axl__proc_cgroup(fs, AXL__FS_ROOT, path, out, cap);
}

static void add_procs(struct axl_sampler *s, struct axl_sample *out, struct nvs_shared *sh, size_t k, size_t i)
{
	const struct nvs_target *t = &sh->t[k];
	for (unsigned p = 0; p < t->nprocs; p++) {
		const struct nvs_proc *pr = &t->procs[p];
		if (!t->mig) {
			/* a process NVML also lists on one of this GPU's MIG devices is that
			 * MIG device's */
			bool elsewhere = false;
			for (size_t c = k + 1; c < sh->n && sh->t[c].mig && sh->t[c].parent == k && !elsewhere; c++)
				for (unsigned q = 0; q < sh->t[c].nprocs && !elsewhere; q++)
					elsewhere = sh->t[c].procs[q].pid == pr->pid;
			if (elsewhere)
				continue;
		}
		char name[64], cgroup[1024], container[80];
		read_comm(s->fs, pr->pid, name, sizeof name);
		read_cgroup(s->fs, pr->pid, cgroup, sizeof cgroup);
		const char *type = pr->compute && pr->graphics ? "compute+graphics"
				   : pr->graphics              ? "graphics"
							       : "compute";
		struct axl_process *row =
			axl__sproc_add(out, (int)pr->pid, axl_device_id(s->devs[i]), name[0] ? name : NULL, type, NV);
		if (!row)
			return;
		if (pr->mem != AXL_NVML_VALUE_NOT_AVAILABLE)
			row->memory_used_bytes = (int64_t)pr->mem;
		if (pr->sm >= 0)
			row->utilization_percent = pr->sm;
		if (pr->enc >= 0)
			row->encoder_utilization_percent = pr->enc;
		if (pr->dec >= 0)
			row->decoder_utilization_percent = pr->dec;
		if (cgroup[0]) {
			row->cgroup = axl__sstr(out, cgroup);
			if (axl__fdinfo_container_id(cgroup, container, sizeof container))
				row->container_id = axl__sstr(out, container);
		}
	}
}

static void axl__nvml_sample(struct axl_sampler *s, const struct axl__backend *self, struct axl_sample *out)
{
	struct nvs_state *st = *axl__sampler_state(s, self);
	struct nvs_shared *sh = st->sh;
	if (st->dead || axl__vlib_wedged(SRC))
		return;
	if (!run(st, s->ctx->vendor_timeout_ms)) {
		abandon(st);
		return;
	}
	/* recording (axl capture): the answers join discovery's in the capture */
	if (sh->q.v.mode == AXL__VREC_RECORD) {
		axl__vrec_flush(&sh->q.v, s->ctx, SRC);
		axl__sb_free(&sh->q.v.rec);
	}
	for (size_t k = 0; k < sh->n; k++) {
		struct nvs_target *t = &sh->t[k];
		size_t i = st->index[k];
		if (out->d[i].state == AXL_SAMPLE_LOST)
			continue;
		if (t->lost) {
			axl__slost(out, i);
			continue;
		}
		for (unsigned m = 0; m < AXL_METRIC__COUNT; m++)
			if (t->has[m])
				axl__sput(out, i, (axl_metric)m, t->v[m], NV);
		/* every device NVML answered for is read, even with no value */
		out->d[i].state = AXL_SAMPLE_OK;
		if (t->has_energy) {
			/* mJ per second = mW; a counter that went back gives no rate */
			double per_s;
			if (axl__srate_step(&st->energy[k], t->energy_mj, out->mono_ms, &per_s) &&
			    !t->has[AXL_METRIC_POWER] && per_s / 1000.0 <= 10000)
				axl__sput(out, i, AXL_METRIC_POWER, per_s / 1000.0, NV);
		}
		if (sh->processes && t->procs_known)
			add_procs(s, out, sh, k, i);
	}
	for (unsigned e = 0; e < sh->nev; e++)
		axl__nvs_put_event(out, st->index[sh->ev[e].target], &sh->ev[e]);
}

static void axl__nvml_sample_close(struct axl_sampler *s, const struct axl__backend *self)
{
	struct nvs_state *st = *axl__sampler_state(s, self);
	if (st->sh) {
		if (st->threaded) { /* it frees the event set as it leaves */
			pthread_mutex_lock(&st->sh->lock);
			st->sh->quit = true;
			pthread_cond_signal(&st->sh->wake);
			pthread_mutex_unlock(&st->sh->lock);
		} else {
			axl__nvq_event_free(&st->sh->q, st->sh->set);
		}
		shared_unref(st->sh);
	}
	state_free(st);
	*axl__sampler_state(s, self) = NULL;
}

const struct axl__sample_ops axl__nvml_sample_ops = {
	.open = axl__nvml_sample_open,
	.sample = axl__nvml_sample,
	.close = axl__nvml_sample_close,
	.health = true,
};
