/* Graphs.MemoryGraph decoding: the type table, the node table and node blob
 * (compressed records, §6 of the reference), the deferred-type region and
 * the address table, into flat arrays with edges in CSR form. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"

static char *dup_str(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d)
        memcpy(d, s, n);
    return d;
}

/* Graphs.Module (§7.5). Size is i32 (dotnet-gcdump, older PerfView) or i64
 * (PerfView since 2025-04) with the same type version, so try i32 first and
 * accept the layout whose PdbName, Guid, PdbAge end exactly at the object's
 * EndObject. */
static int module_layout_fits(pp_fs *fs, size_t start, size_t size_width)
{
    pp_fs probe = *fs;
    pp_error scratch = PP_ERROR_INIT;
    probe.err = &scratch;
    probe.pos = start + 8 + size_width + 8;        /* ImageBase, Size, BuildTime */
    if (probe.pos > probe.size)
        return 0;
    if (pp_fs_skip_string(&probe, "PdbName") != PP_OK)
        return 0;
    if (pp_fs_need(&probe, 16 + 4 + 1, "Guid") != PP_OK)
        return 0;
    probe.pos += 20;
    uint8_t b = probe.data[probe.pos];
    /* EndObject, or a tagged field a newer writer appended. */
    return b == PP_FS_END || (b >= PP_FS_BYTE && b <= PP_FS_BLOB);
}

int pp_gcdump_read_module(pp_fs *fs, pp_gcdump *d, uint32_t *index)
{
    size_t at = fs->pos;
    char *path = NULL;
    int rc = pp_fs_string(fs, &path, "Module.Path");
    if (rc != PP_OK)
        return rc;
    size_t start = fs->pos;
    size_t width = module_layout_fits(fs, start, 4) ? 4
                 : module_layout_fits(fs, start, 8) ? 8 : 0;
    if (!width) {
        free(path);
        return pp_fs_fail(fs, PP_EFORMAT, start,
                          "Graphs.Module: fields after Path fit neither the 32- nor the 64-bit Size layout");
    }
    fs->pos = start + 8 + width + 8;
    if ((rc = pp_fs_skip_string(fs, "Module.PdbName")) != PP_OK) {
        free(path);
        return rc;
    }
    fs->pos += 20;
    if ((rc = pp_fs_end_object(fs, "Graphs.Module")) != PP_OK) {
        free(path);
        return rc;
    }
    if (d->nmodules >= (uint32_t)(fs->size / 8)) {
        free(path);
        return pp_fs_fail(fs, PP_EFORMAT, at, "more modules than the file can hold");
    }
    char **grown = realloc(d->modules, (d->nmodules + 1) * sizeof(*grown));
    if (!grown) {
        free(path);
        return pp_fs_fail(fs, PP_ENOMEM, at, "out of memory");
    }
    d->modules = grown;
    d->modules[d->nmodules] = path;   /* may be NULL: a module without a path */
    *index = d->nmodules++;
    return PP_OK;
}

/* The deferred-type region (§5): D x {TypeID, Module ref, suffix}, indexed
 * by type index. Only types stored with a null name take a display name
 * from it: "TypeID(0x<hex>)" as Graph.NodeType.Name does without a symbol
 * resolver, and the module's path. */
static int read_deferred(pp_fs *fs, pp_gcdump *d, uint32_t ntypes)
{
    size_t at = fs->pos;
    int32_t count;
    int rc = pp_fs_i32(fs, &count, "deferred type count");
    if (rc != PP_OK)
        return rc;
    if (count < 0 || (size_t)count > (fs->size - fs->pos) / 9)
        return pp_fs_fail(fs, PP_EFORMAT, at, "deferred type count %d is impossible here",
                          (int)count);
    for (int32_t k = 0; k < count; k++) {
        size_t entry = fs->pos;
        int32_t type_id;
        if ((rc = pp_fs_i32(fs, &type_id, "deferred TypeID")) != PP_OK)
            return rc;
        int tag;
        uint32_t label;
        const pp_fs_type *type;
        int64_t module = -1;
        if ((rc = pp_fs_object_start(fs, &tag, &label, &type, "deferred type Module")) != PP_OK)
            return rc;
        if (tag == PP_FS_OBJREF) {
            const pp_fs_object *o = pp_fs_object_find(fs, label);
            if (!o || !o->type || strcmp(o->type->name, "Graphs.Module") != 0)
                return pp_fs_fail(fs, PP_EFORMAT, fs->pos - 5,
                                  "deferred type refers to offset %u, which is not a Graphs.Module",
                                  (unsigned)label);
            module = o->user;
        } else if (tag == PP_FS_BEGIN) {
            if (strcmp(type->name, "Graphs.Module") != 0)
                return pp_fs_fail(fs, PP_EFORMAT, label,
                                  "deferred type: expected a Graphs.Module, found \"%s\"",
                                  type->name);
            uint32_t idx;
            if ((rc = pp_gcdump_read_module(fs, d, &idx)) != PP_OK ||
                (rc = pp_fs_object_add(fs, label, type, idx)) != PP_OK)
                return rc;
            module = idx;
        }
        if ((rc = pp_fs_skip_string(fs, "deferred type name suffix")) != PP_OK)
            return rc;
        if ((uint32_t)k >= ntypes || d->type_names[k])
            continue;            /* padding, or a type that has a real name */
        char buf[32];
        snprintf(buf, sizeof(buf), "TypeID(0x%" PRIx32 ")", (uint32_t)type_id);
        if (!(d->type_names[k] = dup_str(buf)))
            return pp_fs_fail(fs, PP_ENOMEM, entry, "out of memory");
        if (module >= 0 && !d->type_modules[k] && d->modules[module] &&
            !(d->type_modules[k] = dup_str(d->modules[module])))
            return pp_fs_fail(fs, PP_ENOMEM, entry, "out of memory");
    }
    return PP_OK;
}

/* A node record's header (type/size word, explicit size, child count),
 * validated; *p moves past it. The checks and messages of the first of
 * the two passes the decoder used to make. */
static int node_header(pp_fs *fs, pp_gcdump *d, uint32_t i, size_t blob_at, uint32_t off,
                       const uint8_t **pp, const uint8_t *blob_end, uint32_t *type,
                       int32_t *size, int32_t *nchild)
{
    const uint8_t *p = *pp;
    int32_t tas;
    size_t used = pp_fs_cint(p, blob_end, &tas);
    if (!used || tas < 0)
        return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                          "node %u: bad type/size word in its record", (unsigned)i);
    p += used;
    *type = (uint32_t)tas >> 1;
    if (*type >= d->snap.type_count)
        return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                          "node %u: type index %u, but the type table has %u entries",
                          (unsigned)i, (unsigned)*type, (unsigned)d->snap.type_count);
    if (tas & 1) {
        if (!(used = pp_fs_cint(p, blob_end, size)) || *size < 0)
            return pp_fs_fail(fs, PP_EFORMAT, (size_t)(p - fs->data),
                              "node %u: bad explicit size", (unsigned)i);
        p += used;
    } else {
        *size = d->type_size[*type];
        if (*size < 0)
            return pp_fs_fail(fs, PP_EFORMAT, blob_at + off,
                              "node %u: implicit size, but type %u has no size",
                              (unsigned)i, (unsigned)*type);
    }
    if (!(used = pp_fs_cint(p, blob_end, nchild)) || *nchild < 0 ||
        (size_t)*nchild > (size_t)(blob_end - p - used))
        return pp_fs_fail(fs, PP_EFORMAT, (size_t)(p - fs->data),
                          "node %u: bad child count", (unsigned)i);
    *pp = p + used;
    return PP_OK;
}

static uint32_t table_entry(const pp_fs *fs, size_t entry)
{
    const uint8_t *e = fs->data + entry;
    return (uint32_t)e[0] | (uint32_t)e[1] << 8 | (uint32_t)e[2] << 16 | (uint32_t)e[3] << 24;
}

/* One pass over the node table: types, sizes, child counts and the edges,
 * each record decoded once. Every child delta takes at least one blob byte,
 * so the edges fit in blob_len slots: that much is reserved (pages are
 * touched only as far as written) and the tail given back at the end.
 * Damage is reported as the two separate passes did: a bad header of any
 * node before a bad child of an earlier one, so once a child is bad only
 * the headers of the rest are checked. */
#define NO_BAD_CHILD UINT32_MAX
/* Decoded pages go back to the page cache in steps of this many bytes.
 * About two steps of each stream (the table, the blob) stay mapped beside
 * the snapshot: with 8 MB steps retained=false peaked 20 MB above the
 * bench heap's snapshot, with 1 MB (the hash's step) 7 MB. */
#define RELEASE_STEP ((size_t)1 << 20)

static int decode_nodes(pp_fs *fs, pp_gcdump *d, size_t table_at, uint32_t n,
                        size_t blob_at, uint32_t blob_len)
{
    const uint8_t *blob = fs->data + blob_at, *blob_end = blob + blob_len;
    uint64_t total_edges = 0, sum = 0;
    /* Records follow the table's order in every writer seen, so what lies
     * behind the current record is done with (a record placed earlier is
     * read again from the page cache: slower, same bytes). Behind means
     * behind the lowest record of the last stretch of nodes, not the
     * current one: dotnet-gcdump writes the root (node 0) last, and
     * following it kept the whole blob resident (51 MB of the bench heap). */
    size_t released_table = table_at, released_blob = blob_at;
    uint32_t lowest = UINT32_MAX;
    /* The first bad child: node, child index, where it points, offset. */
    uint32_t bad_node = NO_BAD_CHILD;
    uint64_t bad_k = 0;
    int64_t bad_child = 0;
    size_t bad_at = 0;
    d->edges = malloc((size_t)blob_len * sizeof(uint32_t));
    if (!d->edges)
        return pp_fs_fail(fs, PP_ENOMEM, blob_at, "out of memory for %u edges",
                          (unsigned)blob_len);
    for (uint32_t i = 0; i < n; i++) {
        size_t entry = table_at + 4 * (size_t)i;
        uint32_t off = table_entry(fs, entry);
        if (off >= blob_len)
            return pp_fs_fail(fs, PP_EFORMAT, entry,
                              "node %u: record offset %u is outside the %u-byte node blob",
                              (unsigned)i, (unsigned)off, (unsigned)blob_len);
        if (d->map && (i & 0xffff) == 0) {
            if (entry - released_table >= RELEASE_STEP) {
                pp_gcdump_map_release(d->map, released_table, entry);
                released_table = entry;
            }
            if (lowest != UINT32_MAX && blob_at + lowest > released_blob + RELEASE_STEP) {
                pp_gcdump_map_release(d->map, released_blob, blob_at + lowest);
                released_blob = blob_at + lowest;
            }
            lowest = UINT32_MAX;
        }
        if (off < lowest)
            lowest = off;
        const uint8_t *p = blob + off;
        uint32_t type = 0;
        int32_t size = 0, nchild = 0;
        int rc = node_header(fs, d, i, blob_at, off, &p, blob_end, &type, &size, &nchild);
        if (rc != PP_OK)
            return rc;
        if (pp_shapes_set(&d->shapes, i, type, (uint32_t)size) != PP_OK)
            return pp_fs_fail(fs, PP_ENOMEM, entry, "out of memory for the node shapes");
        sum += (uint64_t)size;
        d->edge_start32[i] = (uint32_t)total_edges;
        uint64_t k = total_edges;
        total_edges += (uint64_t)nchild;
        /* Defined nodes own disjoint records, so more edges than blob
         * bytes means records overlap: refuse rather than write past. */
        if (total_edges > blob_len)
            return pp_fs_fail(fs, PP_EFORMAT, entry,
                              "node %u: records claim more edges than the node blob can hold",
                              (unsigned)i);
        if (bad_node != NO_BAD_CHILD)
            continue;
        for (; k < total_edges; k++) {
            int32_t delta = 0;
            size_t used = pp_fs_cint(p, blob_end, &delta);
            int64_t child = (int64_t)i + delta;
            if (!used || child < 0 || child >= (int64_t)n) {
                bad_node = i;
                bad_k = k - d->edge_start32[i];
                bad_child = child;
                bad_at = (size_t)(p - fs->data);
                break;
            }
            d->edges[k] = (uint32_t)child;
            p += used;
        }
    }
    if (bad_node != NO_BAD_CHILD)
        return pp_fs_fail(fs, PP_EFORMAT, bad_at,
                          "node %u: child %" PRIu64 " points at node %" PRId64 ", outside 0..%u",
                          (unsigned)bad_node, bad_k, bad_child, (unsigned)n - 1);
    d->edge_start32[n] = (uint32_t)total_edges;
    d->info.sum_node_sizes = sum;
    pp_shapes_done(&d->shapes);
    uint32_t *shrunk = realloc(d->edges, total_edges ? total_edges * sizeof(uint32_t) : 1);
    if (shrunk)
        d->edges = shrunk;
    d->snap.edge_count = total_edges;
    return PP_OK;
}

int pp_gcdump_read_graph(pp_fs *fs, const pp_fs_type *type, pp_gcdump *d)
{
    int rc;
    size_t at = fs->pos;
    if (type->min_reader > PP_GCDUMP_GRAPH_READER_VERSION)
        return pp_fs_fail(fs, PP_EUNSUPPORTED, at,
                          "Graphs.MemoryGraph version %d needs a reader of version %d; this reader knows version %d",
                          (int)type->version, (int)type->min_reader,
                          PP_GCDUMP_GRAPH_READER_VERSION);
    d->info.graph_min_reader = type->min_reader > 0 ? (uint32_t)type->min_reader : 0;
    int64_t total_size;
    int32_t root, ntypes;
    if ((rc = pp_fs_i64(fs, &total_size, "graph TotalSize")) != PP_OK ||
        (rc = pp_fs_i32(fs, &root, "graph RootIndex")) != PP_OK)
        return rc;
    d->info.total_size = total_size;
    at = fs->pos;
    if ((rc = pp_fs_i32(fs, &ntypes, "type count")) != PP_OK)
        return rc;
    /* A type entry takes at least 12 bytes (two strings and a size). */
    if (ntypes < 1 || (size_t)ntypes > (fs->size - fs->pos) / 12)
        return pp_fs_fail(fs, PP_EFORMAT, at, "type count %d is impossible in this file",
                          (int)ntypes);
    uint32_t t = (uint32_t)ntypes;
    d->snap.type_count = t;
    d->types = calloc(t, sizeof(*d->types));
    d->type_names = calloc(t, sizeof(char *));
    d->type_modules = calloc(t, sizeof(char *));
    d->type_size = calloc(t, sizeof(int32_t));
    if (!d->types || !d->type_names || !d->type_modules || !d->type_size)
        return pp_fs_fail(fs, PP_ENOMEM, at, "out of memory for %u types", (unsigned)t);
    for (uint32_t i = 0; i < t; i++) {
        if ((rc = pp_fs_string(fs, &d->type_names[i], "type name")) != PP_OK ||
            (rc = pp_fs_i32(fs, &d->type_size[i], "type size")) != PP_OK ||
            (rc = pp_fs_string(fs, &d->type_modules[i], "type module")) != PP_OK)
            return rc;
    }
    at = fs->pos;
    int32_t nnodes;
    if ((rc = pp_fs_i32(fs, &nnodes, "node count")) != PP_OK)
        return rc;
    /* Each node has a 4-byte table entry and an 8-byte address further on. */
    if (nnodes < 1 || (size_t)nnodes > (fs->size - fs->pos) / 12)
        return pp_fs_fail(fs, PP_EFORMAT, at, "node count %d is impossible in this file",
                          (int)nnodes);
    uint32_t n = (uint32_t)nnodes;
    if (root < 0 || (uint32_t)root >= n)
        return pp_fs_fail(fs, PP_EFORMAT, at, "root index %d is not one of the %u nodes",
                          (int)root, (unsigned)n);
    size_t table_at = fs->pos;
    fs->pos += 4 * (size_t)n;
    at = fs->pos;
    int32_t blob_len;
    if ((rc = pp_fs_i32(fs, &blob_len, "node blob length")) != PP_OK)
        return rc;
    if (blob_len < 1 || (size_t)blob_len > fs->size - fs->pos)
        return pp_fs_fail(fs, PP_EFORMAT, at,
                          "node blob of %d bytes does not fit in the file", (int)blob_len);
    size_t blob_at = fs->pos;
    fs->pos += (size_t)blob_len;

    if (type->min_reader >= 1) {
        int32_t idx;
        size_t region_end;
        at = fs->pos;
        if ((rc = pp_fs_i32(fs, &idx, "deferred region index")) != PP_OK ||
            (rc = pp_fs_forward(fs, idx, &region_end)) != PP_OK)
            return rc;
        if (region_end < fs->pos)
            return pp_fs_fail(fs, PP_EFORMAT, at, "deferred region ends before it starts");
        if ((rc = read_deferred(fs, d, t)) != PP_OK)
            return rc;
        fs->pos = region_end;
    }

    at = fs->pos;
    int32_t naddr;
    if ((rc = pp_fs_i32(fs, &naddr, "address count")) != PP_OK)
        return rc;
    if (naddr != nnodes)
        return pp_fs_fail(fs, PP_EFORMAT, at, "address count %d differs from node count %d",
                          (int)naddr, (int)nnodes);
    if ((rc = pp_fs_need(fs, 8 * (size_t)n, "node addresses")) != PP_OK)
        return rc;
    size_t addr_at = fs->pos;
    fs->pos += 8 * (size_t)n;
    if (fs->pos < fs->size && fs->data[fs->pos] == PP_FS_BYTE) {
        uint8_t b;
        fs->pos++;
        if ((rc = pp_fs_u8(fs, &b, "graph Is64Bit")) != PP_OK)
            return rc;
        d->is64 = b != 0;
    }
    if ((rc = pp_fs_end_object(fs, "Graphs.MemoryGraph")) != PP_OK)
        return rc;

    d->edge_start32 = malloc(((size_t)n + 1) * sizeof(uint32_t));
    if (!d->edge_start32 || pp_shapes_init(&d->shapes, n, d->shape16_max) != PP_OK)
        return pp_fs_fail(fs, PP_ENOMEM, table_at, "out of memory for %u nodes", (unsigned)n);
    d->addr_at = addr_at;
    d->snap.node_count = n;
    d->snap.root = (uint32_t)root;
    if ((rc = decode_nodes(fs, d, table_at, n, blob_at, (uint32_t)blob_len)) != PP_OK)
        return rc;
    /* A lean dump keeps types and sizes as shapes only, and copies the
     * addresses, only when a stage asks (legacy.c). */
    if (!d->lean && (pp_gcdump_build_node_arrays(d) != PP_OK ||
                     pp_gcdump_build_legacy(d, fs->data) != PP_OK))
        return pp_fs_fail(fs, PP_ENOMEM, table_at, "out of memory for %u nodes", (unsigned)n);
    return PP_OK;
}
