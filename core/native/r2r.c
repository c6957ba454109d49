/* Method names for code in ReadyToRun images (the framework's and the app's
 * precompiled .dll files, which the runtime maps straight from disk).
 *
 * The runtime names R2R code in the trace only for methods it has "prepared"
 * through their entry point; a method called directly from other R2R code
 * of its version bubble (P/Invoke marshalling stubs are the common case) is
 * never reported, and its samples read "?!0x7f..". The image itself says
 * which runtime function starts which MethodDef (the MethodDefEntryPoints
 * sparse array over RUNTIME_FUNCTIONS) and the ECMA-335 metadata names the
 * method and its type, so the name can be recovered from the file.
 *
 * Layouts follow ECMA-335 II.24-25 (PE/CLI headers, #~ tables) and the
 * ReadyToRun format document in dotnet/runtime (docs/design/coreclr/botr/
 * readytorun-format.md: header, sections 102/103/122, native format
 * integers and sparse arrays). Only what naming needs is read: generic
 * instantiations (InstanceMethodEntryPoints) and funclets are left unnamed
 * rather than guessed. Every read is bounds-checked against the file. */
#include "config.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"

#define R2R_SIGNATURE             0x00525452u /* "RTR" */
#define SEC_RUNTIME_FUNCTIONS     102
#define SEC_METHODDEF_ENTRYPOINTS 103
#define SEC_ENCLOSING_TYPE_MAP    122

typedef struct pe_section {
    uint32_t va, vsize, raw, rawsize;
} pe_section;

struct pp_native_r2r {
    const uint8_t *p; /* the mapped file */
    size_t len;
    pe_section *secs;
    uint32_t nsecs;
    uint32_t rf_off, nrf; /* RUNTIME_FUNCTIONS (file offset, count) */
    uint32_t *rf_method;  /* per runtime function: MethodDef RID or 0 */
    /* metadata */
    uint32_t strings, strings_len; /* #Strings heap (file offset, size) */
    uint32_t typedef_off, typedef_rows, typedef_size;
    uint32_t method_off, method_rows, method_size;
    uint8_t str_idx; /* 2 or 4 */
    uint8_t td_methodlist_at, td_methodlist_size;
    uint8_t md_name_at;
    uint32_t enclosing_off, enclosing_n; /* EnclosingTypeMap (0 when absent) */
    char name[1024];                     /* the last name looked up */
};

static int
get32(const pp_native_r2r *r, uint64_t off, uint32_t *v)
{
    if (off > r->len || r->len - off < 4)
        return 0;
    const uint8_t *q = r->p + off;
    *v = (uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24;
    return 1;
}

static int
get16(const pp_native_r2r *r, uint64_t off, uint32_t *v)
{
    if (off > r->len || r->len - off < 2)
        return 0;
    *v = (uint32_t)r->p[off] | (uint32_t)r->p[off + 1] << 8;
    return 1;
}

static int
get_idx(const pp_native_r2r *r, uint64_t off, unsigned size, uint32_t *v)
{
    return size == 2 ? get16(r, off, v) : get32(r, off, v);
}

/* RVA -> file offset through the section table; 0 when no section holds it. */
static int
rva_off(const pp_native_r2r *r, uint32_t rva, uint32_t *off)
{
    for (uint32_t i = 0; i < r->nsecs; i++) {
        const pe_section *s = &r->secs[i];
        uint32_t span = s->vsize > s->rawsize ? s->rawsize : s->vsize;
        if (rva >= s->va && rva - s->va < span) {
            *off = s->raw + (rva - s->va);
            return *off < r->len;
        }
    }
    return 0;
}

static int
off_rva(const pp_native_r2r *r, uint64_t off, uint32_t *rva)
{
    for (uint32_t i = 0; i < r->nsecs; i++) {
        const pe_section *s = &r->secs[i];
        if (off >= s->raw && off - s->raw < s->rawsize && off - s->raw < s->vsize) {
            *rva = s->va + (uint32_t)(off - s->raw);
            return 1;
        }
    }
    return 0;
}

/* Native format unsigned integer at off (bounded by end); returns the
 * offset after it, or 0 on a bad encoding. */
static uint32_t
nf_uint(const pp_native_r2r *r, uint32_t off, uint32_t end, uint32_t *v)
{
    if (off >= end)
        return 0;
    uint8_t b = r->p[off];
    unsigned n = (b & 1) == 0 ? 1 : (b & 2) == 0 ? 2 : (b & 4) == 0 ? 3 : (b & 8) == 0 ? 4 : 5;
    if (end - off < n)
        return 0;
    const uint8_t *q = r->p + off;
    switch (n) {
    case 1: *v = b >> 1; break;
    case 2: *v = ((uint32_t)q[0] | (uint32_t)q[1] << 8) >> 2; break;
    case 3: *v = ((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16) >> 3; break;
    case 4:
        *v = ((uint32_t)q[0] | (uint32_t)q[1] << 8 | (uint32_t)q[2] << 16 | (uint32_t)q[3] << 24) >>
             4;
        break;
    default:
        *v = (uint32_t)q[1] | (uint32_t)q[2] << 8 | (uint32_t)q[3] << 16 | (uint32_t)q[4] << 24;
    }
    return off + n;
}

/* Element `index` of a native sparse array whose header is at base: the
 * offset of its data, 0 when the element is absent or the array damaged. */
static uint32_t
nf_array_at(const pp_native_r2r *r, uint32_t end, uint32_t count, uint32_t entry_size,
            uint32_t index_base, uint32_t index)
{
    if (index >= count)
        return 0;
    uint32_t slot = index_base + (index / 16) * entry_size, block;
    if (slot >= end || end - slot < entry_size)
        return 0;
    if (entry_size == 1)
        block = r->p[slot];
    else if (entry_size == 2)
        get16(r, slot, &block);
    else
        get32(r, slot, &block);
    uint32_t off = index_base + block;
    for (uint32_t bit = 8; bit > 0; bit >>= 1) {
        uint32_t val, next = nf_uint(r, off, end, &val);
        if (!next)
            return 0;
        if (index & bit) {
            if (val & 2) {
                if (val >> 2 > end - off)
                    return 0;
                off += val >> 2;
                continue;
            }
        } else if (val & 1) {
            off = next;
            continue;
        }
        /* A block holding one element is a leaf that names its index. */
        if ((val & 3) == 0 && (val >> 2) == (index & 15))
            return next;
        return 0;
    }
    return off;
}

static int
parse_pe(pp_native_r2r *r, uint32_t *cli_rva)
{
    uint32_t lfanew, sig, v;
    if (r->len < 0x40 || r->p[0] != 'M' || r->p[1] != 'Z' || !get32(r, 0x3c, &lfanew) ||
        !get32(r, lfanew, &sig) || sig != 0x00004550u)
        return 0;
    uint64_t coff = (uint64_t)lfanew + 4, opt = coff + 20;
    uint32_t machine, nsec, optsize, magic;
    if (!get16(r, coff, &machine) || !get16(r, coff + 2, &nsec) || !get16(r, coff + 16, &optsize) ||
        !get16(r, opt, &magic))
        return 0;
    /* x64 only: its RUNTIME_FUNCTION is 12 bytes with an end RVA. R2R images
     * for Linux XOR the machine with the OS override 0x7B79. */
    if (machine != 0x8664 && (machine ^ 0x7B79) != 0x8664)
        return 0;
    uint64_t dirs = opt + (magic == 0x20b ? 112 : magic == 0x10b ? 96 : 0);
    if (dirs == opt || !get32(r, dirs - 4, &v) || v < 15 || dirs + 15 * 8 > opt + optsize ||
        !get32(r, dirs + 14 * 8, cli_rva) || *cli_rva == 0)
        return 0; /* not a CLI image */
    uint64_t st = opt + optsize;
    if (nsec == 0 || st + (uint64_t)nsec * 40 > r->len ||
        !(r->secs = calloc(nsec, sizeof *r->secs)))
        return 0;
    r->nsecs = nsec;
    for (uint32_t i = 0; i < nsec; i++) {
        uint64_t s = st + (uint64_t)i * 40;
        get32(r, s + 8, &r->secs[i].vsize);
        get32(r, s + 12, &r->secs[i].va);
        get32(r, s + 16, &r->secs[i].rawsize);
        get32(r, s + 20, &r->secs[i].raw);
    }
    return 1;
}

/* Coded index width: 2 bytes while every tagged table fits in 16 - tag bits. */
static unsigned
coded_size(const uint32_t *rows, const int *tables, size_t n, unsigned tagbits)
{
    for (size_t i = 0; i < n; i++)
        if (rows[tables[i]] >= (1u << (16 - tagbits)))
            return 4;
    return 2;
}

static int
parse_metadata(pp_native_r2r *r, uint32_t md_rva)
{
    uint32_t root, sig, vlen, nstreams, tables = 0;
    if (!rva_off(r, md_rva, &root) || !get32(r, root, &sig) || sig != 0x424A5342u ||
        !get32(r, root + 12, &vlen) || vlen > 256 || !get16(r, root + 16 + vlen + 2, &nstreams))
        return 0;
    uint64_t sh = (uint64_t)root + 16 + vlen + 4;
    for (uint32_t i = 0; i < nstreams && i < 16; i++) {
        uint32_t off, size;
        if (!get32(r, sh, &off) || !get32(r, sh + 4, &size))
            return 0;
        const char *name = (const char *)r->p + sh + 8;
        size_t room = r->len - (sh + 8), nl = strnlen(name, room < 32 ? room : 32);
        if (nl == room || nl == 32)
            return 0;
        if (strcmp(name, "#~") == 0)
            tables = root + off;
        else if (strcmp(name, "#Strings") == 0) {
            r->strings = root + off;
            r->strings_len = size;
        }
        sh += 8 + ((nl + 4) & ~(size_t)3);
    }
    if (!tables || !r->strings || r->strings > r->len || r->len - r->strings < r->strings_len ||
        (uint64_t)tables + 24 > r->len)
        return 0;
    uint8_t heaps = r->p[tables + 6];
    uint32_t lo = 0, hi = 0, rows[64] = { 0 };
    get32(r, tables + 8, &lo);
    get32(r, tables + 12, &hi);
    uint64_t valid = (uint64_t)hi << 32 | lo, at = (uint64_t)tables + 24;
    for (int t = 0; t < 64; t++)
        if (valid >> t & 1) {
            if (!get32(r, at, &rows[t]))
                return 0;
            at += 4;
        }
    if (rows[0x03] || rows[0x05]) /* Field/MethodPtr: an uncompressed (#-) layout */
        return 0;
    unsigned s = heaps & 1 ? 4 : 2, g = heaps & 2 ? 4 : 2, b = heaps & 4 ? 4 : 2;
#define IDX(t) (rows[t] > 0xFFFF ? 4u : 2u)
    static const int res_scope[] = { 0x00, 0x1A, 0x23, 0x01 }, tdor[] = { 0x02, 0x01, 0x1B };
    unsigned module = 2 + s + 3 * g;
    unsigned typeref = coded_size(rows, res_scope, 4, 2) + 2 * s;
    unsigned typedef_ = 4 + 2 * s + coded_size(rows, tdor, 3, 2) + IDX(0x04) + IDX(0x06);
    unsigned field = 2 + s + b;
    r->str_idx = (uint8_t)s;
    r->td_methodlist_at = (uint8_t)(4 + 2 * s + coded_size(rows, tdor, 3, 2) + IDX(0x04));
    r->td_methodlist_size = (uint8_t)IDX(0x06);
    r->md_name_at = 8;
    r->method_size = 8 + s + b + IDX(0x08);
#undef IDX
    uint64_t t0 = at + (uint64_t)rows[0] * module + (uint64_t)rows[1] * typeref;
    uint64_t t6 = t0 + (uint64_t)rows[2] * typedef_ + (uint64_t)rows[4] * field;
    if (t6 + (uint64_t)rows[6] * r->method_size > r->len)
        return 0;
    r->typedef_off = (uint32_t)t0;
    r->typedef_rows = rows[2];
    r->typedef_size = typedef_;
    r->method_off = (uint32_t)t6;
    r->method_rows = rows[6];
    return 1;
}

static const char *
heap_string(const pp_native_r2r *r, uint32_t idx)
{
    if (idx >= r->strings_len)
        return "";
    const char *s = (const char *)r->p + r->strings + idx;
    return memchr(s, 0, r->strings_len - idx) ? s : "";
}

/* The R2R header's section table: RUNTIME_FUNCTIONS, the MethodDef entry
 * points (mapped onto rf_method) and the enclosing-type map. */
static int
parse_r2r(pp_native_r2r *r, uint32_t cli_rva)
{
    uint32_t cli, md_rva, hdr_rva, hdr, sig, nsec;
    if (!rva_off(r, cli_rva, &cli) || !get32(r, cli + 8, &md_rva) ||
        !get32(r, cli + 64, &hdr_rva) || !hdr_rva || !rva_off(r, hdr_rva, &hdr) ||
        !get32(r, hdr, &sig) || sig != R2R_SIGNATURE || !get32(r, hdr + 12, &nsec) || nsec > 256 ||
        !parse_metadata(r, md_rva))
        return 0;
    uint32_t ep_off = 0, ep_len = 0;
    for (uint32_t i = 0; i < nsec; i++) {
        uint64_t e = (uint64_t)hdr + 16 + (uint64_t)i * 12;
        uint32_t type, rva, size, off;
        if (!get32(r, e, &type) || !get32(r, e + 4, &rva) || !get32(r, e + 8, &size))
            return 0;
        if (!rva_off(r, rva, &off) || size > r->len - off)
            continue;
        if (type == SEC_RUNTIME_FUNCTIONS) {
            r->rf_off = off;
            r->nrf = size / 12; /* x64: begin, end, unwind RVAs */
        } else if (type == SEC_METHODDEF_ENTRYPOINTS) {
            ep_off = off;
            ep_len = size;
        } else if (type == SEC_ENCLOSING_TYPE_MAP && size >= 2) {
            uint32_t n;
            get16(r, off, &n);
            if ((uint64_t)n * 2 + 2 <= size) {
                r->enclosing_off = off + 2;
                r->enclosing_n = n;
            }
        }
    }
    if (!r->nrf || !ep_off || !(r->rf_method = calloc(r->nrf, sizeof *r->rf_method)))
        return 0;
    uint32_t end = ep_off + ep_len, hv, base = nf_uint(r, ep_off, end, &hv);
    if (!base)
        return 0;
    uint32_t count = hv >> 2, esize = 1u << (hv & 3);
    /* Element i is MethodDef RID i + 1. */
    for (uint32_t i = 0; i < count && i < r->method_rows; i++) {
        uint32_t at = nf_array_at(r, end, count, esize, base, i), id;
        if (!at || !nf_uint(r, at, end, &id))
            continue;
        /* Low bit: a fixup list follows (bit 1: found through a back offset). */
        uint32_t rf = id & 1 ? id >> 2 : id >> 1;
        if (rf < r->nrf && !r->rf_method[rf])
            r->rf_method[rf] = i + 1;
    }
    return 1;
}

static int
fail(pp_error *err, int code, const char *path, const char *what)
{
    pp_error_set(err, code, "%s: %s", path, what);
    return code;
}

int
pp_native_r2r_open(const char *path, pp_native_r2r **out, pp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    struct stat st;
    *out = NULL;
    if (fd < 0)
        return fail(err, PP_EIO, path, "cannot open");
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) || st.st_size < 0x40) {
        close(fd);
        return fail(err, PP_EFORMAT, path, "not a PE image");
    }
    pp_native_r2r *r = calloc(1, sizeof *r);
    void *m = r ? mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0) : MAP_FAILED;
    close(fd);
    if (m == MAP_FAILED) {
        free(r);
        return fail(err, PP_ENOMEM, path, "cannot map");
    }
    r->p = m;
    r->len = (size_t)st.st_size;
    uint32_t cli_rva;
    if (!parse_pe(r, &cli_rva) || !parse_r2r(r, cli_rva)) {
        pp_native_r2r_close(r);
        return fail(err, PP_EFORMAT, path, "not an x64 ReadyToRun image");
    }
    *out = r;
    return PP_OK;
}

/* The TypeDef owning MethodDef rid: the last row whose MethodList <= rid. */
static uint32_t
owner_type(const pp_native_r2r *r, uint32_t rid)
{
    uint32_t lo = 1, hi = r->typedef_rows, best = 0;
    while (lo <= hi) {
        uint32_t mid = lo + (hi - lo) / 2, ml;
        if (!get_idx(r,
                     r->typedef_off + (uint64_t)(mid - 1) * r->typedef_size + r->td_methodlist_at,
                     r->td_methodlist_size, &ml))
            return 0;
        if (ml <= rid) {
            best = mid;
            lo = mid + 1;
        } else
            hi = mid - 1;
    }
    return best;
}

/* "Namespace.Outer+Inner" of TypeDef rid into buf (nesting from the
 * EnclosingTypeMap, at most 8 levels). */
static void
type_name(const pp_native_r2r *r, uint32_t rid, char *buf, size_t size, int depth)
{
    uint32_t name, ns, outer = 0;
    uint64_t row = r->typedef_off + (uint64_t)(rid - 1) * r->typedef_size;
    buf[0] = 0;
    if (!rid || rid > r->typedef_rows || !get_idx(r, row + 4, r->str_idx, &name) ||
        !get_idx(r, row + 4 + r->str_idx, r->str_idx, &ns))
        return;
    if (r->enclosing_off && rid <= r->enclosing_n)
        get16(r, r->enclosing_off + (uint64_t)(rid - 1) * 2, &outer);
    if (outer && outer != rid && depth < 8) {
        type_name(r, outer, buf, size, depth + 1);
        size_t n = strlen(buf);
        snprintf(buf + n, size - n, "+%s", heap_string(r, name));
    } else if (*heap_string(r, ns))
        snprintf(buf, size, "%s.%s", heap_string(r, ns), heap_string(r, name));
    else
        snprintf(buf, size, "%s", heap_string(r, name));
}

const char *
pp_native_r2r_lookup(pp_native_r2r *r, uint64_t foff, uint64_t *off)
{
    uint32_t rva;
    if (!off_rva(r, foff, &rva))
        return NULL;
    uint32_t lo = 0, hi = r->nrf;
    while (lo < hi) { /* last runtime function starting <= rva */
        uint32_t mid = lo + (hi - lo) / 2, begin = 0;
        get32(r, r->rf_off + (uint64_t)mid * 12, &begin);
        if (begin <= rva)
            lo = mid + 1;
        else
            hi = mid;
    }
    uint32_t begin, end;
    if (lo == 0 || !get32(r, r->rf_off + (uint64_t)(lo - 1) * 12, &begin) ||
        !get32(r, r->rf_off + (uint64_t)(lo - 1) * 12 + 4, &end) || rva >= end)
        return NULL;
    uint32_t rid = r->rf_method[lo - 1], name;
    if (!rid || !get_idx(r, r->method_off + (uint64_t)(rid - 1) * r->method_size + r->md_name_at,
                         r->str_idx, &name))
        return NULL;
    type_name(r, owner_type(r, rid), r->name, sizeof r->name, 0);
    size_t n = strlen(r->name);
    snprintf(r->name + n, sizeof r->name - n, "%s%s", n ? "." : "", heap_string(r, name));
    *off = rva - begin;
    return r->name;
}

void
pp_native_r2r_close(pp_native_r2r *r)
{
    if (!r)
        return;
    if (r->p)
        munmap((void *)r->p, r->len);
    free(r->secs);
    free(r->rf_method);
    free(r);
}
