/* pp_pipeline_load_*: read, parse, apply the command line, cross-check. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/internal.h"

/* The file's base name without .yaml/.yml: the default pipeline name. */
static char *
base_name(const char *path)
{
    const char *b = strrchr(path, '/');
    size_t len;

    b = b ? b + 1 : path;
    len = strlen(b);
    if (len > 5 && strcmp(b + len - 5, ".yaml") == 0)
        len -= 5;
    else if (len > 4 && strcmp(b + len - 4, ".yml") == 0)
        len -= 4;
    char *s = strndup(b, len);
    /* Only characters a name may hold; anything else becomes '_'. */
    for (char *q = s; q && *q; q++)
        if (!((*q >= 'A' && *q <= 'Z') || (*q >= 'a' && *q <= 'z') || (*q >= '0' && *q <= '9') ||
              *q == '_' || *q == '.' || *q == '-'))
            *q = '_';
    if (s != NULL && *s == '\0') {
        free(s);
        s = strdup("pipeline");
    }
    return s;
}

int
pp_pipeline_load_string(const char *display_name, const char *text, size_t len,
                        const pp_pipeline_vars *vars, pp_pipeline **out, pp_error *err)
{
    pp_ynode *root = NULL;
    pp_pipeline *p = NULL;
    char *def;
    int rc;

    *out = NULL;
    rc = pp_yaml_tree_parse(display_name, text, len, &root, err);
    if (rc != PP_OK)
        return rc;
    def = base_name(display_name);
    if (def == NULL) {
        pp_yaml_tree_free(root);
        return pp_pipe_error(err, PP_ENOMEM, display_name, (pp_pos){ 0, 0 }, "out of memory");
    }
    rc = pp_pipeline_from_tree(display_name, def, root, &p, err);
    free(def);
    pp_yaml_tree_free(root);
    if (rc != PP_OK)
        return rc;
    if ((rc = pp_pipeline_apply_vars(p, vars, err)) != PP_OK ||
        (rc = pp_pipeline_check_structure(p, err)) != PP_OK) {
        pp_pipeline_free(p);
        return rc;
    }
    *out = p;
    return PP_OK;
}

int
pp_pipeline_load_file(const char *path, const pp_pipeline_vars *vars, pp_pipeline **out,
                      pp_error *err)
{
    FILE *f;
    char *buf;
    size_t len;
    int rc;

    *out = NULL;
    f = fopen(path, "rb");
    if (f == NULL)
        return pp_pipe_error(err, PP_EIO, path, (pp_pos){ 0, 0 }, "cannot open: %s",
                             strerror(errno));
    /* Read at most one byte past the limit: enough to know it is too big
     * without trusting a size from stat (pipes, /proc). */
    buf = malloc(PP_YAML_MAX_BYTES + 1);
    if (buf == NULL) {
        fclose(f);
        return pp_pipe_error(err, PP_ENOMEM, path, (pp_pos){ 0, 0 }, "out of memory");
    }
    len = fread(buf, 1, PP_YAML_MAX_BYTES + 1, f);
    if (ferror(f)) {
        rc = pp_pipe_error(err, PP_EIO, path, (pp_pos){ 0, 0 }, "cannot read: %s", strerror(errno));
        fclose(f);
        free(buf);
        return rc;
    }
    fclose(f);
    if (len > PP_YAML_MAX_BYTES) {
        free(buf);
        return pp_pipe_error(err, PP_ELIMIT, path, (pp_pos){ 0, 0 },
                             "pipeline file is larger than %u bytes", PP_YAML_MAX_BYTES);
    }
    rc = pp_pipeline_load_string(path, buf, len, vars, out, err);
    free(buf);
    return rc;
}
