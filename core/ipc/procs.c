/* The .NET processes this user can attach to: a /proc scan for processes
 * with a diagnostics socket (in any mount or pid namespace we can see
 * into), their ProcessInfo2, and which of them are SDK hosts (`dotnet run`,
 * `dotnet watch`, `dotnet test`) with the app each one started. */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "ipc/procs.h"

typedef struct pid_parent {
    uint64_t pid, ppid;
} pid_parent;

static char *
read_file_small(const char *path, size_t max, size_t *len_out)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    char *buf = malloc(max + 1);
    size_t len = 0;
    while (buf && len < max) {
        ssize_t k = read(fd, buf + len, max - len);
        if (k < 0 && errno == EINTR)
            continue;
        if (k <= 0)
            break;
        len += (size_t)k;
    }
    close(fd);
    if (buf) {
        buf[len] = '\0';
        *len_out = len;
    }
    return buf;
}

/* ppid from /proc/PID/stat (the field after the parenthesized comm). */
static uint64_t
read_ppid(uint64_t pid)
{
    char path[64];
    size_t len;
    snprintf(path, sizeof path, "/proc/%llu/stat", (unsigned long long)pid);
    char *s = read_file_small(path, 4096, &len);
    uint64_t ppid = 0;
    if (s) {
        char *rp = strrchr(s, ')');
        char st;
        unsigned long long pp;
        if (rp && sscanf(rp + 1, " %c %llu", &st, &pp) == 2)
            ppid = pp;
        free(s);
    }
    return ppid;
}

/* argv of pid as a NUL-separated block; *argc set. */
static char *
read_argv(uint64_t pid, size_t *len)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%llu/cmdline", (unsigned long long)pid);
    return read_file_small(path, 64 * 1024, len);
}

static const char *
base_name(const char *p)
{
    const char *s = strrchr(p, '/');
    return s ? s + 1 : p;
}

/* What kind of SDK host argv is: `dotnet [host options] run|watch|test`,
 * also when the muxer execs the SDK's dotnet.dll or dotnet-watch.dll. */
static pp_ipc_host_kind
classify(const char *argv, size_t len)
{
    const char *args[16];
    int n = 0;
    for (size_t i = 0; i < len && n < 16; i += strlen(argv + i) + 1)
        args[n++] = argv + i;
    if (n == 0)
        return PP_IPC_HOST_NONE;
    if (strcmp(base_name(args[0]), "dotnet") != 0)
        return PP_IPC_HOST_NONE;
    for (int i = 1; i < n; i++) {
        const char *a = args[i], *b = base_name(a);
        if (strcmp(a, "exec") == 0)
            continue;
        if (a[0] == '-') {
            /* host options with a value (dotnet exec --runtimeconfig X ...) */
            if (strcmp(a, "--runtimeconfig") == 0 || strcmp(a, "--depsfile") == 0 ||
                strcmp(a, "--additionalprobingpath") == 0 || strcmp(a, "--fx-version") == 0 ||
                strcmp(a, "--roll-forward") == 0 || strcmp(a, "--additional-deps") == 0)
                i++;
            continue;
        }
        if (strcmp(b, "dotnet.dll") == 0)
            continue; /* the SDK itself: the verb follows */
        if (strcmp(b, "dotnet-watch.dll") == 0 || strcmp(a, "watch") == 0)
            return PP_IPC_HOST_WATCH;
        if (strcmp(a, "run") == 0)
            return PP_IPC_HOST_RUN;
        if (strcmp(a, "test") == 0)
            return PP_IPC_HOST_TEST;
        if (strcmp(b, "MSBuild.dll") == 0 || strcmp(b, "VBCSCompiler.dll") == 0 ||
            strcmp(b, "vbcscompiler.dll") == 0 || strcmp(a, "build-server") == 0)
            return PP_IPC_HOST_TOOL;
        return PP_IPC_HOST_NONE; /* dotnet App.dll: an app */
    }
    return PP_IPC_HOST_NONE;
}

static char *
join_argv(const char *argv, size_t len)
{
    char *s = malloc(len + 1);
    if (!s)
        return NULL;
    memcpy(s, argv, len);
    s[len] = '\0';
    while (len > 0 && s[len - 1] == '\0')
        len--;
    for (size_t i = 0; i < len; i++)
        if (s[i] == '\0')
            s[i] = ' ';
    return s;
}

static int
by_name_pid(const void *a, const void *b)
{
    const pp_ipc_proc *x = a, *y = b;
    int c = strcmp(x->name ? x->name : "", y->name ? y->name : "");
    if (c)
        return c;
    return x->pid < y->pid ? -1 : x->pid > y->pid;
}

static uint64_t
parent_of(const pid_parent *pp, size_t n, uint64_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (pp[i].pid == pid)
            return pp[i].ppid;
    return 0;
}

/* Name each host's app: the nearest .NET descendant that is not a host. */
static void
link_hosts(pp_ipc_proc *v, size_t n, const pid_parent *pp, size_t npp)
{
    for (size_t i = 0; i < n; i++) {
        if (v[i].host != PP_IPC_HOST_NONE)
            continue;
        uint64_t p = v[i].ppid;
        for (int depth = 0; p > 1 && depth < 32; depth++) {
            for (size_t j = 0; j < n; j++)
                if (v[j].pid == p && v[j].host != PP_IPC_HOST_NONE &&
                    v[j].host != PP_IPC_HOST_TOOL && v[j].app_pid == 0)
                    v[j].app_pid = v[i].pid;
            p = parent_of(pp, npp, p);
        }
    }
}

/* One probe: ask the runtime behind p->socket who it is. */
typedef struct probe {
    pp_ipc_proc *p;
    int timeout_ms;
} probe;

static void *
probe_one(void *arg)
{
    probe *pr = arg;
    pp_ipc_endpoint ep;

    if (pp_ipc_endpoint_connect(&ep, pr->p->socket, NULL) == PP_OK &&
        pp_ipc_process_info_get(&ep, pr->timeout_ms, &pr->p->info, NULL) == PP_OK)
        pr->p->have_info = 1;
    return NULL;
}

/* Probe every socket at once, PROBES_AT_ONCE threads at a time: a socket
 * that accepts and never answers costs its timeout once, not once per
 * socket in turn. A probe no thread can be made for runs here. */
#define PROBES_AT_ONCE 32
static void
query_all(pp_ipc_proc *v, size_t n, int timeout_ms)
{
    for (size_t base = 0; base < n; base += PROBES_AT_ONCE) {
        pthread_t tid[PROBES_AT_ONCE];
        probe pr[PROBES_AT_ONCE];
        int started[PROBES_AT_ONCE];
        size_t k = n - base < PROBES_AT_ONCE ? n - base : PROBES_AT_ONCE;

        for (size_t i = 0; i < k; i++) {
            pr[i] = (probe){ &v[base + i], timeout_ms };
            started[i] = v[base + i].socket != NULL &&
                         pthread_create(&tid[i], NULL, probe_one, &pr[i]) == 0;
            if (!started[i] && v[base + i].socket != NULL)
                probe_one(&pr[i]);
        }
        for (size_t i = 0; i < k; i++)
            if (started[i])
                pthread_join(tid[i], NULL);
    }
}

int
pp_ipc_procs_list(int query_info, int timeout_ms, pp_ipc_proc **out, size_t *nout, pp_error *err)
{
    DIR *d = opendir("/proc");
    pp_ipc_proc *v = NULL;
    pid_parent *pp = NULL;
    size_t n = 0, cap = 0, npp = 0, cappp = 0;
    uint64_t self = (uint64_t)getpid();
    struct dirent *de;

    *out = NULL;
    *nout = 0;
    if (!d) {
        pp_error_set(err, PP_EIO, "/proc: %s (is /proc mounted?)", strerror(errno));
        return PP_EIO;
    }
    while ((de = readdir(d)) != NULL) {
        char sock[4096];
        if (!isdigit((unsigned char)de->d_name[0]))
            continue;
        uint64_t pid = strtoull(de->d_name, NULL, 10);
        if (npp == cappp) {
            size_t nc = cappp ? cappp * 2 : 256;
            pid_parent *np = realloc(pp, nc * sizeof *np);
            if (!np)
                goto oom;
            pp = np;
            cappp = nc;
        }
        pp[npp].pid = pid;
        pp[npp++].ppid = read_ppid(pid);
        if (pid == self || pp_ipc_find_socket(pid, sock, sizeof sock, NULL) != PP_OK)
            continue;
        if (n == cap) {
            size_t nc = cap ? cap * 2 : 16;
            pp_ipc_proc *nv = realloc(v, nc * sizeof *nv);
            if (!nv)
                goto oom;
            v = nv;
            cap = nc;
        }
        pp_ipc_proc *p = &v[n++];
        memset(p, 0, sizeof *p);
        p->pid = pid;
        p->ppid = pp[npp - 1].ppid;
        p->socket = strdup(sock);
        size_t len = 0;
        char path[64];
        snprintf(path, sizeof path, "/proc/%llu/comm", (unsigned long long)pid);
        p->comm = read_file_small(path, 256, &len);
        if (p->comm && len > 0 && p->comm[len - 1] == '\n')
            p->comm[len - 1] = '\0';
        char *argv = read_argv(pid, &len);
        if (argv) {
            p->host = classify(argv, len);
            p->cmdline = join_argv(argv, len);
            free(argv);
        }
    }
    closedir(d);
    if (query_info)
        query_all(v, n, timeout_ms);
    for (size_t i = 0; i < n; i++) {
        pp_ipc_proc *p = &v[i];
        const char *nm = p->have_info && p->info.entrypoint_assembly &&
                                 p->info.entrypoint_assembly[0] ?
                             p->info.entrypoint_assembly :
                             p->comm;
        if ((p->name = strdup(nm ? nm : "?")) == NULL)
            goto oom_listed;
    }
    link_hosts(v, n, pp, npp);
    free(pp);
    if (n > 1)
        qsort(v, n, sizeof *v, by_name_pid);
    *out = v;
    *nout = n;
    return PP_OK;
oom_listed:
    d = NULL;
oom:
    if (d != NULL)
        closedir(d);
    free(pp);
    pp_ipc_procs_free(v, n);
    pp_error_set(err, PP_ENOMEM, "out of memory listing processes");
    return PP_ENOMEM;
}

void
pp_ipc_procs_free(pp_ipc_proc *procs, size_t n)
{
    for (size_t i = 0; procs && i < n; i++) {
        free(procs[i].name);
        free(procs[i].comm);
        free(procs[i].cmdline);
        free(procs[i].socket);
        pp_ipc_process_info_free(&procs[i].info);
    }
    free(procs);
}

const pp_ipc_proc *
pp_ipc_procs_find(const pp_ipc_proc *procs, size_t n, uint64_t pid)
{
    for (size_t i = 0; i < n; i++)
        if (procs[i].pid == pid)
            return &procs[i];
    return NULL;
}

const char *
pp_ipc_host_kind_name(pp_ipc_host_kind k)
{
    switch (k) {
    case PP_IPC_HOST_RUN: return "dotnet run";
    case PP_IPC_HOST_WATCH: return "dotnet watch";
    case PP_IPC_HOST_TEST: return "dotnet test";
    case PP_IPC_HOST_TOOL: return "SDK build helper";
    default: return NULL;
    }
}
