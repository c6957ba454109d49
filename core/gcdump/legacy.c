/* The snapshot arrays a lean dump leaves out (legacy.h). A lean dump (the
 * pipeline's gcdump source) decodes only the 32-bit CSR index and the node
 * shapes that plugins of minor >= 4 with both opt-ins read, and leaves the
 * 8-byte node addresses in the file: for the bench heap that is 171 MB a
 * snapshot less. A plugin without an opt-in still gets the arrays it
 * reads, built here before its first record. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/legacy.h"

int
pp_gcdump_build_legacy(pp_gcdump *d, const uint8_t *data)
{
    uint32_t n = d->snap.node_count;
    uint64_t *size = malloc((n ? n : 1) * sizeof(uint64_t));
    uint64_t *addr = malloc((n ? n : 1) * sizeof(uint64_t));
    uint64_t *start = malloc(((size_t)n + 1) * sizeof(uint64_t));
    if (!size || !addr || !start) {
        free(size);
        free(addr);
        free(start);
        return PP_ENOMEM;
    }
    const pp_shapes *sh = &d->shapes;
    for (uint32_t i = 0; i < n; i++) {
        size[i] = d->node_size32 ? d->node_size32[i] : sh->size[pp_shapes_of(sh, i)];
        start[i] = d->edge_start32[i];
    }
    start[n] = d->edge_start32[n];
    const uint8_t *table = data + d->addr_at;
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* The file's little-endian u64s are the host's: one copy. */
    memcpy(addr, table, 8 * (size_t)n);
#else
    for (uint32_t i = 0; i < n; i++) {
        const uint8_t *a = table + 8 * (size_t)i;
        uint64_t v = 0;
        for (int k = 7; k >= 0; k--)
            v = v << 8 | a[k];
        addr[i] = v;
    }
#endif
    d->node_size = size;
    d->node_address = addr;
    d->edge_start = start;
    d->snap.node_size = size;
    d->snap.node_address = addr;
    d->snap.edge_start = start;
    return PP_OK;
}

int
pp_gcdump_build_node_arrays(pp_gcdump *d)
{
    uint32_t n = d->snap.node_count;
    uint32_t *type = malloc((n ? n : 1) * sizeof(uint32_t));
    uint32_t *size = malloc((n ? n : 1) * sizeof(uint32_t));
    if (!type || !size) {
        free(type);
        free(size);
        return PP_ENOMEM;
    }
    const pp_shapes *sh = &d->shapes;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t k = pp_shapes_of(sh, i);
        type[i] = sh->type[k];
        size[i] = sh->size[k];
    }
    d->node_type = type;
    d->node_size32 = size;
    d->snap.node_type = type;
    d->snap.node_size32 = size;
    return PP_OK;
}

int
pp_gcdump_node_arrays(const pp_heap_snapshot *s, pp_error *err)
{
    if (s->node_type && s->node_size32)
        return PP_OK;
    /* Only a lean dump leaves them NULL (as pp_gcdump_legacy_arrays). */
    pp_gcdump *d = (pp_gcdump *)(void *)(uintptr_t)s;
    if (!d->lean || !d->shapes.count) {
        pp_error_set(err, PP_EINVAL, "heap snapshot without node types and sizes");
        return PP_EINVAL;
    }
    if (pp_gcdump_build_node_arrays(d) != PP_OK) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory for the node types and sizes of %u nodes",
                     d->map_name, (unsigned)s->node_count);
        return PP_ENOMEM;
    }
    return PP_OK;
}

typedef struct legacy_job {
    pp_gcdump *d;
} legacy_job;

static int
legacy_run(void *p)
{
    legacy_job *j = p;
    return pp_gcdump_build_legacy(j->d, j->d->map->data);
}

int
pp_gcdump_legacy_arrays(const pp_heap_snapshot *s, pp_error *err)
{
    if (s->node_size && s->node_address && s->edge_start)
        return PP_OK;
    /* Only a lean dump leaves them NULL, and its snapshot is the first
     * member of its pp_gcdump. */
    pp_gcdump *d = (pp_gcdump *)(void *)(uintptr_t)s;
    if (!d->lean || !d->map) {
        pp_error_set(err, PP_EINVAL, "heap snapshot without its 64-bit arrays");
        return PP_EINVAL;
    }
    legacy_job job = { d };
    int rc = pp_gcdump_map_run(d->map, d->map_name, legacy_run, &job, err);
    if (rc == PP_ENOMEM)
        pp_error_set(err, PP_ENOMEM, "%s: out of memory for the 64-bit node arrays of %u nodes",
                     d->map_name, (unsigned)s->node_count);
    return rc;
}
