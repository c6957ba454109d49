/* libFuzzer target: the .gcdump reader (core/gcdump) through the verbs of
 * reader.h. Decodes the input with pp_gcdump_reader_open_memory, takes its
 * one graph from pp_gcdump_reader_next (twice: the second call ends), walks the whole snapshot the way gcdump and
 * gcdump-diff do (every node's type and every edge), so an array the reader
 * sized wrongly is read past its end under ASan. The node shapes (ABI 1.4)
 * must equal node_type/node_size32 node for node, with the 16-bit indices
 * and again with the 32-bit ones forced (a limit of 0-3 shapes taken from
 * the input's last byte, so that small inputs widen mid-decode too). */
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
        if (pp_gcdump_read_memory_shapes(data, size, "fuzz.gcdump", data[size - 1] & 3, &w,
                                         &werr) != PP_OK)
            abort();   /* the same bytes read once already */
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
    if (pp_gcdump_reader_get_info(d, &info) == PP_OK)
        sum += strlen(info.creation_tool) + strlen(info.process_name) +
               strlen(info.machine_name) + strlen(info.collection_log);
    (void)sum;
    pp_gcdump_reader_close(d);
    return 0;
}
