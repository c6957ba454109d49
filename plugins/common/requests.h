/* plugins/common: request boundaries of a nettrace, for any analyzer that
 * groups by request (issue #16).
 *
 * A request is what ASP.NET Core's hosting layer brackets: the
 * Microsoft.AspNetCore.Hosting EventSource's RequestStart/RequestStop
 * (`--providers Microsoft.AspNetCore.Hosting`), or the DiagnosticSource
 * Microsoft.AspNetCore.Hosting.HttpRequestIn.Start/Stop. Its activity id is
 * the related activity id of every Start event inside the request (EF Core
 * commands, HttpClient calls: EventSource activity tracking, TplEventSource
 * 0x80, which `--profile database` turns on), so an event finds its request
 * by pp_pc_requests_find(related id) or (for non-Start events) by its own
 * activity id. Events arrive in file order, not time order, so callers
 * record first and resolve in finish(). */
#ifndef PP_PLUGIN_REQUESTS_H
#define PP_PLUGIN_REQUESTS_H

#include <stdint.h>

#include <perfpipe/records.h>

#include "strtab.h"
#include "u64map.h"

#define PP_PC_NO_REQUEST UINT32_MAX

typedef struct pp_pc_request {
    pp_guid activity;
    int64_t start_ns, stop_ns; /* stop_ns -1 while open */
    uint32_t route;            /* id in routes: "GET /path", or "(unknown route)" */
} pp_pc_request;

typedef struct pp_pc_requests {
    pp_pc_request *v;
    uint32_t count, cap;
    pp_pc_u64map by_activity; /* activity hash -> index */
    pp_pc_strtab routes;
    uint64_t unmatched_stops;
} pp_pc_requests;

/* A hash of a GUID, never 0. */
uint64_t pp_pc_guid_hash(const pp_guid *g);

/* A request started. method and path may be NULL. PP_OK or PP_ENOMEM. */
int pp_pc_requests_start(pp_pc_requests *r, const pp_guid *activity, int64_t t, const char *method,
                         const char *path);
/* The request with this activity id stopped (a stop with no start is
 * counted in unmatched_stops). */
void pp_pc_requests_stop(pp_pc_requests *r, const pp_guid *activity, int64_t t);
/* The request of an activity id, or PP_PC_NO_REQUEST. */
uint32_t pp_pc_requests_find(const pp_pc_requests *r, const pp_guid *activity);
/* Requests that both started and stopped. */
uint32_t pp_pc_requests_complete(const pp_pc_requests *r);

/* Whether ev is a request boundary: 1 start, 2 stop, 0 neither. For the
 * Hosting EventSource only; DiagnosticSource events are decoded by the
 * caller (see pp_pc_requests_ds_kind). */
int pp_pc_requests_hosting_kind(const pp_trace_event *ev);
/* For a decoded DiagnosticSource event (source, event name): 1 start,
 * 2 stop, 0 neither. */
int pp_pc_requests_ds_kind(const char *source, const char *event);

void pp_pc_requests_free(pp_pc_requests *r);

#endif
