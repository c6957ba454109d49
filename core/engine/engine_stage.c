/* The engine's stage and input bookkeeping, shared by the serial read
 * (engine.c) and the parallel one (engine_par.c): how a stage fails,
 * whether it reads an input as the parallel read needs, and how far the
 * reading has come (progress). */
#include "config.h"

#include <stdio.h>

#include <perfpipe/perfpipe.h>

#include "engine_internal.h"
#include "result/result.h"

void
pp_engine_stage_fail(stage_run *s, pp_error *first, const char *fmt, const char *detail)
{
    char msg[PP_ERROR_MESSAGE_MAX * 2];

    snprintf(msg, sizeof msg, fmt, s->plan->id, s->plan->analyzer->name, detail);
    s->failed = 1;
    pp_result_stage_failed(s->ctx.stage, msg);
    if (first != NULL && first->code == PP_OK)
        pp_error_set(first, PP_EPLUGIN, "%s", msg);
}

int
pp_engine_stage_reads(const stage_run *st, size_t index)
{
    uint32_t n = 0;

    for (uint32_t slot = 0; slot < st->plan->ninputs; slot++)
        n += st->plan->inputs[slot] == index;
    return n == 1 && (st->plan->analyzer->input_kinds & PP_KIND_NETTRACE);
}

void
pp_engine_progress(input_run *in, uint64_t done)
{
    in->done = done;
    if (in->hooks->progress != NULL && in->done >= in->next_progress) {
        in->hooks->progress(in->hooks->user, in->plan->name, in->done, in->size);
        in->next_progress = in->done + PP_PROGRESS_STEP;
    }
}
