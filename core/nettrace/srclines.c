/* Source lines of managed frames (issue #42): native IP -> the method's
 * IL-to-native map (ilmap.c) -> IL offset -> the sequence point of the
 * module's portable PDB (core/pdb). The PDB is the one embedded in the
 * assembly at ModuleILPath, else NAME.pdb beside it, else in a directory of
 * PERFPIPE_SYMBOL_PATH (':'-separated; the assembly too is looked for there
 * when the trace's path does not exist on this machine); it is used
 * only when its id equals the trace's ManagedPdbSignature (or, for a trace
 * without one, the assembly's CodeView id). Framework modules are never
 * searched: their frames stay method-only. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/modident.h"
#include "nettrace/nettrace_internal.h"
#include "pdb/pdb.h"

#define MAP_KEYWORD_HINT                                                                           \
    "capture with Microsoft-Windows-DotNETRuntime keyword 0x20000 "                                \
    "(JittedMethodILToNativeMap) at level 5, or keep the rundown (its default keywords carry the maps)"

static uint8_t *
read_file(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        n = ftell(f);
    uint8_t *b = n > 0 && (unsigned long)n <= PP_PDB_MAX_FILE && fseek(f, 0, SEEK_SET) == 0 ?
                     malloc((size_t)n) :
                     NULL;
    if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
        free(b);
        b = NULL;
    }
    fclose(f);
    *len = b ? (size_t)n : 0;
    return b;
}

static void
set_why(nt_module *mod, const char *fmt, const char *a, const char *b, const char *c)
{
    char msg[PP_ERROR_MESSAGE_MAX + 256];
    snprintf(msg, sizeof msg, fmt, a, b, c);
    free(mod->pdb_why);
    mod->pdb_why = strdup(msg); /* NULL: told as out of memory (nt_source_string) */
}

/* Takes pdb; keeps it when its id is want's, else refuses it by both ids. */
static int
accept(nt_module *mod, pp_pdb *pdb, const uint8_t want[16], const char *where)
{
    pp_error err = PP_ERROR_INIT;
    if (pp_pdb_check_id(pdb, want, &err) != PP_OK) {
        char have[37], exp[37];
        pp_pdb_guid_text(pdb->md.pdb_id, have);
        pp_pdb_guid_text(want, exp);
        pp_pdb_close(pdb);
        set_why(mod,
                "PDB %s refused: its id %s is not the trace's %s (a PDB of another build; "
                "no line is taken from it)",
                where, have, exp);
        return 0;
    }
    mod->pdb = pdb;
    mod->pdb_state = 1;
    return 1;
}

static int
try_file(nt_module *mod, const char *path, const uint8_t want[16])
{
    pp_pdb *pdb;
    if (access(path, R_OK) != 0 || pp_pdb_open_file(path, &pdb, NULL) != PP_OK)
        return 0;
    return accept(mod, pdb, want, path);
}

/* Beside the assembly, then each PERFPIPE_SYMBOL_PATH directory. */
static void
search_files(nt_module *mod, const char *pdb_name, const uint8_t want[16])
{
    char path[4096];
    const char *slash = pp_nt_build_files_checked() ? strrchr(mod->path, '/') : NULL;
    if (slash) {
        snprintf(path, sizeof path, "%.*s/%s", (int)(slash - mod->path), mod->path, pdb_name);
        if (try_file(mod, path, want))
            return;
    }
    const char *sp = getenv("PERFPIPE_SYMBOL_PATH");
    while (sp && *sp) {
        size_t n = strcspn(sp, ":");
        if (n) {
            snprintf(path, sizeof path, "%.*s/%s", (int)n, sp, pdb_name);
            if (try_file(mod, path, want))
                return;
        }
        sp += n + (sp[n] == ':');
    }
}

static void
open_pdb(pp_trace_source *r, nt_module *mod)
{
    mod->pdb_state = -1;
    if (!strcmp(nt_module_string(r, mod->id, PP_SYM_MODULE_CLASS), "framework")) {
        set_why(mod, "no PDB: a framework module (%s): its frames stay method-only", mod->name, "",
                "");
        return;
    }
    size_t len;
    /* PERFPIPE_BUILD_CHECK=off: not the file the trace names, only a copy
     * in the symbol path the user gave. */
    uint8_t *dll = mod->path[0] && pp_nt_build_files_checked() ? read_file(mod->path, &len) : NULL;
    /* Not where the trace saw it (another machine): a copy in the symbol path. */
    const char *sp = getenv("PERFPIPE_SYMBOL_PATH"), *file = strrchr(mod->path, '/');
    while (!dll && file && sp && *sp) {
        char path[4096];
        size_t n = strcspn(sp, ":");
        snprintf(path, sizeof path, "%.*s/%s", (int)n, sp, file + 1);
        dll = n ? read_file(path, &len) : NULL;
        sp += n + (sp[n] == ':');
    }
    pp_pe_info pe;
    int have_pe = dll && pp_pe_read(dll, len, &pe, NULL) == PP_OK;
    const uint8_t *want = mod->has_pdb_sig           ? mod->pdb_guid :
                          have_pe && pe.has_codeview ? pe.guid :
                                                       NULL;
    set_why(mod,
            "no PDB for %s: none embedded in %s, none beside it or in a PERFPIPE_SYMBOL_PATH "
            "directory (set it to the build's output directory)",
            mod->name, mod->path[0] ? mod->path : "(no path in the trace)", "");
    if (!want) {
        set_why(mod, "no PDB for %s: the trace has no PDB id for it and %s cannot be read",
                mod->name, mod->path[0] ? mod->path : "(no path)", "");
    } else if (have_pe && pe.embedded) {
        uint8_t *buf;
        size_t n;
        pp_pdb *pdb;
        if (pp_pe_inflate_pdb(&pe, &buf, &n, NULL) == PP_OK &&
            pp_pdb_open_memory(buf, n, 1, &pdb, NULL) == PP_OK)
            accept(mod, pdb, want, "embedded in the assembly");
    }
    if (want && mod->pdb_state != 1) {
        char name[PP_PDB_PATH_MAX + 8];
        const char *from = have_pe && pe.pdb_path[0]                     ? pe.pdb_path :
                           mod->pdb_build_path && mod->pdb_build_path[0] ? mod->pdb_build_path :
                                                                           NULL;
        const char *base = from ? strrchr(from, '/') : NULL;
        if (base)
            snprintf(name, sizeof name, "%s", base + 1);
        else if (from && !strchr(from, '\\'))
            snprintf(name, sizeof name, "%s", from);
        else
            snprintf(name, sizeof name, "%s.pdb", mod->name);
        search_files(mod, name, want);
    }
    if (mod->pdb_state != 1 && have_pe && pe.ready_to_run && mod->pdb_why &&
        !strncmp(mod->pdb_why, "no PDB for", 10))
        set_why(mod, "no PDB: %s is ReadyToRun code without a PDB", mod->name, "", "");
    free(dll);
}

/* file relative to the nearest directory above it holding .git, when the
 * file is on this machine; else file. */
static void
project_relative(const char *file, char *out, size_t cap)
{
    char dir[PP_PDB_PATH_MAX], probe[PP_PDB_PATH_MAX + 8];
    snprintf(out, cap, "%s", file);
    if (file[0] != '/' || access(file, R_OK) != 0)
        return;
    snprintf(dir, sizeof dir, "%s", file);
    for (char *slash = strrchr(dir, '/'); slash && slash > dir; slash = strrchr(dir, '/')) {
        *slash = '\0';
        snprintf(probe, sizeof probe, "%s/.git", dir);
        if (access(probe, F_OK) == 0) {
            snprintf(out, cap, "%s", file + strlen(dir) + 1);
            return;
        }
    }
}

/* s kept for the trace's life (and in cache at ip), or NULL for want of
 * memory: told as such by pp_nettrace_symbolize, never as "no line". */
static const char *
keep(pp_trace_source *r, pp_u64map *cache, uint64_t ip, const char *s)
{
    char **g = nt_grow(r->source_strings, &r->source_strings_cap, r->nsource_strings + 1,
                       sizeof *g);
    if (!g)
        return NULL;
    r->source_strings = g;
    char *p = strdup(s);
    if (!p)
        return NULL;
    g[r->nsource_strings++] = p;
    if (cache && pp_u64map_put(cache, ip, (uint64_t)(uintptr_t)p) < 0)
        return NULL;
    return p;
}

const char *
nt_source_string(pp_trace_source *r, const nt_method *m, uint64_t ip, uint32_t flags)
{
    int why = (flags & PP_SYM_SOURCE_WHY) != 0;
    if (!m)
        return why ? "no managed method at this address" : "";
    const uint64_t *at = pp_u64map_get(&r->module_index, m->module_id);
    nt_module *mod = at ? &r->modules[*at] : NULL;
    if (!mod)
        return why ? "the trace has no load or rundown event for the method's module" : "";
    int caller = (flags & PP_SYM_CALLER) != 0;
    /* A return address is the instruction after the call: its line may be
     * the next statement's, so the byte before it is looked up. */
    uint32_t off = (uint32_t)(ip - m->start);
    if (caller && off > 0)
        off--;
    /* The map first: a missing keyword is the fix to tell, PDB or not. */
    int32_t il;
    if (nt_ilmap_il_offset(r, m->method_id, off, &il) != PP_OK)
        return why ? "no IL-to-native map for the method: " MAP_KEYWORD_HINT : "";
    if (mod->pdb_state == 0)
        open_pdb(r, mod);
    if (mod->pdb_state != 1) /* a reason lost for want of memory is not "no reason" */
        return why ? mod->pdb_why : "";
    uint64_t *hit = why ? NULL : pp_u64map_get(&r->source_cache[caller], ip);
    if (hit)
        return (const char *)(uintptr_t)*hit;
    pp_source_line sl;
    pp_error err = PP_ERROR_INIT;
    char text[PP_PDB_PATH_MAX + 32], rel[PP_PDB_PATH_MAX];
    if (!m->token || pp_pdb_lookup(mod->pdb, m->token, il, &sl, &err) != PP_OK) {
        if (!why)
            return keep(r, &r->source_cache[caller], ip, "");
        snprintf(text, sizeof text, "no source line: %s",
                 m->token ? err.message : "the trace names no method token");
        return keep(r, NULL, 0, text);
    }
    if (why)
        return "";
    project_relative(sl.file, rel, sizeof rel);
    snprintf(text, sizeof text, "%s:%u", rel, sl.line);
    return keep(r, &r->source_cache[caller], ip, text);
}

void
nt_srclines_free(pp_trace_source *r)
{
    for (size_t i = 0; i < r->nmodules; i++) {
        pp_pdb_close(r->modules[i].pdb);
        free(r->modules[i].pdb_why);
        r->modules[i].pdb = NULL;
        r->modules[i].pdb_why = NULL;
        r->modules[i].pdb_state = 0;
    }
    pp_u64map_free(&r->source_cache[0]);
    pp_u64map_free(&r->source_cache[1]);
    for (size_t i = 0; i < r->nsource_strings; i++)
        free(r->source_strings[i]);
    free(r->source_strings);
    r->source_strings = NULL;
    r->nsource_strings = r->source_strings_cap = 0;
}
