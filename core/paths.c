/* Where shipped and user pipelines are found. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "paths.h"

static char *
format_path(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *p = malloc(n);

    if (p != NULL)
        snprintf(p, n, "%s/%s", a, b);
    return p;
}

/* The search directories in order: up to max malloc'd strings. */
static size_t
pipeline_dirs(char **dirs, size_t max)
{
    const char *env = getauxval(AT_SECURE) ? NULL : getenv("PERFPIPE_PIPELINE_PATH");
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    size_t n = 0;

    if (env != NULL && env[0] != '\0') {
        char *copy = strdup(env), *save = NULL;

        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d != NULL && n < max;
             d = strtok_r(NULL, ":", &save))
            if ((dirs[n] = strdup(d)) != NULL)
                n++;
        free(copy);
    }
    if (n < max && xdg != NULL && xdg[0] == '/') {
        if ((dirs[n] = format_path(xdg, "perfpipe/pipelines")) != NULL)
            n++;
    } else if (n < max && home != NULL && home[0] != '\0') {
        if ((dirs[n] = format_path(home, ".config/perfpipe/pipelines")) != NULL)
            n++;
    }
    if (n < max && (dirs[n] = strdup(SYSCONFDIR "/perfpipe/pipelines")) != NULL)
        n++;
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
    char *dirs[16];
    size_t n;
    char searched[PP_ERROR_MESSAGE_MAX / 2] = "";
    size_t used = 0;

    if (looks_like_path(arg)) {
        if (is_file(arg))
            return strdup(arg);
        pp_error_set(err, PP_ENOTFOUND, "%s: no such pipeline file", arg);
        return NULL;
    }
    n = pipeline_dirs(dirs, sizeof dirs / sizeof dirs[0]);
    for (size_t i = 0; i < n; i++) {
        size_t len = strlen(arg) + 6;
        char *file = malloc(len), *path = NULL;

        if (file != NULL) {
            snprintf(file, len, "%s.yaml", arg);
            path = format_path(dirs[i], file);
            free(file);
        }
        if (path != NULL && is_file(path)) {
            for (size_t k = 0; k < n; k++)
                free(dirs[k]);
            return path;
        }
        free(path);
        if (used < sizeof searched - 1) {
            int w = snprintf(searched + used, sizeof searched - used, "%s%s", i ? ", " : "", dirs[i]);
            if (w > 0)
                used += (size_t)w;
        }
    }
    for (size_t k = 0; k < n; k++)
        free(dirs[k]);
    pp_error_set(err, PP_ENOTFOUND, "no pipeline '%s' (looked for %s.yaml in %s); give a path, "
                 "or add a directory to PERFPIPE_PIPELINE_PATH", arg, arg, searched);
    return NULL;
}
