/* Loading a plugin first in a throwaway child (loader_probe.h). */
#define _GNU_SOURCE 1 /* memfd_create, sigabbrev_np */
#include "config.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "loader.h"
#include "loader_probe.h"

/* What the child reports; a child that dies before writing it is broken. */
typedef struct probe_msg {
    int32_t rc;
    int32_t pad;
    uint64_t stdout_bytes;
    pp_error err;
} probe_msg;

static void
send_msg(int fd, const probe_msg *m)
{
    const char *p = (const char *)m;
    size_t n = sizeof *m;

    while (n > 0) {
        ssize_t w = write(fd, p, n);

        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0)
            _exit(120);
        p += w;
        n -= (size_t)w;
    }
}

/* The child: never returns. stdout is a memory file (what the plugin
 * writes there at load is counted, never shown); stderr is dropped (the
 * parent loads it again and shows what it says then). */
static void
probe_child(const char *path, const char *name, int fd)
{
    probe_msg m;
    union {
        void *obj;
        pp_plugin_entry_fn fn;
    } entry;
    int out = memfd_create("perfpipe-probe-stdout", 0);
    int null_fd = open("/dev/null", O_WRONLY);
    struct stat st;
    void *h;

    prctl(PR_SET_PDEATHSIG, SIGKILL);
    memset(&m, 0, sizeof m);
    m.err = (pp_error)PP_ERROR_INIT;
    if (out >= 0)
        dup2(out, STDOUT_FILENO);
    else if (null_fd >= 0)
        dup2(null_fd, STDOUT_FILENO);
    if (null_fd >= 0)
        dup2(null_fd, STDERR_FILENO);
    dlerror();
    if ((h = dlopen(path, RTLD_NOW | RTLD_LOCAL)) == NULL) {
        const char *why = dlerror();

        pp_error_set(&m.err, PP_EPLUGIN,
                     "%s: cannot load: %s (is it a shared object built for "
                     "this machine? `ldd %s` shows missing libraries)",
                     path, why != NULL ? why : "unknown error", path);
        m.rc = PP_EPLUGIN;
    } else if ((entry.obj = dlsym(h, PP_PLUGIN_ENTRY_SYMBOL)) == NULL) {
        pp_error_set(&m.err, PP_EPLUGIN, "%s: no %s symbol: not a perfpipe plugin", path,
                     PP_PLUGIN_ENTRY_SYMBOL);
        m.rc = PP_EPLUGIN;
    } else {
        m.rc = pp_plugin_check(entry.fn(), name, path, &m.err);
    }
    fflush(stdout);
    if (out >= 0 && fstat(out, &st) == 0)
        m.stdout_bytes = (uint64_t)st.st_size;
    send_msg(fd, &m);
    _exit(0);
}

static double
now_s(void)
{
    struct timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Read the child's message within limit_s; 1 = whole message, 0 = EOF
 * before it, -1 = out of time (the child is killed). */
static int
read_msg(pid_t pid, int fd, uint32_t limit_s, probe_msg *m)
{
    double end = now_s() + limit_s;
    size_t got = 0;

    while (got < sizeof *m) {
        double left = end - now_s();
        struct pollfd p = { fd, POLLIN, 0 };
        int n;
        ssize_t r;

        if (left <= 0) {
            kill(pid, SIGKILL);
            return -1;
        }
        n = poll(&p, 1, (int)(left * 1000) + 1);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            continue; /* the clock decides */
        r = read(fd, (char *)m + got, sizeof *m - got);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return 0;
        got += (size_t)r;
    }
    return 1;
}

int
pp_loader_probe(const char *path, const char *name, uint32_t limit_s, int *broken, pp_error *err)
{
    probe_msg m;
    int fds[2], status = 0, got;
    pid_t pid;

    *broken = 0;
    if (pipe2(fds, O_CLOEXEC) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot check the plugin in a child: %s", path,
                     strerror(errno));
        return PP_EIO;
    }
    fflush(stdout);
    fflush(stderr);
    if ((pid = fork()) < 0) {
        pp_error_set(err, PP_EIO, "%s: cannot check the plugin in a child: %s", path,
                     strerror(errno));
        close(fds[0]);
        close(fds[1]);
        return PP_EIO;
    }
    if (pid == 0) {
        close(fds[0]);
        probe_child(path, name, fds[1]);
    }
    close(fds[1]);
    memset(&m, 0, sizeof m);
    got = read_msg(pid, fds[0], limit_s ? limit_s : PP_LOADER_PROBE_TIMEOUT_DEFAULT, &m);
    close(fds[0]);
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    if (got == 1 && m.rc == PP_OK && m.stdout_bytes == 0)
        return PP_OK;
    if (got == 1 && m.rc != PP_OK) {
        m.err.message[sizeof m.err.message - 1] = '\0';
        pp_error_set(err, PP_EPLUGIN, "%s", m.err.message);
        return PP_EPLUGIN;
    }
    *broken = 1;
    if (got == 1)
        pp_error_set(err, PP_EPLUGIN,
                     "%s: writes %llu bytes to standard output when loaded "
                     "(stdout carries the result; a plugin must log through the host)",
                     path, (unsigned long long)m.stdout_bytes);
    else if (got < 0)
        pp_error_set(err, PP_EPLUGIN,
                     "%s: did not finish loading within %u s (dlopen, its "
                     "constructors and %s never returned)",
                     path, limit_s ? limit_s : PP_LOADER_PROBE_TIMEOUT_DEFAULT,
                     PP_PLUGIN_ENTRY_SYMBOL);
    else if (WIFSIGNALED(status))
        pp_error_set(err, PP_EPLUGIN,
                     "%s: crashed while being loaded: signal %d (SIG%s, %s) in "
                     "dlopen, its constructors, %s or its descriptor's pointers",
                     path, WTERMSIG(status),
                     sigabbrev_np(WTERMSIG(status)) ? sigabbrev_np(WTERMSIG(status)) : "?",
                     strsignal(WTERMSIG(status)), PP_PLUGIN_ENTRY_SYMBOL);
    else
        pp_error_set(err, PP_EPLUGIN,
                     "%s: called exit(%d) while being loaded (in dlopen, its "
                     "constructors, %s or its descriptor's pointers)",
                     path, WIFEXITED(status) ? WEXITSTATUS(status) : -1, PP_PLUGIN_ENTRY_SYMBOL);
    return PP_EPLUGIN;
}
