/* Comparing two result documents of the same pipeline (A/B). */
#include "config.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "compare.h"
#include "result/result.h"

#define MAX_COLUMNS 64
#define EXAMPLES 5

static int
major_of(const char *version)
{
    return version != NULL ? atoi(version) : -1;
}

static json_t *
find_by(const json_t *array, const char *field, const char *value)
{
    size_t i;
    json_t *item;

    json_array_foreach(array, i, item) {
        const char *v = json_string_value(json_object_get(item, field));

        if (v != NULL && strcmp(v, value) == 0)
            return item;
    }
    return NULL;
}

/* Knobs must be identical: a result is only relative to its knobs. */
static int
check_knobs(const json_t *a, const json_t *b, char *diff, size_t size)
{
    const char *k;
    json_t *v;
    size_t used = 0;
    int n = 0;

    diff[0] = '\0';
    json_object_foreach((json_t *)a, k, v) {
        json_t *w = json_object_get(b, k);

        if (w == NULL || !json_equal(v, w)) {
            used += (size_t)snprintf(diff + used, used < size ? size - used : 0, "%s%s (%s vs %s)",
                                     n++ ? ", " : "", k, json_string_value(v),
                                     w ? json_string_value(w) : "unset");
        }
    }
    json_object_foreach((json_t *)b, k, v) {
        if (json_object_get(a, k) == NULL)
            used += (size_t)snprintf(diff + used, used < size ? size - used : 0,
                                     "%s%s (unset vs %s)", n++ ? ", " : "", k,
                                     json_string_value(v));
    }
    return n;
}

typedef struct col {
    const char *name;
    uint32_t type;
    size_t index;
} col;

static int
is_measure(uint32_t t)
{
    return t == PP_COL_COUNT || t == PP_COL_BYTES || t == PP_COL_DURATION_NS || t == PP_COL_NUMBER;
}

static double
num(const json_t *v)
{
    return json_is_integer(v) ? (double)json_integer_value(v) : json_is_real(v) ? json_real_value(v) : 0.0;
}

static void
human(char *buf, size_t size, uint32_t type, double v)
{
    if (type == PP_COL_BYTES)
        pp_format_bytes(buf, size, v);
    else if (type == PP_COL_DURATION_NS)
        pp_format_duration_ns(buf, size, v);
    else if (type == PP_COL_COUNT)
        pp_format_count(buf, size, (int64_t)llround(v));
    else
        pp_format_number(buf, size, v);
}

typedef struct joined {
    const json_t *b, *c;         /* rows, NULL when absent */
    double delta;                /* primary measure */
    const char *status;
    int noise;                   /* too few samples for the change to mean anything */
} joined;

static int
by_abs_delta(const void *x, const void *y)
{
    const joined *a = x, *b = y;
    double da = fabs(a->delta), db = fabs(b->delta);

    return da < db ? 1 : da > db ? -1 : 0;
}

static char *
row_key(const json_t *row, const size_t *keyidx, size_t nkey)
{
    char *out = NULL;
    size_t len = 0;

    for (size_t i = 0; i < nkey; i++) {
        char *part = json_dumps(json_array_get(row, keyidx[i]), JSON_ENCODE_ANY | JSON_COMPACT);
        size_t n = part ? strlen(part) : 0;
        char *grown = realloc(out, len + n + 2);

        if (grown == NULL) {
            free(part);
            free(out);
            return NULL;
        }
        out = grown;
        memcpy(out + len, part ? part : "", n);
        len += n;
        out[len++] = '\x1f';
        out[len] = '\0';
        free(part);
    }
    return out;
}

/* stack_table: a flame-graph table (first column `stack`). JIT inlining
 * reshapes stacks from run to run, so they gate only when a threshold
 * names the table explicitly. */
static double
threshold_for(const pp_compare_options *o, const char *table, const char *column, int primary,
              int stack_table)
{
    for (size_t i = 0; i < o->nthresholds; i++) {
        const pp_compare_threshold *t = &o->thresholds[i];
        int tm = (strcmp(t->table, "*") == 0 && !stack_table) || strcmp(t->table, table) == 0;
        int cm = strcmp(t->column, column) == 0 || (strcmp(t->column, "*") == 0 && primary);

        if (tm && cm)
            return t->percent;
    }
    return primary && !stack_table ? o->noise_percent : INFINITY;
}

/* Compare one table; adds a table and findings to out_stage. */
static int
compare_table(const json_t *tb, const json_t *tc, json_t *out_stage, const pp_compare_options *o,
              const char *weakened, int *regressions, pp_error *err)
{
    const char *name = json_string_value(json_object_get(tb, "name"));
    json_t *cols_b = json_object_get(tb, "columns"), *cols_c = json_object_get(tc, "columns");
    json_t *keys = json_object_get(tb, "key");
    json_t *rows_b = json_object_get(tb, "rows"), *rows_c = json_object_get(tc, "rows");
    col keycols[MAX_COLUMNS], measures[MAX_COLUMNS], shares[MAX_COLUMNS];
    size_t nkey = 0, nmeas = 0, nshare = 0, keyidx[MAX_COLUMNS];
    int samples_col = -1;        /* a sampled table's count column, if any */
    int stack_table = 0;
    int noise_rows = 0;
    size_t ncols = json_array_size(cols_b), nb = json_array_size(rows_b), nc = json_array_size(rows_c);
    pp_column outcols[MAX_COLUMNS * 4 + 2];
    char *names[MAX_COLUMNS * 4 + 2];
    size_t nout = 0;
    joined *rows = NULL;
    pp_table_set set = { NULL, NULL };
    size_t nrows = 0;
    json_t *index = NULL;
    pp_table *t;
    int appeared = 0, disappeared = 0, grew = 0, shrank = 0, inflated = 0;
    char ex_struct[EXAMPLES][256], ex_stat[EXAMPLES][256], ex_infl[256] = "";
    int nex_struct = 0, nex_stat = 0;
    int rc = PP_OK;

    if (!json_equal(cols_b, cols_c) || !json_equal(keys, json_object_get(tc, "key"))) {
        char msg[512];

        snprintf(msg, sizeof msg, "table %s: the two runs have different columns or keys "
                 "(different analyzer versions or options?); not compared", name);
        return pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.table_mismatch", msg);
    }
    if (ncols > MAX_COLUMNS)
        return PP_OK;
    for (size_t i = 0; i < ncols; i++) {
        json_t *c = json_array_get(cols_b, i);
        col k = { json_string_value(json_object_get(c, "name")),
                  pp_column_type_from_name(json_string_value(json_object_get(c, "type"))), i };
        int is_key = 0;

        for (size_t j = 0; j < json_array_size(keys); j++)
            if (strcmp(json_string_value(json_array_get(keys, j)), k.name) == 0)
                is_key = 1;
        if (!is_key && k.type == PP_COL_COUNT &&
            (strcmp(k.name, "samples") == 0 || strcmp(k.name, "ticks") == 0))
            samples_col = (int)i;
        if (is_key) {
            keyidx[nkey] = i;
            keycols[nkey++] = k;
        } else if (is_measure(k.type)) {
            measures[nmeas++] = k;
        } else if (k.type == PP_COL_PERCENT) {
            shares[nshare++] = k;
        }
    }
    if (nkey == 0 || nmeas == 0)
        return PP_OK;   /* nothing to join or to measure: not an A/B table */
    stack_table = strcmp(keycols[0].name, "stack") == 0 && keyidx[0] == 0;

    /* Output columns: keys, status, absolutes (base, cand, delta) for every
     * measure, then relative deltas, then shares before/after. */
    for (size_t i = 0; i < nkey; i++)
        outcols[nout++] = (pp_column){ keycols[i].name, keycols[i].type, 0 };
    outcols[nout++] = (pp_column){ "status", PP_COL_STRING, 0 };
    for (size_t m = 0; m < nmeas; m++) {
        static const char *const suffix[] = { "_base", "_cand", "_delta" };

        for (int s = 0; s < 3; s++) {
            size_t len = strlen(measures[m].name) + 8;

            names[nout] = malloc(len);
            if (names[nout] == NULL) {
                rc = PP_ENOMEM;
                goto out;
            }
            snprintf(names[nout], len, "%s%s", measures[m].name, suffix[s]);
            outcols[nout] = (pp_column){ names[nout], measures[m].type, 0 };
            nout++;
        }
    }
    for (size_t m = 0; m < nmeas; m++) {
        size_t len = strlen(measures[m].name) + 12;

        if ((names[nout] = malloc(len)) == NULL) {
            rc = PP_ENOMEM;
            goto out;
        }
        snprintf(names[nout], len, "%s_delta_pct", measures[m].name);
        outcols[nout] = (pp_column){ names[nout], PP_COL_PERCENT, 0 };
        nout++;
    }
    for (size_t p = 0; p < nshare; p++) {
        static const char *const suffix[] = { "_base", "_cand" };

        for (int s = 0; s < 2; s++) {
            size_t len = strlen(shares[p].name) + 8;

            if ((names[nout] = malloc(len)) == NULL) {
                rc = PP_ENOMEM;
                goto out;
            }
            snprintf(names[nout], len, "%s%s", shares[p].name, suffix[s]);
            outcols[nout] = (pp_column){ names[nout], PP_COL_PERCENT, 0 };
            nout++;
        }
    }

    /* Join. */
    index = json_object();
    rows = calloc(nb + nc + 1, sizeof *rows);
    if (index == NULL || rows == NULL) {
        rc = PP_ENOMEM;
        goto out;
    }
    for (size_t i = 0; i < nb; i++) {
        char *k = row_key(json_array_get(rows_b, i), keyidx, nkey);

        if (k == NULL) {
            rc = PP_ENOMEM;
            goto out;
        }
        rows[nrows].b = json_array_get(rows_b, i);
        json_object_set_new(index, k, json_integer((json_int_t)nrows));
        nrows++;
        free(k);
    }
    for (size_t i = 0; i < nc; i++) {
        char *k = row_key(json_array_get(rows_c, i), keyidx, nkey);
        json_t *at;

        if (k == NULL) {
            rc = PP_ENOMEM;
            goto out;
        }
        at = json_object_get(index, k);
        if (at != NULL)
            rows[json_integer_value(at)].c = json_array_get(rows_c, i);
        else
            rows[nrows++].c = json_array_get(rows_c, i);
        free(k);
    }
    for (size_t r = 0; r < nrows; r++) {
        size_t pi = measures[0].index;
        double vb = rows[r].b ? num(json_array_get(rows[r].b, pi)) : 0;
        double vc = rows[r].c ? num(json_array_get(rows[r].c, pi)) : 0;
        double rel = vb != 0 ? 100.0 * (vc - vb) / fabs(vb) : 0;
        int significant = 1;

        /* Sampled rows (allocation ticks, thread samples) are Poisson
         * counts: a change smaller than three standard deviations of the
         * two counts is sampling noise, whatever its relative size. */
        if (samples_col >= 0) {
            double kb = rows[r].b ? num(json_array_get(rows[r].b, (size_t)samples_col)) : 0;
            double kc = rows[r].c ? num(json_array_get(rows[r].c, (size_t)samples_col)) : 0;

            significant = fabs(kc - kb) > 3.0 * sqrt(kb + kc);
        }
        rows[r].delta = vc - vb;
        rows[r].noise = !significant;
        if (rows[r].b == NULL)
            rows[r].status = significant ? "appeared" : "appeared (noise)";
        else if (rows[r].c == NULL)
            rows[r].status = significant ? "disappeared" : "disappeared (noise)";
        else if (fabs(rel) <= o->noise_percent || !significant)
            rows[r].status = "unchanged";
        else
            rows[r].status = vc > vb ? "grew" : "shrank";
        if (!significant && (rows[r].b == NULL || rows[r].c == NULL))
            noise_rows++;
    }
    qsort(rows, nrows, sizeof *rows, by_abs_delta);

    if ((t = pp_result_table_new(&set, out_stage, name, (uint32_t)nout, outcols, (uint32_t)nkey,
                                 err)) == NULL) {
        rc = err ? err->code : PP_EINVAL;
        goto out;
    }
    for (size_t r = 0; r < nrows; r++) {
        const json_t *any = rows[r].b ? rows[r].b : rows[r].c;
        pp_cell cells[MAX_COLUMNS * 4 + 2];
        size_t n = 0;
        const char *label = json_string_value(json_array_get(any, keyidx[0]));
        char primary_text[3][64];
        int is_struct = (rows[r].b == NULL || rows[r].c == NULL) && !rows[r].noise;

        for (size_t i = 0; i < nkey; i++) {
            json_t *v = json_array_get(any, keyidx[i]);

            cells[n++] = json_is_string(v) ? pp_cell_str(json_string_value(v))
                         : json_is_integer(v) ? pp_cell_int(json_integer_value(v))
                         : json_is_real(v) ? pp_cell_dbl(json_real_value(v)) : pp_cell_null();
        }
        cells[n++] = pp_cell_str(rows[r].status);
        for (size_t m = 0; m < nmeas; m++) {
            double vb = rows[r].b ? num(json_array_get(rows[r].b, measures[m].index)) : 0;
            double vc = rows[r].c ? num(json_array_get(rows[r].c, measures[m].index)) : 0;

            if (measures[m].type == PP_COL_NUMBER) {
                cells[n++] = pp_cell_dbl(vb);
                cells[n++] = pp_cell_dbl(vc);
                cells[n++] = pp_cell_dbl(vc - vb);
            } else {
                cells[n++] = pp_cell_int((int64_t)llround(vb));
                cells[n++] = pp_cell_int((int64_t)llround(vc));
                cells[n++] = pp_cell_int((int64_t)llround(vc - vb));
            }
        }
        for (size_t m = 0; m < nmeas; m++) {
            double vb = rows[r].b ? num(json_array_get(rows[r].b, measures[m].index)) : 0;
            double vc = rows[r].c ? num(json_array_get(rows[r].c, measures[m].index)) : 0;
            double rel = vb != 0 ? 100.0 * (vc - vb) / fabs(vb) : NAN;

            cells[n++] = rows[r].b && rows[r].c && vb != 0 ? pp_cell_dbl(rel) : pp_cell_null();
            if (rows[r].b != NULL && rows[r].c != NULL && vb != 0 && !rows[r].noise &&
                rel > threshold_for(o, name, measures[m].name, m == 0, stack_table))
                (*regressions)++;
        }
        for (size_t p = 0; p < nshare; p++) {
            json_t *sb = rows[r].b ? json_array_get(rows[r].b, shares[p].index) : NULL;
            json_t *sc = rows[r].c ? json_array_get(rows[r].c, shares[p].index) : NULL;

            cells[n++] = sb ? pp_cell_dbl(num(sb)) : pp_cell_null();
            cells[n++] = sc ? pp_cell_dbl(num(sc)) : pp_cell_null();
            /* Shares moved while the absolute did not: inflation by removal. */
            if (p == 0 && sb && sc && strcmp(rows[r].status, "unchanged") == 0 &&
                fabs(num(sc) - num(sb)) > 1.0) {
                if (inflated++ == 0)
                    snprintf(ex_infl, sizeof ex_infl, "'%s' %.1f%% -> %.1f%%",
                             label ? label : "?", num(sb), num(sc));
            }
        }
        if (pp_result_table_row(t, cells, err) != PP_OK) {
            rc = err ? err->code : PP_EINVAL;
            goto out;
        }
        if (rows[r].noise && (rows[r].b == NULL || rows[r].c == NULL)) {
            /* counted in noise_rows */
        } else if (rows[r].b == NULL) {
            appeared++;
            if (threshold_for(o, name, measures[0].name, 1, stack_table) < INFINITY)
                (*regressions)++;
        } else if (rows[r].c == NULL) {
            disappeared++;
        } else if (strcmp(rows[r].status, "grew") == 0) {
            grew++;
        } else if (strcmp(rows[r].status, "shrank") == 0) {
            shrank++;
        }
        human(primary_text[0], sizeof primary_text[0], measures[0].type,
              rows[r].b ? num(json_array_get(rows[r].b, measures[0].index)) : 0);
        human(primary_text[1], sizeof primary_text[1], measures[0].type,
              rows[r].c ? num(json_array_get(rows[r].c, measures[0].index)) : 0);
        if (is_struct && nex_struct < EXAMPLES)
            snprintf(ex_struct[nex_struct++], sizeof ex_struct[0], "%s '%s' (%s %s -> %s)",
                     rows[r].status, label ? label : "?", measures[0].name, primary_text[0],
                     primary_text[1]);
        else if (!is_struct && strcmp(rows[r].status, "unchanged") != 0 && nex_stat < EXAMPLES)
            snprintf(ex_stat[nex_stat++], sizeof ex_stat[0], "%s '%s' (%s %s -> %s)",
                     rows[r].status, label ? label : "?", measures[0].name, primary_text[0],
                     primary_text[1]);
    }

    {
        char msg[2048];
        size_t used;

        if (appeared + disappeared > 0) {
            used = (size_t)snprintf(msg, sizeof msg, "table %s: %d appeared, %d disappeared — "
                                    "structural verdict (a row that comes or goes holds across "
                                    "sessions)%s:", name, appeared, disappeared, weakened);
            for (int i = 0; i < nex_struct && used < sizeof msg; i++)
                used += (size_t)snprintf(msg + used, sizeof msg - used, "%s %s", i ? ";" : "",
                                         ex_struct[i]);
            pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.structural", msg);
        }
        if (grew + shrank > 0) {
            used = (size_t)snprintf(msg, sizeof msg, "table %s: %d grew, %d shrank beyond the "
                                    "%.1f%% noise — statistical verdict: confirm with a same-session "
                                    "A/B with identical knobs%s:", name, grew, shrank,
                                    o->noise_percent, weakened);
            for (int i = 0; i < nex_stat && used < sizeof msg; i++)
                used += (size_t)snprintf(msg + used, sizeof msg - used, "%s %s", i ? ";" : "",
                                         ex_stat[i]);
            pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.statistical", msg);
        }
        if (noise_rows > 0) {
            snprintf(msg, sizeof msg, "table %s: %d row%s came or went with too few samples to "
                     "mean anything (within 3 standard deviations of sampling noise); no verdict",
                     name, noise_rows, noise_rows == 1 ? "" : "s");
            pp_result_finding(out_stage, PP_SEVERITY_INFO, "compare.sampling_noise", msg);
        }
        if (inflated > 0) {
            snprintf(msg, sizeof msg, "table %s: %d row%s changed share while %s stayed within "
                     "noise (e.g. %s): shares inflate when another slice is removed; read the "
                     "absolute columns", name, inflated, inflated == 1 ? "" : "s",
                     measures[0].name, ex_infl);
            pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.share_inflation", msg);
        }
    }
out:
    pp_result_tables_release(&set);
    for (size_t i = nkey + 1; i < nout; i++)
        free(names[i]);
    free(rows);
    json_decref(index);
    if (rc == PP_ENOMEM)
        pp_error_set(err, PP_ENOMEM, "out of memory comparing table %s", name);
    return rc;
}

int
pp_compare(const json_t *base, const json_t *cand, const pp_compare_options *o, json_t **out,
           int *regressions, pp_error *err)
{
    const char *pb = json_string_value(json_object_get(base, "pipeline"));
    const char *pc = json_string_value(json_object_get(cand, "pipeline"));
    json_t *sb = json_object_get(base, "stages"), *sc = json_object_get(cand, "stages");
    char diff[1024];
    const char *weakened = "";
    json_t *doc, *stage;
    size_t i;
    int rc = PP_OK;

    *out = NULL;
    *regressions = 0;
    if (pb == NULL || pc == NULL || strcmp(pb, pc) != 0) {
        pp_error_set(err, PP_EINVAL, "the results come from different pipelines ('%s' and '%s'); "
                     "compare runs of one pipeline", pb ? pb : "?", pc ? pc : "?");
        return PP_EINVAL;
    }
    if (check_knobs(json_object_get(base, "knobs"), json_object_get(cand, "knobs"), diff,
                    sizeof diff) > 0) {
        if (!o->allow_knob_drift) {
            pp_error_set(err, PP_EINVAL, "the runs' knobs differ: %s; results are only relative "
                         "to identical knobs (rerun with the same --set values, or "
                         "--allow-knob-drift to compare anyway, with weakened verdicts)", diff);
            return PP_EINVAL;
        }
        weakened = " (WEAKENED: the runs' knobs differ)";
    }
    json_array_foreach(sb, i, stage) {
        const char *id = json_string_value(json_object_get(stage, "id"));
        json_t *other = find_by(sc, "id", id);
        json_t *ab = json_object_get(stage, "analyzer"), *ac;
        const char *nb = json_string_value(json_object_get(ab, "name")), *nc;

        if (other == NULL) {
            pp_error_set(err, PP_EINVAL, "stage '%s' is missing from the candidate", id);
            return PP_EINVAL;
        }
        ac = json_object_get(other, "analyzer");
        nc = json_string_value(json_object_get(ac, "name"));
        if (nb == NULL || nc == NULL || strcmp(nb, nc) != 0) {
            pp_error_set(err, PP_EINVAL, "stage '%s' ran analyzer '%s' in the baseline and '%s' "
                         "in the candidate", id, nb ? nb : "?", nc ? nc : "?");
            return PP_EINVAL;
        }
        if (major_of(json_string_value(json_object_get(ab, "version"))) !=
            major_of(json_string_value(json_object_get(ac, "version")))) {
            pp_error_set(err, PP_EINVAL, "stage '%s': analyzer %s %s vs %s: incompatible versions "
                         "(major differs); rerun both with one perfpipe", id, nb,
                         json_string_value(json_object_get(ab, "version")),
                         json_string_value(json_object_get(ac, "version")));
            return PP_EINVAL;
        }
    }

    doc = pp_result_new("compare");
    if (doc == NULL) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    json_object_set(doc, "knobs", json_object_get(base, "knobs"));
    {
        json_t *compared = json_object();

        json_object_set_new(compared, "pipeline", json_string(pb));
        json_object_set(compared, "baseline_inputs", json_object_get(base, "inputs"));
        json_object_set(compared, "candidate_inputs", json_object_get(cand, "inputs"));
        json_object_set(compared, "candidate_knobs", json_object_get(cand, "knobs"));
        json_object_set_new(compared, "noise_percent", json_real(o->noise_percent));
        json_object_set_new(doc, "compared", compared);
    }
    json_array_foreach(sb, i, stage) {
        const char *id = json_string_value(json_object_get(stage, "id"));
        json_t *other = find_by(sc, "id", id);
        json_t *an = json_object_get(stage, "analyzer");
        json_t *out_stage = pp_result_add_stage(doc, id, json_string_value(json_object_get(an, "name")),
                                                json_string_value(json_object_get(an, "version")));
        json_t *tables = json_object_get(stage, "tables"), *tb;
        size_t k;

        if (out_stage == NULL) {
            rc = PP_ENOMEM;
            break;
        }
        if (*weakened != '\0')
            pp_result_finding(out_stage, PP_SEVERITY_WARNING, "compare.knob_drift", diff);
        json_array_foreach(tables, k, tb) {
            json_t *tc = find_by(json_object_get(other, "tables"), "name",
                                 json_string_value(json_object_get(tb, "name")));

            if (tc == NULL)
                continue;
            if ((rc = compare_table(tb, tc, out_stage, o, weakened, regressions, err)) != PP_OK)
                break;
        }
        if (rc != PP_OK)
            break;
    }
    if (rc != PP_OK) {
        json_decref(doc);
        return rc;
    }
    *out = doc;
    return PP_OK;
}
