/* plugins/cpu: the report side. In finish() the method maps are complete:
 * each distinct IP is named once, then the (thread, stack) aggregate is
 * folded into methods (exclusive at the leaf; inclusive once per sample for
 * every distinct method on the stack, so recursion is not double-counted),
 * threads, callers/callees of the focus method and folded stacks. Stacks
 * stay arrays of ids: a folded stack is a distinct sequence of name ids, and
 * its string is made only for the rows emitted. */
#include "cpu.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/strbuf.h"
#include "blocked.h"
#include "waits.h"

#define NO_STACK_NAME "[no stack]"
#define ROOT_NAME "[root]"
#define SELF_NAME "[self]"

typedef struct stack_facts {
    uint32_t leaf;             /* name id */
    uint32_t folded;           /* folded stack id */
    uint32_t depth;
    uint32_t unresolved;
} stack_facts;

typedef struct method_sums { int64_t excl_s, excl_ns, incl_s, incl_ns; } method_sums;

typedef struct report {
    pp_cpu *c;
    pp_ctx *ctx;
    pp_pc_strtab names;
    pp_pc_symcache syms;
    stack_facts *facts;
    uint32_t *ip_name;         /* [stacks.nip] name id of each distinct IP */
    /* Folded stacks: distinct name-id sequences. A name holding ';' could
     * make two sequences one string, so then the strings are the key
     * (folded_by_string, the folded table). */
    int folded_by_string;
    pp_pc_strtab folded;
    uint32_t nfolded;
    uint32_t *folded_stack;    /* [nfolded] a stack with that sequence */
    uint32_t *fslots;          /* open addressing over folded ids + 1 */
    uint32_t nfslots;
    int64_t *folded_vals;      /* [nfolded * 2] samples, ns */
    uint32_t no_stack_name, root_name, self_name;
    int64_t median_ns;
    int64_t unsampled_ns;      /* gap time beyond the cap, attributed to nobody */
    uint64_t capped_samples;
    int64_t total_ns;          /* thread time in the view */
    int64_t total_samples;
    int64_t frames, unresolved_frames;   /* sample-weighted */
    uint32_t bare_addrs;       /* "?!0x..." names: native, no module map */
    int native_named;          /* some "module!fn" name: the trace had a map */
    uint64_t truncated_samples;
    method_sums *m;            /* [names.count] */
    uint32_t *stamp;           /* [names.count] per-sample dedupe marks */
    uint32_t stamp_now;
    uint8_t *is_focus;         /* [names.count] */
    uint32_t focus_names;
    method_sums *callers, *callees;   /* [names.count], only incl_* used */
    int64_t focus_s, focus_ns;
    int64_t *thread_s, *thread_ns;
    pp_pc_agg thread_leaf;        /* key {slot, name id}: samples, ns */
    pp_cpu_states states;         /* running vs waiting, per stack (blocked.c) */
    uint32_t *tmp_ids;            /* one stack's name ids, for states */
    pp_pc_strbuf buf;
} report;

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* The first sample of a thread has no predecessor: it gets the median gap
 * of all threads, the sampler's effective period: the element at n/2 of the
 * sorted gaps, found by counting (two passes over 16-bit halves) instead of
 * sorting a copy. */
static int median_interval(report *r)
{
    pp_cpu *c = r->c;
    uint64_t n = c->nintervals, k = n / 2;
    if (!n)
        return PP_OK;
    uint64_t *cnt = calloc(65536, sizeof *cnt);
    if (!cnt)
        return PP_ENOMEM;
    for (uint64_t i = 0; i < n; i++)
        cnt[c->intervals[i] >> 16]++;
    uint32_t hi = 0;
    while (k >= cnt[hi])
        k -= cnt[hi++];
    memset(cnt, 0, 65536 * sizeof *cnt);
    for (uint64_t i = 0; i < n; i++)
        if (c->intervals[i] >> 16 == hi)
            cnt[c->intervals[i] & 0xFFFF]++;
    uint32_t lo = 0;
    while (k >= cnt[lo])
        k -= cnt[lo++];
    free(cnt);
    uint32_t v = hi << 16 | lo;
    if (v != PP_CPU_GAP_BIG) {
        r->median_ns = v;
        return PP_OK;
    }
    /* the median is one of the big gaps: the k-th of their exact values */
    qsort(c->intervals_big.v, c->intervals_big.n, sizeof *c->intervals_big.v, cmp_i64);
    r->median_ns = c->intervals_big.v[k];
    return PP_OK;
}

/* Each admitted sample's weight into its raw row. */
static void weigh_samples(report *r)
{
    pp_cpu *c = r->c;
    int64_t cap = r->median_ns * PP_CPU_MAX_GAP_INTERVALS;
    uint64_t big = 0;
    for (uint64_t i = 0; i < c->nlog; i++) {
        uint32_t g = c->log[i].gap;
        int64_t w = g == PP_CPU_GAP_FIRST ? -1 : g == PP_CPU_GAP_BIG ? c->log_big.v[big++] : (int64_t)g;
        if (w < 0)
            w = r->median_ns;
        else if (w > cap) {
            r->unsampled_ns += w - cap;
            r->capped_samples++;
            w = cap;
        }
        pp_cpu_raw_vals(c, c->log[i].row)[PP_CPU_NS] += w;
    }
}

/* Walks a folded string (root first, frames joined by ';') without
 * building it, for ordering. */
typedef struct fold_cursor {
    const report *r;
    const uint32_t *frames;    /* IP ids, leaf first */
    uint32_t left;             /* frames not yet started */
    const char *p;
} fold_cursor;

static void fold_start(fold_cursor *k, const report *r, uint32_t stack)
{
    uint32_t depth;
    k->r = r;
    k->frames = pp_pc_stackset_frames(&r->c->stacks, stack, &depth);
    k->left = depth;
    if (depth == 0) {
        k->p = NO_STACK_NAME;
        return;
    }
    k->left--;
    k->p = pp_pc_strtab_get(&r->names, r->ip_name[k->frames[k->left]]);
}

static int fold_next(fold_cursor *k)
{
    if (*k->p)
        return (unsigned char)*k->p++;
    if (k->left == 0)
        return -1;
    k->left--;
    k->p = pp_pc_strtab_get(&k->r->names, k->r->ip_name[k->frames[k->left]]);
    return ';';
}

/* strcmp of two folded stacks' strings. */
static int folded_cmp(const report *r, uint32_t a, uint32_t b)
{
    if (r->folded_by_string)
        return strcmp(pp_pc_strtab_get(&r->folded, a), pp_pc_strtab_get(&r->folded, b));
    fold_cursor x, y;
    fold_start(&x, r, r->folded_stack[a]);
    fold_start(&y, r, r->folded_stack[b]);
    for (;;) {
        int cx = fold_next(&x), cy = fold_next(&y);
        if (cx != cy)
            return cx < cy ? -1 : 1;   /* the end (-1) sorts first, as NUL does */
        if (cx < 0)
            return 0;
    }
}

/* The folded string of stack s into r->buf. */
static int fold_string(report *r, uint32_t s)
{
    fold_cursor k;
    int ch, rc = PP_OK;
    pp_pc_strbuf_clear(&r->buf);
    fold_start(&k, r, s);
    while (rc == PP_OK && (ch = fold_next(&k)) >= 0) {
        char cch = (char)ch;
        rc = pp_pc_strbuf_add(&r->buf, &cch, 1);
    }
    if (rc == PP_OK && !r->buf.data)
        rc = pp_pc_strbuf_add(&r->buf, "", 0);
    return rc;
}

static int same_names(const report *r, uint32_t a, uint32_t b)
{
    uint32_t na, nb;
    const uint32_t *fa = pp_pc_stackset_frames(&r->c->stacks, a, &na);
    const uint32_t *fb = pp_pc_stackset_frames(&r->c->stacks, b, &nb);
    if (na != nb)
        return 0;
    for (uint32_t i = 0; i < na; i++)
        if (r->ip_name[fa[i]] != r->ip_name[fb[i]])
            return 0;
    return 1;
}

/* The folded id of stack s (a new one for a new name sequence). */
static int fold_id(report *r, uint32_t s, uint32_t *out)
{
    if (r->folded_by_string) {
        int rc = fold_string(r, s);
        return rc == PP_OK ? pp_pc_strtab_intern(&r->folded, r->buf.data, r->buf.len, out) : rc;
    }
    uint32_t depth;
    const uint32_t *fr = pp_pc_stackset_frames(&r->c->stacks, s, &depth);
    uint64_t h = depth;
    for (uint32_t i = 0; i < depth; i++)
        h = pp_pc_hash_u64(h ^ r->ip_name[fr[i]]);
    uint32_t i = (uint32_t)h & (r->nfslots - 1);
    while (r->fslots[i]) {
        uint32_t f = r->fslots[i] - 1;
        if (same_names(r, r->folded_stack[f], s)) {
            *out = f;
            return PP_OK;
        }
        i = (i + 1) & (r->nfslots - 1);
    }
    r->folded_stack[r->nfolded] = s;
    r->fslots[i] = r->nfolded + 1;
    *out = r->nfolded++;
    return PP_OK;
}

static int name_stacks(report *r)
{
    pp_cpu *c = r->c;
    uint32_t n = c->stacks.count;
    int rc = pp_pc_strtab_intern(&r->names, NO_STACK_NAME, strlen(NO_STACK_NAME), &r->no_stack_name);
    if (rc == PP_OK)
        rc = pp_pc_strtab_intern(&r->names, ROOT_NAME, strlen(ROOT_NAME), &r->root_name);
    if (rc == PP_OK)
        rc = pp_pc_strtab_intern(&r->names, SELF_NAME, strlen(SELF_NAME), &r->self_name);
    if (rc != PP_OK || n == 0)
        return rc;
    /* IP ids are numbered in the order the stacks first showed them, so
     * naming them in id order interns the names in the order naming every
     * stack's frames would. */
    r->ip_name = malloc((size_t)(c->stacks.nip ? c->stacks.nip : 1) * sizeof *r->ip_name);
    r->facts = calloc(n, sizeof *r->facts);
    r->folded_stack = malloc((size_t)n * sizeof *r->folded_stack);
    r->nfslots = 1;
    while (r->nfslots < (uint64_t)n * 2)
        r->nfslots *= 2;
    r->fslots = calloc(r->nfslots, sizeof *r->fslots);
    uint32_t maxdepth = 1;
    for (uint32_t s = 0; s < n; s++)
        if (c->stacks.len[s] > maxdepth)
            maxdepth = c->stacks.len[s];
    r->tmp_ids = malloc((size_t)maxdepth * sizeof *r->tmp_ids);
    if (!r->ip_name || !r->facts || !r->folded_stack || !r->fslots || !r->tmp_ids)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < c->stacks.nip && rc == PP_OK; i++)
        rc = pp_pc_symcache_name(&r->syms, c->source, pp_pc_stackset_ip(&c->stacks, i), &r->ip_name[i]);
    if (rc != PP_OK)
        return rc;
    uint8_t *unres = calloc(r->names.count ? r->names.count : 1, 1);
    if (!unres)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < r->names.count; i++) {
        const char *name = pp_pc_strtab_get(&r->names, i);
        unres[i] = (uint8_t)pp_pc_frame_unresolved(name);
        r->bare_addrs += strncmp(name, "?!0x", 4) == 0;
        r->native_named |= name[0] != '?' && strchr(name, '!') != NULL;
        if (strchr(name, ';'))
            r->folded_by_string = 1;
    }
    for (uint32_t s = 0; s < n && rc == PP_OK; s++) {
        uint32_t depth;
        const uint32_t *fr = pp_pc_stackset_frames(&c->stacks, s, &depth);
        stack_facts *f = &r->facts[s];
        f->depth = depth;
        f->leaf = depth ? r->ip_name[fr[0]] : r->no_stack_name;
        for (uint32_t i = 0; i < depth; i++)
            f->unresolved += unres[r->ip_name[fr[i]]];
        rc = fold_id(r, s, &f->folded);
        if (rc == PP_OK) {
            for (uint32_t i = 0; i < depth; i++)
                r->tmp_ids[i] = r->ip_name[fr[i]];
            rc = pp_cpu_states_stack(&r->states, s, &r->names, r->tmp_ids, depth);
        }
    }
    free(unres);
    if (rc == PP_OK && r->folded_by_string)
        r->nfolded = r->folded.count;
    if (rc == PP_OK) {
        r->folded_vals = calloc((size_t)(r->nfolded ? r->nfolded : 1) * 2, sizeof *r->folded_vals);
        if (!r->folded_vals)
            rc = PP_ENOMEM;
    }
    return rc;
}

static int focus_match(const char *name, const char *focus)
{
    size_t n = strlen(name), f = strlen(focus);
    if (n == f)
        return strcmp(name, focus) == 0;
    return n > f && name[n - f - 1] == '.' && strcmp(name + n - f, focus) == 0;
}

static int alloc_sums(report *r)
{
    uint32_t n = r->names.count;
    r->m = calloc(n, sizeof *r->m);
    r->stamp = calloc(n, sizeof *r->stamp);
    r->is_focus = calloc(n, 1);
    r->callers = calloc(n, sizeof *r->callers);
    r->callees = calloc(n, sizeof *r->callees);
    r->thread_s = calloc(r->c->nthreads ? r->c->nthreads : 1, sizeof *r->thread_s);
    r->thread_ns = calloc(r->c->nthreads ? r->c->nthreads : 1, sizeof *r->thread_ns);
    if (!r->m || !r->stamp || !r->is_focus || !r->callers || !r->callees || !r->thread_s || !r->thread_ns)
        return PP_ENOMEM;
    if (r->c->focus)
        for (uint32_t i = 0; i < n; i++)
            if (i != r->no_stack_name && i != r->root_name && i != r->self_name &&
                focus_match(pp_pc_strtab_get(&r->names, i), r->c->focus)) {
                r->is_focus[i] = 1;
                r->focus_names++;
            }
    return PP_OK;
}

/* Once per sample row: `id` gets the row's weight unless already marked. */
static void once(report *r, method_sums *arr, uint32_t id, int64_t s, int64_t ns)
{
    if (r->stamp[id] == r->stamp_now)
        return;
    r->stamp[id] = r->stamp_now;
    arr[id].incl_s += s;
    arr[id].incl_ns += ns;
}

static int fold_rows(report *r)
{
    pp_cpu *c = r->c;
    int rc = PP_OK;
    for (uint32_t row = 0; row < c->nraw && rc == PP_OK; row++) {
        uint32_t key[2] = { pp_cpu_raw_slot(c, row), pp_cpu_raw_stack(c, row) };
        const int64_t *v = pp_cpu_raw_vals(c, row);
        int64_t s = v[PP_CPU_SAMPLES];
        int64_t ns = v[PP_CPU_NS];
        const stack_facts *f = &r->facts[key[1]];
        uint32_t depth_unused;
        const uint32_t *frames = pp_pc_stackset_frames(&c->stacks, key[1], &depth_unused);
        const uint32_t *ipn = r->ip_name;
#define ids(i) ipn[frames[i]]
        r->total_samples += s;
        r->total_ns += ns;
        r->frames += (int64_t)f->depth * s;
        r->unresolved_frames += (int64_t)f->unresolved * s;
        if (f->depth >= 100)
            r->truncated_samples += (uint64_t)s;

        r->m[f->leaf].excl_s += s;
        r->m[f->leaf].excl_ns += ns;
        r->stamp_now++;
        if (f->depth == 0)
            once(r, r->m, f->leaf, s, ns);
        for (uint32_t i = 0; i < f->depth; i++)
            once(r, r->m, ids(i), s, ns);

        if (r->focus_names) {
            int hit = 0;
            for (uint32_t i = 0; i < f->depth; i++)
                hit |= r->is_focus[ids(i)];
            if (hit) {
                r->focus_s += s;
                r->focus_ns += ns;
                r->stamp_now++;
                for (uint32_t i = 0; i < f->depth; i++)
                    if (r->is_focus[ids(i)])
                        once(r, r->callers, i + 1 < f->depth ? ids(i + 1) : r->root_name, s, ns);
                r->stamp_now++;
                for (uint32_t i = 0; i < f->depth; i++)
                    if (r->is_focus[ids(i)])
                        once(r, r->callees, i > 0 ? ids(i - 1) : r->self_name, s, ns);
            }
        }

        pp_cpu_states_add(&r->states, key[1], s, ns);
        r->thread_s[key[0]] += s;
        r->thread_ns[key[0]] += ns;
        uint32_t tk[2] = { key[0], f->leaf };
        int64_t d[2] = { s, ns };
        rc = pp_pc_agg_add(&r->thread_leaf, (const char *)tk, sizeof tk, d, NULL);
        r->folded_vals[(size_t)f->folded * 2] += s;
        r->folded_vals[(size_t)f->folded * 2 + 1] += ns;
#undef ids
    }
    return rc;
}

static double ms(int64_t ns) { return (double)ns / 1e6; }
static double pct(int64_t part, int64_t whole) { return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0; }

/* Ranking of name ids by sums, through glibc's qsort_r (no TLS: it trips
 * LeakSanitizer in dlopen'd plugins with GCC 12). */
typedef struct rank_ctx {
    const method_sums *sums;
    const pp_pc_strtab *names;
    int inclusive;
} rank_ctx;

static int cmp_methods(const void *pa, const void *pb, void *arg)
{
    const rank_ctx *rc = arg;
    const method_sums *rank_sums = rc->sums;
    const pp_pc_strtab *rank_names = rc->names;
    int rank_inclusive = rc->inclusive;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const method_sums *x = &rank_sums[a], *y = &rank_sums[b];
    int64_t k1x = rank_inclusive ? x->incl_ns : x->excl_ns, k1y = rank_inclusive ? y->incl_ns : y->excl_ns;
    int64_t k2x = rank_inclusive ? x->excl_ns : x->incl_ns, k2y = rank_inclusive ? y->excl_ns : y->incl_ns;
    if (k1x != k1y)
        return k1x > k1y ? -1 : 1;
    if (k2x != k2y)
        return k2x > k2y ? -1 : 1;
    if (x->incl_s != y->incl_s)
        return x->incl_s > y->incl_s ? -1 : 1;
    return strcmp(pp_pc_strtab_get(rank_names, a), pp_pc_strtab_get(rank_names, b));
}

static uint32_t *ranked(report *r, const method_sums *sums, int inclusive, uint32_t *count)
{
    uint32_t n = 0;
    uint32_t *order = malloc((size_t)(r->names.count ? r->names.count : 1) * sizeof *order);
    if (!order)
        return NULL;
    for (uint32_t i = 0; i < r->names.count; i++)
        if (sums[i].incl_s > 0 || sums[i].excl_s > 0)
            order[n++] = i;
    rank_ctx ctx = { sums, &r->names, inclusive };
    qsort_r(order, n, sizeof *order, cmp_methods, &ctx);
    *count = n;
    return order;
}

static int emit_methods(report *r)
{
    const pp_host_api *h = r->c->host;
    pp_column cols[6] = {
        { "method", PP_COL_STRING, 0 },
        { "exclusive", PP_COL_COUNT, 0 },
        { "inclusive", PP_COL_COUNT, 0 },
        { "exclusive_ms", PP_COL_NUMBER, 0 },
        { "inclusive_ms", PP_COL_NUMBER, 0 },
        { "share", PP_COL_PERCENT, 0 },
    };
    pp_table *t = h->table_new(r->ctx, "by_method", 6, cols, 1);
    if (!t)
        return PP_ENOMEM;
    uint32_t n;
    uint32_t *order = ranked(r, r->m, r->c->sort_inclusive, &n);
    if (!order)
        return PP_ENOMEM;
    if (r->c->top > 0 && (uint64_t)r->c->top < n)
        n = (uint32_t)r->c->top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const method_sums *m = &r->m[order[i]];
        pp_cell cells[6] = {
            pp_cell_str(pp_pc_strtab_get(&r->names, order[i])), pp_cell_int(m->excl_s), pp_cell_int(m->incl_s),
            pp_cell_dbl(ms(m->excl_ns)), pp_cell_dbl(ms(m->incl_ns)), pp_cell_dbl(pct(m->excl_ns, r->total_ns)),
        };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

static int emit_relatives(report *r, const char *table, const char *col, const method_sums *sums)
{
    const pp_host_api *h = r->c->host;
    pp_column cols[4] = {
        { col, PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
        { "share", PP_COL_PERCENT, 0 },
    };
    pp_table *t = h->table_new(r->ctx, table, 4, cols, 1);
    if (!t)
        return PP_ENOMEM;
    uint32_t n;
    uint32_t *order = ranked(r, sums, 1, &n);
    if (!order)
        return PP_ENOMEM;
    if (r->c->top > 0 && (uint64_t)r->c->top < n)
        n = (uint32_t)r->c->top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const method_sums *m = &sums[order[i]];
        pp_cell cells[4] = { pp_cell_str(pp_pc_strtab_get(&r->names, order[i])), pp_cell_int(m->incl_s),
                             pp_cell_dbl(ms(m->incl_ns)), pp_cell_dbl(pct(m->incl_ns, r->focus_ns)) };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

static int emit_threads(report *r)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_column cols[4] = {
        { "thread", PP_COL_STRING, 0 },   /* an id, not a quantity: no digit grouping */
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
        { "top_method", PP_COL_STRING, 0 },
    };
    pp_table *t = h->table_new(r->ctx, "by_thread", 4, cols, 1);
    if (!t)
        return PP_ENOMEM;
    uint32_t nt = c->nthreads;
    if (!nt)
        return PP_OK;
    /* each thread's hottest leaf: thread_leaf ranked by ns, first hit wins */
    uint32_t *best = malloc((size_t)nt * sizeof *best);
    uint32_t *order = malloc((size_t)nt * sizeof *order);
    uint32_t *leaf_order = pp_pc_agg_rank(&r->thread_leaf, 1, 0);
    int rc = PP_OK;
    if (!best || !order || (pp_pc_agg_count(&r->thread_leaf) && !leaf_order))
        rc = PP_ENOMEM;
    if (rc == PP_OK) {
        for (uint32_t i = 0; i < nt; i++)
            best[i] = UINT32_MAX;
        for (uint32_t i = 0; i < pp_pc_agg_count(&r->thread_leaf); i++) {
            uint32_t k[2];
            memcpy(k, pp_pc_agg_key(&r->thread_leaf, leaf_order[i]), sizeof k);
            if (best[k[0]] == UINT32_MAX)
                best[k[0]] = k[1];
        }
        uint32_t n = 0;
        for (uint32_t i = 0; i < nt; i++)
            if (r->thread_s[i] > 0)
                order[n++] = i;
        /* insertion sort by ms desc, tid asc: thread counts are small */
        for (uint32_t i = 1; i < n; i++) {
            uint32_t x = order[i], j = i;
            while (j > 0 && (r->thread_ns[order[j - 1]] < r->thread_ns[x] ||
                             (r->thread_ns[order[j - 1]] == r->thread_ns[x] &&
                              c->threads[order[j - 1]].tid > c->threads[x].tid))) {
                order[j] = order[j - 1];
                j--;
            }
            order[j] = x;
        }
        if (c->top > 0 && (uint64_t)c->top < n)
            n = (uint32_t)c->top;
        for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
            uint32_t s = order[i];
            char tid[24];
            snprintf(tid, sizeof tid, "%" PRIu64, c->threads[s].tid);
            pp_cell cells[4] = {
                pp_cell_str(tid), pp_cell_int(r->thread_s[s]), pp_cell_dbl(ms(r->thread_ns[s])),
                best[s] == UINT32_MAX ? pp_cell_null() : pp_cell_str(pp_pc_strtab_get(&r->names, best[s])),
            };
            rc = h->table_row(t, cells);
        }
    }
    free(best);
    free(order);
    free(leaf_order);
    return rc;
}

/* by_stack's order: ms, then samples, descending, then the folded string
 * ascending (what ranking the string-keyed aggregate gave). */
static int cmp_folded(const void *pa, const void *pb, void *arg)
{
    const report *r = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const int64_t *va = r->folded_vals + (size_t)a * 2, *vb = r->folded_vals + (size_t)b * 2;
    if (va[1] != vb[1])
        return va[1] > vb[1] ? -1 : 1;
    if (va[0] != vb[0])
        return va[0] > vb[0] ? -1 : 1;
    return folded_cmp(r, a, b);
}

static int emit_stacks(report *r)
{
    const pp_host_api *h = r->c->host;
    pp_column cols[3] = {
        { "stack", PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
    };
    pp_table *t = h->table_new(r->ctx, "by_stack", 3, cols, 1);
    if (!t)
        return PP_ENOMEM;
    /* only folded stacks some row reached (a stack outside the view has
     * none), as the string-keyed aggregate held */
    uint32_t n = 0;
    uint32_t *order = malloc((size_t)(r->nfolded ? r->nfolded : 1) * sizeof *order);
    uint8_t *used = calloc(r->nfolded ? r->nfolded : 1, 1);
    if (!order || !used) {
        free(order);
        free(used);
        return PP_ENOMEM;
    }
    for (uint32_t row = 0; row < r->c->nraw; row++)
        used[r->facts[pp_cpu_raw_stack(r->c, row)].folded] = 1;
    for (uint32_t f = 0; f < r->nfolded; f++)
        if (used[f])
            order[n++] = f;
    free(used);
    qsort_r(order, n, sizeof *order, cmp_folded, r);
    if (r->c->top_stacks > 0 && (uint64_t)r->c->top_stacks < n)
        n = (uint32_t)r->c->top_stacks;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = r->folded_vals + (size_t)order[i] * 2;
        if (r->folded_by_string) {
            pp_pc_strbuf_clear(&r->buf);
            rc = pp_pc_strbuf_adds(&r->buf, pp_pc_strtab_get(&r->folded, order[i]));
        } else
            rc = fold_string(r, r->folded_stack[order[i]]);
        if (rc != PP_OK)
            break;
        pp_cell cells[3] = { pp_cell_str(r->buf.data), pp_cell_int(v[0]), pp_cell_dbl(ms(v[1])) };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

/* The raw rows' order as ranking the aggregate keyed by the 8 key bytes
 * {slot, stack id} gave: ns, then samples, descending, then strcmp of the
 * key bytes (which stops at the first zero byte). */
static int cmp_raw(const void *pa, const void *pb, void *arg)
{
    const pp_cpu *c = arg;
    uint32_t a = *(const uint32_t *)pa, b = *(const uint32_t *)pb;
    const int64_t *va = pp_cpu_raw_vals(c, a), *vb = pp_cpu_raw_vals(c, b);
    if (va[PP_CPU_NS] != vb[PP_CPU_NS])
        return va[PP_CPU_NS] > vb[PP_CPU_NS] ? -1 : 1;
    if (va[PP_CPU_SAMPLES] != vb[PP_CPU_SAMPLES])
        return va[PP_CPU_SAMPLES] > vb[PP_CPU_SAMPLES] ? -1 : 1;
    uint32_t ka[2] = { pp_cpu_raw_slot(c, a), pp_cpu_raw_stack(c, a) };
    uint32_t kb[2] = { pp_cpu_raw_slot(c, b), pp_cpu_raw_stack(c, b) };
    char sa[sizeof ka + 1], sb[sizeof kb + 1];
    memcpy(sa, ka, sizeof ka);
    memcpy(sb, kb, sizeof kb);
    sa[sizeof ka] = sb[sizeof kb] = 0;
    return strcmp(sa, sb);
}

/* by_thread_stack: the stacks of each thread, for flame formats that keep
 * threads apart (speedscope's per-thread profiles); the renderer merges
 * threads back for the all-threads view. Ranked by time. */
static int emit_thread_stacks(report *r)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_column cols[4] = {
        { "stack", PP_COL_STRING, 0 },
        { "samples", PP_COL_COUNT, 0 },
        { "ms", PP_COL_NUMBER, 0 },
        { "thread", PP_COL_STRING, 0 },
    };
    /* no key: thread ids differ between runs, so compare has nothing to join */
    pp_table *t = h->table_new(r->ctx, "by_thread_stack", 4, cols, 0);
    if (!t)
        return PP_ENOMEM;
    uint32_t n = c->nraw;
    uint32_t *order = malloc((size_t)(n ? n : 1) * sizeof *order);
    if (!order)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < n; i++)
        order[i] = i;
    qsort_r(order, n, sizeof *order, cmp_raw, c);
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        uint32_t slot = pp_cpu_raw_slot(c, order[i]), stack = pp_cpu_raw_stack(c, order[i]);
        const int64_t *v = pp_cpu_raw_vals(c, order[i]);
        if (v[PP_CPU_SAMPLES] <= 0)
            continue;
        char tid[24];
        snprintf(tid, sizeof tid, "%" PRIu64, c->threads[slot].tid);
        uint32_t f = r->facts[stack].folded;
        if (r->folded_by_string) {
            pp_pc_strbuf_clear(&r->buf);
            rc = pp_pc_strbuf_adds(&r->buf, pp_pc_strtab_get(&r->folded, f));
        } else {
            rc = fold_string(r, r->folded_stack[f]);
        }
        if (rc != PP_OK)
            break;
        pp_cell cells[4] = { pp_cell_str(r->buf.data), pp_cell_int(v[PP_CPU_SAMPLES]), pp_cell_dbl(ms(v[PP_CPU_NS])),
                             pp_cell_str(tid) };
        rc = h->table_row(t, cells);
    }
    free(order);
    return rc;
}

static int emit_totals(report *r, int64_t span)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_ctx *ctx = r->ctx;
    char win[160];
    pp_pc_window_describe(&c->window, win, sizeof win);
    int rc = h->total_int(ctx, "samples", PP_COL_COUNT, r->total_samples);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_external", PP_COL_COUNT, (int64_t)c->by_type[PP_CPU_SAMPLE_EXTERNAL]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_managed", PP_COL_COUNT, (int64_t)c->by_type[PP_CPU_SAMPLE_MANAGED]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "samples_error", PP_COL_COUNT, (int64_t)c->by_type[PP_CPU_SAMPLE_ERROR]);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "thread_time", PP_COL_DURATION_NS, r->total_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "duration", PP_COL_DURATION_NS, span);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "sample_interval", PP_COL_DURATION_NS, r->median_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "unsampled_time", PP_COL_DURATION_NS, r->unsampled_ns);
    if (rc == PP_OK)
        rc = h->total_int(ctx, "threads", PP_COL_COUNT, (int64_t)c->nthreads);
    if (rc == PP_OK)
        rc = h->total_double(ctx, "unresolved_frame_share", PP_COL_PERCENT, pct(r->unresolved_frames, r->frames));
    if (rc == PP_OK)
        rc = h->total_string(ctx, "view", c->managed_only ? "managed" : "thread-time");
    if (rc == PP_OK)
        rc = h->total_string(ctx, "method",
                             c->managed_only
                                 ? "managed view: only samples of threads running managed code, each weighted by the "
                                   "time since the previous sample of its thread (wall time, not CPU time; a thread's first sample weighs "
                                   "the median interval, a gap counts at most 100 intervals)"
                                 : "thread time: every sample (running or blocked), each weighted by the time since the "
                                   "previous sample of its thread (wall time, not CPU time; a thread's first sample weighs the median "
                                   "interval, a gap counts at most 100 intervals); async waits are invisible");
    if (rc == PP_OK && win[0])
        rc = h->total_string(ctx, "filter", win);
    return rc;
}

static void emit_findings(report *r, int64_t span)
{
    pp_cpu *c = r->c;
    const pp_host_api *h = c->host;
    pp_ctx *ctx = r->ctx;
    if (c->samples_seen == 0) {
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.no_samples",
                   "no SampleProfiler ThreadSample events in this trace: capture with "
                   "`dotnet-trace collect --profile dotnet-sampled-thread-time` (the default profile of dotnet-trace collect)");
        return;
    }
    if (r->total_samples == 0) {
        char win[160];
        pp_pc_window_describe(&c->window, win, sizeof win);
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.view_empty",
                   "the trace has %" PRIu64 " thread samples but none in the %s view%s%s",
                   c->samples_seen, c->managed_only ? "managed" : "thread-time", win[0] ? " and the " : "", win);
        return;
    }
    if (c->malformed)
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.malformed_samples",
                   "%" PRIu64 " ThreadSample events had a payload shorter than its 4-byte Type and were skipped", c->malformed);
    double unres = pct(r->unresolved_frames, r->frames);
    if (r->frames > 0 && unres > 50.0)
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.unresolved",
                   "%.1f%% of the sampled frames are unresolved: the trace has no method rundown, so the capture was "
                   "stopped abruptly; stop dotnet-trace with Enter or Ctrl+C and let it finish, and keep the traced "
                   "process alive until it has", unres);
    if (r->bare_addrs > 0 && !r->native_named)
        h->finding(ctx, PP_SEVERITY_INFO, "cpu.native_unnamed",
                   "%" PRIu32 " native code addresses have no name (?!0x...): the trace has no module map; "
                   "capture with `perfpipe collect -p PID -o FILE.nettrace` (it saves FILE.nettrace.maps "
                   "beside it) to name them module!function", r->bare_addrs);
    if (r->total_samples < 200 || span < 500000000) {
        /* 95% interval of a share p from n samples: 1.96 * sqrt(p(1-p)/n) */
        double half = 196.0 * sqrt(0.25 / (double)r->total_samples);
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.short_trace",
                   "only %" PRId64 " samples over %.1f ms: any share is uncertain by up to +-%.1f points; "
                   "capture longer (several seconds of the scenario) before ranking methods",
                   r->total_samples, ms(span), half);
    }
    if (r->capped_samples && r->unsampled_ns > r->total_ns / 20)
        h->finding(ctx, PP_SEVERITY_INFO, "cpu.unsampled_gaps",
                   "%" PRIu64 " samples followed gaps longer than %d sampling intervals (%.1f ms each); the %.1f ms "
                   "beyond that are left unattributed (unsampled_time) instead of being charged to one sample: a "
                   "thread without managed frames (e.g. the finalizer thread while idle) is not sampled, and "
                   "sweeps are skipped while a GC suspends the runtime",
                   r->capped_samples, PP_CPU_MAX_GAP_INTERVALS, ms(r->median_ns), ms(r->unsampled_ns));
    if (r->truncated_samples)
        h->finding(ctx, PP_SEVERITY_INFO, "cpu.truncated_stacks",
                   "%" PRIu64 " samples have stacks of 100 frames or more: EventPipe keeps at most 100, so their "
                   "outer frames are missing and inclusive time of outer methods is undercounted",
                   r->truncated_samples);
    if (c->focus && r->focus_names == 0)
        h->finding(ctx, PP_SEVERITY_WARNING, "cpu.focus_not_found",
                   "no sampled frame is named '%s' (give the full name Namespace.Type.Method or its last parts)",
                   c->focus);

    /* waits among the top methods by exclusive time */
    uint32_t n;
    uint32_t *order = ranked(r, r->m, 0, &n);
    if (!order)
        return;
    int64_t wait_ns = 0;
    const char *top_wait = NULL;
    for (uint32_t i = 0; i < n; i++) {
        const char *name = pp_pc_strtab_get(&r->names, order[i]);
        if (pp_cpu_is_wait(name)) {
            wait_ns += r->m[order[i]].excl_ns;
            if (!top_wait && i < 5)
                top_wait = name;
        }
    }
    int first_is_wait = n > 0 && pp_cpu_is_wait(pp_pc_strtab_get(&r->names, order[0]));
    if (top_wait && (first_is_wait || pct(wait_ns, r->total_ns) >= 25.0))
        h->finding(ctx, PP_SEVERITY_INFO, "cpu.waits",
                   "%.1f%% of the thread time is threads blocked in waits (top: %s): thread-time sampling only sees "
                   "threads that exist; an `await` releases its thread, so async waits are invisible here. For wall "
                   "time of requests and database calls use the db analyzer or spans; for CPU only, use view=managed",
                   pct(wait_ns, r->total_ns), top_wait);
    free(order);
}

int pp_cpu_report(pp_cpu *c, pp_ctx *ctx, pp_error *err)
{
    report r;
    memset(&r, 0, sizeof r);
    r.c = c;
    r.ctx = ctx;
    pp_pc_strtab_init(&r.names);
    pp_pc_strtab_init(&r.folded);
    pp_pc_symcache_init(&r.syms, c->host, &r.names);
    pp_pc_agg_init(&r.thread_leaf, 2);

    int64_t first = c->first_ns, last = c->last_ns;
    pp_trace_info info = { .struct_size = sizeof info };
    if (c->source && PP_HOST_HAS(c->host, trace_info) && c->host->trace_info &&
        c->host->trace_info(c->source, &info) == PP_OK && info.last_event_ns >= info.first_event_ns) {
        first = info.first_event_ns;
        last = info.last_event_ns;
    }
    int64_t span = c->events ? pp_pc_window_span(&c->window, first, last) : 0;

    int rc = median_interval(&r);
    if (rc == PP_OK) {
        weigh_samples(&r);
        rc = pp_cpu_states_init_with(&r.states, c->stacks.count, &r.syms);
    }
    if (rc == PP_OK)
        rc = name_stacks(&r);
    if (rc == PP_OK)
        rc = alloc_sums(&r);
    if (rc == PP_OK)
        rc = fold_rows(&r);
    if (rc == PP_OK)
        rc = pp_cpu_states_emit(&r.states, c->host, ctx, c->top);
    if (rc == PP_OK)
        rc = emit_methods(&r);
    if (rc == PP_OK)
        rc = emit_threads(&r);
    if (rc == PP_OK && c->focus)
        rc = emit_relatives(&r, "callers", "caller", r.callers);
    if (rc == PP_OK && c->focus)
        rc = emit_relatives(&r, "callees", "callee", r.callees);
    if (rc == PP_OK)
        rc = emit_stacks(&r);
    if (rc == PP_OK && c->thread_stacks)
        rc = emit_thread_stacks(&r);
    if (rc == PP_OK)
        rc = emit_totals(&r, span);
    if (rc == PP_OK)
        emit_findings(&r, span);
    if (rc != PP_OK)
        c->host->error_set(err, rc, "cpu: %s while building the report",
                           rc == PP_ENOMEM ? "out of memory" : "the host refused a result");

    pp_pc_symcache_free(&r.syms);
    pp_pc_strtab_free(&r.names);
    pp_pc_strtab_free(&r.folded);
    pp_pc_agg_free(&r.thread_leaf);
    pp_cpu_states_free(&r.states);
    free(r.tmp_ids);
    pp_pc_strbuf_free(&r.buf);
    free(r.facts);
    free(r.ip_name);
    free(r.folded_stack);
    free(r.fslots);
    free(r.folded_vals);
    free(r.m);
    free(r.stamp);
    free(r.is_focus);
    free(r.callers);
    free(r.callees);
    free(r.thread_s);
    free(r.thread_ns);
    return rc;
}
