/* The BenchmarkDotNet export reader (bdn.h): file intake, kind detection,
 * and the facts every form shares. The forms' walks live in json.c and
 * csv.c; the helpers all three use (messages with positions) in util.c. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "bdn/bdn_private.h"
#include "base/textfile.h"

int
pp_bdn_read_file(const char *path, char **buf, size_t *len, pp_error *err)
{
    return pp_textfile_read(path,
                            "(BenchmarkDotNet exports are files under "
                            "BenchmarkDotNet.Artifacts/results)",
                            buf, len, err);
}

/* JSON starts with '{' (after a UTF-8 BOM and blanks); CSV with a header
 * whose first cell is "Method" (BenchmarkDotNet always puts it first). */
static uint32_t
detect(const char *buf, size_t len, size_t *start)
{
    size_t i = 0;

    if (len >= 3 && (unsigned char)buf[0] == 0xEF && (unsigned char)buf[1] == 0xBB &&
        (unsigned char)buf[2] == 0xBF)
        i = 3;
    *start = i;
    while (i < len && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\r' || buf[i] == '\n'))
        i++;
    if (i < len && buf[i] == '{') {
        *start = i;
        return PP_BDN_FORM_JSON;
    }
    if (len - *start >= 6 && memcmp(buf + *start, "Method", 6) == 0 &&
        (buf[*start + 6] == ',' || buf[*start + 6] == ';' || buf[*start + 6] == '\t'))
        return PP_BDN_FORM_CSV;
    return 0;
}

int
pp_bdn_open_buffer(char *buf, size_t len, const char *name, pp_bdn_reader **out, pp_error *err)
{
    pp_bdn_reader *r = calloc(1, sizeof *r);
    size_t start = 0;

    *out = NULL;
    if (r == NULL || (r->name = strdup(name != NULL ? name : "<memory>")) == NULL) {
        free(r);
        free(buf);
        pp_error_set(err, PP_ENOMEM, "out of memory opening a BenchmarkDotNet export");
        return PP_ENOMEM;
    }
    r->buf = buf;
    r->len = len;
    r->truncated_at = -1;
    r->has_debugger = -1;
    r->form = detect(buf, len, &start);
    r->pos = start;
    if (r->form == 0) {
        int rc = pp_bdn_fail(r, err, PP_EFORMAT, start,
                             len == 0 ? "empty file: expected a BenchmarkDotNet export" :
                                        "expected a BenchmarkDotNet export: a JSON object "
                                        "(JsonExporter) or a CSV summary whose header starts "
                                        "with \"Method\" (CsvExporter)");
        pp_bdn_close(r);
        return rc;
    }
    *out = r;
    return PP_OK;
}

int
pp_bdn_open(const char *path, pp_bdn_reader **out, pp_error *err)
{
    char *buf;
    size_t len;
    int rc = pp_bdn_read_file(path, &buf, &len, err);

    *out = NULL;
    if (rc != PP_OK)
        return rc;
    return pp_bdn_open_buffer(buf, len, path, out, err);
}

int
pp_bdn_next(pp_bdn_reader *r, const pp_bench_result **res, pp_error *err)
{
    int rc;

    *res = NULL;
    if (r->failed) {
        pp_textfile_error_copy(err, &r->failure);
        return r->failed;
    }
    if (r->done)
        return 0;
    rc = r->form == PP_BDN_FORM_JSON ? pp_bdn_json_next(r, err) : pp_bdn_csv_next(r, err);
    if (rc == 1) {
        r->count++;
        r->cur.struct_size = sizeof r->cur;
        r->cur.bdn_version = r->bdn_version ? r->bdn_version : "";
        r->cur.runtime_version = r->runtime_version ? r->runtime_version : "";
        r->cur.configuration = r->configuration ? r->configuration : "";
        r->cur.has_debugger = r->has_debugger;
        *res = &r->cur;
    } else if (rc == 0) {
        r->done = 1;
    }
    return rc;
}

uint32_t
pp_bdn_form(const pp_bdn_reader *r)
{
    return r->form;
}
uint64_t
pp_bdn_count(const pp_bdn_reader *r)
{
    return r->count;
}
int64_t
pp_bdn_truncated_at(const pp_bdn_reader *r)
{
    return r->truncated_at;
}
const pp_error *
pp_bdn_warning(const pp_bdn_reader *r)
{
    return r->has_warning ? &r->warning : NULL;
}
const char *
pp_bdn_title(const pp_bdn_reader *r)
{
    return r->title ? r->title : "";
}
const char *
pp_bdn_version(const pp_bdn_reader *r)
{
    return r->bdn_version ? r->bdn_version : "";
}

void
pp_bdn_close(pp_bdn_reader *r)
{
    if (r == NULL)
        return;
    json_decref(r->cur_json);
    free(r->cur_strings);
    free(r->meas);
    for (uint32_t i = 0; i < r->ncols; i++)
        free(r->cols[i]);
    free(r->cols);
    free(r->title);
    free(r->bdn_version);
    free(r->runtime_version);
    free(r->configuration);
    free(r->buf);
    free(r->name);
    free(r);
}
