/* Private: one capture from a live runtime to a kept .nettrace file, as
 * `perfpipe collect` and the live pipeline source (`capture:` inputs) both
 * do it: find the target (pid, name or diagnostic port; never a `dotnet
 * run` host by mistake), start an EventPipe session with the resolved
 * providers, hand the caller the stream, write every byte the caller
 * passes back to a temporary file renamed into place when the stream is
 * whole, and stop the session after the duration or on request (signals).
 *
 * Reading the stream is the caller's: it reads pp_capture_stream_fd() (the
 * nettrace reader does, in both users) and passes each byte to
 * pp_capture_write() once, in order. */
#ifndef PP_CORE_IPC_CAPTURE_H
#define PP_CORE_IPC_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/error.h>

typedef struct pp_capture_spec {
    uint64_t pid;                /* -p; 0 = not given */
    const char *process_name;    /* -n; NULL = not given */
    const char *diagnostic_port; /* PATH[,connect|,listen]; NULL = not given */
    int follow_child;            /* a `dotnet run`/`watch`/`test` host: trace its app */
    const char *profile;         /* comma-separated profile names, or NULL */
    const char *providers;       /* dotnet-trace --providers syntax, or NULL */
    int counters;                /* add counter providers to the same session */
    const char *counter_list;    /* dotnet-counters --counters syntax; NULL = System.Runtime */
    unsigned interval_s;         /* counters' interval; 0 = 1 s */
    double duration_s;           /* stop after this long; <= 0 = until asked */
    uint32_t buffer_mb;          /* runtime buffer; 0 = 256 */
    const char *output;          /* kept file; NULL = NAME_yyyyMMdd_HHmmss.nettrace */
    int listen_timeout_ms;       /* listen mode: wait for the runtime; < 0 = forever */
    double delay_s;              /* capture: inputs: wait this long before starting */
    double timeout_s;            /* gcdump captures: give up after this long; 0 = 30 s */
} pp_capture_spec;

typedef struct pp_capture pp_capture;

/* Resolve the target, check and reserve the output, start the session
 * (and resume a runtime waiting in listen mode), start the stop timer.
 * Errors: PP_ENOTFOUND (no such process / no runtime connected), PP_EINVAL
 * (a host named without follow_child: the message names the app's pid;
 * an output that is not a regular file; bad providers), PP_EIO. */
int pp_capture_open(const pp_capture_spec *spec, pp_capture **out, pp_error *err);
/* Resolve spec's target (pid, name or diagnostic port) as pp_capture_open
 * does, without starting a session: *ep is the caller's to close with
 * pp_ipc_endpoint_close. Same errors as pp_capture_open. */
struct pp_ipc_endpoint;
int pp_capture_target(const pp_capture_spec *spec, struct pp_ipc_endpoint *ep, pp_error *err);
/* The streaming socket (owned by the capture). */
int pp_capture_stream_fd(const pp_capture *c);
/* Tee: append bytes of the stream to the kept file (errors are
 * remembered and reported by finish). */
void pp_capture_write(pp_capture *c, const void *data, size_t len);
/* Async-signal-safe: ask every open capture to stop (StopTracing; the
 * stream then ends whole), or with abort = 1 to end now (the file is cut).
 * Returns how many captures were asked (0: none is open). */
int pp_capture_signal(int abort);
/* Ask this capture to stop (not from a signal handler). */
void pp_capture_request_stop(pp_capture *c);
/* After the stream's end (or a read error): stop the session if it still
 * runs, end the timer and put the kept file in place (renamed over the
 * output) if any byte came. whole = the reader saw the stream's end. */
int pp_capture_finish(pp_capture *c, int whole, pp_error *err);
void pp_capture_free(pp_capture *c);

/* Facts for messages and the result document. */
const char *pp_capture_output(const pp_capture *c);
const char *pp_capture_process_name(const pp_capture *c);
uint64_t pp_capture_pid(const pp_capture *c);
uint64_t pp_capture_bytes(const pp_capture *c);
double pp_capture_elapsed(const pp_capture *c);
/* "duration", "signal", "abort", "process-exit", or "running". */
const char *pp_capture_stop_reason(const pp_capture *c);
/* {pid, process, command_line, runtime_version, os, arch, session_id,
 * providers[], rundown_keyword, kept, bytes, stopped_by}. New reference. */
json_t *pp_capture_describe(const pp_capture *c);

#endif
