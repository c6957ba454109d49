/* libFuzzer target: the .gcdump reader (core/gcdump) through the verbs of
 * reader.h. Decodes the input with pp_gcdump_reader_open_memory, takes its
 * one graph from pp_gcdump_reader_next (twice: the second call ends), walks the whole snapshot the way gcdump and
 * gcdump-diff do (every node's type and every edge), so an array the reader
 * sized wrongly is read past its end under ASan. The node shapes (ABI 1.4)
 * must equal node_type/node_size32 node for node, with the 16-bit indices
 * and again with the 32-bit ones forced (a limit of 0-3 shapes taken from
 * the input's last byte, so that small inputs widen mid-decode too). The
 * node table decoded in two halves (nodes.c) must fail as the serial
 * decode does, same offset and message, or give the same arrays. The
 * references past the node table a cut dump holds are dropped and counted
 * (dangling_edges, dangling_nodes): the same counts both ways, in the info
 * as in the snapshot, never more nodes holding them than nodes, and never
 * an edge kept that points outside the table. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/gcdump.h>

#include "gcdump/dump.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every node's shape is in range and is its (type, size). */
static void
check_shapes(const pp_heap_snapshot *s, const pp_heap_snapshot *ref)
{
    if (!s->shape_count || s->shape_count > s->node_count ||
        (s->node_shape16 == NULL) == (s->node_shape32 == NULL) ||
        (s->node_shape16 && s->shape_count > 65536))
        abort();
    for (uint32_t n = 0; n < s->node_count; n++) {
        uint32_t sh = s->node_shape16 ? s->node_shape16[n] : s->node_shape32[n];
        if (sh >= s->shape_count || s->shape_type[sh] != ref->node_type[n] ||
            s->shape_size[sh] != ref->node_size32[n])
            abort();
    }
}

static void
same_u32(const uint32_t *a, const uint32_t *b, size_t n)
{
    if (n && memcmp(a, b, n * sizeof(uint32_t)) != 0)
        abort();
}

static void
check_split(const uint8_t *data, size_t size)
{
    uint32_t limit = size ? data[size - 1] & 3 : 0;
    pp_gcdump_tuning serial = { limit, 0 }, split = { limit, 2 };
    pp_gcdump *a = NULL, *b = NULL;
    pp_error ea = PP_ERROR_INIT, eb = PP_ERROR_INIT;
    int ra = pp_gcdump_read_memory_tuned(data, size, "fuzz.gcdump", &serial, &a, &ea);
    int rb = pp_gcdump_read_memory_tuned(data, size, "fuzz.gcdump", &split, &b, &eb);
    if (ra != rb)
        abort();
    if (ra != PP_OK) {
        if (ea.offset != eb.offset || strcmp(ea.message, eb.message) != 0)
            abort();
        return;
    }
    const pp_heap_snapshot *x = pp_gcdump_snapshot(a), *y = pp_gcdump_snapshot(b);
    size_t n = x->node_count;
    if (y->node_count != n || y->edge_count != x->edge_count || y->shape_count != x->shape_count ||
        (x->node_shape16 == NULL) != (y->node_shape16 == NULL) ||
        a->info.sum_node_sizes != b->info.sum_node_sizes || (n >= 2 && !b->decoded_split) ||
        x->dangling_edges != y->dangling_edges || x->dangling_nodes != y->dangling_nodes ||
        a->info.dangling_edges != x->dangling_edges || a->info.dangling_nodes != x->dangling_nodes)
        abort();
    /* Each node holding one drops at least one, and no node holds more
     * than the blob's bytes can encode. */
    if (x->dangling_nodes > n || x->dangling_edges < x->dangling_nodes ||
        (x->dangling_edges == 0) != (x->dangling_nodes == 0) ||
        x->edge_count + x->dangling_edges > size)
        abort();
    same_u32(x->shape_type, y->shape_type, x->shape_count);
    same_u32(x->shape_size, y->shape_size, x->shape_count);
    if (x->node_shape16 && n && memcmp(x->node_shape16, y->node_shape16, n * sizeof(uint16_t)))
        abort();
    if (!x->node_shape16)
        same_u32(x->node_shape32, y->node_shape32, n);
    same_u32(x->edge_start32, y->edge_start32, n + 1);
    same_u32(x->edges, y->edges, x->edge_count);
    same_u32(x->node_type, y->node_type, n);
    pp_gcdump_free(a);
    pp_gcdump_free(b);
}

static void
on_bytes(void *user, const void *d, size_t n)
{
    (void)d;
    *(uint64_t *)user += n;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pp_error err = PP_ERROR_INIT;
    pp_gcdump_reader *d = NULL;
    pp_reader_hooks hooks = PP_READER_HOOKS_INIT;
    uint64_t seen = 0;
    check_split(data, size);
    hooks.on_bytes = on_bytes;
    hooks.user = &seen;
    if (pp_gcdump_reader_open_memory(data, size, "fuzz.gcdump", &hooks, &d, &err) < 0) {
        (void)strlen(err.message);
        return 0;
    }
    if (seen != size)
        abort(); /* on_bytes sees every byte once */
    const pp_heap_snapshot *s = NULL, *again = NULL;
    if (pp_gcdump_reader_next(d, &s, &err) != 1 || s == NULL ||
        pp_gcdump_reader_next(d, &again, &err) != 0)
        abort();
    uint64_t sum = 0;
    for (uint32_t t = 0; t < s->type_count; t++) {
        sum += strlen(s->types[t].name) + strlen(s->types[t].module);
        if (s->type_count_multiplier)
            sum += (uint64_t)s->type_count_multiplier[t] + (uint64_t)s->type_size_multiplier[t];
    }
    if (s->node_count) {
        if (s->root >= s->node_count)
            abort();
        for (uint32_t n = 0; n < s->node_count; n++) {
            if (s->node_type[n] >= s->type_count)
                abort();
            sum += s->node_size[n] + s->node_address[n];
            if (s->edge_start[n] > s->edge_start[n + 1] || s->edge_start[n + 1] > s->edge_count)
                abort();
            for (uint64_t e = s->edge_start[n]; e < s->edge_start[n + 1]; e++)
                if (s->edges[e] >= s->node_count)
                    abort();
        }
    }
    if (s->node_count) {
        check_shapes(s, s);
        pp_gcdump *w = NULL;
        pp_error werr = PP_ERROR_INIT;
        pp_gcdump_tuning tu = { data[size - 1] & 3, PP_GCDUMP_SPLIT_NODES };
        if (pp_gcdump_read_memory_tuned(data, size, "fuzz.gcdump", &tu, &w, &werr) != PP_OK)
            abort(); /* the same bytes read once already */
        const pp_heap_snapshot *ws = pp_gcdump_snapshot(w);
        check_shapes(ws, s);
        if (ws->shape_count != s->shape_count ||
            (ws->shape_count > (uint32_t)(data[size - 1] & 3) && !ws->node_shape32))
            abort();
        pp_gcdump_free(w);
    }
    pp_gcdump_info info;
    memset(&info, 0, sizeof info);
    info.struct_size = sizeof info;
    if (pp_gcdump_reader_get_info(d, &info) == PP_OK &&
        (info.dangling_edges != s->dangling_edges || info.dangling_nodes != s->dangling_nodes))
        abort();
    if (pp_gcdump_reader_get_info(d, &info) == PP_OK)
        sum += strlen(info.creation_tool) + strlen(info.process_name) + strlen(info.machine_name) +
               strlen(info.collection_log);
    (void)sum;
    pp_gcdump_reader_close(d);
    return 0;
}
