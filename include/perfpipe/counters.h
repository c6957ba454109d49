/* perfpipe — reader for dotnet-counters captures (`dotnet-counters collect
 * --format csv|json`), part of libperfpipe.
 *
 * The reader detects CSV or JSON by content and yields one pp_counter_sample
 * per row (CSV) or per element of "Events" (JSON). It copes with what the
 * tool really writes: timestamps in the machine's culture with no zone
 * (MM/dd/yyyy, dd/MM/yyyy, dd.MM.yyyy, yyyy-MM-dd, 12-hour clocks), the unit,
 * rate interval and tags packed into the counter name
 * ("name (By / 1 sec)[k=v;k=v]"), a comma decimal separator, and a JSON file
 * the tool never closed because it was killed (read up to the last complete
 * event, with a warning).
 *
 * What a sample carries:
 *  - name: the counter name without unit or tags ("dotnet.gc.heap.total_allocated",
 *    or an EventCounter display name such as "Allocation Rate");
 *  - tags: "k=v;k=v" sorted by key text; JSON's tags, meterTags and
 *    instrumentTags are merged so CSV and JSON of one run give equal tags;
 *  - unit: normalized: "By" and System.Runtime "MB" become "B" (MB values
 *    are scaled by 10^6, as RuntimeEventSource divides by 1,000,000),
 *    "{collection}"-style annotations and "Count" become "", others as written;
 *  - counter_type: PP_COUNTER_GAUGE for "Metric" rows, PP_COUNTER_RATE for
 *    "Rate" rows (value = increment over interval_s seconds);
 *  - time_ns: since the first sample of the file. CSV timestamps are local
 *    wall-clock seconds without a zone (a DST change inside a capture shifts
 *    later samples by an hour); JSON timestamps carry an offset and 100 ns
 *    resolution;
 *  - quantity: the canonical quantity below, or NULL for other counters.
 *
 * Canonical quantities (System.Runtime only; Meter name / EventCounter name):
 *   churn axis
 *     alloc.bytes             dotnet.gc.heap.total_allocated / alloc-rate     B, rate
 *     gc.collections.gen0     dotnet.gc.collections[gen0] / gen-0-gc-count    rate
 *     gc.collections.gen1     ...[gen1] / gen-1-gc-count                      rate
 *     gc.collections.gen2     ...[gen2] / gen-2-gc-count                      rate
 *   time axis
 *     gc.pause_time           dotnet.gc.pause.time                            s, rate
 *     gc.time_percent         time-in-gc                                      %, gauge
 *     cpu.time.user           dotnet.process.cpu.time[cpu.mode=user]          s, rate
 *     cpu.time.system         dotnet.process.cpu.time[cpu.mode=system]        s, rate
 *     cpu.percent             cpu-usage                                       %, gauge
 *     lock.contentions        dotnet.monitor.lock_contentions / monitor-lock-contention-count
 *     threadpool.queue_length dotnet.thread_pool.queue.length / threadpool-queue-length
 *     threadpool.threads      dotnet.thread_pool.thread.count / threadpool-thread-count
 *     threadpool.work_items   dotnet.thread_pool.work_item.count / threadpool-completed-items-count
 *     exceptions              dotnet.exceptions / exception-count
 *     jit.time                dotnet.jit.compilation.time / time-in-jit
 *   footprint axis
 *     memory.working_set      dotnet.process.memory.working_set / working-set B, gauge
 *     gc.heap.gen0 .. gen2    dotnet.gc.last_collection.heap.size[genN] / gen-N-size
 *     gc.heap.loh, gc.heap.poh  ...[loh], ...[poh] / loh-size, poh-size
 *     gc.heap.total           gc-heap-size (GC.GetTotalMemory)
 *     gc.committed            dotnet.gc.last_collection.memory.committed_size / gc-committed
 * dotnet-counters `collect` writes every Counter/ObservableCounter as a Rate
 * row, so threadpool.queue_length and threadpool.threads from the Meter are
 * per-interval changes, not levels.
 *
 * Thread safety: a reader is used by one thread at a time; distinct readers
 * are independent. */
#ifndef PERFPIPE_COUNTERS_H
#define PERFPIPE_COUNTERS_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include <perfpipe/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PP_COUNTERS_FORMAT_CSV  1u
#define PP_COUNTERS_FORMAT_JSON 2u

typedef struct pp_counters_reader pp_counters_reader;

/* Optional callbacks, borrowed until the reader is closed. on_bytes sees
 * every byte of the input exactly once, in order, as it is read (hash the
 * input without a second pass); on_warning gets non-fatal problems (a
 * truncated JSON capture, a row cut by a killed tool). */
typedef struct pp_counters_hooks {
    uint32_t struct_size; /* sizeof(pp_counters_hooks) */
    uint32_t reserved;
    void (*on_bytes)(void *user, const void *data, size_t len);
    void (*on_warning)(void *user, const pp_error *warning);
    void *user;
} pp_counters_hooks;

/* Open a capture and check that it starts like a dotnet-counters CSV or
 * JSON file. hooks may be NULL. On success *out is the caller's, release it
 * with pp_counters_close. Errors: PP_EIO (open/read), PP_EFORMAT (not a
 * dotnet-counters file; err has line:column), PP_ENOMEM. */
PP_API int pp_counters_open(const char *path, const pp_counters_hooks *hooks,
                            pp_counters_reader **out, pp_error *err);

/* Same over a buffer the caller keeps alive until close; name is used in
 * messages (copied). */
PP_API int pp_counters_open_memory(const void *data, size_t size, const char *name,
                                   const pp_counters_hooks *hooks, pp_counters_reader **out,
                                   pp_error *err);

/* The next sample: 1 = *out filled (its strings are the reader's, valid
 * until the next call or close), 0 = end of input, < 0 = a PP_E* error with
 * err filled (line, column and byte offset where reading stopped). After an
 * error, further calls return the same error. */
PP_API int pp_counters_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err);

/* PP_COUNTERS_FORMAT_CSV or PP_COUNTERS_FORMAT_JSON. */
PP_API uint32_t pp_counters_format(const pp_counters_reader *r);

/* Samples returned so far. */
PP_API uint64_t pp_counters_sample_count(const pp_counters_reader *r);

/* Nonzero once the reader found the input cut short (a JSON capture never
 * closed by the tool, a CSV whose last row has no newline). */
PP_API int pp_counters_truncated(const pp_counters_reader *r);

/* Wall-clock time of the first sample, ns since 1970 (CSV: the local time
 * read as if it were UTC, the file has no zone); 0 before the first sample. */
PP_API int64_t pp_counters_start_unix_ns(const pp_counters_reader *r);

/* The process name JSON captures record ("TargetProcess"), or "" (CSV).
 * Valid until close. */
PP_API const char *pp_counters_target_process(const pp_counters_reader *r);

/* Release the reader (NULL-safe). */
PP_API void pp_counters_close(pp_counters_reader *r);

/* The canonical quantity (list above) of a counter, or NULL. name is
 * without unit or tags; tags in the "k=v;k=v" form. Static strings. */
PP_API const char *pp_counters_quantity(const char *provider, const char *name, const char *tags);

/* The axis of a canonical quantity: "churn", "time", "footprint", or NULL
 * for NULL/unknown. Static strings. */
PP_API const char *pp_counters_quantity_axis(const char *quantity);

/* ---- the reader API (reader.h): the verbs every reader shares ---------- */

/* The reader's facts, the getters above in one struct. */
typedef struct pp_counters_info {
    uint32_t struct_size;
    uint32_t format;       /* PP_COUNTERS_FORMAT_* */
    uint64_t sample_count; /* samples returned so far */
    int64_t start_unix_ns; /* first sample's wall-clock time, 0 before it */
    int32_t truncated;     /* nonzero once the input was found cut short */
    uint32_t reserved;
    const char *target_process; /* JSON's "TargetProcess", or ""; valid until close */
} pp_counters_info;

/* open: as pp_counters_open, with the shared hooks struct. */
PP_API int pp_counters_reader_open(const char *path, const pp_reader_hooks *hooks,
                                   pp_counters_reader **out, pp_error *err);
/* open_memory: data is borrowed until close (reader.h) and read in place. */
PP_API int pp_counters_reader_open_memory(const void *data, size_t size, const char *name,
                                          const pp_reader_hooks *hooks, pp_counters_reader **out,
                                          pp_error *err);
/* next: the next sample, borrowed until the next call or close. */
PP_API int pp_counters_reader_next(pp_counters_reader *r, const pp_counter_sample **sample,
                                   pp_error *err);
/* close: as pp_counters_close. */
PP_API void pp_counters_reader_close(pp_counters_reader *r);
PP_API int pp_counters_reader_get_info(const pp_counters_reader *r, pp_counters_info *out);

#ifdef __cplusplus
}
#endif
#endif
