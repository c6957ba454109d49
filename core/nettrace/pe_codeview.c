/* The build identity a .NET assembly file carries: the first CodeView
 * (RSDS) entry of its PE debug directory, the GUID and age the runtime
 * reports as ManagedPdbSignature/ManagedPdbAge when it loads the module.
 * Minimal on purpose: only what modident.c needs to tell whether the file
 * on disk is still the build a trace ran (the PDB locator may read more). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nettrace/modident.h"

/* An assembly's headers and debug directory sit in its first megabytes;
 * anything bigger is read only that far. */
#define PE_READ_MAX (64u << 20)

static uint32_t
le32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint16_t
le16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}

/* 1 when [off, off+len) lies in the buffer. */
static int
in(size_t n, uint64_t off, uint64_t len)
{
    return off <= n && len <= n - off;
}

/* The file offset of rva through the section table, or UINT64_MAX. */
static uint64_t
rva_to_off(const uint8_t *b, size_t n, uint64_t sec, unsigned nsec, uint32_t rva)
{
    for (unsigned i = 0; i < nsec; i++) {
        const uint8_t *s = b + sec + 40u * i;
        uint32_t va = le32(s + 12), vsz = le32(s + 8), raw = le32(s + 16), ptr = le32(s + 20);
        uint32_t span = vsz > raw ? vsz : raw;

        if (rva >= va && rva - va < span)
            return (uint64_t)ptr + (rva - va);
    }
    return UINT64_MAX;
}

static int
parse(const uint8_t *b, size_t n, pp_nt_pe_identity *out)
{
    if (!in(n, 0, 64) || b[0] != 'M' || b[1] != 'Z')
        return -1;
    uint64_t pe = le32(b + 0x3c);
    if (!in(n, pe, 24) || memcmp(b + pe, "PE\0\0", 4) != 0)
        return -1;
    unsigned nsec = le16(b + pe + 6), optsz = le16(b + pe + 20);
    uint64_t opt = pe + 24, sec = opt + optsz;
    if (!in(n, opt, optsz) || optsz < 2 || !in(n, sec, 40ull * nsec))
        return -1;
    uint16_t magic = le16(b + opt);
    uint64_t dirs = magic == 0x20b ? 112 : magic == 0x10b ? 96 : 0;
    if (dirs == 0 || optsz < dirs || le32(b + opt + dirs - 4) <= 6 || optsz < dirs + 7 * 8)
        return -1;
    uint32_t drva = le32(b + opt + dirs + 6 * 8), dsize = le32(b + opt + dirs + 6 * 8 + 4);
    uint64_t doff = rva_to_off(b, n, sec, nsec, drva);
    if (drva == 0 || doff == UINT64_MAX || !in(n, doff, dsize))
        return 1; /* no debug directory: built without debug info */
    for (uint64_t e = doff; e + 28 <= doff + dsize; e += 28) {
        uint32_t type = le32(b + e + 12), size = le32(b + e + 16), ptr = le32(b + e + 24);

        if (type != 2 /* IMAGE_DEBUG_TYPE_CODEVIEW */)
            continue;
        if (size < 24 || !in(n, ptr, size) || memcmp(b + ptr, "RSDS", 4) != 0)
            return -1;
        memcpy(out->guid, b + ptr + 4, 16);
        out->age = le32(b + ptr + 20);
        return 0;
    }
    return 1;
}

int
pp_nt_pe_identity_read(const char *path, pp_nt_pe_identity *out)
{
    FILE *f = fopen(path, "rb");
    uint8_t *b;
    size_t n;
    int rc;

    memset(out, 0, sizeof *out);
    if (f == NULL)
        return PP_NT_PE_NOFILE;
    long size = fseek(f, 0, SEEK_END) == 0 ? ftell(f) : -1;
    rewind(f);
    size_t want = size <= 0 ? 0 : (unsigned long)size > PE_READ_MAX ? PE_READ_MAX : (size_t)size;
    b = want ? malloc(want) : NULL;
    if (b == NULL) {
        fclose(f);
        return size == 0 ? PP_NT_PE_BAD : PP_NT_PE_NOFILE;
    }
    n = fread(b, 1, want, f);
    rc = ferror(f) ? -1 : parse(b, n, out);
    fclose(f);
    free(b);
    return rc < 0 ? PP_NT_PE_BAD : rc > 0 ? PP_NT_PE_NODEBUG : PP_NT_PE_OK;
}
