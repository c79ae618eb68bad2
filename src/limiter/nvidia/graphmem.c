/* SPDX-License-Identifier: MIT */
/*
 * Graph memory (docs/limits.md, "Graph memory"). A graph's allocation nodes
 * (cuGraphAddMemAllocNode, or cuMemAllocAsync into a stream being captured) allocate
 * nothing when they are made: the driver gives each a virtual address, and maps the
 * physical memory from the device's graph memory pool when the graph is uploaded
 * (cuGraphUpload, or an instantiation with CUDA_GRAPH_INSTANTIATE_FLAG_UPLOAD) or launched
 * (cuGraphLaunch). Freed graph allocations stay in that pool until cuDeviceGraphMemTrim.
 * So:
 *
 *   - each instantiation remembers the executable graph's allocation nodes, bytes per
 *     device (child graphs included), when some device is limited;
 *   - an upload or launch of such a graph is admitted first: what its allocations need
 *     beyond what the device's graph pool holds unused (CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT
 *     minus USED_MEM_CURRENT, which they may reuse) is reserved in the region, or the call
 *     is refused with CUDA_ERROR_OUT_OF_MEMORY before the driver sees it;
 *   - after it, and at cuDeviceGraphMemTrim, memory reports and before a refusal, the
 *     device's charge for graph memory is what its graph pool holds
 *     (CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT: live graph allocations and what the pool
 *     keeps), and the admission's reservation is given back;
 *   - cuGraphAddMemAllocNode refuses a node larger than its device's limit: no launch
 *     could ever hold it; so do cuGraphAddNode and cuGraphAddNode_v2 (CUDA 12.2, 12.3) for
 *     a node of type CU_GRAPH_NODE_TYPE_MEM_ALLOC. Such a node's parameters cannot be
 *     changed afterwards (cuGraphNodeSetParams and cuGraphExecNodeSetParams refuse allocation
 *     nodes), so the size seen here is the size launched.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "limiter.h"

#define REAL(n) AXL__LIM_REAL(n)
#define MAXDEV AXL__REGION_MAX_DEVICES
#define GM_MAX (int)(sizeof ((struct axl__lim_gm_admit *)0)->ord / sizeof(int))

/* an executable graph with allocation nodes: bytes per device ordinal */
struct gmexec {
	struct gmexec *next;
	CUgraphExec e;
	struct axl__lim_gm_admit need; /* rdev unused here */
};

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;
static struct gmexec *g_execs;
/* per device ordinal: its region device once its graph pool was used (-1 never), and what
 * is charged for what the pool holds */
static int g_rdev[MAXDEV];
static uint64_t g_held[MAXDEV];
static int g_active; /* some device's graph pool is charged: refreshes ask the driver */
static int g_init;

static void init_locked(void)
{
	if (g_init)
		return;
	for (int i = 0; i < MAXDEV; i++)
		g_rdev[i] = -1;
	g_init = 1;
}

static void add_need(struct axl__lim_gm_admit *a, int ord, uint64_t bytes)
{
	for (int i = 0; i < a->n; i++)
		if (a->ord[i] == ord) {
			a->bytes[i] = a->bytes[i] > UINT64_MAX - bytes ? UINT64_MAX : a->bytes[i] + bytes;
			return;
		}
	if (a->n < GM_MAX) {
		a->ord[a->n] = ord;
		a->bytes[a->n] = bytes;
		a->rdev[a->n] = -1;
		a->n++;
	} else {
		axl__lim_log(AXL__LOG_WARN, "a graph allocates on more than %d devices: device %d's allocations are "
			     "not admitted", GM_MAX, ord);
	}
}

/* the allocation nodes of g (its child graphs' too) */
static void walk(CUgraph g, int depth, struct axl__lim_gm_admit *a)
{
	size_t n = 0;
	if (!g || depth > 8 || !axl__lim_drv.graph_get_nodes || !axl__lim_drv.node_get_type ||
	    !axl__lim_drv.mem_alloc_node_get_params || axl__lim_drv.graph_get_nodes(g, NULL, &n) != CUDA_SUCCESS || !n)
		return;
	CUgraphNode *nodes = calloc(n, sizeof *nodes);
	if (!nodes)
		return;
	if (axl__lim_drv.graph_get_nodes(g, nodes, &n) == CUDA_SUCCESS)
		for (size_t i = 0; i < n && nodes[i]; i++) {
			CUgraphNodeType t;
			if (axl__lim_drv.node_get_type(nodes[i], &t) != CUDA_SUCCESS)
				continue;
			if (t == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
				CUDA_MEM_ALLOC_NODE_PARAMS p;
				memset(&p, 0, sizeof p);
				if (axl__lim_drv.mem_alloc_node_get_params(nodes[i], &p) != CUDA_SUCCESS)
					continue;
				int ord = p.poolProps.location.type == CU_MEM_LOCATION_TYPE_DEVICE
						  ? p.poolProps.location.id
						  : axl__lim_current_ordinal();
				add_need(a, ord, p.bytesize);
			} else if (t == CU_GRAPH_NODE_TYPE_GRAPH && axl__lim_drv.child_graph) {
				CUgraph child = NULL;
				if (axl__lim_drv.child_graph(nodes[i], &child) == CUDA_SUCCESS)
					walk(child, depth + 1, a);
			}
		}
	free(nodes);
}

/* what device ord's graph pool holds (reserved) and of it is in use; -1 the driver cannot say */
static int pool_figures(int ord, uint64_t *reserved, uint64_t *used)
{
	cuuint64_t r = 0, u = 0;
	if (!axl__lim_drv.graph_mem_attribute ||
	    axl__lim_drv.graph_mem_attribute(ord, CU_GRAPH_MEM_ATTR_RESERVED_MEM_CURRENT, &r) != CUDA_SUCCESS ||
	    axl__lim_drv.graph_mem_attribute(ord, CU_GRAPH_MEM_ATTR_USED_MEM_CURRENT, &u) != CUDA_SUCCESS)
		return -1;
	*reserved = r;
	*used = u;
	return 0;
}

/* device ord's charge made what its graph pool holds now; lock held */
static void refresh_locked(axl__region *r, int ord)
{
	uint64_t reserved, used;
	if (g_rdev[ord] < 0 || pool_figures(ord, &reserved, &used) != 0)
		return;
	if (reserved > g_held[ord])
		axl__region_hold(r, g_rdev[ord], reserved - g_held[ord]); /* already taken: never refused */
	else if (reserved < g_held[ord])
		axl__region_release(r, g_rdev[ord], g_held[ord] - reserved);
	g_held[ord] = reserved;
}

void axl__lim_graphmem_refresh(int rdev)
{
	if (!__atomic_load_n(&g_active, __ATOMIC_RELAXED))
		return;
	axl__region *r = NULL;
	axl__lim_device(0, &r);
	if (!r)
		return;
	pthread_mutex_lock(&g_lock);
	for (int i = 0; i < MAXDEV; i++)
		if (g_rdev[i] >= 0 && (rdev < 0 || g_rdev[i] == rdev))
			refresh_locked(r, i);
	pthread_mutex_unlock(&g_lock);
}

void axl__lim_graphmem_instantiated(CUgraphExec e, CUgraph g)
{
	if (!e || !g || !axl__lim_any_limited())
		return;
	struct gmexec *x = calloc(1, sizeof *x);
	if (!x)
		return;
	walk(g, 0, &x->need);
	if (!x->need.n) {
		free(x);
		return;
	}
	x->e = e;
	pthread_mutex_lock(&g_lock);
	x->next = g_execs;
	g_execs = x;
	pthread_mutex_unlock(&g_lock);
	axl__lim_log(AXL__LOG_DEBUG, "graph %p: allocation nodes on %d device(s)", (void *)e, x->need.n);
}

void axl__lim_graphmem_forget(CUgraphExec e)
{
	pthread_mutex_lock(&g_lock);
	for (struct gmexec **pp = &g_execs; *pp; pp = &(*pp)->next)
		if ((*pp)->e == e) {
			struct gmexec *x = *pp;
			*pp = x->next;
			free(x);
			break;
		}
	pthread_mutex_unlock(&g_lock);
}

CUresult axl__lim_graphmem_admit(CUgraphExec e, CUgraph g, const char *fn, struct axl__lim_gm_admit *a)
{
	struct axl__lim_gm_admit need;
	memset(&need, 0, sizeof need);
	memset(a, 0, sizeof *a);
	if (e) {
		if (!__atomic_load_n(&g_execs, __ATOMIC_RELAXED))
			return CUDA_SUCCESS; /* no graph with allocation nodes: one load */
		pthread_mutex_lock(&g_lock);
		for (struct gmexec *x = g_execs; x; x = x->next)
			if (x->e == e) {
				need = x->need;
				break;
			}
		pthread_mutex_unlock(&g_lock);
	} else if (axl__lim_any_limited()) {
		walk(g, 0, &need);
	}
	for (int i = 0; i < need.n; i++) {
		int ord = need.ord[i];
		axl__region *r = NULL;
		struct axl__lim_dev *d = ord >= 0 && ord < MAXDEV ? axl__lim_device(ord, &r) : NULL;
		if (!d || (!d->broken && (d->rdev < 0 || !r)))
			continue; /* not limited */
		if (!d->broken) {
			pthread_mutex_lock(&g_lock);
			init_locked();
			if (g_rdev[ord] < 0) {
				g_rdev[ord] = d->rdev;
				__atomic_store_n(&g_active, 1, __ATOMIC_RELAXED);
			}
			pthread_mutex_unlock(&g_lock);
		}
		/* what the graph pool holds unused may be reused: admitted against first */
		uint64_t reserved = 0, used = 0, bytes = need.bytes[i];
		if (pool_figures(ord, &reserved, &used) == 0 && reserved > used)
			bytes = bytes > reserved - used ? bytes - (reserved - used) : 0;
		int rdev = -1;
		if (bytes || d->broken) {
			CUresult rc = axl__lim_charge(ord, bytes, fn, &rdev);
			if (rc != CUDA_SUCCESS) {
				axl__lim_graphmem_done(a); /* what the earlier devices reserved */
				memset(a, 0, sizeof *a);
				return rc;
			}
		}
		a->ord[a->n] = ord;
		a->rdev[a->n] = rdev;
		a->bytes[a->n] = rdev >= 0 ? bytes : 0;
		a->n++;
	}
	return CUDA_SUCCESS;
}

void axl__lim_graphmem_done(struct axl__lim_gm_admit *a)
{
	if (!a->n)
		return;
	axl__region *r = NULL;
	axl__lim_device(0, &r);
	if (r) {
		/* what the pool holds now is charged before the admission's reservation goes: for a
		 * moment the workload counts more than it holds, never less */
		pthread_mutex_lock(&g_lock);
		for (int i = 0; i < a->n; i++)
			if (a->ord[i] >= 0 && a->ord[i] < MAXDEV)
				refresh_locked(r, a->ord[i]);
		pthread_mutex_unlock(&g_lock);
	}
	for (int i = 0; i < a->n; i++)
		if (a->rdev[i] >= 0 && a->bytes[i])
			axl__lim_uncharge(a->rdev[i], a->bytes[i]);
	a->n = 0;
}

void axl__lim_forget_graphmem(void)
{
	pthread_mutex_init(&g_lock, NULL);
	g_execs = NULL; /* the parent's executable graphs (not freed: the list may be mid-change) */
	g_init = 0;
	init_locked();
	memset(g_held, 0, sizeof g_held);
	g_active = 0;
}

/* ---- the entry points --------------------------------------------------------------------- */

#define NOT_THERE(n)                                 \
	do {                                         \
		axl__lim_init();                     \
		if (!axl__lim_real[AXL__SYM_##n])    \
			return CUDA_ERROR_NOT_SUPPORTED; \
	} while (0)

/* An allocation node of bytes at location loc, added by fn: refused (CUDA_ERROR_OUT_OF_MEMORY)
 * when it is larger than its device's limit, or the device's limit cannot be enforced. */
static CUresult alloc_node_admit(const CUmemLocation *loc, uint64_t bytes, const char *fn)
{
	int ord = loc->type == CU_MEM_LOCATION_TYPE_DEVICE ? loc->id : axl__lim_current_ordinal();
	axl__region *r = NULL;
	struct axl__lim_dev *d = axl__lim_device(ord, &r);
	struct axl__region_limit l;
	if (d && d->broken) {
		axl__lim_log(AXL__LOG_WARN,
			     "device %d (%s): %s of %llu bytes refused: its memory limit is malformed or "
			     "cannot be enforced",
			     ord, d->uuid, fn, (unsigned long long)bytes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	if (d && d->rdev >= 0 && r && axl__region_limit_get(r, d->rdev, &l) == 0 && l.memory_bytes >= 0 &&
	    bytes > (uint64_t)l.memory_bytes) {
		axl__lim_log(AXL__LOG_WARN, "device %d (%s): %s of %llu bytes refused: more than the limit %lld", ord,
			     d->uuid, fn, (unsigned long long)bytes, (long long)l.memory_bytes);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return CUDA_SUCCESS;
}

AXL__LIM_API CUresult cuGraphAddMemAllocNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					     size_t numDependencies, CUDA_MEM_ALLOC_NODE_PARAMS *nodeParams)
{
	NOT_THERE(cuGraphAddMemAllocNode);
	if (nodeParams) {
		CUresult rc = alloc_node_admit(&nodeParams->poolProps.location, nodeParams->bytesize,
					       "cuGraphAddMemAllocNode");
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return REAL(cuGraphAddMemAllocNode)(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

/* CUDA 12.2's node of any type (12.3's _v2 with edge data): an allocation node
 * (CU_GRAPH_NODE_TYPE_MEM_ALLOC, its parameters in nodeParams->alloc) is refused as
 * cuGraphAddMemAllocNode refuses it; every other type passes. */
AXL__LIM_API CUresult cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
				     size_t numDependencies, CUgraphNodeParams *nodeParams)
{
	NOT_THERE(cuGraphAddNode);
	if (nodeParams && nodeParams->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
		CUresult rc = alloc_node_admit(&nodeParams->alloc.poolProps.location, nodeParams->alloc.bytesize,
					       "cuGraphAddNode");
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return REAL(cuGraphAddNode)(phGraphNode, hGraph, dependencies, numDependencies, nodeParams);
}

AXL__LIM_API CUresult cuGraphAddNode_v2(CUgraphNode *phGraphNode, CUgraph hGraph, const CUgraphNode *dependencies,
					const CUgraphEdgeData *dependencyData, size_t numDependencies,
					CUgraphNodeParams *nodeParams)
{
	NOT_THERE(cuGraphAddNode_v2);
	if (nodeParams && nodeParams->type == CU_GRAPH_NODE_TYPE_MEM_ALLOC) {
		CUresult rc = alloc_node_admit(&nodeParams->alloc.poolProps.location, nodeParams->alloc.bytesize,
					       "cuGraphAddNode_v2");
		if (rc != CUDA_SUCCESS)
			return rc;
	}
	return REAL(cuGraphAddNode_v2)(phGraphNode, hGraph, dependencies, dependencyData, numDependencies, nodeParams);
}

AXL__LIM_API CUresult cuGraphUpload(CUgraphExec hGraphExec, CUstream hStream)
{
	NOT_THERE(cuGraphUpload);
	struct axl__lim_gm_admit a;
	CUresult rc = axl__lim_graphmem_admit(hGraphExec, NULL, "cuGraphUpload", &a);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuGraphUpload)(hGraphExec, hStream);
	axl__lim_graphmem_done(&a);
	return rc;
}

AXL__LIM_API CUresult cuGraphUpload_ptsz(CUgraphExec hGraphExec, CUstream hStream)
{
	NOT_THERE(cuGraphUpload_ptsz);
	struct axl__lim_gm_admit a;
	CUresult rc = axl__lim_graphmem_admit(hGraphExec, NULL, "cuGraphUpload_ptsz", &a);
	if (rc != CUDA_SUCCESS)
		return rc;
	rc = REAL(cuGraphUpload_ptsz)(hGraphExec, hStream);
	axl__lim_graphmem_done(&a);
	return rc;
}

AXL__LIM_API CUresult cuDeviceGraphMemTrim(CUdevice device)
{
	NOT_THERE(cuDeviceGraphMemTrim);
	CUresult rc = REAL(cuDeviceGraphMemTrim)(device);
	axl__lim_graphmem_refresh(-1);
	return rc;
}
