/* Private: the .NET processes this user can attach to, with the facts
 * `perfpipe ps` shows and `collect` checks (is it a `dotnet run`/`watch`/
 * `test` host, and which app does it run). Built on /proc and ipc.h. */
#ifndef PP_CORE_IPC_PROCS_H
#define PP_CORE_IPC_PROCS_H

#include <stddef.h>
#include <stdint.h>

#include "ipc/ipc.h"

typedef enum pp_ipc_host_kind {
    PP_IPC_HOST_NONE = 0, /* an app */
    PP_IPC_HOST_RUN,      /* `dotnet run`: the SDK, which starts the app as a child */
    PP_IPC_HOST_WATCH,    /* `dotnet watch` */
    PP_IPC_HOST_TEST,     /* `dotnet test` */
    PP_IPC_HOST_TOOL,     /* an SDK build helper (MSBuild node, compiler server) */
} pp_ipc_host_kind;

typedef struct pp_ipc_proc {
    uint64_t pid, ppid;
    char *name;    /* entrypoint assembly (ProcessInfo2), else /proc comm */
    char *comm;    /* /proc/PID/comm */
    char *cmdline; /* /proc/PID/cmdline, arguments joined by spaces */
    char *socket;  /* its diagnostics socket */
    int have_info; /* info is filled (the runtime answered) */
    pp_ipc_process_info info;
    pp_ipc_host_kind host;
    uint64_t app_pid; /* host: the .NET app it runs (0 = none seen) */
} pp_ipc_proc;

/* Every process with a diagnostics socket (this process excluded), sorted
 * by name then pid. With query_info, each is asked ProcessInfo2 (bounded
 * by timeout_ms each; a process that does not answer has have_info 0).
 * The caller frees with pp_ipc_procs_free. */
int pp_ipc_procs_list(int query_info, int timeout_ms, pp_ipc_proc **out, size_t *n, pp_error *err);
void pp_ipc_procs_free(pp_ipc_proc *procs, size_t n);
/* The entry for pid, or NULL. */
const pp_ipc_proc *pp_ipc_procs_find(const pp_ipc_proc *procs, size_t n, uint64_t pid);
/* "dotnet run" etc., or NULL for PP_IPC_HOST_NONE. */
const char *pp_ipc_host_kind_name(pp_ipc_host_kind k);

#endif
