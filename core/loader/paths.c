/* Where plugins and pipelines are found: the environment, the user's
 * directories, then the installed ones, or the build tree's when perfpipe
 * runs from the tree it was built in. */
#include "config.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "paths.h"

char *
pp_path_join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* A setuid/setgid perfpipe must not take code or files named by the
 * caller's environment. */
static const char *
safe_getenv(const char *name)
{
    return getauxval(AT_SECURE) ? NULL : getenv(name);
}

/* Append the colon-separated directories of env to dirs; -1 when out of
 * memory. Empty elements are skipped. */
static int
add_list(const char *env, char **dirs, size_t max, size_t *n)
{
    char *copy, *save = NULL;

    if (env == NULL || env[0] == '\0')
        return 0;
    if ((copy = strdup(env)) == NULL)
        return -1;
    for (char *d = strtok_r(copy, ":", &save); d != NULL && *n < max;
         d = strtok_r(NULL, ":", &save)) {
        if ((dirs[*n] = strdup(d)) == NULL) {
            free(copy);
            return -1;
        }
        (*n)++;
    }
    free(copy);
    return 0;
}

static int
add_one(char *dir, char **dirs, size_t max, size_t *n)
{
    if (dir == NULL)
        return -1;
    if (*n >= max) {
        free(dir);
        return 0;
    }
    dirs[(*n)++] = dir;
    return 0;
}

/* Read KEY=VALUE lines of the marker; 1 when both keys were found. */
static int
read_marker(const char *file, char *plugindir, size_t psize, char *pipelinedir, size_t qsize)
{
    FILE *f = fopen(file, "r");
    char line[PATH_MAX + 32];
    int found = 0;

    if (f == NULL)
        return 0;
    while (fgets(line, sizeof line, f) != NULL) {
        size_t len = strcspn(line, "\r\n");
        struct {
            const char *key;
            char *buf;
            size_t size;
            int bit;
        } keys[] = {
            { "plugindir=", plugindir, psize, 1 },
            { "pipelinedir=", pipelinedir, qsize, 2 },
        };

        line[len] = '\0';
        for (size_t k = 0; k < 2; k++) {
            size_t klen = strlen(keys[k].key);

            char real[PATH_MAX];

            if (strncmp(line, keys[k].key, klen) != 0 || line[klen] != '/')
                continue;
            /* configure writes BUILD/.. for ../configure: say it plainly. */
            if (realpath(line + klen, real) == NULL)
                snprintf(real, sizeof real, "%s", line + klen);
            if (strlen(real) < keys[k].size) {
                memcpy(keys[k].buf, real, strlen(real) + 1);
                found |= keys[k].bit;
            }
        }
    }
    fclose(f);
    return found == 3;
}

int
pp_build_tree_dirs(char *plugindir, size_t psize, char *pipelinedir, size_t qsize)
{
    char exe[PATH_MAX], file[PATH_MAX + sizeof PP_BUILD_TREE_MARKER + 8];
    ssize_t n;
    char *slash;

    if (getauxval(AT_SECURE))
        return 0;
    n = readlink("/proc/self/exe", exe, sizeof exe - 1);
    if (n <= 0)
        return 0;
    exe[n] = '\0';
    if ((slash = strrchr(exe, '/')) == NULL)
        return 0;
    *slash = '\0';
    snprintf(file, sizeof file, "%s/%s", exe, PP_BUILD_TREE_MARKER);
    if (read_marker(file, plugindir, psize, pipelinedir, qsize))
        return 1;
    /* A libtool wrapper runs the real program from .libs/. */
    if ((slash = strrchr(exe, '/')) != NULL && strcmp(slash, "/.libs") == 0) {
        *slash = '\0';
        snprintf(file, sizeof file, "%s/%s", exe, PP_BUILD_TREE_MARKER);
        return read_marker(file, plugindir, psize, pipelinedir, qsize);
    }
    return 0;
}

int
pp_plugin_default_dirs(char **dirs, size_t max, pp_error *err)
{
    const char *home = safe_getenv("HOME");
    char built[PATH_MAX], unused[PATH_MAX];
    size_t n = 0;
    int rc = add_list(safe_getenv("PERFPIPE_PLUGIN_PATH"), dirs, max, &n);

    if (rc == 0 && home != NULL && home[0] == '/') {
        char user[64];

        snprintf(user, sizeof user, ".local/lib/perfpipe/plugins-%d", PP_ABI_MAJOR);
        rc = add_one(pp_path_join(home, user), dirs, max, &n);
    }
    if (rc == 0 && pp_build_tree_dirs(built, sizeof built, unused, sizeof unused))
        rc = add_one(strdup(built), dirs, max, &n);
    else if (rc == 0) {
        /* The packaged plugins first, then the local administrator's (an
         * out-of-tree plugin's `make install`; no package owns the
         * directory, so removing perfpipe leaves it alone). */
        rc = add_one(strdup(PLUGINDIR), dirs, max, &n);
        if (rc == 0 && strcmp(LOCALPLUGINDIR, PLUGINDIR) != 0)
            rc = add_one(strdup(LOCALPLUGINDIR), dirs, max, &n);
    }
    if (rc < 0) {
        for (size_t i = 0; i < n; i++)
            free(dirs[i]);
        pp_error_set(err, PP_ENOMEM, "out of memory listing the plugin directories");
        return -1;
    }
    return (int)n;
}

size_t
pp_pipeline_dirs(char **dirs, size_t max)
{
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    char unused[PATH_MAX], source[PATH_MAX];
    size_t n = 0;

    (void)add_list(safe_getenv("PERFPIPE_PIPELINE_PATH"), dirs, max, &n);
    if (xdg != NULL && xdg[0] == '/')
        (void)add_one(pp_path_join(xdg, "perfpipe/pipelines"), dirs, max, &n);
    else if (home != NULL && home[0] != '\0')
        (void)add_one(pp_path_join(home, ".config/perfpipe/pipelines"), dirs, max, &n);
    if (pp_build_tree_dirs(unused, sizeof unused, source, sizeof source)) {
        (void)add_one(strdup(source), dirs, max, &n);
    } else {
        (void)add_one(strdup(SYSCONFDIR "/perfpipe/pipelines"), dirs, max, &n);
        (void)add_one(strdup(PKGDATADIR "/pipelines"), dirs, max, &n);
    }
    return n;
}

static int
is_file(const char *path)
{
    struct stat st;

    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

static int
looks_like_path(const char *s)
{
    size_t n = strlen(s);

    return strchr(s, '/') != NULL || (n > 5 && strcmp(s + n - 5, ".yaml") == 0) ||
           (n > 4 && strcmp(s + n - 4, ".yml") == 0);
}

char *
pp_pipeline_find(const char *arg, pp_error *err)
{
    char *dirs[32];
    size_t n;
    char searched[PP_ERROR_MESSAGE_MAX / 2] = "";
    size_t used = 0;

    if (looks_like_path(arg)) {
        if (is_file(arg))
            return strdup(arg);
        pp_error_set(err, PP_ENOTFOUND, "%s: no such pipeline file", arg);
        return NULL;
    }
    n = pp_pipeline_dirs(dirs, sizeof dirs / sizeof dirs[0]);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(arg) + 6;
        char *file = malloc(len), *path = NULL;

        if (file != NULL) {
            snprintf(file, len, "%s.yaml", arg);
            path = pp_path_join(dirs[i], file);
            free(file);
        }
        if (path != NULL && is_file(path)) {
            for (size_t k = 0; k < n; k++)
                free(dirs[k]);
            return path;
        }
        free(path);
        if (used < sizeof searched - 1) {
            int w = snprintf(searched + used, sizeof searched - used, "%s%s", i ? ", " : "",
                             dirs[i]);
            if (w > 0)
                used += (size_t)w;
        }
    }
    for (size_t k = 0; k < n; k++)
        free(dirs[k]);
    pp_error_set(err, PP_ENOTFOUND,
                 "no pipeline '%s' (looked for %s.yaml in %s); give a path, "
                 "or add a directory to PERFPIPE_PIPELINE_PATH",
                 arg, arg, searched);
    return NULL;
}
