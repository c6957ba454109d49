/* The module map: which assembly file each method belongs to, from
 * ModuleLoad/ModuleUnload and rundown ModuleDCStart/DCEnd events (a method
 * event carries its ModuleID), classified in landing.c as application,
 * package or framework: where a fix of that method lands. Modules are few (a
 * web app loads about 150), so a flat array and a u64 map suffice. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include "nettrace/nettrace_internal.h"
#include "nettrace/landing.h"

/* V2's ManagedPdbSignature, Age and BuildPath, after ModuleNativePath and
 * ClrInstanceID; absent or damaged, the module has no PDB id. */
static void
read_pdb_sig(nt_module *m, const uint8_t *p, size_t n)
{
    char *s = NULL;
    size_t cap = 0, len;
    int64_t k = nt_utf16z_to_utf8(p, n, &s, &cap, &len);
    free(s);
    s = NULL;
    if (k < 0 || n - (size_t)k < 2 + 16 + 4 + 2)
        return;
    p += k + 2;
    n -= (size_t)k + 2;
    memcpy(m->pdb_guid, p, 16);
    m->pdb_age = nt_rd32(p + 16);
    cap = 0;
    if (nt_utf16z_to_utf8(p + 20, n - 20, &s, &cap, &len) >= 0)
        m->pdb_build_path = s ? s : strdup("");
    else
        free(s);
    static const uint8_t zero[16];
    m->has_pdb_sig = memcmp(m->pdb_guid, zero, 16) != 0;
}

int
nt_modules_add(pp_trace_source *r, const pp_trace_event *ev)
{
    const uint8_t *p = ev->payload;
    size_t n = ev->payload_size;
    char *buf = NULL, name[256];
    size_t cap = 0, len = 0;

    /* ModuleID u64, AssemblyID u64, ModuleFlags u32, Reserved1 u32,
     * ModuleILPath and ModuleNativePath in UTF-16 (V0..V2 alike). */
    if (n < 24 + 2)
        return 0;
    uint64_t id = nt_rd64(p);
    if (id == 0 || pp_u64map_get(&r->module_index, id) != NULL)
        return 0; /* the load and the rundown name it alike */
    int64_t il_len = nt_utf16z_to_utf8(p + 24, n - 24, &buf, &cap, &len);
    if (il_len < 0) {
        free(buf);
        return 0; /* a damaged path loses the module only */
    }
    nt_module *m = nt_grow(r->modules, &r->modules_cap, r->nmodules + 1, sizeof *m);
    if (!m) {
        free(buf);
        return -1;
    }
    r->modules = m;
    pp_lands_module_name(buf ? buf : "", name, sizeof name);
    m = &r->modules[r->nmodules];
    m->id = id;
    m->path = buf ? buf : strdup("");
    m->name = strdup(name);
    m->cls = -1;
    m->why = NULL;
    m->has_pdb_sig = 0;
    m->pdb_build_path = NULL;
    m->pdb_state = 0;
    m->pdb = NULL;
    m->pdb_why = NULL;
    read_pdb_sig(m, p + 24 + il_len, n - 24 - (size_t)il_len);
    if (!m->path || !m->name || pp_u64map_put(&r->module_index, id, r->nmodules) < 0) {
        free(m->path);
        free(m->name);
        return -1;
    }
    r->nmodules++;
    return 0;
}

/* Classify every module; the app's dir is the dir of the module the command
 * line names, when the command line gave no absolute path. */
static void
classify(pp_trace_source *r)
{
    pp_lands_app app;

    pp_lands_app_init(&app, r->proc.command_line, r->proc.runtime_dll);
    if (app.name[0] != '\0')
        for (size_t i = 0; i < r->nmodules; i++)
            if (strcmp(r->modules[i].name, app.name) == 0 &&
                (r->modules[i].path[0] == '/' ||
                 (r->modules[i].path[0] != '\0' && r->modules[i].path[1] == ':'))) {
                pp_lands_dir_of(r->modules[i].path, app.dir, sizeof app.dir);
                break;
            }
    for (size_t i = 0; i < r->nmodules; i++)
        r->modules[i].cls = (int)pp_lands_classify(&app, r->modules[i].path, r->modules[i].name,
                                                   &r->modules[i].why);
    r->modules_classified = r->nmodules;
}

const char *
nt_module_string(pp_trace_source *r, uint64_t module_id, uint32_t flags)
{
    const uint64_t *at = module_id ? pp_u64map_get(&r->module_index, module_id) : NULL;
    const nt_module *m = at ? &r->modules[*at] : NULL;

    if (flags & (PP_SYM_MODULE_CLASS | PP_SYM_MODULE_WHY)) {
        if (m != NULL && r->modules_classified != r->nmodules)
            classify(r);
        if (flags & PP_SYM_MODULE_CLASS)
            return pp_lands_class_name(m ? (pp_lands_class)m->cls : PP_LANDS_UNKNOWN);
        return m         ? m->why :
               module_id ? "the trace has no load or rundown event for the method's module" :
                           "the trace names no method at this address (no method rundown)";
    }
    if (m == NULL)
        return "";
    return (flags & PP_SYM_MODULE_PATH) ? m->path : m->name;
}

void
nt_modules_free(pp_trace_source *r)
{
    for (size_t i = 0; i < r->nmodules; i++) {
        free(r->modules[i].path);
        free(r->modules[i].name);
        free(r->modules[i].pdb_build_path);
    }
    free(r->modules);
    r->modules = NULL;
    r->nmodules = r->modules_cap = r->modules_classified = 0;
    pp_u64map_free(&r->module_index);
}
