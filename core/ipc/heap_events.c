/* Decoding the runtime's heap-dump events into the streamed graph
 * (heap_graph.h). Payload layouts: dotnet/runtime ClrEtwAll.man and the
 * packed EventStruct* values of eventtracepriv.h ("Pointer" fields take
 * the trace's pointer size; RCW/CCW/static entries are 64-bit). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "ipc/heap_graph.h"

enum {
    EV_GC_START = 1,
    EV_GC_END = 2,
    EV_BULK_TYPE = 15,
    EV_ROOT_EDGE = 16,
    EV_CWT = 17,
    EV_BULK_NODE = 18,
    EV_BULK_EDGE = 19,
    EV_CCW = 36,
    EV_RCW = 37,
    EV_STATIC = 38,
    EV_MODULE_LOAD = 152,
    EV_MODULE_DC_START = 153,
    EV_MODULE_DC_END = 154,
};

typedef struct cur {
    const uint8_t *p;
    size_t n, at;
    int bad;
} cur;

static uint64_t
get(cur *c, size_t w)
{
    if (c->bad || c->n - c->at < w) {
        c->bad = 1;
        return 0;
    }
    uint64_t v = 0;
    for (size_t k = w; k-- > 0;)
        v = v << 8 | c->p[c->at + k];
    c->at += w;
    return v;
}

/* A NUL-terminated UTF-16LE string as new UTF-8 (lone surrogates become
 * U+FFFD), or NULL (c->bad) when it runs past the payload or memory ends. */
static char *
get_wstr(cur *c)
{
    size_t start = c->at, units = 0;
    for (;;) {
        if (c->n - c->at < 2) {
            c->bad = 1;
            return NULL;
        }
        uint16_t u = (uint16_t)(c->p[c->at] | c->p[c->at + 1] << 8);
        c->at += 2;
        if (u == 0)
            break;
        units++;
    }
    char *out = malloc(units * 3 + 1), *o = out;
    if (!out) {
        c->bad = 1;
        return NULL;
    }
    for (size_t i = 0; i < units; i++) {
        const uint8_t *q = c->p + start + 2 * i;
        uint32_t cp = (uint32_t)(q[0] | q[1] << 8);
        if (cp >= 0xD800 && cp < 0xDC00 && i + 1 < units) {
            uint32_t lo = (uint32_t)(q[2] | q[3] << 8);
            if (lo >= 0xDC00 && lo < 0xE000) {
                cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            }
        }
        if (cp >= 0xD800 && cp < 0xE000)
            cp = 0xFFFD;
        if (cp < 0x80) {
            *o++ = (char)cp;
        } else if (cp < 0x800) {
            *o++ = (char)(0xC0 | cp >> 6);
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else if (cp < 0x10000) {
            *o++ = (char)(0xE0 | cp >> 12);
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        } else {
            *o++ = (char)(0xF0 | cp >> 18);
            *o++ = (char)(0x80 | (cp >> 12 & 0x3F));
            *o++ = (char)(0x80 | (cp >> 6 & 0x3F));
            *o++ = (char)(0x80 | (cp & 0x3F));
        }
    }
    *o = '\0';
    return out;
}

static int
bad_payload(const pp_trace_event *ev, const char *what, pp_error *err)
{
    pp_error_set(err, PP_EFORMAT,
                 "%s event (id %u, %u bytes): the payload does not hold its "
                 "%s",
                 ev->name && *ev->name ? ev->name : "heap-dump", (unsigned)ev->event_id,
                 (unsigned)ev->payload_size, what);
    return PP_EFORMAT;
}

static int
oom(pp_error *err)
{
    pp_error_set(err, PP_ENOMEM, "out of memory for the heap graph");
    return PP_ENOMEM;
}

static int
bulk_type(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint32_t n = (uint32_t)get(c, 4);
    get(c, 2); /* ClrInstanceID */
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        uint64_t id = get(c, 8), module = get(c, 8);
        uint32_t name_id = (uint32_t)get(c, 4), flags = (uint32_t)get(c, 4);
        get(c, 1); /* CorElementType */
        char *name = get_wstr(c);
        uint32_t nparams = (uint32_t)get(c, 4);
        if (c->bad || nparams > (c->n - c->at) / 8) {
            free(name);
            return bad_payload(ev, "type entries", err);
        }
        c->at += (size_t)nparams * 8;
        int rc = pp_hg_type(g, id, module, name_id, flags, name);
        free(name);
        if (rc != PP_OK)
            return oom(err);
    }
    return c->bad ? bad_payload(ev, "type entries", err) : PP_OK;
}

static int
bulk_node(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint32_t index = (uint32_t)get(c, 4), n = (uint32_t)get(c, 4);
    get(c, 2);
    size_t ps = ev->pointer_size == 4 ? 4 : 8;
    if (c->bad || n > (c->n - c->at) / (ps + 24))
        return bad_payload(ev, "objects", err);
    pp_heap_node_in *v = malloc((n ? n : 1) * sizeof *v);
    if (!v)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        v[i].address = get(c, ps);
        v[i].size = get(c, 8);
        v[i].type_id = get(c, 8);
        v[i].edge_count = get(c, 8);
    }
    int rc = pp_hg_bulk_node(g, index, v, n, err);
    free(v);
    return rc;
}

static int
bulk_edge(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint32_t index = (uint32_t)get(c, 4), n = (uint32_t)get(c, 4);
    get(c, 2);
    size_t ps = ev->pointer_size == 4 ? 4 : 8;
    if (c->bad || n > (c->n - c->at) / (ps + 4))
        return bad_payload(ev, "references", err);
    uint64_t *t = malloc((n ? n : 1) * sizeof *t);
    if (!t)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        t[i] = get(c, ps);
        get(c, 4); /* ReferencingFieldID */
    }
    int rc = pp_hg_bulk_edge(g, index, t, n, err);
    free(t);
    return rc;
}

static int
roots(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    get(c, 4); /* Index */
    uint32_t n = (uint32_t)get(c, 4);
    get(c, 2);
    size_t ps = ev->pointer_size == 4 ? 4 : 8;
    if (c->bad || n > (c->n - c->at) / (2 * ps + 5))
        return bad_payload(ev, "roots", err);
    if (pp_hg_root_event(g) != PP_OK)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t addr = get(c, ps);
        uint8_t kind = (uint8_t)get(c, 1);
        uint32_t flags = (uint32_t)get(c, 4);
        get(c, ps); /* GCRootID */
        if (pp_hg_root(g, addr, kind, flags) != PP_OK)
            return oom(err);
    }
    return PP_OK;
}

static int
cwt(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    get(c, 4);
    uint32_t n = (uint32_t)get(c, 4);
    get(c, 2);
    size_t ps = ev->pointer_size == 4 ? 4 : 8;
    if (c->bad || n > (c->n - c->at) / (3 * ps))
        return bad_payload(ev, "dependent handles", err);
    if (pp_hg_cwt_event(g) != PP_OK)
        return oom(err);
    for (uint32_t i = 0; i < n; i++) {
        uint64_t key = get(c, ps), value = get(c, ps);
        get(c, ps);
        if (pp_hg_cwt(g, key, value) != PP_OK)
            return oom(err);
    }
    return PP_OK;
}

static int
ccws(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint32_t n = (uint32_t)get(c, 4);
    get(c, 2);
    if (c->bad || n > (c->n - c->at) / 44)
        return bad_payload(ev, "CCW entries", err);
    for (uint32_t i = 0; i < n; i++) {
        get(c, 8); /* RootID */
        uint64_t obj = get(c, 8), type = get(c, 8), iunk = get(c, 8);
        get(c, 12); /* RefCount, JupiterRefCount, Flags */
        if (pp_hg_ccw(g, obj, type, iunk) != PP_OK)
            return oom(err);
    }
    return PP_OK;
}

static int
statics(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint32_t n = (uint32_t)get(c, 4);
    get(c, 8); /* AppDomainID */
    get(c, 2);
    for (uint32_t i = 0; i < n && !c->bad; i++) {
        get(c, 8); /* GCRootID: the static's address */
        uint64_t obj = get(c, 8), type = get(c, 8);
        uint32_t flags = (uint32_t)get(c, 4);
        char *field = get_wstr(c);
        if (c->bad)
            break;
        int rc = pp_hg_static(g, obj, type, flags, field);
        free(field);
        if (rc != PP_OK)
            return oom(err);
    }
    return c->bad ? bad_payload(ev, "static variables", err) : PP_OK;
}

static int
module(pp_heap_graph *g, const pp_trace_event *ev, cur *c, pp_error *err)
{
    uint64_t id = get(c, 8);
    get(c, 8); /* AssemblyID */
    get(c, 8); /* ModuleFlags, Reserved1 */
    char *path = get_wstr(c);
    if (c->bad)
        return bad_payload(ev, "module path", err);
    int rc = pp_hg_module(g, id, path);
    free(path);
    return rc == PP_OK ? PP_OK : oom(err);
}

/* The thread that wrote the event (the one whose buffer holds it). */
static uint64_t
thread_of(const pp_trace_event *ev)
{
    return ev->capture_thread_id ? ev->capture_thread_id : ev->thread_id;
}

int
pp_heap_graph_event(pp_heap_graph *g, const pp_trace_event *ev, pp_error *err)
{
    cur c = { ev->payload, ev->payload_size, 0, 0 };
    if (ev->provider_known == PP_PROVIDER_RUNDOWN &&
        (ev->event_id == EV_MODULE_DC_START || ev->event_id == EV_MODULE_DC_END))
        return module(g, ev, &c, err);
    if (ev->provider_known != PP_PROVIDER_RUNTIME)
        return PP_OK;
    switch (ev->event_id) {
    case EV_GC_START: {
        uint32_t count = (uint32_t)get(&c, 4), depth = (uint32_t)get(&c, 4);
        uint32_t reason = (uint32_t)get(&c, 4), type = (uint32_t)get(&c, 4);
        if (!c.bad && ev->version >= 1)
            pp_hg_gc_start(g, count, depth, reason, type, ev->pointer_size, ev->timestamp);
        return PP_OK;
    }
    case EV_GC_END: {
        uint32_t count = (uint32_t)get(&c, 4);
        if (!c.bad)
            pp_hg_gc_end(g, count, thread_of(ev));
        return PP_OK;
    }
    case EV_BULK_TYPE:
        /* Types come whenever the runtime logs them, not only in the dump. */
        pp_hg_count_event(g);
        return bulk_type(g, ev, &c, err);
    case EV_MODULE_LOAD: return module(g, ev, &c, err);
    case EV_BULK_NODE:
    case EV_BULK_EDGE:
    case EV_ROOT_EDGE:
    case EV_CWT:
    case EV_CCW:
    case EV_RCW:
    case EV_STATIC: break;
    default: return PP_OK;
    }
    /* The walk's Index (nodes, edges) says whether a new walk begins. */
    uint32_t index = ev->payload_size >= 4 ? (uint32_t)get(&c, 4) : 0;
    c.at = 0;
    if (!pp_hg_walk_event(g, thread_of(ev), ev->timestamp, ev->pointer_size,
                          pp_hg_restarts(g, ev->event_id, index)))
        return PP_OK; /* heap events of another dump than ours */
    pp_hg_count_event(g);
    switch (ev->event_id) {
    case EV_BULK_NODE: return bulk_node(g, ev, &c, err);
    case EV_BULK_EDGE: return bulk_edge(g, ev, &c, err);
    case EV_ROOT_EDGE: return roots(g, ev, &c, err);
    case EV_CWT: return cwt(g, ev, &c, err);
    case EV_CCW: return ccws(g, ev, &c, err);
    case EV_STATIC: return statics(g, ev, &c, err);
    default: {
        /* RCWs exist only with Windows COM interop: counted, not attributed. */
        uint32_t n = (uint32_t)get(&c, 4);
        pp_hg_rcw(g, c.bad ? 0 : n);
        return PP_OK;
    }
    }
}
