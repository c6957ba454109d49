/* ELF symbol lookup with elfutils' libelf: one sorted function table per
 * module, built once, searched by "greatest start <= vaddr < start + size". */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"

typedef struct elf_fn {
    uint64_t start, size;
    uint32_t name; /* offset in names */
} elf_fn;

typedef struct elf_load {
    uint64_t offset, filesz, vaddr;
} elf_load;

struct pp_native_elf {
    elf_fn *fns;
    size_t nfns;
    char *names;
    elf_load *loads;
    size_t nloads;
    int full;
    char build_id[PP_NATIVE_BUILD_ID_MAX + 1];
};

static int
cmp_fn(const void *a, const void *b)
{
    const elf_fn *x = a, *y = b;
    if (x->start != y->start)
        return x->start < y->start ? -1 : 1;
    /* Aliases at one address: keep the larger (it covers more). */
    return x->size > y->size ? -1 : x->size < y->size;
}

static void
hex_id(char *out, const uint8_t *p, size_t n)
{
    static const char d[] = "0123456789abcdef";
    if (n > PP_NATIVE_BUILD_ID_MAX / 2)
        n = PP_NATIVE_BUILD_ID_MAX / 2;
    for (size_t i = 0; i < n; i++) {
        out[2 * i] = d[p[i] >> 4];
        out[2 * i + 1] = d[p[i] & 15];
    }
    out[2 * n] = 0;
}

static int
note_build_id(Elf_Data *data, char *out)
{
    GElf_Nhdr nh;
    size_t off = 0, name_off, desc_off, next;
    while (data && off < data->d_size &&
           (next = gelf_getnote(data, off, &nh, &name_off, &desc_off)) > 0) {
        if (nh.n_type == NT_GNU_BUILD_ID && nh.n_namesz == 4 && nh.n_descsz > 0 &&
            memcmp((const char *)data->d_buf + name_off, "GNU", 4) == 0) {
            hex_id(out, (const uint8_t *)data->d_buf + desc_off, nh.n_descsz);
            return 1;
        }
        off = next;
    }
    return 0;
}

/* Symbols of one table into e->fns / names; returns -1 on OOM. */
static int
read_symtab(Elf *elf, Elf_Scn *scn, const GElf_Shdr *sh, pp_native_elf *e, size_t *names_len)
{
    Elf_Data *data = elf_getdata(scn, NULL);
    if (!data || sh->sh_entsize == 0)
        return 0;
    size_t n = sh->sh_size / sh->sh_entsize, cap = 0;
    size_t names_cap = 0;
    for (size_t i = 0; i < n; i++) {
        GElf_Sym sym;
        if (!gelf_getsym(data, (int)i, &sym))
            break;
        if (GELF_ST_TYPE(sym.st_info) != STT_FUNC || sym.st_size == 0 ||
            sym.st_shndx == SHN_UNDEF || sym.st_value == 0)
            continue;
        const char *nm = elf_strptr(elf, sh->sh_link, sym.st_name);
        if (!nm || !*nm)
            continue;
        size_t l = strlen(nm) + 1;
        if (e->nfns == cap) {
            cap = cap ? cap * 2 : 1024;
            elf_fn *g = realloc(e->fns, cap * sizeof *g);
            if (!g)
                return -1;
            e->fns = g;
        }
        if (*names_len + l > names_cap) {
            names_cap = (*names_len + l) * 2 + 4096;
            char *g = realloc(e->names, names_cap);
            if (!g)
                return -1;
            e->names = g;
        }
        memcpy(e->names + *names_len, nm, l);
        e->fns[e->nfns++] = (elf_fn){ sym.st_value, sym.st_size, (uint32_t)*names_len };
        *names_len += l;
    }
    return 0;
}

static int
load_segments(Elf *elf, pp_native_elf *e)
{
    size_t phnum;
    if (elf_getphdrnum(elf, &phnum) != 0)
        return 0;
    e->loads = calloc(phnum ? phnum : 1, sizeof *e->loads);
    if (!e->loads)
        return -1;
    for (size_t i = 0; i < phnum; i++) {
        GElf_Phdr ph;
        if (!gelf_getphdr(elf, (int)i, &ph))
            continue;
        if (ph.p_type == PT_LOAD)
            e->loads[e->nloads++] = (elf_load){ ph.p_offset, ph.p_filesz, ph.p_vaddr };
        else if (ph.p_type == PT_NOTE && e->build_id[0] == '-')
            note_build_id(elf_getdata_rawchunk(elf, (int64_t)ph.p_offset, ph.p_filesz, ELF_T_NHDR),
                          e->build_id);
    }
    return 0;
}

int
pp_native_elf_open(const char *path, pp_native_elf **out, pp_error *err)
{
    *out = NULL;
    if (elf_version(EV_CURRENT) == EV_NONE) {
        pp_error_set(err, PP_EUNSUPPORTED, "libelf: %s", elf_errmsg(-1));
        return PP_EUNSUPPORTED;
    }
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    Elf *elf = elf_begin(fd, ELF_C_READ_MMAP, NULL);
    if (!elf || elf_kind(elf) != ELF_K_ELF) {
        pp_error_set(err, PP_EFORMAT, "%s: not an ELF file: %s", path, elf_errmsg(-1));
        if (elf)
            elf_end(elf);
        close(fd);
        return PP_EFORMAT;
    }
    pp_native_elf *e = calloc(1, sizeof *e);
    int rc = PP_ENOMEM;
    if (!e)
        goto done;
    strcpy(e->build_id, "-");
    if (load_segments(elf, e) < 0)
        goto done;
    Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
    GElf_Shdr sh, sym_sh, dyn_sh;
    while ((scn = elf_nextscn(elf, scn)) != NULL) {
        if (!gelf_getshdr(scn, &sh))
            continue;
        if (sh.sh_type == SHT_SYMTAB) {
            symtab = scn;
            sym_sh = sh;
        } else if (sh.sh_type == SHT_DYNSYM) {
            dynsym = scn;
            dyn_sh = sh;
        } else if (sh.sh_type == SHT_NOTE && e->build_id[0] == '-') {
            note_build_id(elf_getdata(scn, NULL), e->build_id);
        }
    }
    size_t names_len = 0;
    e->full = symtab != NULL;
    if (symtab ? read_symtab(elf, symtab, &sym_sh, e, &names_len) < 0 :
        dynsym ? read_symtab(elf, dynsym, &dyn_sh, e, &names_len) < 0 :
                 0)
        goto done;
    if (e->nfns > 1)
        qsort(e->fns, e->nfns, sizeof *e->fns, cmp_fn);
    /* Drop aliases: one entry per start address. */
    size_t o = 0;
    for (size_t i = 0; i < e->nfns; i++)
        if (o == 0 || e->fns[o - 1].start != e->fns[i].start)
            e->fns[o++] = e->fns[i];
    e->nfns = o;
    rc = PP_OK;
done:
    elf_end(elf);
    close(fd);
    if (rc != PP_OK) {
        pp_native_elf_close(e);
        pp_error_set(err, rc, "%s: out of memory reading its symbols", path);
        return rc;
    }
    *out = e;
    return PP_OK;
}

const char *
pp_native_elf_build_id(const pp_native_elf *e)
{
    return e->build_id;
}

int
pp_native_elf_offset_to_vaddr(const pp_native_elf *e, uint64_t off, uint64_t *vaddr)
{
    for (size_t i = 0; i < e->nloads; i++)
        if (off >= e->loads[i].offset && off - e->loads[i].offset < e->loads[i].filesz) {
            *vaddr = off - e->loads[i].offset + e->loads[i].vaddr;
            return 1;
        }
    return 0;
}

const char *
pp_native_elf_lookup(const pp_native_elf *e, uint64_t vaddr, uint64_t *off)
{
    size_t lo = 0, hi = e->nfns;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (e->fns[mid].start <= vaddr)
            lo = mid + 1;
        else
            hi = mid;
    }
    /* A nested or overlapping earlier symbol may still cover vaddr; look
     * back a few entries rather than trusting only the nearest. */
    for (size_t k = lo, steps = 0; k > 0 && steps < 8; k--, steps++) {
        const elf_fn *f = &e->fns[k - 1];
        if (vaddr - f->start < f->size) {
            *off = vaddr - f->start;
            return e->names + f->name;
        }
    }
    return NULL;
}

size_t
pp_native_elf_nsyms(const pp_native_elf *e)
{
    return e->nfns;
}

int
pp_native_elf_full_symtab(const pp_native_elf *e)
{
    return e->full;
}

void
pp_native_elf_close(pp_native_elf *e)
{
    if (!e)
        return;
    free(e->fns);
    free(e->names);
    free(e->loads);
    free(e);
}
