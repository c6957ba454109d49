/* Build identity of the traced application's modules (modident.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/nettrace.h>

#include "nettrace/landing.h"
#include "nettrace/modident.h"

void
pp_nt_guid_text(const uint8_t g[16], char *out)
{
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3],
             g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13],
             g[14], g[15]);
}

static int
module_event(const pp_trace_event *ev)
{
    if (ev->provider_known == PP_PROVIDER_RUNTIME)
        return ev->event_id == 152 || ev->event_id == 153; /* ModuleLoad, ModuleUnload */
    if (ev->provider_known == PP_PROVIDER_RUNDOWN)
        return ev->event_id == 153 || ev->event_id == 154; /* ModuleDCStart, DCEnd */
    return 0;
}

static pp_nt_modid *
find(const pp_nt_modident *m, const char *path)
{
    for (size_t i = 0; i < m->n; i++)
        if (strcmp(m->mods[i].path, path) == 0)
            return &m->mods[i];
    return NULL;
}

static pp_nt_modid *
append(pp_nt_modident *m)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 32;
        pp_nt_modid *g = realloc(m->mods, cap * sizeof *g);
        if (g == NULL)
            return NULL;
        m->mods = g;
        m->cap = cap;
    }
    memset(&m->mods[m->n], 0, sizeof m->mods[0]);
    return &m->mods[m->n++];
}

void
pp_nt_modident_observe(pp_nt_modident *m, const pp_trace_event *ev)
{
    pp_value v;
    pp_nt_modid *d;
    int rc;

    if (!module_event(ev))
        return;
    if ((rc = pp_nettrace_field(ev, "ModuleILPath", &v)) == PP_ENOMEM)
        m->oom = 1;
    if (rc != PP_OK || v.type != PP_VALUE_STRING || v.v.s[0] == '\0')
        return;
    /* A module loads once per process; the load and the rundown name it alike. */
    if ((d = find(m, v.v.s)) != NULL && d->has_pdb)
        return;
    if (d == NULL) {
        char *path = strdup(v.v.s);
        if (path == NULL || (d = append(m)) == NULL) {
            free(path);
            m->oom = 1;
            return;
        }
        d->path = path;
    }
    if (pp_nettrace_field(ev, "ManagedPdbSignature", &v) == PP_OK && v.type == PP_VALUE_GUID) {
        memcpy(d->guid, v.v.g.bytes, 16);
        d->has_pdb = 1;
        if (pp_nettrace_field(ev, "ManagedPdbAge", &v) == PP_OK && v.type == PP_VALUE_UINT)
            d->age = (uint32_t)v.v.u;
        if (pp_nettrace_field(ev, "ManagedPdbBuildPath", &v) == PP_OK &&
            v.type == PP_VALUE_STRING) {
            free(d->build_path);
            if ((d->build_path = strdup(v.v.s)) == NULL)
                m->oom = 1;
        }
    }
}

void
pp_nt_modident_merge(pp_nt_modident *m, pp_nt_modident *later)
{
    for (size_t i = 0; i < later->n; i++) {
        pp_nt_modid *s = &later->mods[i], *d = find(m, s->path);

        if (d != NULL && (d->has_pdb || !s->has_pdb))
            continue;
        if (d == NULL && (d = append(m)) == NULL) {
            m->oom = 1;
            continue;
        }
        free(d->path);
        free(d->build_path);
        *d = *s;
        memset(s, 0, sizeof *s);
    }
    m->oom |= later->oom;
    pp_nt_modident_free(later);
}

/* PERFPIPE_BUILD_CHECK=off leaves the files alone: a result then depends
 * on the trace only, not on what this machine holds (the test suite sets
 * it; an archived trace read where its build dir was reused). */
int
pp_nt_build_files_checked(void)
{
    const char *e = getenv("PERFPIPE_BUILD_CHECK");

    return e == NULL || strcmp(e, "off") != 0;
}

/* The file as it is now against the identity the process reported: adds
 * `file` to o. 0: the build that ran (or nothing to tell); else, with why,
 * STALE when the file changed before the trace ended (the process started
 * before it), LATER when it was written after the trace ended. */
enum { FRESH = 0, STALE = 1, LATER = 2 };

static int
check_file(const pp_nt_modid *d, int64_t start_ns, int64_t end_ns, json_t *o, char *why,
           size_t size)
{
    struct stat st;
    pp_nt_pe_identity pe;
    char g[37];
    json_t *f;
    int stale = 0, matched = 0;

    why[0] = '\0';
    if (!pp_nt_build_files_checked() || (f = json_object()) == NULL)
        return 0;
    if (stat(d->path, &st) != 0) {
        json_object_set_new(f, "exists", json_false());
        json_object_set_new(o, "file", f);
        return 0;
    }
    int64_t mtime = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
    json_object_set_new(f, "exists", json_true());
    json_object_set_new(f, "mtime_unix_ns", json_integer(mtime));
    int rc = pp_nt_pe_identity_read(d->path, &pe);
    if (rc == PP_NT_PE_OK) {
        pp_nt_guid_text(pe.guid, g);
        json_object_set_new(f, "pdb_guid", json_string(g));
        json_object_set_new(f, "pdb_age", json_integer(pe.age));
        if (d->has_pdb) {
            int same = memcmp(pe.guid, d->guid, 16) == 0 && pe.age == d->age;
            json_object_set_new(f, "same_build", json_boolean(same));
            matched = same;
            if (!same) {
                stale = 1;
                snprintf(why, size, "its file now holds build %s, not the build the process ran",
                         g);
            }
        }
    } else {
        json_object_set_new(
            f, "identity",
            json_string(rc == PP_NT_PE_NODEBUG ? "no CodeView entry" : "not a readable PE file"));
    }
    if (start_ns > 0) {
        int newer = mtime > start_ns;
        json_object_set_new(f, "newer_than_trace_start", json_boolean(newer));
        /* A file rewritten with the same identity (a deterministic build of
         * the same sources) is the build that ran: time decides only where
         * the identity cannot. */
        if (newer && !stale && !matched) {
            stale = 1;
            snprintf(why, size, "its file was written %.0f s after the trace started",
                     (double)(mtime - start_ns) / 1e9);
        }
    }
    json_object_set_new(o, "file", f);
    return !stale ? FRESH : end_ns > 0 && mtime > end_ns ? LATER : STALE;
}

int
pp_nt_modident_describe(const pp_nt_modident *m, const char *command_line, const char *runtime_dll,
                        int64_t start_ns, int64_t end_ns, json_t *nettrace, char *warning,
                        size_t size)
{
    pp_lands_app app;
    char name[256], g[37], why[160], stale_names[512] = "", first_why[200] = "";
    size_t nstale = 0;
    int worst = FRESH;
    json_t *list;
    const char *reason;

    warning[0] = '\0';
    if (m->n == 0)
        return 0;
    /* As modules.c classifies: the app's dir is that of the module the
     * command line names. */
    pp_lands_app_init(&app, command_line, runtime_dll);
    for (size_t i = 0; app.name[0] != '\0' && i < m->n; i++) {
        const char *path = m->mods[i].path;

        pp_lands_module_name(path, name, sizeof name);
        if (strcmp(name, app.name) == 0 &&
            (path[0] == '/' || (path[0] != '\0' && path[1] == ':'))) {
            pp_lands_dir_of(path, app.dir, sizeof app.dir);
            break;
        }
    }
    if ((list = json_array()) == NULL)
        return 0;
    for (size_t i = 0; i < m->n; i++) {
        const pp_nt_modid *d = &m->mods[i];

        pp_lands_module_name(d->path, name, sizeof name);
        if (pp_lands_classify(&app, d->path, name, &reason) != PP_LANDS_APPLICATION)
            continue;
        json_t *o = json_pack("{s:s,s:s}", "name", name, "path", d->path);
        if (o == NULL)
            continue;
        if (d->has_pdb) {
            pp_nt_guid_text(d->guid, g);
            json_object_set_new(o, "pdb_guid", json_string(g));
            json_object_set_new(o, "pdb_age", json_integer(d->age));
            json_object_set_new(o, "build_path", json_string(d->build_path ? d->build_path : ""));
        }
        int k = check_file(d, start_ns, end_ns, o, why, sizeof why);
        json_array_append_new(list, o);
        if (k == FRESH || (k == LATER && worst == STALE))
            continue;
        if (k != worst) { /* the first module of the worse kind speaks */
            worst = k;
            nstale = 0;
            stale_names[0] = '\0';
        }
        if (nstale++ == 0) {
            snprintf(first_why, sizeof first_why, "%.60s: %.130s", name, why);
        } else {
            size_t used = strlen(stale_names);
            snprintf(stale_names + used, sizeof stale_names - used, "%s%s", used ? ", " : "", name);
        }
    }
    json_object_set_new(nettrace, "modules", list);
    if (worst == STALE)
        snprintf(warning, size,
                 "the traced process started before its assembly was rebuilt (%s%s%s): the trace "
                 "measured the old build, so its frames, PDB lines and landing points may name "
                 "code that is no longer there. Restart the process on the current build and "
                 "capture again (or check out the build the trace ran before reading its source)",
                 first_why, nstale > 1 ? "; stale too: " : "", nstale > 1 ? stale_names : "");
    else if (worst == LATER)
        snprintf(warning, size,
                 "the application was rebuilt after this trace was taken (%s%s%s): the trace "
                 "measured the build before it, which is right for a before/after comparison, "
                 "but PDB lines and sources read from disk now may not match its frames (check "
                 "out the measured build before reading its source)",
                 first_why, nstale > 1 ? "; also: " : "", nstale > 1 ? stale_names : "");
    return worst;
}

void
pp_nt_modident_free(pp_nt_modident *m)
{
    for (size_t i = 0; i < m->n; i++) {
        free(m->mods[i].path);
        free(m->mods[i].build_path);
    }
    free(m->mods);
    memset(m, 0, sizeof *m);
}
