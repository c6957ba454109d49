/* plugins/alloc: the report side. In finish() the method maps are complete,
 * so each distinct stack is named once, its responsible frame chosen, and
 * the (type, stack, kind) aggregate folded into the result tables. */
#include "alloc.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../common/interval.h"
#include "../common/decl.h"
#include "../common/modules.h"
#include "../common/srclines.h"
#include "../common/strbuf.h"
#include "folded.h"
#include "report_totals.h"
#include "tick.h"
#include "type_stacks.h"
#include "../common/zalloc.h"

#define ALL_FRAMEWORK_NAME "[framework only]"

/* Per distinct stack, 24 bytes (262,655 of them on a 1.6 GB trace): names
 * as ids in the name table, NAME_NONE for none. */
#define NAME_NONE UINT32_MAX
typedef struct stack_facts {
    uint32_t responsible; /* NAME_NONE: "[framework only]" */
    uint32_t folded;      /* id in the folded-stack table */
    uint32_t unresolved_frames;
    uint32_t module;    /* of the responsible frame (common/modules.h) */
    uint32_t call_site; /* first application frame from it outward; NAME_NONE = "" */
    uint32_t at;        /* the responsible frame's place, from the leaf */
} stack_facts;

typedef struct report {
    pp_alloc *a;
    pp_ctx *ctx;
    pp_pc_strtab names;
    pp_alloc_folded folded;
    pp_pc_symcache syms;
    uint32_t *ipname; /* [IP id] name id */
    uint8_t *nflags;  /* [name id] NF_* of the name, once */
    uint32_t nflags_cap;
    stack_facts *facts;
    pp_pc_strbuf buf;
    pp_pc_agg by_type, by_frame, by_type_frame, by_type_frame_kind, by_kind;
    pp_pc_agg by_type_stack; /* every row with the type-stacks option */
    int64_t (*by_stack)[2];  /* [folded id] bytes, samples */
    int64_t no_stack[2];     /* the "[no stack]" row */
    int have_no_stack;
    int64_t total_bytes;
    int64_t total_ticks;
    int64_t stack_frames, stack_unresolved; /* tick-weighted */
    int64_t unresolved_resp_bytes;
    pp_pc_modules mods;
    /* per by_frame row: the module and call site of its heaviest stack */
    uint32_t *bf_mod;
    const char **bf_call;
    int64_t *bf_best;
    uint32_t bf_cap;
    /* by_stack past top-stacks: how many stacks, their bytes and ticks */
    uint32_t cut_stacks;
    uint32_t listed_stacks;
    int64_t cut[2];
    uint32_t *tfk_of_row; /* [raw row] its by_type_frame_kind row */
    pp_pc_srclines *src;  /* by_frame's source column, or NULL (no PDB lookup) */
} report;

/* What the report asks of a frame name, asked once per name: stacks
 * repeat a few hundred names over millions of frames, and the tests are
 * string scans. */
#define NF_KNOWN      1u
#define NF_UNRESOLVED 2u
#define NF_CANDIDATE  4u /* focus, or not framework: may be responsible */

static int
name_flags_slow(report *r, uint32_t id, uint8_t *out)
{
    if (id >= r->nflags_cap) {
        uint32_t cap = r->names.count > id ? r->names.count : id + 1;
        uint8_t *g = realloc(r->nflags, cap);
        if (!g)
            return PP_ENOMEM;
        memset(g + r->nflags_cap, 0, cap - r->nflags_cap);
        r->nflags = g;
        r->nflags_cap = cap;
    }
    uint8_t f = r->nflags[id];
    if (!(f & NF_KNOWN)) {
        const char *name = pp_pc_strtab_get(&r->names, id);
        f = NF_KNOWN;
        if (pp_pc_frame_unresolved(name))
            f |= NF_UNRESOLVED;
        if (pp_pc_prefixes_match(&r->a->focus, name) ||
            !pp_pc_prefixes_match(&r->a->framework, name))
            f |= NF_CANDIDATE;
        r->nflags[id] = f;
    }
    *out = f;
    return PP_OK;
}

static inline int
name_flags(report *r, uint32_t id, uint8_t *out)
{
    if (id < r->nflags_cap && (r->nflags[id] & NF_KNOWN)) {
        *out = r->nflags[id];
        return PP_OK;
    }
    return name_flags_slow(r, id, out);
}

/* The responsible frame's module, and the first application frame from it
 * outward: where the fix of a framework or package frame is made. */
static const char *
responsible_name(const report *r, const stack_facts *f)
{
    return f->responsible == NAME_NONE ? ALL_FRAMEWORK_NAME :
                                         pp_pc_strtab_get(&r->names, f->responsible);
}

static const char *
call_site_name(const report *r, const stack_facts *f)
{
    return f->call_site == NAME_NONE ? "" : pp_pc_strtab_get(&r->names, f->call_site);
}

/* The responsible frame's module, and the first application frame from it
 * outward: where the fix of a framework or package frame is made. */
static int
lands(report *r, stack_facts *f, const uint32_t *frames, const uint32_t *ids, uint32_t depth,
      uint32_t at)
{
    pp_alloc *a = r->a;
    int rc = pp_pc_modules_of(&r->mods, a->source, pp_pc_stacks_ip(&a->stacks, frames[at]),
                              &f->module);
    f->call_site = NAME_NONE;
    for (uint32_t i = at; i < depth && rc == PP_OK; i++) {
        uint32_t mod = f->module;
        if (i > at)
            rc = pp_pc_modules_of(&r->mods, a->source, pp_pc_stacks_ip(&a->stacks, frames[i]),
                                  &mod);
        if (rc == PP_OK && pp_pc_modules_is_app(&r->mods, mod)) {
            f->call_site = i == at ? f->responsible : ids[i];
            break;
        }
    }
    return rc;
}

/* Every IP's name, once: stacks share their IPs (112 distinct IPs under
 * 10.8 M frames on a 1.6 GB trace). IP ids are first-seen order along the
 * stacks, so names are interned in the order naming stack by stack did. */
static int
name_ips(report *r)
{
    pp_alloc *a = r->a;
    uint32_t nip = a->stacks.nip;
    r->ipname = malloc(((size_t)nip + 1) * sizeof *r->ipname);
    if (!r->ipname)
        return PP_ENOMEM;
    int rc = PP_OK;
    for (uint32_t k = 0; k < nip && rc == PP_OK; k++)
        rc = pp_pc_symcache_name(&r->syms, a->source, pp_pc_stacks_ip(&a->stacks, k),
                                 &r->ipname[k]);
    return rc;
}

/* The IP ids of stack s into *fr and their name ids into *ids (leaf
 * first), both grown to its depth. */
static int
stack_names(report *r, uint32_t s, uint32_t **fr, uint32_t **ids, size_t *cap, uint32_t *depth)
{
    pp_alloc *a = r->a;
    uint32_t n = pp_pc_stacks_depth(&a->stacks, s);
    if (n > *cap) {
        uint32_t *t = realloc(*fr, (size_t)n * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        *fr = t;
        t = realloc(*ids, (size_t)n * sizeof *t);
        if (!t)
            return PP_ENOMEM;
        *ids = t;
        *cap = n;
    }
    pp_pc_stacks_frames(&a->stacks, s, *fr);
    for (uint32_t i = 0; i < n; i++)
        (*ids)[i] = r->ipname[(*fr)[i]];
    *depth = n;
    return PP_OK;
}

static int
name_stacks(report *r)
{
    pp_alloc *a = r->a;
    uint32_t n = a->stacks.count;
    if (n == 0)
        return PP_OK;
    r->facts = pp_pc_zalloc(n, sizeof *r->facts);
    if (!r->facts)
        return PP_ENOMEM;
    int rc = name_ips(r);
    uint32_t *ids = NULL, *frames = NULL;
    size_t idcap = 0;
    for (uint32_t s = 0; s < n && rc == PP_OK; s++) {
        uint32_t depth;
        if ((rc = stack_names(r, s, &frames, &ids, &idcap, &depth)) != PP_OK)
            break;
        stack_facts *f = &r->facts[s];
        uint32_t at = 0;
        f->responsible = NAME_NONE;
        f->call_site = NAME_NONE;
        /* walk from the allocation site (leaf, index 0) outward */
        for (uint32_t i = 0; i < depth; i++) {
            uint8_t nf;
            if ((rc = name_flags(r, ids[i], &nf)) != PP_OK)
                break;
            f->unresolved_frames += (nf & NF_UNRESOLVED) != 0;
            if (f->responsible == NAME_NONE && (nf & NF_CANDIDATE)) {
                f->responsible = ids[i];
                at = i;
            }
        }
        if (rc != PP_OK)
            break;
        f->at = at;
        if (f->responsible == NAME_NONE)
            ; /* "[framework only]" */
        else if ((rc = lands(r, f, frames, ids, depth, at)) != PP_OK)
            break;
        else if (a->fold_generated) {
            char user[1024];
            uint32_t id;

            if (pp_pc_frame_user_method(pp_pc_strtab_get(&r->names, f->responsible), user,
                                        sizeof user)) {
                rc = pp_pc_strtab_intern(&r->names, user, strlen(user), &id);
                if (rc != PP_OK)
                    break;
                f->responsible = id;
            }
        }
        if (rc == PP_OK && a->fold_generated && call_site_name(r, f)[0] != '\0' &&
            f->call_site != f->responsible) {
            char user[1024];
            uint32_t id;

            if (pp_pc_frame_user_method(call_site_name(r, f), user, sizeof user) &&
                (rc = pp_pc_strtab_intern(&r->names, user, strlen(user), &id)) == PP_OK)
                f->call_site = id;
        }
    }
    /* Fold once every name is known: a ';' in any of them means folding by
     * the joined strings (folded.h). */
    int by_string = 0;
    for (uint32_t i = 0; i < r->names.count && !by_string; i++)
        by_string = strchr(pp_pc_strtab_get(&r->names, i), ';') != NULL;
    pp_alloc_folded_free(&r->folded);
    pp_alloc_folded_init(&r->folded, &r->names, &a->stacks, r->ipname, by_string);
    for (uint32_t s = 0; s < n && rc == PP_OK; s++) {
        uint32_t depth;
        rc = stack_names(r, s, &frames, &ids, &idcap, &depth);
        if (rc == PP_OK)
            rc = pp_alloc_folded_intern(&r->folded, s, ids, depth, &r->facts[s].folded);
    }
    pp_alloc_folded_seal(&r->folded);
    free(ids);
    free(frames);
    return rc;
}

/* Keep the module and call site of by_frame row bf's heaviest stack. */
static int
note_lands(report *r, uint32_t bf, const stack_facts *f, int64_t bytes)
{
    if (bf >= r->bf_cap) {
        uint32_t cap = r->bf_cap ? r->bf_cap * 2 : 64;
        while (cap <= bf)
            cap *= 2;
        uint32_t *m = realloc(r->bf_mod, cap * sizeof *m);
        if (m)
            r->bf_mod = m;
        const char **c = realloc(r->bf_call, cap * sizeof *c);
        if (c)
            r->bf_call = c;
        int64_t *b = realloc(r->bf_best, cap * sizeof *b);
        if (b)
            r->bf_best = b;
        if (!m || !c || !b)
            return PP_ENOMEM;
        for (uint32_t i = r->bf_cap; i < cap; i++) {
            r->bf_mod[i] = 0;
            r->bf_call[i] = "";
            r->bf_best[i] = -1;
        }
        r->bf_cap = cap;
    }
    if (bytes > r->bf_best[bf]) {
        r->bf_best[bf] = bytes;
        r->bf_mod[bf] = f ? f->module : 0;
        r->bf_call[bf] = f ? call_site_name(r, f) : "";
    }
    return PP_OK;
}

/* The line of stack's responsible frame (the allocation site, or the call
 * it made when the frame is not the leaf) weighs bytes in by_frame row bf.
 * A lambda folded into its method keeps its own address: its line is the
 * lambda's, in the user's source. */
static int
note_source(report *r, uint32_t stack, uint32_t bf, const stack_facts *f, int64_t bytes)
{
    pp_alloc *a = r->a;
    if (f->responsible == NAME_NONE)
        return PP_OK;
    if (!pp_pc_srclines_noted(r->src, stack)) {
        uint64_t ip = pp_pc_stacks_ip(&a->stacks, pp_pc_stacks_frame(&a->stacks, stack, f->at));
        int rc = pp_pc_srclines_note(r->src, stack, bf, ip, f->at,
                                     pp_pc_modules_is_app(&r->mods, f->module));
        if (rc != PP_OK)
            return rc;
    }
    pp_pc_srclines_add(r->src, stack, bytes);
    return PP_OK;
}

static int
fold_rows(report *r)
{
    pp_alloc *a = r->a;
    int rc = PP_OK;
    char kindbuf[32];
    const pp_alloc_row *rows = a->raw.row;
    r->by_stack = pp_pc_zalloc(pp_alloc_folded_count(&r->folded) + 1, sizeof *r->by_stack);
    r->tfk_of_row = pp_pc_zalloc((size_t)a->raw.count + 1, sizeof *r->tfk_of_row);
    if (!r->by_stack || !r->tfk_of_row)
        return PP_ENOMEM;
    for (uint32_t row = 0; row < a->raw.count && rc == PP_OK; row++) {
        const pp_alloc_row *w = &rows[row];
        uint32_t key[3] = { w->type, w->stack, w->kind };
        int64_t d[2] = { w->bytes, w->samples };
        const char *type = pp_pc_strtab_get(&a->types, key[0]);
        const char *frame = NO_STACK_NAME;
        int64_t *stack_v = r->no_stack;
        const stack_facts *f = NULL;
        if (key[1] == PP_ALLOC_NO_STACK)
            r->have_no_stack = 1;
        else {
            f = &r->facts[key[1]];
            frame = responsible_name(r, f);
            stack_v = r->by_stack[f->folded];
            r->stack_frames += (int64_t)pp_pc_stacks_depth(&a->stacks, key[1]) * d[1];
            r->stack_unresolved += (int64_t)f->unresolved_frames * d[1];
            uint8_t nf = 0;
            if (f->responsible != NAME_NONE && (rc = name_flags(r, f->responsible, &nf)) != PP_OK)
                break;
            if (nf & NF_UNRESOLVED) /* "[framework only]" is not */
                r->unresolved_resp_bytes = pp_i64_add_sat(r->unresolved_resp_bytes, d[0]);
        }
        const char *kind = pp_alloc_kind_name(key[2]);
        if (!kind) {
            snprintf(kindbuf, sizeof kindbuf, "Unknown(%" PRIu32 ")", key[2]);
            kind = kindbuf;
        }
        r->total_bytes = pp_i64_add_sat(r->total_bytes, d[0]);
        r->total_ticks += d[1];
        rc = pp_pc_agg_add(&r->by_type, type, strlen(type), d, NULL);
        uint32_t bf = 0;
        if (rc == PP_OK)
            rc = pp_pc_agg_add(&r->by_frame, frame, strlen(frame), d, &bf);
        if (rc == PP_OK)
            rc = note_lands(r, bf, f, d[0]);
        if (rc == PP_OK && r->src && f)
            rc = note_source(r, key[1], bf, f, d[0]);
        if (rc == PP_OK)
            rc = pp_pc_agg_add(&r->by_kind, kind, strlen(kind), d, NULL);
        if (rc == PP_OK)
            rc = pp_alloc_type_stack_add(&r->by_type_stack, key[0], f ? f->folded : UINT32_MAX, d);
        stack_v[0] = pp_i64_add_sat(stack_v[0], d[0]);
        stack_v[1] += d[1];
        if (rc == PP_OK) {
            /* a tab cannot occur in a .NET type name: safe pair separator */
            pp_pc_strbuf_clear(&r->buf);
            rc = pp_pc_strbuf_adds(&r->buf, type);
            if (rc == PP_OK)
                rc = pp_pc_strbuf_add(&r->buf, "\t", 1);
            if (rc == PP_OK)
                rc = pp_pc_strbuf_adds(&r->buf, frame);
            if (rc == PP_OK)
                rc = pp_pc_agg_add(&r->by_type_frame, r->buf.data, r->buf.len, d, NULL);
            /* the size class per (type, frame): large-object-heap churn
             * is a rule's evidence (docs/rules.md) */
            if (rc == PP_OK)
                rc = pp_pc_strbuf_add(&r->buf, "\t", 1);
            if (rc == PP_OK)
                rc = pp_pc_strbuf_adds(&r->buf, kind);
            int64_t d3[3] = { d[0], d[1], 0 };
            if (rc == PP_OK)
                rc = pp_pc_agg_add(&r->by_type_frame_kind, r->buf.data, r->buf.len, d3,
                                   &r->tfk_of_row[row]);
        }
    }
    return rc;
}

/* The threads column of by_type_frame_kind: distinct threads whose ticks
 * fell in each row (the events' thread ids). A pooled buffer is allocated about
 * once per thread that rents it, a per-call one once per call: samples per
 * thread is the rule evidence that scales with calls (docs/rules.md). */
static int
count_row_threads(report *r)
{
    const pp_pc_u64map *m = &r->a->row_threads;
    pp_pc_u64map seen = { 0 };
    int rc = PP_OK;
    for (uint32_t i = 0; i < m->nslots && rc == PP_OK; i++) {
        if (!m->used[i])
            continue;
        uint32_t raw = (uint32_t)(m->keys[i] >> 32), one;
        if (raw >= r->a->raw.count)
            continue;
        uint32_t row = r->tfk_of_row[raw];
        uint64_t key = (uint64_t)row << 32 | (m->keys[i] & 0xffffffffu);
        if (pp_pc_u64map_get(&seen, key, &one))
            continue;
        rc = pp_pc_u64map_put(&seen, key, 1);
        if (rc == PP_OK)
            pp_pc_agg_vals_mut(&r->by_type_frame_kind, row)[2]++;
    }
    pp_pc_u64map_free(&seen);
    return rc;
}

static double
pct(int64_t part, int64_t whole)
{
    return whole > 0 ? 100.0 * (double)part / (double)whole : 0.0;
}

/* A table "key, bytes, samples[, share[, module, call_site]], bytes_lo,
 * bytes_hi" from an aggregate, top rows. bytes is the ticks' sampled
 * bytes; bytes_lo .. bytes_hi its 95 % interval from the tick count
 * (../common/interval.h): a row of 4 ticks is 0.27-2.6x its figure. */
static int
emit_simple(report *r, uint32_t table, const pp_pc_agg *g, int with_share, int64_t top,
            int with_lands)
{
    const pp_host_api *h = r->a->host;
    uint32_t nc = with_share ? (with_lands ? 6 : 4) : 3;
    /* source (common/srclines.h) last, so the columns before keep their
     * place; only when some row has a line (the findings say why not). */
    uint32_t n = pp_pc_agg_count(g);
    const char **lines = with_lands && r->src ? pp_pc_srclines_best(r->src, n) : NULL;
    if (with_lands && r->src && !lines)
        return PP_ENOMEM;
    int with_src = 0;
    for (uint32_t i = 0; lines && i < n && !with_src; i++)
        with_src = lines[i] != NULL;
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_alloc_tables[table], 1,
                                  with_src ? NULL : (const char *const[]){ "source", NULL });
    uint32_t *order = t ? pp_pc_agg_rank(g, PP_ALLOC_BYTES, PP_ALLOC_SAMPLES) : NULL;
    if (!t || (n && !order)) {
        free(order);
        free(lines);
        return PP_ENOMEM;
    }
    if (top > 0 && (uint64_t)top < n)
        n = (uint32_t)top;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = pp_pc_agg_vals(g, order[i]);
        uint32_t row = order[i], mod = with_lands && row < r->bf_cap ? r->bf_mod[row] : 0;
        double lo, hi;
        pp_cell c[9] = { pp_cell_str(pp_pc_agg_key(g, row)),
                         pp_cell_int(v[0]),
                         pp_cell_int(v[1]),
                         pp_cell_dbl(pct(v[0], r->total_bytes)),
                         pp_cell_str(pp_pc_modules_name(&r->mods, mod)),
                         pp_cell_str(with_lands && row < r->bf_cap ? r->bf_call[row] : "") };
        pp_pc_interval95((double)v[0], v[1], &lo, &hi);
        c[nc] = pp_cell_int(pp_i64_from_double(floor(lo)));
        c[nc + 1] = pp_cell_int(pp_i64_from_double(ceil(hi)));
        if (with_src)
            c[nc + 2] = pp_cell_str(lines[row] ? lines[row] : "");
        if (with_lands)
            pp_pc_modules_use(&r->mods, mod);
        rc = h->table_row(t, c);
    }
    free(order);
    free(lines);
    return rc;
}

/* by_stack ranks like pp_pc_agg_rank: bytes, then samples, descending,
 * then the folded string ascending (compared without building it). The
 * "[no stack]" row has id UINT32_MAX. */
static int
cmp_stacks(const void *pa, const void *pb, void *arg)
{
    report *r = arg;
    uint32_t x = *(const uint32_t *)pa, y = *(const uint32_t *)pb;
    const int64_t *vx = x == UINT32_MAX ? r->no_stack : r->by_stack[x];
    const int64_t *vy = y == UINT32_MAX ? r->no_stack : r->by_stack[y];
    if (vx[0] != vy[0])
        return vx[0] > vy[0] ? -1 : 1;
    if (vx[1] != vy[1])
        return vx[1] > vy[1] ? -1 : 1;
    if (x == UINT32_MAX)
        return pp_alloc_folded_cmp_lit(&r->folded, NO_STACK_NAME, y);
    if (y == UINT32_MAX)
        return -pp_alloc_folded_cmp_lit(&r->folded, NO_STACK_NAME, x);
    return pp_alloc_folded_cmp(&r->folded, x, y);
}

static int
emit_by_stack(report *r, int64_t top)
{
    const pp_host_api *h = r->a->host;
    pp_table *t = pp_pc_table_new(h, r->ctx, &pp_alloc_tables[PP_ALLOC_T_BY_STACK], 1, NULL);
    if (!t)
        return PP_ENOMEM;
    uint32_t nf = pp_alloc_folded_count(&r->folded), n = 0;
    uint32_t *order = malloc(((size_t)nf + 1) * sizeof *order);
    if (!order)
        return PP_ENOMEM;
    for (uint32_t i = 0; i < nf; i++)
        if (r->by_stack[i][1] != 0)
            order[n++] = i;
    if (r->have_no_stack)
        order[n++] = UINT32_MAX;
    qsort_r(order, n, sizeof *order, cmp_stacks, r);
    if (top > 0 && (uint64_t)top < n) {
        /* the stacks left out stay in the sums: one row holds them */
        for (uint32_t i = (uint32_t)top; i < n; i++) {
            const int64_t *v = order[i] == UINT32_MAX ? r->no_stack : r->by_stack[order[i]];
            r->cut[0] = pp_i64_add_sat(r->cut[0], v[0]);
            r->cut[1] += v[1];
        }
        r->cut_stacks = n - (uint32_t)top;
        n = (uint32_t)top;
    }
    r->listed_stacks = n;
    int rc = PP_OK;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const int64_t *v = order[i] == UINT32_MAX ? r->no_stack : r->by_stack[order[i]];
        const char *key = order[i] == UINT32_MAX ? NO_STACK_NAME :
                                                   pp_alloc_folded_string(&r->folded, order[i]);
        if (!key) {
            rc = PP_ENOMEM;
            break;
        }
        pp_cell c[3] = { pp_cell_str(key), pp_cell_int(v[0]), pp_cell_int(v[1]) };
        rc = h->table_row(t, c);
    }
    if (rc == PP_OK && r->cut_stacks) {
        pp_cell c[3] = { pp_cell_str(OTHER_STACKS_NAME), pp_cell_int(r->cut[0]),
                         pp_cell_int(r->cut[1]) };
        rc = h->table_row(t, c);
    }
    free(order);
    return rc;
}

/* by_type_frame (keys type, frame) or, with_kind, by_type_frame_kind
 * (type, frame, kind): tab-separated keys split into columns. */
static int
emit_type_frame(report *r, int with_kind)
{
    const pp_host_api *h = r->a->host;
    /* module, call_site: declared, not written (by_frame names them) */
    static const char *const unwritten[] = { "module", "call_site", NULL };
    pp_table *t = with_kind ?
                      pp_pc_table_new(h, r->ctx, &pp_alloc_tables[PP_ALLOC_T_BY_TYPE_FRAME_KIND], 3,
                                      unwritten) :
                      pp_pc_table_new(h, r->ctx, &pp_alloc_tables[PP_ALLOC_T_BY_TYPE_FRAME], 2,
                                      unwritten);
    if (!t)
        return PP_ENOMEM;
    const pp_pc_agg *g = with_kind ? &r->by_type_frame_kind : &r->by_type_frame;
    uint32_t n = pp_pc_agg_count(g);
    uint32_t *order = pp_pc_agg_rank(g, PP_ALLOC_BYTES, PP_ALLOC_SAMPLES);
    if (n && !order)
        return PP_ENOMEM;
    if (r->a->top > 0 && (uint64_t)r->a->top < n)
        n = (uint32_t)r->a->top;
    int rc = PP_OK;
    char *pair = NULL;
    for (uint32_t i = 0; i < n && rc == PP_OK; i++) {
        const char *key = pp_pc_agg_key(g, order[i]);
        free(pair);
        pair = strdup(key);
        if (!pair) {
            rc = PP_ENOMEM;
            break;
        }
        char *tab = strchr(pair, '\t');
        if (!tab)
            continue; /* cannot happen: every key was built with one */
        *tab = '\0';
        char *tab2 = with_kind ? strrchr(tab + 1, '\t') : NULL;
        if (with_kind && !tab2)
            continue;
        if (tab2)
            *tab2 = '\0';
        const int64_t *v = pp_pc_agg_vals(g, order[i]);
        pp_cell c[6] = { pp_cell_str(pair), pp_cell_str(tab + 1), pp_cell_int(v[0]),
                         pp_cell_int(v[1]), pp_cell_null(),       pp_cell_null() };
        if (with_kind) {
            c[2] = pp_cell_str(tab2 + 1);
            c[3] = pp_cell_int(v[0]);
            c[4] = pp_cell_int(v[1]);
            c[5] = pp_cell_int(v[2]);
        }
        rc = h->table_row(t, c);
    }
    free(pair);
    free(order);
    return rc;
}

int
pp_alloc_report(pp_alloc *a, pp_ctx *ctx, pp_error *err)
{
    report r;
    memset(&r, 0, sizeof r);
    r.a = a;
    r.ctx = ctx;
    pp_pc_strtab_init(&r.names);
    pp_alloc_folded_init(&r.folded, &r.names, &a->stacks, NULL, 0);
    pp_pc_symcache_init(&r.syms, a->host, &r.names);
    pp_pc_modules_init(&r.mods, a->host);
    pp_pc_agg_init(&r.by_type, 2);
    pp_pc_agg_init(&r.by_frame, 2);
    pp_pc_agg_init(&r.by_type_frame, 2);
    pp_pc_agg_init(&r.by_type_frame_kind, 3);
    pp_pc_agg_init(&r.by_kind, 2);
    pp_pc_agg_init(&r.by_type_stack, 2);

    int rc = name_stacks(&r);
    if (rc == PP_OK && a->stacks.count && r.mods.on) {
        r.src = pp_pc_srclines_new(a->host, a->source, a->stacks.count);
        if (!r.src && a->source && (a->host->host_features & PP_HOST_SYM_SOURCE))
            rc = PP_ENOMEM;
    }
    if (rc == PP_OK)
        rc = fold_rows(&r);
    free(r.facts); /* folded into the aggregates */
    r.facts = NULL;
    if (rc == PP_OK)
        rc = count_row_threads(&r);
    if (rc == PP_OK)
        rc = emit_simple(&r, PP_ALLOC_T_BY_TYPE, &r.by_type, 1, a->top, 0);
    if (rc == PP_OK)
        rc = emit_simple(&r, PP_ALLOC_T_BY_FRAME, &r.by_frame, 1, a->top, 1);
    if (rc == PP_OK)
        rc = emit_type_frame(&r, 0);
    if (rc == PP_OK)
        rc = emit_type_frame(&r, 1);
    if (rc == PP_OK)
        rc = emit_simple(&r, PP_ALLOC_T_BY_KIND, &r.by_kind, 0, 0, 0);
    if (rc == PP_OK)
        rc = emit_by_stack(&r, a->top_stacks);
    if (rc == PP_OK) /* every row for pprof's type labels, else as many as by_stack */
        rc = pp_alloc_emit_type_stacks(a->host, ctx, &r.by_type_stack, &a->types, &r.folded,
                                       NO_STACK_NAME, a->type_stacks ? 0 : a->top_stacks,
                                       OTHER_STACKS_NAME);
    if (rc == PP_OK)
        rc = pp_pc_modules_emit(&r.mods, ctx);
    if (rc == PP_OK && r.src)
        pp_pc_srclines_findings(r.src, "alloc", ctx);
    if (rc == PP_OK)
        rc = pp_alloc_emit_totals(
            a, ctx,
            &(pp_alloc_figures){ .total_bytes = r.total_bytes,
                                 .total_ticks = r.total_ticks,
                                 .stack_frames = r.stack_frames,
                                 .stack_unresolved = r.stack_unresolved,
                                 .unresolved_resp_bytes = r.unresolved_resp_bytes,
                                 .cut_stacks = r.cut_stacks,
                                 .listed_stacks = r.listed_stacks,
                                 .cut = { r.cut[0], r.cut[1] } });
    if (rc != PP_OK)
        a->host->error_set(err, rc, "alloc: %s while building the report",
                           rc == PP_ENOMEM ? "out of memory" : "the host refused a result");

    pp_pc_agg_free(&r.by_type);
    pp_pc_agg_free(&r.by_frame);
    pp_pc_agg_free(&r.by_type_frame);
    pp_pc_agg_free(&r.by_type_frame_kind);
    pp_pc_agg_free(&r.by_kind);
    pp_pc_agg_free(&r.by_type_stack);
    free(r.by_stack);
    pp_pc_symcache_free(&r.syms);
    pp_pc_srclines_free(r.src);
    pp_pc_modules_free(&r.mods);
    free(r.bf_mod);
    free(r.bf_call);
    free(r.bf_best);
    free(r.tfk_of_row);
    pp_pc_strtab_free(&r.names);
    free(r.nflags);
    pp_alloc_folded_free(&r.folded);
    free(r.ipname);
    pp_pc_strbuf_free(&r.buf);
    free(r.facts);
    return rc;
}
