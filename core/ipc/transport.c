/* Diagnostics IPC transport: finding a runtime's socket (its own $TMPDIR,
 * /proc/PID/root for other mount namespaces, NSpid for other pid
 * namespaces), connecting, and the reverse (listen) mode in which the
 * runtime connects to us and advertises itself. */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <perfpipe/perfpipe.h>

#include "ipc/ipc.h"

volatile sig_atomic_t pp_ipc_cancel;

/* Read a small /proc file whole (NUL-terminated); NULL if unreadable. */
static char *
read_small(const char *path, size_t *len_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    size_t cap = 4096, len = 0;
    char *buf = malloc(cap + 1);
    while (buf) {
        ssize_t k = read(fd, buf + len, cap - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
        if (len == cap) {
            if (cap >= (1u << 20))
                break; /* bounded: environ/status are small */
            char *nb = realloc(buf, cap * 2 + 1);
            if (!nb) {
                free(buf);
                buf = NULL;
                break;
            }
            buf = nb;
            cap *= 2;
        }
    }
    close(fd);
    if (buf) {
        buf[len] = '\0';
        if (len_out)
            *len_out = len;
    }
    return buf;
}

/* The innermost namespace pid of pid (last NSpid value), or pid. */
static uint64_t
ns_pid(uint64_t pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%llu/status", (unsigned long long)pid);
    char *s = read_small(path, NULL);
    uint64_t v = pid;
    if (!s)
        return v;
    char *line = strstr(s, "\nNSpid:");
    if (line) {
        char *p = line + 7, *end;
        for (;;) {
            while (*p == ' ' || *p == '\t')
                p++;
            unsigned long long n = strtoull(p, &end, 10);
            if (end == p)
                break;
            v = n;
            p = end;
        }
    }
    free(s);
    return v;
}

/* The TMPDIR in pid's environment, or NULL. */
static char *
proc_tmpdir(uint64_t pid)
{
    char path[64];
    size_t len = 0;
    snprintf(path, sizeof path, "/proc/%llu/environ", (unsigned long long)pid);
    char *env = read_small(path, &len);
    char *out = NULL;
    for (size_t i = 0; env && i < len; i += strlen(env + i) + 1)
        if (strncmp(env + i, "TMPDIR=", 7) == 0 && env[i + 7] != '\0') {
            out = strdup(env + i + 7);
            break;
        }
    free(env);
    return out;
}

/* Newest dotnet-diagnostic-{nspid}-{digits}-socket in dir; 1 if found. */
static int
scan_dir(const char *dir, uint64_t nspid, char *best, size_t size, struct timespec *best_t)
{
    char prefix[64];
    int found = 0;
    DIR *d = opendir(dir);
    if (!d)
        return 0;
    int plen = snprintf(prefix, sizeof prefix, "dotnet-diagnostic-%llu-",
                        (unsigned long long)nspid);
    struct dirent *de;
    while ((de = readdir(d)) != NULL) {
        const char *n = de->d_name;
        if (strncmp(n, prefix, (size_t)plen) != 0)
            continue;
        const char *p = n + plen;
        if (*p < '0' || *p > '9')
            continue;
        while (*p >= '0' && *p <= '9')
            p++;
        if (strcmp(p, "-socket") != 0)
            continue;
        char full[4096];
        struct stat st;
        if (snprintf(full, sizeof full, "%s/%s", dir, n) >= (int)sizeof full)
            continue;
        if (stat(full, &st) != 0 || !S_ISSOCK(st.st_mode))
            continue;
        if (!found && best_t->tv_sec == 0 && best_t->tv_nsec == 0) {
            /* first candidate */
        } else if (st.st_mtim.tv_sec < best_t->tv_sec ||
                   (st.st_mtim.tv_sec == best_t->tv_sec && st.st_mtim.tv_nsec <= best_t->tv_nsec)) {
            continue;
        }
        snprintf(best, size, "%s", full);
        *best_t = st.st_mtim;
        found = 1;
    }
    closedir(d);
    return found;
}

int
pp_ipc_find_socket(uint64_t pid, char *path, size_t size, pp_error *err)
{
    char root[64], dir[4096];
    struct timespec best_t = { 0, 0 };
    int found = 0;
    uint64_t nspid = ns_pid(pid);
    char *tmpdir = proc_tmpdir(pid);
    const char *dirs[2] = { tmpdir, "/tmp" };

    snprintf(root, sizeof root, "/proc/%llu/root", (unsigned long long)pid);
    /* Through /proc/PID/root the target's own mount namespace is seen (it
     * is "/" for a process in ours); without access to it, our view. */
    if (access(root, X_OK) != 0)
        root[0] = '\0';
    for (int i = 0; i < 2; i++) {
        if (!dirs[i] || (i == 1 && tmpdir && strcmp(tmpdir, "/tmp") == 0))
            continue;
        snprintf(dir, sizeof dir, "%s%s", root, dirs[i]);
        found |= scan_dir(dir, nspid, path, size, &best_t);
        if (found)
            break;
    }
    free(tmpdir);
    if (!found) {
        pp_error_set(err, PP_ENOTFOUND,
                     "process %llu has no .NET diagnostics socket "
                     "(not a .NET process, DOTNET_EnableDiagnostics=0, or it exited)",
                     (unsigned long long)pid);
        return PP_ENOTFOUND;
    }
    return PP_OK;
}

/* Connect to a Unix socket by path, also past sun_path's 108 bytes (via
 * an O_PATH descriptor and /proc/self/fd). */
static int
connect_path(const char *path, int *out, pp_error *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    int opath = -1;

    if (strlen(path) >= sizeof sa.sun_path) {
        opath = open(path, O_PATH | O_CLOEXEC);
        if (opath < 0) {
            pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
            return PP_EIO;
        }
        snprintf(sa.sun_path, sizeof sa.sun_path, "/proc/self/fd/%d", opath);
    } else {
        memcpy(sa.sun_path, path, strlen(path) + 1);
    }
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int rc = fd < 0 ? -1 : connect(fd, (struct sockaddr *)&sa, sizeof sa);
    int e = errno;
    if (opath >= 0)
        close(opath);
    if (rc != 0) {
        if (fd >= 0)
            close(fd);
        pp_error_set(err, e == ENOENT || e == ECONNREFUSED ? PP_ENOTFOUND : PP_EIO,
                     "%s: cannot connect: %s%s", path, strerror(e),
                     e == EACCES       ? " (run as the process's user, or as root)" :
                     e == ECONNREFUSED ? " (the process has exited?)" :
                                         "");
        return e == ENOENT || e == ECONNREFUSED ? PP_ENOTFOUND : PP_EIO;
    }
    *out = fd;
    return PP_OK;
}

static void
endpoint_init(pp_ipc_endpoint *ep)
{
    memset(ep, 0, sizeof *ep);
    ep->listen_fd = -1;
    ep->pending_fd = -1;
}

int
pp_ipc_endpoint_pid(pp_ipc_endpoint *ep, uint64_t pid, pp_error *err)
{
    endpoint_init(ep);
    ep->mode = PP_IPC_CONNECT;
    ep->pid = pid;
    return pp_ipc_find_socket(pid, ep->path, sizeof ep->path, err);
}

int
pp_ipc_endpoint_connect(pp_ipc_endpoint *ep, const char *path, pp_error *err)
{
    endpoint_init(ep);
    ep->mode = PP_IPC_CONNECT;
    if (snprintf(ep->path, sizeof ep->path, "%s", path) >= (int)sizeof ep->path) {
        pp_error_set(err, PP_EINVAL, "diagnostic port path is too long");
        return PP_EINVAL;
    }
    /* A dotnet-diagnostic-PID-KEY-socket name tells the pid. */
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    unsigned long long p;
    if (sscanf(base, "dotnet-diagnostic-%llu-", &p) == 1)
        ep->pid = p;
    return PP_OK;
}

int
pp_ipc_endpoint_listen(pp_ipc_endpoint *ep, const char *path, pp_error *err)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    struct stat st;

    endpoint_init(ep);
    ep->mode = PP_IPC_LISTEN;
    if (strlen(path) >= sizeof sa.sun_path) {
        pp_error_set(err, PP_EINVAL, "%s: a listening socket path must be shorter than %zu bytes",
                     path, sizeof sa.sun_path);
        return PP_EINVAL;
    }
    snprintf(ep->path, sizeof ep->path, "%s", path);
    if (lstat(path, &st) == 0) {
        int fd;
        pp_error cerr = PP_ERROR_INIT;
        if (!S_ISSOCK(st.st_mode)) {
            pp_error_set(err, PP_EINVAL, "%s exists and is not a socket; refusing to replace it",
                         path);
            return PP_EINVAL;
        }
        if (connect_path(path, &fd, &cerr) == PP_OK) {
            close(fd);
            pp_error_set(err, PP_EINVAL, "%s: something is already listening there", path);
            return PP_EINVAL;
        }
        unlink(path); /* a stale socket of an earlier run */
    }
    memcpy(sa.sun_path, path, strlen(path) + 1);
    int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0 || bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 8) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot listen: %s", path, strerror(errno));
        if (fd >= 0)
            close(fd);
        return PP_EIO;
    }
    ep->listen_fd = fd;
    return PP_OK;
}

/* Accept one runtime connection and read its 34-byte advertisement:
 * "ADVR_V1\0", GUID cookie, uint64 pid, uint16 reserved. */
static int
accept_advertised(pp_ipc_endpoint *ep, int timeout_ms, int *out, pp_error *err)
{
    struct pollfd pfd = { ep->listen_fd, POLLIN, 0 };
    int pr;

    do
        pr = poll(&pfd, 1, timeout_ms);
    while (pr < 0 && errno == EINTR && !pp_ipc_cancel);
    if (pr < 0) {
        pp_error_set(err, PP_EIO, "%s: interrupted while waiting for a runtime", ep->path);
        return PP_EIO;
    }
    if (pr == 0) {
        pp_error_set(err, PP_ENOTFOUND,
                     "%s: no runtime connected within %d s (start it with "
                     "DOTNET_DiagnosticPorts=%s)",
                     ep->path, timeout_ms / 1000, ep->path);
        return PP_ENOTFOUND;
    }
    int fd = accept4(ep->listen_fd, NULL, NULL, SOCK_CLOEXEC);
    if (fd < 0) {
        pp_error_set(err, PP_EIO, "%s: accept failed: %s", ep->path, strerror(errno));
        return PP_EIO;
    }
    uint8_t adv[34];
    size_t got = 0;
    while (got < sizeof adv) {
        struct pollfd r = { fd, POLLIN, 0 };
        if (poll(&r, 1, 5000) <= 0)
            break;
        ssize_t k = read(fd, adv + got, sizeof adv - got);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        got += (size_t)k;
    }
    if (got < sizeof adv || memcmp(adv, "ADVR_V1", 8) != 0) {
        close(fd);
        pp_error_set(err, PP_EFORMAT,
                     "%s: the connecting process did not advertise itself "
                     "as a .NET runtime (ADVR_V1)",
                     ep->path);
        return PP_EFORMAT;
    }
    memcpy(ep->cookie, adv + 8, 16);
    uint64_t pid = 0;
    for (int i = 0; i < 8; i++)
        pid |= (uint64_t)adv[24 + i] << (8 * i);
    ep->pid = pid;
    ep->advertised = 1;
    *out = fd;
    return PP_OK;
}

int
pp_ipc_endpoint_wait(pp_ipc_endpoint *ep, int timeout_ms, pp_error *err)
{
    if (ep->mode != PP_IPC_LISTEN || ep->pending_fd >= 0)
        return PP_OK;
    return accept_advertised(ep, timeout_ms, &ep->pending_fd, err);
}

int
pp_ipc_endpoint_open(pp_ipc_endpoint *ep, int timeout_ms, int *fd, pp_error *err)
{
    if (ep->mode == PP_IPC_CONNECT)
        return connect_path(ep->path, fd, err);
    if (ep->pending_fd >= 0) {
        *fd = ep->pending_fd;
        ep->pending_fd = -1;
        return PP_OK;
    }
    return accept_advertised(ep, timeout_ms, fd, err);
}

void
pp_ipc_endpoint_close(pp_ipc_endpoint *ep)
{
    if (ep->pending_fd >= 0)
        close(ep->pending_fd);
    ep->pending_fd = -1;
    if (ep->listen_fd >= 0) {
        close(ep->listen_fd);
        unlink(ep->path);
    }
    ep->listen_fd = -1;
}

int
pp_ipc_command(pp_ipc_endpoint *ep, uint8_t set, uint8_t id, const pp_ipc_buf *payload,
               int timeout_ms, pp_ipc_msg *reply, pp_error *err)
{
    int fd, rc;

    if (payload && payload->failed) {
        pp_error_set(err, PP_ELIMIT,
                     "diagnostics IPC: the command does not fit the protocol's "
                     "65535-byte message (or out of memory)");
        return PP_ELIMIT;
    }
    if ((rc = pp_ipc_endpoint_open(ep, timeout_ms, &fd, err)) != PP_OK)
        return rc;
    rc = pp_ipc_send(fd, set, id, payload ? payload->data : NULL, payload ? payload->len : 0, err);
    if (rc == PP_OK)
        rc = pp_ipc_recv(fd, reply, timeout_ms, err);
    close(fd);
    return rc;
}
