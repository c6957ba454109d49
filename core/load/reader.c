/* The load-result reader (load.h): file intake, telling the tool by
 * content, and the facts every format shares. The formats' walks live in
 * text.c, json.c and k6_stream.c; their helpers in util.c. */
#define _GNU_SOURCE 1 /* memmem */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "load/load_private.h"
#include "base/textfile.h"

int
pp_load_read_file(const char *path, char **buf, size_t *len, pp_error *err)
{
    return pp_textfile_read(path, "(save the load tool's output to a file first)", buf, len, err);
}

static int
has(const char *b, size_t n, const char *needle)
{
    return memmem(b, n, needle, strlen(needle)) != NULL;
}

typedef int (*walk_fn)(pp_load_reader *r, pp_error *err);

/* The walk for the input, by its first bytes; *json is set for a JSON
 * document (walked by pp_load_json from `start`). NULL when unknown. */
static walk_fn
detect(const char *b, size_t len, size_t *start, int *json)
{
    size_t i = 0, head = len < 8192 ? len : 8192;

    *json = 0;
    if (len >= 3 && (unsigned char)b[0] == 0xEF && (unsigned char)b[1] == 0xBB &&
        (unsigned char)b[2] == 0xBF)
        i = 3;
    while (i < len && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n'))
        i++;
    *start = i;
    if (len - i >= 8 && memcmp(b + i, "Running ", 8) == 0 && has(b + i, head - i, " test @ "))
        return pp_load_wrk_text;
    if (len - i >= 8 && memcmp(b + i, "Summary:", 8) == 0 && has(b, head, "Requests/sec:"))
        return pp_load_hey_text;
    if (len - i >= 25 && memcmp(b + i, "response-time,DNS+dialup,", 25) == 0)
        return pp_load_hey_csv;
    if (len - i >= 8 && memcmp(b + i, "{\"type\":", 8) == 0 &&
        (has(b + i, head - i, "\"type\":\"Metric\"") || has(b + i, head - i, "\"type\":\"Point\"")))
        return pp_load_k6_stream;
    if (len - i >= 10 && memcmp(b + i, "{\"attack\":", 10) == 0 &&
        has(b + i, head - i, "\"latency\":"))
        return pp_load_vegeta_lines;
    if (i < len && b[i] == '{') {
        *json = 1;
        return NULL;
    }
    return NULL;
}

int
pp_load_open_buffer(char *buf, size_t len, const char *name, pp_load_reader **out, pp_error *err)
{
    pp_load_reader *r = calloc(1, sizeof *r);
    size_t start = 0;
    walk_fn walk;
    int json, rc;

    *out = NULL;
    if (r == NULL || (r->name = strdup(name != NULL ? name : "<memory>")) == NULL) {
        free(r);
        free(buf);
        pp_error_set(err, PP_ENOMEM, "out of memory opening a load-test result");
        return PP_ENOMEM;
    }
    r->buf = buf;
    r->len = len;
    r->truncated_at = -1;
    walk = detect(buf, len, &start, &json);
    if (walk != NULL)
        rc = walk(r, err);
    else if (json)
        rc = pp_load_json(r, start, err);
    else
        rc = pp_load_fail(r, err, PP_EFORMAT, start,
                          len == 0 ? "empty file: expected a load-test result" :
                                     "expected a load-test result: wrk's report (\"Running ... "
                                     "test @\"), hey's summary (\"Summary:\") or `-o csv`, k6 "
                                     "summary JSON or --out json lines, bombardier -o json, "
                                     "vegeta report -type=json or encode --to json lines, oha "
                                     "-j, or wrk-json.lua's object");
    if (rc == PP_OK && r->nentries == 0)
        rc = pp_load_fail(r, err, PP_EFORMAT, start, "no result in this %s output", r->tool);
    if (rc != PP_OK) {
        pp_load_close(r);
        return rc;
    }
    for (size_t k = 0; k < r->nentries; k++) {
        r->entries[k]->res.tool = r->tool;
        r->entries[k]->res.format = r->format;
    }
    *out = r;
    return PP_OK;
}

int
pp_load_open(const char *path, pp_load_reader **out, pp_error *err)
{
    char *buf;
    size_t len;
    int rc = pp_load_read_file(path, &buf, &len, err);

    *out = NULL;
    if (rc != PP_OK)
        return rc;
    return pp_load_open_buffer(buf, len, path, out, err);
}

int
pp_load_next(pp_load_reader *r, const pp_load_result **res, pp_error *err)
{
    (void)err;
    *res = NULL;
    if (r->next >= r->nentries)
        return 0;
    *res = &r->entries[r->next++]->res;
    return 1;
}

const char *
pp_load_format(const pp_load_reader *r)
{
    return r->format ? r->format : "";
}
const char *
pp_load_tool(const pp_load_reader *r)
{
    return r->tool ? r->tool : "";
}
uint64_t
pp_load_scopes(const pp_load_reader *r)
{
    return r->nentries;
}
int64_t
pp_load_truncated_at(const pp_load_reader *r)
{
    return r->truncated_at;
}
const pp_error *
pp_load_warning(const pp_load_reader *r)
{
    return r->has_warning ? &r->warning : NULL;
}

const pp_load_result *
pp_load_run(const pp_load_reader *r)
{
    return r->nentries > 0 ? &r->entries[0]->res : NULL;
}

void
pp_load_close(pp_load_reader *r)
{
    if (r == NULL)
        return;
    for (size_t i = 0; i < r->nentries; i++) {
        load_entry *e = r->entries[i];

        free(e->st);
        free(e->ek);
        free(e->th);
        free(e->samples);
        free(e);
    }
    free(r->entries);
    for (size_t i = 0; i < r->nstrings; i++)
        free(r->strings[i]);
    free(r->strings);
    free(r->buf);
    free(r->name);
    free(r);
}
