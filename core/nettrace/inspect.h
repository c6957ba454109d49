/* Private: `perfpipe inspect` facts of a .nettrace file as a result
 * document (the CLI renders it). */
#ifndef PP_NETTRACE_INSPECT_H
#define PP_NETTRACE_INSPECT_H

#include <jansson.h>

#include <perfpipe/error.h>

/* Read path once and build a perfpipe-result/1 document with one stage
 * (id "inspect", analyzer "inspect"): totals for the trace facts and the
 * table `events` (provider, event_id, version, name, count, payload_bytes)
 * sorted by provider, event_id, version. A truncated file yields the
 * document plus a warning finding naming the offset. On success *doc_out is
 * a new reference the caller releases with json_decref. Errors: the
 * reader's PP_E* code with err naming the file and byte offset. */
int pp_nettrace_inspect_doc(const char *path, json_t **doc_out, pp_error *err);

#endif
