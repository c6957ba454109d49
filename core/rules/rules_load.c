/* Where rules come from: the environment's, the user's, the
 * administrator's and the shipped directories, first one wins for an id
 * (the pipelines' scheme, core/loader/paths.c). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "loader/paths.h"
#include "pipeline/yaml_tree.h"
#include "result/jsonmem.h"
#include "rules/rules.h"

/* A directory name that could not be copied is a rule directory silently
 * skipped: counted (jsonmem.h), so what is built on the rules is refused,
 * never written with the rules of that directory quietly missing. */
static void
add(char **dirs, size_t max, size_t *n, char *dir)
{
    if (dir == NULL)
        pp_jsonmem_lost();
    if (dir != NULL && *n < max)
        dirs[(*n)++] = dir;
    else
        free(dir);
}

size_t
pp_rules_dirs(char **dirs, size_t max)
{
    /* A setuid perfpipe takes no directory from the caller's environment. */
    int secure = getauxval(AT_SECURE) != 0;
    const char *env = secure ? NULL : getenv("PERFPIPE_RULES_PATH");
    const char *xdg = secure ? NULL : getenv("XDG_CONFIG_HOME");
    const char *home = secure ? NULL : getenv("HOME");
    char plugins[PATH_MAX], pipelines[PATH_MAX];
    size_t n = 0;

    if (env != NULL && env[0] != '\0') {
        char *copy = strdup(env), *save = NULL;

        if (copy == NULL)
            pp_jsonmem_lost();
        for (char *d = copy ? strtok_r(copy, ":", &save) : NULL; d != NULL;
             d = strtok_r(NULL, ":", &save))
            add(dirs, max, &n, strdup(d));
        free(copy);
    }
    if (xdg != NULL && xdg[0] == '/')
        add(dirs, max, &n, pp_path_join(xdg, "perfpipe/rules"));
    else if (home != NULL && home[0] != '\0')
        add(dirs, max, &n, pp_path_join(home, ".config/perfpipe/rules"));
    if (pp_build_tree_dirs(plugins, sizeof plugins, pipelines, sizeof pipelines)) {
        /* The build tree names SRC/etc/perfpipe/pipelines; the shipped rules
         * are SRC/etc/rules. */
        char *cut = strstr(pipelines, "/perfpipe/pipelines");

        if (cut != NULL) {
            *cut = '\0';
            add(dirs, max, &n, pp_path_join(pipelines, "rules"));
        }
    } else {
        add(dirs, max, &n, strdup(SYSCONFDIR "/perfpipe/rules"));
        add(dirs, max, &n, strdup(PKGDATADIR "/rules"));
    }
    return n;
}

int
pp_rules_load_file_in(pp_ruleset *set, size_t first_new, const char *path, pp_error *err)
{
    FILE *f = fopen(path, "rb");
    char *text;
    size_t len;
    int rc;

    if (f == NULL) {
        pp_error_set(err, PP_EIO, "%s: cannot read the rule file: %s", path, strerror(errno));
        return PP_EIO;
    }
    text = malloc(PP_YAML_MAX_BYTES + 1);
    if (text == NULL) {
        fclose(f);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    len = fread(text, 1, PP_YAML_MAX_BYTES + 1, f);
    if (ferror(f)) {
        rc = PP_EIO;
        pp_error_set(err, rc, "%s: cannot read the rule file: %s", path, strerror(errno));
    } else if (len > PP_YAML_MAX_BYTES) {
        rc = PP_ELIMIT;
        pp_error_set(err, rc, "%s: rule file larger than %u bytes", path, PP_YAML_MAX_BYTES);
    } else {
        rc = pp_rules_load_text_in(set, first_new, path, text, len, err);
    }
    fclose(f);
    free(text);
    return rc;
}

int
pp_rules_load_file(pp_ruleset *set, const char *path, pp_error *err)
{
    return pp_rules_load_file_in(set, set->count, path, err);
}

static int
yaml_name(const struct dirent *e)
{
    size_t n = strlen(e->d_name);

    return e->d_name[0] != '.' && ((n > 5 && strcmp(e->d_name + n - 5, ".yaml") == 0) ||
                                   (n > 4 && strcmp(e->d_name + n - 4, ".yml") == 0));
}

/* Every *.yaml of dir, in name order; a missing directory adds nothing. */
static int
load_dir(pp_ruleset *set, const char *dir, pp_error *err)
{
    struct dirent **names = NULL;
    int n = scandir(dir, &names, yaml_name, alphasort), rc = PP_OK;
    size_t first_new = set->count;

    if (n < 0) {
        if (errno == ENOENT || errno == ENOTDIR)
            return PP_OK;
        pp_error_set(err, PP_EIO, "%s: cannot list the rule directory: %s", dir, strerror(errno));
        return PP_EIO;
    }
    for (int i = 0; i < n; i++) {
        char *path = pp_path_join(dir, names[i]->d_name);
        struct stat st;

        if (rc == PP_OK && path == NULL) {
            pp_error_set(err, PP_ENOMEM, "out of memory");
            rc = PP_ENOMEM;
        }
        if (rc == PP_OK && stat(path, &st) == 0 && S_ISREG(st.st_mode))
            rc = pp_rules_load_file_in(set, first_new, path, err);
        free(path);
        free(names[i]);
    }
    free(names);
    return rc;
}

int
pp_rules_load_default(pp_ruleset *set, pp_error *err)
{
    char *dirs[32];
    size_t n = pp_rules_dirs(dirs, 32);
    int rc = PP_OK;

    for (size_t i = 0; i < n; i++) {
        if (rc == PP_OK)
            rc = load_dir(set, dirs[i], err);
        free(dirs[i]);
    }
    return rc;
}
