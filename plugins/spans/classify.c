/* plugins/spans: what a span is — the request operation it names, or the
 * kind of downstream call it makes and to whom — from OpenTelemetry
 * semantic-convention attributes (current and pre-1.21 names). */
#include <config.h>

#include <stdio.h>
#include <string.h>

#include "spans.h"

const char *
sp_ds_kind_name(uint32_t ds_kind)
{
    switch (ds_kind) {
    case SP_DS_DATABASE: return "database";
    case SP_DS_CACHE: return "cache";
    case SP_DS_HTTP: return "http";
    case SP_DS_MESSAGING: return "messaging";
    case SP_DS_OTHER: return "other";
    default: return "in-proc";
    }
}

static const char *
attr(const pp_span *s, const char *key)
{
    for (uint32_t i = 0; i < s->attr_count; i++)
        if (s->attrs[i].key && strcmp(s->attrs[i].key, key) == 0)
            return s->attrs[i].value ? s->attrs[i].value : "";
    return NULL;
}

/* The first of several attribute names present with a non-empty value. */
static const char *
attr_any(const pp_span *s, const char *const *keys)
{
    for (; *keys; keys++) {
        const char *v = attr(s, *keys);
        if (v && v[0])
            return v;
    }
    return NULL;
}

static int
has_prefix_attr(const pp_span *s, const char *prefix)
{
    size_t n = strlen(prefix);
    for (uint32_t i = 0; i < s->attr_count; i++)
        if (s->attrs[i].key && strncmp(s->attrs[i].key, prefix, n) == 0)
            return 1;
    return 0;
}

/* The value of `op=` in a query string (or in a URL/target after '?'),
 * as [*start, *start + *len). */
static int
query_op(const char *q, int after_question_mark, const char **start, size_t *len)
{
    if (!q)
        return 0;
    if (after_question_mark) {
        q = strchr(q, '?');
        if (!q)
            return 0;
        q++;
    } else if (*q == '?') {
        q++;
    }
    while (*q) {
        size_t seg = strcspn(q, "&#");
        if (seg > 3 && strncmp(q, "op=", 3) == 0) {
            *start = q + 3;
            *len = seg - 3;
            return 1;
        }
        q += seg;
        if (*q == '#')
            return 0;
        if (*q)
            q++;
    }
    return 0;
}

static int
intern(sp_state *st, const char *s, size_t len, uint32_t *id)
{
    return pp_pc_strtab_intern(&st->names, s, len, id);
}

/* Host part of a URL ("http://pricing:8080/x" -> "pricing:8080"). */
static int
url_host(const char *url, const char **start, size_t *len)
{
    const char *p = strstr(url, "://");
    if (!p)
        return 0;
    p += 3;
    size_t n = strcspn(p, "/?#");
    if (n == 0)
        return 0;
    *start = p;
    *len = n;
    return 1;
}

static const char *const db_system_keys[] = { "db.system", "db.system.name", NULL };
static const char *const db_name_keys[] = { "db.namespace",  "db.name",      "server.address",
                                            "net.peer.name", "peer.service", NULL };
static const char *const db_query_keys[] = { "db.query.text", "db.statement", "db.operation",
                                             "db.operation.name", NULL };
static const char *const peer_keys[] = { "server.address", "net.peer.name", "peer.service",
                                         "http.host", NULL };
static const char *const url_keys[] = { "url.full", "http.url", NULL };
static const char *const http_keys[] = { "http.request.method", "http.method", "url.full",
                                         "http.url", NULL };
static const char *const msg_dest_keys[] = { "messaging.destination.name", "messaging.destination",
                                             NULL };

int
sp_classify(sp_state *st, const pp_span *s, sp_span *out)
{
    out->op = SP_NO_ID;
    out->ds_name = SP_NO_ID;
    out->ds_kind = SP_DS_NONE;
    char buf[512];

    if (s->kind == PP_SPAN_SERVER) {
        const char *op;
        size_t oplen;
        if (query_op(attr(s, "url.query"), 0, &op, &oplen) ||
            query_op(attr(s, "http.target"), 1, &op, &oplen) ||
            query_op(attr(s, "url.full"), 1, &op, &oplen) ||
            query_op(attr(s, "http.url"), 1, &op, &oplen))
            return intern(st, op, oplen, &out->op);
        return intern(st, s->name, strlen(s->name), &out->op);
    }

    const char *dbsys = attr_any(s, db_system_keys);
    const char *msgsys = attr(s, "messaging.system");
    int outbound = s->kind == PP_SPAN_CLIENT || s->kind == PP_SPAN_PRODUCER;
    if (dbsys) {
        int cache = strcmp(dbsys, "redis") == 0 || strcmp(dbsys, "memcached") == 0;
        out->ds_kind = cache ? SP_DS_CACHE : SP_DS_DATABASE;
        const char *who = attr_any(s, cache ? peer_keys : db_name_keys);
        if (who)
            snprintf(buf, sizeof(buf), "%s:%s", dbsys, who);
        else
            snprintf(buf, sizeof(buf), "%s", dbsys);
        return intern(st, buf, strlen(buf), &out->ds_name);
    }
    if (msgsys && msgsys[0]) {
        out->ds_kind = SP_DS_MESSAGING;
        const char *dest = attr_any(s, msg_dest_keys);
        if (dest)
            snprintf(buf, sizeof(buf), "%s:%s", msgsys, dest);
        else
            snprintf(buf, sizeof(buf), "%s", msgsys);
        return intern(st, buf, strlen(buf), &out->ds_name);
    }
    /* A client span with a query but no db.system is still a database call. */
    if (outbound && attr_any(s, db_query_keys)) {
        out->ds_kind = SP_DS_DATABASE;
        const char *who = attr_any(s, peer_keys);
        return intern(st, who ? who : "database", strlen(who ? who : "database"), &out->ds_name);
    }
    if (s->kind == PP_SPAN_CLIENT && (attr_any(s, http_keys) || has_prefix_attr(s, "http."))) {
        out->ds_kind = SP_DS_HTTP;
        const char *who = attr_any(s, peer_keys);
        if (who)
            return intern(st, who, strlen(who), &out->ds_name);
        const char *url = attr_any(s, url_keys), *h;
        size_t hl;
        if (url && url_host(url, &h, &hl))
            return intern(st, h, hl, &out->ds_name);
        return intern(st, "http", 4, &out->ds_name);
    }
    if (outbound) {
        out->ds_kind = SP_DS_OTHER;
        const char *who = attr_any(s, peer_keys);
        if (!who)
            who = s->name;
        return intern(st, who, strlen(who), &out->ds_name);
    }
    return 0;
}
