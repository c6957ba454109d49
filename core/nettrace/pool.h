/* Private: worker threads running numbered jobs (pool.c), as the
 * split reads need them (core/engine/engine_par.c, core/nettrace/inspect_par.c):
 * jobs start in number order, each once, and job k starts only once the
 * owner's limit is above k, so the owner bounds how far the workers run
 * ahead of what it has folded; the owner waits for each job in order. */
#ifndef PP_NETTRACE_POOL_H
#define PP_NETTRACE_POOL_H

#include <pthread.h>
#include <stddef.h>

#define NT_POOL_MAX_THREADS 64

typedef void (*nt_pool_fn)(void *user, size_t k);

typedef struct nt_pool {
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t njobs, next, limit;
    int abort;
    unsigned char *done; /* [njobs] */
    nt_pool_fn run;
    void *user;
    pthread_t tid[NT_POOL_MAX_THREADS];
    unsigned nthreads;
} nt_pool;

/* Start up to threads (1..64) workers for jobs 0..njobs-1, the first
 * `limit` of them startable at once. 0 with at least one worker running;
 * -1 when none could start (p is then released: nothing else to call). */
int nt_pool_start(nt_pool *p, size_t njobs, unsigned threads, size_t limit, nt_pool_fn run,
                  void *user);

/* Whether job k is done: waits up to timeout_ms (< 0: until it is, 0: a
 * look). 1 done, 0 not yet. */
int nt_pool_wait(nt_pool *p, size_t k, int timeout_ms);

/* Jobs below limit may start (a lower limit than before is ignored). */
void nt_pool_raise(nt_pool *p, size_t limit);

/* Stop the workers and join them: with abort, jobs not started yet never
 * start. After it, nt_pool_ran(p, k) says which jobs ran; then
 * nt_pool_free. */
void nt_pool_stop(nt_pool *p, int abort);
int nt_pool_ran(const nt_pool *p, size_t k);
void nt_pool_free(nt_pool *p);

/* CPU seconds the calling thread has used (0 if the clock is missing):
 * what the split logs print per job and for the host. */
double nt_thread_cpu_s(void);

#endif
