/* `perfpipe inspect` on several cores: the file is cut at sequence points
 * into regions (region.h says why that is exact), each region is counted by
 * a worker thread with its own reader, and the main thread folds the
 * regions into the first reader in file order, as they finish. A region
 * that cannot be folded exactly (region.c), a worker's error or an early
 * end: the caller reads the file serially instead, so the document, error
 * included, is always the serial one. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/inspect.h"
#include "nettrace/pool.h"
#include "nettrace/region.h"

unsigned
nt_inspect_default_jobs(void)
{
    const char *e = getenv("PERFPIPE_JOBS");
    if (e && *e) {
        char *end;
        unsigned long v = strtoul(e, &end, 10);
        if (*end == 0 && v >= 1 && v <= 64)
            return (unsigned)v;
    }
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    if (n < 1)
        return 1;
    return n < (long)PP_INSPECT_JOBS_DEFAULT_MAX ? (unsigned)n : PP_INSPECT_JOBS_DEFAULT_MAX;
}

typedef struct region_job {
    pp_trace_source *r; /* jobs[0]: the caller's reader */
    nt_region_base base;
    size_t sp;     /* starting point (index in the index), k > 0 */
    uint64_t stop; /* end after the block ending here, 0 = the input's end */
    pp_u64map ips;
    nt_warn_sink ws;
    pp_error err;
    int rc;
    double cpu_s; /* the worker's CPU time for this region */
} region_job;

typedef struct par_state {
    region_job *jobs;
    size_t njobs, window;
    const char *path;
    const nt_index *ix;
} par_state;

static void
run_job(void *user, size_t k)
{
    par_state *ps = user;
    region_job *j = &ps->jobs[k];
    double t0 = nt_thread_cpu_s();

    if (k > 0) {
        j->rc = nt_region_open(ps->path, ps->ix, j->sp, j->stop, &j->r, &j->base, &j->err);
        if (j->rc < 0)
            return;
        pp_nettrace_set_callbacks(j->r, NULL, nt_inspect_on_warning, &j->ws);
    } else {
        j->r->stop_at = j->stop;
    }
    j->rc = nt_inspect_count(j->r, ps->path, &j->ips, &j->err);
    j->cpu_s = nt_thread_cpu_s() - t0;
}

static int
fold_frames(pp_u64map *into, const pp_u64map *from)
{
    for (size_t i = 0; i < from->cap; i++) {
        if (!from->used[i])
            continue;
        uint64_t *c = pp_u64map_get(into, from->keys[i]);
        if (c)
            *c += from->vals[i];
        else if (pp_u64map_put(into, from->keys[i], from->vals[i]) < 0)
            return PP_ENOMEM;
    }
    return PP_OK;
}

static void
fold_warnings(nt_warn_sink *into, const nt_warn_sink *from)
{
    into->count += from->count;
    if (!into->have && from->have) {
        memcpy(into->msg, from->msg, sizeof into->msg);
        into->have = 1;
    }
}

/* Region k (k > 0) into jobs[0]: 0 done, 1 read serially, PP_ENOMEM. */
static int
fold(region_job *jobs, size_t k, size_t njobs)
{
    region_job *j = &jobs[k];

    /* A region that failed, or ended before its stop (the index said the
     * file goes on): only the serial read knows what follows. */
    if (j->rc < 0 || (k + 1 < njobs && !j->r->stopped))
        return 1;
    int rc = nt_region_merge(jobs[0].r, j->r, &j->base);
    if (rc != 0)
        return rc;
    if (fold_frames(&jobs[0].ips, &j->ips) < 0)
        return PP_ENOMEM;
    fold_warnings(&jobs[0].ws, &j->ws);
    return 0;
}

static void
free_job(region_job *j, int own_reader)
{
    if (own_reader)
        pp_nettrace_close(j->r);
    j->r = NULL;
    nt_region_base_free(&j->base);
    pp_u64map_free(&j->ips);
}

/* Run the jobs and fold them in order; 0, 1 (read serially) or PP_ENOMEM.
 * At most `window` regions run ahead of the fold: memory stays bounded by
 * the threads, not by the number of regions. */
static int
run_all(par_state *ps, unsigned threads)
{
    nt_pool pool;
    int rc = 0;

    if (nt_pool_start(&pool, ps->njobs, threads, ps->window, run_job, ps) != 0)
        return 1;
    for (size_t k = 0; rc == 0 && k < ps->njobs; k++) {
        nt_pool_wait(&pool, k, -1);
        if (k == 0)
            rc = ps->jobs[0].rc < 0 || !ps->jobs[0].r->stopped ? 1 : 0;
        else
            rc = fold(ps->jobs, k, ps->njobs);
        if (k > 0)
            free_job(&ps->jobs[k], 1);
        nt_pool_raise(&pool, k + 1 + ps->window);
    }
    nt_pool_stop(&pool, rc != 0);
    /* After an abort: what ran past the fold. */
    for (size_t k = 1; k < ps->njobs; k++)
        if (nt_pool_ran(&pool, k))
            free_job(&ps->jobs[k], 1);
    nt_pool_free(&pool);
    return rc;
}

/* Tests and bench only: with PERFPIPE_INSPECT_SPLIT_LOG=FILE, a line per
 * split read (regions, whether they were folded or the file read serially,
 * then the CPU seconds of the index and of each region's worker: the
 * longest region bounds the wall time on idle cores), so a test can tell a
 * split that matched from a split that never happened. */
static void
test_log(const char *path, size_t regions, int rc, double index_s, const region_job *jv)
{
    const char *log = getenv("PERFPIPE_INSPECT_SPLIT_LOG");
    FILE *f = log && *log ? fopen(log, "a") : NULL;

    if (f) {
        fprintf(f, "%s regions=%zu %s\n", path, regions,
                rc == 0 ? "folded" :
                rc == 1 ? "serial" :
                          "error");
        fprintf(f, "#cpu_s index %.3f regions", index_s);
        for (size_t k = 0; k < regions && k < 16; k++)
            fprintf(f, " %.3f", jv[k].cpu_s);
        fputc('\n', f);
        fclose(f);
    }
}

int
nt_inspect_parallel(pp_trace_source *r, const char *path, unsigned jobs, nt_warn_sink *ws,
                    pp_u64map *ips, pp_error *err)
{
    const char *knob = getenv("PERFPIPE_INSPECT_SPLIT"); /* test only: "every", "balanced" */
    int every = knob && strcmp(knob, "every") == 0;
    uint64_t min = knob && (every || strcmp(knob, "balanced") == 0) ? 0 : PP_INSPECT_SPLIT_MIN;
    struct stat sb;
    nt_index ix;

    if (jobs > 64)
        jobs = 64;
    if (r->format != 4 || !r->seekable || fstat(r->fd, &sb) != 0 || (uint64_t)sb.st_size < min)
        return 1;
    double t0 = nt_thread_cpu_s();
    /* Balanced cuts need the points up to the last share only. */
    uint64_t until = every ? UINT64_MAX : (uint64_t)sb.st_size / jobs * (jobs - 1);
    if (nt_index_build(r, until, &ix) < 0) {
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    size_t *at = malloc((ix.nsp + 1) * sizeof *at);
    if (!at) {
        nt_index_free(&ix);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    double index_s = nt_thread_cpu_s() - t0;
    size_t n = ix.nsp ? nt_region_pick(&ix, (uint64_t)sb.st_size, jobs, every, at) : 1;
    region_job *jv = n > 1 ? calloc(n, sizeof *jv) : NULL;
    if (!jv) {
        free(at);
        nt_index_free(&ix);
        return 1; /* one region (or no memory for more): serial */
    }
    jv[0].r = r;
    jv[0].ws = *ws; /* what open said (the module map's warning) */
    pp_nettrace_set_callbacks(r, NULL, nt_inspect_on_warning, &jv[0].ws);
    for (size_t k = 0; k < n; k++) {
        if (k > 0)
            jv[k].sp = at[k - 1];
        jv[k].stop = k + 1 < n ? ix.sp[at[k]].end : 0;
        pp_error e0 = PP_ERROR_INIT;
        jv[k].err = e0;
    }
    par_state ps = { jv, n, 2 * (size_t)jobs, path, &ix };
    int rc = run_all(&ps, jobs < n ? jobs : (unsigned)n);
    test_log(path, n, rc, index_s, jv);
    if (rc == 0) {
        *ips = jv[0].ips; /* moved */
        memset(&jv[0].ips, 0, sizeof jv[0].ips);
    } else if (rc < 0) {
        pp_error_set(err, rc, "%s: out of memory", path);
    }
    *ws = jv[0].ws;
    pp_nettrace_set_callbacks(r, NULL, nt_inspect_on_warning, ws);
    free_job(&jv[0], 0);
    free(jv);
    free(at);
    nt_index_free(&ix);
    return rc == 1 ? 2 : rc; /* region 1 ran on r */
}
