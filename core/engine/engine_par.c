/* The engine's parallel read of one nettrace input (engine_internal.h).
 *
 * The file is cut at sequence points into regions as `inspect --jobs`
 * cuts it (nettrace/region.h says why a region's reader sees exactly what
 * the serial reader sees there). Each region is read on a worker thread by
 * its own reader into children forked from the stages' states (plugin.h,
 * ABI 1.3); the host thread folds each region's reader facts into the
 * input's own reader in file order, publishes the workers' callbacks to
 * the watch and their progress, and starts the file's hash (which must see
 * every byte once, in order) on a thread of its own once a worker is idle
 * (engine_hash.c). Only when every region read cleanly and every
 * fold was exact are the children merged into the states, in file order,
 * and the regions' warnings replayed in file order; otherwise the children
 * are destroyed and the input reopened to be read serially, so the
 * document, errors and stage failures are always the serial ones. */
#include "config.h"

#include <fcntl.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "engine_internal.h"
#include "nettrace/pool.h"
#include "nettrace/inspect.h"
#include "nettrace/process.h"
#include "nettrace/region.h"

/* How often the host thread tells the watch what the workers run. */
#define WATCH_MS 20

typedef struct par_warns {
    pp_error *v;
    size_t n, cap;
    int oom;
} par_warns;

typedef struct par_job {
    pp_trace_source *r; /* job 0: the input's own reader */
    nt_region_base base;
    size_t sp;           /* starting point (index into the index), k > 0 */
    uint64_t stop;       /* end after the block ending here, 0 = the input's end */
    uint32_t region_off; /* stack_region of the serial read - the region reader's */
    void **child;        /* [nstages]: NULL where the stage does not read */
    par_warns warns;     /* the reader's warnings, replayed in file order */
    pp_error err;
    int rc; /* 0 read to its stop or end; < 0 reader error; 1 consume failed */
    uint64_t records;
    double cpu_s;   /* the worker's CPU time for this region */
    uint64_t start; /* file offset where the region starts */
    /* What the host thread publishes (guard.h); the worker's own line. */
    _Alignas(64) _Atomic uint32_t w_stage, w_phase;
    _Atomic uint64_t w_beat;
    _Atomic uint64_t w_pos;      /* the reader's offset, for progress */
    _Atomic uint64_t *w_records; /* [nstages] */
} par_job;

typedef struct par_run {
    par_job *jobs;
    size_t njobs;
    const char *path;
    const nt_index *ix;
    input_run *in;
    stage_run *stages;
    size_t nstages;
    const uint32_t *slot; /* [nstages] the stage's slot of this input */
    const pp_guard *g;
    uint64_t records0[64]; /* the watch's per-stage records before the read */
    uint64_t beat0;        /* and its beat */
} par_run;

static void
on_warn(void *user, const pp_error *w)
{
    par_warns *ws = user;

    if (ws->n == ws->cap) {
        size_t cap = ws->cap ? ws->cap * 2 : 8;
        pp_error *v = realloc(ws->v, cap * sizeof *v);
        if (!v) {
            ws->oom = 1;
            return;
        }
        ws->v = v;
        ws->cap = cap;
    }
    ws->v[ws->n++] = *w;
}

static void
read_job(par_run *ps, size_t k)
{
    par_job *j = &ps->jobs[k];
    const int watched = ps->g != NULL && ps->g->watch != NULL;
    pp_error perr = PP_ERROR_INIT;
    pp_record rec;
    uint64_t beat = 0;
    int rc;

    if (k > 0) {
        j->rc = nt_region_open(ps->path, ps->ix, j->sp, j->stop, &j->r, &j->base, &j->err);
        if (j->rc < 0)
            return;
        pp_nettrace_set_callbacks(j->r, NULL, on_warn, &j->warns);
        /* The serial reader has counted every point before this one
         * (checked when the region is folded). */
        j->region_off = (uint32_t)(j->sp + 1 - j->base.st.sequence_points);
    }
    for (;;) {
        rc = ps->in->ops->next(j->r, &rec, &j->err);
        if (rc <= 0)
            break;
        if (j->region_off != 0) {
            /* The event is this thread's reader's, rewritten before anyone
             * sees it: the plugins get the serial read's numbering. */
            ((pp_trace_event *)rec.u.event)->stack_region += j->region_off;
        }
        j->records++;
        atomic_store_explicit(&j->w_pos, j->r->pos, memory_order_relaxed);
        for (size_t s = 0; s < ps->nstages; s++) {
            if (j->child[s] == NULL)
                continue;
            perr.code = PP_OK;
            perr.message[0] = '\0';
            rec.input_index = ps->slot[s];
            if (watched) {
                atomic_store_explicit(&j->w_records[s], j->records, memory_order_relaxed);
                atomic_store_explicit(&j->w_stage, (uint32_t)s, memory_order_relaxed);
                atomic_store_explicit(&j->w_phase, PP_PHASE_CONSUME, memory_order_relaxed);
                atomic_store_explicit(&j->w_beat, ++beat, memory_order_relaxed);
            }
            rc = ps->stages[s].plan->analyzer->consume(j->child[s], &rec, &perr);
            if (watched) {
                atomic_store_explicit(&j->w_phase, PP_PHASE_IDLE, memory_order_relaxed);
                atomic_store_explicit(&j->w_beat, ++beat, memory_order_relaxed);
            }
            if (rc != PP_OK) {
                /* The serial read meets the same failure and says it. */
                j->rc = 1;
                return;
            }
        }
    }
    j->rc = rc < 0 ? rc : 0;
}

static void
run_job(void *user, size_t k)
{
    par_run *ps = user;
    double t0 = nt_thread_cpu_s();

    read_job(ps, k);
    ps->jobs[k].cpu_s = nt_thread_cpu_s() - t0;
}

/* Fork job k's children (on this thread: fork never runs beside a merge).
 * 0, or 1 when a fork failed (the read is then serial). */
static int
fork_children(par_run *ps, size_t k)
{
    for (size_t s = 0; s < ps->nstages; s++) {
        stage_run *st = &ps->stages[s];
        pp_error perr = PP_ERROR_INIT;

        if (ps->slot[s] == UINT32_MAX)
            continue;
        watch_enter(ps->g, s, PP_PHASE_CREATE);
        int rc = st->plan->analyzer->fork(st->state, &ps->jobs[k].child[s], &perr);
        watch_leave(ps->g);
        if (rc != PP_OK) {
            ps->jobs[k].child[s] = NULL;
            return 1;
        }
    }
    return 0;
}

/* Tell the watch (guard.h) that plugin code runs while any worker is in
 * a callback, with beats that move while any of them moves: a worker stuck
 * in a plugin stops them, and the stage times out. Which stage and after
 * how many records are the serial attempt's to say (watch->parallel). */
static void
publish(par_run *ps)
{
    pp_guard_watch *w = ps->g != NULL ? ps->g->watch : NULL;
    uint64_t beat = 0;
    uint32_t phase = PP_PHASE_IDLE, stage = 0;

    if (w == NULL)
        return;
    for (size_t s = 0; s < ps->nstages && s < 64; s++)
        w->records[s] = ps->records0[s];
    for (size_t k = 0; k < ps->njobs; k++) {
        par_job *j = &ps->jobs[k];

        beat += atomic_load_explicit(&j->w_beat, memory_order_relaxed);
        if (atomic_load_explicit(&j->w_phase, memory_order_relaxed) != PP_PHASE_IDLE) {
            phase = PP_PHASE_CONSUME;
            stage = atomic_load_explicit(&j->w_stage, memory_order_relaxed);
        }
        for (size_t s = 0; s < ps->nstages && s < 64; s++)
            w->records[s] += atomic_load_explicit(&j->w_records[s], memory_order_relaxed);
    }
    w->stage = stage;
    w->phase = phase;
    w->beat = ps->beat0 + beat;
    w->input_bytes = ps->in->done;
}

/* Fold job k's reader into job 0's (file order). 0 exact, 1 not. */
static int
fold(par_run *ps, size_t k)
{
    par_job *j = &ps->jobs[k], *j0 = &ps->jobs[0];

    if (j->rc != 0 || j->warns.oom)
        return 1;
    if (k == 0)
        /* A first region without a record leaves no state a source. */
        return ps->njobs > 1 && j->r->stopped && j->records > 0 ? 0 : 1;
    if ((k + 1 < ps->njobs && !j->r->stopped) || j0->r->st.sequence_points != (uint64_t)j->sp + 1)
        return 1;
    int rc = nt_region_merge(j0->r, j->r, &j->base);
    if (rc == 0)
        pp_nt_process_merge(&j0->r->proc, &j->r->proc);
    return rc < 0 ? 1 : rc;
}

static void
close_reader(par_run *ps, par_job *j)
{
    if (j->r != NULL && j != &ps->jobs[0])
        ps->in->ops->close(j->r);
    j->r = NULL;
    nt_region_base_free(&j->base);
}

/* The workers' progress, as the serial read's on_bytes tells it. */
static void
progress(par_run *ps)
{
    input_run *in = ps->in;
    uint64_t done = 0;

    for (size_t k = 0; k < ps->njobs; k++) {
        uint64_t at = atomic_load_explicit(&ps->jobs[k].w_pos, memory_order_relaxed);
        done += at > ps->jobs[k].start ? at - ps->jobs[k].start : 0;
    }
    pp_engine_progress(in, done < in->size ? done : in->size);
}

/* Whether fewer jobs from k on are unfinished than there are threads: a
 * core is free for the hash. */
static int
worker_idle(nt_pool *pool, size_t k, size_t njobs, unsigned threads)
{
    size_t left = 0;

    for (; k < njobs && left < threads; k++)
        left += !nt_pool_wait(pool, k, 0);
    return left < threads;
}

/* Run the jobs; 0 when all read and folded, 1 otherwise. At most
 * 2 x threads regions have children at once: memory stays bounded by the
 * threads, not by the number of regions. bg is started once a worker is
 * idle, or when all is read. */
static int
run_all(par_run *ps, unsigned threads, pp_bg_hash *bg)
{
    nt_pool pool;
    size_t ready = 0, window = 2 * (size_t)threads;
    int rc = 0;

    for (size_t k = 0; rc == 0 && k < ps->njobs && k < window; k++)
        if ((rc = fork_children(ps, k)) == 0)
            ready = k + 1;
    if (rc != 0 || nt_pool_start(&pool, ps->njobs, threads, ready, run_job, ps) != 0) {
        publish(ps);
        return 1; /* the forked children are destroyed unmerged */
    }
    for (size_t k = 0; rc == 0 && k < ps->njobs; k++) {
        /* Wake every WATCH_MS to publish the watch and the progress. */
        while (!nt_pool_wait(&pool, k, WATCH_MS)) {
            publish(ps);
            progress(ps);
            if (worker_idle(&pool, k, ps->njobs, threads))
                pp_bg_hash_start(bg);
        }
        if (worker_idle(&pool, k + 1, ps->njobs, threads))
            pp_bg_hash_start(bg);
        rc = fold(ps, k);
        if (k > 0)
            close_reader(ps, &ps->jobs[k]);
        if (rc == 0 && ready < ps->njobs && (rc = fork_children(ps, ready)) == 0)
            nt_pool_raise(&pool, ++ready);
    }
    nt_pool_stop(&pool, rc != 0);
    nt_pool_free(&pool);
    for (size_t k = 1; k < ps->njobs; k++)
        close_reader(ps, &ps->jobs[k]); /* what ran past an abort */
    if (rc == 0)
        pp_bg_hash_start(bg);
    publish(ps);
    return rc;
}

/* Merge every child into its stage in file order (the read was exact). */
static void
merge_children(par_run *ps, pp_error *first)
{
    for (size_t s = 0; s < ps->nstages; s++) {
        stage_run *st = &ps->stages[s];

        for (size_t k = 0; ps->slot[s] != UINT32_MAX && k < ps->njobs; k++) {
            pp_error perr = PP_ERROR_INIT;

            watch_enter(ps->g, s, PP_PHASE_CONSUME);
            int rc = st->plan->analyzer->merge(st->state, ps->jobs[k].child[s], &perr);
            watch_leave(ps->g);
            if (rc != PP_OK) {
                pp_engine_stage_fail(st, first,
                                     "stage '%s' (analyzer %s) failed while consuming: %s",
                                     perr.message[0] ? perr.message : "no reason given");
                break;
            }
        }
    }
}

static void
destroy_children(par_run *ps)
{
    for (size_t k = 0; k < ps->njobs; k++)
        for (size_t s = 0; s < ps->nstages; s++)
            if (ps->jobs[k].child[s] != NULL) {
                watch_enter(ps->g, s, PP_PHASE_DESTROY);
                ps->stages[s].plan->analyzer->destroy(ps->jobs[k].child[s]);
                watch_leave(ps->g);
                ps->jobs[k].child[s] = NULL;
            }
}

/* Tests and bench: with PERFPIPE_INSPECT_SPLIT_LOG=FILE, one line per
 * split read, as inspect writes (nettrace/inspect_par.c), so a test can
 * tell a split that matched from one that never happened; then the CPU
 * seconds of the host thread (index, folds) and of its merges,
 * and of each region's worker. */
static void
test_log(const char *path, const par_run *ps, int rc, double host_s, double merge_s)
{
    const char *log = getenv("PERFPIPE_INSPECT_SPLIT_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;

    if (f) {
        fprintf(f, "%s regions=%zu %s\n", path, ps->njobs, rc == 0 ? "folded" : "serial");
        fprintf(f, "#cpu_s host %.3f merge %.3f regions", host_s, merge_s);
        for (size_t k = 0; k < ps->njobs && k < 16; k++)
            fprintf(f, " %.3f", ps->jobs[k].cpu_s);
        fputc('\n', f);
        fclose(f);
    }
}

/* Reopen the input after an attempt moved its reader: nothing hashed,
 * nothing warned twice (open's own warning was given the first time). */
static int
reopen(input_run *in, uint64_t next_progress, pp_error *err)
{
    pp_trace_source *r;
    pp_hash *h = pp_hash_new(pp_hash_algo(in->hash), err);

    if (h == NULL)
        return err ? err->code : PP_ENOMEM;
    pp_hash_free(in->hash);
    in->hash = h;
    in->done = 0;
    in->ops->close(in->src);
    in->src = NULL;
    int rc = pp_nettrace_open(pp_engine_input_path(in), &r, err);
    if (rc < 0)
        return rc;
    r->native_warning[0] = '\0';
    pp_nettrace_set_callbacks(r, in->sh.on_bytes, in->sh.on_warning, in->sh.user);
    in->src = r;
    in->next_progress = next_progress;
    return PP_OK;
}

static int
forkable(const pp_analyzer *a)
{
    return a->abi_minor >= 3 && PP_ANALYZER_HAS(a, merge) && a->fork != NULL && a->merge != NULL;
}

int
pp_engine_read_parallel(input_run *in, size_t index, stage_run *stages, size_t nstages,
                        const pp_guard *g, unsigned jobs, pp_error *first, pp_error *err)
{
    const char *knob = getenv("PERFPIPE_INSPECT_SPLIT"); /* test only: "every", "balanced" */
    int every = knob && strcmp(knob, "every") == 0;
    uint64_t min = knob && (every || strcmp(knob, "balanced") == 0) ? 0 : PP_INSPECT_SPLIT_MIN;
    pp_trace_source *r0 = in->src;
    uint32_t slot[64];
    size_t readers = 0;
    struct stat sb;
    nt_index ix;

    if (in->ops != &pp_nettrace_source_ops || nstages > 64)
        return 1;
    for (size_t s = 0; s < nstages; s++) {
        slot[s] = UINT32_MAX;
        if (stages[s].failed)
            continue;
        for (uint32_t i = 0; i < stages[s].plan->ninputs; i++)
            if (stages[s].plan->inputs[i] == index && slot[s] == UINT32_MAX)
                slot[s] = i;
        if (slot[s] == UINT32_MAX)
            continue;
        if (!pp_engine_stage_reads(&stages[s], index) || !forkable(stages[s].plan->analyzer))
            return 1; /* one stage that cannot merge: all serial */
        readers++;
    }
    if (readers == 0 || r0->format != 4 || !r0->seekable || r0->st.blocks != 0 ||
        fstat(r0->fd, &sb) != 0 || (uint64_t)sb.st_size < min)
        return 1;
    if (jobs > 64)
        jobs = 64;
    double t0 = nt_thread_cpu_s();
    uint64_t size = (uint64_t)sb.st_size;
    uint64_t until = every ? UINT64_MAX : size / jobs * (jobs - 1);
    if (nt_index_build(r0, until, &ix) < 0) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", in->plan->path);
        return PP_ENOMEM;
    }
    size_t *at = malloc((ix.nsp + 1) * sizeof *at);
    size_t n = at != NULL && ix.nsp ? nt_region_pick(&ix, size, jobs, every, at) : 1;
    /* The first region must hold an event: its child's source is the only
     * one that outlives the merges (plugin.h), so no cut before one. */
    size_t keep = 0;
    for (size_t i = 0; i + 1 < n; i++)
        if (ix.sp[at[i]].start > ix.first_events)
            at[keep++] = at[i];
    n = n > 1 ? keep + 1 : n;
    par_job *jv = n > 1 ? calloc(n, sizeof *jv) : NULL;
    void **children = jv ? calloc(n * nstages, sizeof *children) : NULL;
    _Atomic uint64_t *recs = children ? calloc(n * nstages, sizeof *recs) : NULL;
    int fd = recs ? open(pp_engine_input_path(in), O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) {
        free(recs);
        free(children);
        free(jv);
        free(at);
        nt_index_free(&ix);
        return 1; /* one region (or no memory for more): serial */
    }
    for (size_t k = 0; k < n; k++) {
        pp_error e0 = PP_ERROR_INIT;

        jv[k].sp = k > 0 ? at[k - 1] : 0;
        jv[k].start = k > 0 ? ix.sp[jv[k].sp].start : 0;
        jv[k].stop = k + 1 < n ? ix.sp[at[k]].end : 0;
        jv[k].child = children + k * nstages;
        jv[k].w_records = recs + k * nstages;
        jv[k].err = e0;
    }
    jv[0].r = r0;
    r0->stop_at = jv[0].stop;
    pp_nettrace_set_callbacks(r0, NULL, on_warn, &jv[0].warns);

    par_run ps = { jv, n, in->plan->path, &ix, in, stages, nstages, slot, g, { 0 }, 0 };
    if (g != NULL && g->watch != NULL) {
        for (size_t s = 0; s < nstages; s++)
            ps.records0[s] = g->watch->records[s];
        ps.beat0 = g->watch->beat;
        g->watch->parallel = 1;
    }
    uint64_t next_progress = in->next_progress;
    pp_bg_hash *bg = pp_bg_hash_new(in->hash, fd, r0->hashed, size);
    int rc = bg != NULL ? run_all(&ps, jobs < n ? jobs : (unsigned)n, bg) : 1;
    double host_s = nt_thread_cpu_s() - t0, merge_s = 0;
    if (bg == NULL)
        close(fd);
    if (rc == 0) {
        in->bg = bg; /* joined once the stages are finished */
        bg = NULL;
        r0->stop_at = 0;
        /* Without on_bytes the reader kept its first bytes for a callback
         * to come (input.c): this thread has hashed them already. */
        r0->early_len = 0;
        pp_nettrace_set_callbacks(r0, in->sh.on_bytes, in->sh.on_warning, in->sh.user);
        merge_children(&ps, first);
        merge_s = nt_thread_cpu_s() - t0 - host_s;
        for (size_t k = 0; k < n; k++)
            for (size_t i = 0; i < jv[k].warns.n; i++)
                in->sh.on_warning(in->sh.user, &jv[k].warns.v[i]);
    }
    destroy_children(&ps);
    pp_bg_hash_free(bg); /* before reopen replaces the hash */
    test_log(in->plan->path, &ps, rc, host_s, merge_s);
    if (rc != 0 && g != NULL && g->watch != NULL)
        for (size_t s = 0; s < nstages; s++)
            g->watch->records[s] = ps.records0[s]; /* the serial read counts them */
    for (size_t k = 0; k < n; k++)
        free(jv[k].warns.v);
    free(recs);
    free(children);
    free(jv);
    free(at);
    nt_index_free(&ix);
    if (rc == 0)
        return 0;
    rc = reopen(in, next_progress, err);
    return rc < 0 ? rc : 1;
}
