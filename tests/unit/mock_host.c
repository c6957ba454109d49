/* tests/unit: the mock host for plugin unit tests (see mock_host.h). */
#include "mock_host.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "base/advice.h"

typedef struct kv {
    char *name;
    char *value;
} kv;

typedef struct opt_list {
    char **items;
    uint32_t count;
} opt_list;

struct mock_table {
    char *name;
    uint32_t ncols, nkey;
    pp_column *cols;
    pp_cell *cells; /* rows * ncols, strings owned */
    uint32_t rows, cap;
    mock_host *mh;
};

typedef struct finding {
    uint32_t severity;
    char *code;
    char *message;
} finding;

typedef struct total {
    char *name;
    int kind; /* 1 int, 2 double, 3 string */
    uint32_t type;
    int64_t i;
    double d;
    char *s;
} total;

/* The fake source handle points at this, so trace_* calls find the mock. */
typedef struct fake_source {
    uint32_t magic;
    mock_host *mh;
} fake_source;
#define FAKE_MAGIC 0x6d6f636bu

struct pp_ctx {
    mock_host *mh;
};
struct pp_options {
    mock_host *mh;
};

struct mock_host {
    const pp_analyzer *an;
    pp_host_api api;
    struct pp_ctx ctx;
    struct pp_options opts;
    fake_source src;

    kv *options;
    size_t noptions;
    kv *knobs;
    size_t nknobs;
    opt_list *lists; /* [an->option_count], parsed at create */

    const mock_symbol *syms;
    size_t nsyms;
    pp_trace_info info;
    int has_info;
    mock_symbolize_fn fwd_sym;
    mock_info_fn fwd_info;
    mock_field_fn fwd_field;
    char **symstrs;
    size_t nsymstrs;

    void *state;
    int alive;
    int in_finish;

    mock_table **tables;
    size_t ntables;
    finding *findings;
    size_t nfindings;
    total *totals;
    size_t ntotals;
    size_t nlogs;
    size_t violations;
    char first_violation[256];
};

/* trace_symbolize has no ctx: the fake source leads back to the mock, and a
 * forwarded (real) source is served through the one live mock. */
static mock_host *current;

static char *
xstrdup(const char *s)
{
    char *d = strdup(s ? s : "");
    if (!d) {
        fprintf(stderr, "mock_host: out of memory\n");
        abort();
    }
    return d;
}

static void *
xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q) {
        fprintf(stderr, "mock_host: out of memory\n");
        abort();
    }
    return q;
}

static void violation(mock_host *mh, const char *fmt, ...) PP_PRINTF(2, 3);
static void
violation(mock_host *mh, const char *fmt, ...)
{
    if (mh->violations++ == 0) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(mh->first_violation, sizeof mh->first_violation, fmt, ap);
        va_end(ap);
    }
}

/* ---- options ---- */

static const pp_option_decl *
decl_of(const mock_host *mh, const char *name, uint32_t *index)
{
    for (uint32_t i = 0; i < mh->an->option_count; i++)
        if (strcmp(mh->an->options[i].name, name) == 0) {
            if (index)
                *index = i;
            return &mh->an->options[i];
        }
    return NULL;
}

static const char *
value_of(const mock_host *mh, const pp_option_decl *d)
{
    for (size_t i = mh->noptions; i-- > 0;)
        if (strcmp(mh->options[i].name, d->name) == 0)
            return mh->options[i].value;
    return d->default_value;
}

static int
parse_bool(const char *s, int *out)
{
    if (!strcmp(s, "true") || !strcmp(s, "yes") || !strcmp(s, "1")) {
        *out = 1;
        return 0;
    }
    if (!strcmp(s, "false") || !strcmp(s, "no") || !strcmp(s, "0")) {
        *out = 0;
        return 0;
    }
    return -1;
}

static int
parse_int(const char *s, int64_t *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (end == s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

static int
parse_double(const char *s, double *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (end == s || *end || errno)
        return -1;
    *out = v;
    return 0;
}

static int
typed_value(const pp_options *o, const char *name, uint32_t type, const char **v)
{
    const pp_option_decl *d = decl_of(o->mh, name, NULL);
    if (!d) {
        violation(o->mh, "option '%s' read but not declared", name);
        return PP_EINVAL;
    }
    if (d->type != type)
        return PP_EINVAL;
    *v = value_of(o->mh, d);
    return *v ? PP_OK : PP_ENOTFOUND;
}

static int
m_opt_bool(const pp_options *o, const char *name, int *out)
{
    const char *v;
    int rc = typed_value(o, name, PP_OPT_BOOL, &v);
    return rc == PP_OK && parse_bool(v, out) != 0 ? PP_EINVAL : rc;
}

static int
m_opt_int(const pp_options *o, const char *name, int64_t *out)
{
    const char *v;
    int rc = typed_value(o, name, PP_OPT_INT, &v);
    return rc == PP_OK && parse_int(v, out) != 0 ? PP_EINVAL : rc;
}

static int
m_opt_double(const pp_options *o, const char *name, double *out)
{
    const char *v;
    int rc = typed_value(o, name, PP_OPT_DOUBLE, &v);
    return rc == PP_OK && parse_double(v, out) != 0 ? PP_EINVAL : rc;
}

static int
m_opt_string(const pp_options *o, const char *name, const char **out)
{
    return typed_value(o, name, PP_OPT_STRING, out);
}

static const opt_list *
list_of(const pp_options *o, const char *name, int *rc)
{
    uint32_t idx;
    const pp_option_decl *d = decl_of(o->mh, name, &idx);
    if (!d || d->type != PP_OPT_STRING_LIST) {
        *rc = PP_EINVAL;
        return NULL;
    }
    if (!value_of(o->mh, d)) {
        *rc = PP_ENOTFOUND;
        return NULL;
    }
    *rc = PP_OK;
    return &o->mh->lists[idx];
}

static int
m_opt_list_count(const pp_options *o, const char *name, uint32_t *out)
{
    int rc;
    const opt_list *l = list_of(o, name, &rc);
    if (l)
        *out = l->count;
    return rc;
}

static int
m_opt_list_item(const pp_options *o, const char *name, uint32_t index, const char **out)
{
    int rc;
    const opt_list *l = list_of(o, name, &rc);
    if (!l)
        return rc;
    if (index >= l->count)
        return PP_ENOTFOUND;
    *out = l->items[index];
    return PP_OK;
}

static const char *
m_knob(pp_ctx *ctx, const char *name)
{
    for (size_t i = ctx->mh->nknobs; i-- > 0;)
        if (strcmp(ctx->mh->knobs[i].name, name) == 0)
            return ctx->mh->knobs[i].value;
    return NULL;
}

/* ---- log / errors ---- */

static void
m_log(pp_ctx *ctx, int level, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "[mock log %d] ", level);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    ctx->mh->nlogs++;
}

static void
m_error_set(pp_error *err, int32_t code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    pp_error_setv(err, code, fmt, ap);
    va_end(ap);
}

/* ---- results ---- */

static int
results_allowed(mock_host *mh, const char *what)
{
    if (!mh->in_finish) {
        violation(mh, "%s called outside finish()", what);
        return 0;
    }
    return 1;
}

static pp_table *
m_table_new(pp_ctx *ctx, const char *name, uint32_t ncolumns, const pp_column *columns,
            uint32_t nkey)
{
    mock_host *mh = ctx->mh;
    if (!results_allowed(mh, "table_new"))
        return NULL;
    if (mock_host_table(mh, name))
        violation(mh, "table '%s' created twice", name);
    if (ncolumns == 0 || nkey > ncolumns)
        violation(mh, "table '%s': %u columns, %u key columns", name, ncolumns, nkey);
    mock_table *t = calloc(1, sizeof *t);
    if (!t)
        abort();
    t->name = xstrdup(name);
    t->ncols = ncolumns;
    t->nkey = nkey;
    t->mh = mh;
    t->cols = xrealloc(NULL, ncolumns * sizeof *t->cols);
    for (uint32_t i = 0; i < ncolumns; i++) {
        t->cols[i] = columns[i];
        t->cols[i].name = xstrdup(columns[i].name);
    }
    mh->tables = xrealloc(mh->tables, (mh->ntables + 1) * sizeof *mh->tables);
    mh->tables[mh->ntables++] = t;
    return (pp_table *)t;
}

static int
cell_fits(uint32_t coltype, const pp_cell *c)
{
    if (c->type == PP_CELL_NULL)
        return 1;
    switch (coltype) {
    case PP_COL_STRING: return c->type == PP_CELL_STRING && c->v.s != NULL;
    case PP_COL_COUNT:
    case PP_COL_BYTES:
    case PP_COL_DURATION_NS:
    case PP_COL_TIMESTAMP_NS: return c->type == PP_CELL_INT;
    case PP_COL_PERCENT: return c->type == PP_CELL_DOUBLE && c->v.d >= 0 && c->v.d <= 100.0000001;
    case PP_COL_NUMBER: return c->type == PP_CELL_DOUBLE;
    default: return 0;
    }
}

static int
m_table_row(pp_table *pt, const pp_cell *cells)
{
    mock_table *t = (mock_table *)pt;
    if (!results_allowed(t->mh, "table_row"))
        return PP_EPLUGIN;
    if (t->rows == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->cells = xrealloc(t->cells, (size_t)t->cap * t->ncols * sizeof *t->cells);
    }
    pp_cell *row = t->cells + (size_t)t->rows * t->ncols;
    for (uint32_t i = 0; i < t->ncols; i++) {
        if (!cell_fits(t->cols[i].type, &cells[i]))
            violation(t->mh,
                      "table '%s' row %u column '%s': cell type %u does not fit column type %u",
                      t->name, t->rows, t->cols[i].name, cells[i].type, t->cols[i].type);
        row[i] = cells[i];
        if (cells[i].type == PP_CELL_STRING)
            row[i].v.s = xstrdup(cells[i].v.s);
    }
    t->rows++;
    return PP_OK;
}

static int
m_finding(pp_ctx *ctx, uint32_t severity, const char *code, const char *fmt, ...)
{
    mock_host *mh = ctx->mh;
    if (!results_allowed(mh, "finding"))
        return PP_EPLUGIN;
    if (!code || !strchr(code, '.'))
        violation(mh, "finding code '%s' is not dotted", code ? code : "(null)");
    uint32_t caveat = severity & PP_FINDING_CAVEAT; /* ABI 1.6: a flag, kept apart */
    severity &= ~PP_FINDING_CAVEAT;
    if (severity > PP_SEVERITY_ERROR)
        violation(mh, "finding '%s': severity %u", code, severity | caveat);
    char msg[2048];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    mh->findings = xrealloc(mh->findings, (mh->nfindings + 1) * sizeof *mh->findings);
    mh->findings[mh->nfindings++] = (finding){ severity, xstrdup(code), xstrdup(msg) };
    return PP_OK;
}

static total *
new_total(mock_host *mh, const char *name, int kind)
{
    for (size_t i = 0; i < mh->ntotals; i++)
        if (!strcmp(mh->totals[i].name, name))
            violation(mh, "total '%s' set twice", name);
    mh->totals = xrealloc(mh->totals, (mh->ntotals + 1) * sizeof *mh->totals);
    total *t = &mh->totals[mh->ntotals++];
    memset(t, 0, sizeof *t);
    t->name = xstrdup(name);
    t->kind = kind;
    return t;
}

static int
m_total_int(pp_ctx *ctx, const char *name, uint32_t type, int64_t value)
{
    if (!results_allowed(ctx->mh, "total_int"))
        return PP_EPLUGIN;
    total *t = new_total(ctx->mh, name, 1);
    t->type = type;
    t->i = value;
    return PP_OK;
}

static int
m_total_double(pp_ctx *ctx, const char *name, uint32_t type, double value)
{
    if (!results_allowed(ctx->mh, "total_double"))
        return PP_EPLUGIN;
    total *t = new_total(ctx->mh, name, 2);
    t->type = type;
    t->d = value;
    return PP_OK;
}

static int
m_total_string(pp_ctx *ctx, const char *name, const char *value)
{
    if (!results_allowed(ctx->mh, "total_string"))
        return PP_EPLUGIN;
    total *t = new_total(ctx->mh, name, 3);
    t->type = PP_COL_STRING;
    t->s = xstrdup(value);
    return PP_OK;
}

/* ---- traces ---- */

static mock_host *
host_of(const pp_trace_source *src)
{
    /* the fake source names its mock; a real (forwarded) source belongs to
     * the one mock that is running */
    const fake_source *f = (const fake_source *)src;
    if (current && src == (const pp_trace_source *)&current->src && f->magic == FAKE_MAGIC)
        return f->mh;
    return current;
}

static int
m_trace_field(const pp_trace_event *ev, const char *name, pp_value *out)
{
    mock_host *mh = host_of(ev->source);
    if (mh && mh->fwd_field && ev->source != (const pp_trace_source *)&mh->src)
        return mh->fwd_field(ev, name, out);
    return PP_ENOTFOUND;
}

static const char *
m_trace_symbolize(const pp_trace_source *src, uint64_t ip, uint32_t flags)
{
    mock_host *mh = host_of(src);
    if (!mh)
        return "?!mock-without-host";
    if (!mh->in_finish)
        violation(mh, "trace_symbolize called outside finish(): method maps are incomplete then");
    if (mh->fwd_sym && src != (const pp_trace_source *)&mh->src)
        return mh->fwd_sym(src, ip, flags);
    char buf[64];
    const char *name = NULL;
    for (size_t i = 0; i < mh->nsyms; i++)
        if (ip >= mh->syms[i].start && ip - mh->syms[i].start < mh->syms[i].size) {
            name = mh->syms[i].name;
            break;
        }
    if (!name) {
        snprintf(buf, sizeof buf, "?!0x%" PRIx64, ip);
        name = buf;
    }
    mh->symstrs = xrealloc(mh->symstrs, (mh->nsymstrs + 1) * sizeof *mh->symstrs);
    return mh->symstrs[mh->nsymstrs++] = xstrdup(name);
}

static int
m_trace_info(const pp_trace_source *src, pp_trace_info *out)
{
    mock_host *mh = host_of(src);
    if (!mh)
        return PP_EINVAL;
    if (mh->fwd_info && src != (const pp_trace_source *)&mh->src)
        return mh->fwd_info(src, out);
    if (!mh->has_info)
        return PP_EINVAL;
    uint32_t size = out->struct_size;
    *out = mh->info;
    out->struct_size = size < sizeof *out ? size : (uint32_t)sizeof *out;
    return PP_OK;
}

static int
m_capture_advice(pp_ctx *ctx, uint32_t how, const char *args, char *buf, uint32_t size)
{
    (void)ctx;
    if (buf == NULL || size == 0 || how > PP_CAPTURE_STOP)
        return PP_EINVAL;
    pp_advice_capture(0, how, args, buf, size); /* a file no collect wrote */
    return PP_OK;
}

/* ---- public ---- */

mock_host *
mock_host_new(const pp_analyzer *an)
{
    mock_host *mh = calloc(1, sizeof *mh);
    if (!mh)
        return NULL;
    mh->an = an;
    mh->ctx.mh = mh;
    mh->opts.mh = mh;
    mh->src.magic = FAKE_MAGIC;
    mh->src.mh = mh;
    pp_host_api *a = &mh->api;
    a->struct_size = sizeof *a;
    a->abi_major = PP_ABI_MAJOR;
    a->abi_minor = PP_ABI_MINOR;
    a->log = m_log;
    a->error_set = m_error_set;
    a->opt_bool = m_opt_bool;
    a->opt_int = m_opt_int;
    a->opt_double = m_opt_double;
    a->opt_string = m_opt_string;
    a->opt_list_count = m_opt_list_count;
    a->opt_list_item = m_opt_list_item;
    a->knob = m_knob;
    a->table_new = m_table_new;
    a->table_row = m_table_row;
    a->finding = m_finding;
    a->total_int = m_total_int;
    a->total_double = m_total_double;
    a->total_string = m_total_string;
    a->trace_field = m_trace_field;
    a->trace_symbolize = m_trace_symbolize;
    a->trace_info = m_trace_info;
    a->capture_advice = m_capture_advice;
    current = mh;
    return mh;
}

static void
free_kvs(kv *v, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        free(v[i].name);
        free(v[i].value);
    }
    free(v);
}

void
mock_host_free(mock_host *mh)
{
    if (!mh)
        return;
    if (mh->alive && mh->an->destroy)
        mh->an->destroy(mh->state);
    free_kvs(mh->options, mh->noptions);
    free_kvs(mh->knobs, mh->nknobs);
    if (mh->lists) {
        for (uint32_t i = 0; i < mh->an->option_count; i++) {
            for (uint32_t j = 0; j < mh->lists[i].count; j++)
                free(mh->lists[i].items[j]);
            free(mh->lists[i].items);
        }
        free(mh->lists);
    }
    for (size_t i = 0; i < mh->nsymstrs; i++)
        free(mh->symstrs[i]);
    free(mh->symstrs);
    for (size_t i = 0; i < mh->ntables; i++) {
        mock_table *t = mh->tables[i];
        for (size_t c = 0; c < (size_t)t->rows * t->ncols; c++)
            if (t->cells[c].type == PP_CELL_STRING)
                free((char *)t->cells[c].v.s);
        for (uint32_t c = 0; c < t->ncols; c++)
            free((char *)t->cols[c].name);
        free(t->cols);
        free(t->cells);
        free(t->name);
        free(t);
    }
    free(mh->tables);
    for (size_t i = 0; i < mh->nfindings; i++) {
        free(mh->findings[i].code);
        free(mh->findings[i].message);
    }
    free(mh->findings);
    for (size_t i = 0; i < mh->ntotals; i++) {
        free(mh->totals[i].name);
        free(mh->totals[i].s);
    }
    free(mh->totals);
    if (current == mh)
        current = NULL;
    free(mh);
}

static int
add_kv(kv **v, size_t *n, const char *name, const char *value)
{
    *v = xrealloc(*v, (*n + 1) * sizeof **v);
    (*v)[*n].name = xstrdup(name);
    (*v)[*n].value = xstrdup(value);
    (*n)++;
    return 0;
}

int
mock_host_set_option(mock_host *mh, const char *name, const char *value)
{
    return add_kv(&mh->options, &mh->noptions, name, value);
}

int
mock_host_set_knob(mock_host *mh, const char *name, const char *value)
{
    return add_kv(&mh->knobs, &mh->nknobs, name, value);
}

void
mock_host_set_symbols(mock_host *mh, const mock_symbol *syms, size_t n)
{
    mh->syms = syms;
    mh->nsyms = n;
}

void
mock_host_set_trace_info(mock_host *mh, const pp_trace_info *info)
{
    mh->info = *info;
    mh->has_info = 1;
}

void
mock_host_forward_trace(mock_host *mh, mock_symbolize_fn sym, mock_info_fn info,
                        mock_field_fn field)
{
    mh->fwd_sym = sym;
    mh->fwd_info = info;
    mh->fwd_field = field;
}

const pp_trace_source *
mock_host_source(mock_host *mh)
{
    return (const pp_trace_source *)&mh->src;
}
const pp_host_api *
mock_host_api(mock_host *mh)
{
    return &mh->api;
}

static void
split_list(opt_list *l, const char *v)
{
    l->items = NULL;
    l->count = 0;
    const char *p = v;
    while (*p) {
        const char *c = strchr(p, ',');
        size_t n = c ? (size_t)(c - p) : strlen(p);
        while (n && *p == ' ') {
            p++;
            n--;
        }
        while (n && p[n - 1] == ' ')
            n--;
        l->items = xrealloc(l->items, (l->count + 1) * sizeof *l->items);
        char *s = xrealloc(NULL, n + 1);
        memcpy(s, p, n);
        s[n] = '\0';
        l->items[l->count++] = s;
        if (!c)
            break;
        p = c + 1;
    }
}

int
mock_host_create(mock_host *mh, pp_error *err)
{
    current = mh;
    /* validate as the host does: declared names, parseable values */
    for (size_t i = 0; i < mh->noptions; i++) {
        const pp_option_decl *d = decl_of(mh, mh->options[i].name, NULL);
        const char *v = mh->options[i].value;
        int bad = 0;
        int b;
        int64_t n;
        double x;
        if (!d) {
            pp_error_set(err, PP_EINVAL, "unknown option '%s' for analyzer '%s'",
                         mh->options[i].name, mh->an->name);
            return PP_EINVAL;
        }
        switch (d->type) {
        case PP_OPT_BOOL: bad = parse_bool(v, &b); break;
        case PP_OPT_INT: bad = parse_int(v, &n); break;
        case PP_OPT_DOUBLE: bad = parse_double(v, &x); break;
        default: break;
        }
        if (bad) {
            pp_error_set(err, PP_EINVAL, "option '%s': cannot read '%s' as its declared type",
                         d->name, v);
            return PP_EINVAL;
        }
    }
    mh->lists = calloc(mh->an->option_count ? mh->an->option_count : 1, sizeof *mh->lists);
    if (!mh->lists)
        abort();
    for (uint32_t i = 0; i < mh->an->option_count; i++) {
        const pp_option_decl *d = &mh->an->options[i];
        const char *v = value_of(mh, d);
        if (d->type == PP_OPT_STRING_LIST && v)
            split_list(&mh->lists[i], v);
    }
    int rc = mh->an->create(&mh->api, &mh->ctx, &mh->opts, &mh->state, err);
    if (rc == PP_OK)
        mh->alive = 1;
    return rc;
}

int
mock_host_consume(mock_host *mh, const pp_record *rec, pp_error *err)
{
    if (!mh->alive) {
        violation(mh, "consume without a live state");
        return PP_EPLUGIN;
    }
    return mh->an->consume(mh->state, rec, err);
}

int
mock_host_consume_event(mock_host *mh, const pp_trace_event *ev, pp_error *err)
{
    pp_record rec = { .struct_size = sizeof rec, .kind = PP_KIND_NETTRACE, .input_index = 0 };
    rec.u.event = ev;
    return mock_host_consume(mh, &rec, err);
}

int
mock_host_finish(mock_host *mh, pp_error *err)
{
    if (!mh->alive) {
        violation(mh, "finish without a live state");
        return PP_EPLUGIN;
    }
    current = mh;
    mh->in_finish = 1;
    int rc = mh->an->finish(mh->state, &mh->ctx, err);
    mh->in_finish = 0;
    return rc;
}

const mock_table *
mock_host_table(const mock_host *mh, const char *name)
{
    for (size_t i = 0; i < mh->ntables; i++)
        if (!strcmp(mh->tables[i]->name, name))
            return mh->tables[i];
    return NULL;
}

size_t
mock_host_table_count(const mock_host *mh)
{
    return mh->ntables;
}
uint32_t
mock_table_rows(const mock_table *t)
{
    return t->rows;
}
uint32_t
mock_table_ncols(const mock_table *t)
{
    return t->ncols;
}
uint32_t
mock_table_nkey(const mock_table *t)
{
    return t->nkey;
}
const pp_column *
mock_table_column(const mock_table *t, uint32_t col)
{
    return col < t->ncols ? &t->cols[col] : NULL;
}

int
mock_table_col(const mock_table *t, const char *name)
{
    for (uint32_t i = 0; i < t->ncols; i++)
        if (!strcmp(t->cols[i].name, name))
            return (int)i;
    return -1;
}

const pp_cell *
mock_table_cell(const mock_table *t, uint32_t row, uint32_t col)
{
    if (row >= t->rows || col >= t->ncols)
        return NULL;
    return &t->cells[(size_t)row * t->ncols + col];
}

static const pp_cell *
typed_cell(const mock_table *t, uint32_t row, const char *col, uint32_t type)
{
    int c = mock_table_col(t, col);
    const pp_cell *cell = c < 0 ? NULL : mock_table_cell(t, row, (uint32_t)c);
    if (!cell || cell->type != type) {
        fprintf(stderr, "mock_host: table '%s' row %u column '%s': %s\n", t->name, row, col,
                c < 0 ? "no such column" :
                !cell ? "no such row" :
                        "unexpected cell type");
        abort();
    }
    return cell;
}

const char *
mock_table_str(const mock_table *t, uint32_t row, const char *col)
{
    return typed_cell(t, row, col, PP_CELL_STRING)->v.s;
}
int64_t
mock_table_int(const mock_table *t, uint32_t row, const char *col)
{
    return typed_cell(t, row, col, PP_CELL_INT)->v.i;
}
double
mock_table_dbl(const mock_table *t, uint32_t row, const char *col)
{
    return typed_cell(t, row, col, PP_CELL_DOUBLE)->v.d;
}

int
mock_table_find(const mock_table *t, const char *col, const char *value)
{
    int c = mock_table_col(t, col);
    if (c < 0)
        return -1;
    for (uint32_t r = 0; r < t->rows; r++) {
        const pp_cell *cell = mock_table_cell(t, r, (uint32_t)c);
        if (cell->type == PP_CELL_STRING && !strcmp(cell->v.s, value))
            return (int)r;
    }
    return -1;
}

size_t
mock_host_finding_count(const mock_host *mh)
{
    return mh->nfindings;
}

const char *
mock_host_finding(const mock_host *mh, const char *code, uint32_t *severity)
{
    for (size_t i = 0; i < mh->nfindings; i++)
        if (!strcmp(mh->findings[i].code, code)) {
            if (severity)
                *severity = mh->findings[i].severity;
            return mh->findings[i].message;
        }
    return NULL;
}

static const total *
find_total(const mock_host *mh, const char *name, int kind)
{
    for (size_t i = 0; i < mh->ntotals; i++)
        if (!strcmp(mh->totals[i].name, name) && mh->totals[i].kind == kind)
            return &mh->totals[i];
    return NULL;
}

int
mock_host_total_int(const mock_host *mh, const char *name, int64_t *out)
{
    const total *t = find_total(mh, name, 1);
    if (t)
        *out = t->i;
    return t != NULL;
}

int
mock_host_total_double(const mock_host *mh, const char *name, double *out)
{
    const total *t = find_total(mh, name, 2);
    if (t)
        *out = t->d;
    return t != NULL;
}

const char *
mock_host_total_string(const mock_host *mh, const char *name)
{
    const total *t = find_total(mh, name, 3);
    return t ? t->s : NULL;
}

size_t
mock_host_violations(const mock_host *mh)
{
    return mh->violations;
}
const char *
mock_host_first_violation(const mock_host *mh)
{
    return mh->first_violation;
}
