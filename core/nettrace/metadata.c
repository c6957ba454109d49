/* Metadata rows: V4/V5 metadata payloads (V1 field lists, V5 OpCode and
 * V2Params tags) and V6 metadata rows, turned into one flat type tree per
 * entry; runtime events without fields get their layout from the manifest. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"
#include "nettrace/manifest.h"

/* Nesting deeper than this is refused: a real event has 1-2 levels and the
 * limit keeps recursion on hostile input bounded. */
#define NT_MAX_DEPTH 16
/* More fields than bytes can justify is impossible; this caps allocation. */
#define NT_MAX_FIELDS 4096

/* An allocation failed while this thread parsed a metadata row: the row
 * is refused with PP_ENOMEM, never read as damaged (a layout dropped as
 * unparsable, a record "too short"): out of memory is not bad input. */
static _Thread_local int meta_oom;

typedef struct mbuild {
    nt_meta *m;
    size_t types_cap, members_cap;
    uint32_t ptr_size;
    uint32_t format;
    int bad;
} mbuild;

static uint32_t
add_type(mbuild *b, uint8_t code)
{
    nt_meta *m = b->m;
    if (b->bad || m->ntypes >= NT_MAX_FIELDS * 2) {
        b->bad = 1;
        return 0;
    }
    nt_type *t = nt_grow(m->types, &b->types_cap, m->ntypes + 1, sizeof *t);
    if (!t) {
        meta_oom = 1;
        b->bad = 1;
        return 0;
    }
    m->types = t;
    memset(&t[m->ntypes], 0, sizeof *t);
    t[m->ntypes].code = code;
    return m->ntypes++;
}

/* Reserve n contiguous member slots; returns the first. */
static uint32_t
add_members(mbuild *b, uint32_t n)
{
    nt_meta *m = b->m;
    if (b->bad || n > NT_MAX_FIELDS || m->nmembers + n > NT_MAX_FIELDS) {
        b->bad = 1;
        return 0;
    }
    nt_member *mm = nt_grow(m->members, &b->members_cap, m->nmembers + n + 1, sizeof *mm);
    if (!mm) {
        meta_oom = 1;
        b->bad = 1;
        return 0;
    }
    m->members = mm;
    memset(&mm[m->nmembers], 0, n * sizeof *mm);
    uint32_t first = m->nmembers;
    m->nmembers += n;
    return first;
}

static int32_t
scalar_size(uint8_t code, uint32_t ptr_size, uint32_t format)
{
    switch (code) {
    case NT_T_BOOL32:
    case NT_T_I32:
    case NT_T_U32:
    case NT_T_F32:
    case NT_T_RELLOC:
    case NT_T_DATALOC: return 4;
    case NT_T_CHAR16:
    case NT_T_I16:
    case NT_T_U16: return 2;
    case NT_T_I8:
    case NT_T_U8:
    case NT_T_UTF8CU: return 1;
    case NT_T_I64:
    case NT_T_U64:
    case NT_T_F64: return 8;
    case NT_T_DATETIME: return format >= 6 ? 16 : 8;
    case NT_T_DECIMAL:
    case NT_T_GUID: return 16;
    case NT_T_PTR: return (int32_t)ptr_size;
    default: return -1;
    }
}

/* Fill fixed sizes and member offsets bottom-up. */
static int32_t
finish_type(mbuild *b, uint32_t ti, int depth)
{
    nt_meta *m = b->m;
    nt_type *t;
    int32_t sz;

    if (depth > NT_MAX_DEPTH || ti >= m->ntypes) {
        b->bad = 1;
        return -1;
    }
    t = &m->types[ti];
    switch (t->code) {
    case NT_T_OBJECT: {
        int64_t off = 0;
        uint32_t first = t->first_member, n = t->member_count;
        for (uint32_t i = 0; i < n; i++) {
            nt_member *mm = &m->members[first + i];
            mm->offset = off >= 0 && off < INT32_MAX ? (int32_t)off : -1;
            int32_t s = finish_type(b, mm->type, depth + 1);
            off = (off >= 0 && s >= 0) ? off + s : -1;
        }
        sz = (off >= 0 && off < INT32_MAX) ? (int32_t)off : -1;
        break;
    }
    case NT_T_FIXARRAY: {
        int32_t es = finish_type(b, t->elem, depth + 1);
        int64_t tot = (int64_t)es * t->fixed_count;
        sz = (es >= 0 && tot < INT32_MAX) ? (int32_t)tot : -1;
        break;
    }
    case NT_T_ARRAY:
    case NT_T_RELLOC:
    case NT_T_DATALOC:
        finish_type(b, t->elem, depth + 1);
        sz = scalar_size(t->code, b->ptr_size, b->format);
        break;
    default: sz = scalar_size(t->code, b->ptr_size, b->format); break;
    }
    m->types[ti].fixed_size = sz;
    return sz;
}

/* ---- V4/V5 ---- */

typedef struct cur {
    const uint8_t *p;
    size_t n, at;
    int bad;
} cur;

static int32_t
rd_i32(cur *c)
{
    if (c->n - c->at < 4) {
        c->bad = 1;
        return 0;
    }
    int32_t v = (int32_t)nt_rd32(c->p + c->at);
    c->at += 4;
    return v;
}

static char *
rd_wstr(cur *c)
{
    char *s = NULL;
    size_t cap = 0, len;
    int64_t k = nt_utf16z_to_utf8(c->p + c->at, c->n - c->at, &s, &cap, &len);
    if (k < 0) {
        meta_oom |= k == -2;
        free(s);
        c->bad = 1;
        return NULL;
    }
    c->at += (size_t)k;
    return s;
}

typedef int (*field_fn)(mbuild *b, cur *c, uint32_t slot, int depth);

/* A field list (Int32 count, then the fields) as an Object type whose
 * members field() fills: V1 and V2Params lists differ only in the field. */
static uint32_t
parse_list(mbuild *b, cur *c, int depth, field_fn field)
{
    int32_t n = rd_i32(c);
    if (c->bad || n < 0 || (size_t)n > (c->n - c->at) / 4 || depth > NT_MAX_DEPTH) {
        b->bad = 1;
        return 0;
    }
    uint32_t ti = add_type(b, NT_T_OBJECT);
    uint32_t first = add_members(b, (uint32_t)n);
    if (b->bad)
        return 0;
    b->m->types[ti].first_member = first;
    b->m->types[ti].member_count = (uint32_t)n;
    for (int32_t i = 0; i < n; i++)
        if (field(b, c, first + (uint32_t)i, depth) < 0) {
            b->bad = 1;
            return 0;
        }
    return ti;
}

static int parse_v1_field(mbuild *b, cur *c, uint32_t slot, int depth);
static int parse_v2_field(mbuild *b, cur *c, uint32_t slot, int depth);

/* One V1 field: TypeCode, [nested list if Object], name. */
static int
parse_v1_field(mbuild *b, cur *c, uint32_t slot, int depth)
{
    int32_t code = rd_i32(c);
    uint32_t ti;

    if (c->bad || depth > NT_MAX_DEPTH || code <= 0 || code > 18 || code == 2)
        return -1; /* V1 has no arrays; DBNull/Empty carry no data */
    if (code == NT_T_OBJECT) {
        ti = parse_list(b, c, depth + 1, parse_v1_field);
    } else {
        ti = add_type(b, (uint8_t)code);
    }
    if (b->bad || c->bad)
        return -1;
    char *name = rd_wstr(c);
    if (!name)
        return -1;
    b->m->members[slot].name = name;
    b->m->members[slot].type = ti;
    return 0;
}

static uint32_t
v2_type(mbuild *b, cur *c, int32_t code, int depth)
{
    if (code == NT_T_OBJECT)
        return parse_list(b, c, depth + 1, parse_v2_field);
    if (code == NT_T_ARRAY) {
        int32_t ec = rd_i32(c);
        if (c->bad || ec <= 0 || ec > 19 || ec == NT_T_ARRAY || ec == 2) {
            b->bad = 1;
            return 0;
        }
        uint32_t ti = add_type(b, NT_T_ARRAY);
        uint32_t ei = v2_type(b, c, ec, depth + 1);
        if (b->bad)
            return 0;
        b->m->types[ti].elem = ei;
        return ti;
    }
    if (code <= 0 || code > 18 || code == 2) {
        b->bad = 1;
        return 0;
    }
    return add_type(b, (uint8_t)code);
}

/* One V2Params field: Size (including itself), name, TypeCode, ... */
static int
parse_v2_field(mbuild *b, cur *c, uint32_t slot, int depth)
{
    size_t start = c->at;
    int32_t size = rd_i32(c);
    if (c->bad || size < 4 || (size_t)size > c->n - start)
        return -1;
    cur sub = { c->p, start + (size_t)size, c->at, 0 };
    char *name = rd_wstr(&sub);
    if (!name)
        return -1;
    b->m->members[slot].name = name;
    int32_t code = rd_i32(&sub);
    if (sub.bad)
        return -1;
    uint32_t ti = v2_type(b, &sub, code, depth);
    if (b->bad || sub.bad)
        return -1;
    b->m->members[slot].type = ti;
    c->at = start + (size_t)size;
    return 0;
}

static void
reset_layout(nt_meta *m)
{
    for (uint32_t i = 0; i < m->nmembers; i++)
        free((char *)m->members[i].name);
    m->nmembers = 0;
    m->ntypes = 0;
    m->has_layout = 0;
}

static nt_meta *
meta_new(void)
{
    return calloc(1, sizeof(nt_meta));
}

int
nt_meta_parse_v5(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, nt_meta **out,
                 pp_error *err)
{
    cur c = { p, n, 0, 0 };
    nt_meta *m = meta_new();
    mbuild b = { m, 0, 0, r->pointer_size, 4, 0 };

    meta_oom = 0;
    if (!m)
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    m->id = (uint32_t)rd_i32(&c);
    m->provider = rd_wstr(&c);
    m->event_id = (uint32_t)rd_i32(&c);
    m->name = c.bad ? NULL : rd_wstr(&c);
    if (!c.bad && n - c.at >= 16) {
        m->keywords = nt_rd64(p + c.at);
        m->version = nt_rd32(p + c.at + 8);
        m->level = nt_rd32(p + c.at + 12);
        c.at += 16;
    } else {
        c.bad = 1;
    }
    if (meta_oom) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    if (c.bad || !m->provider || !m->name) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: metadata record too short (%zu bytes): expected id, provider, "
                          "event id, name, keywords, version, level",
                          r->name, n);
    }
    /* The V1 field list is optional; TraceEvent ignores layouts it cannot
     * parse, and so do we (the event stays readable, fields are unknown). */
    if (n - c.at >= 4) {
        mbuild b1 = b;
        uint32_t root = parse_list(&b1, &c, 0, parse_v1_field);
        b = b1;
        if (b.bad || root != 0 || c.bad) {
            reset_layout(m);
            b.bad = 0;
            c.at = n; /* the tags cannot be found after bad fields */
        } else {
            m->has_layout = 1;
        }
    }
    /* V5 tags: {int32 len, uint8 kind, payload} */
    while (n - c.at >= 5) {
        int32_t len = (int32_t)nt_rd32(p + c.at);
        uint8_t kind = p[c.at + 4];
        c.at += 5;
        r->v5_tags = 1;
        if (len < 0 || (size_t)len > n - c.at)
            break;
        if (kind == 1 && len >= 1) {
            m->opcode = p[c.at];
        } else if (kind == 2) {
            cur t = { p, c.at + (size_t)len, c.at, 0 };
            reset_layout(m);
            b.bad = 0;
            b.types_cap = b.members_cap = 0;
            free(m->types);
            m->types = NULL;
            free(m->members);
            m->members = NULL;
            uint32_t root = parse_list(&b, &t, 0, parse_v2_field);
            if (b.bad || root != 0 || t.bad)
                reset_layout(m);
            else
                m->has_layout = 1;
        }
        c.at += (size_t)len;
    }
    if (m->has_layout) {
        finish_type(&b, 0, 0);
        if (b.bad)
            reset_layout(m);
    }
    if (meta_oom) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    *out = m;
    return PP_OK;
}

/* ---- V6 ---- */

static char *
rd_str8(cur *c)
{
    uint32_t len;
    size_t k = nt_varu32(c->p + c->at, c->n - c->at, &len);
    if (!k || len > c->n - c->at - k) {
        c->bad = 1;
        return NULL;
    }
    char *s = malloc((size_t)len + 1);
    if (!s) {
        meta_oom = 1;
        c->bad = 1;
        return NULL;
    }
    memcpy(s, c->p + c->at + k, len);
    s[len] = 0;
    c->at += k + len;
    return s;
}

static int
rd_u16(cur *c, uint16_t *v)
{
    if (c->n - c->at < 2) {
        c->bad = 1;
        return -1;
    }
    *v = nt_rd16(c->p + c->at);
    c->at += 2;
    return 0;
}

static uint32_t parse_v6_fields(mbuild *b, cur *c, int depth);

static uint32_t
parse_v6_type(mbuild *b, cur *c, int depth)
{
    if (c->at >= c->n || depth > NT_MAX_DEPTH) {
        b->bad = 1;
        return 0;
    }
    uint8_t code = c->p[c->at++];
    if (code == NT_T_OBJECT)
        return parse_v6_fields(b, c, depth + 1);
    if (code == NT_T_ARRAY || code == NT_T_FIXARRAY || code == NT_T_RELLOC ||
        code == NT_T_DATALOC) {
        uint32_t ti = add_type(b, code);
        uint32_t ei = parse_v6_type(b, c, depth + 1);
        uint16_t cnt = 0;
        if (code == NT_T_FIXARRAY && rd_u16(c, &cnt) < 0)
            b->bad = 1;
        if (b->bad)
            return 0;
        b->m->types[ti].elem = ei;
        b->m->types[ti].fixed_count = cnt;
        return ti;
    }
    if (code == 0 || code == 2 || code > NT_T_DATALOC) {
        b->bad = 1;
        return 0;
    }
    return add_type(b, code);
}

static uint32_t
parse_v6_fields(mbuild *b, cur *c, int depth)
{
    uint16_t n;
    if (rd_u16(c, &n) < 0 || depth > NT_MAX_DEPTH || (size_t)n * 2 > c->n - c->at) {
        b->bad = 1;
        return 0;
    }
    uint32_t ti = add_type(b, NT_T_OBJECT);
    uint32_t first = add_members(b, n);
    if (b->bad)
        return 0;
    b->m->types[ti].first_member = first;
    b->m->types[ti].member_count = n;
    for (uint32_t i = 0; i < n; i++) {
        uint16_t fsize;
        if (rd_u16(c, &fsize) < 0 || fsize > c->n - c->at) {
            b->bad = 1;
            return 0;
        }
        cur f = { c->p, c->at + fsize, c->at, 0 };
        char *name = rd_str8(&f);
        if (!name) {
            b->bad = 1;
            return 0;
        }
        b->m->members[first + i].name = name;
        uint32_t t = parse_v6_type(b, &f, depth);
        if (b->bad || f.bad) {
            b->bad = 1;
            return 0;
        }
        b->m->members[first + i].type = t;
        c->at += fsize; /* skip undefined trailing bytes */
    }
    return ti;
}

int
nt_meta_parse_v6(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, nt_meta **out,
                 pp_error *err)
{
    cur c = { p, n, 0, 0 };
    nt_meta *m = meta_new();
    mbuild b = { m, 0, 0, r->pointer_size, 6, 0 };
    size_t k;

    meta_oom = 0;
    if (!m)
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    k = nt_varu32(p, n, &m->id);
    c.at = k;
    if (!k)
        c.bad = 1;
    if (!c.bad)
        m->provider = rd_str8(&c);
    if (!c.bad) {
        k = nt_varu32(p + c.at, n - c.at, &m->event_id);
        c.at += k;
        if (!k)
            c.bad = 1;
    }
    if (!c.bad)
        m->name = rd_str8(&c);
    if (!c.bad) {
        uint32_t root = parse_v6_fields(&b, &c, 0);
        if (b.bad || root != 0)
            c.bad = 1;
        else
            m->has_layout = 1;
    }
    uint16_t osize = 0;
    if (!c.bad && rd_u16(&c, &osize) == 0 && osize <= n - c.at) {
        size_t end = c.at + osize;
        while (c.at < end && !c.bad) {
            uint8_t kind = p[c.at++];
            switch (kind) {
            case 1:
                if (c.at < end)
                    m->opcode = p[c.at++];
                else
                    c.bad = 1;
                break;
            case 3:
                if (end - c.at >= 8) {
                    m->keywords = nt_rd64(p + c.at);
                    c.at += 8;
                } else
                    c.bad = 1;
                break;
            case 4:
            case 5: {
                cur s = { p, end, c.at, 0 };
                free(rd_str8(&s));
                c.at = s.at;
                c.bad = s.bad;
                break;
            }
            case 6: {
                cur s = { p, end, c.at, 0 };
                free(rd_str8(&s));
                free(rd_str8(&s));
                c.at = s.at;
                c.bad = s.bad;
                break;
            }
            case 7:
                if (end - c.at >= 16)
                    c.at += 16;
                else
                    c.bad = 1;
                break;
            case 8:
                if (c.at < end)
                    m->level = p[c.at++];
                else
                    c.bad = 1;
                break;
            case 9:
                if (c.at < end)
                    m->version = p[c.at++];
                else
                    c.bad = 1;
                break;
            default: c.at = end; break; /* unknown kind: the rest is opaque */
            }
        }
    } else {
        c.bad = 1;
    }
    if (meta_oom) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    if (c.bad) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_EFORMAT, off,
                          "%s: malformed V6 metadata row: expected id, provider, event id, "
                          "name, field list and optional metadata within %zu bytes",
                          r->name, n);
    }
    finish_type(&b, 0, 0);
    if (b.bad)
        reset_layout(m);
    if (meta_oom) {
        nt_meta_free(m);
        return nt_fail_at(r, err, PP_ENOMEM, off, "out of memory");
    }
    *out = m;
    return PP_OK;
}

/* ---- common ---- */

void
nt_meta_free(nt_meta *m)
{
    if (!m)
        return;
    for (uint32_t i = 0; i < m->nmembers; i++)
        free((char *)m->members[i].name);
    free(m->members);
    free(m->types);
    free((char *)m->provider);
    free((char *)m->name);
    free(m);
}

uint32_t
nt_provider_known(const char *p)
{
    static const struct {
        const char *name;
        uint32_t id;
    } known[] = {
        { "Microsoft-Windows-DotNETRuntime", PP_PROVIDER_RUNTIME },
        { "Microsoft-Windows-DotNETRuntimeRundown", PP_PROVIDER_RUNDOWN },
        { "Microsoft-DotNETCore-SampleProfiler", PP_PROVIDER_SAMPLE_PROFILER },
        { "Microsoft-DotNETCore-EventPipe", PP_PROVIDER_EVENTPIPE },
        { "Microsoft-Diagnostics-DiagnosticSource", PP_PROVIDER_DIAGNOSTIC_SOURCE },
        { "System.Threading.Tasks.TplEventSource", PP_PROVIDER_TPL },
    };
    for (size_t i = 0; i < sizeof known / sizeof known[0]; i++)
        if (strcmp(p, known[i].name) == 0)
            return known[i].id;
    return PP_PROVIDER_OTHER;
}

/* Build the layout from a manifest field spec "Name:type,...". */
static int
layout_from_spec(nt_meta *m, const char *spec, uint32_t ptr_size, uint32_t format)
{
    mbuild b = { m, 0, 0, ptr_size, format, 0 };
    uint32_t n = 0;
    const char *s;

    reset_layout(m);
    free(m->types);
    m->types = NULL;
    free(m->members);
    m->members = NULL;
    for (s = spec; *s; s++)
        if (*s == ':')
            n++;
    uint32_t root = add_type(&b, NT_T_OBJECT);
    uint32_t first = add_members(&b, n);
    if (b.bad)
        return -1;
    m->types[root].first_member = first;
    m->types[root].member_count = n;
    s = spec;
    for (uint32_t i = 0; i < n; i++) {
        const char *colon = strchr(s, ':');
        const char *end = strchr(colon, ',');
        size_t tl;
        if (!end)
            end = colon + strlen(colon);
        char *name = strndup(s, (size_t)(colon - s));
        if (!name)
            return -1;
        m->members[first + i].name = name;
        tl = (size_t)(end - colon - 1);
        static const struct {
            const char *t;
            uint8_t code;
        } types[] = {
            { "u8", NT_T_U8 },   { "u16", NT_T_U16 },     { "u32", NT_T_U32 },
            { "u64", NT_T_U64 }, { "i32", NT_T_I32 },     { "i64", NT_T_I64 },
            { "f32", NT_T_F32 }, { "f64", NT_T_F64 },     { "b32", NT_T_BOOL32 },
            { "ptr", NT_T_PTR }, { "wstr", NT_T_UTF16Z }, { "guid", NT_T_GUID },
        };
        uint8_t code = 0;
        for (size_t k = 0; k < sizeof types / sizeof types[0]; k++)
            if (strlen(types[k].t) == tl && memcmp(types[k].t, colon + 1, tl) == 0)
                code = types[k].code;
        if (!code)
            return -1;
        m->members[first + i].type = add_type(&b, code);
        if (b.bad)
            return -1;
        s = *end ? end + 1 : end;
    }
    finish_type(&b, 0, 0);
    if (b.bad)
        return -1;
    m->has_layout = 1;
    return 0;
}

int
nt_meta_finish(pp_trace_source *r, nt_meta *m)
{
    m->provider_known = nt_provider_known(m->provider);
    m->kind = NT_KIND_NONE;
    if (m->provider_known >= PP_PROVIDER_RUNTIME && m->provider_known <= PP_PROVIDER_EVENTPIPE) {
        int exact = 0;
        const nt_manifest_event *e = nt_manifest_find(m->provider_known, m->event_id, m->version,
                                                      &exact);
        if (e) {
            if (m->name[0] == 0 || exact) {
                char *nn = strdup(exact ? e->name : e->name);
                if (!nn)
                    return PP_ENOMEM;
                free((char *)m->name);
                m->name = nn;
            }
            /* The specs are the manifest's own: only memory fails them (an
             * event left without fields would read as one that has none). */
            if ((!m->has_layout || m->nmembers == 0) && e->fields &&
                layout_from_spec(m, e->fields, r->pointer_size, r->format) < 0) {
                reset_layout(m);
                return PP_ENOMEM;
            }
        }
        if ((m->provider_known == PP_PROVIDER_RUNTIME && m->event_id == 143) ||
            (m->provider_known == PP_PROVIDER_RUNDOWN &&
             (m->event_id == 143 || m->event_id == 144)))
            m->kind = NT_KIND_METHOD_VERBOSE;
        else if (m->provider_known == PP_PROVIDER_RUNTIME && m->event_id == 144)
            m->kind = NT_KIND_METHOD_UNLOAD_VERBOSE;
        else if ((m->provider_known == PP_PROVIDER_RUNTIME &&
                  (m->event_id == 152 || m->event_id == 153)) ||
                 (m->provider_known == PP_PROVIDER_RUNDOWN &&
                  (m->event_id == 153 || m->event_id == 154)))
            m->kind = NT_KIND_MODULE;
        else if ((m->provider_known == PP_PROVIDER_RUNTIME && m->event_id == 190) ||
                 (m->provider_known == PP_PROVIDER_RUNDOWN &&
                  (m->event_id == 149 || m->event_id == 150)))
            m->kind = NT_KIND_ILMAP;
    }
    return PP_OK;
}
