/* cpu's `self_time` view: how much of a running method's time is its own
 * code (an algorithmic loop) rather than what it calls, and whether it runs
 * on a request path (selftime.h). */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "result/jsonmem.h"
#include "rules/cells.h"
#include "rules/derive.h"
#include "rules/selftime.h"

static double
cell_num(const json_t *row, int i)
{
    const json_t *v = i >= 0 ? json_array_get(row, (size_t)i) : NULL;

    return json_is_number(v) ? json_number_value(v) : 0;
}

/* A frame of a request's processing: the server or a middleware of ASP.NET
 * Core. A stack on a thread-pool thread is one too (how Kestrel and queued
 * work run; a thread of its own, Main or a timer thread is not one): the
 * pool's loops are listed once, in pp_ev_pool_stack (derive.h). */
static int
request_frame(const char *f)
{
    return strncmp(f, "Microsoft.AspNetCore.", 21) == 0;
}

/* Per method: [ms, self_ms, request_ms, samples]. */
enum { MS, SELF, REQ, NSAMP, NSUM };

/* Add one stack's weight to the sums of the methods it passes through. */
static void
fold(const json_t *index, double *sums, char *stack, double w, double samples)
{
    char *names[512], *save = NULL;
    size_t n = 0;
    int request = pp_ev_pool_stack(stack); /* before strtok_r cuts it */

    for (char *f = strtok_r(stack, ";", &save); f != NULL && n < 512;
         f = strtok_r(NULL, ";", &save)) {
        names[n++] = f;
        request |= request_frame(f);
    }
    for (size_t i = 0; i < n; i++) {
        const json_t *at = json_object_get(index, names[i]);
        double *s = at != NULL ? sums + json_integer_value(at) * NSUM : NULL;
        int dup = 0;

        for (size_t j = 0; j < i && !dup; j++)
            dup = strcmp(names[j], names[i]) == 0; /* recursion counts once */
        if (s == NULL || dup)
            continue;
        s[MS] += w;
        s[REQ] += request ? w : 0;
        if (i + 1 == n) {
            s[SELF] += w;
            s[NSAMP] += samples;
        }
    }
}

typedef struct st_row {
    const json_t *run;
    double *s;
} st_row;

static int
by_self(const void *a, const void *b)
{
    const st_row *x = a, *y = b;

    return x->s[SELF] != y->s[SELF] ? (x->s[SELF] < y->s[SELF] ? 1 : -1) : 0;
}

int
pp_ev_self_time(const json_t *running, const json_t *stacks, const json_t *modules,
                pp_ev_table *out)
{
    int mi = pp_ev_raw_col(running, "method"), modi = pp_ev_raw_col(running, "module"),
        rmi = pp_ev_raw_col(running, "ms");
    int si = pp_ev_raw_col(stacks, "stack"), wi = pp_ev_raw_col(stacks, "ms"),
        ni = pp_ev_raw_col(stacks, "samples");
    int mmod = pp_ev_raw_col(modules, "module"), mcls = pp_ev_raw_col(modules, "class");
    size_t nrun = json_array_size(json_object_get(running, "rows")), n = 0, i;
    double *sums = calloc(nrun * NSUM + 1, sizeof *sums), total = 0;
    st_row *rows = calloc(nrun + 1, sizeof *rows);
    json_t *index = json_object(), *row;
    int rc = -1;

    out->columns = json_pack("[sssssssss]", "method", "module", "class", "ms", "self_ms",
                             "self_share", "share", "request_share", "samples");
    out->rows = json_array();
    if (sums == NULL || rows == NULL)
        pp_jsonmem_lost(); /* outside jansson: counted so the document is refused */
    if (sums == NULL || rows == NULL || index == NULL || out->columns == NULL || out->rows == NULL)
        goto out;
    /* the sums of each method live in `sums`; index maps its name to them */
    json_array_foreach(json_object_get(running, "rows"), i, row) {
        const char *m = pp_ev_raw_str(row, mi);

        total += cell_num(row, rmi);
        if (m[0] == '\0' || m[0] == '[' || json_object_get(index, m) != NULL)
            continue;
        rows[n].run = row;
        rows[n].s = sums + n * NSUM;
        if (json_object_set_new(index, m, json_integer((json_int_t)n)) != 0)
            goto out;
        n++;
    }
    json_array_foreach(json_object_get(stacks, "rows"), i, row) {
        const char *s = pp_ev_raw_str(row, si);
        double w = cell_num(row, wi);
        char *copy;

        if (s[0] == '\0' || w <= 0)
            continue;
        if ((copy = strdup(s)) == NULL) {
            pp_jsonmem_lost();
            goto out;
        }
        fold(index, sums, copy, w, cell_num(row, ni));
        free(copy);
    }
    qsort(rows, n, sizeof *rows, by_self);
    for (i = 0; i < n; i++) {
        const double *s = rows[i].s;
        const char *mod = pp_ev_raw_str(rows[i].run, modi), *cls = "";
        size_t k;
        json_t *m;

        json_array_foreach(json_object_get(modules, "rows"), k, m)
            if (mod[0] != '\0' && strcmp(pp_ev_raw_str(m, mmod), mod) == 0)
                cls = pp_ev_raw_str(m, mcls);
        if (s[MS] <= 0)
            continue;
        if (json_array_append_new(out->rows,
                                  json_pack("[sssfffffi]", pp_ev_raw_str(rows[i].run, mi), mod, cls,
                                            s[MS], s[SELF], 100.0 * s[SELF] / s[MS],
                                            total > 0 ? 100.0 * s[SELF] / total : 0.0,
                                            100.0 * s[REQ] / s[MS], (json_int_t)s[NSAMP])) != 0)
            goto out;
    }
    rc = 0;
out:
    json_decref(index);
    free(rows);
    free(sums);
    return rc;
}
