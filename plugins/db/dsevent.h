/* plugins/db: decoding Microsoft-Diagnostics-DiagnosticSource payloads.
 *
 * Layout (verified on tests/data/db-database.nettrace.zst, .NET 10, and in
 * TraceEvent's well-known parameters): SourceName and EventName as
 * NUL-terminated UTF-16LE, then a uint16 argument count, then that many
 * (Key, Value) NUL-terminated UTF-16LE string pairs. The EventPipe event id
 * of these self-describing events is not stable, so events are told apart
 * by provider and event NAME. */
#ifndef PP_PLUGIN_DB_DSEVENT_H
#define PP_PLUGIN_DB_DSEVENT_H

#include <stddef.h>
#include <stdint.h>

#define DB_DS_MAX_ARGS 64

/* What the DiagnosticSource EventSource method was. */
#define DB_DS_OTHER 0u /* Message, Version, NewDiagnosticListener, ... */
#define DB_DS_EVENT 1u /* Event: no activity */
#define DB_DS_START 2u /* Activity1Start, Activity2Start, RecursiveActivity1Start, ActivityStart */
#define DB_DS_STOP  3u /* the matching Stop events */

typedef struct db_ds_arg {
    const char *key;
    const char *value;
} db_ds_arg;

/* One decoded event; strings point into a buffer the decoder owns and
 * stay valid until the next decode. */
typedef struct db_ds_event {
    uint32_t method;    /* DB_DS_* */
    uint32_t slot;      /* 1 or 2 for Activity1/Activity2, 0 otherwise */
    const char *source; /* SourceName, e.g. "Microsoft.EntityFrameworkCore" */
    const char *event;  /* EventName, e.g. "...Database.Command.CommandExecuting" */
    uint32_t argc;
    db_ds_arg args[DB_DS_MAX_ARGS];
} db_ds_event;

typedef struct db_ds_decoder {
    char *buf;
    size_t cap;
} db_ds_decoder;

/* The method kind of an event name ("Activity2Start" as in the nettrace
 * metadata, or TraceEvent's "Activity2/Start"). */
uint32_t db_ds_method(const char *event_name, uint32_t *slot);

/* Decode payload[0..size). 0 = ok, -1 = malformed (truncated strings,
 * count past the payload), -2 = out of memory. Arguments past
 * DB_DS_MAX_ARGS are skipped. */
int db_ds_decode(db_ds_decoder *d, const char *event_name, const uint8_t *payload, uint32_t size,
                 db_ds_event *out);

void db_ds_decoder_free(db_ds_decoder *d);

/* The value of argument key, or NULL. */
const char *db_ds_arg_get(const db_ds_event *e, const char *key);

/* A .NET TimeSpan.ToString() ("c" format: [-][d.]hh:mm:ss[.fffffff]) in
 * nanoseconds. 0 = ok, -1 = not a TimeSpan. */
int db_parse_timespan(const char *s, int64_t *ns);

#endif
