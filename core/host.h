/* Private: the function table plugins call, and the per-stage context. */
#ifndef PP_CORE_HOST_H
#define PP_CORE_HOST_H

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
};

/* After a stage's finish() returned PP_OK: what the host checks of the
 * stage's result as a whole (rows repeating a key). Findings it adds may
 * set ctx->oom. */
void pp_host_after_finish(pp_ctx *ctx);

/* The host table handed to every plugin (static storage). */
const pp_host_api *pp_host_api_get(void);

#endif
