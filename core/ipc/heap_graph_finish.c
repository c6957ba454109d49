/* The end of a streamed heap graph (heap_graph.h): type names and the
 * type table as dotnet-gcdump makes them (ConvertHeapDataToGraph), the CCW
 * and static-variable roots, the "[.NET Roots]" tree's types and children,
 * and the CSR layout of pp_heap_snapshot. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "ipc/heap_graph_impl.h"

/* Graph.CreateType: a new type, no interning. */
static int
add_type(pp_heap_graph *g, const char *name, const char *module, uint32_t *out)
{
    if (g->ntypes >= g->captypes) {
        uint32_t nc = g->captypes ? g->captypes * 2 : 1024;
        void *a = realloc(g->type_names, nc * sizeof(char *));
        if (a)
            g->type_names = a;
        void *b = realloc(g->type_modules, nc * sizeof(char *));
        if (b)
            g->type_modules = b;
        if (!a || !b)
            return PP_ENOMEM;
        g->captypes = nc;
    }
    char *n = strdup(name), *m = module ? strdup(module) : NULL;
    if (!n || (module && !m)) {
        free(n);
        free(m);
        return PP_ENOMEM;
    }
    g->type_names[g->ntypes] = n;
    g->type_modules[g->ntypes] = m;
    *out = g->ntypes++;
    return PP_OK;
}

/* DotNetHeapDumpGraphReader.CreateType: interned on "module!name". */
static int
make_type(pp_heap_graph *g, const char *name, const char *module, uint32_t *out)
{
    size_t n = strlen(name) + (module ? strlen(module) + 2 : 1);
    char *key = malloc(n);
    if (!key)
        return PP_ENOMEM;
    snprintf(key, n, "%s%s%s", module ? module : "", module ? "!" : "", name);
    int rc = PP_OK;
    if (!pp_hstrmap_get(&g->intern, key, out) && (rc = add_type(g, name, module, out)) == PP_OK)
        rc = pp_hstrmap_put(&g->intern, key, *out);
    free(key);
    return rc;
}

/* The reader's name clean-up: drop generic arity (`\d+), [ ] become < >,
 * and an array's "<>" back to "[]". */
static char *
mangle(const char *in)
{
    size_t n = strlen(in);
    char *out = malloc(n + 1);
    if (!out)
        return NULL;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (in[i] == '`' && in[i + 1] >= '0' && in[i + 1] <= '9') {
            while (in[i + 1] >= '0' && in[i + 1] <= '9')
                i++;
            continue;
        }
        out[o++] = in[i] == '[' ? '<' : in[i] == ']' ? '>' : in[i];
    }
    out[o] = '\0';
    for (char *p = strstr(out, "<>"); p; p = strstr(p + 2, "<>")) {
        p[0] = '[';
        p[1] = ']';
    }
    return out;
}

/* The type of a type id without size suffix (m_typeID2TypeIndex). */
static int
base_type(pp_heap_graph *g, uint32_t t, uint32_t *out)
{
    tinfo *ti = &g->tinfos[t];
    if (ti->base != NONE) {
        *out = ti->base;
        return PP_OK;
    }
    char buf[64];
    int rc;
    if (!ti->name) {
        /* Never described by a BulkType: GetTypeIndex's fallback. */
        snprintf(buf, sizeof buf, "UNKNOWN 0x%" PRIx64, ti->id);
        rc = make_type(g, buf, NULL, out);
    } else {
        const char *raw = ti->name;
        if (!*raw) {
            snprintf(buf, sizeof buf, "%s(0x%x)",
                     ti->flags & TYPE_FLAG_ARRAY ? "ArrayType" : "Type", (unsigned)ti->name_id);
            raw = buf;
        }
        char *name = mangle(raw), *com = NULL;
        if (!name)
            return PP_ENOMEM;
        if (ti->flags & TYPE_FLAG_COM) {
            size_t n = strlen(name) + 8;
            if (!(com = malloc(n))) {
                free(name);
                return PP_ENOMEM;
            }
            snprintf(com, n, "[RCW %s]", name);
        }
        uint32_t m;
        char mod[64];
        const char *module = mod;
        if (pp_hmap64_get(&g->mmap, ti->module, &m))
            module = g->modules[m];
        else
            snprintf(mod, sizeof mod, "Module(0x%" PRIx64 ")", ti->module);
        rc = make_type(g, com ? com : name, module, out);
        free(name);
        free(com);
    }
    if (rc == PP_OK)
        g->tinfos[t].base = *out;
    return rc;
}

/* A tslot's type: the base type, or its size-bucket type (interned on the
 * suffixed name alone, as m_arrayNametoIndex does). */
static int
slot_type(pp_heap_graph *g, uint32_t s, uint32_t *out)
{
    uint32_t base;
    if (base_type(g, g->tslots[s].tinfo, &base) != PP_OK)
        return PP_ENOMEM;
    uint32_t b = g->tslots[s].bucket;
    if (b == 0) {
        *out = base;
        return PP_OK;
    }
    size_t n = strlen(g->type_names[base]) + strlen(pp_hg_suffixes[b]) + 1;
    char *name = malloc(n);
    if (!name)
        return PP_ENOMEM;
    snprintf(name, n, "%s%s", g->type_names[base], pp_hg_suffixes[b]);
    int rc = PP_OK;
    if (!pp_hstrmap_get(&g->arrays, name, out) &&
        (rc = make_type(g, name, g->type_modules[base], out)) == PP_OK)
        rc = pp_hstrmap_put(&g->arrays, name, *out);
    free(name);
    return rc;
}

static int
fixed_slot(pp_heap_graph *g, uint32_t type, uint32_t *tslot_out)
{
    if (GROW32(g->fixed, g->nfixed, g->capfixed) != PP_OK)
        return PP_ENOMEM;
    g->fixed[g->nfixed] = type;
    *tslot_out = FIXED_BIT | g->nfixed++;
    return PP_OK;
}

/* CCWs: a "[CCW 0x.. for type T]" node (200 bytes) holding the object. */
static int
add_ccws(pp_heap_graph *g)
{
    uint32_t root;
    if (pp_hg_child_builder(g, 0, "[COM/WinRT Objects]", &root) != PP_OK)
        return PP_ENOMEM;
    for (size_t i = 0; i < g->nccws; i++) {
        const ccw_root *c = &g->ccws[i];
        uint32_t node, ts, base, type, fixed, child;
        if (c->iunknown == 0)
            continue; /* set lazily by the runtime: not yet a COM object */
        if (pp_hg_node_of(g, c->iunknown, &node) != PP_OK ||
            pp_hg_tslot_for(g, c->type_id, 0, &ts) != PP_OK || slot_type(g, ts, &base) != PP_OK)
            return PP_ENOMEM;
        size_t n = strlen(g->type_names[base]) + 48;
        char *name = malloc(n);
        if (!name)
            return PP_ENOMEM;
        snprintf(name, n, "[CCW 0x%" PRIx64 " for type %s]", c->iunknown, g->type_names[base]);
        int rc = make_type(g, name, NULL, &type);
        free(name);
        if (rc != PP_OK || fixed_slot(g, type, &fixed) != PP_OK ||
            pp_hg_node_of(g, c->object, &child) != PP_OK)
            return PP_ENOMEM;
        g->node_tslot[node] = fixed;
        g->node_size[node] = 200;
        g->node_ebeg[node] = g->nedges;
        g->node_ecnt[node] = 1;
        if (pp_hg_push_edge(g, child) != PP_OK || pp_hg_builder_add(g, root, node) != PP_OK)
            return PP_ENOMEM;
    }
    return PP_OK;
}

/* Statics: "[static vars]" > "[static var T.field]" > the object. */
static int
add_statics(pp_heap_graph *g)
{
    uint32_t root;
    if (pp_hg_child_builder(g, 0, "[static vars]", &root) != PP_OK)
        return PP_ENOMEM;
    for (size_t i = 0; i < g->nstatics; i++) {
        const static_root *s = &g->statics[i];
        uint32_t parent = root, t, b, node;
        if ((s->flags & STATIC_FLAG_THREAD_LOCAL) &&
            pp_hg_child_builder(g, 0, "[thread static vars]", &parent) != PP_OK)
            return PP_ENOMEM;
        char tbuf[64];
        const char *tname = tbuf;
        if (pp_hmap64_get(&g->tmap, s->type_id, &t) && g->tinfos[t].base != NONE)
            tname = g->type_names[g->tinfos[t].base];
        else
            snprintf(tbuf, sizeof tbuf, "Type(0x%" PRIx64 ")", s->type_id);
        size_t n = strlen(tname) + strlen(s->field) + 16;
        char *name = malloc(n);
        if (!name)
            return PP_ENOMEM;
        snprintf(name, n, "[static var %s.%s]", tname, s->field);
        int rc = pp_hg_child_builder(g, parent, name, &b);
        free(name);
        if (rc != PP_OK || pp_hg_node_of(g, s->object, &node) != PP_OK ||
            pp_hg_builder_add(g, b, node) != PP_OK)
            return PP_ENOMEM;
    }
    return PP_OK;
}

/* MemoryNodeBuilder.Build: types by name within the tree (preorder), then
 * each pseudo node's children. */
static int
build_tree(pp_heap_graph *g, uint32_t b, pp_hstrmap *names)
{
    uint32_t type, fixed;
    builder *p = &g->builders[b];
    if (!pp_hstrmap_get(names, p->name, &type) && (add_type(g, p->name, NULL, &type) != PP_OK ||
                                                   pp_hstrmap_put(names, p->name, type) != PP_OK))
        return PP_ENOMEM;
    if (fixed_slot(g, type, &fixed) != PP_OK)
        return PP_ENOMEM;
    p = &g->builders[b];
    g->node_tslot[p->node] = fixed;
    g->node_size[p->node] = 0;
    g->node_ebeg[p->node] = g->nedges;
    g->node_ecnt[p->node] = p->nkids;
    for (uint32_t k = 0; k < p->nkids; k++)
        if (pp_hg_push_edge(g, g->builders[b].kids[k]) != PP_OK)
            return PP_ENOMEM;
    for (uint32_t k = 0; k < g->builders[b].nbkids; k++)
        if (build_tree(g, g->builders[b].bkids[k], names) != PP_OK)
            return PP_ENOMEM;
    return PP_OK;
}

static int
check_complete(pp_heap_graph *g, pp_error *err)
{
    if (g->state == 0) {
        pp_error_set(err, PP_EFORMAT,
                     "the runtime sent no heap dump (no induced blocking gen2 "
                     "GC with heap events): is it a .NET Core 3.0+ runtime with EventPipe?");
        return PP_EFORMAT;
    }
    if (g->state == 1) {
        pp_error_set(err, PP_EFORMAT,
                     "the heap dump started (GC %u) but did not end: the "
                     "stream was cut (process exited, timeout?)",
                     (unsigned)g->gc_id);
        return PP_EFORMAT;
    }
    if (g->pn_len || g->pe_len) {
        pp_error_set(err, PP_EFORMAT,
                     "the heap dump's objects and references do not match up "
                     "(%zu objects wait for references, %zu references for objects): events "
                     "were lost",
                     g->pn_len, g->pe_len);
        return PP_EFORMAT;
    }
    return PP_OK;
}

/* Node types in place of tslots, sizes widened, edges in index order. */
static int
lay_out(pp_heap_graph *g)
{
    uint32_t n = g->nnodes;
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t s = g->node_tslot[i], type = 0;
        if (s == NONE) {
            g->node_size[i] = 0;
            g->node_ecnt[i] = 0;
        } else if (s & FIXED_BIT) {
            type = g->fixed[s & ~FIXED_BIT];
        } else if (slot_type(g, s, &type) != PP_OK) {
            return PP_ENOMEM;
        }
        g->node_tslot[i] = type;
        total += g->node_ecnt[i];
    }
    /* edge_start32 (ABI 1.2) must hold every edge index. */
    if (total > UINT32_MAX)
        return PP_ENOMEM;
    /* The edges in index order first, then the walk's edge arrays go
     * before the 64-bit arrays are made: the peak is the walk's arrays
     * plus 4 bytes a node and an edge, not 20 a node more. */
    g->out_estart32 = malloc(((size_t)n + 1) * sizeof *g->out_estart32);
    g->out_edges = malloc((total ? total : 1) * sizeof *g->out_edges);
    if (!g->out_estart32 || !g->out_edges)
        return PP_ENOMEM;
    uint64_t at = 0;
    for (uint32_t i = 0; i < n; i++) {
        g->out_estart32[i] = (uint32_t)at;
        memcpy(g->out_edges + at, g->edges + g->node_ebeg[i], g->node_ecnt[i] * sizeof(uint32_t));
        at += g->node_ecnt[i];
    }
    g->out_estart32[n] = (uint32_t)at;
    free(g->edges);
    g->edges = NULL;
    free(g->node_ebeg);
    g->node_ebeg = NULL;
    free(g->node_ecnt);
    g->node_ecnt = NULL;
    g->out_size = malloc((size_t)n * sizeof *g->out_size);
    g->out_estart = malloc(((size_t)n + 1) * sizeof *g->out_estart);
    if (!g->out_size || !g->out_estart)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < n; i++) {
        g->out_size[i] = g->node_size[i];
        g->out_estart[i] = g->out_estart32[i];
    }
    g->out_estart[n] = at;
    if (!(g->types = malloc(g->ntypes * sizeof *g->types)))
        return PP_ENOMEM;
    for (uint32_t t = 0; t < g->ntypes; t++) {
        g->types[t].name = g->type_names[t];
        g->types[t].module = g->type_modules[t] ? g->type_modules[t] : "";
    }
    pp_heap_snapshot *s = &g->snap;
    s->struct_size = sizeof *s;
    s->pointer_size = g->pointer_size ? g->pointer_size : 8;
    s->node_count = n;
    s->type_count = g->ntypes;
    s->edge_count = at;
    s->root = g->builders[0].node;
    s->types = g->types;
    s->node_type = g->node_tslot;
    s->node_size = g->out_size;
    s->node_address = g->node_addr;
    s->edge_start = g->out_estart;
    s->edges = g->out_edges;
    s->node_size32 = g->node_size; /* the 32-bit sizes, kept */
    s->edge_start32 = g->out_estart32;
    return PP_OK;
}

int
pp_heap_graph_finish(pp_heap_graph *g, const pp_heap_snapshot **out, pp_error *err)
{
    if (g->finished) {
        *out = &g->snap;
        return PP_OK;
    }
    int rc = check_complete(g, err);
    if (rc != PP_OK)
        return rc;
    uint32_t undefined;
    pp_hstrmap names = { 0 };
    if (add_type(g, "UNDEFINED", NULL, &undefined) != PP_OK)
        goto oom;
    /* Every described type first, in the order they came (as the
     * reader's first loop makes them). */
    for (uint32_t t = 0; t < g->ntinfos; t++) {
        uint32_t ty;
        if (g->tinfos[t].name && base_type(g, t, &ty) != PP_OK)
            goto oom;
    }
    if (add_ccws(g) != PP_OK || add_statics(g) != PP_OK)
        goto oom;
    /* Every address is known now: the interning table can go. */
    pp_haddr_free(&g->addr);
    free(g->pn);
    free(g->pe);
    g->pn = NULL;
    g->pe = NULL;
    rc = build_tree(g, 0, &names);
    pp_hstrmap_free(&names);
    if (rc != PP_OK || lay_out(g) != PP_OK)
        goto oom;
    g->finished = 1;
    *out = &g->snap;
    return PP_OK;
oom:
    pp_hstrmap_free(&names);
    pp_error_set(err, PP_ENOMEM, "out of memory laying out the heap graph (%u nodes)",
                 (unsigned)g->nnodes);
    return PP_ENOMEM;
}
