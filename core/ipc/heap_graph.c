/* The streamed heap graph (heap_graph.h): nodes by address, edges matched
 * to their nodes as both streams arrive, type and module tables, the
 * "[.NET Roots]" tree, and the final pp_heap_snapshot. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "ipc/heap_graph_impl.h"

/* Grow *p (n used, *cap slots of size sz) to hold one more. */
int
pp_hg_grow(void **p, uint64_t n, void *capp, size_t sz, int cap64)
{
    uint64_t cap = cap64 ? *(uint64_t *)capp : *(uint32_t *)capp;
    if (n < cap)
        return PP_OK;
    uint64_t nc = cap ? cap * 2 : 64;
    if (!cap64 && nc > UINT32_MAX)
        nc = UINT32_MAX;
    if (nc <= n)
        return PP_ENOMEM;
    void *q = realloc(*p, (size_t)nc * sz);
    if (!q)
        return PP_ENOMEM;
    *p = q;
    if (cap64)
        *(uint64_t *)capp = nc;
    else
        *(uint32_t *)capp = (uint32_t)nc;
    return PP_OK;
}

static int
grow_nodes(pp_heap_graph *g)
{
    if (g->nnodes < g->capnodes)
        return PP_OK;
    if (g->nnodes >= INT32_MAX)
        return PP_ENOMEM;
    uint32_t nc = g->capnodes ? g->capnodes * 2 : 4096;
    void *a = realloc(g->node_addr, nc * sizeof *g->node_addr);
    if (a)
        g->node_addr = a;
    void *b = realloc(g->node_tslot, nc * sizeof *g->node_tslot);
    if (b)
        g->node_tslot = b;
    void *c = realloc(g->node_size, nc * sizeof *g->node_size);
    if (c)
        g->node_size = c;
    void *d = realloc(g->node_ebeg, nc * sizeof *g->node_ebeg);
    if (d)
        g->node_ebeg = d;
    void *e = realloc(g->node_ecnt, nc * sizeof *g->node_ecnt);
    if (e)
        g->node_ecnt = e;
    if (!a || !b || !c || !d || !e)
        return PP_ENOMEM;
    g->capnodes = nc;
    return PP_OK;
}

static int
new_node(pp_heap_graph *g, uint64_t addr, uint32_t *idx)
{
    if (grow_nodes(g) != PP_OK)
        return PP_ENOMEM;
    uint32_t i = g->nnodes++;
    g->node_addr[i] = addr;
    g->node_tslot[i] = NONE;
    g->node_size[i] = 0;
    g->node_ebeg[i] = 0;
    g->node_ecnt[i] = 0;
    *idx = i;
    return PP_OK;
}

/* MemoryGraph.GetNodeIndex: the node of an address, made on first sight.
 * The map keys on node_addr, so the candidate node's address is written
 * (in room grown first) before the map may look at it. */
int
pp_hg_node_of(pp_heap_graph *g, uint64_t addr, uint32_t *idx)
{
    int added;
    if (grow_nodes(g) != PP_OK)
        return PP_ENOMEM;
    g->node_addr[g->nnodes] = addr;
    if (pp_haddr_intern(&g->addr, g->node_addr, addr, g->nnodes, idx, &added) != PP_OK)
        return PP_ENOMEM;
    if (!added)
        return PP_OK;
    uint32_t i;
    return new_node(g, addr, &i);
}

int
pp_hg_push_edge(pp_heap_graph *g, uint32_t child)
{
    if (GROW64(g->edges, g->nedges, g->capedges) != PP_OK)
        return PP_ENOMEM;
    g->edges[g->nedges++] = child;
    return PP_OK;
}

static char *
dupstr(const char *s)
{
    return strdup(s ? s : "");
}

/* ---- construction ------------------------------------------------------ */

static int
add_builder(pp_heap_graph *g, const char *name, uint32_t *out)
{
    if (GROW32(g->builders, g->nbuilders, g->capbuilders) != PP_OK)
        return PP_ENOMEM;
    builder *b = &g->builders[g->nbuilders];
    memset(b, 0, sizeof *b);
    if (!(b->name = dupstr(name)) || new_node(g, 0, &b->node) != PP_OK) {
        free(b->name);
        return PP_ENOMEM;
    }
    *out = g->nbuilders++;
    return PP_OK;
}

int
pp_hg_builder_add(pp_heap_graph *g, uint32_t b, uint32_t node)
{
    builder *p = &g->builders[b];
    if (GROW32(p->kids, p->nkids, p->capkids) != PP_OK)
        return PP_ENOMEM;
    p->kids[p->nkids++] = node;
    return PP_OK;
}

/* MemoryNodeBuilder.FindOrCreateChild. */
int
pp_hg_child_builder(pp_heap_graph *g, uint32_t parent, const char *name, uint32_t *out)
{
    size_t n = strlen(name) + 16;
    char *key = malloc(n);
    if (!key)
        return PP_ENOMEM;
    snprintf(key, n, "%u:%s", (unsigned)parent, name);
    int rc = PP_OK;
    if (!pp_hstrmap_get(&g->bchild, key, out)) {
        if ((rc = add_builder(g, name, out)) == PP_OK &&
            (rc = pp_hg_builder_add(g, parent, g->builders[*out].node)) == PP_OK) {
            builder *p = &g->builders[parent];
            if (GROW32(p->bkids, p->nbkids, p->capbkids) != PP_OK)
                rc = PP_ENOMEM;
            else
                p->bkids[p->nbkids++] = *out;
        }
        if (rc == PP_OK)
            rc = pp_hstrmap_put(&g->bchild, key, *out);
    }
    free(key);
    return rc;
}

int
pp_heap_graph_new(pp_heap_graph **out, pp_error *err)
{
    pp_heap_graph *g = calloc(1, sizeof *g);
    uint32_t root;
    if (!g || add_builder(g, "[.NET Roots]", &root) != PP_OK) {
        pp_heap_graph_free(g);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    *out = g;
    return PP_OK;
}

void
pp_heap_graph_free(pp_heap_graph *g)
{
    if (!g)
        return;
    pp_haddr_free(&g->addr);
    pp_hmap64_free(&g->tmap);
    pp_hmap64_free(&g->mmap);
    pp_hstrmap_free(&g->bchild);
    pp_hstrmap_free(&g->intern);
    pp_hstrmap_free(&g->arrays);
    free(g->node_addr);
    free(g->node_tslot);
    free(g->node_size);
    free(g->node_ebeg);
    free(g->node_ecnt);
    free(g->edges);
    free(g->pn);
    free(g->pe);
    for (uint32_t i = 0; i < g->ntinfos; i++)
        free(g->tinfos[i].name);
    free(g->tinfos);
    free(g->tslots);
    free(g->fixed);
    for (uint32_t i = 0; i < g->nmodules; i++)
        free(g->modules[i]);
    free(g->modules);
    for (uint32_t i = 0; i < g->nbuilders; i++) {
        free(g->builders[i].name);
        free(g->builders[i].kids);
        free(g->builders[i].bkids);
    }
    free(g->builders);
    for (size_t i = 0; i < g->nstatics; i++)
        free(g->statics[i].field);
    free(g->statics);
    free(g->ccws);
    for (uint32_t i = 0; i < g->ntypes; i++) {
        free(g->type_names[i]);
        free(g->type_modules[i]);
    }
    free(g->types);
    free(g->type_names);
    free(g->type_modules);
    free(g->out_size);
    free(g->out_estart);
    free(g->out_estart32);
    free(g->out_edges);
    free(g);
}

static int
tinfo_of(pp_heap_graph *g, uint64_t id, uint32_t *out)
{
    int added;
    if (pp_hmap64_intern(&g->tmap, id, g->ntinfos, out, &added) != PP_OK)
        return PP_ENOMEM;
    if (!added)
        return PP_OK;
    if (GROW32(g->tinfos, g->ntinfos, g->captinfos) != PP_OK)
        return PP_ENOMEM;
    tinfo *t = &g->tinfos[g->ntinfos++];
    memset(t, 0, sizeof *t);
    t->id = id;
    t->base = NONE;
    for (int b = 0; b < NBUCKETS; b++)
        t->slot[b] = NONE;
    return PP_OK;
}

/* GetObjectSizeSuffix's ranges; only objects over 1000 bytes get one. */
static uint32_t
bucket_of(int32_t size)
{
    if (size <= 1000)
        return 0;
    return size < 10000     ? 1 :
           size < 100000    ? 2 :
           size < 1000000   ? 3 :
           size < 10000000  ? 4 :
           size < 100000000 ? 5 :
                              6;
}

const char *const pp_hg_suffixes[NBUCKETS] = {
    "",
    " (Bytes > 1K)",
    " (Bytes > 10K)",
    " (Bytes > 100K)",
    " (Bytes > 1M)",
    " (Bytes > 10M)",
    " (Bytes > 100M)",
};

int
pp_hg_tslot_for(pp_heap_graph *g, uint64_t type_id, uint32_t bucket, uint32_t *out)
{
    uint32_t t;
    if (tinfo_of(g, type_id, &t) != PP_OK)
        return PP_ENOMEM;
    if (g->tinfos[t].slot[bucket] == NONE) {
        if (g->ntslots >= FIXED_BIT || GROW32(g->tslots, g->ntslots, g->captslots) != PP_OK)
            return PP_ENOMEM;
        g->tslots[g->ntslots] = (tslot){ t, bucket };
        g->tinfos[t].slot[bucket] = g->ntslots++;
    }
    *out = g->tinfos[t].slot[bucket];
    return PP_OK;
}

/* One object whose edges are all here. */
static int
define(pp_heap_graph *g, const pp_heap_node_in *v, const uint64_t *targets)
{
    uint32_t idx, ts, child;
    if (pp_hg_node_of(g, v->address, &idx) != PP_OK)
        return PP_ENOMEM;
    /* dotnet-gcdump takes (int)Size, buckets that, and stores negative
     * (huge) sizes as int.MaxValue. */
    int32_t size = (int32_t)(uint32_t)v->size;
    if (pp_hg_tslot_for(g, v->type_id, bucket_of(size), &ts) != PP_OK)
        return PP_ENOMEM;
    if (size < 0)
        size = INT32_MAX;
    if (g->node_tslot[idx] != NONE) {
        g->st.redefined++;
        g->st.bytes -= g->node_size[idx];
        g->st.nodes--;
    }
    uint64_t beg = g->nedges;
    for (uint64_t k = 0; k < v->edge_count; k++) {
        if (pp_hg_node_of(g, targets[k], &child) != PP_OK || pp_hg_push_edge(g, child) != PP_OK)
            return PP_ENOMEM;
    }
    g->node_tslot[idx] = ts;
    g->node_size[idx] = (uint32_t)size;
    g->node_ebeg[idx] = beg;
    g->node_ecnt[idx] = (uint32_t)v->edge_count;
    g->st.nodes++;
    g->st.edges += v->edge_count;
    g->st.bytes += (uint32_t)size;
    return PP_OK;
}

static int
drain(pp_heap_graph *g)
{
    while (g->pn_len) {
        const pp_heap_node_in *v = &g->pn[g->pn_head];
        if (v->edge_count > g->pe_len)
            break;
        if (define(g, v, g->pe + g->pe_head) != PP_OK)
            return PP_ENOMEM;
        g->pe_head += v->edge_count;
        g->pe_len -= v->edge_count;
        g->pn_head++;
        g->pn_len--;
    }
    if (g->pn_len == 0)
        g->pn_head = 0;
    if (g->pe_len == 0)
        g->pe_head = 0;
    return PP_OK;
}

/* Room for n more at the tail of a FIFO (moving its live part forward). */
static int
fifo_room(void **p, size_t *head, size_t len, size_t *cap, size_t n, size_t sz)
{
    if (*head + len + n <= *cap)
        return PP_OK;
    if (*head) {
        memmove(*p, (char *)*p + *head * sz, len * sz);
        *head = 0;
        if (len + n <= *cap)
            return PP_OK;
    }
    size_t nc = *cap ? *cap : 1024;
    while (nc < len + n)
        nc *= 2;
    void *q = realloc(*p, nc * sz);
    if (!q)
        return PP_ENOMEM;
    *p = q;
    *cap = nc;
    return PP_OK;
}

/* Bulk events are numbered per kind from 0: a gap means the runtime
 * dropped some, and the graph would be wrong without saying so. */
static int
in_order(uint32_t *next, uint32_t index, const char *what, pp_error *err)
{
    if (index != *next) {
        pp_error_set(err, PP_EFORMAT,
                     "%s event %u arrived where %u was due: events of "
                     "the heap dump were lost",
                     what, (unsigned)index, (unsigned)*next);
        return PP_EFORMAT;
    }
    (*next)++;
    return PP_OK;
}

/* Queue n items of size sz behind the fifo's len, then link what can be. */
static int
enqueue(pp_heap_graph *g, void **p, size_t *head, size_t *len, size_t *cap, const void *v, size_t n,
        size_t sz, pp_error *err)
{
    if (fifo_room(p, head, *len, cap, n, sz) == PP_OK) {
        memcpy((char *)*p + (*head + *len) * sz, v, n * sz);
        *len += n;
        if (drain(g) == PP_OK)
            return PP_OK;
    }
    pp_error_set(err, PP_ENOMEM, "out of memory for the heap graph (%" PRIu64 " objects)",
                 g->st.nodes);
    return PP_ENOMEM;
}

int
pp_hg_bulk_node(pp_heap_graph *g, uint32_t index, const pp_heap_node_in *v, uint32_t n,
                pp_error *err)
{
    if (in_order(&g->next_node_event, index, "GCBulkNode", err) != PP_OK)
        return PP_EFORMAT;
    for (uint32_t i = 0; i < n; i++)
        if (v[i].edge_count > MAX_EDGES_PER_NODE) {
            pp_error_set(err, PP_EFORMAT,
                         "GCBulkNode event %u: object 0x%" PRIx64 " claims %" PRIu64 " references",
                         (unsigned)index, v[i].address, v[i].edge_count);
            return PP_EFORMAT;
        }
    return enqueue(g, (void **)&g->pn, &g->pn_head, &g->pn_len, &g->pn_cap, v, n, sizeof *g->pn,
                   err);
}

int
pp_hg_bulk_edge(pp_heap_graph *g, uint32_t index, const uint64_t *target, uint32_t n, pp_error *err)
{
    if (in_order(&g->next_edge_event, index, "GCBulkEdge", err) != PP_OK)
        return PP_EFORMAT;
    return enqueue(g, (void **)&g->pe, &g->pe_head, &g->pe_len, &g->pe_cap, target, n,
                   sizeof *g->pe, err);
}

int
pp_hg_root_event(pp_heap_graph *g)
{
    uint32_t b;
    return pp_hg_child_builder(g, 0, "[static vars]", &b);
}

int
pp_hg_root(pp_heap_graph *g, uint64_t address, uint8_t kind, uint32_t flags)
{
    if (flags & ROOT_FLAG_WEAKREF)
        return PP_OK; /* weak references are not roots */
    uint32_t parent = 0, b, node;
    const char *name;
    if (kind == ROOT_KIND_STACK) {
        name = "[local vars]";
    } else {
        if (pp_hg_child_builder(g, 0, "[other roots]", &parent) != PP_OK)
            return PP_ENOMEM;
        name = flags & ROOT_FLAG_REFCOUNTED ? "[COM/WinRT Objects]" :
               kind == ROOT_KIND_FINALIZER  ? "[finalizer Handles]" :
               kind == ROOT_KIND_HANDLE     ? (flags == ROOT_FLAG_PINNING ? "[pinning Handles]" :
                                                                            "[strong Handles]") :
                                              "[other Handles]";
    }
    if (pp_hg_child_builder(g, parent, name, &b) != PP_OK ||
        pp_hg_node_of(g, address, &node) != PP_OK)
        return PP_ENOMEM;
    return pp_hg_builder_add(g, b, node);
}

int
pp_hg_cwt_event(pp_heap_graph *g)
{
    uint32_t other, dep;
    if (pp_hg_child_builder(g, 0, "[other roots]", &other) != PP_OK)
        return PP_ENOMEM;
    return pp_hg_child_builder(g, other, "[Dependent Handles]", &dep);
}

int
pp_hg_cwt(pp_heap_graph *g, uint64_t key, uint64_t value)
{
    uint32_t other, dep, node;
    if (key == 0)
        return PP_OK; /* the key died: the value is not held by it */
    if (pp_hg_child_builder(g, 0, "[other roots]", &other) != PP_OK ||
        pp_hg_child_builder(g, other, "[Dependent Handles]", &dep) != PP_OK ||
        pp_hg_node_of(g, value, &node) != PP_OK)
        return PP_ENOMEM;
    return pp_hg_builder_add(g, dep, node);
}

int
pp_hg_ccw(pp_heap_graph *g, uint64_t object, uint64_t type_id, uint64_t iunknown)
{
    if (GROW64(g->ccws, g->nccws, g->capccws) != PP_OK)
        return PP_ENOMEM;
    g->ccws[g->nccws++] = (ccw_root){ object, type_id, iunknown };
    return PP_OK;
}

int
pp_hg_static(pp_heap_graph *g, uint64_t object, uint64_t type_id, uint32_t flags, const char *field)
{
    if (GROW64(g->statics, g->nstatics, g->capstatics) != PP_OK)
        return PP_ENOMEM;
    char *f = dupstr(field);
    if (!f)
        return PP_ENOMEM;
    g->statics[g->nstatics++] = (static_root){ object, type_id, flags, f };
    return PP_OK;
}

int
pp_hg_type(pp_heap_graph *g, uint64_t type_id, uint64_t module_id, uint32_t type_name_id,
           uint32_t flags, const char *name)
{
    uint32_t t;
    char *copy = dupstr(name);
    if (!copy || tinfo_of(g, type_id, &t) != PP_OK) {
        free(copy);
        return PP_ENOMEM;
    }
    tinfo *ti = &g->tinfos[t];
    free(ti->name); /* a type logged again: the last wins */
    ti->name = copy;
    ti->module = module_id;
    ti->name_id = type_name_id;
    ti->flags = flags;
    g->st.types++;
    return PP_OK;
}

int
pp_hg_module(pp_heap_graph *g, uint64_t module_id, const char *il_path)
{
    uint32_t m;
    int added;
    if (pp_hmap64_intern(&g->mmap, module_id, g->nmodules, &m, &added) != PP_OK)
        return PP_ENOMEM;
    if (!added)
        return PP_OK; /* the first name seen stays */
    if (GROW32(g->modules, g->nmodules, g->capmodules) != PP_OK)
        return PP_ENOMEM;
    if (!(g->modules[g->nmodules] = dupstr(il_path)))
        return PP_ENOMEM;
    g->nmodules++;
    return PP_OK;
}

/* The dump has ended when its GC has: a GCEnd read on the walk's own
 * thread after the walk began (the runtime logs the walk and GCEnd from
 * one thread, in do_post_gc), or the GCEnd of the dump's GC number (the
 * GCEnd of a later GC also says it ended: the dump's GC is blocking). */
static void
check_end(pp_heap_graph *g)
{
    if (g->state == 1 && g->walking && g->have_gc && g->have_end && g->max_end >= g->gc_id) {
        g->state = 2;
        g->st.state = 2;
    }
}

void
pp_hg_gc_start(pp_heap_graph *g, uint32_t count, uint32_t depth, uint32_t reason, uint32_t type,
               uint32_t pointer_size, uint64_t timestamp)
{
    /* The dump's GC: induced (reason 1), blocking (type 0), gen2; once the
     * walk has begun, the last such GC that started before its first
     * event (its GCStart may be read after the walk's events). */
    if (g->state == 2 || depth < 2 || type != 0 || reason != 1)
        return;
    if (g->walking && (timestamp > g->walk_ts || (g->have_gc && timestamp < g->gc_ts)))
        return;
    g->have_gc = 1;
    g->gc_id = count;
    g->gc_ts = timestamp;
    if (!g->pointer_size)
        g->pointer_size = pointer_size;
    g->st.gc_number = count;
    g->state = 1;
    g->st.state = 1;
    check_end(g);
}

void
pp_hg_gc_end(pp_heap_graph *g, uint32_t count, uint64_t thread)
{
    if (g->state == 2)
        return;
    if (!g->have_end || count > g->max_end)
        g->max_end = count;
    g->have_end = 1;
    if (g->walking && thread == g->walk_thread) {
        g->state = 2;
        g->st.state = 2;
        return;
    }
    if (!g->walking && g->have_gc && count == g->gc_id) {
        g->have_gc = 0; /* an induced GC without heap events: wait for another */
        g->state = 0;
        g->st.state = 0;
        return;
    }
    check_end(g);
}

int
pp_hg_walk_event(pp_heap_graph *g, uint64_t thread, uint64_t timestamp, uint32_t pointer_size,
                 int restarts)
{
    if (g->closed)
        return 0;
    if (g->state == 2 && restarts) {
        g->closed = 1; /* another walk (another session's dump): not ours */
        return 0;
    }
    if (!g->walking) {
        g->walking = 1;
        g->walk_thread = thread;
        g->walk_ts = timestamp;
        if (pointer_size)
            g->pointer_size = pointer_size;
        if (g->have_gc && g->gc_ts > timestamp)
            g->have_gc = 0; /* a GC that started after the walk is not the dump's */
        if (g->state == 0) {
            g->state = 1;
            g->st.state = 1;
        }
        check_end(g);
    }
    return 1;
}
int
pp_hg_restarts(const pp_heap_graph *g, uint32_t event_id, uint32_t index)
{
    if (index != 0)
        return 0;
    return event_id == 18 ? g->next_node_event > 0 : event_id == 19 ? g->next_edge_event > 0 : 0;
}

void
pp_hg_count_event(pp_heap_graph *g)
{
    g->st.events++;
}
void
pp_hg_rcw(pp_heap_graph *g, uint32_t n)
{
    g->st.rcw_ignored += n;
}
int
pp_heap_graph_done(const pp_heap_graph *g)
{
    return g->state == 2;
}

void
pp_heap_graph_stats_get(const pp_heap_graph *g, pp_heap_graph_stats *out)
{
    *out = g->st;
}
