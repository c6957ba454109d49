/* Private: `perfpipe inspect` facts of a .nettrace file as a result
 * document (the CLI renders it). */
#ifndef PP_NETTRACE_INSPECT_H
#define PP_NETTRACE_INSPECT_H

#include <jansson.h>

#include <perfpipe/error.h>

#include "nettrace/nettrace_internal.h"

/* Read path once and build a perfpipe-result/1 document with one stage
 * (id "inspect", analyzer "inspect"): totals for the trace facts and the
 * table `events` (provider, event_id, version, name, count, payload_bytes)
 * sorted by provider, event_id, version. A truncated file yields the
 * document plus a warning finding naming the offset. On success *doc_out is
 * a new reference the caller releases with json_decref. Errors: the
 * reader's PP_E* code with err naming the file and byte offset.
 * jobs: 1 reads serially; N > 1 lets a seekable V4/V5 file of at least
 * PP_INSPECT_SPLIT_MIN bytes be read by up to N threads (the document is
 * the same byte for byte); 0 is nt_inspect_default_jobs(). */
int pp_nettrace_inspect_doc(const char *path, unsigned jobs, json_t **doc_out, pp_error *err);

/* Smaller files are read serially whatever the jobs: below this, starting
 * threads and the extra readers cost more than they save (bench/RESULTS.md). */
#define PP_INSPECT_SPLIT_MIN (64u << 20)
/* The most threads that helped in bench/parallel.sh (2 cores measured). */
#define PP_INSPECT_JOBS_DEFAULT_MAX 2u

/* PERFPIPE_JOBS if set to 1..64, else the online CPUs up to
 * PP_INSPECT_JOBS_DEFAULT_MAX. */
unsigned nt_inspect_default_jobs(void);

/* The first warning's text and how many there were. */
typedef struct nt_warn_sink {
    char msg[PP_ERROR_MESSAGE_MAX];
    int have;
    uint64_t count;
} nt_warn_sink;
void nt_inspect_on_warning(void *user, const pp_error *w);

/* Read r to its end counting each frame by address into ips (caller-owned,
 * zeroed; freed by the caller either way). PP_OK or the reader's error. */
int nt_inspect_count(pp_trace_source *r, const char *path, pp_u64map *ips, pp_error *err);

/* inspect_par.c: read r's file as regions on up to jobs threads, leaving
 * in r (opened, callbacks set to ws, nothing read) and ips what
 * nt_inspect_count would, and in ws the serial warnings. 1 when the file
 * is not split (too small, V6, not seekable, under two regions): r is
 * untouched, the caller reads it serially. 2 when the regions could not
 * reproduce the serial result: the first ran on r (it may have read,
 * failed or been given a stop), so the caller reopens the file and reads
 * it serially. PP_OK, or PP_ENOMEM. */
int nt_inspect_parallel(pp_trace_source *r, const char *path, unsigned jobs, nt_warn_sink *ws,
                        pp_u64map *ips, pp_error *err);

#endif
