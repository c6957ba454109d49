/* Test helper: a minimal .gcdump writer (see gcdump_builder.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "check_gcdump_builder.h"

static void
put(gb_buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        b->p = realloc(b->p, cap);
        if (!b->p)
            abort();
        b->cap = cap;
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

void
gb_u8(gb_buf *b, uint8_t v)
{
    put(b, &v, 1);
}

void
gb_i32(gb_buf *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    uint8_t x[4] = { (uint8_t)u, (uint8_t)(u >> 8), (uint8_t)(u >> 16), (uint8_t)(u >> 24) };
    put(b, x, 4);
}

void
gb_i64(gb_buf *b, int64_t v)
{
    gb_i32(b, (int32_t)(uint32_t)(uint64_t)v);
    gb_i32(b, (int32_t)(uint32_t)((uint64_t)v >> 32));
}

void
gb_f32(gb_buf *b, float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    gb_i32(b, (int32_t)u);
}

/* graph.cs WriteCompressedInt: shortest of signed 7/14/21/28 bits, else 5
 * bytes; most significant group first. */
void
gb_cint(gb_buf *b, int32_t v)
{
    uint32_t u = (uint32_t)v;
    int groups;
    if (v >= -64 && v < 64)
        groups = 1;
    else if (v >= -8192 && v < 8192)
        groups = 2;
    else if (v >= -(1 << 20) && v < (1 << 20))
        groups = 3;
    else if (v >= -(1 << 27) && v < (1 << 27))
        groups = 4;
    else
        groups = 5;
    if (groups == 5) {
        gb_u8(b, (uint8_t)(((u >> 28) & 0x7F) | 0x80));
        gb_u8(b, (uint8_t)(((u >> 21) & 0x7F) | 0x80));
        gb_u8(b, (uint8_t)(((u >> 14) & 0x7F) | 0x80));
        gb_u8(b, (uint8_t)(((u >> 7) & 0x7F) | 0x80));
        gb_u8(b, (uint8_t)(u & 0x7F));
        return;
    }
    for (int g = groups - 1; g >= 0; g--)
        gb_u8(b, (uint8_t)(((u >> (7 * g)) & 0x7F) | (g ? 0x80 : 0)));
}

void
gb_str16(gb_buf *b, const uint16_t *units, int32_t n)
{
    gb_i32(b, n);
    for (int32_t i = 0; i < n; i++) {
        uint32_t c = units[i];
        if (c <= 0x7F) {
            gb_u8(b, (uint8_t)c);
        } else if (c <= 0x7FF) {
            gb_u8(b, (uint8_t)(0xC0 | c >> 6));
            gb_u8(b, (uint8_t)(0x80 | (c & 0x3F)));
        } else {
            gb_u8(b, (uint8_t)(0xE0 | ((c >> 12) & 0xF)));
            gb_u8(b, (uint8_t)(0x80 | ((c >> 6) & 0x3F)));
            gb_u8(b, (uint8_t)(0x80 | (c & 0x3F)));
        }
    }
}

void
gb_str(gb_buf *b, const char *s)
{
    if (!s) {
        gb_i32(b, -1);
        return;
    }
    gb_i32(b, (int32_t)strlen(s));
    put(b, s, strlen(s));
}

void
gb_free(gb_buf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
}

static void
type_record(gb_buf *b, int32_t ver, int32_t minr, const char *name)
{
    gb_u8(b, 4);
    gb_u8(b, 1);
    gb_i32(b, ver);
    gb_i32(b, minr);
    gb_str(b, name);
    gb_u8(b, 6);
}

/* Segments: the first carries its type record inline, the rest refer to
 * it by label (ObjectReference), as interned type records are written. */
static void
write_segments(gb_buf *b, const gb_graph *g)
{
    size_t type_label = 0;
    for (uint32_t i = 0; i < g->nsegments; i++) {
        gb_u8(b, 4);
        if (i == 0) {
            type_label = b->n;
            type_record(b, g->segment_version, g->segment_version, "GCHeapDumpSegment");
        } else {
            gb_u8(b, 2);
            gb_i32(b, (int32_t)type_label);
        }
        for (int k = 0; k < (g->segment_version >= 1 ? 7 : 6); k++)
            gb_i64(b, 0x10000 * (int64_t)(i + 1) + k);
        gb_u8(b, 6);
    }
}

void
gb_write(const gb_graph *g, gb_buf *b)
{
    uint32_t fwd[4];
    uint32_t nfwd = 0;
    gb_str(b, "!FastSerialization.1");
    gb_u8(b, 4);
    type_record(b, g->version ? g->version : 10, g->version ? g->min_reader : 8, "GCHeapDump");
    gb_u8(b, 4);
    type_record(b, 1, g->graph_min_reader, "Graphs.MemoryGraph");

    int64_t total = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        if (!g->nodes[i].undefined)
            total += g->nodes[i].size;
    gb_i64(b, g->total_size_override ? g->total_size_override : total);
    gb_i32(b, (int32_t)g->root);
    gb_i32(b, (int32_t)g->ntypes);
    for (uint32_t t = 0; t < g->ntypes; t++) {
        if (g->types[t].name16)
            gb_str16(b, g->types[t].name16, g->types[t].name16_len);
        else
            gb_str(b, g->types[t].name);
        gb_i32(b, g->types[t].size);
        gb_str(b, g->types[t].module);
    }
    /* Node records in reverse index order (definition order differs from
     * index order in real files; the root usually comes last). */
    gb_buf blob = { 0 };
    gb_u8(&blob, 0);
    gb_u8(&blob, 0);
    uint32_t *off = calloc(g->nnodes ? g->nnodes : 1, sizeof(uint32_t));
    for (uint32_t k = g->nnodes; k-- > 0;) {
        const gb_node *n = &g->nodes[k];
        if (n->undefined)
            continue;
        off[k] = (uint32_t)blob.n;
        int explicit_size = n->size != g->types[n->type].size;
        gb_cint(&blob, (int32_t)(n->type << 1 | (explicit_size ? 1u : 0u)));
        if (explicit_size)
            gb_cint(&blob, n->size);
        gb_cint(&blob, (int32_t)n->nchild);
        for (uint32_t c = 0; c < n->nchild; c++)
            gb_cint(&blob, (int32_t)((int64_t)n->children[c] - (int64_t)k));
    }
    gb_i32(b, (int32_t)g->nnodes);
    for (uint32_t i = 0; i < g->nnodes; i++)
        gb_i32(b, (int32_t)off[i]);
    gb_i32(b, (int32_t)blob.n);
    put(b, blob.p, blob.n);
    gb_free(&blob);
    free(off);

    if (g->graph_min_reader >= 1) {
        uint32_t idx = nfwd++;
        gb_i32(b, (int32_t)idx);
        gb_i32(b, (int32_t)g->ndeferred);
        size_t *module_label = calloc(g->nmodules + 1, sizeof(size_t));
        for (uint32_t k = 0; k < g->ndeferred; k++) {
            const gb_deferred *d = &g->deferred[k];
            gb_i32(b, d->type_id);
            if (d->module < 0) {
                gb_u8(b, 1);
            } else if (module_label[d->module]) {
                gb_u8(b, 2);
                gb_i32(b, (int32_t)module_label[d->module]);
            } else {
                module_label[d->module] = b->n;
                gb_u8(b, 4);
                type_record(b, 0, 0, "Graphs.Module");
                gb_str(b, g->module_paths[d->module]);
                gb_i64(b, 0x7ff800000000); /* ImageBase */
                if (g->module_size64)
                    gb_i64(b, 0x123456);
                else
                    gb_i32(b, 0x123456);
                gb_i64(b, 0x08d7c0ffee000000); /* BuildTime ticks */
                gb_str(b, "mod.pdb");
                for (int j = 0; j < 16; j++)
                    gb_u8(b, (uint8_t)j);
                gb_i32(b, 1);
                gb_u8(b, 6);
            }
            gb_str(b, d->suffix);
        }
        free(module_label);
        gb_u8(b, 6);
        fwd[idx] = (uint32_t)b->n;
    }
    gb_i32(b, (int32_t)g->nnodes);
    for (uint32_t i = 0; i < g->nnodes; i++)
        gb_i64(b, (int64_t)g->nodes[i].address);
    gb_u8(b, 8);
    gb_u8(b, 1);
    gb_u8(b, 6);

    if (g->version && g->version < 8) {
        /* PreVersion8FromStream */
        gb_i64(b, 12345);
        gb_i64(b, 0);
        gb_i64(b, 0);
        gb_u8(b, 0);
        if (g->version >= 5) {
            gb_str(b, "log");
            gb_i64(b, 0);
            gb_str(b, "machine");
            gb_str(b, g->process_name);
            gb_i32(b, g->pid);
            gb_i64(b, 0);
            gb_i64(b, 0);
        }
        if (g->version >= 6) {
            gb_i32(b, (int32_t)g->nsegments);
            write_segments(b, g);
        }
        if (g->version >= 7)
            gb_u8(b, 1);
        gb_u8(b, 6);
        gb_u8(b, 6);
        uint32_t table = (uint32_t)b->n;
        gb_i32(b, (int32_t)nfwd);
        for (uint32_t i = 0; i < nfwd; i++)
            gb_i32(b, (int32_t)fwd[i]);
        uint32_t trailer = (uint32_t)b->n;
        gb_i32(b, (int32_t)table);
        gb_i32(b, (int32_t)trailer);
        return;
    }
    gb_u8(b, 1);
    gb_f32(b, g->avg_count_mult != 0 ? g->avg_count_mult : 1.0f);
    gb_f32(b, g->avg_size_mult != 0 ? g->avg_size_mult : 1.0f);
    gb_u8(b, 1); /* JSHeapInfo */
    if (g->nsegments) {
        gb_u8(b, 4);
        type_record(b, 0, 0, "DotNetHeapInfo");
        gb_i64(b, 1 << 20); /* SizeOfAllSegments */
        gb_i32(b, (int32_t)g->nsegments);
        write_segments(b, g);
        gb_u8(b, 6);
    } else {
        gb_u8(b, 1); /* DotNetHeapInfo */
    }
    gb_str(b, NULL);
    gb_i64(b, 0);
    gb_str(b, NULL);
    gb_str(b, g->process_name);
    gb_i32(b, g->pid);
    gb_i64(b, 0);
    gb_i64(b, 0);
    gb_i32(b, (int32_t)g->nmult);
    for (uint32_t i = 0; i < g->nmult; i++)
        gb_f32(b, g->mult[i]);
    uint32_t skip = nfwd++;
    gb_u8(b, 12);
    gb_i32(b, (int32_t)skip);
    gb_u8(b, 1);
    fwd[skip] = (uint32_t)b->n;
    if (g->creation_tool) {
        gb_u8(b, 13);
        gb_str(b, g->creation_tool);
    }
    gb_u8(b, 6);
    gb_u8(b, 6);
    uint32_t table = (uint32_t)b->n;
    gb_i32(b, (int32_t)nfwd);
    for (uint32_t i = 0; i < nfwd; i++)
        gb_i32(b, (int32_t)fwd[i]);
    uint32_t trailer = (uint32_t)b->n;
    gb_i32(b, (int32_t)table);
    gb_i32(b, (int32_t)trailer);
}
