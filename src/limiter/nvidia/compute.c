/* SPDX-License-Identifier: MIT */
/*
 * The compute limit in the interposer (docs/limits.md, "Compute limit"): every launch
 * path (cuLaunchKernel, cuLaunchKernelEx, cuLaunchCooperativeKernel and their _ptsz
 * variants, and CUDA 1.x-3.x's cuLaunch, cuLaunchGrid, cuLaunchGridAsync: 1 unit;
 * cuLaunchCooperativeKernelMultiDevice: 1 on each of its streams' devices; cuGraphLaunch:
 * the graph's kernel nodes) waits in axl__climit_before_launch() (../climit.h) before the
 * driver sees it. The driver API cannot tell the graph behind a CUgraphExec, so the
 * instantiation calls are intercepted too and remember each executable graph's kernel
 * count (child graphs included) and, for the memory limit, its allocation nodes
 * (graphmem.c), which a launch maps.
 *
 * The climit is created on the first launch on a device with a compute limit, on the
 * workload's shared region (one bucket for all its processes). Its utilisation source:
 * the file AXL_LIMITER_UTIL_FILE names when set, else NVML (AXL_LIMITER_NVML_LIBRARY or
 * libnvidia-ml.so.1), else none (the bucket alone). When no device has a compute limit a
 * launch costs one load and a branch, and no thread is started.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "climit.h"
#include "climit_nvml.h"
#include "limiter.h"

#define REAL(n) AXL__LIM_REAL(n)

/* 0 not decided, 1 some device limited (g_cl set), 2 nothing to do */
static int g_cstate;
static struct axl__climit *g_cl;
static int g_dev_of_ord[AXL__REGION_MAX_DEVICES]; /* ordinal -> climit device (region index), -1 none */
static pthread_mutex_t g_cl_lock = PTHREAD_MUTEX_INITIALIZER;

/* the source's device numbers: climit's device (region index) -> the source's index */
struct src_map {
	struct axl__climit_source inner;
	int idx[AXL__REGION_MAX_DEVICES];
};

static int map_read(void *ctx, int dev, unsigned *pct)
{
	struct src_map *m = ctx;
	if (dev < 0 || dev >= AXL__REGION_MAX_DEVICES || m->idx[dev] < 0)
		return -1;
	return m->inner.read(m->inner.ctx, m->idx[dev], pct);
}

static void map_release(void *ctx)
{
	struct src_map *m = ctx;
	if (m->inner.release)
		m->inner.release(m->inner.ctx);
	free(m);
}

/* NVML's index of CUDA ordinal ord: CUDA_VISIBLE_DEVICES' entry when it is a list of
 * indices, ord itself when unset; -1 (no feedback for it) for UUID or MIG entries. */
static int nvml_index(int ord)
{
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (!v || !*v)
		return ord;
	const char *p = v;
	for (int i = 0; i < ord; i++) {
		p = strchr(p, ',');
		if (!p)
			return -1;
		p++;
	}
	char *end;
	long n = strtol(p, &end, 10);
	if (end == p || (*end && *end != ','))
		return -1;
	return (int)n;
}

static void create_climit(void)
{
	for (int i = 0; i < AXL__REGION_MAX_DEVICES; i++)
		g_dev_of_ord[i] = -1;
	struct src_map *m = calloc(1, sizeof *m);
	const char *file = getenv("AXL_LIMITER_UTIL_FILE");
	const char *nvml = getenv("AXL_LIMITER_NVML_LIBRARY");
	int have = 0, is_nvml = 0;
	if (m && file && *file) {
		have = axl__climit_source_file(&m->inner, file) == 0;
		axl__lim_log(AXL__LOG_INFO, "compute: utilisation from the file %s", file);
	} else if (m && axl__climit_source_nvml(&m->inner, nvml && *nvml ? nvml : NULL) == 0) {
		have = is_nvml = 1;
		axl__lim_log(AXL__LOG_INFO, "compute: utilisation from NVML");
	} else {
		axl__lim_log(AXL__LOG_WARN, "compute: no utilisation source (NVML does not load, AXL_LIMITER_UTIL_FILE "
			     "unset): launches are rate-limited by the bucket alone, the share is not measured");
	}
	axl__region *r = NULL;
	int limited[AXL__REGION_MAX_DEVICES];
	for (int i = 0; i < AXL__REGION_MAX_DEVICES; i++) {
		limited[i] = 0;
		if (m)
			m->idx[i] = -1;
	}
	for (int ord = 0; ord < AXL__REGION_MAX_DEVICES; ord++) {
		struct axl__lim_dev *d = axl__lim_device(ord, &r);
		if (!d)
			continue;
		int pct = d->compute;
		int cd = d->rdev >= 0 && r ? d->rdev : ord;
		if (d->rdev >= 0 && r) {
			struct axl__region_limit l;
			if (axl__region_limit_get(r, d->rdev, &l) == 0 && l.compute_percent > 0 &&
			    (pct <= 0 || l.compute_percent < pct))
				pct = l.compute_percent;
		}
		if (pct <= 0 || pct >= 100)
			continue;
		g_dev_of_ord[ord] = cd;
		limited[cd] = pct;
		if (m)
			m->idx[cd] = is_nvml ? nvml_index(ord) : ord;
	}
	struct axl__climit_source src = { map_read, m, have ? m->inner.window_ms : 0, map_release };
	struct axl__climit *c = NULL;
	int rc = axl__climit_init(&c, r, have ? &src : NULL);
	if (!have || rc != 0)
		free(m); /* not handed over */
	if (rc != 0) {
		axl__lim_log(AXL__LOG_ERROR,
			     "compute: cannot start the compute limiter (error %d); launches not limited", rc);
		return;
	}
	for (int i = 0; i < AXL__REGION_MAX_DEVICES; i++)
		if (limited[i]) {
			axl__climit_set(c, i, (unsigned)limited[i]);
			axl__lim_log(AXL__LOG_INFO, "compute: device %d held to %d%%", i, limited[i]);
		}
	g_cl = c;
}

/* admit cost on device ordinal ord (-1: the current context's) */
static void admit_on(uint64_t cost, int ord)
{
	int st = __atomic_load_n(&g_cstate, __ATOMIC_ACQUIRE);
	if (st == 0) {
		int n = axl__lim_compute_count();
		if (n < 0)
			return; /* the driver cannot tell yet (no cuInit): nothing to hold */
		pthread_mutex_lock(&g_cl_lock);
		if (g_cstate == 0) {
			if (n > 0)
				create_climit();
			__atomic_store_n(&g_cstate, g_cl ? 1 : 2, __ATOMIC_RELEASE);
		}
		st = g_cstate;
		pthread_mutex_unlock(&g_cl_lock);
	}
	if (st != 1)
		return;
	if (ord < 0)
		ord = axl__lim_current_ordinal();
	if (ord < 0 || ord >= AXL__REGION_MAX_DEVICES || g_dev_of_ord[ord] < 0)
		return;
	axl__climit_before_launch(g_cl, g_dev_of_ord[ord], cost);
}

/* ---- stream capture: a launch into a stream being captured does not run; the graph made
 * of it is charged by its kernels when it is launched (cuGraphLaunch) ---------------------- */

static int g_captures; /* captures begun and not ended in this process (0: no query) */

/* Is s being captured? Asked of the driver only while some capture is open. */
static int capturing(CUstream s, int ptsz)
{
	if (!__atomic_load_n(&g_captures, __ATOMIC_RELAXED))
		return 0;
	__typeof__(axl__lim_drv.stream_is_capturing) q = ptsz && axl__lim_drv.stream_is_capturing_ptsz
								 ? axl__lim_drv.stream_is_capturing_ptsz
								 : axl__lim_drv.stream_is_capturing;
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;
	return q && q(s, &st) == CUDA_SUCCESS && st != CU_STREAM_CAPTURE_STATUS_NONE;
}

int axl__lim_capturing(CUstream s, int ptsz)
{
	return capturing(s, ptsz);
}

static void admit_slow(uint64_t cost)
{
	admit_on(cost, -1);
}

static inline void admit(uint64_t cost, CUstream s, int ptsz)
{
	if (__atomic_load_n(&g_cstate, __ATOMIC_RELAXED) == 2)
		return;
	if (capturing(s, ptsz))
		return;
	admit_slow(cost);
}

/* the device of stream s's context, -1 when the driver cannot tell */
static int stream_ordinal(CUstream s)
{
	CUcontext c = NULL, popped = NULL;
	CUdevice d;
	if (!axl__lim_drv.stream_get_ctx || !axl__lim_drv.ctx_push || !axl__lim_drv.ctx_pop ||
	    !axl__lim_drv.ctx_get_device || axl__lim_drv.stream_get_ctx(s, &c) != CUDA_SUCCESS || !c ||
	    axl__lim_drv.ctx_push(c) != CUDA_SUCCESS)
		return -1;
	int ord = axl__lim_drv.ctx_get_device(&d) == CUDA_SUCCESS ? d : -1;
	axl__lim_drv.ctx_pop(&popped);
	return ord;
}

void axl__lim_forget_compute(void)
{
	pthread_mutex_init(&g_cl_lock, NULL);
	g_cl = NULL; /* the parent's: its thread is not in this process */
	g_cstate = 0;
	g_captures = 0;
}

/* ---- graphs: CUgraphExec -> kernel count ------------------------------------------------ */

struct gexec {
	struct gexec *next;
	CUgraphExec e;
	uint64_t kernels;
};

#define GBUCKET 256
static struct gexec *g_gx[GBUCKET];
static pthread_mutex_t g_gx_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned gbucket(CUgraphExec e)
{
	return (unsigned)(((uint64_t)(uintptr_t)e * 0x9e3779b97f4a7c15ull) >> 56) & (GBUCKET - 1);
}

static uint64_t count_kernels(CUgraph g, int depth)
{
	size_t n = 0;
	if (!g || depth > 8 || !axl__lim_drv.graph_get_nodes ||
	    axl__lim_drv.graph_get_nodes(g, NULL, &n) != CUDA_SUCCESS)
		return 1;
	if (n == 0)
		return 0;
	CUgraphNode *nodes = calloc(n, sizeof *nodes);
	if (!nodes)
		return n;
	uint64_t k = 0;
	if (axl__lim_drv.graph_get_nodes(g, nodes, &n) != CUDA_SUCCESS) {
		free(nodes);
		return n;
	}
	for (size_t i = 0; i < n && nodes[i]; i++) {
		CUgraphNodeType type = CU_GRAPH_NODE_TYPE_KERNEL;
		if (axl__lim_drv.node_get_type && axl__lim_drv.node_get_type(nodes[i], &type) == CUDA_SUCCESS) {
			if (type == CU_GRAPH_NODE_TYPE_KERNEL) {
				k++;
			} else if (type == CU_GRAPH_NODE_TYPE_GRAPH && axl__lim_drv.child_graph) {
				CUgraph child = NULL;
				if (axl__lim_drv.child_graph(nodes[i], &child) == CUDA_SUCCESS)
					k += count_kernels(child, depth + 1);
			}
		} else if (axl__lim_drv.kernel_node_get_params_v2 || axl__lim_drv.kernel_node_get_params) {
			/* no node types: a kernel node is one the kernel query accepts */
			union {
				CUDA_KERNEL_NODE_PARAMS_v2 v2;
				CUDA_KERNEL_NODE_PARAMS_v1 v1;
			} params;
			CUresult q = axl__lim_drv.kernel_node_get_params_v2
					     ? axl__lim_drv.kernel_node_get_params_v2(nodes[i], &params.v2)
					     : axl__lim_drv.kernel_node_get_params(nodes[i], &params.v1);
			if (q == CUDA_SUCCESS)
				k++;
		} else {
			k++;
		}
	}
	free(nodes);
	return k;
}

static void remember(CUresult rc, CUgraphExec *pe, CUgraph g)
{
	if (rc != CUDA_SUCCESS || !pe || !*pe)
		return;
	axl__lim_graphmem_instantiated(*pe, g);
	if (__atomic_load_n(&g_cstate, __ATOMIC_RELAXED) == 2)
		return;
	struct gexec *x = malloc(sizeof *x);
	if (!x)
		return;
	x->e = *pe;
	x->kernels = count_kernels(g, 0);
	unsigned b = gbucket(x->e);
	pthread_mutex_lock(&g_gx_lock);
	x->next = g_gx[b];
	g_gx[b] = x;
	pthread_mutex_unlock(&g_gx_lock);
	axl__lim_log(AXL__LOG_DEBUG, "graph %p: %llu kernels", (void *)x->e, (unsigned long long)x->kernels);
}

/* the kernels of e; 1 for one the limiter did not see instantiated */
static uint64_t graph_cost(CUgraphExec e)
{
	uint64_t k = 1;
	unsigned b = gbucket(e);
	pthread_mutex_lock(&g_gx_lock);
	for (struct gexec *x = g_gx[b]; x; x = x->next)
		if (x->e == e) {
			k = x->kernels;
			break;
		}
	pthread_mutex_unlock(&g_gx_lock);
	return k;
}

static void forget_graph(CUgraphExec e)
{
	unsigned b = gbucket(e);
	pthread_mutex_lock(&g_gx_lock);
	for (struct gexec **pp = &g_gx[b]; *pp; pp = &(*pp)->next)
		if ((*pp)->e == e) {
			struct gexec *x = *pp;
			*pp = x->next;
			free(x);
			break;
		}
	pthread_mutex_unlock(&g_gx_lock);
}

/* ---- the entry points --------------------------------------------------------------------- */

#define NOT_THERE(n)                                 \
	do {                                         \
		axl__lim_init();                     \
		if (!axl__lim_real[AXL__SYM_##n])    \
			return CUDA_ERROR_NOT_SUPPORTED; \
	} while (0)

AXL__LIM_API CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx,
				     unsigned int by, unsigned int bz, unsigned int sh, CUstream s, void **kp,
				     void **ex)
{
	NOT_THERE(cuLaunchKernel);
	admit(1, s, 0);
	return REAL(cuLaunchKernel)(f, gx, gy, gz, bx, by, bz, sh, s, kp, ex);
}

AXL__LIM_API CUresult cuLaunchKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
					  unsigned int bx, unsigned int by, unsigned int bz, unsigned int sh,
					  CUstream s, void **kp, void **ex)
{
	NOT_THERE(cuLaunchKernel_ptsz);
	admit(1, s, 1);
	return REAL(cuLaunchKernel_ptsz)(f, gx, gy, gz, bx, by, bz, sh, s, kp, ex);
}

AXL__LIM_API CUresult cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f, void **kp, void **ex)
{
	NOT_THERE(cuLaunchKernelEx);
	admit(1, config ? config->hStream : NULL, 0);
	return REAL(cuLaunchKernelEx)(config, f, kp, ex);
}

AXL__LIM_API CUresult cuLaunchKernelEx_ptsz(const CUlaunchConfig *config, CUfunction f, void **kp, void **ex)
{
	NOT_THERE(cuLaunchKernelEx_ptsz);
	admit(1, config ? config->hStream : NULL, 1);
	return REAL(cuLaunchKernelEx_ptsz)(config, f, kp, ex);
}

AXL__LIM_API CUresult cuLaunchCooperativeKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
						unsigned int bx, unsigned int by, unsigned int bz, unsigned int sh,
						CUstream s, void **kp)
{
	NOT_THERE(cuLaunchCooperativeKernel);
	admit(1, s, 0);
	return REAL(cuLaunchCooperativeKernel)(f, gx, gy, gz, bx, by, bz, sh, s, kp);
}

AXL__LIM_API CUresult cuLaunchCooperativeKernel_ptsz(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz,
						     unsigned int bx, unsigned int by, unsigned int bz, unsigned int sh,
						     CUstream s, void **kp)
{
	NOT_THERE(cuLaunchCooperativeKernel_ptsz);
	admit(1, s, 1);
	return REAL(cuLaunchCooperativeKernel_ptsz)(f, gx, gy, gz, bx, by, bz, sh, s, kp);
}

/* one kernel on each listed stream's device (CUDA 9-11.x; deprecated since 11.3) */
AXL__LIM_API CUresult cuLaunchCooperativeKernelMultiDevice(CUDA_LAUNCH_PARAMS *list, unsigned int n, unsigned int flags)
{
	NOT_THERE(cuLaunchCooperativeKernelMultiDevice);
	if (list && __atomic_load_n(&g_cstate, __ATOMIC_RELAXED) != 2)
		for (unsigned int i = 0; i < n; i++)
			if (!capturing(list[i].hStream, 0))
				admit_on(1, stream_ordinal(list[i].hStream));
	return REAL(cuLaunchCooperativeKernelMultiDevice)(list, n, flags);
}

/* CUDA 1.x-3.x's launches: the grid, block and parameters set beforehand (cuFuncSetBlockShape,
 * cuParamSet*); cuLaunch and cuLaunchGrid run on the legacy default stream */
AXL__LIM_API CUresult cuLaunch(CUfunction f)
{
	NOT_THERE(cuLaunch);
	admit(1, NULL, 0);
	return REAL(cuLaunch)(f);
}

AXL__LIM_API CUresult cuLaunchGrid(CUfunction f, int grid_width, int grid_height)
{
	NOT_THERE(cuLaunchGrid);
	admit(1, NULL, 0);
	return REAL(cuLaunchGrid)(f, grid_width, grid_height);
}

AXL__LIM_API CUresult cuLaunchGridAsync(CUfunction f, int grid_width, int grid_height, CUstream s)
{
	NOT_THERE(cuLaunchGridAsync);
	admit(1, s, 0);
	return REAL(cuLaunchGridAsync)(f, grid_width, grid_height, s);
}

/* A graph's launch: its allocation nodes admitted against the memory limit first (a
 * refusal returns CUDA_ERROR_OUT_OF_MEMORY before any compute is spent), then its kernels
 * against the compute limit. */
AXL__LIM_API CUresult cuGraphLaunch(CUgraphExec e, CUstream s)
{
	NOT_THERE(cuGraphLaunch);
	struct axl__lim_gm_admit a;
	CUresult rc = axl__lim_graphmem_admit(e, NULL, "cuGraphLaunch", &a);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (__atomic_load_n(&g_cstate, __ATOMIC_RELAXED) != 2 && !capturing(s, 0))
		admit_slow(graph_cost(e));
	rc = REAL(cuGraphLaunch)(e, s);
	axl__lim_graphmem_done(&a);
	return rc;
}

AXL__LIM_API CUresult cuGraphLaunch_ptsz(CUgraphExec e, CUstream s)
{
	NOT_THERE(cuGraphLaunch_ptsz);
	struct axl__lim_gm_admit a;
	CUresult rc = axl__lim_graphmem_admit(e, NULL, "cuGraphLaunch_ptsz", &a);
	if (rc != CUDA_SUCCESS)
		return rc;
	if (__atomic_load_n(&g_cstate, __ATOMIC_RELAXED) != 2 && !capturing(s, 1))
		admit_slow(graph_cost(e));
	rc = REAL(cuGraphLaunch_ptsz)(e, s);
	axl__lim_graphmem_done(&a);
	return rc;
}

AXL__LIM_API CUresult cuGraphInstantiate(CUgraphExec *pe, CUgraph g, CUgraphNode *err, char *log, size_t cap)
{
	NOT_THERE(cuGraphInstantiate);
	CUresult rc = REAL(cuGraphInstantiate)(pe, g, err, log, cap);
	remember(rc, pe, g);
	return rc;
}

AXL__LIM_API CUresult cuGraphInstantiate_v2(CUgraphExec *pe, CUgraph g, CUgraphNode *err, char *log, size_t cap)
{
	NOT_THERE(cuGraphInstantiate_v2);
	CUresult rc = REAL(cuGraphInstantiate_v2)(pe, g, err, log, cap);
	remember(rc, pe, g);
	return rc;
}

AXL__LIM_API CUresult cuGraphInstantiateWithFlags(CUgraphExec *pe, CUgraph g, unsigned long long flags)
{
	NOT_THERE(cuGraphInstantiateWithFlags);
	CUresult rc = REAL(cuGraphInstantiateWithFlags)(pe, g, flags);
	remember(rc, pe, g);
	return rc;
}

/* with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD the instantiation uploads the graph (its
 * allocations mapped): admitted as cuGraphUpload is */
static CUresult instantiate_params(__typeof__(&cuGraphInstantiateWithParams) real, const char *fn, CUgraphExec *pe,
				   CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	struct axl__lim_gm_admit a = {0};
	int upload = p && (p->flags & CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD);
	if (upload) {
		CUresult rc = axl__lim_graphmem_admit(NULL, g, fn, &a);
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	CUresult rc = real(pe, g, p);
	if (upload)
		axl__lim_graphmem_done(&a);
	remember(rc, pe, g);
	return rc;
}

AXL__LIM_API CUresult cuGraphInstantiateWithParams(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	NOT_THERE(cuGraphInstantiateWithParams);
	return instantiate_params(REAL(cuGraphInstantiateWithParams), "cuGraphInstantiateWithParams", pe, g, p);
}

AXL__LIM_API CUresult cuGraphInstantiateWithParams_ptsz(CUgraphExec *pe, CUgraph g, CUDA_GRAPH_INSTANTIATE_PARAMS *p)
{
	NOT_THERE(cuGraphInstantiateWithParams_ptsz);
	return instantiate_params(REAL(cuGraphInstantiateWithParams_ptsz), "cuGraphInstantiateWithParams_ptsz", pe, g,
				  p);
}

AXL__LIM_API CUresult cuGraphExecDestroy(CUgraphExec e)
{
	NOT_THERE(cuGraphExecDestroy);
	forget_graph(e);
	axl__lim_graphmem_forget(e);
	return REAL(cuGraphExecDestroy)(e);
}

/* ---- capture begins and ends: only counted ------------------------------------------------ */

static CUresult begun(CUresult rc)
{
	if (rc == CUDA_SUCCESS)
		__atomic_add_fetch(&g_captures, 1, __ATOMIC_RELAXED);
	return rc;
}

AXL__LIM_API CUresult cuStreamBeginCapture(CUstream s)
{
	NOT_THERE(cuStreamBeginCapture);
	return begun(REAL(cuStreamBeginCapture)(s));
}

AXL__LIM_API CUresult cuStreamBeginCapture_ptsz(CUstream s)
{
	NOT_THERE(cuStreamBeginCapture_ptsz);
	return begun(REAL(cuStreamBeginCapture_ptsz)(s));
}

AXL__LIM_API CUresult cuStreamBeginCapture_v2(CUstream s, CUstreamCaptureMode mode)
{
	NOT_THERE(cuStreamBeginCapture_v2);
	return begun(REAL(cuStreamBeginCapture_v2)(s, mode));
}

AXL__LIM_API CUresult cuStreamBeginCapture_v2_ptsz(CUstream s, CUstreamCaptureMode mode)
{
	NOT_THERE(cuStreamBeginCapture_v2_ptsz);
	return begun(REAL(cuStreamBeginCapture_v2_ptsz)(s, mode));
}

AXL__LIM_API CUresult cuStreamBeginCaptureToGraph(CUstream s, CUgraph g, const CUgraphNode *deps,
						  const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode mode)
{
	NOT_THERE(cuStreamBeginCaptureToGraph);
	return begun(REAL(cuStreamBeginCaptureToGraph)(s, g, deps, data, n, mode));
}

AXL__LIM_API CUresult cuStreamBeginCaptureToGraph_ptsz(CUstream s, CUgraph g, const CUgraphNode *deps,
						       const CUgraphEdgeData *data, size_t n, CUstreamCaptureMode mode)
{
	NOT_THERE(cuStreamBeginCaptureToGraph_ptsz);
	return begun(REAL(cuStreamBeginCaptureToGraph_ptsz)(s, g, deps, data, n, mode));
}

/* a capture ends with the call whatever it returns, unless it came from the wrong thread */
static CUresult end_capture(__typeof__(&cuStreamEndCapture) real, CUstream s, CUgraph *g, int ptsz)
{
	int was = capturing(s, ptsz);
	CUresult rc = real(s, g);
	if (was && rc != CUDA_ERROR_STREAM_CAPTURE_WRONG_THREAD &&
	    __atomic_sub_fetch(&g_captures, 1, __ATOMIC_RELAXED) < 0)
		__atomic_store_n(&g_captures, 0, __ATOMIC_RELAXED);
	return rc;
}

AXL__LIM_API CUresult cuStreamEndCapture(CUstream s, CUgraph *g)
{
	NOT_THERE(cuStreamEndCapture);
	return end_capture(REAL(cuStreamEndCapture), s, g, 0);
}

AXL__LIM_API CUresult cuStreamEndCapture_ptsz(CUstream s, CUgraph *g)
{
	NOT_THERE(cuStreamEndCapture_ptsz);
	return end_capture(REAL(cuStreamEndCapture_ptsz), s, g, 1);
}
