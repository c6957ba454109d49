/* Compressed inputs read transparently (see unpack.h). */
#define _GNU_SOURCE 1 /* memfd_create */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <lzma.h>
#include <zlib.h>
#include <zstd.h>

#include <perfpipe/perfpipe.h>

#include "unpack.h"

#define CHUNK (64u << 10)
/* The most a decoder may hold (an xz dictionary: 64 MiB at -9). */
#define DECODER_MEM (256ull << 20)

enum { F_XZ, F_GZIP, F_ZSTD };
static const char *const format_names[] = { "xz", "gzip", "zstd" };

struct pp_unpack {
    int format;
    int in_fd, out_fd, read_fd;
    int stream; /* a pipe and a thread, else a memory file */
    pthread_t thread;
    int joined;
    atomic_int cancel; /* stop now: the reader has what it needs */
    atomic_int drain;  /* the reader stopped on bad data: decode the rest, unwritten,
                          to learn whether the compressed file is damaged */
    atomic_int failed; /* u->rc is set (before the reader can see the end) */
    const char *name;
    uint64_t packed;   /* the compressed file's size */
    uint64_t consumed; /* compressed bytes the decoder took */
    uint64_t out;      /* bytes written */
    uint64_t limit;
    int rc;    /* the decompressor's outcome */
    int quiet; /* stopped because the reader went away: no error */
    char path[32];
    char msg[PP_ERROR_MESSAGE_MAX * 2];
    uint8_t in[CHUNK], buf[CHUNK];
};

static int
sniff(const uint8_t *b, size_t n)
{
    if (n >= 6 && memcmp(b,
                         "\xFD"
                         "7zXZ\0",
                         6) == 0)
        return F_XZ;
    if (n >= 3 && b[0] == 0x1F && b[1] == 0x8B && b[2] == 8)
        return F_GZIP;
    if (n >= 4 && memcmp(b, "\x28\xB5\x2F\xFD", 4) == 0)
        return F_ZSTD;
    return -1;
}

static void fail(pp_unpack *u, int code, const char *fmt, ...) PP_PRINTF(3, 4);

static void
fail(pp_unpack *u, int code, const char *fmt, ...)
{
    char what[PP_ERROR_MESSAGE_MAX];
    va_list ap;

    if (u->rc != PP_OK)
        return;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    u->rc = code;
    snprintf(u->msg, sizeof u->msg, "%s: %s", u->name, what);
    atomic_store(&u->failed, 1);
}

static void
damaged(pp_unpack *u, uint64_t at, const char *lib, const char *why)
{
    fail(u, PP_EFORMAT,
         "damaged %s data at byte %" PRIu64 " of the compressed file (%s: %s): read the "
         "original capture, or compress it again",
         format_names[u->format], at, lib, why);
}

static void
cut(pp_unpack *u)
{
    fail(u, PP_EFORMAT,
         "the %s stream is cut at byte %" PRIu64 " of the compressed file (the file ends before "
         "its stream does): the copy or the compression did not finish",
         format_names[u->format], u->packed);
}

/* Next compressed bytes into u->in: their count, 0 at the end, < 0 on error. */
static ssize_t
more(pp_unpack *u)
{
    for (;;) {
        ssize_t n = read(u->in_fd, u->in, sizeof u->in);
        if (n >= 0 || errno != EINTR) {
            if (n < 0)
                fail(u, PP_EIO, "cannot read the compressed file: %s", strerror(errno));
            return n;
        }
    }
}

/* Hand n decompressed bytes on. 0, or -1 to stop (the bound, an error, the
 * reader gone). */
static int
emit(pp_unpack *u, const uint8_t *p, size_t n)
{
    if (n > u->limit - u->out) {
        fail(u, PP_ELIMIT,
             "decompresses to more than %" PRIu64 " bytes (the bound: %u x its %" PRIu64
             " compressed bytes, at least %llu MiB): refused as a decompression bomb; "
             "PERFPIPE_UNPACK_MAX=BYTES raises the bound",
             u->limit, PP_UNPACK_RATIO, u->packed, PP_UNPACK_FLOOR >> 20);
        return -1;
    }
    while (n > 0) {
        if (atomic_load(&u->drain)) {
            u->out += n;
            return 0;
        }
        if (atomic_load(&u->cancel)) {
            u->quiet = 1;
            return -1;
        }
        ssize_t w = write(u->out_fd, p, n);
        if (w > 0) {
            p += w;
            n -= (size_t)w;
            u->out += (uint64_t)w;
        } else if (w < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            struct pollfd pf = { u->out_fd, POLLOUT, 0 };
            poll(&pf, 1, 100); /* look at cancel again in 100 ms at most */
        } else if (w < 0 && errno == EPIPE) {
            u->quiet = 1; /* the reader stopped reading: its call */
            return -1;
        } else if (w < 0 && errno != EINTR) {
            fail(u, PP_EIO, "cannot hold the decompressed data: %s", strerror(errno));
            return -1;
        }
    }
    return 0;
}

static void
run_xz(pp_unpack *u)
{
    lzma_stream s = LZMA_STREAM_INIT;
    lzma_action act = LZMA_RUN;

    if (lzma_stream_decoder(&s, DECODER_MEM, LZMA_CONCATENATED) != LZMA_OK) {
        fail(u, PP_ENOMEM, "cannot start the xz decoder");
        return;
    }
    for (;;) {
        if (s.avail_in == 0 && act == LZMA_RUN) {
            ssize_t n = more(u);
            if (n < 0)
                break;
            s.next_in = u->in;
            s.avail_in = (size_t)n;
            if (n == 0)
                act = LZMA_FINISH;
        }
        s.next_out = u->buf;
        s.avail_out = sizeof u->buf;
        lzma_ret r = lzma_code(&s, act);
        u->consumed = s.total_in;
        if (emit(u, u->buf, sizeof u->buf - s.avail_out) != 0 || r == LZMA_STREAM_END)
            break;
        if (r == LZMA_BUF_ERROR && act == LZMA_FINISH) {
            cut(u);
            break;
        }
        if (r == LZMA_MEMLIMIT_ERROR) {
            damaged(u, s.total_in, "liblzma", "needs more than 256 MiB to decode");
            break;
        }
        if (r != LZMA_OK) {
            damaged(u, s.total_in, "liblzma",
                    r == LZMA_DATA_ERROR    ? "compressed data is corrupt" :
                    r == LZMA_FORMAT_ERROR  ? "not an xz stream" :
                    r == LZMA_OPTIONS_ERROR ? "unsupported options" :
                                              "decoder error");
            break;
        }
    }
    lzma_end(&s);
}

/* More input for z when it has none and the file has more: 0, or -1 on a
 * read error. */
static int
gzip_refill(pp_unpack *u, z_stream *z, int *eof)
{
    if (z->avail_in != 0 || *eof)
        return 0;
    ssize_t n = more(u);
    if (n < 0)
        return -1;
    z->next_in = u->in;
    z->avail_in = (uInt)n;
    *eof = n == 0;
    return 0;
}

static void
run_gzip(pp_unpack *u)
{
    z_stream z;
    int eof = 0;

    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 16) != Z_OK) {
        fail(u, PP_ENOMEM, "cannot start the gzip decoder");
        return;
    }
    while (gzip_refill(u, &z, &eof) == 0) {
        z.next_out = u->buf;
        z.avail_out = sizeof u->buf;
        int r = inflate(&z, Z_NO_FLUSH);
        uint64_t at = u->consumed + z.total_in;
        if (emit(u, u->buf, sizeof u->buf - z.avail_out) != 0)
            break;
        if (r == Z_STREAM_END) {
            /* Another member may follow (concatenated gzip files). */
            u->consumed += z.total_in;
            if (gzip_refill(u, &z, &eof) != 0 || z.avail_in == 0)
                break;
            inflateReset(&z);
            continue;
        }
        if (r == Z_BUF_ERROR && eof && z.avail_in == 0) {
            cut(u);
            break;
        }
        if (r != Z_OK && r != Z_BUF_ERROR) {
            damaged(u, at, "zlib", z.msg ? z.msg : "corrupt data");
            break;
        }
    }
    inflateEnd(&z);
}

static void
run_zstd(pp_unpack *u)
{
    ZSTD_DStream *d = ZSTD_createDStream();
    ZSTD_inBuffer in = { u->in, 0, 0 };
    size_t left = 1; /* 0: the last frame ended */

    if (d == NULL) {
        fail(u, PP_ENOMEM, "cannot start the zstd decoder");
        return;
    }
    for (;;) {
        if (in.pos == in.size) {
            ssize_t n = more(u);
            if (n < 0)
                break;
            if (n == 0) {
                if (left != 0)
                    cut(u);
                break;
            }
            in.size = (size_t)n;
            in.pos = 0;
        }
        ZSTD_outBuffer out = { u->buf, sizeof u->buf, 0 };
        size_t before = in.pos;
        left = ZSTD_decompressStream(d, &out, &in);
        if (ZSTD_isError(left)) {
            damaged(u, u->consumed, "libzstd", ZSTD_getErrorName(left));
            break;
        }
        u->consumed += in.pos - before;
        if (emit(u, u->buf, out.pos) != 0)
            break;
    }
    ZSTD_freeDStream(d);
}

static void
run(pp_unpack *u)
{
    if (u->format == F_XZ)
        run_xz(u);
    else if (u->format == F_GZIP)
        run_gzip(u);
    else
        run_zstd(u);
    close(u->out_fd); /* the reader sees the end after the outcome is set */
    u->out_fd = -1;
}

static void *
thread_main(void *arg)
{
    sigset_t pipe_sig;

    /* A reader that stops early makes write() fail with EPIPE here; the
     * SIGPIPE it raises stays on this thread, blocked, and dies with it. */
    sigemptyset(&pipe_sig);
    sigaddset(&pipe_sig, SIGPIPE);
    pthread_sigmask(SIG_BLOCK, &pipe_sig, NULL);
    run(arg);
    return NULL;
}

static uint64_t
bound(uint64_t packed)
{
    const char *env = getenv("PERFPIPE_UNPACK_MAX");
    char *end;

    if (env != NULL && *env != '\0') {
        unsigned long long v = strtoull(env, &end, 10);
        if (*end == '\0' && v > 0)
            return v;
    }
    uint64_t b = packed > UINT64_MAX / PP_UNPACK_RATIO ? UINT64_MAX : packed * PP_UNPACK_RATIO;
    return b < PP_UNPACK_FLOOR ? PP_UNPACK_FLOOR : b;
}

static int
start(pp_unpack *u, pp_error *err)
{
    int fds[2];

    if (!u->stream) {
        u->out_fd = memfd_create("perfpipe-unpack", MFD_CLOEXEC);
        if (u->out_fd < 0 || (u->read_fd = dup(u->out_fd)) < 0) {
            pp_error_set(err, PP_EIO, "%s: cannot make a memory file to decompress into: %s",
                         u->name, strerror(errno));
            return PP_EIO;
        }
        fcntl(u->read_fd, F_SETFD, FD_CLOEXEC);
        run(u);
        u->joined = 1;
        if (u->rc != PP_OK) {
            pp_error_set(err, u->rc, "%s", u->msg);
            return u->rc;
        }
        return PP_OK;
    }
    if (pipe2(fds, O_CLOEXEC) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot make a pipe: %s", u->name, strerror(errno));
        return PP_EIO;
    }
    u->read_fd = fds[0];
    u->out_fd = fds[1];
    fcntl(u->out_fd, F_SETFL, fcntl(u->out_fd, F_GETFL) | O_NONBLOCK);
    if (pthread_create(&u->thread, NULL, thread_main, u) != 0) {
        pp_error_set(err, PP_ENOMEM, "%s: cannot start the decompressing thread", u->name);
        u->joined = 1;
        return PP_ENOMEM;
    }
    return PP_OK;
}

int
pp_unpack_open(const char *path, const char *name, int stream, pp_unpack **u_out,
               const char **read_path, pp_error *err)
{
    uint8_t magic[8];
    struct stat st;
    ssize_t n;

    *u_out = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return PP_OK; /* the reader says why it cannot open it */
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode) ||
        (n = pread(fd, magic, sizeof magic, 0)) <= 0 || sniff(magic, (size_t)n) < 0) {
        close(fd);
        return PP_OK;
    }
    pp_unpack *u = calloc(1, sizeof *u);
    if (u == NULL) {
        close(fd);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    u->format = sniff(magic, (size_t)n);
    u->in_fd = fd;
    u->out_fd = u->read_fd = -1;
    u->stream = stream;
    u->name = name;
    u->packed = (uint64_t)st.st_size;
    u->limit = bound(u->packed);
    u->joined = 0;
    atomic_init(&u->cancel, 0);
    atomic_init(&u->drain, 0);
    atomic_init(&u->failed, 0);
    int rc = start(u, err);
    if (rc != PP_OK) {
        pp_unpack_free(u);
        return rc;
    }
    snprintf(u->path, sizeof u->path, "/dev/fd/%d", u->read_fd);
    *read_path = u->path;
    *u_out = u;
    return PP_OK;
}

const char *
pp_unpack_format(const pp_unpack *u)
{
    return format_names[u->format];
}

uint64_t
pp_unpack_packed_bytes(const pp_unpack *u)
{
    return u->packed;
}

static void
join(pp_unpack *u, int drain)
{
    if (u->joined)
        return;
    atomic_store(drain ? &u->drain : &u->cancel, 1);
    pthread_join(u->thread, NULL);
    u->joined = 1;
}

int
pp_unpack_failed(pp_unpack *u)
{
    return atomic_load(&u->failed);
}

int
pp_unpack_finish(pp_unpack *u, int reached_end, pp_error *err)
{
    /* A reader that stopped early on data it could not read may have met
     * damage the decoder finds only later (gzip checks its CRC at the end):
     * decode the rest (bounded as ever) so damage is named as such. */
    join(u, !reached_end);
    if (u->rc != PP_OK && !u->quiet) {
        pp_error_set(err, u->rc, "%s", u->msg);
        return u->rc;
    }
    return PP_OK;
}

void
pp_unpack_free(pp_unpack *u)
{
    if (u == NULL)
        return;
    join(u, 0);
    if (u->in_fd >= 0)
        close(u->in_fd);
    if (u->out_fd >= 0)
        close(u->out_fd);
    if (u->read_fd >= 0)
        close(u->read_fd);
    free(u);
}
