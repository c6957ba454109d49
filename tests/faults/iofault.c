/* An I/O and allocation fault injector, loaded with LD_PRELOAD (never into
 * the shipped program): the n-th call of one operation fails, as SQLite's
 * anomaly tests do, so every failure point of a run is reached in turn.
 *
 *   PP_IOFAULT_OP     write | fsync | rename | close | malloc
 *   PP_IOFAULT_N      the call to fail, counted from 1 (0: count only)
 *   PP_IOFAULT_ERRNO  ENOSPC (default) or EIO; malloc fails with ENOMEM
 *   PP_IOFAULT_LOG    a file that gets "OP CALLS INJECTED" at exit
 *   PP_IOFAULT_AFTER  rename: with OP malloc, allocations count only from
 *                     the first rename that succeeds, and from 0 again at
 *                     each one, so N=1 fails the first allocation after an
 *                     output was renamed into place (its commit), whichever
 *                     process makes it; the log's CALLS is then the number
 *                     made after the last rename, and a fourth field the
 *                     renames
 *   PP_IOFAULT_HOLD   a file: the n-th write does not fail but creates it
 *                     (holding the written file's name), then waits
 *                     PP_IOFAULT_HOLD_S seconds (default 30) whatever
 *                     signal comes, and goes on: a disk that stalls, for
 *                     interrupting a run while it writes, with no sleep
 *                     racing the run
 *
 * glibc's stdio writes with its internal write, which no preload sees: a
 * stream made by fdopen (how perfpipe opens its outputs) is rebuilt here
 * with fopencookie over the same descriptor, so its flushes reach write()
 * below and can fail. fileno() answers for such streams. Only writes and
 * closes of regular files fail (not descriptors 0-2: the diagnostics must
 * get out; not pipes or /proc: a disk fills, they do not). malloc,
 * calloc and realloc count; free never fails. With the shim inherited, a
 * forked stage child counts on from its parent's count. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <linux/magic.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

extern void *__libc_malloc(size_t);
extern void *__libc_calloc(size_t, size_t);
extern void *__libc_realloc(void *, size_t);

enum { OP_NONE, OP_WRITE, OP_FSYNC, OP_RENAME, OP_CLOSE, OP_MALLOC };

static int op = -1;
static unsigned long target;
/* Shared with forked children (a stage's child counts on the same line),
 * so "the n-th call" means the n-th of the whole run. */
static unsigned long *counts; /* [0] calls, [1] injected, [2] renames (AFTER) */
static unsigned long local_counts[3];
static int fail_errno = ENOSPC;
static int after_rename;

static void
setup(void)
{
    const char *o = getenv("PP_IOFAULT_OP"), *n = getenv("PP_IOFAULT_N"),
               *e = getenv("PP_IOFAULT_ERRNO"), *after = getenv("PP_IOFAULT_AFTER");

    op = OP_NONE;
    counts = local_counts;
    if (o == NULL)
        return;
    {
        void *m = mmap(NULL, 3 * sizeof(unsigned long), PROT_READ | PROT_WRITE,
                       MAP_SHARED | MAP_ANONYMOUS, -1, 0);
        if (m != MAP_FAILED)
            counts = m;
    }
    op = strcmp(o, "write") == 0  ? OP_WRITE :
         strcmp(o, "fsync") == 0  ? OP_FSYNC :
         strcmp(o, "rename") == 0 ? OP_RENAME :
         strcmp(o, "close") == 0  ? OP_CLOSE :
         strcmp(o, "malloc") == 0 ? OP_MALLOC :
                                    OP_NONE;
    target = n != NULL ? strtoul(n, NULL, 10) : 0;
    if (e != NULL && strcmp(e, "EIO") == 0)
        fail_errno = EIO;
    after_rename = op == OP_MALLOC && after != NULL && strcmp(after, "rename") == 0;
}

static pid_t first_pid;

/* Before main: the counters exist before any fork. */
__attribute__((constructor)) static void
start(void)
{
    first_pid = getpid();
    if (op < 0)
        setup();
}

/* Whether this call of `which` is the one to fail. */
static int
hit(int which)
{
    if (op < 0)
        setup();
    if (op != which)
        return 0;
    if (after_rename && __atomic_load_n(&counts[2], __ATOMIC_SEQ_CST) == 0)
        return 0;
    if (__atomic_add_fetch(&counts[0], 1, __ATOMIC_RELAXED) != target)
        return 0;
    __atomic_add_fetch(&counts[1], 1, __ATOMIC_RELAXED);
    return 1;
}

__attribute__((destructor)) static void
report(void)
{
    const char *log = getenv("PP_IOFAULT_LOG");
    char line[96];
    int fd, len;
    static const char *const names[] = { "none", "write", "fsync", "rename", "close", "malloc" };

    if (log == NULL || op < 0 || getpid() != first_pid)
        return;
    len = after_rename ?
              snprintf(line, sizeof line, "%s %lu %lu %lu\n", names[op], counts[0], counts[1],
                       counts[2]) :
              snprintf(line, sizeof line, "%s %lu %lu\n", names[op], counts[0], counts[1]);
    /* Only the first process reports: its children's calls are counted in. */
    if ((fd = (int)syscall(SYS_openat, AT_FDCWD, log, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
                           0644)) >= 0) {
        (void)syscall(SYS_write, fd, line, (size_t)len);
        (void)syscall(SYS_close, fd);
    }
}

/* Whether fd is a regular file: a full or failing disk is a file's fault,
 * never a pipe's (the stages' result pipes stay whole). */
static int
is_file(int fd)
{
    struct stat st;
    struct statfs fs;

    /* /proc's files are "regular" too, but no disk is behind them (the
     * stray check reads one per process: counting them made the close
     * sweep as long as the machine's process list). */
    return fd > 2 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) &&
           !(fstatfs(fd, &fs) == 0 && fs.f_type == PROC_SUPER_MAGIC);
}

/* The stall of PP_IOFAULT_HOLD: announce the file being written, wait. */
static void
hold(int fd)
{
    const char *ready = getenv("PP_IOFAULT_HOLD"), *secs = getenv("PP_IOFAULT_HOLD_S");
    char link[64], name[4096];
    ssize_t len;
    int out;
    struct timespec start, now, step = { 0, 20000000 };

    snprintf(link, sizeof link, "/proc/self/fd/%d", fd);
    if ((len = readlink(link, name, sizeof name - 1)) < 0)
        len = 0;
    name[len++] = '\n';
    if ((out = (int)syscall(SYS_openat, AT_FDCWD, ready, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
                            0644)) >= 0) {
        (void)syscall(SYS_write, out, name, (size_t)len);
        (void)syscall(SYS_close, out);
    }
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        nanosleep(&step, NULL);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < (secs != NULL ? atoi(secs) : 30));
}

ssize_t
write(int fd, const void *buf, size_t n)
{
    if (is_file(fd) && getenv("PP_IOFAULT_HOLD") != NULL) {
        if (hit(OP_WRITE)) {
            __atomic_sub_fetch(&counts[1], 1, __ATOMIC_RELAXED); /* held, not failed */
            hold(fd);
        }
    } else if (is_file(fd) && hit(OP_WRITE)) {
        errno = fail_errno;
        return -1;
    }
    return syscall(SYS_write, fd, buf, n);
}

int
fsync(int fd)
{
    if (hit(OP_FSYNC)) {
        errno = fail_errno == ENOSPC ? EIO : fail_errno;
        return -1;
    }
    return (int)syscall(SYS_fsync, fd);
}

int
rename(const char *from, const char *to)
{
    int rc;

    if (hit(OP_RENAME)) {
        errno = fail_errno;
        return -1;
    }
    rc = (int)syscall(SYS_renameat, AT_FDCWD, from, AT_FDCWD, to);
    if (rc == 0 && after_rename) {
        /* Counted from here: what allocates after the commit. */
        __atomic_store_n(&counts[0], 0, __ATOMIC_SEQ_CST);
        __atomic_add_fetch(&counts[2], 1, __ATOMIC_SEQ_CST);
    }
    return rc;
}

int
close(int fd)
{
    if (is_file(fd) && hit(OP_CLOSE)) {
        /* Linux frees the descriptor even when close fails. */
        (void)syscall(SYS_close, fd);
        errno = EIO;
        return -1;
    }
    return (int)syscall(SYS_close, fd);
}

void *
malloc(size_t n)
{
    if (hit(OP_MALLOC)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_malloc(n);
}

void *
calloc(size_t a, size_t b)
{
    if (hit(OP_MALLOC)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_calloc(a, b);
}

void *
realloc(void *p, size_t n)
{
    if (n > 0 && hit(OP_MALLOC)) {
        errno = ENOMEM;
        return NULL;
    }
    return __libc_realloc(p, n);
}

/* ---- streams over a descriptor, flushed through write() above ---------- */

#define MAX_STREAMS 256
static struct {
    FILE *f;
    int fd;
} streams[MAX_STREAMS];

static ssize_t
cookie_write(void *c, const char *buf, size_t n)
{
    int fd = (int)(intptr_t)c;
    size_t done = 0;

    while (done < n) {
        ssize_t w = write(fd, buf + done, n - done);
        if (w < 0) {
            if (errno == EINTR)
                continue;
            /* stdio wants 0 for an error; errno stays for ferror's caller. */
            return done > 0 ? (ssize_t)done : 0;
        }
        done += (size_t)w;
    }
    return (ssize_t)n;
}

static ssize_t
cookie_read(void *c, char *buf, size_t n)
{
    return read((int)(intptr_t)c, buf, n);
}

static int
cookie_seek(void *c, off64_t *off, int whence)
{
    off_t r = lseek((int)(intptr_t)c, (off_t)*off, whence);

    if (r < 0)
        return -1;
    *off = r;
    return 0;
}

static int
cookie_close(void *c)
{
    int fd = (int)(intptr_t)c;

    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].f != NULL && streams[i].fd == fd)
            streams[i].f = NULL;
    return close(fd);
}

FILE *
fdopen(int fd, const char *mode)
{
    static const cookie_io_functions_t io = { cookie_read, cookie_write, cookie_seek,
                                              cookie_close };
    FILE *f;

    if (fcntl(fd, F_GETFD) < 0)
        return NULL;
    if ((f = fopencookie((void *)(intptr_t)fd, mode, io)) == NULL)
        return NULL;
    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].f == NULL) {
            streams[i].f = f;
            streams[i].fd = fd;
            break;
        }
    return f;
}

int
fileno(FILE *f)
{
    static int (*real)(FILE *);

    for (int i = 0; i < MAX_STREAMS; i++)
        if (streams[i].f == f && f != NULL)
            return streams[i].fd;
    if (real == NULL)
        real = (int (*)(FILE *))dlsym(RTLD_NEXT, "fileno");
    return real(f);
}
