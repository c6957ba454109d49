/* Checking the shape of a loaded perfpipe-result/1 document, so renderers
 * and compare can trust it. One message names the first problem by stage,
 * table, row and column, plus its JSON pointer. */
#include "config.h"

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/decl.h"
#include "result/result.h"

static const char *
json_kind(const json_t *v)
{
    switch (json_typeof(v)) {
    case JSON_OBJECT: return "an object";
    case JSON_ARRAY: return "an array";
    case JSON_STRING: return "a string";
    case JSON_INTEGER: return "an integer";
    case JSON_REAL: return "a real number";
    case JSON_TRUE:
    case JSON_FALSE: return "a boolean";
    case JSON_NULL: return "null";
    }
    return "?";
}

static int bad(pp_error *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int
bad(pp_error *err, const char *fmt, ...)
{
    va_list ap;
    char msg[PP_ERROR_MESSAGE_MAX];

    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    pp_error_set(err, PP_EFORMAT, "not a %s document: %s", PP_RESULT_FORMAT, msg);
    return PP_EFORMAT;
}

/* Does JSON value v fit a column of this type? */
static int
cell_fits(uint32_t type, const json_t *v)
{
    switch (type) {
    case PP_COL_STRING: return json_is_string(v) || json_is_null(v);
    case PP_COL_COUNT:
    case PP_COL_BYTES:
    case PP_COL_DURATION_NS:
    case PP_COL_TIMESTAMP_NS: return json_is_integer(v);
    case PP_COL_PERCENT:
    case PP_COL_NUMBER: return json_is_number(v) || json_is_null(v);
    }
    return 0;
}

static const char *
expected_kind(uint32_t type)
{
    switch (type) {
    case PP_COL_STRING: return "a string or null";
    case PP_COL_PERCENT:
    case PP_COL_NUMBER: return "a number or null";
    default: return "an integer";
    }
}

/* Check one table. Tables of more than MAX_COLUMNS columns are refused
 * (no analyzer needs that many, and it bounds the per-row work and the
 * stack array of column types). */
#define MAX_COLUMNS 4096u

static int
check_table(const json_t *tj, const char *sid, size_t si, size_t ti, pp_error *err)
{
    uint32_t types[MAX_COLUMNS];
    const json_t *name = json_object_get(tj, "name");
    const json_t *cols = json_object_get(tj, "columns");
    const json_t *key = json_object_get(tj, "key");
    const json_t *rows = json_object_get(tj, "rows");
    const char *tn;
    size_t ncol, i, r;
    const json_t *v;

    if (!json_is_object(tj))
        return bad(err,
                   "stage \"%s\" table %zu is %s, expected an object at /stages/%zu/tables/%zu",
                   sid, ti, json_kind(tj), si, ti);
    if (!json_is_string(name) || json_string_length(name) == 0)
        return bad(err,
                   "stage \"%s\" table %zu has no \"name\" string at /stages/%zu/tables/%zu/name",
                   sid, ti, si, ti);
    tn = json_string_value(name);
    if (!json_is_array(cols) || json_array_size(cols) == 0)
        return bad(
            err,
            "stage \"%s\" table \"%s\": \"columns\" must be a non-empty array at /stages/%zu/tables/%zu/columns",
            sid, tn, si, ti);
    ncol = json_array_size(cols);
    if (ncol > MAX_COLUMNS)
        return bad(err, "stage \"%s\" table \"%s\": %zu columns, more than the limit of %u", sid,
                   tn, ncol, MAX_COLUMNS);
    json_array_foreach(cols, i, v) {
        const json_t *cn = json_object_get(v, "name");
        const json_t *ct = json_object_get(v, "type");
        if (!json_is_object(v) || !json_is_string(cn) || !json_is_string(ct))
            return bad(
                err,
                "stage \"%s\" table \"%s\" column %zu: expected {\"name\": string, \"type\": string} at /stages/%zu/tables/%zu/columns/%zu",
                sid, tn, i, si, ti, i);
        types[i] = pp_column_type_from_name(json_string_value(ct));
        if (types[i] == 0)
            return bad(
                err,
                "stage \"%s\" table \"%s\" column %zu (\"%s\"): unknown type \"%s\" at /stages/%zu/tables/%zu/columns/%zu/type",
                sid, tn, i, json_string_value(cn), json_string_value(ct), si, ti, i);
    }
    if (!json_is_array(key))
        return bad(
            err,
            "stage \"%s\" table \"%s\": \"key\" must be an array of column names at /stages/%zu/tables/%zu/key",
            sid, tn, si, ti);
    json_array_foreach(key, i, v) {
        size_t c;
        const json_t *col;
        int found = 0;
        if (!json_is_string(v))
            return bad(
                err,
                "stage \"%s\" table \"%s\" key %zu is %s, expected a column name at /stages/%zu/tables/%zu/key/%zu",
                sid, tn, i, json_kind(v), si, ti, i);
        json_array_foreach(cols, c, col)
            if (strcmp(json_string_value(json_object_get(col, "name")), json_string_value(v)) == 0)
                found = 1;
        if (!found)
            return bad(
                err,
                "stage \"%s\" table \"%s\": key column \"%s\" is not a column at /stages/%zu/tables/%zu/key/%zu",
                sid, tn, json_string_value(v), si, ti, i);
    }
    if (json_object_get(tj, "decl") != NULL) {
        char why[256];
        if (pp_decl_check(json_object_get(tj, "decl"), tj, why, sizeof why) != 0)
            return bad(err, "stage \"%s\" table \"%s\": %s at /stages/%zu/tables/%zu/decl", sid, tn,
                       why, si, ti);
    }
    if (!json_is_array(rows))
        return bad(
            err,
            "stage \"%s\" table \"%s\": \"rows\" must be an array at /stages/%zu/tables/%zu/rows",
            sid, tn, si, ti);
    json_array_foreach(rows, r, v) {
        size_t c;
        const json_t *cell;
        if (!json_is_array(v))
            return bad(
                err,
                "stage \"%s\" table \"%s\" row %zu is %s, expected an array at /stages/%zu/tables/%zu/rows/%zu",
                sid, tn, r, json_kind(v), si, ti, r);
        if (json_array_size(v) != ncol)
            return bad(
                err,
                "stage \"%s\" table \"%s\" row %zu has %zu cells, expected %zu at /stages/%zu/tables/%zu/rows/%zu",
                sid, tn, r, json_array_size(v), ncol, si, ti, r);
        json_array_foreach(v, c, cell)
            if (!cell_fits(types[c], cell))
                return bad(
                    err,
                    "stage \"%s\" table \"%s\" row %zu column %zu (\"%s\", %s): %s, expected %s at /stages/%zu/tables/%zu/rows/%zu/%zu",
                    sid, tn, r, c,
                    json_string_value(json_object_get(json_array_get(cols, c), "name")),
                    pp_column_type_name(types[c]), json_kind(cell), expected_kind(types[c]), si, ti,
                    r, c);
    }
    return PP_OK;
}

static int
check_stage(const json_t *st, size_t si, pp_error *err)
{
    const json_t *id = json_object_get(st, "id");
    const json_t *an = json_object_get(st, "analyzer");
    const json_t *status = json_object_get(st, "status");
    const json_t *tables = json_object_get(st, "tables");
    const json_t *findings = json_object_get(st, "findings");
    const json_t *totals = json_object_get(st, "totals");
    const char *sid;
    size_t i;
    const json_t *v;
    const char *k;
    int rc;

    if (!json_is_object(st))
        return bad(err, "stage %zu is %s, expected an object at /stages/%zu", si, json_kind(st),
                   si);
    if (!json_is_string(id))
        return bad(err, "stage %zu has no \"id\" string at /stages/%zu/id", si, si);
    sid = json_string_value(id);
    if (!json_is_object(an) || !json_is_string(json_object_get(an, "name")))
        return bad(
            err,
            "stage \"%s\": \"analyzer\" must be {\"name\": string, \"version\"} at /stages/%zu/analyzer",
            sid, si);
    if (status != NULL &&
        !(json_is_string(status) && (strcmp(json_string_value(status), "ok") == 0 ||
                                     strcmp(json_string_value(status), "partial") == 0 ||
                                     strcmp(json_string_value(status), "failed") == 0)))
        return bad(
            err,
            "stage \"%s\": \"status\" must be \"ok\", \"partial\" or \"failed\" at /stages/%zu/status",
            sid, si);
    if (tables != NULL) {
        if (!json_is_array(tables))
            return bad(err, "stage \"%s\": \"tables\" must be an array at /stages/%zu/tables", sid,
                       si);
        json_array_foreach(tables, i, v)
            if ((rc = check_table(v, sid, si, i, err)) != PP_OK)
                return rc;
    }
    if (findings != NULL) {
        if (!json_is_array(findings))
            return bad(err, "stage \"%s\": \"findings\" must be an array at /stages/%zu/findings",
                       sid, si);
        json_array_foreach(findings, i, v) {
            const char *sev = json_string_value(json_object_get(v, "severity"));
            if (!json_is_object(v) || sev == NULL || !json_is_string(json_object_get(v, "code")) ||
                !json_is_string(json_object_get(v, "message")))
                return bad(
                    err,
                    "stage \"%s\" finding %zu: expected {\"severity\", \"code\", \"message\"} strings at /stages/%zu/findings/%zu",
                    sid, i, si, i);
            if (strcmp(sev, "info") != 0 && strcmp(sev, "warning") != 0 &&
                strcmp(sev, "error") != 0)
                return bad(
                    err,
                    "stage \"%s\" finding %zu: severity \"%s\" is not info, warning or error at /stages/%zu/findings/%zu/severity",
                    sid, i, sev, si, i);
        }
    }
    if (totals != NULL) {
        if (!json_is_object(totals))
            return bad(err, "stage \"%s\": \"totals\" must be an object at /stages/%zu/totals", sid,
                       si);
        json_object_foreach((json_t *)totals, k, v) {
            const char *ty = json_string_value(json_object_get(v, "type"));
            const json_t *val = json_object_get(v, "value");
            uint32_t t;
            if (!json_is_object(v) || ty == NULL || val == NULL)
                return bad(
                    err,
                    "stage \"%s\" total \"%s\": expected {\"type\", \"value\"} at /stages/%zu/totals/%s",
                    sid, k, si, k);
            if (strcmp(ty, "string") == 0) {
                if (!json_is_string(val))
                    return bad(
                        err,
                        "stage \"%s\" total \"%s\" (string): value is %s at /stages/%zu/totals/%s/value",
                        sid, k, json_kind(val), si, k);
                continue;
            }
            if ((t = pp_column_type_from_name(ty)) == 0 || t == PP_COL_STRING)
                return bad(
                    err,
                    "stage \"%s\" total \"%s\": unknown type \"%s\" at /stages/%zu/totals/%s/type",
                    sid, k, ty, si, k);
            if (!cell_fits(t, val))
                return bad(
                    err,
                    "stage \"%s\" total \"%s\" (%s): value is %s, expected %s at /stages/%zu/totals/%s/value",
                    sid, k, ty, json_kind(val), expected_kind(t), si, k);
        }
    }
    return PP_OK;
}

/* The run's unit of work (WORK-CONTRACT.md): optional (documents written
 * before it have none); when present, a unit of the contract or null, and
 * each figure a number >= 0 or null. */
static int
check_work(const json_t *w, pp_error *err)
{
    static const char *const figures[] = { "requests", "seconds", "operations" };
    const json_t *unit, *src;

    if (w == NULL)
        return PP_OK;
    if (!json_is_object(w))
        return bad(err, "\"work\" is %s, expected an object at /work", json_kind(w));
    unit = json_object_get(w, "unit");
    if (unit != NULL && !json_is_null(unit) &&
        (!json_is_string(unit) || (strcmp(json_string_value(unit), "request") != 0 &&
                                   strcmp(json_string_value(unit), "second") != 0 &&
                                   strcmp(json_string_value(unit), "operation") != 0)))
        return bad(err, "\"work.unit\" must be \"request\", \"second\", \"operation\" or null "
                        "at /work/unit");
    for (size_t i = 0; i < sizeof figures / sizeof figures[0]; i++) {
        const json_t *v = json_object_get(w, figures[i]);
        if (v != NULL && !json_is_null(v) && (!json_is_number(v) || json_number_value(v) < 0))
            return bad(err, "\"work.%s\" is %s, expected a number >= 0 or null at /work/%s",
                       figures[i], json_kind(v), figures[i]);
    }
    src = json_object_get(w, "requests_source");
    if (src != NULL && !json_is_null(src) && !json_is_string(src))
        return bad(err, "\"work.requests_source\" must be a string or null at "
                        "/work/requests_source");
    return PP_OK;
}

int
pp_result_validate(const json_t *doc, pp_error *err)
{
    const json_t *format, *tool, *inputs, *stages, *knobs, *v;
    size_t i;
    int rc;

    if (!json_is_object(doc))
        return bad(err, "the top level is %s, expected an object",
                   doc ? json_kind(doc) : "missing");
    format = json_object_get(doc, "format");
    if (!json_is_string(format))
        return bad(err, "no \"format\" string at /format");
    if (strcmp(json_string_value(format), PP_RESULT_FORMAT) != 0)
        return bad(err, "\"format\" is \"%s\" at /format", json_string_value(format));
    tool = json_object_get(doc, "tool");
    if (tool != NULL && (!json_is_object(tool) || !json_is_string(json_object_get(tool, "name"))))
        return bad(err, "\"tool\" must be {\"name\": string, \"version\"} at /tool");
    knobs = json_object_get(doc, "knobs");
    if (knobs != NULL && !json_is_object(knobs))
        return bad(err, "\"knobs\" must be an object at /knobs");
    inputs = json_object_get(doc, "inputs");
    if (inputs != NULL) {
        if (!json_is_array(inputs))
            return bad(err, "\"inputs\" must be an array at /inputs");
        json_array_foreach(inputs, i, v) {
            const json_t *bytes = json_object_get(v, "bytes");
            const json_t *hash = json_object_get(v, "hash");
            if (!json_is_object(v) || !json_is_string(json_object_get(v, "name")) ||
                !json_is_string(json_object_get(v, "path")) ||
                !json_is_string(json_object_get(v, "kind")))
                return bad(
                    err,
                    "input %zu: expected {\"name\", \"path\", \"kind\"} strings at /inputs/%zu", i,
                    i);
            if (bytes != NULL && !json_is_integer(bytes))
                return bad(err,
                           "input %zu: \"bytes\" is %s, expected an integer at /inputs/%zu/bytes",
                           i, json_kind(bytes), i);
            if (hash != NULL &&
                (!json_is_object(hash) || !json_is_string(json_object_get(hash, "algo")) ||
                 !json_is_string(json_object_get(hash, "value"))))
                return bad(
                    err,
                    "input %zu: \"hash\" must be {\"algo\": string, \"value\": string} at /inputs/%zu/hash",
                    i, i);
        }
    }
    if ((rc = check_work(json_object_get(doc, "work"), err)) != PP_OK)
        return rc;
    v = json_object_get(doc, "verdict");
    if (v != NULL && (!json_is_object(v) || !json_is_string(json_object_get(v, "overall")) ||
                      !json_is_string(json_object_get(v, "line"))))
        return bad(err, "\"verdict\" must be {\"overall\": string, \"line\": string, ...} at "
                        "/verdict");
    stages = json_object_get(doc, "stages");
    if (!json_is_array(stages))
        return bad(err, "no \"stages\" array at /stages");
    json_array_foreach(stages, i, v)
        if ((rc = check_stage(v, i, err)) != PP_OK)
            return rc;
    return PP_OK;
}
