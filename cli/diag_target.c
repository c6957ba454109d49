/* diagnose's checks of its target before anything is captured: the
 * process's identity (pid, command line, start time) and whether another
 * tool holds a session on it (one EventPipe consumer at a time). */
#include "config.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "cli.h"
#include "diag_internal.h"
#include "ipc/ipc.h"

/* The process's start as seconds since the epoch, from /proc/PID/stat's
 * starttime (clock ticks after boot) and /proc/stat's btime; 0 unknown. */
static long long
start_time(unsigned long long pid)
{
    char path[64], buf[4096];
    long long btime = 0, ticks = 0;
    FILE *f;

    snprintf(path, sizeof path, "/proc/%llu/stat", pid);
    if ((f = fopen(path, "r")) != NULL) {
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        buf[n] = '\0';
        fclose(f);
        /* Fields after the command's closing parenthesis: state is 3rd,
         * starttime the 22nd. */
        char *p = strrchr(buf, ')');
        for (int field = 2; p && *p && field < 22; field++)
            p = strchr(p + 1, ' ');
        if (p)
            ticks = strtoll(p + 1, NULL, 10);
    }
    if ((f = fopen("/proc/stat", "r")) != NULL) {
        while (fgets(buf, sizeof buf, f))
            if (strncmp(buf, "btime ", 6) == 0)
                btime = strtoll(buf + 6, NULL, 10);
        fclose(f);
    }
    long hz = sysconf(_SC_CLK_TCK);
    return btime > 0 && ticks > 0 && hz > 0 ? btime + ticks / hz : 0;
}

void
pp_diag_iso_time(long long t, char *out, size_t size)
{
    struct tm tm;
    time_t tt = (time_t)t;

    gmtime_r(&tt, &tm);
    strftime(out, size, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

json_t *
pp_diag_identity(pp_ipc_endpoint *ep)
{
    pp_ipc_process_info info = { 0 };
    pp_error err = PP_ERROR_INIT;
    json_t *o = json_object();
    char when[32];

    json_object_set_new(o, "pid", json_integer((json_int_t)ep->pid));
    if (pp_ipc_process_info_get(ep, 2000, &info, &err) == PP_OK) {
        json_object_set_new(o, "command_line",
                            json_string(info.command_line ? info.command_line : ""));
        json_object_set_new(o, "name",
                            json_string(info.entrypoint_assembly ? info.entrypoint_assembly : ""));
        json_object_set_new(o, "runtime_version",
                            json_string(info.clr_version ? info.clr_version : ""));
        json_object_set_new(o, "os", json_string(info.os ? info.os : ""));
        json_object_set_new(o, "arch", json_string(info.arch ? info.arch : ""));
        pp_ipc_process_info_free(&info);
    }
    long long st = ep->pid ? start_time(ep->pid) : 0;
    if (st > 0) {
        pp_diag_iso_time(st, when, sizeof when);
        json_object_set_new(o, "start_time", json_string(when));
    } else {
        json_object_set_new(o, "start_time", json_null());
    }
    json_object_set_new(o, "socket", json_string(ep->path));
    return o;
}

/* Connected sockets bound to the runtime's diagnostics socket: each open
 * EventPipe session holds one (a command's connection lasts milliseconds).
 * /proc/net/unix shows the path as bound in the target's mount namespace
 * (we may reach it through /proc/PID/root): the file names are compared,
 * dotnet-diagnostic-PID-KEY-socket, unique to one runtime. */
static int
connected_to(const char *path)
{
    char line[4608];
    int n = 0;
    const char *base = strrchr(path, '/') ? strrchr(path, '/') + 1 : path;
    FILE *f = fopen("/proc/net/unix", "r");

    if (!f)
        return 0;
    while (fgets(line, sizeof line, f)) {
        unsigned st = 0;
        char p[4200] = "";

        /* Num RefCount Protocol Flags Type St Inode Path */
        if (sscanf(line, "%*s %*s %*s %*s %*s %x %*s %4199s", &st, p) == 2 && st == 3 &&
            strcmp(strrchr(p, '/') ? strrchr(p, '/') + 1 : p, base) == 0)
            n++;
    }
    fclose(f);
    return n;
}

/* A process whose command line is one of the diagnostics tools naming
 * pid (or name): "dotnet-counters (pid 77: dotnet-counters monitor -p 42)". */
static int
find_tool(unsigned long long pid, const char *name, char *out, size_t size)
{
    static const char *const tools[] = { "dotnet-counters",
                                         "dotnet-trace",
                                         "dotnet-monitor",
                                         "dotnet-gcdump",
                                         "dotnet-dump",
                                         "perfpipe",
                                         NULL };
    char want[32], path[300], buf[2048];
    struct dirent *d;
    DIR *proc = opendir("/proc");
    int found = 0;

    snprintf(want, sizeof want, "%llu", pid);
    while (proc && !found && (d = readdir(proc)) != NULL) {
        if (!isdigit((unsigned char)d->d_name[0]) || (pid_t)atoll(d->d_name) == getpid())
            continue;
        snprintf(path, sizeof path, "/proc/%s/cmdline", d->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(buf, 1, sizeof buf - 1, f);
        fclose(f);
        buf[n] = '\0';
        const char *tool = NULL;
        int names = 0;
        for (size_t i = 0; i < n; i += strlen(buf + i) + 1) {
            for (int t = 0; tools[t] && !tool; t++)
                if (strstr(buf + i, tools[t]))
                    tool = tools[t];
            names |= strcmp(buf + i, want) == 0 || (name && *name && strcmp(buf + i, name) == 0);
        }
        if (!tool || !names)
            continue;
        for (size_t i = 0; i + 1 < n; i++)
            if (buf[i] == '\0')
                buf[i] = ' ';
        snprintf(out, size, "%s (pid %s: %.1000s)", tool, d->d_name, buf);
        found = 1;
    }
    if (proc)
        closedir(proc);
    return found;
}

int
pp_diag_check_busy(const pp_ipc_endpoint *ep, const char *name)
{
    char who[2300];

    /* A passing command (perfpipe ps, a probe) closes within milliseconds:
     * a connection that stays is a session. */
    for (int tries = 0; tries < 3; tries++) {
        if (connected_to(ep->path) == 0)
            return PP_EXIT_OK;
        usleep(300 * 1000);
    }
    if (!find_tool(ep->pid, name, who, sizeof who))
        snprintf(who, sizeof who, "a client this user cannot see");
    pp_cli_error("diagnose: pid %llu already has a diagnostics session open, by %s. diagnose "
                 "runs one EventPipe session at a time on a process (two sessions share its "
                 "buffers and skew each other's figures): stop that tool, then run diagnose "
                 "again (nothing was captured)",
                 (unsigned long long)ep->pid, who);
    return PP_EXIT_INPUT;
}
