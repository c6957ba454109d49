/* IL-to-native maps: which IL offset each stretch of a jitted method's
 * native code came from, from MethodILToNativeMap (keyword
 * JittedMethodILToNativeMap 0x20000, at JIT time) and the rundown's
 * MethodDCStart/DCEndILToNativeMap. The first map of a method's main body
 * (extent 0, no ReJIT) is kept; a native offset maps to the entry with the
 * greatest native offset at or below it. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"

int
nt_ilmaps_add(pp_trace_source *r, const pp_trace_event *ev)
{
    const uint8_t *p = ev->payload;
    size_t n = ev->payload_size;

    /* MethodID u64, ReJITID u64, MethodExtent u8, CountOfMapEntries u16,
     * ILOffsets u32[count], NativeOffsets u32[count], ClrInstanceID u16. */
    if (n < 19)
        return 0;
    uint64_t id = nt_rd64(p);
    uint32_t count = (uint32_t)(p[17] | p[18] << 8);
    if (id == 0 || nt_rd64(p + 8) != 0 || p[16] != 0 || count == 0 || (size_t)count * 8 > n - 19 ||
        pp_u64map_get(&r->ilmap_index, id) != NULL)
        return 0; /* damaged or a second map: the first stays */
    uint32_t *pairs = nt_grow(r->ilmap_pairs, &r->ilmap_cap, r->ilmap_len + count,
                              2 * sizeof *pairs);
    if (!pairs)
        return -1;
    r->ilmap_pairs = pairs;
    nt_ilmap *m = nt_grow(r->ilmaps, &r->ilmaps_cap, r->nilmaps + 1, sizeof *m);
    if (!m)
        return -1;
    r->ilmaps = m;
    for (uint32_t i = 0; i < count; i++) {
        pairs[(r->ilmap_len + i) * 2] = nt_rd32(p + 19 + (size_t)i * 4);
        pairs[(r->ilmap_len + i) * 2 + 1] = nt_rd32(p + 19 + (size_t)count * 4 + (size_t)i * 4);
    }
    m[r->nilmaps].method_id = id;
    m[r->nilmaps].first = r->ilmap_len;
    m[r->nilmaps].count = count;
    if (pp_u64map_put(&r->ilmap_index, id, r->nilmaps) < 0)
        return -1;
    r->nilmaps++;
    r->ilmap_len += count;
    return 0;
}

int
nt_ilmap_il_offset(const pp_trace_source *r, uint64_t method_id, uint32_t off, int32_t *il)
{
    const uint64_t *at = method_id ? pp_u64map_get(&r->ilmap_index, method_id) : NULL;
    if (!at)
        return PP_ENOTFOUND;
    const nt_ilmap *m = &r->ilmaps[*at];
    const uint32_t *pr = r->ilmap_pairs + m->first * 2;
    int64_t best = -1;
    uint32_t best_native = 0;
    for (uint32_t i = 0; i < m->count; i++) {
        uint32_t native = pr[i * 2 + 1];
        if (native <= off && (best < 0 || native >= best_native)) {
            /* An entry without an IL offset (NO_MAPPING) keeps the one before. */
            if ((int32_t)pr[i * 2] == -1 && best >= 0)
                continue;
            best = i;
            best_native = native;
        }
    }
    if (best < 0)
        return PP_ENOTFOUND;
    *il = (int32_t)pr[best * 2];
    return PP_OK;
}

void
nt_ilmaps_free(pp_trace_source *r)
{
    free(r->ilmaps);
    free(r->ilmap_pairs);
    r->ilmaps = NULL;
    r->ilmap_pairs = NULL;
    r->nilmaps = r->ilmaps_cap = r->ilmap_len = r->ilmap_cap = 0;
    pp_u64map_free(&r->ilmap_index);
}
