/* Private: which process a trace recorded, and whether it is the app.
 *
 * The reader's events are watched as they pass (EventPipe ProcessInfo:
 * command line, OS, architecture; RuntimeInformation: the runtime's path
 * and version; MethodLoad/rundown Verbose: whether any method is user
 * code). At the end, describe writes `nettrace.process` (CONTRACTS.md,
 * "Process identity": pid, command_line, runtime_version, os, arch; each
 * absent when the trace lacks it) and, when the trace is of a host rather
 * than the app (`dotnet run`/`watch`/`test`, dotnet-trace or another
 * diagnostics tool, or no user-code method at all), a warning that says how
 * to find the app's pid. */
#ifndef PP_NETTRACE_PROCESS_H
#define PP_NETTRACE_PROCESS_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/records.h>

#include "nettrace/modident.h"

typedef struct pp_nt_process {
    char *command_line; /* UTF-8, NULL if no ProcessInfo */
    char *os, *arch;
    char *runtime_dll; /* RuntimeDllPath of RuntimeInformation */
    unsigned bcl[4];   /* BclMajor.Minor.Build.Qfe, when no path says more */
    int have_runtime;
    uint64_t methods;           /* method load/rundown events with a namespace */
    uint64_t user_methods;      /* of which not framework, SDK or tool code */
    int command_line_from_info; /* command_line was last set by ProcessInfo */
    /* The work the process did, as the trace brackets it: the
     * Microsoft.AspNetCore.Hosting EventSource's RequestStart and
     * RequestStop (WORK-CONTRACT.md item 1; the unit of work compare and
     * candidates divide by). Counted here because this is the one pass
     * that sees every event. */
    uint64_t requests_started, requests_completed;
    pp_nt_modident modules; /* each module's build identity (modident.h) */
} pp_nt_process;

/* Look at one event; cheap for every event that is not one of the few
 * identity events. Out of memory loses a fact and sets p->modules.oom
 * (the reader's describe then fails: PP_ENOMEM). */
void pp_nt_process_observe(pp_nt_process *p, const pp_trace_event *ev);

/* The host a command line names ("dotnet run", "dotnet-trace", ...), or
 * NULL when it looks like the app. */
const char *pp_nt_process_host(const char *command_line);

/* Write `requests` ({"started", "completed"}) into the input's nettrace
 * object when the trace saw any Hosting request event; nothing otherwise. */
void pp_nt_process_describe_requests(const pp_nt_process *p, json_t *nettrace);

/* Write `process` into the input's nettrace object. When the trace is not
 * of the app, also write process.wrong_process (the reason) and put the
 * whole warning, with the fix, in warning (NUL-terminated; "" otherwise).
 * Returns 1 when the warning applies. perfpipe: perfpipe took the trace
 * (the fix names its commands, else dotnet-trace's). */
int pp_nt_process_describe(const pp_nt_process *p, uint32_t pid, int perfpipe, json_t *nettrace,
                           char *warning, size_t size);

/* Fold what `later` observed over the events that follow those `p`
 * observed (a region of the file, core/engine/engine_par.c) into p, as if p had
 * observed them itself; later's strings move to p. Out of memory cannot
 * happen (nothing is allocated). */
void pp_nt_process_merge(pp_nt_process *p, pp_nt_process *later);

void pp_nt_process_free(pp_nt_process *p);

#endif
