/* PE/COFF headers of a .NET assembly: the section table (to turn RVAs
 * into file offsets), the CLI header (managed? ReadyToRun?) and the debug
 * directory's CodeView and embedded portable PDB entries (PE/COFF spec,
 * "The .debug Section"; the portable PDB's entries are described in
 * dotnet/runtime docs/design/specs/PE-COFF.md). */
#include "config.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include <perfpipe/perfpipe.h>

#include "pdb.h"

#define DEBUG_TYPE_CODEVIEW     2
#define DEBUG_TYPE_EMBEDDED_PDB 17
#define DIR_DEBUG               6
#define DIR_CLI                 14
#define PORTABLE_CODEVIEW_MINOR 0x504d
/* deflate cannot expand its input more than this. */
#define DEFLATE_MAX_RATIO 1032u

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

typedef struct pe_sections {
    const uint8_t *table;
    uint32_t count;
} pe_sections;

/* The file offset of [rva, rva+size) or -1 when no section holds it all
 * in its raw data. */
static int64_t
rva_to_offset(const pe_sections *s, size_t len, uint32_t rva, uint32_t size)
{
    for (uint32_t i = 0; i < s->count; i++) {
        const uint8_t *h = s->table + (size_t)i * 40;
        uint64_t va = rd32(h + 12), vsize = rd32(h + 8), raw = rd32(h + 16), ptr = rd32(h + 20);
        uint64_t span = vsize < raw ? vsize : raw;
        if (!vsize)
            span = raw;
        if (rva >= va && (uint64_t)rva + size <= va + span) {
            uint64_t off = ptr + (rva - va);
            if (off + size > len)
                return -1;
            return (int64_t)off;
        }
    }
    return -1;
}

static void
read_codeview(const uint8_t *buf, size_t len, const uint8_t *e, pp_pe_info *out)
{
    uint32_t size = rd32(e + 16), ptr = rd32(e + 24);
    if (size < 24 + 1 || ptr > len || size > len - ptr)
        return;
    const uint8_t *cv = buf + ptr;
    if (memcmp(cv, "RSDS", 4) != 0)
        return;
    out->has_codeview = 1;
    memcpy(out->guid, cv + 4, 16);
    out->age = rd32(cv + 20);
    out->stamp = rd32(e + 4);
    out->portable = rd16(e + 10) == PORTABLE_CODEVIEW_MINOR;
    size_t n = 0, max = size - 24;
    while (n < max && n + 1 < sizeof out->pdb_path && cv[24 + n])
        n++;
    memcpy(out->pdb_path, cv + 24, n);
    out->pdb_path[n] = '\0';
}

static void
read_embedded(const uint8_t *buf, size_t len, const uint8_t *e, pp_pe_info *out)
{
    uint32_t size = rd32(e + 16), ptr = rd32(e + 24);
    if (size < 8 || ptr > len || size > len - ptr || memcmp(buf + ptr, "MPDB", 4) != 0)
        return;
    out->embedded = buf + ptr + 8;
    out->embedded_len = size - 8;
    out->embedded_size = rd32(buf + ptr + 4);
}

static int
read_debug_dir(const uint8_t *buf, size_t len, const pe_sections *s, const uint8_t *dir,
               pp_pe_info *out, pp_error *err)
{
    uint32_t rva = rd32(dir), size = rd32(dir + 4);
    if (!rva || !size)
        return PP_OK;
    int64_t off = rva_to_offset(s, len, rva, size);
    if (off < 0) {
        pp_error_set(err, PP_EFORMAT, "PE debug directory (RVA 0x%x, %u bytes) is outside the file",
                     rva, size);
        return PP_EFORMAT;
    }
    for (uint32_t i = 0; i + 28 <= size; i += 28) {
        const uint8_t *e = buf + off + i;
        uint32_t type = rd32(e + 12);
        if (type == DEBUG_TYPE_CODEVIEW && !out->has_codeview)
            read_codeview(buf, len, e, out);
        else if (type == DEBUG_TYPE_EMBEDDED_PDB && !out->embedded)
            read_embedded(buf, len, e, out);
    }
    return PP_OK;
}

static void
read_cli(const uint8_t *buf, size_t len, const pe_sections *s, const uint8_t *dir, pp_pe_info *out)
{
    uint32_t rva = rd32(dir), size = rd32(dir + 4);
    if (!rva || size < 72)
        return;
    int64_t off = rva_to_offset(s, len, rva, 72);
    if (off < 0)
        return;
    out->has_cli = 1;
    uint32_t mrva = rd32(buf + off + 8), msize = rd32(buf + off + 12);
    int64_t moff = mrva && msize ? rva_to_offset(s, len, mrva, msize) : -1;
    if (moff >= 0) {
        out->metadata = buf + moff;
        out->metadata_len = msize;
    }
    uint32_t nrva = rd32(buf + off + 64), nsize = rd32(buf + off + 68);
    int64_t noff = nrva && nsize >= 4 ? rva_to_offset(s, len, nrva, 4) : -1;
    /* "RTR": the ReadyToRun header's signature. */
    out->ready_to_run = noff >= 0 && rd32(buf + noff) == 0x00525452u;
}

int
pp_pe_read(const uint8_t *buf, size_t len, pp_pe_info *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    if (len < 64 || buf[0] != 'M' || buf[1] != 'Z') {
        pp_error_set_at(err, PP_EFORMAT, 0, "not a PE file: no 'MZ' at byte 0");
        return PP_EFORMAT;
    }
    uint32_t pe = rd32(buf + 0x3c);
    if (pe > len || len - pe < 24 || memcmp(buf + pe, "PE\0\0", 4) != 0) {
        pp_error_set_at(err, PP_EFORMAT, 0x3c,
                        "not a PE file: no 'PE' signature at the offset byte 0x3c names");
        return PP_EFORMAT;
    }
    pe_sections s;
    s.count = rd16(buf + pe + 6);
    uint32_t opt_size = rd16(buf + pe + 20);
    size_t opt = (size_t)pe + 24;
    if (opt_size < 2 || opt_size > len - opt) {
        pp_error_set_at(err, PP_EFORMAT, (int64_t)opt,
                        "PE optional header runs past the end of the file");
        return PP_EFORMAT;
    }
    uint16_t magic = rd16(buf + opt);
    size_t ndirs_at = magic == 0x20b ? 108 : magic == 0x10b ? 92 : 0;
    if (!ndirs_at || opt_size < ndirs_at + 4) {
        pp_error_set_at(err, PP_EFORMAT, (int64_t)opt,
                        "PE optional header: magic 0x%x, %u bytes: expected PE32 or PE32+", magic,
                        opt_size);
        return PP_EFORMAT;
    }
    uint32_t ndirs = rd32(buf + opt + ndirs_at);
    size_t dirs = opt + ndirs_at + 4;
    size_t sect = opt + opt_size;
    if ((uint64_t)s.count * 40 > len - sect) {
        pp_error_set_at(err, PP_EFORMAT, (int64_t)sect,
                        "PE section table (%u sections) runs past the end of the file", s.count);
        return PP_EFORMAT;
    }
    s.table = buf + sect;
    /* A directory counts only when it lies inside the optional header. */
    if (ndirs > DIR_CLI && (DIR_CLI + 1) * 8 <= opt + opt_size - dirs)
        read_cli(buf, len, &s, buf + dirs + DIR_CLI * 8, out);
    if (ndirs > DIR_DEBUG && (DIR_DEBUG + 1) * 8 <= opt + opt_size - dirs)
        return read_debug_dir(buf, len, &s, buf + dirs + DIR_DEBUG * 8, out, err);
    return PP_OK;
}

int
pp_pe_inflate_pdb(const pp_pe_info *pe, uint8_t **out, size_t *out_len, pp_error *err)
{
    *out = NULL;
    *out_len = 0;
    if (!pe->embedded) {
        pp_error_set(err, PP_ENOTFOUND, "the assembly has no embedded PDB");
        return PP_ENOTFOUND;
    }
    uint64_t bound = (uint64_t)pe->embedded_len * DEFLATE_MAX_RATIO;
    if (!pe->embedded_size || pe->embedded_size > bound || pe->embedded_size > PP_PDB_MAX_FILE) {
        pp_error_set(err, PP_EFORMAT,
                     "embedded PDB: uncompressed size %u is impossible for %zu compressed bytes",
                     pe->embedded_size, pe->embedded_len);
        return PP_EFORMAT;
    }
    uint8_t *dst = malloc(pe->embedded_size);
    if (!dst) {
        pp_error_set(err, PP_ENOMEM, "embedded PDB: out of memory for %u bytes", pe->embedded_size);
        return PP_ENOMEM;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, -15) != Z_OK) {
        free(dst);
        pp_error_set(err, PP_ENOMEM, "embedded PDB: zlib could not start");
        return PP_ENOMEM;
    }
    /* zlib's counts are uInt: the sizes are below PP_PDB_MAX_FILE. */
    z.next_in = (Bytef *)(uintptr_t)pe->embedded;
    z.avail_in = pe->embedded_len > PP_PDB_MAX_FILE ? PP_PDB_MAX_FILE : (uInt)pe->embedded_len;
    z.next_out = dst;
    z.avail_out = pe->embedded_size;
    int rc = inflate(&z, Z_FINISH);
    size_t got = pe->embedded_size - z.avail_out;
    inflateEnd(&z);
    if (rc != Z_STREAM_END || got != pe->embedded_size) {
        free(dst);
        pp_error_set(err, PP_EFORMAT, "embedded PDB: deflate data is damaged (%s; %zu of %u bytes)",
                     rc == Z_STREAM_END ? "short" :
                     rc == Z_BUF_ERROR  ? "longer than announced" :
                                          "invalid",
                     got, pe->embedded_size);
        return PP_EFORMAT;
    }
    *out = dst;
    *out_len = got;
    return PP_OK;
}
