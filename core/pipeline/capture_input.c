/* The `capture:` key of a pipeline input: a live capture instead of a
 * file. The mapping becomes the input's path as a capture spec
 * ("capture:KEY=VALUE;...", ';' in a value escaped as "\;";
 * core/ipc/capture_source.h), so ${VAR}
 * expansion, --input overrides and the engine's one read apply unchanged. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pipeline/internal.h"

static const char *const capture_keys[] = {
    "pid",      "process", "port",         "profile",    "providers", "counters", "interval",
    "duration", "keep",    "follow_child", "buffersize", "delay",     "timeout",  NULL
};

static int
append(char **buf, size_t *len, size_t *cap, const char *s)
{
    size_t n = strlen(s);
    if (*len + n + 1 > *cap) {
        size_t nc = (*cap ? *cap * 2 : 256) + n;
        char *nb = realloc(*buf, nc);
        if (!nb)
            return -1;
        *buf = nb;
        *cap = nc;
    }
    memcpy(*buf + *len, s, n + 1);
    *len += n;
    return 0;
}

/* A value with ';' and '\\' escaped. */
static int
append_value(char **buf, size_t *len, size_t *cap, const char *v)
{
    char one[3];
    for (; *v; v++) {
        if (*v == ';' || *v == '\\') {
            one[0] = '\\';
            one[1] = *v;
            one[2] = '\0';
        } else {
            one[0] = *v;
            one[1] = '\0';
        }
        if (append(buf, len, cap, one) < 0)
            return -1;
    }
    return 0;
}

int
pp_pipe_capture_path(const char *file, const pp_ynode *m, char **path, pp_error *err)
{
    char *buf = NULL;
    size_t len = 0, cap = 0;

    if (m->type != PP_YNODE_MAPPING)
        return pp_pipe_error(err, PP_EINVAL, file, m->pos,
                             "expected a mapping for 'capture' "
                             "(pid or process or port, profile, duration, keep...), got %s",
                             pp_ynode_type_name(m));
    if (append(&buf, &len, &cap, "capture:") < 0)
        goto oom;
    for (uint32_t k = 0; k < m->count; k++) {
        const pp_ynode *key = m->items[2 * k], *val = m->items[2 * k + 1];
        int known = 0;
        for (size_t i = 0; capture_keys[i]; i++)
            known |= strcmp(key->text, capture_keys[i]) == 0;
        if (!known) {
            free(buf);
            return pp_pipe_error(err, PP_EINVAL, file, key->pos,
                                 "unknown key '%s' in "
                                 "'capture'; expected one of: pid, process, port, profile, "
                                 "providers, counters, interval, duration, keep, follow_child, "
                                 "buffersize, delay, timeout",
                                 key->text);
        }
        if (append(&buf, &len, &cap, key->text) < 0 || append(&buf, &len, &cap, "=") < 0)
            goto oom;
        /* A list (profiles, counter providers) is written comma-separated. */
        uint32_t n = val->type == PP_YNODE_SEQUENCE ? val->count : 1;
        for (uint32_t i = 0; i < n; i++) {
            const pp_ynode *v = val->type == PP_YNODE_SEQUENCE ? val->items[i] : val;
            if (v->type != PP_YNODE_SCALAR || pp_ynode_is_null(v) || v->text[0] == '\0' ||
                strchr(v->text, '\n')) {
                free(buf);
                return pp_pipe_error(err, PP_EINVAL, file, v->pos,
                                     "expected a one-line value "
                                     "(or a list of them) for capture key '%s'",
                                     key->text);
            }
            if ((i && append(&buf, &len, &cap, ",") < 0) ||
                append_value(&buf, &len, &cap, v->text) < 0)
                goto oom;
        }
        if (k + 1 < m->count && append(&buf, &len, &cap, ";") < 0)
            goto oom;
    }
    *path = buf;
    return PP_OK;
oom:
    free(buf);
    return pp_pipe_error(err, PP_ENOMEM, file, m->pos, "out of memory");
}
