/* Native address -> "module!function+0xOFF" over a module map, opening each
 * module's ELF once (on its first hit) and keeping its table. */
#include "config.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"

enum module_state { UNOPENED, ELF_OK, MISSING, BUILD_ID_DIFFERS, R2R_OK, UNKNOWN_FORMAT };

typedef struct native_module {
    const char *path;     /* borrowed from the first mapping */
    const char *base;     /* basename of path */
    const char *build_id; /* as recorded at capture */
    pp_native_elf *elf;   /* NULL until opened, or when unusable */
    pp_native_r2r *r2r;   /* a ReadyToRun image instead of an ELF file */
    int state;            /* enum module_state */
} native_module;

struct pp_native_syms {
    pp_native_maps maps;
    native_module *mods;
    size_t nmods;
};

int
pp_native_syms_new(pp_native_maps *maps, pp_native_syms **out)
{
    pp_native_syms *s = calloc(1, sizeof *s);
    if (!s || !(s->mods = calloc(maps->n ? maps->n : 1, sizeof *s->mods))) {
        free(s);
        return PP_ENOMEM;
    }
    s->maps = *maps;
    memset(maps, 0, sizeof *maps);
    for (size_t i = 0; i < s->maps.n; i++) {
        pp_native_mapping *x = &s->maps.v[i];
        size_t j = 0;
        while (j < s->nmods && strcmp(s->mods[j].path, x->path) != 0)
            j++;
        if (j == s->nmods) {
            native_module *m = &s->mods[s->nmods++];
            const char *sl = strrchr(x->path, '/');
            m->path = x->path;
            m->base = sl ? sl + 1 : x->path;
            m->build_id = x->build_id;
        }
        x->module = (uint32_t)j;
    }
    *out = s;
    return PP_OK;
}

static native_module *
module_open(native_module *m)
{
    if (m->state != UNOPENED)
        return m;
    int rc = pp_native_elf_open(m->path, &m->elf, NULL);
    if (rc == PP_OK) {
        m->state = ELF_OK;
        if (strcmp(m->build_id, "-") != 0 &&
            strcmp(m->build_id, pp_native_elf_build_id(m->elf)) != 0)
            m->state = BUILD_ID_DIFFERS; /* the file was replaced since: its symbols would lie */
    } else if (rc == PP_EFORMAT)
        /* Managed .dll files are mapped PE images; precompiled (R2R) code in
         * them is named from the image's own tables. */
        m->state = pp_native_r2r_open(m->path, &m->r2r, NULL) == PP_OK ? R2R_OK : UNKNOWN_FORMAT;
    else
        m->state = MISSING;
    return m;
}

int
pp_native_syms_name(pp_native_syms *s, uint64_t ip, char *buf, size_t size)
{
    size_t lo = 0, hi = s->maps.n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->maps.v[mid].start <= ip)
            lo = mid + 1;
        else
            hi = mid;
    }
    if (lo == 0 || ip >= s->maps.v[lo - 1].end)
        return 0;
    const pp_native_mapping *x = &s->maps.v[lo - 1];
    native_module *m = module_open(&s->mods[x->module]);
    uint64_t foff = ip - x->start + x->offset, vaddr, off;
    const char *fn = NULL;
    if (m->state == R2R_OK && (fn = pp_native_r2r_lookup(m->r2r, foff, &off)) != NULL) {
        /* A managed method: named as the runtime's method events name it. */
        snprintf(buf, size, "%s", fn);
        return 1;
    }
    if (m->state == ELF_OK && pp_native_elf_offset_to_vaddr(m->elf, foff, &vaddr))
        fn = pp_native_elf_lookup(m->elf, vaddr, &off);
    if (fn) {
        /* No offset: samples aggregate per function, as managed frames do. */
        snprintf(buf, size, "%s!%s", m->base, fn);
        return 1;
    }
    snprintf(buf, size, "%s!?%s+0x%" PRIx64, m->base,
             m->state == BUILD_ID_DIFFERS ? "(build-id mismatch)" :
             m->state == MISSING          ? "(file missing)" :
             m->state == UNKNOWN_FORMAT   ? "(not ELF or ReadyToRun)" :
                                            "",
             foff);
    return 2;
}

void
pp_native_syms_free(pp_native_syms *s)
{
    if (!s)
        return;
    for (size_t i = 0; i < s->nmods; i++) {
        pp_native_elf_close(s->mods[i].elf);
        pp_native_r2r_close(s->mods[i].r2r);
    }
    free(s->mods);
    pp_native_maps_free(&s->maps);
    free(s);
}
