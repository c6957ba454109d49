/* Private: cpu's `self_time` evidence view (docs/rules.md), kept apart from
 * evidence.c, which only routes to it. */
#ifndef PP_CORE_RULES_SELFTIME_H
#define PP_CORE_RULES_SELFTIME_H

#include <jansson.h>

#include "rules/evidence.h"

/* The columns of the view, in the schema's "name:s,name:n" form. */
#define PP_EV_SELF_TIME_COLUMNS                                                                    \
    "method:s,module:s,class:s,ms:n,self_ms:n,self_share:n,share:n,request_share:n,samples:n"

/* Build the view into out (columns and rows, owned by the caller) from a
 * cpu stage's `running`, `by_stack` and `modules` tables (raw tables of a
 * result document; modules may be NULL). For each method of `running`:
 * ms = the thread time on stacks through it (running or blocked), self_ms
 * = the time with it as the leaf (its own code running), self_share =
 * self_ms / ms (0-100: an algorithmic loop of its own is near 100; a
 * method whose time is in what it calls or waits for, near 0), share =
 * self_ms / all running time (the sum of `running`, 0-100), request_share
 * = the part of ms on a request path (0-100: stacks through ASP.NET Core
 * or the thread pool's dispatch loop), samples = its leaf samples.
 * Largest self_ms first. 0, or -1 when memory ran out. */
int pp_ev_self_time(const json_t *running, const json_t *stacks, const json_t *modules,
                    pp_ev_table *out);

#endif
