/* The session stream's spool (spool.h): a pump thread reads the session
 * socket whenever it has bytes, appends them to an unlinked temporary
 * file, and sends the file's unsent bytes to the reader's socket pair
 * whenever that has room. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <perfpipe/perfpipe.h>

#include "ipc/spool.h"

#define CHUNK       (1u << 20)
#define PUNCH_EVERY (UINT64_C(64) << 20)

struct pp_spool {
    int src, out, file;
    pthread_t thread;
    uint8_t *in, *outbuf;
    uint64_t written, sent, punched, peak;
    int src_done, direct;
};

/* Send all of buf to the reader, waiting for room. 0, or -1 when the
 * reader is gone. */
static int
send_all(pp_spool *s, const uint8_t *buf, size_t n)
{
    while (n) {
        ssize_t w = send(s->out, buf, n, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w > 0) {
            buf += w;
            n -= (size_t)w;
            continue;
        }
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        struct pollfd p = { s->out, POLLOUT, 0 };
        if (poll(&p, 1, -1) < 0 && errno != EINTR)
            return -1;
    }
    return 0;
}

/* Hand on the file's unsent bytes, as much as the reader takes now (all of
 * them, waiting, when wait). 0, or -1 when the reader is gone. */
static int
hand_on(pp_spool *s, int wait)
{
    while (s->sent < s->written) {
        uint64_t left = s->written - s->sent;
        size_t n = left < CHUNK ? (size_t)left : CHUNK;
        ssize_t k = pread(s->file, s->outbuf, n, (off_t)s->sent);
        if (k <= 0)
            return -1;
        ssize_t w = send(s->out, s->outbuf, (size_t)k, MSG_NOSIGNAL | MSG_DONTWAIT);
        if (w < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
            return -1;
        if (w > 0)
            s->sent += (uint64_t)w;
        if (w <= 0 || w < k) {
            if (!wait)
                break;
            struct pollfd p = { s->out, POLLOUT, 0 };
            if (poll(&p, 1, -1) < 0 && errno != EINTR)
                return -1;
        }
    }
#ifdef FALLOC_FL_PUNCH_HOLE
    if (s->sent - s->punched >= PUNCH_EVERY) {
        uint64_t upto = s->sent & ~(uint64_t)4095;
        if (fallocate(s->file, FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE, (off_t)s->punched,
                      (off_t)(upto - s->punched)) == 0)
            s->punched = upto;
    }
#endif
    return 0;
}

/* Take what the session socket has: into the file, or, once the file
 * failed (disk full), straight to the reader after the file's backlog. */
static int
take_in(pp_spool *s)
{
    ssize_t k = read(s->src, s->in, CHUNK);
    if (k < 0 && (errno == EINTR || errno == EAGAIN))
        return 0;
    if (k <= 0) {
        s->src_done = 1;
        return 0;
    }
    if (!s->direct) {
        size_t done = 0;
        while (done < (size_t)k) {
            ssize_t w = pwrite(s->file, s->in + done, (size_t)k - done, (off_t)(s->written + done));
            if (w <= 0)
                break;
            done += (size_t)w;
        }
        s->written += done;
        if (s->written - s->sent > s->peak)
            s->peak = s->written - s->sent;
        if (done == (size_t)k)
            return 0;
        s->direct = 1; /* the rest of this chunk, and all after it, go straight */
        if (hand_on(s, 1) != 0)
            return -1;
        return send_all(s, s->in + done, (size_t)k - done);
    }
    return send_all(s, s->in, (size_t)k);
}

static void *
pump(void *arg)
{
    pp_spool *s = arg;
    for (;;) {
        if (s->src_done) {
            hand_on(s, 1);
            break;
        }
        struct pollfd p[2] = { { s->src, POLLIN, 0 },
                               { s->out, s->sent < s->written ? POLLOUT : 0, 0 } };
        if (poll(p, 2, -1) < 0) {
            if (errno == EINTR)
                continue;
            break;
        }
        /* The session first: the runtime must never wait for us. */
        if (p[0].revents && take_in(s) != 0)
            break;
        if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL))
            break; /* the reader is gone */
        if ((p[1].revents & POLLOUT) && hand_on(s, 0) != 0)
            break;
    }
    close(s->out);
    s->out = -1;
    return NULL;
}

static int
temp_file(void)
{
    const char *dir = getenv("TMPDIR");
    if (!dir || !*dir)
        dir = "/tmp";
#ifdef O_TMPFILE
    int fd = open(dir, O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (fd >= 0)
        return fd;
#endif
    char path[4096];
    snprintf(path, sizeof path, "%s/perfpipe-spool.XXXXXX", dir);
    int f = mkstemp(path);
    if (f >= 0) {
        unlink(path);
        fcntl(f, F_SETFD, FD_CLOEXEC);
    }
    return f;
}

int
pp_spool_start(int src, pp_spool **out, int *reader_fd, pp_error *err)
{
    pp_spool *s = calloc(1, sizeof *s);
    int sv[2] = { -1, -1 };
    if (!s || !(s->in = malloc(CHUNK)) || !(s->outbuf = malloc(CHUNK))) {
        if (s) {
            free(s->in);
            free(s);
        }
        pp_error_set(err, PP_ENOMEM, "out of memory for the stream's spool");
        return PP_ENOMEM;
    }
    s->src = src;
    s->file = temp_file();
    if (s->file < 0 || socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
        pp_error_set(err, PP_EIO,
                     "cannot spool the heap-dump stream (a temporary file in "
                     "$TMPDIR or /tmp, a socket pair): %s",
                     strerror(errno));
        goto fail;
    }
    s->out = sv[0];
    fcntl(s->out, F_SETFL, fcntl(s->out, F_GETFL) | O_NONBLOCK);
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_BLOCK, &all, &old);
    int rc = pthread_create(&s->thread, NULL, pump, s);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc != 0) {
        pp_error_set(err, PP_EIO, "cannot start the stream's spool thread: %s", strerror(rc));
        goto fail;
    }
    *reader_fd = sv[1];
    *out = s;
    return PP_OK;
fail:
    if (sv[0] >= 0)
        close(sv[0]);
    if (sv[1] >= 0)
        close(sv[1]);
    if (s->file >= 0)
        close(s->file);
    free(s->in);
    free(s->outbuf);
    free(s);
    return PP_EIO;
}

void
pp_spool_finish(pp_spool *s, uint64_t *peak)
{
    if (!s)
        return;
    pthread_join(s->thread, NULL);
    if (peak)
        *peak = s->peak;
    if (s->out >= 0)
        close(s->out);
    close(s->file);
    free(s->in);
    free(s->outbuf);
    free(s);
}
