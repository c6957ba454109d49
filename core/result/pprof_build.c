/* A pprof profile from named frames, written with libprotobuf-c and zlib
 * (see pprof_build.h). Messages live in growing arrays of structs; the
 * pointer arrays protobuf-c walks are made only when writing, so the arrays
 * can move while the profile grows. The encoder streams into deflate: the
 * whole encoded profile is never held in memory. */
#include "config.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>
#include <zlib.h>

#include <perfpipe/perfpipe.h>

#include "result/pprof_build.h"
#include "result/render_util.h"
#include "profile.pb-c.h"

typedef Perftools__Profiles__ValueType pb_vt;
typedef Perftools__Profiles__Sample pb_sample;
typedef Perftools__Profiles__Label pb_label;
typedef Perftools__Profiles__Mapping pb_mapping;
typedef Perftools__Profiles__Location pb_location;
typedef Perftools__Profiles__Line pb_line;
typedef Perftools__Profiles__Function pb_function;

typedef struct sample_rec {
    size_t loc_off, nloc, label_off, nlabel;
} sample_rec;

struct pp_pprof {
    json_t *str_index; /* string -> index (lookup only) */
    char **strs;
    size_t nstrs, cap_strs;
    pb_vt *types;
    size_t ntypes, cap_types;
    int64_t default_type, time_nanos, duration_nanos, period;
    pb_vt period_type;
    int has_period;
    int64_t *comments;
    size_t ncomments, cap_comments;
    json_t *frame_module; /* frame -> module name */
    json_t *module_index; /* module name -> mapping id */
    pb_mapping *maps;
    size_t nmaps, cap_maps;
    json_t *loc_index; /* frame -> location id (= function id) */
    pb_location *locs;
    pb_function *funcs; /* one per location, same index */
    size_t nlocs, cap_locs, cap_funcs;
    uint64_t *ids; /* every sample's location ids, leaf first */
    size_t nids, cap_ids;
    int64_t *vals; /* ntypes per sample */
    size_t nvals, cap_vals;
    pb_label *labels;
    size_t nlabels, cap_labels;
    sample_rec *samples;
    size_t nsamples, cap_samples;
};

/* Room for `more` items in *v (count *n, capacity *cap). */
static int
grow(void *vp, size_t *cap, size_t n, size_t more, size_t size)
{
    void **v = vp;
    size_t want = *cap ? *cap : 16;

    if (n + more <= *cap)
        return PP_OK;
    while (want < n + more)
        want *= 2;
    void *nv = realloc(*v, want * size);
    if (nv == NULL)
        return PP_ENOMEM;
    *v = nv;
    *cap = want;
    return PP_OK;
}

static int64_t
str_of(pp_pprof *p, const char *s)
{
    json_t *ix = json_object_get(p->str_index, s);
    char *copy;

    if (ix != NULL)
        return json_integer_value(ix);
    if (grow(&p->strs, &p->cap_strs, p->nstrs, 1, sizeof *p->strs) != PP_OK ||
        (copy = strdup(s)) == NULL)
        return -1;
    if (json_object_set_new_nocheck(p->str_index, s, json_integer((json_int_t)p->nstrs)) != 0) {
        free(copy);
        return -1;
    }
    p->strs[p->nstrs] = copy;
    return (int64_t)p->nstrs++;
}

pp_pprof *
pp_pprof_new(void)
{
    pp_pprof *p = calloc(1, sizeof *p);

    if (p == NULL)
        return NULL;
    p->str_index = json_object();
    p->frame_module = json_object();
    p->module_index = json_object();
    p->loc_index = json_object();
    if (p->str_index == NULL || p->frame_module == NULL || p->module_index == NULL ||
        p->loc_index == NULL || str_of(p, "") != 0) {
        pp_pprof_free(p);
        return NULL;
    }
    return p;
}

void
pp_pprof_free(pp_pprof *p)
{
    if (p == NULL)
        return;
    for (size_t i = 0; i < p->nstrs; i++)
        free(p->strs[i]);
    free(p->strs);
    json_decref(p->str_index);
    json_decref(p->frame_module);
    json_decref(p->module_index);
    json_decref(p->loc_index);
    free(p->types);
    free(p->comments);
    free(p->maps);
    free(p->locs);
    free(p->funcs);
    free(p->ids);
    free(p->vals);
    free(p->labels);
    free(p->samples);
    free(p);
}

static int
value_type(pp_pprof *p, const char *type, const char *unit, pb_vt *out)
{
    pb_vt init = PERFTOOLS__PROFILES__VALUE_TYPE__INIT;

    *out = init;
    if ((out->type = str_of(p, type)) < 0 || (out->unit = str_of(p, unit)) < 0)
        return PP_ENOMEM;
    return PP_OK;
}

int
pp_pprof_sample_type(pp_pprof *p, const char *type, const char *unit)
{
    if (p->nsamples > 0)
        return PP_EINVAL; /* samples already hold fewer values */
    if (grow(&p->types, &p->cap_types, p->ntypes, 1, sizeof *p->types) != PP_OK)
        return PP_ENOMEM;
    if (value_type(p, type, unit, &p->types[p->ntypes]) != PP_OK)
        return PP_ENOMEM;
    p->ntypes++;
    return PP_OK;
}

int
pp_pprof_default_type(pp_pprof *p, const char *type)
{
    return (p->default_type = str_of(p, type)) < 0 ? PP_ENOMEM : PP_OK;
}

int
pp_pprof_times(pp_pprof *p, int64_t time_nanos, int64_t duration_nanos)
{
    p->time_nanos = time_nanos;
    p->duration_nanos = duration_nanos;
    return PP_OK;
}

int
pp_pprof_period(pp_pprof *p, const char *type, const char *unit, int64_t period)
{
    if (type == NULL) {
        p->has_period = 0;
        return PP_OK;
    }
    p->has_period = 1;
    p->period = period;
    return value_type(p, type, unit, &p->period_type);
}

int
pp_pprof_comment(pp_pprof *p, const char *text)
{
    int64_t s;

    if (grow(&p->comments, &p->cap_comments, p->ncomments, 1, sizeof *p->comments) != PP_OK ||
        (s = str_of(p, text)) < 0)
        return PP_ENOMEM;
    p->comments[p->ncomments++] = s;
    return PP_OK;
}

/* The mapping id of module `name`, declared now if new. 0 when out of memory. */
static uint64_t
mapping_of(pp_pprof *p, const char *name, const char *file, const char *build_id)
{
    json_t *ix = json_object_get(p->module_index, name);
    pb_mapping init = PERFTOOLS__PROFILES__MAPPING__INIT, *m;

    if (ix != NULL)
        return (uint64_t)json_integer_value(ix);
    if (grow(&p->maps, &p->cap_maps, p->nmaps, 1, sizeof *p->maps) != PP_OK)
        return 0;
    m = &p->maps[p->nmaps];
    *m = init;
    m->id = p->nmaps + 1;
    if ((m->filename = str_of(p, file ? file : name)) < 0 ||
        (m->build_id = str_of(p, build_id ? build_id : "")) < 0)
        return 0;
    /* The names come symbolized: no tool should look for the file. */
    m->has_functions = 1;
    if (json_object_set_new_nocheck(p->module_index, name, json_integer((json_int_t)m->id)) != 0)
        return 0;
    p->nmaps++;
    return m->id;
}

int
pp_pprof_module(pp_pprof *p, const char *name, const char *file, const char *build_id)
{
    return mapping_of(p, name, file && file[0] ? file : NULL, build_id) ? PP_OK : PP_ENOMEM;
}

int
pp_pprof_frame_module(pp_pprof *p, const char *frame, const char *module)
{
    if (json_object_get(p->frame_module, frame) != NULL)
        return PP_OK;
    return json_object_set_new_nocheck(p->frame_module, frame, json_string_nocheck(module)) == 0 ?
               PP_OK :
               PP_ENOMEM;
}

/* An unresolved frame's address and module: "?!0xADDR" or "MOD!?+0xOFF". */
static uint64_t
frame_address(const char *name, char *module, size_t size)
{
    const char *bang = strstr(name, "!?");
    const char *hex;
    char *end;
    unsigned long long v;

    module[0] = '\0';
    if (bang == NULL)
        return 0;
    hex = bang[2] == '+' ? bang + 3 : bang[2] == '\0' ? NULL : bang + 2;
    if (strncmp(name, "?!0x", 4) == 0)
        hex = name + 2;
    else if (hex == NULL || (size_t)(bang - name) >= size)
        return 0;
    else {
        memcpy(module, name, (size_t)(bang - name));
        module[bang - name] = '\0';
    }
    if (strncmp(hex, "0x", 2) != 0)
        return 0;
    errno = 0;
    v = strtoull(hex + 2, &end, 16);
    return errno == 0 && *end == '\0' ? (uint64_t)v : 0;
}

/* The location id of frame `name` (made on first sight), 0 when out of memory. */
static uint64_t
location_of(pp_pprof *p, const char *name)
{
    json_t *ix = json_object_get(p->loc_index, name);
    pb_location linit = PERFTOOLS__PROFILES__LOCATION__INIT;
    pb_function finit = PERFTOOLS__PROFILES__FUNCTION__INIT;
    char module[256];
    const char *mod;
    uint64_t id;

    if (ix != NULL)
        return (uint64_t)json_integer_value(ix);
    if (grow(&p->locs, &p->cap_locs, p->nlocs, 1, sizeof *p->locs) != PP_OK ||
        grow(&p->funcs, &p->cap_funcs, p->nlocs, 1, sizeof *p->funcs) != PP_OK)
        return 0;
    id = p->nlocs + 1;
    p->locs[p->nlocs] = linit;
    p->funcs[p->nlocs] = finit;
    p->locs[p->nlocs].id = id;
    p->funcs[p->nlocs].id = id;
    p->locs[p->nlocs].address = frame_address(name, module, sizeof module);
    if ((p->funcs[p->nlocs].name = str_of(p, name)) < 0)
        return 0;
    p->funcs[p->nlocs].system_name = p->funcs[p->nlocs].name;
    mod = module[0] ? module : json_string_value(json_object_get(p->frame_module, name));
    if (mod != NULL && (p->locs[p->nlocs].mapping_id = mapping_of(p, mod, NULL, NULL)) == 0)
        return 0;
    if (json_object_set_new_nocheck(p->loc_index, name, json_integer((json_int_t)id)) != 0)
        return 0;
    p->nlocs++;
    return id;
}

/* Append the location ids of stack (root first) leaf first. */
static int
add_stack(pp_pprof *p, const char *stack, size_t *nloc)
{
    size_t start = p->nids;

    for (const char *f = stack;;) {
        const char *end = pp_render_frame_end(f);
        size_t len = end ? (size_t)(end - f) : strlen(f);
        char *name = strndup(f, len);
        uint64_t id = name ? location_of(p, name) : 0;
        free(name);
        if (id == 0 || grow(&p->ids, &p->cap_ids, p->nids, 1, sizeof *p->ids) != PP_OK)
            return PP_ENOMEM;
        p->ids[p->nids++] = id;
        if (end == NULL)
            break;
        f = end + 1;
    }
    *nloc = p->nids - start;
    for (size_t i = start, j = p->nids - 1; i < j; i++, j--) {
        uint64_t t = p->ids[i];
        p->ids[i] = p->ids[j];
        p->ids[j] = t;
    }
    return PP_OK;
}

int
pp_pprof_sample(pp_pprof *p, const char *stack, const int64_t *values, size_t nvalues,
                const pp_pprof_label *labels, size_t nlabels)
{
    pb_label init = PERFTOOLS__PROFILES__LABEL__INIT;
    sample_rec rec = { p->nids, 0, p->nlabels, nlabels };

    if (nvalues != p->ntypes)
        return PP_EINVAL;
    if (grow(&p->samples, &p->cap_samples, p->nsamples, 1, sizeof *p->samples) != PP_OK ||
        grow(&p->vals, &p->cap_vals, p->nvals, nvalues, sizeof *p->vals) != PP_OK ||
        grow(&p->labels, &p->cap_labels, p->nlabels, nlabels, sizeof *p->labels) != PP_OK ||
        add_stack(p, stack, &rec.nloc) != PP_OK)
        return PP_ENOMEM;
    for (size_t i = 0; i < nlabels; i++) {
        pb_label *l = &p->labels[p->nlabels + i];
        *l = init;
        if ((l->key = str_of(p, labels[i].key)) < 0)
            return PP_ENOMEM;
        if (labels[i].str != NULL)
            l->str = str_of(p, labels[i].str);
        else {
            l->num = labels[i].num;
            l->num_unit = labels[i].unit ? str_of(p, labels[i].unit) : 0;
        }
        if (l->str < 0 || l->num_unit < 0)
            return PP_ENOMEM;
    }
    memcpy(p->vals + p->nvals, values, nvalues * sizeof *values);
    p->nvals += nvalues;
    p->nlabels += nlabels;
    p->samples[p->nsamples++] = rec;
    return PP_OK;
}

/* ---- writing ---------------------------------------------------------- */

/* A protobuf-c output buffer that deflates into a FILE. */
typedef struct gz_sink {
    ProtobufCBuffer base;
    z_stream z;
    FILE *out;
    int failed;
    unsigned char chunk[1 << 16];
} gz_sink;

static void
gz_run(gz_sink *s, int flush)
{
    do {
        s->z.next_out = s->chunk;
        s->z.avail_out = sizeof s->chunk;
        int zr = deflate(&s->z, flush);
        if (zr == Z_STREAM_ERROR) {
            s->failed = 1;
            return;
        }
        size_t have = sizeof s->chunk - s->z.avail_out;
        if (have > 0 && fwrite(s->chunk, 1, have, s->out) != have)
            s->failed = 1;
    } while (s->z.avail_out == 0 && !s->failed);
}

static void
gz_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
    gz_sink *s = (gz_sink *)b;

    /* deflate takes uInt lengths: feed large runs in pieces */
    while (len > 0 && !s->failed) {
        uInt n = len > (1u << 30) ? (1u << 30) : (uInt)len;
        s->z.next_in = (Bytef *)(uintptr_t)data;
        s->z.avail_in = n;
        gz_run(s, Z_NO_FLUSH);
        data += n;
        len -= n;
    }
}

/* The pointer arrays protobuf-c walks, over the builder's structs. */
typedef struct pb_views {
    pb_vt **types;
    pb_sample *samples;
    pb_sample **sample_ptrs;
    pb_label **label_ptrs;
    pb_mapping **map_ptrs;
    pb_location **loc_ptrs;
    pb_line *lines;
    pb_line **line_ptrs;
    pb_function **func_ptrs;
} pb_views;

static void
views_free(pb_views *v)
{
    free(v->types);
    free(v->samples);
    free(v->sample_ptrs);
    free(v->label_ptrs);
    free(v->map_ptrs);
    free(v->loc_ptrs);
    free(v->lines);
    free(v->line_ptrs);
    free(v->func_ptrs);
}

static int
views_make(pp_pprof *p, pb_views *v, Perftools__Profiles__Profile *pf)
{
    pb_sample sinit = PERFTOOLS__PROFILES__SAMPLE__INIT;
    pb_line linit = PERFTOOLS__PROFILES__LINE__INIT;
    size_t one = 1;

#define ALLOC(f, n) ((v->f = calloc((n) ? (n) : one, sizeof *v->f)) != NULL)
    if (!ALLOC(types, p->ntypes) || !ALLOC(samples, p->nsamples) ||
        !ALLOC(sample_ptrs, p->nsamples) || !ALLOC(label_ptrs, p->nlabels) ||
        !ALLOC(map_ptrs, p->nmaps) || !ALLOC(loc_ptrs, p->nlocs) || !ALLOC(lines, p->nlocs) ||
        !ALLOC(line_ptrs, p->nlocs) || !ALLOC(func_ptrs, p->nlocs))
        return PP_ENOMEM;
#undef ALLOC
    for (size_t i = 0; i < p->ntypes; i++)
        v->types[i] = &p->types[i];
    for (size_t i = 0; i < p->nlabels; i++)
        v->label_ptrs[i] = &p->labels[i];
    for (size_t i = 0; i < p->nsamples; i++) {
        const sample_rec *r = &p->samples[i];
        pb_sample *s = &v->samples[i];
        *s = sinit;
        s->n_location_id = r->nloc;
        s->location_id = p->ids + r->loc_off;
        s->n_value = p->ntypes;
        s->value = p->vals + i * p->ntypes;
        s->n_label = r->nlabel;
        s->label = r->nlabel ? v->label_ptrs + r->label_off : NULL;
        v->sample_ptrs[i] = s;
    }
    for (size_t i = 0; i < p->nmaps; i++)
        v->map_ptrs[i] = &p->maps[i];
    for (size_t i = 0; i < p->nlocs; i++) {
        v->lines[i] = linit;
        v->lines[i].function_id = p->funcs[i].id;
        v->line_ptrs[i] = &v->lines[i];
        p->locs[i].n_line = 1;
        p->locs[i].line = &v->line_ptrs[i];
        v->loc_ptrs[i] = &p->locs[i];
        v->func_ptrs[i] = &p->funcs[i];
    }
    pf->n_sample_type = p->ntypes;
    pf->sample_type = v->types;
    pf->n_sample = p->nsamples;
    pf->sample = v->sample_ptrs;
    pf->n_mapping = p->nmaps;
    pf->mapping = v->map_ptrs;
    pf->n_location = p->nlocs;
    pf->location = v->loc_ptrs;
    pf->n_function = p->nlocs;
    pf->function = v->func_ptrs;
    pf->n_string_table = p->nstrs;
    pf->string_table = p->strs;
    pf->time_nanos = p->time_nanos;
    pf->duration_nanos = p->duration_nanos;
    pf->period_type = p->has_period ? &p->period_type : NULL;
    pf->period = p->period;
    pf->n_comment = p->ncomments;
    pf->comment = p->comments;
    pf->default_sample_type = p->default_type;
    return PP_OK;
}

int
pp_pprof_write(pp_pprof *p, FILE *out, pp_error *err)
{
    Perftools__Profiles__Profile pf = PERFTOOLS__PROFILES__PROFILE__INIT;
    pb_views v;
    gz_sink *s = NULL;
    int rc;

    memset(&v, 0, sizeof v);
    if ((rc = views_make(p, &v, &pf)) != PP_OK || (s = calloc(1, sizeof *s)) == NULL) {
        views_free(&v);
        pp_error_set(err, PP_ENOMEM, "pprof rendering: out of memory");
        return PP_ENOMEM;
    }
    s->base.append = gz_append;
    s->out = out;
    /* 15 + 16: a gzip wrapper (the file format pprof's readers expect);
     * the header's time stays 0, so equal profiles give equal files */
    if (deflateInit2(&s->z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) !=
        Z_OK) {
        free(s);
        views_free(&v);
        pp_error_set(err, PP_ENOMEM, "pprof rendering: zlib could not start");
        return PP_ENOMEM;
    }
    perftools__profiles__profile__pack_to_buffer(&pf, &s->base);
    s->z.next_in = NULL;
    s->z.avail_in = 0;
    if (!s->failed)
        gz_run(s, Z_FINISH);
    deflateEnd(&s->z);
    if (s->failed) {
        rc = PP_EIO;
        pp_error_set(err, PP_EIO, "pprof rendering failed while writing");
    } else
        rc = pp_render_check_io(out, "pprof", err);
    free(s);
    views_free(&v);
    return rc;
}
