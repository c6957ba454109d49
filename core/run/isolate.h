/* Private: stage isolation. The engine runs in a child process; the parent
 * watches it through shared memory (core/engine/guard.h). When the child dies in a
 * plugin callback (a signal, abort, exit()), or one callback runs longer
 * than the progress limit, that stage is marked failed with what happened
 * (phase, signal or limit, the last record it was given, how far the input
 * was read) and the run is repeated without it, so every other stage's
 * result is still written. A plugin's writes to stdout (stdio) are caught
 * in the child: the stage fails and the document on stdout stays clean.
 *
 * Cost on a healthy run: one fork; the document is delivered (rendered and
 * written) in the child through hooks->deliver, or else crosses a pipe as
 * JSON (bench/RESULTS.md has the figures). A faulty stage costs one more
 * read of the inputs per fault. */
#ifndef PP_CORE_ISOLATE_H
#define PP_CORE_ISOLATE_H

#include <jansson.h>

#include "engine/engine.h"

/* Same contract as pp_engine_run; hooks->stage_timeout_s is the progress
 * limit (0 = PP_STAGE_TIMEOUT_DEFAULT). Falls back to running in process
 * only if no child can be made (the error says so then). */
int pp_isolate_run(const pp_plan *plan, const pp_run_hooks *hooks, json_t **doc, pp_error *err);

#endif
