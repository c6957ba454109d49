/* A test plugin that reads a heap snapshot the way its descriptor allows:
 * built as fixture-heap11 (minor 1: the 64-bit node_size, edge_start and
 * node_address), fixture-heap12 (minor 2 with PP_ANALYZER_FLAG_HEAP32:
 * node_size32 and edge_start32; node_address only if the host set it) and
 * fixture-heap12w (minor 2 without the flag: the 64-bit arrays, as a
 * plugin rebuilt against the 1.2 header unchanged). Its totals are
 * checksums of what it read, so a test can hold the two views to each
 * other and to the file (tests/cli/test-heap-legacy.sh). */
#include <stdint.h>
#include <stdlib.h>

#include <perfpipe/plugin.h>

#ifndef FIXTURE_MINOR
#define FIXTURE_MINOR PP_ABI_MINOR
#endif
#ifndef FIXTURE_HEAP32
#define FIXTURE_HEAP32 (FIXTURE_MINOR >= 2)
#endif
#ifndef FIXTURE_NAME
#define FIXTURE_NAME "fixture-heap12"
#endif

typedef struct state {
    const pp_host_api *host;
    int64_t nodes, edges, bytes, edge_sum, addresses, address_sum;
    int64_t have64;              /* all three 64-bit arrays were set */
} state;

static int create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out,
                  pp_error *err)
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

static int consume(void *p, const pp_record *rec, pp_error *err)
{
    state *s = p;
    const pp_heap_snapshot *h = rec->u.heap;
    if (rec->kind != PP_KIND_GCDUMP)
        return PP_OK;
    s->nodes = h->node_count;
    s->have64 = h->node_size && h->edge_start && h->node_address;
    if (!FIXTURE_HEAP32 && !s->have64) {
        s->host->error_set(err, PP_EINVAL, "a minor-%d plugin without HEAP32 got no 64-bit "
                           "heap arrays", FIXTURE_MINOR);
        return PP_EINVAL;
    }
    uint64_t bytes = 0, esum = 0, asum = 0, naddr = 0, edges;
    for (uint32_t i = 0; i < h->node_count; i++) {
#if !FIXTURE_HEAP32
        uint64_t sz = h->node_size[i], b = h->edge_start[i], e = h->edge_start[i + 1];
#else
        uint64_t sz = h->node_size32[i], b = h->edge_start32[i], e = h->edge_start32[i + 1];
#endif
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
    return PP_OK;
}

static int finish(void *p, pp_ctx *ctx, pp_error *err)
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
    return PP_OK;
}

static void destroy(void *p) { free(p); }

static const pp_analyzer descriptor = {
    .struct_size = sizeof(pp_analyzer),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = FIXTURE_MINOR,
    .flags = FIXTURE_HEAP32 ? PP_ANALYZER_FLAG_HEAP32 : 0,
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
