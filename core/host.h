/* Private: the function table plugins call, and the per-stage context. */
#ifndef PP_CORE_HOST_H
#define PP_CORE_HOST_H

#include <jansson.h>

#include <perfpipe/plugin.h>

struct pp_ctx {
    const char *stage_id;
    json_t *stage;               /* the stage's entry in the result document */
    json_t *knobs;               /* the run's knobs object (borrowed) */
    int finishing;               /* result functions are allowed */
    char violation[PP_ERROR_MESSAGE_MAX]; /* first ABI rule the plugin broke */
    void (*log)(void *user, int level, const char *message);
    void *log_user;
};

/* The stage whose callback is running (the engine is single-threaded), so
 * functions that get no ctx, like table_row, can blame the right stage. */
void pp_host_enter(pp_ctx *ctx);
void pp_host_leave(void);

/* The host table handed to every plugin (static storage). */
const pp_host_api *pp_host_api_get(void);

#endif
