/* Finding analyzer plugins by name and checking their descriptors. */
#include "config.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "engine/host.h"
#include "loader.h"
#include "registry/kinds.h"
#include "loader_probe.h"
#include "paths.h"

/* A plugin asked for by name: loaded, or refused (then `refusal` says why
 * and `standin` is made on demand). */
typedef struct loaded {
    char *name;
    char *path;
    void *handle;
    const pp_analyzer *analyzer;
    char *refusal;
    int broken;
    pp_analyzer *standin;
} loaded;

struct pp_loader {
    char **dirs;
    size_t ndirs;
    loaded *plugins;
    size_t nplugins;
    uint32_t probe_s; /* 0: load in process without a probe */
    void (*warn_writable)(const char *line);
    int refuse_writable;
};

pp_loader *
pp_loader_new(void)
{
    pp_loader *l = calloc(1, sizeof(pp_loader));

    if (l != NULL)
        l->probe_s = PP_LOADER_PROBE_TIMEOUT_DEFAULT;
    return l;
}

void
pp_loader_set_probe(pp_loader *l, uint32_t limit_s)
{
    l->probe_s = limit_s;
}

void
pp_loader_set_writable_policy(pp_loader *l, void (*warn)(const char *line), int refuse)
{
    l->warn_writable = warn;
    l->refuse_writable = refuse;
}

/* Whether path or its directory may be written by every user (another
 * user could replace the code): PP_OK, a warning said, or
 * PP_EPLUGIN when such plugins are refused. */
static int
check_writable(const pp_loader *l, const char *path, const struct stat *st, pp_error *err)
{
    const char *slash = strrchr(path, '/');
    char dir[4096], line[PP_ERROR_MESSAGE_MAX];
    struct stat ds;
    const char *who = NULL;

    snprintf(dir, sizeof dir, "%.*s",
             slash == NULL ? 1 :
             slash == path ? 1 :
                             (int)(slash - path),
             slash == NULL ? "." : path);
    if (st->st_mode & S_IWOTH)
        who = path;
    else if (stat(dir, &ds) == 0 && (ds.st_mode & S_IWOTH))
        who = dir;
    if (who == NULL)
        return PP_OK;
    snprintf(line, sizeof line,
             "%.200s: writable by every user (anyone could put code into the "
             "run): chmod o-w %.200s",
             who, who);
    if (l->refuse_writable) {
        pp_error_set(err, PP_EPLUGIN,
                     "%s; refused when running as root "
                     "(PERFPIPE_ALLOW_WRITABLE_PLUGINS=1 loads it anyway)",
                     line);
        return PP_EPLUGIN;
    }
    if (l->warn_writable != NULL)
        l->warn_writable(line);
    return PP_OK;
}

void
pp_loader_free(pp_loader *l)
{
    if (l == NULL)
        return;
    for (size_t i = 0; i < l->ndirs; i++)
        free(l->dirs[i]);
    free(l->dirs);
    for (size_t i = 0; i < l->nplugins; i++) {
        free(l->plugins[i].name);
        free(l->plugins[i].path);
        free(l->plugins[i].refusal);
        free(l->plugins[i].standin);
        /* Handles stay open until here so plugin strings outlive the run;
         * PERFPIPE_NO_DLCLOSE keeps them for sanitizer symbolization. */
        if (l->plugins[i].handle != NULL && getenv("PERFPIPE_NO_DLCLOSE") == NULL)
            dlclose(l->plugins[i].handle);
    }
    free(l->plugins);
    free(l);
}

int
pp_loader_add_dir(pp_loader *l, const char *dir, pp_error *err)
{
    char **dirs;
    char *copy;

    if (dir == NULL || dir[0] == '\0')
        return PP_OK;
    copy = strdup(dir);
    dirs = realloc(l->dirs, (l->ndirs + 1) * sizeof *dirs);
    if (copy == NULL || dirs == NULL) {
        free(copy);
        if (dirs != NULL)
            l->dirs = dirs;
        pp_error_set(err, PP_ENOMEM, "out of memory adding plugin directory");
        return PP_ENOMEM;
    }
    l->dirs = dirs;
    l->dirs[l->ndirs++] = copy;
    return PP_OK;
}

int
pp_loader_add_defaults(pp_loader *l, pp_error *err)
{
    /* The order and the privilege rule live in paths.c, shared with
     * `perfpipe plugins` and the build-tree detection. */
    char *dirs[64];
    int n = pp_plugin_default_dirs(dirs, sizeof dirs / sizeof dirs[0], err);
    int rc = n < 0 ? PP_ENOMEM : PP_OK;

    for (int i = 0; i < n; i++) {
        if (rc == PP_OK)
            rc = pp_loader_add_dir(l, dirs[i], err);
        free(dirs[i]);
    }
    return rc;
}

size_t
pp_loader_dir_count(const pp_loader *l)
{
    return l->ndirs;
}

const char *
pp_loader_dir(const pp_loader *l, size_t i)
{
    return i < l->ndirs ? l->dirs[i] : NULL;
}

/* Open path and check it, in a probe's child first when l says so; on
 * success *handle and *out are set; on PP_EPLUGIN *broken says whether the
 * probe saw it crash, exit, loop or print. */
static int
open_plugin(const pp_loader *l, const char *path, const char *name, void **handle,
            const pp_analyzer **out, int *broken, pp_error *err)
{
    struct stat st;
    void *h;
    union {
        void *obj;
        pp_plugin_entry_fn fn;
    } entry;
    const pp_analyzer *d;
    int rc;

    *broken = 0;
    if (lstat(path, &st) != 0) {
        pp_error_set(err, PP_ENOTFOUND, "%s: %s", path, strerror(errno));
        return PP_ENOTFOUND;
    }
    if (!S_ISREG(st.st_mode)) {
        pp_error_set(err, PP_EPLUGIN, "%s: not a regular file (symbolic links are not followed)",
                     path);
        return PP_EPLUGIN;
    }
    if ((rc = check_writable(l, path, &st, err)) != PP_OK)
        return rc;
    /* No child to probe in (fork refused): load in process as before. */
    if (l->probe_s > 0 && (rc = pp_loader_probe(path, name, l->probe_s, broken, err)) != PP_OK &&
        rc != PP_EIO)
        return rc;
    dlerror();
    h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *why = dlerror();
        pp_error_set(err, PP_EPLUGIN,
                     "%s: cannot load: %s (is it a shared object built for this "
                     "machine? `ldd %s` shows missing libraries)",
                     path, why != NULL ? why : "unknown error", path);
        return PP_EPLUGIN;
    }
    dlerror();
    entry.obj = dlsym(h, PP_PLUGIN_ENTRY_SYMBOL);
    if (entry.obj == NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s: no %s symbol: not a perfpipe plugin", path,
                     PP_PLUGIN_ENTRY_SYMBOL);
        dlclose(h);
        return PP_EPLUGIN;
    }
    d = entry.fn();
    if ((rc = pp_plugin_check(d, name, path, err)) != PP_OK) {
        dlclose(h);
        return rc;
    }
    *handle = h;
    *out = d;
    return PP_OK;
}

static loaded *
find_loaded(pp_loader *l, const char *name)
{
    for (size_t i = 0; i < l->nplugins; i++)
        if (strcmp(l->plugins[i].name, name) == 0)
            return &l->plugins[i];
    return NULL;
}

static int
valid_name(const char *name)
{
    if (name[0] == '\0' || name[0] == '.')
        return 0;
    for (const char *p = name; *p; p++)
        if (*p == '/')
            return 0;
    return 1;
}

static char *
join(const char *dir, const char *file, const char *suffix)
{
    size_t n = strlen(dir) + strlen(file) + strlen(suffix) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s%s", dir, file, suffix);
    return p;
}

/* Remember name at path: loaded (handle, d) or refused (why). Takes path. */
static loaded *
remember(pp_loader *l, const char *name, char *path, void *handle, const pp_analyzer *d,
         const pp_error *why, int broken, pp_error *err)
{
    loaded *grown = realloc(l->plugins, (l->nplugins + 1) * sizeof *grown), *e;

    if (grown != NULL)
        l->plugins = grown;
    e = grown != NULL ? &grown[l->nplugins] : NULL;
    if (e != NULL) {
        memset(e, 0, sizeof *e);
        e->name = strdup(name);
        e->refusal = why != NULL ? strdup(why->message) : NULL;
    }
    if (e == NULL || e->name == NULL || (why != NULL && e->refusal == NULL)) {
        if (e != NULL) {
            free(e->name);
            free(e->refusal);
        }
        if (handle != NULL)
            dlclose(handle);
        free(path);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return NULL;
    }
    e->path = path;
    e->handle = handle;
    e->analyzer = d;
    e->broken = broken;
    l->nplugins++;
    return e;
}

const pp_analyzer *
pp_loader_get(pp_loader *l, const char *name, pp_error *err)
{
    loaded *have = find_loaded(l, name);
    void *handle = NULL;
    const pp_analyzer *d = NULL;

    if (have != NULL && have->refusal != NULL) {
        pp_error_set(err, PP_EPLUGIN, "%s", have->refusal);
        return NULL;
    }
    if (have != NULL)
        return have->analyzer;
    if (!valid_name(name)) {
        pp_error_set(err, PP_EINVAL, "'%s' is not an analyzer name", name);
        return NULL;
    }
    for (size_t i = 0; i < l->ndirs; i++) {
        char *path = join(l->dirs[i], name, ".so");
        struct stat st;
        int rc, broken = 0;

        if (path == NULL) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            return NULL;
        }
        if (lstat(path, &st) != 0) {
            free(path);
            continue;
        }
        rc = open_plugin(l, path, name, &handle, &d, &broken, err);
        if (rc == PP_EPLUGIN) {
            /* Refused: asked again (or for a stand-in), it says the same. */
            pp_error why = *err;

            remember(l, name, path, NULL, NULL, &why, broken, err);
            *err = why;
            return NULL;
        }
        if (rc != PP_OK) {
            free(path);
            return NULL;
        }
        return remember(l, name, path, handle, d, NULL, 0, err) != NULL ? d : NULL;
    }
    {
        char dirs[PP_ERROR_MESSAGE_MAX / 2] = "";
        size_t used = 0;

        for (size_t i = 0; i < l->ndirs && used < sizeof dirs - 1; i++) {
            int n = snprintf(dirs + used, sizeof dirs - used, "%s%s", i ? ":" : "", l->dirs[i]);
            if (n < 0)
                break;
            used += (size_t)n;
        }
        pp_error_set(err, PP_ENOTFOUND,
                     "no analyzer '%s' (looked for %s.so in %s); `perfpipe plugins` lists "
                     "what is installed, --plugin-dir DIR adds a directory",
                     name, name, l->ndirs ? dirs : "no directory");
    }
    return NULL;
}

const pp_analyzer *
pp_loader_get_or_standin(pp_loader *l, const char *name, pp_error *err)
{
    const pp_analyzer *d = pp_loader_get(l, name, err);
    loaded *have;
    pp_analyzer *s;

    if (d != NULL || err == NULL || err->code != PP_EPLUGIN ||
        (have = find_loaded(l, name)) == NULL || have->refusal == NULL)
        return d;
    if (have->standin == NULL && (s = calloc(1, sizeof *s)) != NULL) {
        /* Host-made: every pointer is the loader's; create == NULL marks
         * it as never to be run. */
        s->struct_size = sizeof *s;
        s->abi_major = PP_ABI_MAJOR;
        s->abi_minor = PP_ABI_MINOR;
        s->name = have->name;
        s->version = "unloaded";
        s->summary = have->refusal;
        s->input_kinds = pp_input_kinds_all();
        s->flags = PP_ANALYZER_FLAG_STANDIN;
        have->standin = s;
    }
    return have->standin;
}

const char *
pp_loader_path_of(pp_loader *l, const char *name)
{
    loaded *have = find_loaded(l, name);

    return have != NULL ? have->path : NULL;
}

static int
compare_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void
pp_loader_scan(pp_loader *l, pp_candidate_fn fn, void *user)
{
    /* Names already provided by an earlier directory (shadowing). */
    char **seen = NULL;
    char **seen_path = NULL;
    size_t nseen = 0;

    for (size_t i = 0; i < l->ndirs; i++) {
        DIR *dir = opendir(l->dirs[i]);
        struct dirent *e;
        char **names = NULL;
        size_t nnames = 0;

        if (dir == NULL)
            continue;
        while ((e = readdir(dir)) != NULL) {
            size_t n = strlen(e->d_name);
            char **grown;

            if (n <= 3 || strcmp(e->d_name + n - 3, ".so") != 0)
                continue;
            grown = realloc(names, (nnames + 1) * sizeof *names);
            if (grown == NULL)
                break;
            names = grown;
            if ((names[nnames] = strndup(e->d_name, n - 3)) != NULL)
                nnames++;
        }
        closedir(dir);
        qsort(names, nnames, sizeof *names, compare_names);
        for (size_t k = 0; k < nnames; k++) {
            pp_plugin_candidate c = { 0 };
            pp_error err = PP_ERROR_INIT;
            char *path = join(l->dirs[i], names[k], ".so");
            char msg[PP_ERROR_MESSAGE_MAX];
            const char *earlier = NULL;
            void *handle = NULL;
            const pp_analyzer *d = NULL;

            if (path == NULL)
                continue;
            for (size_t s = 0; s < nseen; s++)
                if (strcmp(seen[s], names[k]) == 0)
                    earlier = seen_path[s];
            c.path = path;
            c.file_name = names[k];
            if (earlier != NULL) {
                snprintf(msg, sizeof msg,
                         "another plugin named '%s' comes first in the search "
                         "order: %s",
                         names[k], earlier);
                c.refusal = msg;
            } else {
                loaded *have = find_loaded(l, names[k]);
                int broken = 0;

                if (have != NULL && strcmp(have->path, path) == 0) {
                    c.analyzer = have->analyzer;
                    c.refusal = have->refusal;
                    c.broken = have->broken;
                } else if (open_plugin(l, path, names[k], &handle, &d, &broken, &err) == PP_OK) {
                    c.analyzer = d;
                } else {
                    c.refusal = err.message;
                    c.broken = broken;
                }
                {
                    char **g1 = realloc(seen, (nseen + 1) * sizeof *seen);
                    char **g2 = g1 ? realloc(seen_path, (nseen + 1) * sizeof *seen_path) : NULL;

                    if (g1 != NULL)
                        seen = g1;
                    if (g2 != NULL) {
                        seen_path = g2;
                        seen[nseen] = strdup(names[k]);
                        seen_path[nseen] = strdup(path);
                        if (seen[nseen] != NULL && seen_path[nseen] != NULL)
                            nseen++;
                        else {
                            free(seen[nseen]);
                            free(seen_path[nseen]);
                        }
                    }
                }
            }
            fn(user, &c);
            if (handle != NULL)
                dlclose(handle);
            free(path);
        }
        for (size_t k = 0; k < nnames; k++)
            free(names[k]);
        free(names);
    }
    for (size_t s = 0; s < nseen; s++) {
        free(seen[s]);
        free(seen_path[s]);
    }
    free(seen);
    free(seen_path);
}
