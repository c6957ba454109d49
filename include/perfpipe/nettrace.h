/* perfpipe — the EventPipe .nettrace reader (libperfpipe, pkg-config perfpipe).
 *
 * Reads .nettrace files as written by .NET Core 3.0 through .NET 10 and by
 * `dotnet-trace collect-linux`: format versions 4, 5 (FastSerialization
 * container) and 6 (block container). The reader streams: a regular file is
 * mapped and read front to back, a pipe is read with read(); memory holds the
 * current block, the caches the format allows (metadata, stacks, threads,
 * label lists, flushed at sequence points) and the method map used for
 * symbolization, which persists until close because rundown comes last.
 *
 * Typical use:
 *     pp_trace_source *t; const pp_trace_event *ev; pp_error err = PP_ERROR_INIT;
 *     if (pp_nettrace_open(path, &t, &err) < 0) ...;
 *     while ((rc = pp_nettrace_next(t, &ev, &err)) == 1) ...;
 *     if (rc < 0) ...;                       (err names the byte offset)
 *     ... pp_nettrace_symbolize(t, ip, 0) ... (complete after the end)
 *     pp_nettrace_close(t);
 *
 * A pp_trace_source is not thread-safe: use one per thread. */
#ifndef PERFPIPE_NETTRACE_H
#define PERFPIPE_NETTRACE_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/defs.h>
#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include <perfpipe/reader.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Byte and warning callbacks. on_bytes sees every byte of the input exactly
 * once, in file order, as it is consumed (hash the input during the one
 * read); on_warning receives non-fatal problems (truncated tail, dropped
 * events). Either may be NULL. */
typedef void (*pp_nettrace_bytes_fn)(void *user, const void *data, size_t len);
typedef void (*pp_nettrace_warning_fn)(void *user, const pp_error *warning);

/* Open a trace and check its header. On success *out owns the open file and
 * must be closed with pp_nettrace_close. A file that is not nettrace (NetPerf
 * V1-V3, a major version above 6, anything else) fails with PP_EFORMAT or
 * PP_EUNSUPPORTED and a message saying what it is. */
PP_API int pp_nettrace_open(const char *path, pp_trace_source **out, pp_error *err);

/* Same over an open descriptor (regular file, pipe or socket). The reader
 * takes ownership of fd (closed by pp_nettrace_close, also on failure).
 * name is used in messages and may be NULL. */
PP_API int pp_nettrace_open_fd(int fd, const char *name, pp_trace_source **out, pp_error *err);

/* Install the callbacks; call before the first pp_nettrace_next. Bytes of the
 * header already consumed by open are handed to on_bytes by this call. */
PP_API void pp_nettrace_set_callbacks(pp_trace_source *src, pp_nettrace_bytes_fn on_bytes,
                                      pp_nettrace_warning_fn on_warning, void *user);

/* The next event in file order. Returns 1 and sets *ev (borrowed, valid
 * until the next call on src), 0 at the end of the trace (a truncated tail
 * ends the trace with a warning naming the offset), or a negative PP_E* code
 * with err naming the byte offset and what was expected. After the end the
 * source stays usable for symbolize/info/stats until close. */
PP_API int pp_nettrace_next(pp_trace_source *src, const pp_trace_event **ev, pp_error *err);

/* Decode payload field `name` of ev (ev must come from pp_nettrace_next on a
 * still-open source). PP_OK, PP_ENOTFOUND (no such field, or the layout is
 * unknown), PP_EFORMAT (the payload is too short for the field). Strings are
 * UTF-8 and valid until the next field call on the same source or the next
 * event; arrays and nested structs come back as PP_VALUE_BYTES. */
PP_API int pp_nettrace_field(const pp_trace_event *ev, const char *name, pp_value *out);

/* Precomputed field access: look the index up once per (source,
 * metadata_id), then decode with it. An index stays valid for every event of
 * the same metadata_id until close (V6: until a metadata flush redefines the
 * id). Same return codes as pp_nettrace_field. */
PP_API int pp_nettrace_field_index(const pp_trace_event *ev, const char *name, uint32_t *index);
PP_API int pp_nettrace_field_at(const pp_trace_event *ev, uint32_t index, pp_value *out);

/* Name a code address: "Namespace.Type.Method", with the signature's
 * parameter list appended when flags has PP_SYM_SIGNATURE (defs.h); an
 * unresolved address gets the stable name "?!0xADDR". Never NULL; the string
 * lives until close. With a PP_SYM_MODULE* flag it names the method's module
 * instead (from ModuleLoad or rundown ModuleDCStart/DCEnd events):
 * PP_SYM_MODULE its assembly name ("Shop.Reports"), PP_SYM_MODULE_PATH its
 * file, PP_SYM_MODULE_CLASS where a fix lands ("application", "package",
 * "framework" or "unknown"), PP_SYM_MODULE_WHY the reason for that class;
 * "" (class "unknown") when the trace does not say. Methods come from MethodLoad(Verbose) and rundown
 * MethodDCStart/DCEnd(Verbose) events read so far: call after the end for
 * complete results. */
PP_API const char *pp_nettrace_symbolize(const pp_trace_source *src, uint64_t ip, uint32_t flags);

/* Facts of the trace (pp_trace_info in records.h). PP_OK or PP_EINVAL. */
PP_API int pp_nettrace_info(const pp_trace_source *src, pp_trace_info *out);

/* Counters of the read so far. Set struct_size before the call. */
typedef struct pp_nettrace_stats {
    uint32_t struct_size;
    uint32_t truncated;        /* 1 if the file ended mid-block */
    int64_t truncated_at;      /* byte offset of the cut block, or -1 */
    uint64_t bytes;            /* bytes consumed */
    uint64_t events;           /* events returned */
    uint64_t payload_bytes;    /* sum of their payload sizes */
    uint64_t blocks;           /* blocks of any kind */
    uint64_t stacks;           /* stacks defined */
    uint64_t metadata_entries; /* metadata rows defined */
    uint64_t sequence_points;
    uint64_t dropped_events; /* sequence-number gaps */
    uint64_t methods;        /* method map entries */
    uint64_t symbolized;     /* distinct addresses symbolized */
    uint64_t unresolved;     /* of which unresolved */
    uint32_t process_count;  /* distinct process ids seen (V6), else 1 */
    uint32_t reserved;
} pp_nettrace_stats;

PP_API int pp_nettrace_stats_get(const pp_trace_source *src, pp_nettrace_stats *out);

/* The distinct process ids of the trace: writes up to max ids into ids and
 * returns how many exist (V4/V5: the header's one id). */
PP_API uint32_t pp_nettrace_process_ids(const pp_trace_source *src, uint32_t *ids, uint32_t max);

/* Close and free everything, including strings returned by symbolize.
 * NULL-safe. */
PP_API void pp_nettrace_close(pp_trace_source *src);

/* ---- the reader API (reader.h): the verbs every reader shares ---------- */

typedef struct pp_trace_source pp_nettrace_reader;

/* open: as pp_nettrace_open, with the hooks installed before any byte is
 * read (bytes of the header reach on_bytes too). */
PP_API int pp_nettrace_reader_open(const char *path, const pp_reader_hooks *hooks,
                                   pp_nettrace_reader **out, pp_error *err);
/* open_memory: data is borrowed until close (reader.h); this version reads
 * it through an anonymous memory file, one copy. */
PP_API int pp_nettrace_reader_open_memory(const void *data, size_t size, const char *name,
                                          const pp_reader_hooks *hooks, pp_nettrace_reader **out,
                                          pp_error *err);
/* next: as pp_nettrace_next. */
PP_API int pp_nettrace_reader_next(pp_nettrace_reader *r, const pp_trace_event **ev, pp_error *err);
/* close: as pp_nettrace_close. */
PP_API void pp_nettrace_reader_close(pp_nettrace_reader *r);
/* get_info: pp_trace_info (records.h), as pp_nettrace_info; the read's
 * counters stay with pp_nettrace_stats_get. */
PP_API int pp_nettrace_reader_get_info(const pp_nettrace_reader *r, pp_trace_info *out);

#ifdef __cplusplus
}
#endif
#endif
