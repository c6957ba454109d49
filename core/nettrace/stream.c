/* The seam of stream.h: thin calls into the reader's input and process
 * state, for the folders that must not see nettrace_internal.h. */
#include "config.h"

#include "nettrace/nettrace_internal.h"
#include "nettrace/stream.h"

void
pp_nettrace_drain(pp_trace_source *src)
{
    nt_input_drain(src);
}

void
pp_nettrace_observe_process(pp_trace_source *src, const pp_trace_event *ev)
{
    pp_nt_process_observe(&src->proc, ev);
}

void
pp_nettrace_forget_process(pp_trace_source *src)
{
    pp_nt_process_free(&src->proc);
}
