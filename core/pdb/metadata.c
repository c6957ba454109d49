/* ECMA-335 II.24 metadata: the root ("BSJB"), its stream headers, the #~
 * table stream's row counts and the row size of every table (ECMA-335
 * II.22 and the portable PDB's tables 0x30-0x37), and the heaps. A
 * portable PDB's #Pdb stream lends the assembly's row counts that size the
 * indices into type-system tables. */
#include "config.h"

#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pdb.h"

static uint16_t
rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static uint32_t
rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Column kinds: C_U16/C_U32 constants, heap indices, T(x) a simple index
 * into table x, K(x) a coded index of kind x. */
enum { C_END, C_U16, C_U32, C_STR, C_GUID, C_BLOB };
#define T(x) (0x40 | (x))
#define K(x) (0x80 | (x))
enum {
    K_TYPEDEFORREF,
    K_HASCONSTANT,
    K_HASCUSTOMATTR,
    K_HASFIELDMARSHAL,
    K_HASDECLSECURITY,
    K_MEMBERREFPARENT,
    K_HASSEMANTICS,
    K_METHODDEFORREF,
    K_MEMBERFORWARDED,
    K_IMPLEMENTATION,
    K_CUSTOMATTRTYPE,
    K_RESOLUTIONSCOPE,
    K_TYPEORMETHODDEF,
    K_HASCUSTOMDEBUG,
    K_COUNT
};
enum {
    TB_MODULE = 0x00,
    TB_TYPEREF,
    TB_TYPEDEF,
    TB_FIELDPTR,
    TB_FIELD,
    TB_METHODPTR,
    TB_METHOD,
    TB_PARAMPTR,
    TB_PARAM,
    TB_INTERFACEIMPL,
    TB_MEMBERREF,
    TB_CONSTANT,
    TB_CUSTOMATTR,
    TB_FIELDMARSHAL,
    TB_DECLSECURITY,
    TB_CLASSLAYOUT,
    TB_FIELDLAYOUT,
    TB_STANDALONESIG,
    TB_EVENTMAP,
    TB_EVENTPTR,
    TB_EVENT,
    TB_PROPERTYMAP,
    TB_PROPERTYPTR,
    TB_PROPERTY,
    TB_METHODSEMANTICS,
    TB_METHODIMPL,
    TB_MODULEREF,
    TB_TYPESPEC,
    TB_IMPLMAP,
    TB_FIELDRVA,
    TB_ENCLOG,
    TB_ENCMAP,
    TB_ASSEMBLY,
    TB_ASSEMBLYPROC,
    TB_ASSEMBLYOS,
    TB_ASSEMBLYREF,
    TB_ASSEMBLYREFPROC,
    TB_ASSEMBLYREFOS,
    TB_FILE,
    TB_EXPORTEDTYPE,
    TB_MANIFESTRES,
    TB_NESTEDCLASS,
    TB_GENERICPARAM,
    TB_METHODSPEC,
    TB_GENERICPARAMCONSTR,
    TB_DOCUMENT = 0x30,
    TB_METHODDEBUG,
    TB_LOCALSCOPE,
    TB_LOCALVAR,
    TB_LOCALCONST,
    TB_IMPORTSCOPE,
    TB_STATEMACHINE,
    TB_CUSTOMDEBUG,
    TB_NONE = 0xff
};
#define NCOLS 10

static const uint8_t schema[PP_MD_TABLES][NCOLS] = {
    [TB_MODULE] = { C_U16, C_STR, C_GUID, C_GUID, C_GUID },
    [TB_TYPEREF] = { K(K_RESOLUTIONSCOPE), C_STR, C_STR },
    [TB_TYPEDEF] = { C_U32, C_STR, C_STR, K(K_TYPEDEFORREF), T(TB_FIELD), T(TB_METHOD) },
    [TB_FIELDPTR] = { T(TB_FIELD) },
    [TB_FIELD] = { C_U16, C_STR, C_BLOB },
    [TB_METHODPTR] = { T(TB_METHOD) },
    [TB_METHOD] = { C_U32, C_U16, C_U16, C_STR, C_BLOB, T(TB_PARAM) },
    [TB_PARAMPTR] = { T(TB_PARAM) },
    [TB_PARAM] = { C_U16, C_U16, C_STR },
    [TB_INTERFACEIMPL] = { T(TB_TYPEDEF), K(K_TYPEDEFORREF) },
    [TB_MEMBERREF] = { K(K_MEMBERREFPARENT), C_STR, C_BLOB },
    [TB_CONSTANT] = { C_U16, K(K_HASCONSTANT), C_BLOB },
    [TB_CUSTOMATTR] = { K(K_HASCUSTOMATTR), K(K_CUSTOMATTRTYPE), C_BLOB },
    [TB_FIELDMARSHAL] = { K(K_HASFIELDMARSHAL), C_BLOB },
    [TB_DECLSECURITY] = { C_U16, K(K_HASDECLSECURITY), C_BLOB },
    [TB_CLASSLAYOUT] = { C_U16, C_U32, T(TB_TYPEDEF) },
    [TB_FIELDLAYOUT] = { C_U32, T(TB_FIELD) },
    [TB_STANDALONESIG] = { C_BLOB },
    [TB_EVENTMAP] = { T(TB_TYPEDEF), T(TB_EVENT) },
    [TB_EVENTPTR] = { T(TB_EVENT) },
    [TB_EVENT] = { C_U16, C_STR, K(K_TYPEDEFORREF) },
    [TB_PROPERTYMAP] = { T(TB_TYPEDEF), T(TB_PROPERTY) },
    [TB_PROPERTYPTR] = { T(TB_PROPERTY) },
    [TB_PROPERTY] = { C_U16, C_STR, C_BLOB },
    [TB_METHODSEMANTICS] = { C_U16, T(TB_METHOD), K(K_HASSEMANTICS) },
    [TB_METHODIMPL] = { T(TB_TYPEDEF), K(K_METHODDEFORREF), K(K_METHODDEFORREF) },
    [TB_MODULEREF] = { C_STR },
    [TB_TYPESPEC] = { C_BLOB },
    [TB_IMPLMAP] = { C_U16, K(K_MEMBERFORWARDED), C_STR, T(TB_MODULEREF) },
    [TB_FIELDRVA] = { C_U32, T(TB_FIELD) },
    [TB_ENCLOG] = { C_U32, C_U32 },
    [TB_ENCMAP] = { C_U32 },
    [TB_ASSEMBLY] = { C_U32, C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STR, C_STR },
    [TB_ASSEMBLYPROC] = { C_U32 },
    [TB_ASSEMBLYOS] = { C_U32, C_U32, C_U32 },
    [TB_ASSEMBLYREF] = { C_U16, C_U16, C_U16, C_U16, C_U32, C_BLOB, C_STR, C_STR, C_BLOB },
    [TB_ASSEMBLYREFPROC] = { C_U32, T(TB_ASSEMBLYREF) },
    [TB_ASSEMBLYREFOS] = { C_U32, C_U32, C_U32, T(TB_ASSEMBLYREF) },
    [TB_FILE] = { C_U32, C_STR, C_BLOB },
    [TB_EXPORTEDTYPE] = { C_U32, C_U32, C_STR, C_STR, K(K_IMPLEMENTATION) },
    [TB_MANIFESTRES] = { C_U32, C_U32, C_STR, K(K_IMPLEMENTATION) },
    [TB_NESTEDCLASS] = { T(TB_TYPEDEF), T(TB_TYPEDEF) },
    [TB_GENERICPARAM] = { C_U16, C_U16, K(K_TYPEORMETHODDEF), C_STR },
    [TB_METHODSPEC] = { K(K_METHODDEFORREF), C_BLOB },
    [TB_GENERICPARAMCONSTR] = { T(TB_GENERICPARAM), K(K_TYPEDEFORREF) },
    [TB_DOCUMENT] = { C_BLOB, C_GUID, C_BLOB, C_GUID },
    [TB_METHODDEBUG] = { T(TB_DOCUMENT), C_BLOB },
    [TB_LOCALSCOPE] = { T(TB_METHOD), T(TB_IMPORTSCOPE), T(TB_LOCALVAR), T(TB_LOCALCONST), C_U32,
                        C_U32 },
    [TB_LOCALVAR] = { C_U16, C_U16, C_STR },
    [TB_LOCALCONST] = { C_STR, C_BLOB },
    [TB_IMPORTSCOPE] = { T(TB_IMPORTSCOPE), C_BLOB },
    [TB_STATEMACHINE] = { T(TB_METHOD), T(TB_METHOD) },
    [TB_CUSTOMDEBUG] = { K(K_HASCUSTOMDEBUG), C_GUID, C_BLOB },
};

/* Each coded index kind: its tag bits and the tables its tags name
 * (TB_NONE for unused tags), ended by a 0 count. */
typedef struct coded_kind {
    uint8_t bits, n;
    uint8_t tables[27];
} coded_kind;

static const coded_kind coded[K_COUNT] = {
    [K_TYPEDEFORREF] = { 2, 3, { TB_TYPEDEF, TB_TYPEREF, TB_TYPESPEC } },
    [K_HASCONSTANT] = { 2, 3, { TB_FIELD, TB_PARAM, TB_PROPERTY } },
    [K_HASCUSTOMATTR] = { 5, 22, { TB_METHOD,      TB_FIELD,        TB_TYPEREF,
                                   TB_TYPEDEF,     TB_PARAM,        TB_INTERFACEIMPL,
                                   TB_MEMBERREF,   TB_MODULE,       TB_DECLSECURITY,
                                   TB_PROPERTY,    TB_EVENT,        TB_STANDALONESIG,
                                   TB_MODULEREF,   TB_TYPESPEC,     TB_ASSEMBLY,
                                   TB_ASSEMBLYREF, TB_FILE,         TB_EXPORTEDTYPE,
                                   TB_MANIFESTRES, TB_GENERICPARAM, TB_GENERICPARAMCONSTR,
                                   TB_METHODSPEC } },
    [K_HASFIELDMARSHAL] = { 1, 2, { TB_FIELD, TB_PARAM } },
    [K_HASDECLSECURITY] = { 2, 3, { TB_TYPEDEF, TB_METHOD, TB_ASSEMBLY } },
    [K_MEMBERREFPARENT] = { 3,
                            5,
                            { TB_TYPEDEF, TB_TYPEREF, TB_MODULEREF, TB_METHOD, TB_TYPESPEC } },
    [K_HASSEMANTICS] = { 1, 2, { TB_EVENT, TB_PROPERTY } },
    [K_METHODDEFORREF] = { 1, 2, { TB_METHOD, TB_MEMBERREF } },
    [K_MEMBERFORWARDED] = { 1, 2, { TB_FIELD, TB_METHOD } },
    [K_IMPLEMENTATION] = { 2, 3, { TB_FILE, TB_ASSEMBLYREF, TB_EXPORTEDTYPE } },
    [K_CUSTOMATTRTYPE] = { 3, 5, { TB_NONE, TB_NONE, TB_METHOD, TB_MEMBERREF, TB_NONE } },
    [K_RESOLUTIONSCOPE] = { 2, 4, { TB_MODULE, TB_MODULEREF, TB_ASSEMBLYREF, TB_TYPEREF } },
    [K_TYPEORMETHODDEF] = { 1, 2, { TB_TYPEDEF, TB_METHOD } },
    [K_HASCUSTOMDEBUG] = { 5, 27, { TB_METHOD,      TB_FIELD,        TB_TYPEREF,
                                    TB_TYPEDEF,     TB_PARAM,        TB_INTERFACEIMPL,
                                    TB_MEMBERREF,   TB_MODULE,       TB_DECLSECURITY,
                                    TB_PROPERTY,    TB_EVENT,        TB_STANDALONESIG,
                                    TB_MODULEREF,   TB_TYPESPEC,     TB_ASSEMBLY,
                                    TB_ASSEMBLYREF, TB_FILE,         TB_EXPORTEDTYPE,
                                    TB_MANIFESTRES, TB_GENERICPARAM, TB_GENERICPARAMCONSTR,
                                    TB_METHODSPEC,  TB_DOCUMENT,     TB_LOCALSCOPE,
                                    TB_LOCALVAR,    TB_LOCALCONST,   TB_IMPORTSCOPE } },
};

static unsigned
col_width(const pp_md *md, uint8_t c)
{
    switch (c) {
    case C_U16: return 2;
    case C_U32: return 4;
    case C_STR: return md->str_w;
    case C_GUID: return md->guid_w;
    case C_BLOB: return md->blob_w;
    default: break;
    }
    if (c & 0x80) {
        const coded_kind *k = &coded[c & 0x3f];
        uint32_t max = 0;
        for (unsigned i = 0; i < k->n; i++)
            if (k->tables[i] != TB_NONE && md->size_rows[k->tables[i]] > max)
                max = md->size_rows[k->tables[i]];
        return max < (1u << (16 - k->bits)) ? 2 : 4;
    }
    return md->size_rows[c & 0x3f] < 0x10000 ? 2 : 4;
}

typedef struct stream_hdr {
    uint32_t off, size;
    char name[32];
} stream_hdr;

static int
set_heap(pp_md *md, pp_md_heap *h, const stream_hdr *s, pp_error *err)
{
    if (s->off > md->len || s->size > md->len - s->off) {
        pp_error_set_at(err, PP_EFORMAT, s->off,
                        "metadata stream %s (%u bytes at %u) runs past the end", s->name, s->size,
                        s->off);
        return PP_EFORMAT;
    }
    h->p = md->base + s->off;
    h->len = s->size;
    return PP_OK;
}

/* #Pdb: the PDB id, then the assembly's row counts of the type-system
 * tables its bit vector names. */
static int
read_pdb_stream(pp_md *md, pp_error *err)
{
    const uint8_t *p = md->tables.p; /* temporarily the #Pdb stream */
    uint32_t n = md->tables.len;
    if (n < 32) {
        pp_error_set(err, PP_EFORMAT, "#Pdb stream: %u bytes, at least 32 expected", n);
        return PP_EFORMAT;
    }
    memcpy(md->pdb_id, p, 20);
    uint64_t bits = (uint64_t)rd32(p + 24) | (uint64_t)rd32(p + 28) << 32;
    uint32_t at = 32;
    for (unsigned t = 0; t < PP_MD_TABLES; t++) {
        if (!(bits >> t & 1))
            continue;
        if (n - at < 4) {
            pp_error_set(err, PP_EFORMAT, "#Pdb stream: row counts run past its %u bytes", n);
            return PP_EFORMAT;
        }
        md->size_rows[t] = rd32(p + at);
        at += 4;
    }
    md->has_pdb_stream = 1;
    return PP_OK;
}

static int
read_tables(pp_md *md, pp_error *err)
{
    const uint8_t *p = md->tables.p;
    uint32_t n = md->tables.len;
    int64_t base = p - md->base;
    if (n < 24) {
        pp_error_set_at(err, PP_EFORMAT, base, "#~ stream: %u bytes, at least 24 expected", n);
        return PP_EFORMAT;
    }
    uint8_t heaps = p[6];
    md->str_w = heaps & 1 ? 4 : 2;
    md->guid_w = heaps & 2 ? 4 : 2;
    md->blob_w = heaps & 4 ? 4 : 2;
    uint64_t valid = (uint64_t)rd32(p + 8) | (uint64_t)rd32(p + 12) << 32;
    uint32_t at = 24;
    for (unsigned t = 0; t < PP_MD_TABLES; t++) {
        if (!(valid >> t & 1))
            continue;
        if (n - at < 4) {
            pp_error_set_at(err, PP_EFORMAT, base + at, "#~ stream: row counts run past its end");
            return PP_EFORMAT;
        }
        if (t >= 0x38 || (t > 0x2c && t < 0x30)) {
            pp_error_set_at(err, PP_EUNSUPPORTED, base + at,
                            "#~ stream: table 0x%02x is not an ECMA-335 or portable PDB table", t);
            return PP_EUNSUPPORTED;
        }
        md->rows[t] = md->size_rows[t] = rd32(p + at);
        at += 4;
    }
    if (heaps & 0x40) /* "extra data": 4 bytes after the row counts (EnC) */
        at = n - at < 4 ? n + 1 : at + 4;
    for (unsigned t = 0; t < PP_MD_TABLES; t++) {
        uint32_t w = 0;
        for (unsigned c = 0; c < NCOLS && schema[t][c]; c++)
            w += col_width(md, schema[t][c]);
        md->row_size[t] = w;
        if (!md->rows[t])
            continue;
        if (at > n || (uint64_t)w * md->rows[t] > n - at) {
            pp_error_set_at(err, PP_EFORMAT, base + (at > n ? n : at),
                            "#~ stream: table 0x%02x (%u rows of %u bytes) runs past its end", t,
                            md->rows[t], w);
            return PP_EFORMAT;
        }
        md->table[t] = p + at;
        at += w * md->rows[t];
    }
    return PP_OK;
}

static int
read_stream_headers(pp_md *md, const uint8_t *p, const uint8_t *end, unsigned count,
                    pp_md_heap *pdb, pp_error *err)
{
    for (unsigned i = 0; i < count; i++) {
        stream_hdr s;
        if (end - p < 9) {
            pp_error_set_at(err, PP_EFORMAT, p - md->base,
                            "metadata stream header %u runs past the end", i);
            return PP_EFORMAT;
        }
        s.off = rd32(p);
        s.size = rd32(p + 4);
        p += 8;
        size_t k = 0;
        while (p + k < end && p[k] && k < sizeof s.name - 1)
            k++;
        if (p + k >= end || p[k]) {
            pp_error_set_at(err, PP_EFORMAT, p - md->base,
                            "metadata stream header %u: name not ended", i);
            return PP_EFORMAT;
        }
        memcpy(s.name, p, k + 1);
        size_t padded = (k + 4) & ~(size_t)3;
        if ((size_t)(end - p) < padded)
            padded = (size_t)(end - p);
        p += padded;
        pp_md_heap *h = !strcmp(s.name, "#~") || !strcmp(s.name, "#-") ? &md->tables :
                        !strcmp(s.name, "#Strings")                    ? &md->strings :
                        !strcmp(s.name, "#Blob")                       ? &md->blob :
                        !strcmp(s.name, "#GUID")                       ? &md->guid :
                        !strcmp(s.name, "#Pdb")                        ? pdb :
                                                                         NULL;
        if (h && set_heap(md, h, &s, err) != PP_OK)
            return PP_EFORMAT;
    }
    return PP_OK;
}

int
pp_md_open(const uint8_t *buf, size_t len, pp_md *md, pp_error *err)
{
    memset(md, 0, sizeof *md);
    md->base = buf;
    md->len = len;
    if (len < 20 || rd32(buf) != 0x424A5342u) {
        pp_error_set_at(err, PP_EFORMAT, 0, "not ECMA-335 metadata: no 'BSJB' signature");
        return PP_EFORMAT;
    }
    uint32_t vlen = rd32(buf + 12);
    if (vlen > len - 16 || len - 16 - vlen < 4) {
        pp_error_set_at(err, PP_EFORMAT, 12,
                        "metadata root: version string of %u bytes runs past the end", vlen);
        return PP_EFORMAT;
    }
    const uint8_t *p = buf + 16 + vlen;
    unsigned count = rd16(p + 2);
    pp_md_heap pdb = { NULL, 0 };
    int rc = read_stream_headers(md, p + 4, buf + len, count, &pdb, err);
    if (rc != PP_OK)
        return rc;
    if (!md->tables.p) {
        pp_error_set(err, PP_EFORMAT, "metadata has no #~ table stream");
        return PP_EFORMAT;
    }
    if (pdb.p) {
        pp_md_heap tables = md->tables;
        md->tables = pdb;
        rc = read_pdb_stream(md, err);
        md->tables = tables;
        if (rc != PP_OK)
            return rc;
    }
    return read_tables(md, err);
}

int
pp_md_cell(const pp_md *md, unsigned table, uint32_t row, unsigned col, uint32_t *val,
           pp_error *err)
{
    if (table >= PP_MD_TABLES || !row || row > md->rows[table] || col >= NCOLS ||
        !schema[table][col]) {
        pp_error_set(err, PP_EFORMAT, "metadata: no row %u (column %u) in table 0x%02x (%u rows)",
                     row, col, table, table < PP_MD_TABLES ? md->rows[table] : 0);
        return PP_EFORMAT;
    }
    const uint8_t *r = md->table[table] + (size_t)(row - 1) * md->row_size[table];
    for (unsigned c = 0; c < col; c++)
        r += col_width(md, schema[table][c]);
    *val = col_width(md, schema[table][col]) == 2 ? rd16(r) : rd32(r);
    return PP_OK;
}

int
pp_md_uint(const uint8_t **p, const uint8_t *end, uint32_t *v)
{
    const uint8_t *q = *p;
    if (q >= end)
        return -1;
    if (!(q[0] & 0x80)) {
        *v = q[0];
        *p = q + 1;
    } else if ((q[0] & 0xc0) == 0x80) {
        if (end - q < 2)
            return -1;
        *v = (uint32_t)(q[0] & 0x3f) << 8 | q[1];
        *p = q + 2;
    } else if ((q[0] & 0xe0) == 0xc0) {
        if (end - q < 4)
            return -1;
        *v = (uint32_t)(q[0] & 0x1f) << 24 | (uint32_t)q[1] << 16 | (uint32_t)q[2] << 8 | q[3];
        *p = q + 4;
    } else {
        return -1;
    }
    return 0;
}

int
pp_md_int(const uint8_t **p, const uint8_t *end, int32_t *v)
{
    const uint8_t *start = *p;
    uint32_t u;
    if (pp_md_uint(p, end, &u) != 0)
        return -1;
    /* The sign bit is rotated into bit 0 within 7, 14 or 29 bits. */
    ptrdiff_t n = *p - start;
    unsigned bits = n == 1 ? 7 : n == 2 ? 14 : 29;
    int32_t mag = (int32_t)(u >> 1);
    *v = u & 1 ? mag - (int32_t)(1u << (bits - 1)) : mag;
    return 0;
}

int
pp_md_blob(const pp_md *md, uint32_t idx, const uint8_t **p, uint32_t *n, pp_error *err)
{
    if (idx >= md->blob.len) {
        pp_error_set(err, PP_EFORMAT, "#Blob index %u is past the heap's %u bytes", idx,
                     md->blob.len);
        return PP_EFORMAT;
    }
    const uint8_t *q = md->blob.p + idx, *end = md->blob.p + md->blob.len;
    uint32_t len;
    if (pp_md_uint(&q, end, &len) != 0 || len > (uint32_t)(end - q)) {
        pp_error_set_at(err, PP_EFORMAT, (md->blob.p - md->base) + idx,
                        "#Blob entry %u: its length runs past the heap", idx);
        return PP_EFORMAT;
    }
    *p = q;
    *n = len;
    return PP_OK;
}

int
pp_md_guid(const pp_md *md, uint32_t idx, const uint8_t **g, pp_error *err)
{
    *g = NULL;
    if (!idx)
        return PP_OK;
    if (idx > md->guid.len / 16) {
        pp_error_set(err, PP_EFORMAT, "#GUID index %u is past the heap's %u entries", idx,
                     md->guid.len / 16);
        return PP_EFORMAT;
    }
    *g = md->guid.p + (size_t)(idx - 1) * 16;
    return PP_OK;
}

int
pp_md_string(const pp_md *md, uint32_t idx, const char **s, pp_error *err)
{
    if (idx >= md->strings.len || !memchr(md->strings.p + idx, '\0', md->strings.len - idx)) {
        pp_error_set(err, PP_EFORMAT,
                     "#Strings index %u: no string ends inside the heap's %u bytes", idx,
                     md->strings.len);
        return PP_EFORMAT;
    }
    *s = (const char *)md->strings.p + idx;
    return PP_OK;
}
