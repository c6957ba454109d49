/* The session file of `perfpipe diagnose --session FILE` (YAML, read with
 * the pipelines' positioned tree) and the knobs it sets. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "diag.h"
#include "ipc/capture_source.h"
#include "load/kind.h"
#include "pipeline/pos.h"
#include "pipeline/yaml_tree.h"
#include "shipped.h"
#include "base/textfile.h"

const char *
pp_diag_axis_name(int i)
{
    return i >= 0 && i < PP_DIAG_NAXES ? pp_diag_axis_names[i] : NULL;
}

static int
axis_bit(const char *s, size_t n)
{
    for (int i = 0; i < PP_DIAG_NAXES; i++)
        if (strlen(pp_diag_axis_names[i]) == n && strncmp(pp_diag_axis_names[i], s, n) == 0)
            return i;
    return -1;
}

int
pp_diag_axes_parse(const char *list, unsigned *mask, const char **bad)
{
    unsigned m = 0;

    for (const char *p = list; *p;) {
        size_t n = strcspn(p, ", ");
        int b;

        if (n > 0) {
            if ((b = axis_bit(p, n)) < 0) {
                *bad = p;
                return -1;
            }
            m |= 1u << b;
        }
        p += n;
        p += strspn(p, ", ");
    }
    if (m == 0) {
        *bad = list;
        return -1;
    }
    *mask = m;
    return 0;
}

void
pp_diag_session_init(pp_diag_session *s)
{
    memset(s, 0, sizeof *s);
    s->knobs.axes = PP_DIAG_DEFAULT_AXES;
    s->knobs.duration_s = 10;
    s->knobs.counters_s = 0; /* = duration_s */
    s->knobs.interval_s = 1;
    s->knobs.counters = strdup("System.Runtime,Microsoft.AspNetCore.Hosting");
}

void
pp_diag_session_free(pp_diag_session *s)
{
    free(s->process_name);
    free(s->diagnostic_port);
    free(s->backend);
    free(s->knobs.counters);
    free(s->knobs.load);
    free(s->knobs.benchmark);
    free(s->knobs.benchmark_covers);
    memset(s, 0, sizeof *s);
}

json_t *
pp_diag_knobs_json(const pp_diag_knobs *k)
{
    json_t *o = json_object(), *axes = json_array();

    for (int i = 0; i < PP_DIAG_NAXES; i++)
        if (k->axes & (1u << i))
            json_array_append_new(axes, json_string(pp_diag_axis_names[i]));
    json_object_set_new(o, "axes", axes);
    json_object_set_new(o, "duration_s", json_real(k->duration_s));
    json_object_set_new(o, "counters_duration_s", json_real(k->counters_s));
    json_object_set_new(o, "counters_interval_s", json_integer(k->interval_s));
    json_object_set_new(o, "counters", json_string(k->counters ? k->counters : ""));
    json_object_set_new(o, PP_LOAD_KIND, k->load ? json_string(k->load) : json_null());
    json_object_set_new(o, "buffersize_mb", json_integer(k->buffer_mb));
    json_object_set_new(o, "benchmark", k->benchmark ? json_string(k->benchmark) : json_null());
    json_object_set_new(o, "benchmark_covers",
                        k->benchmark_covers ? json_string(k->benchmark_covers) : json_null());
    return o;
}

/* Printing the positioned message is the caller's job; these return it. */
static int
bad(const char *file, const pp_ynode *n, const char *what)
{
    pp_cli_error("%s:%u:%u: %s", file, n->pos.line, n->pos.column, what);
    return PP_EXIT_USAGE;
}

static int
scalar(const char *file, const pp_ynode *v, const char *key)
{
    char msg[160];

    if (v->type == PP_YNODE_SCALAR && !pp_ynode_is_null(v))
        return 0;
    snprintf(msg, sizeof msg, "'%s' takes a value (a scalar), not %s", key, pp_ynode_type_name(v));
    return bad(file, v, msg);
}

static int
set_str(char **dst, const char *file, const pp_ynode *v, const char *key)
{
    if (scalar(file, v, key))
        return PP_EXIT_USAGE;
    free(*dst);
    *dst = strdup(v->text);
    return 0;
}

static int
set_time(double *dst, const char *file, const pp_ynode *v, const char *key)
{
    char msg[200];

    if (scalar(file, v, key))
        return PP_EXIT_USAGE;
    if ((*dst = pp_capture_parse_duration(v->text)) <= 0) {
        snprintf(msg, sizeof msg, "'%s' takes a time (4, 4s, 500ms, 2m), not '%.40s'", key,
                 v->text);
        return bad(file, v, msg);
    }
    return 0;
}

static int
set_uint(unsigned *dst, unsigned max, const char *file, const pp_ynode *v, const char *key)
{
    char msg[200], *end;
    unsigned long n;

    if (scalar(file, v, key))
        return PP_EXIT_USAGE;
    n = strtoul(v->text, &end, 10);
    if (end == v->text || *end || v->text[0] == '-' || n == 0 || n > max) {
        snprintf(msg, sizeof msg, "'%s' takes a whole number 1-%u, not '%.40s'", key, max, v->text);
        return bad(file, v, msg);
    }
    *dst = (unsigned)n;
    return 0;
}

static int
set_axes(unsigned *dst, const char *file, const pp_ynode *v)
{
    static const char expected[] = "alloc, cpu, db, gc, exceptions, contention, heap";
    char msg[256];
    unsigned m = 0;
    const char *badp;

    if (v->type == PP_YNODE_SCALAR) {
        if (pp_diag_axes_parse(v->text, &m, &badp) != 0) {
            snprintf(msg, sizeof msg, "unknown axis '%.*s'; expected a list of: %s",
                     (int)strcspn(badp, ", "), badp, expected);
            return bad(file, v, msg);
        }
    } else if (v->type == PP_YNODE_SEQUENCE && v->count > 0) {
        for (uint32_t i = 0; i < v->count; i++) {
            const pp_ynode *it = v->items[i];
            int b = it->type == PP_YNODE_SCALAR ? axis_bit(it->text, strlen(it->text)) : -1;

            if (b < 0) {
                snprintf(msg, sizeof msg, "unknown axis '%.40s'; expected one of: %s",
                         it->type == PP_YNODE_SCALAR ? it->text : pp_ynode_type_name(it), expected);
                return bad(file, it, msg);
            }
            m |= 1u << b;
        }
    } else {
        return bad(file, v, "'axes' takes a list of axes ([alloc, cpu]) or \"alloc,cpu\"");
    }
    *dst = m;
    return 0;
}

/* process: a pid (digits) or a process name. */
static int
set_process(pp_diag_session *s, const char *file, const pp_ynode *v)
{
    char *end;
    unsigned long long pid;

    if (scalar(file, v, "process"))
        return PP_EXIT_USAGE;
    pid = strtoull(v->text, &end, 10);
    if (end != v->text && *end == '\0' && v->text[0] != '-') {
        if (pid == 0 || pid > INT32_MAX)
            return bad(file, v, "'process' takes a process id (1-2147483647) or a name");
        s->pid = pid;
        return 0;
    }
    return set_str(&s->process_name, file, v, "process");
}

static int
apply(pp_diag_session *s, const char *file, const pp_ynode *k, const pp_ynode *v)
{
    static const char *const keys[] = {
        "version",    "process",           "diagnostic_port",   "backend",  "axes",
        "duration",   "counters_duration", "counters_interval", "counters", PP_LOAD_KIND,
        "buffersize", "benchmark",         "benchmark_covers",  NULL
    };
    const char *key = k->text;
    unsigned u;

    if (strcmp(key, "version") == 0) {
        if (scalar(file, v, key) || strcmp(v->text, "1") != 0)
            return bad(file, v, "'version' is 1 (the only session file format)");
        return 0;
    }
    if (strcmp(key, "process") == 0)
        return set_process(s, file, v);
    if (strcmp(key, "diagnostic_port") == 0)
        return set_str(&s->diagnostic_port, file, v, key);
    if (strcmp(key, "backend") == 0)
        return set_str(&s->backend, file, v, key);
    if (strcmp(key, "axes") == 0)
        return set_axes(&s->knobs.axes, file, v);
    if (strcmp(key, "duration") == 0)
        return set_time(&s->knobs.duration_s, file, v, key);
    if (strcmp(key, "counters_duration") == 0)
        return set_time(&s->knobs.counters_s, file, v, key);
    if (strcmp(key, "counters_interval") == 0)
        return set_uint(&s->knobs.interval_s, 3600, file, v, key);
    if (strcmp(key, "counters") == 0)
        return set_str(&s->knobs.counters, file, v, key);
    if (strcmp(key, PP_LOAD_KIND) == 0)
        return set_str(&s->knobs.load, file, v, key);
    if (strcmp(key, "benchmark") == 0)
        return set_str(&s->knobs.benchmark, file, v, key);
    if (strcmp(key, "benchmark_covers") == 0)
        return set_str(&s->knobs.benchmark_covers, file, v, key);
    if (strcmp(key, "buffersize") == 0) {
        if (set_uint(&u, 4096, file, v, key))
            return PP_EXIT_USAGE;
        s->knobs.buffer_mb = u;
        return 0;
    }
    pp_error err = PP_ERROR_INIT;
    pp_pipe_unknown(&err, file, k->pos, key, "key", "a session file", keys);
    pp_cli_error("%s", err.message);
    return PP_EXIT_USAGE;
}

int
pp_diag_session_load(const char *path, pp_diag_session *s)
{
    pp_error err = PP_ERROR_INIT;
    pp_ynode *root = NULL;
    char *text = NULL;
    size_t len = 0;
    int rc = PP_EXIT_OK, have_version = 0;

    if (pp_textfile_read(path, "(a session file, YAML)", &text, &len, &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_INPUT;
    }
    if (pp_yaml_tree_parse(path, text, len, &root, &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        free(text);
        return PP_EXIT_USAGE;
    }
    free(text);
    if (root->type != PP_YNODE_MAPPING) {
        rc = bad(path, root, "a session file is a mapping (version: 1, process: NAME, axes: ...)");
        goto out;
    }
    for (uint32_t i = 0; i < root->count && rc == PP_EXIT_OK; i++) {
        have_version |= strcmp(root->items[2 * i]->text, "version") == 0;
        rc = apply(s, path, root->items[2 * i], root->items[2 * i + 1]);
    }
    if (rc == PP_EXIT_OK && !have_version)
        rc = bad(path, root, "no 'version: 1' (the session file format)");
    if (rc == PP_EXIT_OK && s->pid + (s->process_name != NULL) + (s->diagnostic_port != NULL) > 1)
        rc = bad(path, root, "name one target: 'process' (a name or pid) or 'diagnostic_port'");
out:
    pp_yaml_tree_free(root);
    return rc;
}
