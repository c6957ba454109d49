/* perfpipe ps: the .NET processes this user can attach to. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "ipc/procs.h"

static const char ps_usage[] =
    "Usage: perfpipe ps [--format table|json]\n"
    "\n"
    "Lists every .NET process this user can attach to, with no .NET SDK: each one\n"
    "found by its diagnostics socket (also in other mount or pid namespaces, through\n"
    "/proc/PID/root) and asked over the diagnostics IPC protocol for its command\n"
    "line, runtime version and OS/architecture.\n"
    "\n"
    "A `dotnet run`, `dotnet watch` or `dotnet test` process is the SDK, not your\n"
    "app: it is marked as such and its app child is named, so you trace the right\n"
    "pid (`perfpipe collect` refuses a host).\n"
    "\n"
    "Columns: PID, NAME (entry assembly, else the executable), RUNTIME, OS/ARCH,\n"
    "COMMAND LINE. A process that does not answer in 1 s shows '?'.\n"
    "Exit: 0 (also when none are found), 2 usage, 3 /proc unreadable.\n";

static const char *
nz(const char *s, const char *dflt)
{
    return s && *s ? s : dflt;
}

static json_t *
proc_json(const pp_ipc_proc *p, const pp_ipc_proc *all, size_t n)
{
    json_t *o = json_object();
    json_object_set_new(o, "pid", json_integer((json_int_t)p->pid));
    json_object_set_new(o, "ppid", json_integer((json_int_t)p->ppid));
    json_object_set_new(o, "name", json_string(nz(p->name, "?")));
    json_object_set_new(o, "command_line", json_string(nz(p->cmdline, "")));
    json_object_set_new(o, "socket", json_string(nz(p->socket, "")));
    json_object_set_new(o, "answered", json_boolean(p->have_info));
    if (p->have_info) {
        json_object_set_new(o, "runtime_version", json_string(nz(p->info.clr_version, "")));
        json_object_set_new(o, "os", json_string(nz(p->info.os, "")));
        json_object_set_new(o, "arch", json_string(nz(p->info.arch, "")));
        json_object_set_new(o, "runtime_pid", json_integer((json_int_t)p->info.pid));
        json_object_set_new(o, "runtime_command_line", json_string(nz(p->info.command_line, "")));
    }
    const char *h = pp_ipc_host_kind_name(p->host);
    json_object_set_new(o, "host", h ? json_string(h) : json_null());
    if (p->app_pid) {
        const pp_ipc_proc *a = pp_ipc_procs_find(all, n, p->app_pid);
        json_t *app = json_object();
        json_object_set_new(app, "pid", json_integer((json_int_t)p->app_pid));
        json_object_set_new(app, "name", json_string(a ? nz(a->name, "?") : "?"));
        json_object_set_new(o, "app", app);
    }
    return o;
}

static void
print_table(const pp_ipc_proc *v, size_t n)
{
    int wname = 4, wrt = 7;
    for (size_t i = 0; i < n; i++) {
        int l = (int)strlen(nz(v[i].name, "?"));
        if (l > wname)
            wname = l;
        l = v[i].have_info ? (int)strlen(nz(v[i].info.clr_version, "?")) : 1;
        if (l > wrt)
            wrt = l;
    }
    if (wname > 32)
        wname = 32;
    if (wrt > 24)
        wrt = 24;
    printf("%8s  %-*s  %-*s  %-11s  %s\n", "PID", wname, "NAME", wrt, "RUNTIME", "OS/ARCH",
           "COMMAND LINE");
    for (size_t i = 0; i < n; i++) {
        const pp_ipc_proc *p = &v[i];
        char osarch[64];
        /* The runtime's version string carries a commit after '+'. */
        char rt[64];
        snprintf(rt, sizeof rt, "%s", p->have_info ? nz(p->info.clr_version, "?") : "?");
        char *plus = strchr(rt, '+');
        if (plus)
            *plus = '\0';
        snprintf(osarch, sizeof osarch, "%s/%s", p->have_info ? nz(p->info.os, "?") : "?",
                 p->have_info ? nz(p->info.arch, "?") : "?");
        printf("%8llu  %-*.*s  %-*.*s  %-11s  %s\n", (unsigned long long)p->pid, wname, wname,
               nz(p->name, "?"), wrt, wrt, rt, osarch, nz(p->cmdline, ""));
        const char *h = pp_ipc_host_kind_name(p->host);
        if (h && p->host != PP_IPC_HOST_TOOL) {
            const pp_ipc_proc *a = p->app_pid ? pp_ipc_procs_find(v, n, p->app_pid) : NULL;
            if (a)
                printf("%8s  ^ %s host (the SDK, not your app): the app is pid %llu (%s)\n", "", h,
                       (unsigned long long)a->pid, nz(a->name, "?"));
            else
                printf("%8s  ^ %s host (the SDK, not your app): no app child yet\n", "", h);
        } else if (h) {
            printf("%8s  ^ %s\n", "", h);
        }
    }
}

int
pp_cmd_ps(int argc, char **argv)
{
    const char *format = "table";
    pp_error err = PP_ERROR_INIT;
    pp_ipc_proc *v;
    size_t n;
    int status = PP_EXIT_OK;

    for (int i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--help") == 0 || strcmp(argv[i], "-h") == 0) {
            fputs(ps_usage, stdout);
            return PP_EXIT_OK;
        } else if (strcmp(argv[i], "--format") == 0 && i + 1 < argc) {
            format = argv[++i];
        } else {
            pp_cli_error("ps: unknown argument '%s'; try `perfpipe ps --help`", argv[i]);
            return PP_EXIT_USAGE;
        }
    }
    if (strcmp(format, "table") != 0 && strcmp(format, "json") != 0) {
        pp_cli_error("ps: --format is table or json, not '%s'", format);
        return PP_EXIT_USAGE;
    }
    if (pp_ipc_procs_list(1, 1000, &v, &n, &err) != PP_OK) {
        pp_cli_error("ps: %s", err.message);
        return PP_EXIT_INPUT;
    }
    if (strcmp(format, "json") == 0) {
        json_t *doc = json_object(), *arr = json_array();
        for (size_t i = 0; i < n; i++)
            json_array_append_new(arr, proc_json(&v[i], v, n));
        json_object_set_new(doc, "schema", json_string("perfpipe-ps/1"));
        json_object_set_new(doc, "processes", arr);
        status = pp_cli_write_json(NULL, doc);
        json_decref(doc);
    } else if (n == 0) {
        printf("No .NET processes this user can attach to were found.\n");
    } else {
        print_table(v, n);
    }
    pp_ipc_procs_free(v, n);
    return status;
}
