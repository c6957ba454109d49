/* The .gcdump writer (writer.h): the FastSerialization container, the
 * GCHeapDump entry object and the MemoryGraph with its compressed node
 * records, byte for byte as ../shared/reference/gcdump.md §8 shows a file
 * of dotnet-gcdump. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/kind.h"
#include "gcdump/writer.h"

/* Labels (file offsets) are 32-bit in a .gcdump. */
#define MAX_FILE UINT64_C(0xFFFFFFFF)
#define MAX_BLOB UINT64_C(0x7FFFFFFF)

typedef struct wctx {
    FILE *f;
    const char *name;
    pp_error *err;
    uint64_t pos; /* bytes written so far = the next label */
    int failed;
} wctx;

static int
fail(wctx *w, int code, const char *fmt, const char *what)
{
    if (!w->failed) {
        pp_error_set(w->err, code, fmt, w->name, what);
        w->failed = code;
    }
    return code;
}

static void
put(wctx *w, const void *p, size_t n)
{
    if (w->failed || n == 0)
        return;
    if (fwrite(p, 1, n, w->f) != n) {
        pp_error_set(w->err, PP_EIO, "%s: cannot write: %s", w->name, strerror(errno));
        w->failed = PP_EIO;
        return;
    }
    w->pos += n;
    if (w->pos > MAX_FILE)
        fail(w, PP_ELIMIT,
             "%s: the dump passes 4 GiB, the limit of the .gcdump format's "
             "32-bit offsets (%s)",
             "take a smaller heap or a sampled dump");
}

static void
put_u8(wctx *w, uint8_t v)
{
    put(w, &v, 1);
}

static void
put_u32(wctx *w, uint32_t v)
{
    uint8_t b[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    put(w, b, 4);
}

static void
put_i32(wctx *w, int32_t v)
{
    put_u32(w, (uint32_t)v);
}

static void
put_i64(wctx *w, int64_t v)
{
    put_u32(w, (uint32_t)(uint64_t)v);
    put_u32(w, (uint32_t)((uint64_t)v >> 32));
}

static void
put_f32(wctx *w, float f)
{
    uint32_t u;
    memcpy(&u, &f, sizeof u);
    put_u32(w, u);
}

/* Next code point of UTF-8 text; invalid bytes become U+FFFD. */
static uint32_t
next_cp(const unsigned char **pp)
{
    const unsigned char *p = *pp;
    uint32_t c = p[0];
    int n = c < 0x80           ? 0 :
            (c & 0xE0) == 0xC0 ? 1 :
            (c & 0xF0) == 0xE0 ? 2 :
            (c & 0xF8) == 0xF0 ? 3 :
                                 -1;
    if (n < 0) {
        *pp = p + 1;
        return 0xFFFD;
    }
    c &= n == 0 ? 0x7F : n == 1 ? 0x1F : n == 2 ? 0x0F : 0x07;
    for (int k = 1; k <= n; k++) {
        if ((p[k] & 0xC0) != 0x80) {
            *pp = p + k;
            return 0xFFFD;
        }
        c = c << 6 | (p[k] & 0x3Fu);
    }
    *pp = p + n + 1;
    if (c > 0x10FFFF || (n == 1 && c < 0x80) || (n == 2 && c < 0x800) || (n == 3 && c < 0x10000))
        return 0xFFFD;
    return c;
}

/* One UTF-16 unit in the writer's 1-3 byte encoding. */
static size_t
unit_bytes(uint32_t u, uint8_t *o)
{
    if (u < 0x80) {
        o[0] = (uint8_t)u;
        return 1;
    }
    if (u < 0x800) {
        o[0] = (uint8_t)(0xC0 | u >> 6);
        o[1] = (uint8_t)(0x80 | (u & 0x3F));
        return 2;
    }
    o[0] = (uint8_t)(0xE0 | (u >> 12 & 0x0F));
    o[1] = (uint8_t)(0x80 | (u >> 6 & 0x3F));
    o[2] = (uint8_t)(0x80 | (u & 0x3F));
    return 3;
}

/* A string: i32 count of UTF-16 units, then each unit (surrogate pairs as
 * two 3-byte units: CESU-8). NULL is the null string (-1). */
static void
put_str(wctx *w, const char *s)
{
    if (!s) {
        put_i32(w, -1);
        return;
    }
    int64_t units = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p;)
        units += next_cp(&p) >= 0x10000 ? 2 : 1;
    if (units > INT32_MAX) {
        fail(w, PP_ELIMIT, "%s: a string of %s is too long for the format", "> 2^31 units");
        return;
    }
    put_i32(w, (int32_t)units);
    uint8_t buf[6];
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = next_cp(&p);
        size_t n;
        if (c >= 0x10000) {
            c -= 0x10000;
            n = unit_bytes(0xD800 | c >> 10, buf);
            n += unit_bytes(0xDC00 | (c & 0x3FF), buf + n);
        } else {
            n = unit_bytes(c, buf);
        }
        put(w, buf, n);
    }
}

/* Graph.cs compressed int: signed, 1-5 bytes, most significant group
 * first, 0x80 = more follows; the shortest form that fits. */
static size_t
cint(int32_t v, uint8_t *o)
{
    uint32_t u = (uint32_t)v;
    int n = (int32_t)(u << 25) >> 25 == v ? 1 :
            (int32_t)(u << 18) >> 18 == v ? 2 :
            (int32_t)(u << 11) >> 11 == v ? 3 :
            (int32_t)(u << 4) >> 4 == v   ? 4 :
                                            5;
    for (int k = 0; k < n; k++) {
        int shift = 7 * (n - 1 - k);
        uint8_t b = (uint8_t)((v >> shift) & 0x7F);
        o[k] = k + 1 < n ? (uint8_t)(b | 0x80) : b;
    }
    return (size_t)n;
}

static size_t
cint_len(int32_t v)
{
    uint8_t o[5];
    return cint(v, o);
}

static int32_t
clamp_size(uint64_t s)
{
    /* The format stores i32 sizes; Graph.SetNode clamps larger ones. */
    return s > (uint64_t)INT32_MAX ? INT32_MAX : (int32_t)s;
}

/* The node shares the UNDEFINED record at blob offset 0. */
static int
shares_undefined(const pp_heap_snapshot *s, uint32_t i)
{
    return s->node_type[i] == 0 && s->node_size[i] == 0 && s->edge_start[i + 1] == s->edge_start[i];
}

static int
check_graph(wctx *w, const pp_heap_snapshot *s, int32_t *tsize)
{
    if (s->node_count == 0 || s->type_count == 0 || s->root >= s->node_count)
        return fail(w, PP_EINVAL, "%s: cannot write %s", "a graph without nodes, types or root");
    if (s->node_count > (uint32_t)INT32_MAX || s->type_count > (UINT32_C(1) << 29))
        return fail(w, PP_ELIMIT, "%s: %s for the .gcdump format", "too many nodes or types");
    for (uint32_t t = 0; t < s->type_count; t++)
        tsize[t] = -1;
    tsize[0] = 0; /* the UNDEFINED record defines it */
    for (uint32_t i = 0; i < s->node_count; i++) {
        uint32_t t = s->node_type[i];
        if (t >= s->type_count)
            return fail(w, PP_EINVAL, "%s: %s", "a node's type index is out of range");
        if (tsize[t] < 0)
            tsize[t] = clamp_size(s->node_size[i]);
        if (s->edge_start[i + 1] < s->edge_start[i] ||
            s->edge_start[i + 1] - s->edge_start[i] > (uint64_t)INT32_MAX)
            return fail(w, PP_EINVAL, "%s: %s", "edge_start is not a CSR index");
    }
    if (s->edge_start[s->node_count] != s->edge_count)
        return fail(w, PP_EINVAL, "%s: %s", "edge_start does not end at edge_count");
    for (uint64_t e = 0; e < s->edge_count; e++)
        if (s->edges[e] >= s->node_count)
            return fail(w, PP_EINVAL, "%s: %s", "an edge points outside the node table");
    return PP_OK;
}

static uint64_t
record_len(const pp_heap_snapshot *s, const int32_t *tsize, uint32_t i)
{
    uint32_t t = s->node_type[i];
    int32_t size = clamp_size(s->node_size[i]);
    uint64_t n = cint_len((int32_t)(t << 1 | (size != tsize[t])));
    if (size != tsize[t])
        n += cint_len(size);
    uint64_t b = s->edge_start[i], e = s->edge_start[i + 1];
    n += cint_len((int32_t)(e - b));
    for (uint64_t k = b; k < e; k++)
        n += cint_len((int32_t)((int64_t)s->edges[k] - (int64_t)i));
    return n;
}

static void
write_record(wctx *w, const pp_heap_snapshot *s, const int32_t *tsize, uint32_t i)
{
    uint8_t buf[64];
    size_t n = 0;
    uint32_t t = s->node_type[i];
    int32_t size = clamp_size(s->node_size[i]);
    n += cint((int32_t)(t << 1 | (size != tsize[t])), buf + n);
    if (size != tsize[t])
        n += cint(size, buf + n);
    uint64_t b = s->edge_start[i], e = s->edge_start[i + 1];
    n += cint((int32_t)(e - b), buf + n);
    for (uint64_t k = b; k < e; k++) {
        if (n > sizeof buf - 5) {
            put(w, buf, n);
            n = 0;
        }
        n += cint((int32_t)((int64_t)s->edges[k] - (int64_t)i), buf + n);
    }
    put(w, buf, n);
}

static void
type_record(wctx *w, int32_t version, int32_t min_reader, const char *name)
{
    put_u8(w, 4); /* BeginObject: the SerializationType */
    put_u8(w, 1); /* its own type: null = SerializationType */
    put_i32(w, version);
    put_i32(w, min_reader);
    put_str(w, name);
    put_u8(w, 6);
}

static void
write_graph(wctx *w, const pp_heap_snapshot *s, const int32_t *tsize, const uint32_t *offset,
            uint32_t blob_len)
{
    uint64_t total = 0;
    for (uint32_t i = 0; i < s->node_count; i++)
        total += (uint64_t)clamp_size(s->node_size[i]);
    put_u8(w, 4); /* BeginObject MemoryGraph */
    type_record(w, 1, 0, "Graphs.MemoryGraph");
    put_i64(w, (int64_t)total);
    put_i32(w, (int32_t)s->root);
    put_i32(w, (int32_t)s->type_count);
    for (uint32_t t = 0; t < s->type_count; t++) {
        const char *module = s->types[t].module;
        put_str(w, s->types[t].name ? s->types[t].name : "");
        put_i32(w, tsize[t]);
        put_str(w, module && *module ? module : NULL);
    }
    put_i32(w, (int32_t)s->node_count);
    for (uint32_t i = 0; i < s->node_count && !w->failed; i++)
        put_u32(w, offset[i]);
    put_i32(w, (int32_t)blob_len);
    static const uint8_t undefined_record[2] = { 0, 0 };
    put(w, undefined_record, 2);
    for (uint32_t i = 0; i < s->node_count && !w->failed; i++)
        if (offset[i] != 0)
            write_record(w, s, tsize, i);
    put_i32(w, (int32_t)s->node_count);
    for (uint32_t i = 0; i < s->node_count && !w->failed; i++)
        put_i64(w, (int64_t)s->node_address[i]);
    put_u8(w, 8); /* tagged Is64Bit */
    put_u8(w, s->pointer_size == 4 ? 0 : 1);
    put_u8(w, 6); /* EndObject MemoryGraph */
}

static void
write_dump(wctx *w, const pp_heap_snapshot *s, const pp_gcdump_write_info *info,
           const int32_t *tsize, const uint32_t *offset, uint32_t blob_len)
{
    put_str(w, "!FastSerialization.1");
    put_u8(w, 4); /* BeginObject GCHeapDump (label 0x18) */
    type_record(w, 10, 8, "GCHeapDump");
    write_graph(w, s, tsize, offset, blob_len);
    put_u8(w, s->pointer_size == 4 ? 0 : 1);
    float avg = 1.0f;
    put_f32(w, avg); /* AverageCountMultiplier */
    put_f32(w, avg); /* AverageSizeMultiplier */
    put_u8(w, 1);    /* JSHeapInfo: null */
    put_u8(w, 1);    /* DotNetHeapInfo: null, as dotnet-gcdump */
    put_str(w, info ? info->collection_log : NULL);
    put_i64(w, info ? info->time_collected_ticks : 0);
    put_str(w, info ? info->machine_name : NULL);
    put_str(w, info ? info->process_name : NULL);
    put_i32(w, info ? (int32_t)info->process_id : 0);
    put_i64(w, info ? info->total_process_commit : 0);
    put_i64(w, info ? info->total_process_working_set : 0);
    if (s->type_count_multiplier) {
        put_i32(w, (int32_t)s->type_count);
        for (uint32_t t = 0; t < s->type_count; t++)
            put_f32(w, (float)s->type_count_multiplier[t]);
    } else {
        put_i32(w, 0);
    }
    /* Tagged InteropInfo in a SkipRegion whose end is forward reference 0. */
    put_u8(w, 12);
    put_i32(w, 0);
    put_u8(w, 1); /* InteropInfo: null */
    uint64_t fwd0 = w->pos;
    if (info && info->creation_tool) {
        put_u8(w, 13); /* tagged CreationTool */
        put_str(w, info->creation_tool);
    }
    put_u8(w, 6); /* EndObject GCHeapDump */
    put_u8(w, 6); /* end of objects */
    uint64_t table = w->pos;
    put_i32(w, 1); /* forward-reference table: one entry */
    put_u32(w, (uint32_t)fwd0);
    uint64_t trailer = w->pos;
    put_u32(w, (uint32_t)table);
    put_u32(w, (uint32_t)trailer);
}

int
pp_gcdump_write(FILE *f, const char *name, const pp_heap_snapshot *snap,
                const pp_gcdump_write_info *info, pp_error *err)
{
    wctx w = { .f = f, .name = name ? name : PP_GCDUMP_KIND, .err = err };
    if (!f || !snap)
        return pp_error_set(err, PP_EINVAL, "pp_gcdump_write: bad arguments"), PP_EINVAL;
    int32_t *tsize = malloc((snap->type_count ? snap->type_count : 1) * sizeof *tsize);
    uint32_t *offset = malloc((snap->node_count ? snap->node_count : 1) * sizeof *offset);
    if (!tsize || !offset) {
        free(tsize);
        free(offset);
        return pp_error_set(err, PP_ENOMEM, "%s: out of memory for the node table", w.name),
               PP_ENOMEM;
    }
    int rc = check_graph(&w, snap, tsize);
    pp_heap_snapshot cut;
    if (rc == PP_OK && info && info->keep_nodes && info->keep_nodes < snap->node_count) {
        if (snap->root >= info->keep_nodes)
            rc = fail(&w, PP_EINVAL, "%s: %s", "keep_nodes leaves the root out");
        cut = *snap;
        cut.node_count = info->keep_nodes;
        snap = &cut;
    }
    uint64_t blob = 2; /* the UNDEFINED record "00 00" */
    for (uint32_t i = 0; rc == PP_OK && i < snap->node_count; i++) {
        if (shares_undefined(snap, i)) {
            offset[i] = 0;
            continue;
        }
        offset[i] = (uint32_t)blob;
        blob += record_len(snap, tsize, i);
        if (blob > MAX_BLOB)
            rc = fail(&w, PP_ELIMIT,
                      "%s: the node blob passes 2 GiB, the limit of the "
                      ".gcdump format (%s)",
                      "take a smaller heap");
    }
    if (rc == PP_OK) {
        write_dump(&w, snap, info, tsize, offset, (uint32_t)blob);
        if (!w.failed && fflush(f) != 0)
            pp_error_set(err, PP_EIO, "%s: cannot write: %s", w.name, strerror(errno)),
                w.failed = PP_EIO;
        rc = w.failed ? w.failed : PP_OK;
    }
    free(tsize);
    free(offset);
    return rc;
}
