/* The GCHeapDump entry object (§4 of the reference) and the public reader
 * API: header, version checks, the graph, process facts and the sampling
 * multipliers, then the finished pp_heap_snapshot. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/gcdump.h>
#include <perfpipe/perfpipe.h>

#include "gcdump/dump.h"
#include "gcdump/filemap.h"
#include "gcdump/kind.h"
#include "base/sized.h"

static int read_object(pp_fs *fs, pp_gcdump *d, const char *what);

/* GCHeapDumpSegment: 6 u64 before type version 1, 7 since. */
static int
read_segment(pp_fs *fs, const pp_fs_type *type)
{
    size_t n = type->version >= 1 ? 7 : 6;
    int rc = pp_fs_need(fs, 8 * n, "GCHeapDumpSegment");
    if (rc != PP_OK)
        return rc;
    fs->pos += 8 * n;
    return pp_fs_end_object(fs, "GCHeapDumpSegment");
}

static int
read_segments(pp_fs *fs, pp_gcdump *d, const char *what)
{
    size_t at = fs->pos;
    int32_t n;
    int rc = pp_fs_i32(fs, &n, what);
    if (rc != PP_OK)
        return rc;
    if (n < 0 || (size_t)n > fs->size - fs->pos)
        return pp_fs_fail(fs, PP_EFORMAT, at, "%s: %d segments is impossible here", what, (int)n);
    for (int32_t i = 0; i < n; i++)
        if ((rc = read_object(fs, d, "GCHeapDumpSegment")) != PP_OK)
            return rc;
    return PP_OK;
}

/* An object-reference field of GCHeapDump. Payloads are untagged, so only
 * the types a gcdump holds can be walked; any other is refused. */
static int
read_object(pp_fs *fs, pp_gcdump *d, const char *what)
{
    int tag;
    uint32_t label;
    const pp_fs_type *type;
    size_t at = fs->pos;
    int rc = pp_fs_object_start(fs, &tag, &label, &type, what);
    if (rc != PP_OK || tag != PP_FS_BEGIN)
        return rc; /* null, or a reference to an earlier object */
    if ((rc = pp_fs_object_add(fs, label, type, -1)) != PP_OK)
        return rc;
    if (strcmp(type->name, "JSHeapInfo") == 0)
        return pp_fs_end_object(fs, "JSHeapInfo");
    if (strcmp(type->name, "GCHeapDumpSegment") == 0)
        return read_segment(fs, type);
    if (strcmp(type->name, "DotNetHeapInfo") == 0) {
        int64_t all;
        if ((rc = pp_fs_i64(fs, &all, "SizeOfAllSegments")) != PP_OK ||
            (rc = read_segments(fs, d, "DotNetHeapInfo segment count")) != PP_OK)
            return rc;
        return pp_fs_end_object(fs, "DotNetHeapInfo");
    }
    if (strcmp(type->name, "Graphs.Module") == 0) {
        uint32_t idx;
        return pp_gcdump_read_module(fs, d, &idx);
    }
    return pp_fs_fail(fs, PP_EUNSUPPORTED, at, "%s: unexpected object of type \"%s\"", what,
                      type->name);
}

static int
read_legacy(pp_fs *fs, pp_gcdump *d, int32_t version)
{
    int64_t skip64;
    uint8_t b;
    int rc;
    if ((rc = pp_fs_i64(fs, &skip64, "SizeOfAllSegments")) != PP_OK ||
        (rc = pp_fs_i64(fs, &skip64, "legacy field")) != PP_OK ||
        (rc = pp_fs_i64(fs, &skip64, "legacy field")) != PP_OK ||
        (rc = pp_fs_u8(fs, &b, "legacy flag")) != PP_OK)
        return rc;
    if (version >= 5) {
        int32_t pid;
        if ((rc = pp_fs_string(fs, &d->collection_log, "CollectionLog")) != PP_OK ||
            (rc = pp_fs_i64(fs, &d->info.time_collected_ticks, "TimeCollected")) != PP_OK ||
            (rc = pp_fs_string(fs, &d->machine_name, "MachineName")) != PP_OK ||
            (rc = pp_fs_string(fs, &d->process_name, "ProcessName")) != PP_OK ||
            (rc = pp_fs_i32(fs, &pid, "ProcessID")) != PP_OK ||
            (rc = pp_fs_i64(fs, &d->info.total_process_commit, "TotalProcessCommit")) != PP_OK ||
            (rc = pp_fs_i64(fs, &d->info.total_process_working_set, "TotalProcessWorkingSet")) !=
                PP_OK)
            return rc;
        d->info.process_id = (uint32_t)pid;
    }
    if (version >= 6 && (rc = read_segments(fs, d, "segment count")) != PP_OK)
        return rc;
    if (version >= 7) {
        if ((rc = pp_fs_u8(fs, &b, "Is64Bit")) != PP_OK)
            return rc;
        if (d->is64 < 0)
            d->is64 = b != 0;
    }
    return PP_OK;
}

static int
read_current(pp_fs *fs, pp_gcdump *d)
{
    uint8_t is64;
    float count_mult, size_mult;
    int32_t pid, nmult;
    int rc;
    if ((rc = pp_fs_u8(fs, &is64, "Is64Bit")) != PP_OK ||
        (rc = pp_fs_f32(fs, &count_mult, "AverageCountMultiplier")) != PP_OK ||
        (rc = pp_fs_f32(fs, &size_mult, "AverageSizeMultiplier")) != PP_OK ||
        (rc = read_object(fs, d, "JSHeapInfo")) != PP_OK ||
        (rc = read_object(fs, d, "DotNetHeapInfo")) != PP_OK ||
        (rc = pp_fs_string(fs, &d->collection_log, "CollectionLog")) != PP_OK ||
        (rc = pp_fs_i64(fs, &d->info.time_collected_ticks, "TimeCollected")) != PP_OK ||
        (rc = pp_fs_string(fs, &d->machine_name, "MachineName")) != PP_OK ||
        (rc = pp_fs_string(fs, &d->process_name, "ProcessName")) != PP_OK ||
        (rc = pp_fs_i32(fs, &pid, "ProcessID")) != PP_OK ||
        (rc = pp_fs_i64(fs, &d->info.total_process_commit, "TotalProcessCommit")) != PP_OK ||
        (rc = pp_fs_i64(fs, &d->info.total_process_working_set, "TotalProcessWorkingSet")) != PP_OK)
        return rc;
    if (d->is64 < 0)
        d->is64 = is64 != 0;
    d->info.process_id = (uint32_t)pid;
    d->info.average_count_multiplier = count_mult;
    d->info.average_size_multiplier = size_mult;
    size_t at = fs->pos;
    if ((rc = pp_fs_i32(fs, &nmult, "CountMultipliersByType count")) != PP_OK)
        return rc;
    if (nmult < 0 || (size_t)nmult > (fs->size - fs->pos) / 4)
        return pp_fs_fail(fs, PP_EFORMAT, at, "%d count multipliers is impossible here",
                          (int)nmult);
    if (nmult > 0) {
        uint32_t t = d->snap.type_count;
        d->count_mult = malloc(t * sizeof(double));
        d->size_mult = malloc(t * sizeof(double));
        if (!d->count_mult || !d->size_mult)
            return pp_fs_fail(fs, PP_ENOMEM, at, "out of memory");
        /* Types without an entry were not sampled (PerfView writes one per
         * type; a shorter list leaves the rest whole). */
        for (uint32_t i = 0; i < t; i++)
            d->count_mult[i] = 1.0;
        for (int32_t i = 0; i < nmult; i++) {
            float f;
            size_t fat = fs->pos;
            if ((rc = pp_fs_f32(fs, &f, "count multiplier")) != PP_OK)
                return rc;
            if (!(f >= 0.0f) || f > 1e9f)
                return pp_fs_fail(fs, PP_EFORMAT, fat,
                                  "count multiplier %d is not a plausible factor", (int)i);
            if ((uint32_t)i < t)
                d->count_mult[i] = f;
        }
        /* Sampling keeps whole objects: a type's bytes scale like its count. */
        memcpy(d->size_mult, d->count_mult, t * sizeof(double));
        d->info.count_multiplier_count = (uint32_t)nmult;
    }
    /* Optional tagged fields (§4 fields 15, 16). */
    if (fs->pos < fs->size && fs->data[fs->pos] == PP_FS_SKIP) {
        int32_t idx;
        size_t to;
        at = fs->pos++;
        if ((rc = pp_fs_i32(fs, &idx, "InteropInfo region index")) != PP_OK ||
            (rc = pp_fs_forward(fs, idx, &to)) != PP_OK)
            return rc;
        if (to <= at)
            return pp_fs_fail(fs, PP_EFORMAT, at, "InteropInfo region ends before it starts");
        fs->pos = to;
    }
    if (fs->pos < fs->size && fs->data[fs->pos] == PP_FS_STRING) {
        fs->pos++;
        if ((rc = pp_fs_string(fs, &d->creation_tool, "CreationTool")) != PP_OK)
            return rc;
    }
    return PP_OK;
}

static const char *
nz(const char *s)
{
    return s ? s : "";
}

static int
finish(pp_fs *fs, pp_gcdump *d)
{
    for (uint32_t i = 0; i < d->snap.type_count; i++) {
        if (!d->type_names[i] && !(d->type_names[i] = calloc(1, 1)))
            return pp_fs_fail(fs, PP_ENOMEM, fs->pos, "out of memory");
        d->types[i].name = d->type_names[i];
        d->types[i].module = nz(d->type_modules[i]);
    }
    d->info.struct_size = sizeof(d->info);
    d->info.pointer_size = d->is64 < 0 ? 0 : d->is64 ? 8 : 4;
    d->info.creation_tool = nz(d->creation_tool);
    d->info.process_name = nz(d->process_name);
    d->info.machine_name = nz(d->machine_name);
    d->info.collection_log = nz(d->collection_log);

    pp_heap_snapshot *s = &d->snap;
    s->struct_size = sizeof(*s);
    s->pointer_size = d->info.pointer_size;
    s->types = d->types;
    s->node_type = d->node_type;
    s->node_size = d->node_size; /* NULL in a lean dump (legacy.c) */
    s->node_address = d->node_address;
    s->edge_start = d->edge_start;
    s->edges = d->edges;
    s->node_size32 = d->node_size32;
    s->edge_start32 = d->edge_start32;
    s->shape_count = d->shapes.count;
    s->shape_type = d->shapes.type;
    s->shape_size = d->shapes.size;
    s->node_shape16 = d->shapes.node16;
    s->node_shape32 = d->shapes.node32;
    s->type_count_multiplier = d->count_mult;
    s->type_size_multiplier = d->size_mult;
    s->sampled = d->count_mult != NULL || d->info.average_count_multiplier != 1.0 ||
                 d->info.average_size_multiplier != 1.0;
    return PP_OK;
}

static int
read_dump(pp_fs *fs, pp_gcdump *d)
{
    int rc = pp_fs_header(fs);
    if (rc != PP_OK)
        return rc;
    int tag;
    uint32_t label;
    const pp_fs_type *type;
    size_t at = fs->pos;
    if ((rc = pp_fs_object_start(fs, &tag, &label, &type, "GCHeapDump")) != PP_OK)
        return rc;
    if (tag != PP_FS_BEGIN || strcmp(type->name, "GCHeapDump") != 0)
        return pp_fs_fail(fs, PP_EFORMAT, at, "expected a GCHeapDump object at the start%s%s",
                          type ? ", found " : "", type ? type->name : "");
    int32_t version = type->version;
    d->info.format_version = version > 0 ? (uint32_t)version : 0;
    if (type->min_reader > PP_GCDUMP_READER_VERSION)
        return pp_fs_fail(
            fs, PP_EUNSUPPORTED, at,
            "GCHeapDump version %d needs a reader of version %d; this reader knows up to version %d",
            (int)version, (int)type->min_reader, PP_GCDUMP_READER_VERSION);
    if (version < PP_GCDUMP_MIN_VERSION || version == 8)
        return pp_fs_fail(fs, PP_EUNSUPPORTED, at,
                          "GCHeapDump version %d is not readable (PerfView reads 4-7 and 9+)",
                          (int)version);
    at = fs->pos;
    if ((rc = pp_fs_object_start(fs, &tag, &label, &type, "MemoryGraph")) != PP_OK)
        return rc;
    if (tag != PP_FS_BEGIN || strcmp(type->name, "Graphs.MemoryGraph") != 0)
        return pp_fs_fail(fs, PP_EFORMAT, at,
                          "expected the Graphs.MemoryGraph object inline in GCHeapDump");
    if ((rc = pp_gcdump_read_graph(fs, type, d)) != PP_OK)
        return rc;
    rc = version < 8 ? read_legacy(fs, d, version) : read_current(fs, d);
    if (rc != PP_OK || (rc = pp_fs_end_object(fs, "GCHeapDump")) != PP_OK)
        return rc;
    return finish(fs, d);
}

/* One decode, with everything it owns reachable from here, so that a run
 * abandoned by the map guard (mapguard.c) still frees it. */
typedef struct decode_job {
    pp_gcdump *d;
    pp_fs fs;
} decode_job;

static int
decode_run(void *p)
{
    decode_job *j = p;
    return read_dump(&j->fs, j->d);
}

/* The shared body of read_memory and read_mapped: m is NULL for memory the
 * caller owns. */
static int
decode(const uint8_t *data, size_t size, const pp_gcdump_map *m, const char *name, int lean,
       const pp_gcdump_tuning *tuning, pp_gcdump **out, pp_error *err)
{
    *out = NULL;
    if (size > UINT32_MAX)
        return pp_error_set_at(err, PP_ELIMIT, 0,
                               "%s: %zu bytes; a .gcdump uses 32-bit offsets and cannot pass 4 GiB",
                               name ? name : PP_GCDUMP_KIND, size),
               PP_ELIMIT;
    decode_job j;
    j.d = calloc(1, sizeof(*j.d));
    if (!j.d)
        return pp_error_set(err, PP_ENOMEM, "out of memory"), PP_ENOMEM;
    j.d->is64 = -1;
    j.d->info.average_count_multiplier = 1.0;
    j.d->info.average_size_multiplier = 1.0;
    j.d->lean = lean && m;
    j.d->shape16_max = tuning->shape16_max;
    j.d->split_nodes = tuning->split_nodes;
    j.d->map = m;
    j.d->map_name = name;
    pp_fs_init(&j.fs, data, size, name, err);
    int rc = m ? pp_gcdump_map_run(m, name, decode_run, &j, err) : decode_run(&j);
    pp_fs_release(&j.fs);
    if (rc != PP_OK) {
        pp_gcdump_free(j.d);
        return rc;
    }
    if (!j.d->lean) { /* the mapping goes with the call */
        j.d->map = NULL;
        j.d->map_name = NULL;
    }
    *out = j.d;
    return PP_OK;
}

static const pp_gcdump_tuning default_tuning = { PP_SHAPES_16_MAX, PP_GCDUMP_SPLIT_NODES };

int
pp_gcdump_read_memory(const uint8_t *data, size_t size, const char *name, pp_gcdump **out,
                      pp_error *err)
{
    if (!out || (!data && size))
        return pp_error_set(err, PP_EINVAL, "pp_gcdump_read_memory: bad arguments"), PP_EINVAL;
    return decode(data, size, NULL, name, 0, &default_tuning, out, err);
}

int
pp_gcdump_read_memory_tuned(const uint8_t *data, size_t size, const char *name,
                            const pp_gcdump_tuning *tuning, pp_gcdump **out, pp_error *err)
{
    if (!out || (!data && size) || !tuning)
        return pp_error_set(err, PP_EINVAL, "pp_gcdump_read_memory_tuned: bad arguments"),
               PP_EINVAL;
    return decode(data, size, NULL, name, 0, tuning, out, err);
}

int
pp_gcdump_read_mapped_tuned(const pp_gcdump_map *m, const char *name, int lean,
                            const pp_gcdump_tuning *tuning, pp_gcdump **out, pp_error *err)
{
    return decode(m->data, m->size, m, name, lean, tuning, out, err);
}

int
pp_gcdump_read_mapped(const pp_gcdump_map *m, const char *name, pp_gcdump **out, pp_error *err)
{
    return decode(m->data, m->size, m, name, 0, &default_tuning, out, err);
}

int
pp_gcdump_read_mapped_lean(const pp_gcdump_map *m, const char *name, pp_gcdump **out, pp_error *err)
{
    return decode(m->data, m->size, m, name, 1, &default_tuning, out, err);
}

int
pp_gcdump_read_file(const char *path, pp_gcdump **out, pp_error *err)
{
    if (!path || !out)
        return pp_error_set(err, PP_EINVAL, "pp_gcdump_read_file: bad arguments"), PP_EINVAL;
    *out = NULL;
    pp_gcdump_map m;
    int rc = pp_gcdump_map_open(path, &m, err);
    if (rc != PP_OK)
        return rc;
    rc = pp_gcdump_read_mapped(&m, path, out, err);
    pp_gcdump_map_close(&m);
    return rc;
}

const pp_heap_snapshot *
pp_gcdump_snapshot(const pp_gcdump *dump)
{
    return dump ? &dump->snap : NULL;
}

int64_t
pp_gcdump_type_size(const pp_gcdump *dump, uint32_t type_index)
{
    if (!dump || type_index >= dump->snap.type_count)
        return INT64_MIN;
    return dump->type_size[type_index];
}

int
pp_gcdump_get_info(const pp_gcdump *dump, pp_gcdump_info *out)
{
    if (!dump || !out || out->struct_size < sizeof(uint32_t))
        return PP_EINVAL;
    pp_sized_copy(out, &dump->info, sizeof dump->info);
    return PP_OK;
}

void
pp_gcdump_free(pp_gcdump *d)
{
    if (!d)
        return;
    for (uint32_t i = 0; i < d->snap.type_count; i++) {
        if (d->type_names)
            free(d->type_names[i]);
        if (d->type_modules)
            free(d->type_modules[i]);
    }
    for (uint32_t i = 0; i < d->nmodules; i++)
        free(d->modules[i]);
    free(d->modules);
    free(d->types);
    free(d->type_names);
    free(d->type_modules);
    free(d->type_size);
    free(d->node_type);
    free(d->node_size32);
    free(d->edge_start32);
    pp_shapes_free(&d->shapes);
    free(d->node_size);
    free(d->node_address);
    free(d->edge_start);
    free(d->edges);
    free(d->count_mult);
    free(d->size_mult);
    free(d->creation_tool);
    free(d->process_name);
    free(d->machine_name);
    free(d->collection_log);
    free(d);
}
