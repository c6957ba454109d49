/* Worker threads running numbered jobs in order, gated by the owner's
 * limit (pool.h). */
#include "config.h"

#include <stdlib.h>
#include <time.h>

#include "nettrace/pool.h"

static void *
worker(void *arg)
{
    nt_pool *p = arg;

    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->abort && p->next < p->njobs && p->next >= p->limit)
            pthread_cond_wait(&p->cv, &p->mu);
        if (p->abort || p->next >= p->njobs)
            break;
        size_t k = p->next++;
        pthread_mutex_unlock(&p->mu);
        p->run(p->user, k);
        pthread_mutex_lock(&p->mu);
        p->done[k] = 1;
        pthread_cond_broadcast(&p->cv);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int
nt_pool_start(nt_pool *p, size_t njobs, unsigned threads, size_t limit, nt_pool_fn run, void *user)
{
    *p = (nt_pool){ .njobs = njobs, .limit = limit, .run = run, .user = user };
    if (threads > NT_POOL_MAX_THREADS)
        threads = NT_POOL_MAX_THREADS;
    if ((p->done = calloc(njobs ? njobs : 1, 1)) == NULL)
        return -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    for (; p->nthreads < threads; p->nthreads++)
        if (pthread_create(&p->tid[p->nthreads], NULL, worker, p) != 0)
            break;
    if (p->nthreads == 0) {
        nt_pool_free(p);
        return -1;
    }
    return 0;
}

int
nt_pool_wait(nt_pool *p, size_t k, int timeout_ms)
{
    pthread_mutex_lock(&p->mu);
    if (timeout_ms < 0) {
        while (!p->done[k])
            pthread_cond_wait(&p->cv, &p->mu);
    } else if (timeout_ms > 0 && !p->done[k]) {
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_sec += timeout_ms / 1000;
        ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
        if (ts.tv_nsec >= 1000000000L) {
            ts.tv_sec++;
            ts.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cv, &p->mu, &ts);
    }
    int done = p->done[k];
    pthread_mutex_unlock(&p->mu);
    return done;
}

void
nt_pool_raise(nt_pool *p, size_t limit)
{
    pthread_mutex_lock(&p->mu);
    if (limit > p->limit)
        p->limit = limit;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

void
nt_pool_stop(nt_pool *p, int abort)
{
    pthread_mutex_lock(&p->mu);
    if (abort)
        p->abort = 1;
    else
        p->limit = p->njobs; /* what is left runs to its end */
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
    for (unsigned t = 0; t < p->nthreads; t++)
        pthread_join(p->tid[t], NULL);
    p->nthreads = 0;
}

int
nt_pool_ran(const nt_pool *p, size_t k)
{
    return p->done[k];
}

void
nt_pool_free(nt_pool *p)
{
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
    free(p->done);
    p->done = NULL;
}

double
nt_thread_cpu_s(void)
{
    struct timespec ts;
    return clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0 ? ts.tv_sec + ts.tv_nsec / 1e9 : 0;
}
