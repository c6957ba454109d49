/* The nettrace reader's seam for a reader opened on a stream by another
 * folder (core/ipc's live captures, `perfpipe collect`): what they need
 * beyond the public reader API (perfpipe/nettrace.h), so that no file
 * outside core/nettrace/ includes nettrace_internal.h. Calls go one way:
 * core/ipc and cli call these; core/nettrace calls neither. */
#ifndef PP_NETTRACE_STREAM_H
#define PP_NETTRACE_STREAM_H

#include <perfpipe/nettrace.h>

/* Read and hash the rest of the stream after the trace's end (or when a
 * capture stops early), so the saved copy and the content hash are whole. */
void pp_nettrace_drain(pp_trace_source *src);

/* Tell the reader's process identity (which app a frame belongs to) about
 * one event the caller consumed itself; and release it before closing. */
void pp_nettrace_observe_process(pp_trace_source *src, const pp_trace_event *ev);
void pp_nettrace_forget_process(pp_trace_source *src);

#endif
