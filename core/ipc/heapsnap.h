/* Private: a heap snapshot of a live runtime over the diagnostics IPC
 * protocol, written as a .gcdump, as dotnet-gcdump collect does it:
 *
 * 1. a short session (SampleProfiler, no rundown) makes the runtime forget
 *    which types it already logged, so this snapshot's BulkType events name
 *    every type even after an earlier snapshot;
 * 2. a session with Microsoft-Windows-DotNETRuntime at Verbose and the
 *    GCHeapSnapshot keywords (GC | Type | GCHeapDump | GCHeapCollect |
 *    GCHeapAndTypeNames = 0x1980001): enabling GCHeapCollect makes the
 *    runtime run an induced, blocking gen2 GC that walks the heap and logs
 *    it as bulk events; the dump is complete at that GC's GCEnd;
 * 3. the session is then stopped; its rundown names the modules;
 * 4. the graph (heap_graph.h) is written through a temporary file renamed
 *    into place (core/output/outfile.h).
 *
 * Nothing here prints; progress goes to the caller's callback. A signal
 * handler stops a snapshot in progress with pp_capture_signal() (it sets
 * pp_ipc_cancel, which the snapshot watches): no file is written then. */
#ifndef PP_CORE_IPC_HEAPSNAP_H
#define PP_CORE_IPC_HEAPSNAP_H

#include <stdint.h>

#include <perfpipe/error.h>

#include "ipc/capture.h"
#include "ipc/heap_graph.h"

/* GCHeapSnapshot (TraceEvent's ClrTraceEventParser.Keywords). */
#define PP_HEAPSNAP_KEYWORDS UINT64_C(0x1980001)

typedef struct pp_heapsnap_progress {
    const char *phase; /* "flushing types", "waiting for the GC", "dumping",
                                    "rundown", "writing" */
    double elapsed_s;
    uint64_t stream_bytes;
    pp_heap_graph_stats graph;
} pp_heapsnap_progress;

typedef struct pp_heapsnap_spec {
    /* pid / process_name / diagnostic_port, follow_child, listen_timeout_ms,
     * buffer_mb (0 = 256) and output (the .gcdump, required) are used. */
    pp_capture_spec target;
    double timeout_s; /* without progress: the dump session's start
                                    without the target using CPU, then the
                                    walk's events; 0 = 30 s (dotnet-gcdump's) */
    void (*progress)(void *user, const pp_heapsnap_progress *p);
    void *user;
} pp_heapsnap_spec;

typedef struct pp_heapsnap_result {
    uint64_t pid;
    char process[256];
    pp_heap_graph_stats graph;
    uint32_t node_count, type_count; /* of the written graph (pseudo nodes too) */
    uint64_t edge_count;
    uint64_t stream_bytes; /* nettrace bytes the session sent */
    uint64_t file_bytes;
    double elapsed_s;                    /* from connecting to the file in place */
    double dump_s;                       /* from the session's start to the GC's end */
    int retried;                         /* the first dump lost events; this is the second */
    uint64_t spool_peak_bytes;           /* the most stream bytes held on disk, unread */
    uint32_t first_buffer_mb, buffer_mb; /* when retried: the session buffers of both tries */
} pp_heapsnap_result;

/* Take one snapshot into spec->target.output. A dump whose events do not
 * make a whole heap (lost: a gap in a walk's Index, sequence numbers the
 * runtime skipped, objects and references that do not match up) is taken
 * once more; the error then names both causes. The runtime (before .NET
 * 11) keeps the whole walk in the session's buffer and drops what does not
 * fit, so unless the user chose --buffersize the second try asks for a
 * buffer sized from the first (what came and what was dropped), up to
 * 4096 MB. Errors: PP_ENOTFOUND (no
 * such process), PP_EINVAL (a refused target, bad spec), PP_EIO (attach or
 * stream failed; the runtime sent no heap dump within the timeout; events
 * were lost twice: message says which; a command without a reply: the
 * message names the step, how long it waited and the option or variable
 * that waits longer. ProcessInfo and the type-flush session's start are
 * asked once more first; the dump session's start is not, as a second
 * request would queue behind the first), PP_ENOMEM, PP_ELIMIT (too big for
 * the format). On error no file is left at the output. */
int pp_heapsnap_collect(const pp_heapsnap_spec *spec, pp_heapsnap_result *res, pp_error *err);

#endif
