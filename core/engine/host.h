/* Private: the function table plugins call, and the per-stage context. */
#ifndef PP_CORE_HOST_H
#define PP_CORE_HOST_H

#include <stdint.h>

#include <jansson.h>

#include <perfpipe/plugin.h>

#include "result/result.h"

struct pp_ctx {
    const char *stage_id;
    json_t *stage;                        /* the stage's entry in the result document */
    json_t *knobs;                        /* the run's knobs object (borrowed) */
    int finishing;                        /* result functions are allowed */
    char violation[PP_ERROR_MESSAGE_MAX]; /* first ABI rule the plugin broke */
    void (*log)(void *user, int level, const char *message);
    void *log_user;
    pp_table_set tables; /* the stage's table wrappers (owner = this ctx) */
    uint64_t nonfinite;  /* NaN or infinite double cells given (written as null) */
    int oom;             /* a total or finding could not be recorded (no memory) */
    int perfpipe_took;   /* perfpipe took one of the stage's inputs (advice.h) */
};

/* After a stage's finish() returned PP_OK: what the host checks of the
 * stage's result as a whole. memory_failures: frame names and event
 * fields the host could not make while the stage ran
 * (pp_host_memory_failures's growth): the stage becomes partial with a
 * warning result.out_of_memory. Rows repeating a key:
 * result.duplicate_key. Findings it adds may set ctx->oom. */
void pp_host_after_finish(pp_ctx *ctx, uint64_t memory_failures);

/* How many names trace_symbolize (each "?!(out of memory)") and fields
 * trace_field (PP_ENOMEM) could not make in this process so far. */
uint64_t pp_host_memory_failures(void);

/* The host table handed to every plugin (static storage). */
const pp_host_api *pp_host_api_get(void);

#endif
