/* The input's content hash on a thread of its own (engine_internal.h).
 *
 * The hash must see every byte once, in order, so it cannot be split the
 * way the read is. On the host thread, between looks at the workers, it
 * took a core the regions needed (0.27-0.42 s of CPU on the 1.86 GB bench
 * trace, three threads on two cores). Started once a worker is idle, it
 * runs on a free core instead, through the merges and the stages' finish,
 * which are serial and leave one core idle; the run joins it before the
 * document needs the hash. */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#include "engine_internal.h"

/* Read and hashed in steps that stay in L2. */
#define STEP (1u << 18)

struct pp_bg_hash {
    pthread_t tid;
    pp_hash *hash;
    int fd; /* owned */
    uint64_t at, size;
    uint8_t *buf; /* [STEP] */
    _Atomic int abort;
    int running; /* the thread was started */
};

static void
hash_range(pp_bg_hash *h)
{
    while (h->at < h->size && !atomic_load_explicit(&h->abort, memory_order_relaxed)) {
        size_t want = h->size - h->at < STEP ? (size_t)(h->size - h->at) : STEP;
        ssize_t got = pread(h->fd, h->buf, want, (off_t)h->at);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            return; /* the file shrank (or failed): short */
        pp_hash_update(h->hash, h->buf, (size_t)got);
        h->at += (uint64_t)got;
    }
}

static void *
run(void *user)
{
    hash_range(user);
    return NULL;
}

pp_bg_hash *
pp_bg_hash_new(pp_hash *hash, int fd, uint64_t at, uint64_t size)
{
    pp_bg_hash *h = calloc(1, sizeof *h);
    uint8_t *buf = malloc(STEP);

    if (h == NULL || buf == NULL) {
        free(h);
        free(buf);
        return NULL;
    }
    h->hash = hash;
    h->fd = fd;
    h->at = at;
    h->size = size;
    h->buf = buf;
    atomic_init(&h->abort, 0);
    return h;
}

void
pp_bg_hash_start(pp_bg_hash *h)
{
    if (h->running)
        return;
    /* No thread: pp_bg_hash_join hashes on the caller's. */
    h->running = pthread_create(&h->tid, NULL, run, h) == 0;
}

int
pp_bg_hash_join(pp_bg_hash *h, uint64_t *hashed)
{
    if (h->running)
        pthread_join(h->tid, NULL);
    else
        hash_range(h);
    h->running = 0;
    *hashed = h->at;
    return h->at == h->size ? 0 : 1;
}

void
pp_bg_hash_free(pp_bg_hash *h)
{
    if (h == NULL)
        return;
    if (h->running) {
        atomic_store_explicit(&h->abort, 1, memory_order_relaxed);
        pthread_join(h->tid, NULL);
    }
    close(h->fd);
    free(h->buf);
    free(h);
}
