/* Graphs.MemoryGraph decoding: the type table, the deferred-type region and
 * the address table; the node table and node blob (compressed records, §6
 * of the reference) go to nodes.c, into flat arrays with edges in CSR form. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"

static char *
dup_str(const char *s)
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
static int
module_layout_fits(pp_fs *fs, size_t start, size_t size_width)
{
    pp_fs probe = *fs;
    pp_error scratch = PP_ERROR_INIT;
    probe.err = &scratch;
    probe.pos = start + 8 + size_width + 8; /* ImageBase, Size, BuildTime */
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

int
pp_gcdump_read_module(pp_fs *fs, pp_gcdump *d, uint32_t *index)
{
    size_t at = fs->pos;
    char *path = NULL;
    int rc = pp_fs_string(fs, &path, "Module.Path");
    if (rc != PP_OK)
        return rc;
    size_t start = fs->pos;
    size_t width = module_layout_fits(fs, start, 4) ? 4 : module_layout_fits(fs, start, 8) ? 8 : 0;
    if (!width) {
        free(path);
        return pp_fs_fail(
            fs, PP_EFORMAT, start,
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
    d->modules[d->nmodules] = path; /* may be NULL: a module without a path */
    *index = d->nmodules++;
    return PP_OK;
}

/* The deferred-type region (§5): D x {TypeID, Module ref, suffix}, indexed
 * by type index. Only types stored with a null name take a display name
 * from it: "TypeID(0x<hex>)" as Graph.NodeType.Name does without a symbol
 * resolver, and the module's path. */
static int
read_deferred(pp_fs *fs, pp_gcdump *d, uint32_t ntypes)
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
            continue; /* padding, or a type that has a real name */
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

int
pp_gcdump_read_graph(pp_fs *fs, const pp_fs_type *type, pp_gcdump *d)
{
    int rc;
    size_t at = fs->pos;
    if (type->min_reader > PP_GCDUMP_GRAPH_READER_VERSION)
        return pp_fs_fail(
            fs, PP_EUNSUPPORTED, at,
            "Graphs.MemoryGraph version %d needs a reader of version %d; this reader knows version %d",
            (int)type->version, (int)type->min_reader, PP_GCDUMP_GRAPH_READER_VERSION);
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
        return pp_fs_fail(fs, PP_EFORMAT, at, "root index %d is not one of the %u nodes", (int)root,
                          (unsigned)n);
    size_t table_at = fs->pos;
    fs->pos += 4 * (size_t)n;
    at = fs->pos;
    int32_t blob_len;
    if ((rc = pp_fs_i32(fs, &blob_len, "node blob length")) != PP_OK)
        return rc;
    if (blob_len < 1 || (size_t)blob_len > fs->size - fs->pos)
        return pp_fs_fail(fs, PP_EFORMAT, at, "node blob of %d bytes does not fit in the file",
                          (int)blob_len);
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
    if ((rc = pp_gcdump_decode_nodes(fs, d, table_at, n, blob_at, (uint32_t)blob_len)) != PP_OK)
        return rc;
    /* A lean dump keeps types and sizes as shapes only, and copies the
     * addresses, only when a stage asks (legacy.c). */
    if (!d->lean &&
        (pp_gcdump_build_node_arrays(d) != PP_OK || pp_gcdump_build_legacy(d, fs->data) != PP_OK))
        return pp_fs_fail(fs, PP_ENOMEM, table_at, "out of memory for %u nodes", (unsigned)n);
    return PP_OK;
}
