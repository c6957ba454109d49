/* A test plugin that reads a heap snapshot the way its descriptor allows:
 * built as fixture-heap11 (minor 1: the 64-bit node_size, edge_start and
 * node_address), fixture-heap12 (minor 2 with PP_ANALYZER_FLAG_HEAP32:
 * node_size32 and edge_start32; node_address only if the host set it),
 * fixture-heap12w (minor 2 without the flag: the 64-bit arrays, as a
 * plugin rebuilt against the 1.2 header unchanged) and fixture-heap14
 * (minor 4 with HEAP32 and PP_ANALYZER_FLAG_HEAP_SHAPES: types and sizes
 * through the shapes; node_type only if the host set it). Its totals are
 * checksums of what it read, so a test can hold the views to each other
 * and to the file (tests/cli/test-heap-legacy.sh). */
#include <stdint.h>
#include <stdlib.h>

#include <perfpipe/plugin.h>

#ifndef FIXTURE_MINOR
#define FIXTURE_MINOR PP_ABI_MINOR
#endif
#ifndef FIXTURE_HEAP32
#define FIXTURE_HEAP32 (FIXTURE_MINOR >= 2)
#endif
#ifndef FIXTURE_SHAPES
#define FIXTURE_SHAPES 0
#endif
#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture-heap12"
#endif

typedef struct state {
    const pp_host_api *host;
    int64_t nodes, edges, bytes, edge_sum, addresses, address_sum;
    int64_t have64;             /* all three 64-bit arrays were set */
    int64_t type_sum, size_sum; /* sum of (type + 1) and size by (node + 1) */
    int64_t have_types;         /* node_type and node_size32 were set */
} state;

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    (void)ctx;
    (void)opts;
    state *s = calloc(1, sizeof(*s));
    if (!s) {
        host->error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    s->host = host;
    *out = s;
    return PP_OK;
}

static int
consume(void *p, const pp_record *rec, pp_error *err)
{
    state *s = p;
    const pp_heap_snapshot *h = rec->u.heap;
    if (rec->kind != PP_KIND_GCDUMP)
        return PP_OK;
    s->nodes = h->node_count;
    s->have64 = h->node_size && h->edge_start && h->node_address;
    if (!FIXTURE_HEAP32 && !s->have64) {
        s->host->error_set(err, PP_EINVAL,
                           "a minor-%d plugin without HEAP32 got no 64-bit "
                           "heap arrays",
                           FIXTURE_MINOR);
        return PP_EINVAL;
    }
    s->have_types = h->node_type && h->node_size32;
    if (!FIXTURE_SHAPES && !s->have_types) {
        s->host->error_set(err, PP_EINVAL,
                           "a minor-%d plugin without HEAP_SHAPES got no "
                           "node_type/node_size32",
                           FIXTURE_MINOR);
        return PP_EINVAL;
    }
#if FIXTURE_SHAPES
    if (!PP_HAS_FIELD(h, pp_heap_snapshot, shape_count) || !h->shape_count) {
        s->host->error_set(err, PP_EINVAL, "a gcdump snapshot without shapes");
        return PP_EINVAL;
    }
#endif
    uint64_t bytes = 0, esum = 0, asum = 0, naddr = 0, edges, tsum = 0, ssum = 0;
    for (uint32_t i = 0; i < h->node_count; i++) {
#if !FIXTURE_HEAP32
        uint64_t b = h->edge_start[i], e = h->edge_start[i + 1];
#else
        uint64_t b = h->edge_start32[i], e = h->edge_start32[i + 1];
#endif
#if FIXTURE_SHAPES
        /* node_type and node_size32 may be NULL here: not read at all. */
        uint32_t sh = h->node_shape16 ? h->node_shape16[i] : h->node_shape32[i];
        uint64_t ty = h->shape_type[sh], sz = h->shape_size[sh];
#else
#if !FIXTURE_HEAP32
        uint64_t sz = h->node_size[i];
#else
        uint64_t sz = h->node_size32[i];
#endif
        uint64_t ty = h->node_type[i];
        if (sz != h->node_size32[i]) {
            s->host->error_set(err, PP_EINVAL, "node %u: node_size32 differs", (unsigned)i);
            return PP_EINVAL;
        }
#endif
        tsum += (ty + 1) * (i + 1);
        ssum += sz * (i + 1);
        bytes += sz;
        for (uint64_t k = b; k < e; k++)
            esum += (uint64_t)h->edges[k] * (k + 1);
        if (h->node_address && h->node_address[i]) {
            naddr++;
            asum += h->node_address[i] ^ i;
        }
    }
#if !FIXTURE_HEAP32
    edges = h->edge_start[h->node_count];
#else
    edges = h->edge_start32[h->node_count];
#endif
    s->edges = (int64_t)edges;
    s->bytes = (int64_t)bytes;
    s->edge_sum = (int64_t)(esum & INT64_MAX);
    s->addresses = (int64_t)naddr;
    s->address_sum = (int64_t)(asum & INT64_MAX);
    s->type_sum = (int64_t)(tsum & INT64_MAX);
    s->size_sum = (int64_t)(ssum & INT64_MAX);
    return PP_OK;
}

static int
finish(void *p, pp_ctx *ctx, pp_error *err)
{
    (void)err;
    state *s = p;
    const pp_host_api *h = s->host;
    h->total_int(ctx, "nodes", PP_COL_COUNT, s->nodes);
    h->total_int(ctx, "edges", PP_COL_COUNT, s->edges);
    h->total_int(ctx, "bytes", PP_COL_COUNT, s->bytes);
    h->total_int(ctx, "edge_sum", PP_COL_COUNT, s->edge_sum);
    h->total_int(ctx, "addresses", PP_COL_COUNT, s->addresses);
    h->total_int(ctx, "address_sum", PP_COL_COUNT, s->address_sum);
    h->total_int(ctx, "have64", PP_COL_COUNT, s->have64);
    h->total_int(ctx, "type_sum", PP_COL_COUNT, s->type_sum);
    h->total_int(ctx, "size_sum", PP_COL_COUNT, s->size_sum);
    h->total_int(ctx, "have_types", PP_COL_COUNT, s->have_types);
    return PP_OK;
}

static void
destroy(void *p)
{
    free(p);
}

static const pp_analyzer descriptor = {
    .struct_size = sizeof(pp_analyzer),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = FIXTURE_MINOR,
    .flags = (FIXTURE_HEAP32 ? PP_ANALYZER_FLAG_HEAP32 : 0) |
             (FIXTURE_SHAPES ? PP_ANALYZER_FLAG_HEAP_SHAPES : 0),
    .name = FIXTURE_NAME,
    .version = "1.0.0",
    .summary = "test fixture: checksums of a heap snapshot's arrays",
    .input_kinds = PP_KIND_GCDUMP,
    .input_slot_count = 1,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
};

PP_PLUGIN_DEFINE(descriptor);
