/* Building a perfpipe-result/1 document: stages, typed tables, findings,
 * totals. The document is the jansson tree itself; pp_table is only a thin
 * typed handle onto one table's "rows" array. */
#include "config.h"

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"

struct pp_table {
    uint32_t magic;    /* TABLE_MAGIC while live: catches a stale handle */
    pp_table_set *set; /* the stage's set that owns this wrapper */
    json_t *rows;      /* borrowed from the document */
    char *name;
    uint32_t ncolumns;
    uint32_t *types; /* [ncolumns] PP_COL_* */
    char **colnames; /* [ncolumns] for messages */
    uint64_t nrows;
    char error[PP_ERROR_MESSAGE_MAX];
    struct pp_table *next;
};

#define TABLE_MAGIC 0x7461626cu /* "tabl" */

static const char *const column_type_names[] = {
    NULL, "string", "count", "bytes", "duration_ns", "percent", "timestamp_ns", "number"
};

const char *
pp_column_type_name(uint32_t type)
{
    if (type == 0 || type >= sizeof column_type_names / sizeof column_type_names[0])
        return NULL;
    return column_type_names[type];
}

uint32_t
pp_column_type_from_name(const char *name)
{
    if (name == NULL)
        return 0;
    for (uint32_t t = 1; t < sizeof column_type_names / sizeof column_type_names[0]; t++)
        if (strcmp(name, column_type_names[t]) == 0)
            return t;
    return 0;
}

const char *
pp_severity_name(uint32_t severity)
{
    switch (severity) {
    case PP_SEVERITY_INFO: return "info";
    case PP_SEVERITY_WARNING: return "warning";
    case PP_SEVERITY_ERROR: return "error";
    default: return NULL;
    }
}

/* json_object_set_new that also treats a NULL value (failed allocation) as
 * an error, so builders can chain without checking each constructor. */
static int
set_new(json_t *obj, const char *key, json_t *value)
{
    if (value == NULL)
        return PP_ENOMEM;
    return json_object_set_new(obj, key, value) == 0 ? PP_OK : PP_ENOMEM;
}

static int
append_new(json_t *arr, json_t *value)
{
    if (value == NULL)
        return PP_ENOMEM;
    return json_array_append_new(arr, value) == 0 ? PP_OK : PP_ENOMEM;
}

/* Length of the valid UTF-8 sequence at s[0..n), or 0 if invalid
 * (truncated, bad continuation, overlong, surrogate, > U+10FFFF, NUL). */
static size_t
utf8_seq(const unsigned char *s, size_t n)
{
    uint32_t cp;
    size_t len;

    if (s[0] == 0)
        return 0;
    if (s[0] < 0x80)
        return 1;
    if ((s[0] & 0xE0) == 0xC0) {
        len = 2;
        cp = s[0] & 0x1F;
    } else if ((s[0] & 0xF0) == 0xE0) {
        len = 3;
        cp = s[0] & 0x0F;
    } else if ((s[0] & 0xF8) == 0xF0) {
        len = 4;
        cp = s[0] & 0x07;
    } else
        return 0;
    if (len > n)
        return 0;
    for (size_t k = 1; k < len; k++) {
        if ((s[k] & 0xC0) != 0x80)
            return 0;
        cp = (cp << 6) | (s[k] & 0x3F);
    }
    if ((len == 2 && cp < 0x80) || (len == 3 && cp < 0x800) || (len == 4 && cp < 0x10000) ||
        (cp >= 0xD800 && cp <= 0xDFFF) || cp > 0x10FFFF)
        return 0;
    return len;
}

/* A JSON string of s, with each byte that is not part of valid UTF-8
 * replaced by U+FFFD: names come from captures, and one bad byte must not
 * lose a row or make the document undumpable. */
static json_t *
string_lossy(const char *s)
{
    const unsigned char *u = (const unsigned char *)s;
    size_t n = strlen(s), i = 0, o = 0;
    char *buf;
    json_t *j;

    while (i < n) {
        size_t len = utf8_seq(u + i, n - i);
        if (len == 0)
            break;
        i += len;
    }
    if (i == n)
        return json_stringn_nocheck(s, n);
    if (n > (SIZE_MAX - 1) / 3 || (buf = malloc(3 * n + 1)) == NULL)
        return NULL;
    for (i = 0; i < n;) {
        size_t len = utf8_seq(u + i, n - i);
        if (len > 0) {
            memcpy(buf + o, s + i, len);
            o += len;
            i += len;
        } else {
            memcpy(buf + o, "\xEF\xBF\xBD", 3);
            o += 3;
            i++;
        }
    }
    j = json_stringn_nocheck(buf, o);
    free(buf);
    return j;
}

json_t *
pp_result_new(const char *pipeline_name)
{
    json_t *doc = json_object();
    json_t *tool = json_object();
    int rc = PP_OK;

    if (doc == NULL || tool == NULL) {
        json_decref(doc);
        json_decref(tool);
        return NULL;
    }
    rc |= set_new(doc, "format", json_string(PP_RESULT_FORMAT));
    rc |= set_new(tool, "name", json_string("perfpipe"));
    rc |= set_new(tool, "version", json_string(pp_version()));
    rc |= set_new(doc, "tool", tool);
    rc |= set_new(doc, "pipeline", pipeline_name ? json_string(pipeline_name) : json_null());
    rc |= set_new(doc, "knobs", json_object());
    rc |= set_new(doc, "inputs", json_array());
    rc |= set_new(doc, "stages", json_array());
    if (rc != PP_OK) {
        json_decref(doc);
        return NULL;
    }
    return doc;
}

int
pp_result_set_knob(json_t *doc, const char *name, const char *value)
{
    json_t *knobs = json_object_get(doc, "knobs");

    if (!json_is_object(knobs) || name == NULL || value == NULL)
        return PP_EINVAL;
    return set_new(knobs, name, string_lossy(value));
}

json_t *
pp_result_add_input(json_t *doc, const char *name, const char *path, const char *kind,
                    int64_t bytes, const char *hash_algo, const char *hash_value)
{
    json_t *inputs = json_object_get(doc, "inputs");
    json_t *in;
    int rc = PP_OK;

    if (!json_is_array(inputs) || name == NULL || path == NULL || kind == NULL ||
        (hash_algo == NULL) != (hash_value == NULL))
        return NULL;
    if ((in = json_object()) == NULL)
        return NULL;
    rc |= set_new(in, "name", string_lossy(name));
    rc |= set_new(in, "path", string_lossy(path));
    rc |= set_new(in, "kind", json_string(kind));
    if (bytes >= 0)
        rc |= set_new(in, "bytes", json_integer(bytes));
    if (hash_algo != NULL) {
        json_t *h = json_object();
        if (h == NULL) {
            rc = PP_ENOMEM;
        } else {
            rc |= set_new(h, "algo", json_string(hash_algo));
            rc |= set_new(h, "value", json_string(hash_value));
            rc |= set_new(in, "hash", h);
        }
    }
    if (rc != PP_OK || json_array_append(inputs, in) != 0) {
        json_decref(in);
        return NULL;
    }
    json_decref(in);
    return in;
}

json_t *
pp_result_add_stage(json_t *doc, const char *id, const char *analyzer, const char *analyzer_version)
{
    json_t *stages = json_object_get(doc, "stages");
    json_t *st, *an;
    int rc = PP_OK;

    if (!json_is_array(stages) || id == NULL || analyzer == NULL)
        return NULL;
    st = json_object();
    an = json_object();
    if (st == NULL || an == NULL) {
        json_decref(st);
        json_decref(an);
        return NULL;
    }
    rc |= set_new(st, "id", json_string(id));
    rc |= set_new(an, "name", json_string(analyzer));
    rc |= set_new(an, "version", analyzer_version ? json_string(analyzer_version) : json_null());
    rc |= set_new(st, "analyzer", an);
    rc |= set_new(st, "status", json_string("ok"));
    rc |= set_new(st, "tables", json_array());
    rc |= set_new(st, "findings", json_array());
    rc |= set_new(st, "totals", json_object());
    if (rc != PP_OK || json_array_append(stages, st) != 0) {
        json_decref(st);
        return NULL;
    }
    json_decref(st);
    return st;
}

int
pp_result_stage_failed(json_t *stage, const char *message)
{
    if (message == NULL)
        return PP_EINVAL;
    return pp_result_stage_failed_with(stage, json_pack("{s:s}", "message", message));
}

int
pp_result_stage_failed_with(json_t *stage, json_t *error)
{
    if (!json_is_object(stage) || !json_is_string(json_object_get(error, "message"))) {
        json_decref(error);
        return PP_EINVAL;
    }
    if (set_new(stage, "status", json_string("failed")) != PP_OK) {
        json_decref(error);
        return PP_ENOMEM;
    }
    return set_new(stage, "error", error);
}

const char *
pp_result_stage_error(const json_t *stage)
{
    const json_t *e = json_object_get(stage, "error");

    if (json_is_string(e)) /* documents written before errors were objects */
        return json_string_value(e);
    return json_string_value(json_object_get(e, "message"));
}

static void
table_free(pp_table *t)
{
    if (t == NULL)
        return;
    if (t->colnames != NULL)
        for (uint32_t i = 0; i < t->ncolumns; i++)
            free(t->colnames[i]);
    free(t->colnames);
    free(t->types);
    free(t->name);
    free(t);
}

pp_table *
pp_result_table_new(pp_table_set *set, json_t *stage, const char *name, uint32_t ncolumns,
                    const pp_column *columns, uint32_t nkey, pp_error *err)
{
    json_t *tables = json_object_get(stage, "tables");
    json_t *tj = NULL, *cols = NULL, *key = NULL, *rows = NULL;
    pp_table *t = NULL;
    size_t i;
    json_t *other;
    int rc = PP_OK;

    if (set == NULL || !json_is_array(tables) || name == NULL || name[0] == '\0') {
        pp_error_set(err, PP_EINVAL,
                     "result table: a set, a stage and a non-empty name are required");
        return NULL;
    }
    if (ncolumns == 0 || columns == NULL) {
        pp_error_set(err, PP_EINVAL, "result table \"%s\": at least one column is required", name);
        return NULL;
    }
    if (nkey > ncolumns) {
        pp_error_set(err, PP_EINVAL, "result table \"%s\": %u key columns but only %u columns",
                     name, nkey, ncolumns);
        return NULL;
    }
    json_array_foreach(tables, i, other) {
        const char *on = json_string_value(json_object_get(other, "name"));
        if (on != NULL && strcmp(on, name) == 0) {
            pp_error_set(err, PP_EINVAL,
                         "result table \"%s\": the stage already has a table of that name", name);
            return NULL;
        }
    }
    for (uint32_t c = 0; c < ncolumns; c++) {
        if (columns[c].name == NULL || columns[c].name[0] == '\0') {
            pp_error_set(err, PP_EINVAL, "result table \"%s\": column %u has no name", name, c);
            return NULL;
        }
        if (pp_column_type_name(columns[c].type) == NULL) {
            pp_error_set(err, PP_EINVAL, "result table \"%s\": column \"%s\" has unknown type %u",
                         name, columns[c].name, columns[c].type);
            return NULL;
        }
        for (uint32_t d = 0; d < c; d++)
            if (strcmp(columns[c].name, columns[d].name) == 0) {
                pp_error_set(err, PP_EINVAL, "result table \"%s\": column \"%s\" appears twice",
                             name, columns[c].name);
                return NULL;
            }
    }

    t = calloc(1, sizeof *t);
    if (t == NULL)
        goto nomem;
    t->ncolumns = ncolumns;
    t->name = strdup(name);
    t->types = calloc(ncolumns, sizeof *t->types);
    t->colnames = calloc(ncolumns, sizeof *t->colnames);
    if (t->name == NULL || t->types == NULL || t->colnames == NULL)
        goto nomem;
    for (uint32_t c = 0; c < ncolumns; c++) {
        t->types[c] = columns[c].type;
        if ((t->colnames[c] = strdup(columns[c].name)) == NULL)
            goto nomem;
    }

    tj = json_object();
    cols = json_array();
    key = json_array();
    rows = json_array();
    if (tj == NULL || cols == NULL || key == NULL || rows == NULL)
        goto nomem;
    for (uint32_t c = 0; c < ncolumns; c++) {
        json_t *cj = json_object();
        if (cj == NULL)
            goto nomem;
        rc |= set_new(cj, "name", json_string(columns[c].name));
        rc |= set_new(cj, "type", json_string(pp_column_type_name(columns[c].type)));
        if (columns[c].type == PP_COL_STRING && (columns[c].flags & PP_COL_FLAG_PROSE))
            rc |= set_new(cj, "prose", json_true());
        rc |= append_new(cols, cj);
        if (c < nkey)
            rc |= append_new(key, json_string(columns[c].name));
    }
    rc |= set_new(tj, "name", json_string(name));
    rc |= set_new(tj, "key", key);
    key = NULL;
    rc |= set_new(tj, "columns", cols);
    cols = NULL;
    t->rows = rows; /* borrowed once the table holds it */
    rc |= set_new(tj, "rows", rows);
    rows = NULL;
    if (rc != PP_OK || json_array_append_new(tables, tj) != 0) {
        tj = NULL;
        goto nomem;
    }
    t->magic = TABLE_MAGIC;
    t->set = set;
    t->next = set->head;
    set->head = t;
    return t;

nomem:
    json_decref(tj);
    json_decref(cols);
    json_decref(key);
    json_decref(rows);
    table_free(t);
    pp_error_set(err, PP_ENOMEM, "result table \"%s\": out of memory", name);
    return NULL;
}

static const char *
cell_type_name(uint32_t type)
{
    switch (type) {
    case PP_CELL_NULL: return "null";
    case PP_CELL_STRING: return "string";
    case PP_CELL_INT: return "integer";
    case PP_CELL_DOUBLE: return "double";
    default: return "unknown";
    }
}

/* The JSON for one cell, or NULL with *bad set when the cell does not fit
 * the column (or NULL with *bad clear when out of memory). */
static json_t *
cell_json(uint32_t coltype, const pp_cell *cell, int *bad)
{
    *bad = 0;
    switch (coltype) {
    case PP_COL_STRING:
        if (cell->type == PP_CELL_NULL || (cell->type == PP_CELL_STRING && cell->v.s == NULL))
            return json_null();
        if (cell->type == PP_CELL_STRING)
            return string_lossy(cell->v.s);
        break;
    case PP_COL_COUNT:
    case PP_COL_BYTES:
    case PP_COL_DURATION_NS:
    case PP_COL_TIMESTAMP_NS:
        if (cell->type == PP_CELL_INT)
            return json_integer(cell->v.i);
        break;
    case PP_COL_PERCENT:
    case PP_COL_NUMBER:
        if (cell->type == PP_CELL_NULL)
            return json_null();
        if (cell->type == PP_CELL_INT)
            return json_integer(cell->v.i);
        if (cell->type == PP_CELL_DOUBLE)
            return isfinite(cell->v.d) ? json_real(cell->v.d) : json_null();
        break;
    }
    *bad = 1;
    return NULL;
}

int
pp_result_table_row(pp_table *t, const pp_cell *cells, pp_error *err)
{
    json_t *row;

    if (t == NULL || t->magic != TABLE_MAGIC) {
        pp_error_set(err, PP_EINVAL, "result row: argument 1 (table) is %s",
                     t == NULL ? "NULL" : "not a live table");
        return PP_EINVAL;
    }
    if (cells == NULL) {
        snprintf(t->error, sizeof t->error, "result table \"%s\": argument 2 (cells) is NULL",
                 t->name);
        pp_error_set(err, PP_EINVAL, "%s", t->error);
        return PP_EINVAL;
    }
    if ((row = json_array()) == NULL)
        goto nomem;
    for (uint32_t c = 0; c < t->ncolumns; c++) {
        int bad;
        json_t *v = cell_json(t->types[c], &cells[c], &bad);
        if (bad) {
            json_decref(row);
            snprintf(
                t->error, sizeof t->error,
                "result table \"%s\" row %llu column %u (\"%s\"): a %s column cannot hold a %s cell",
                t->name, (unsigned long long)t->nrows, c, t->colnames[c],
                pp_column_type_name(t->types[c]), cell_type_name(cells[c].type));
            pp_error_set(err, PP_EINVAL, "%s", t->error);
            return PP_EINVAL;
        }
        if (v == NULL || json_array_append_new(row, v) != 0) {
            json_decref(row);
            goto nomem;
        }
    }
    if (json_array_append_new(t->rows, row) != 0)
        goto nomem;
    t->nrows++;
    return PP_OK;

nomem:
    snprintf(t->error, sizeof t->error, "result table \"%s\": out of memory", t->name);
    pp_error_set(err, PP_ENOMEM, "%s", t->error);
    return PP_ENOMEM;
}

uint32_t
pp_result_table_columns(const pp_table *t)
{
    return t != NULL && t->magic == TABLE_MAGIC ? t->ncolumns : 0;
}

const char *
pp_result_table_error(const pp_table *t)
{
    return t != NULL ? t->error : "";
}

void *
pp_result_table_owner(const pp_table *t)
{
    return t != NULL && t->magic == TABLE_MAGIC ? t->set->owner : NULL;
}

void
pp_result_tables_release(pp_table_set *set)
{
    if (set == NULL)
        return;
    while (set->head != NULL) {
        pp_table *next = set->head->next;

        set->head->magic = 0;
        table_free(set->head);
        set->head = next;
    }
}

int
pp_result_finding(json_t *stage, uint32_t severity, const char *code, const char *message)
{
    json_t *findings = json_object_get(stage, "findings");
    json_t *f;
    int rc = PP_OK;

    uint32_t level = severity & ~PP_FINDING_CAVEAT;

    if (!json_is_array(findings) || pp_severity_name(level) == NULL || code == NULL ||
        message == NULL)
        return PP_EINVAL;
    if ((f = json_object()) == NULL)
        return PP_ENOMEM;
    rc |= set_new(f, "severity", json_string(pp_severity_name(level)));
    rc |= set_new(f, "code", string_lossy(code));
    rc |= set_new(f, "message", string_lossy(message));
    if (severity & PP_FINDING_CAVEAT)
        rc |= set_new(f, "caveat", json_true());
    if (rc != PP_OK) {
        json_decref(f);
        return PP_ENOMEM;
    }
    return append_new(findings, f);
}

static int
total_set(json_t *stage, const char *name, const char *type, json_t *value)
{
    json_t *totals = json_object_get(stage, "totals");
    json_t *t;
    int rc = PP_OK;

    if (value == NULL)
        return PP_ENOMEM;
    if ((t = json_object()) == NULL) {
        json_decref(value);
        return PP_ENOMEM;
    }
    rc |= set_new(t, "type", json_string(type));
    rc |= set_new(t, "value", value);
    if (rc != PP_OK) {
        json_decref(t);
        return PP_ENOMEM;
    }
    return set_new(totals, name, t);
}

int
pp_result_total_int(json_t *stage, const char *name, uint32_t type, int64_t value)
{
    if (!json_is_object(json_object_get(stage, "totals")) || name == NULL)
        return PP_EINVAL;
    if (type == PP_COL_STRING || pp_column_type_name(type) == NULL)
        return PP_EINVAL;
    return total_set(stage, name, pp_column_type_name(type), json_integer(value));
}

int
pp_result_total_double(json_t *stage, const char *name, uint32_t type, double value)
{
    if (!json_is_object(json_object_get(stage, "totals")) || name == NULL)
        return PP_EINVAL;
    if (type != PP_COL_PERCENT && type != PP_COL_NUMBER)
        return PP_EINVAL;
    return total_set(stage, name, pp_column_type_name(type),
                     isfinite(value) ? json_real(value) : json_null());
}

int
pp_result_total_string(json_t *stage, const char *name, const char *value)
{
    if (!json_is_object(json_object_get(stage, "totals")) || name == NULL || value == NULL)
        return PP_EINVAL;
    return total_set(stage, name, "string", string_lossy(value));
}

int
pp_result_table_hint(json_t *stage, pp_table *t, const char *key, const char *value)
{
    json_t *tj, *hints;
    size_t i;

    if (t == NULL || key == NULL || key[0] == '\0' || value == NULL)
        return PP_EINVAL;
    json_array_foreach(json_object_get(stage, "tables"), i, tj) {
        if (json_object_get(tj, "rows") != t->rows)
            continue;
        hints = json_object_get(tj, "hints");
        if (hints == NULL) {
            if (set_new(tj, "hints", json_object()) != PP_OK)
                return PP_ENOMEM;
            hints = json_object_get(tj, "hints");
        }
        return set_new(hints, key, string_lossy(value));
    }
    return PP_EINVAL;
}
