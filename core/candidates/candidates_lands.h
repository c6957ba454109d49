/* Private: where a candidate's fix lands (docs/landing.md): the module of
 * the frame the candidate points at, its class (application, package,
 * framework, unknown) from the stage's `modules` table, and the call site:
 * the first application frame that reached a framework or package frame
 * (the frame itself for application code). */
#ifndef PP_CORE_CANDIDATES_LANDS_H
#define PP_CORE_CANDIDATES_LANDS_H

#include <jansson.h>

typedef struct pp_lands {
    char module[256];
    char cls[16]; /* "application", "package", "framework", "unknown" */
    char call_site[512];
    char why[768]; /* why that class, or why it is unknown and how to know */
    int no_app;    /* no module and no application frame reached it: a runtime
                      stub or framework-only code, a follow-up, never a target */
    int dynamic;   /* its module is in-memory (a DynamicMethod: a compiled route
                      delegate): no source file a fix could change */
} pp_lands;

/* Fill *out for one candidate: row of table (analyzer's stage), pointing at
 * target, the value of its subject column subject_col. callers: the stage's
 * table of each subject's callers (the source's declaration), or NULL;
 * heap_type: the target is a heap type; perfpipe: perfpipe took the capture
 * (advice names its commands, core/base/advice.h). Never fails: what is not known says
 * so in out->why. */
void pp_candidates_lands(const json_t *stage, const json_t *table, const json_t *row,
                         const char *target, const char *subject_col, const char *callers,
                         int heap_type, int perfpipe, pp_lands *out);

#endif
