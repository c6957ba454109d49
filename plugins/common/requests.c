/* plugins/common: request boundaries (see requests.h). */
#include <config.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "requests.h"

static const char HOSTING[] = "Microsoft.AspNetCore.Hosting";

uint64_t
pp_pc_guid_hash(const pp_guid *g)
{
    uint64_t a, b;

    memcpy(&a, g->bytes, 8);
    memcpy(&b, g->bytes + 8, 8);
    uint64_t h = pp_pc_hash_u64(a ^ pp_pc_hash_u64(b + 0x9e3779b97f4a7c15u));
    return h ? h : 1;
}

static int
zero(const pp_guid *g)
{
    static const pp_guid z;
    return memcmp(g, &z, sizeof z) == 0;
}

int
pp_pc_requests_start(pp_pc_requests *r, const pp_guid *activity, int64_t t, const char *method,
                     const char *path)
{
    char route[512];
    uint32_t id;

    if (zero(activity))
        return PP_OK; /* no activity tracking: nothing can be attributed to it */
    if (r->count == r->cap) {
        uint32_t cap = r->cap ? r->cap * 2 : 64;
        pp_pc_request *v = realloc(r->v, (size_t)cap * sizeof *v);
        if (!v)
            return PP_ENOMEM;
        r->v = v;
        r->cap = cap;
    }
    if (path && path[0])
        snprintf(route, sizeof route, "%s%s%s", method && method[0] ? method : "",
                 method && method[0] ? " " : "", path);
    else
        snprintf(route, sizeof route, "(unknown route)");
    if (pp_pc_strtab_intern(&r->routes, route, strlen(route), &id) != PP_OK)
        return PP_ENOMEM;
    r->v[r->count] = (pp_pc_request){ *activity, t, -1, id };
    if (pp_pc_u64map_put(&r->by_activity, pp_pc_guid_hash(activity), r->count) != PP_OK)
        return PP_ENOMEM;
    r->count++;
    return PP_OK;
}

uint32_t
pp_pc_requests_find(const pp_pc_requests *r, const pp_guid *activity)
{
    uint32_t i;

    if (zero(activity) || !pp_pc_u64map_get(&r->by_activity, pp_pc_guid_hash(activity), &i))
        return PP_PC_NO_REQUEST;
    if (memcmp(&r->v[i].activity, activity, sizeof *activity) == 0)
        return i;
    /* a hash collision: look at them all (rare) */
    for (uint32_t k = 0; k < r->count; k++)
        if (memcmp(&r->v[k].activity, activity, sizeof *activity) == 0)
            return k;
    return PP_PC_NO_REQUEST;
}

void
pp_pc_requests_stop(pp_pc_requests *r, const pp_guid *activity, int64_t t)
{
    uint32_t i = pp_pc_requests_find(r, activity);

    if (i == PP_PC_NO_REQUEST || r->v[i].stop_ns >= 0) {
        r->unmatched_stops++;
        return;
    }
    r->v[i].stop_ns = t < r->v[i].start_ns ? r->v[i].start_ns : t;
}

uint32_t
pp_pc_requests_complete(const pp_pc_requests *r)
{
    uint32_t n = 0;

    for (uint32_t i = 0; i < r->count; i++)
        n += r->v[i].stop_ns >= 0;
    return n;
}

int
pp_pc_requests_hosting_kind(const pp_trace_event *ev)
{
    if (!ev->provider || strcmp(ev->provider, HOSTING) != 0 || !ev->name)
        return 0;
    if (strcmp(ev->name, "RequestStart") == 0)
        return 1;
    if (strcmp(ev->name, "RequestStop") == 0)
        return 2;
    return 0;
}

int
pp_pc_requests_ds_kind(const char *source, const char *event)
{
    static const char in[] = "Microsoft.AspNetCore.Hosting.HttpRequestIn";

    if (!source || !event || strcmp(source, "Microsoft.AspNetCore") != 0 ||
        strncmp(event, in, sizeof in - 1) != 0)
        return 0;
    if (strcmp(event + sizeof in - 1, ".Start") == 0)
        return 1;
    if (strcmp(event + sizeof in - 1, ".Stop") == 0)
        return 2;
    return 0;
}

void
pp_pc_requests_free(pp_pc_requests *r)
{
    free(r->v);
    pp_pc_u64map_free(&r->by_activity);
    pp_pc_strtab_free(&r->routes);
    memset(r, 0, sizeof *r);
}
