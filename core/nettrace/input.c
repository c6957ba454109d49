/* The reader's byte source: a read() window (files and pipes), or on
 * request a read-only mapping of a regular file. Either way bytes are handed to on_bytes once, in
 * order, as the reader moves past them, and consumed parts of the mapping
 * are released so resident memory does not grow with the file. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "nettrace/nettrace_internal.h"

/* Release mapped pages in steps of this many bytes. */
#define NT_RELEASE_STEP (8u << 20)
#define NT_READ_CHUNK   (1u << 20)
#define NT_POPULATE_MAX (32 << 20)

int
nt_input_open(pp_trace_source *r, int fd, pp_error *err)
{
    struct stat sb;

    r->fd = fd;
    if (fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode))
        r->seekable = 1;
    /* read() into a reused window is the default even for regular files:
     * measured 2.5-3x faster than a mapping on the project's (virtualized)
     * machine, where first-touch page faults dominate (bench/RESULTS.md).
     * PERFPIPE_NETTRACE_MMAP=1 selects the mapping. */
    const char *mm = getenv("PERFPIPE_NETTRACE_MMAP");
    if (mm && strcmp(mm, "1") == 0 && r->seekable && sb.st_size > 0) {
        /* Small files are populated in one go (fewer faults); big ones
         * are faulted in as read and released behind the cursor. */
        int pop = sb.st_size <= NT_POPULATE_MAX ? MAP_POPULATE : 0;
        void *p = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE | pop, fd, 0);
        if (p != MAP_FAILED) {
            r->map = p;
            r->file_size = (uint64_t)sb.st_size;
            madvise(p, (size_t)sb.st_size, MADV_SEQUENTIAL);
            return PP_OK;
        }
    }
    return PP_OK; /* read() fallback */
}

static void
hash_to(pp_trace_source *r, const uint8_t *base, uint64_t base_off, uint64_t off)
{
    if (off <= r->hashed)
        return;
    if (r->on_bytes) {
        r->on_bytes(r->user, base + (r->hashed - base_off), (size_t)(off - r->hashed));
    } else if (r->hashed == r->early_len && off <= sizeof r->early) {
        /* No callback yet (open reading the header): keep the bytes so
         * set_callbacks can hand them over, whatever the read pattern. */
        memcpy(r->early + r->early_len, base + (r->hashed - base_off), (size_t)(off - r->hashed));
        r->early_len = (size_t)off;
    }
    r->hashed = off;
}

const uint8_t *
nt_input_get(pp_trace_source *r, uint64_t off, size_t len, size_t *avail, pp_error *err)
{
    if (r->map) {
        if (off <= r->file_size && len <= r->file_size - off)
            return r->map + off;
        *avail = off < r->file_size ? (size_t)(r->file_size - off) : 0;
        return NULL;
    }
    /* read() window: [buf_off, buf_off + buf_len) */
    if (off >= r->buf_off && off - r->buf_off <= r->buf_len &&
        len <= r->buf_len - (off - r->buf_off))
        return r->buf + (off - r->buf_off);
    if (off > r->buf_off) {
        /* Drop what lies before off (hashing it first, in order). */
        uint64_t drop = off - r->buf_off;
        if (drop > r->buf_len)
            drop = r->buf_len;
        hash_to(r, r->buf, r->buf_off, r->buf_off + drop);
        memmove(r->buf, r->buf + drop, r->buf_len - (size_t)drop);
        r->buf_len -= (size_t)drop;
        r->buf_off += drop;
    }
    while (r->buf_off + r->buf_len < off + len && !r->eof) {
        if (r->buf_len == r->buf_cap) {
            /* Grow only as far as bytes really arrive: a huge declared
             * size in a short stream never allocates more than twice what
             * was read. */
            size_t ncap = r->buf_cap ? r->buf_cap * 2 : NT_READ_CHUNK;
            uint8_t *nb = realloc(r->buf, ncap);
            if (!nb) {
                pp_error_set_at(err, PP_ENOMEM, (int64_t)off, "%s: out of memory reading %zu bytes",
                                r->name, len);
                *avail = 0;
                return NULL;
            }
            r->buf = nb;
            r->buf_cap = ncap;
        }
        ssize_t k = read(r->fd, r->buf + r->buf_len, r->buf_cap - r->buf_len);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            pp_error_set_at(err, PP_EIO, (int64_t)(r->buf_off + r->buf_len), "%s: read failed: %s",
                            r->name, strerror(errno));
            *avail = 0;
            return NULL;
        }
        if (k == 0)
            r->eof = 1;
        r->buf_len += (size_t)k;
    }
    if (off >= r->buf_off && r->buf_off + r->buf_len >= off + len)
        return r->buf + (off - r->buf_off);
    *avail = (r->buf_off + r->buf_len > off) ? (size_t)(r->buf_off + r->buf_len - off) : 0;
    if (err)
        err->code = 0;
    return NULL;
}

void
nt_input_consume(pp_trace_source *r, uint64_t off)
{
    if (r->map) {
        if (off > r->file_size)
            off = r->file_size;
        hash_to(r, r->map, 0, off);
        if (off - r->released >= NT_RELEASE_STEP) {
            uint64_t pg = (uint64_t)sysconf(_SC_PAGESIZE);
            uint64_t end = off & ~(pg - 1);
            if (end > r->released) {
                madvise((void *)(r->map + r->released), (size_t)(end - r->released), MADV_DONTNEED);
                r->released = end;
            }
        }
        return;
    }
    if (off > r->buf_off + r->buf_len)
        off = r->buf_off + r->buf_len;
    hash_to(r, r->buf, r->buf_off, off);
}

void
nt_input_drain(pp_trace_source *r)
{
    if (r->map) {
        nt_input_consume(r, r->file_size);
        return;
    }
    for (;;) {
        nt_input_consume(r, r->buf_off + r->buf_len);
        r->buf_off += r->buf_len;
        r->buf_len = 0;
        if (r->eof)
            return;
        if (!r->buf) {
            r->buf = malloc(NT_READ_CHUNK);
            if (!r->buf)
                return;
            r->buf_cap = NT_READ_CHUNK;
        }
        ssize_t k = read(r->fd, r->buf, r->buf_cap);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0) {
            r->eof = 1;
            return;
        }
        r->buf_len = (size_t)k;
    }
}

void
nt_input_close(pp_trace_source *r)
{
    if (r->map)
        munmap((void *)r->map, (size_t)r->file_size);
    r->map = NULL;
    free(r->buf);
    r->buf = NULL;
    if (r->fd >= 0)
        close(r->fd);
    r->fd = -1;
}

int
nt_input_seek(pp_trace_source *r, uint64_t off, pp_error *err)
{
    /* A region's reader starts at a block in the middle of the file: the
     * bytes before are another reader's, so none are hashed here. */
    r->early_len = 0;
    r->hashed = off;
    r->pos = off;
    if (r->map) {
        r->released = off & ~((uint64_t)sysconf(_SC_PAGESIZE) - 1);
        return PP_OK;
    }
    if (off > (uint64_t)INT64_MAX || lseek(r->fd, (off_t)off, SEEK_SET) < 0) {
        pp_error_set_at(err, PP_EIO, (int64_t)(off > (uint64_t)INT64_MAX ? INT64_MAX : off),
                        "%s: cannot seek to byte %llu: %s", r->name, (unsigned long long)off,
                        strerror(errno));
        return PP_EIO;
    }
    r->buf_off = off;
    r->buf_len = 0;
    r->eof = 0;
    return PP_OK;
}
