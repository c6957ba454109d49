/* Unit tests of the db analyzer with hand-built DiagnosticSource events.
 * Payloads follow the layout seen in tests/data/db-database.nettrace
 * (.NET 10, dumped while writing the plugin): SourceName and EventName as
 * NUL-terminated UTF-16LE, a uint16 argument count, then Key/Value
 * UTF-16LE pairs; event names are the EventSource method names
 * ("Activity2Start") and event ids are meaningless. */
#include <config.h>

#include <check.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>
#include <perfpipe/plugin.h>

#include "mock_host.h"
#include "../../plugins/db/dsevent.h"
#include "../../plugins/db/normalize.h"

const pp_analyzer *perfpipe_plugin_entry(void);

#define EF        "Microsoft.EntityFrameworkCore"
#define EXECUTING "Microsoft.EntityFrameworkCore.Database.Command.CommandExecuting"
#define EXECUTED  "Microsoft.EntityFrameworkCore.Database.Command.CommandExecuted"
#define MS        INT64_C(1000000)

typedef struct built {
    pp_trace_event ev;
    uint8_t payload[16384];
    uint64_t stack[8];
} built;

static size_t
put_str(uint8_t *b, size_t o, const char *s)
{
    for (; *s; s++) { /* ASCII is enough for the tests */
        b[o++] = (uint8_t)*s;
        b[o++] = 0;
    }
    b[o++] = 0;
    b[o++] = 0;
    return o;
}

/* args: NULL-terminated key, value, key, value... */
static void
build(built *b, mock_host *mh, const char *method, int64_t t_ns, uint64_t thread, uint8_t act,
      uint8_t rel, const char *source, const char *event, ...)
{
    memset(&b->ev, 0, sizeof(b->ev));
    b->ev.struct_size = sizeof(b->ev);
    b->ev.provider_known = PP_PROVIDER_DIAGNOSTIC_SOURCE;
    b->ev.provider = "Microsoft-Diagnostics-DiagnosticSource";
    b->ev.event_id = 22; /* arbitrary, as in real traces */
    b->ev.name = method;
    b->ev.source = mock_host_source(mh);
    b->ev.time_ns = t_ns;
    b->ev.thread_id = thread;
    b->ev.pointer_size = 8;
    if (act) { /* path-encoded activity ids differ in their first bytes */
        b->ev.activity_id.bytes[0] = act;
        b->ev.activity_id.bytes[15] = 0x59;
    }
    if (rel) {
        b->ev.related_activity_id.bytes[0] = rel;
        b->ev.related_activity_id.bytes[15] = 0x59;
    }
    size_t o = put_str(b->payload, 0, source);
    o = put_str(b->payload, o, event);
    size_t count_at = o;
    o += 2;
    va_list ap;
    va_start(ap, event);
    uint16_t n = 0;
    const char *k;
    while ((k = va_arg(ap, const char *)) != NULL) {
        const char *v = va_arg(ap, const char *);
        o = put_str(b->payload, o, k);
        o = put_str(b->payload, o, v);
        n++;
    }
    va_end(ap);
    b->payload[count_at] = (uint8_t)(n & 0xFF);
    b->payload[count_at + 1] = (uint8_t)(n >> 8);
    b->ev.payload = b->payload;
    b->ev.payload_size = (uint32_t)o;
}

static mock_host *
new_host(const char *opt, const char *val)
{
    mock_host *mh = mock_host_new(perfpipe_plugin_entry());
    ck_assert_ptr_nonnull(mh);
    if (opt)
        ck_assert_int_eq(mock_host_set_option(mh, opt, val), 0);
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_create(mh, &err), PP_OK);
    return mh;
}

static void
feed(mock_host *mh, built *b)
{
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_consume_event(mh, &b->ev, &err), PP_OK);
}

static void
finish(mock_host *mh)
{
    pp_error err = PP_ERROR_INIT;
    ck_assert_int_eq(mock_host_finish(mh, &err), PP_OK);
    ck_assert_msg(mock_host_violations(mh) == 0, "%s", mock_host_first_violation(mh));
}

/* One EF command: start at t0 on thread, stop at t1 on stop_thread. */
static void
ef_command(mock_host *mh, const char *sql, int64_t t0, int64_t t1, uint64_t thread,
           uint64_t stop_thread, uint8_t act, const char *duration, const char *async)
{
    built b;
    build(&b, mh, "Activity2Start", t0, thread, act, 0, EF, EXECUTING, "CommandText", sql,
          "Command", "Microsoft.Data.Sqlite.SqliteCommand", "ConnectionId",
          "480a8f62-9faf-4d76-9e53-8ee2bf9c7774", "IsAsync", async, (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity2Stop", t1, stop_thread, act, 0, EF, EXECUTED, "Result", "0", "Duration",
          duration, "LogCommandText", sql, "ConnectionId", "480a8f62-9faf-4d76-9e53-8ee2bf9c7774",
          "IsAsync", async, (const char *)NULL);
    feed(mh, &b);
}

#define ck_near(a, b)                                                                              \
    ck_assert_msg(fabs((a) - (b)) < 1e-6, "%s = %f, expected %f", #a, (double)(a), (double)(b))

START_TEST(decode_real_layout)
{
    mock_host *mh = new_host(NULL, NULL);
    built b;
    build(&b, mh, "Activity2Start", 0, 1, 1, 0, EF, EXECUTING, "CommandText", "SELECT 1", "IsAsync",
          "False", (const char *)NULL);
    db_ds_decoder d = { 0 };
    db_ds_event *e = malloc(sizeof(*e));
    ck_assert_int_eq(db_ds_decode(&d, b.ev.name, b.ev.payload, b.ev.payload_size, e), 0);
    ck_assert_uint_eq(e->method, DB_DS_START);
    ck_assert_uint_eq(e->slot, 2);
    ck_assert_str_eq(e->source, EF);
    ck_assert_str_eq(e->event, EXECUTING);
    ck_assert_uint_eq(e->argc, 2);
    ck_assert_str_eq(db_ds_arg_get(e, "CommandText"), "SELECT 1");
    ck_assert_str_eq(db_ds_arg_get(e, "IsAsync"), "False");
    /* every truncation is refused, never read past */
    for (uint32_t cut = 0; cut < b.ev.payload_size; cut++) {
        uint8_t *copy = malloc(cut ? cut : 1);
        memcpy(copy, b.payload, cut);
        ck_assert_int_eq(db_ds_decode(&d, b.ev.name, copy, cut, e), -1);
        free(copy);
    }
    /* a count larger than the payload can hold */
    size_t at = (strlen(EF) + 1 + strlen(EXECUTING) + 1) * 2;
    b.payload[at] = 0xFF;
    b.payload[at + 1] = 0xFF;
    ck_assert_int_eq(db_ds_decode(&d, b.ev.name, b.payload, b.ev.payload_size, e), -1);
    uint32_t slot;
    ck_assert_uint_eq(db_ds_method("Activity1/Stop", &slot), DB_DS_STOP);
    ck_assert_uint_eq(slot, 1);
    ck_assert_uint_eq(db_ds_method("RecursiveActivity1Start", &slot), DB_DS_START);
    ck_assert_uint_eq(db_ds_method("Message", &slot), DB_DS_OTHER);
    free(e);
    db_ds_decoder_free(&d);
    mock_host_free(mh);
}
END_TEST

START_TEST(timespan)
{
    int64_t ns;
    ck_assert_int_eq(db_parse_timespan("00:00:00.2066909", &ns), 0);
    ck_assert_int_eq(ns, INT64_C(206690900));
    ck_assert_int_eq(db_parse_timespan("00:00:00.0003736", &ns), 0);
    ck_assert_int_eq(ns, INT64_C(373600));
    ck_assert_int_eq(db_parse_timespan("1.02:03:04.5", &ns), 0);
    ck_assert_int_eq(ns,
                     ((INT64_C(26) * 60 + 3) * 60 + 4) * INT64_C(1000000000) + INT64_C(500000000));
    ck_assert_int_eq(db_parse_timespan("00:00:01", &ns), 0);
    ck_assert_int_eq(ns, INT64_C(1000000000));
    ck_assert_int_eq(db_parse_timespan("12 ms", &ns), -1);
    ck_assert_int_eq(db_parse_timespan("00:61:00", &ns), -1);
    ck_assert_int_eq(db_parse_timespan("", &ns), -1);
    /* past int64_t's ns (106,751 days): refused, not overflowed (UBSan) */
    ck_assert_int_eq(db_parse_timespan("106750.23:59:59.9999999", &ns), 0);
    ck_assert_int_eq(db_parse_timespan("99999999.23:59:59.9999999", &ns), -1);
    ck_assert_int_eq(db_parse_timespan("-99999999.00:00:00", &ns), -1);
}
END_TEST

static const char *
norm(const char *sql)
{
    static char buf[1024];
    db_normalize_sql(sql, buf, sizeof(buf));
    return buf;
}

START_TEST(normalize)
{
    ck_assert_str_eq(
        norm("SELECT \"p\".\"Id\"\nFROM \"Posts\" AS \"p\"\nWHERE \"p\".\"BlogId\" = @blog_Id"),
        "SELECT \"p\".\"Id\" FROM \"Posts\" AS \"p\" WHERE \"p\".\"BlogId\" = @blog_Id");
    ck_assert_str_eq(norm("PRAGMA journal_mode = 'wal';"), "PRAGMA journal_mode = ?;");
    ck_assert_str_eq(norm("select * from t1 where a = 42 and b = 'it''s' and c=-3.5"),
                     "select * from t1 where a = ? and b = ? and c=-?");
    ck_assert_str_eq(norm("WHERE id IN (1, 2, 3) OR x in(@ids_0,@ids_1) OR y IN ('a','b')"),
                     "WHERE id IN (...) OR x in (...) OR y IN (...)");
    ck_assert_str_eq(norm("WHERE id IN (SELECT id FROM t)"), "WHERE id IN (SELECT id FROM t)");
    ck_assert_str_eq(norm("  INSERT INTO [dbo].[T] ([A1]) VALUES (@p0)\r\n  "),
                     "INSERT INTO [dbo].[T] ([A1]) VALUES (@p0)");
    ck_assert_str_eq(norm("SELECT $1, :name -- tag 42\nFROM x"),
                     "SELECT $1, :name -- tag 42 FROM x");
    /* the output never overflows a small buffer */
    char small[8];
    size_t n = db_normalize_sql("SELECT * FROM very_long_table_name", small, sizeof(small));
    ck_assert_uint_eq(n, 7);
    ck_assert_str_eq(small, "SELECT ");
}
END_TEST

/* Async commands stop on another thread; pairing is by activity id. */
START_TEST(pair_by_activity_across_threads)
{
    mock_host *mh = new_host(NULL, NULL);
    built b1, b2;
    /* two commands interleaved: A [10,30] started on thread 1, stopped on 7;
     * B [12,15] on thread 2 */
    build(&b1, mh, "Activity2Start", 10 * MS, 1, 0x11, 0, EF, EXECUTING, "CommandText",
          "SELECT COUNT(*) FROM \"Posts\" WHERE \"BlogId\" = @id", "IsAsync", "True",
          (const char *)NULL);
    feed(mh, &b1);
    build(&b2, mh, "Activity2Start", 12 * MS, 2, 0x22, 0, EF, EXECUTING, "CommandText", "SELECT 1",
          "IsAsync", "False", (const char *)NULL);
    feed(mh, &b2);
    build(&b2, mh, "Activity2Stop", 15 * MS, 2, 0x22, 0, EF, EXECUTED, "Duration",
          "00:00:00.0030000", (const char *)NULL);
    feed(mh, &b2);
    build(&b1, mh, "Activity2Stop", 30 * MS, 7, 0x11, 0, EF, EXECUTED, "Duration",
          "00:00:00.0190000", (const char *)NULL);
    feed(mh, &b1);
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 2);
    int r = mock_table_find(t, "command", "SELECT COUNT(*) FROM \"Posts\" WHERE \"BlogId\" = @id");
    ck_assert_int_eq(r, 0); /* most time first */
    ck_near(mock_table_dbl(t, r, "total_ms"), 20.0);
    ck_near(mock_table_dbl(t, r, "ef_duration_ms"), 19.0);
    ck_assert_int_eq(mock_table_int(t, r, "async"), 1);
    ck_near(mock_table_dbl(t, r, "share"), 100.0 * 20 / 23);
    r = mock_table_find(t, "command", "SELECT ?");
    ck_assert_int_eq(r, 1);
    ck_near(mock_table_dbl(t, r, "max_ms"), 3.0);
    ck_assert_str_eq(mock_table_str(t, r, "example"), "SELECT 1");
    int64_t v;
    ck_assert(mock_host_total_int(mh, "commands", &v));
    ck_assert_int_eq(v, 2);
    ck_assert_ptr_null(mock_host_finding(mh, "db.unmatched_starts", NULL));
    ck_assert_ptr_null(mock_host_table(mh, "timeline")); /* off by default */
    mock_host_free(mh);
}
END_TEST

START_TEST(literals_aggregate_percentiles_timeline)
{
    mock_host *mh = new_host("timeline", "true");
    char sql[64];
    /* 20 executions, 1..20 ms, different literals: one command */
    for (int i = 1; i <= 20; i++) {
        snprintf(sql, sizeof(sql), "SELECT * FROM t WHERE id = %d", i * 7);
        ef_command(mh, sql, i * 1000 * MS, i * 1000 * MS + i * MS, 3, 3, (uint8_t)i,
                   "00:00:00.0010000", "False");
    }
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_uint_eq(mock_table_rows(t), 1);
    ck_assert_str_eq(mock_table_str(t, 0, "command"), "SELECT * FROM t WHERE id = ?");
    ck_assert_str_eq(mock_table_str(t, 0, "example"), "SELECT * FROM t WHERE id = 7");
    ck_assert_int_eq(mock_table_int(t, 0, "count"), 20);
    ck_near(mock_table_dbl(t, 0, "total_ms"), 210.0);
    ck_near(mock_table_dbl(t, 0, "mean_ms"), 10.5);
    ck_near(mock_table_dbl(t, 0, "p50_ms"), 10.0); /* nearest rank 10 of 20 */
    ck_near(mock_table_dbl(t, 0, "p95_ms"), 19.0); /* rank 19 */
    ck_near(mock_table_dbl(t, 0, "max_ms"), 20.0);
    const mock_table *tl = mock_host_table(mh, "timeline");
    ck_assert_ptr_nonnull(tl);
    ck_assert_uint_eq(mock_table_rows(tl), 20);
    ck_assert_int_eq(mock_table_int(tl, 0, "start"), 1000 * MS);
    ck_assert_int_eq(mock_table_int(tl, 19, "duration"), 20 * MS);
    ck_assert_int_eq(mock_table_int(tl, 19, "thread"), 3);
    /* a second apart: separate bursts, no N+1 */
    ck_assert_ptr_null(mock_host_finding(mh, "db.n_plus_one", NULL));
    /* EF Duration (1 ms each) is far off the pairs: said, not used */
    const char *msg = mock_host_finding(mh, "db.duration_mismatch", NULL);
    ck_assert_ptr_nonnull(msg);
    mock_host_free(mh);
}
END_TEST

/* Without request boundaries a repeated command is an N+1 only when
 * another command, run at least twice and interleaved with it, drives it. */
START_TEST(n_plus_one_driver)
{
    mock_host *mh = new_host(NULL, NULL);
    uint8_t act = 10;
    for (int p = 0; p < 2; p++) {
        int64_t t = p * 100 * MS;
        ef_command(mh, "SELECT \"b\".\"Id\" FROM \"Blogs\" AS \"b\"", t, t + 2 * MS, 1, 1, act++,
                   "00:00:00.0020000", "False");
        for (int i = 0; i < 12; i++)
            ef_command(
                mh, "SELECT \"p\".\"Id\" FROM \"Posts\" AS \"p\" WHERE \"p\".\"BlogId\" = @blog_Id",
                t + (3 + i * 2) * MS, t + (4 + i * 2) * MS, 1, 1, act++, "00:00:00.0010000",
                "False");
    }
    /* 9 of another command later: under the threshold */
    for (int i = 0; i < 9; i++)
        ef_command(mh, "SELECT x FROM y", (5000 + i) * MS, (5000 + i) * MS + MS / 2, 1, 1,
                   (uint8_t)(100 + i), "00:00:00.0005000", "False");
    finish(mh);
    uint32_t sev;
    const char *msg = mock_host_finding(mh, "db.n_plus_one", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_msg(
        strstr(msg, "WHERE \"p\".\"BlogId\" = @blog_Id\" ran 24 times, 12.0 per execution of") !=
            NULL,
        "%s", msg);
    ck_assert_msg(strstr(msg, "confidence medium") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "--providers Microsoft.AspNetCore.Hosting") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "SELECT x") == NULL, "%s", msg);
    const mock_table *t = mock_host_table(mh, "n_plus_one");
    ck_assert_uint_eq(mock_table_rows(t), 1);
    ck_near(mock_table_dbl(t, 0, "per_request"), 12.0);
    ck_assert_int_eq(mock_table_int(t, 0, "requests"), 2);
    ck_assert_str_eq(mock_table_str(t, 0, "confidence"), "medium");
    mock_host_free(mh);

    /* one parent and no stacks: a loop, or one query per request after a
     * start-up query; no verdict, only the capture that would decide */
    mh = new_host(NULL, NULL);
    ef_command(mh, "SELECT 0", 0, MS, 1, 1, 9, "00:00:00.0010000", "False");
    for (int i = 0; i < 12; i++)
        ef_command(mh, "SELECT 1", (2 + i) * MS, (2 + i) * MS + MS / 2, 1, 1, (uint8_t)(10 + i),
                   "00:00:00.0005000", "False");
    finish(mh);
    ck_assert_ptr_null(mock_host_finding(mh, "db.n_plus_one", NULL));
    msg = mock_host_finding(mh, "db.repeated_command", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_INFO);
    ck_assert_msg(strstr(msg, "confidence low") &&
                      strstr(msg, "--providers Microsoft.AspNetCore.Hosting"),
                  "%s", msg);
    mock_host_free(mh);

    /* the threshold is an option */
    mh = new_host("nplus1", "13");
    for (int i = 0; i < 12; i++)
        ef_command(mh, "SELECT 1", i * MS, i * MS + MS / 2, 1, 1, (uint8_t)(10 + i),
                   "00:00:00.0005000", "False");
    finish(mh);
    ck_assert_ptr_null(mock_host_finding(mh, "db.n_plus_one", NULL));
    ck_assert_ptr_null(mock_host_finding(mh, "db.repeated_command", NULL));
    mock_host_free(mh);
}
END_TEST

/* Overlapping executions come from concurrent flows: one per request looks
 * like a loop, so without request boundaries there is no N+1 verdict. */
START_TEST(n_plus_one_concurrent_without_driver_is_no_verdict)
{
    mock_host *mh = new_host(NULL, NULL);
    for (int i = 0; i < 12; i++) /* 4 ms each, a new one every 2 ms: they overlap */
        ef_command(mh, "SELECT COUNT(*) FROM \"Posts\"", i * 2 * MS, i * 2 * MS + 4 * MS,
                   (uint64_t)(1 + i % 4), (uint64_t)(1 + i % 4), (uint8_t)(10 + i),
                   "00:00:00.0040000", "True");
    finish(mh);
    ck_assert_ptr_null(mock_host_finding(mh, "db.n_plus_one", NULL));
    ck_assert_ptr_null(mock_host_table(mh, "n_plus_one"));
    uint32_t sev;
    const char *msg = mock_host_finding(mh, "db.repeated_command", &sev);
    ck_assert_ptr_nonnull(msg);
    ck_assert_uint_eq(sev, PP_SEVERITY_INFO);
    ck_assert_msg(strstr(msg, "overlapping") && strstr(msg, "no N+1 verdict"), "%s", msg);
    mock_host_free(mh);
}
END_TEST

/* A Hosting RequestStart/RequestStop pair; its activity id is the related
 * id of the commands inside. */
static void
request_event(mock_host *mh, const char *name, int64_t t, uint8_t act)
{
    built b;
    memset(&b.ev, 0, sizeof(b.ev));
    b.ev.struct_size = sizeof(b.ev);
    b.ev.provider_known = PP_PROVIDER_OTHER;
    b.ev.provider = "Microsoft.AspNetCore.Hosting";
    b.ev.name = name;
    b.ev.event_id = strcmp(name, "RequestStart") == 0 ? 3 : 4;
    b.ev.source = mock_host_source(mh);
    b.ev.time_ns = t;
    b.ev.pointer_size = 8;
    b.ev.activity_id.bytes[0] = act;
    b.ev.activity_id.bytes[15] = 0x59;
    feed(mh, &b);
}

static void
ef_in(mock_host *mh, const char *sql, int64_t t0, int64_t t1, uint8_t act, uint8_t req)
{
    built b;
    build(&b, mh, "Activity2Start", t0, 1, act, req, EF, EXECUTING, "CommandText", sql, "IsAsync",
          "True", (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity2Stop", t1, 2, act, 0, EF, EXECUTED, "Duration", "00:00:00.0001000",
          "IsAsync", "True", (const char *)NULL);
    feed(mh, &b);
}

/* With request boundaries: K per request, inside each request, however the
 * requests overlap; a query run once per request is never an N+1. */
START_TEST(n_plus_one_inside_requests)
{
    mock_host *mh = new_host(NULL, NULL);
    uint8_t act = 1;
    /* four concurrent requests (the stop of one arrives before the start of
     * another in the file, as in real traces) */
    for (int r = 0; r < 4; r++)
        request_event(mh, "RequestStart", r * MS, (uint8_t)(200 + r));
    for (int i = 0; i < 11; i++)
        for (int r = 0; r < 4; r++)
            ef_in(mh, "SELECT c FROM p WHERE b = @id", (10 + i * 4 + r) * MS, (11 + i * 4 + r) * MS,
                  act++, (uint8_t)(200 + r));
    for (int r = 0; r < 4; r++)
        request_event(mh, "RequestStop", (100 + r) * MS, (uint8_t)(200 + r));
    /* twelve other requests, one query each, back to back */
    for (int r = 0; r < 12; r++) {
        request_event(mh, "RequestStart", (200 + 3 * r) * MS, (uint8_t)(210 + r));
        ef_in(mh, "SELECT one FROM q", (201 + 3 * r) * MS, (202 + 3 * r) * MS, act++,
              (uint8_t)(210 + r));
        request_event(mh, "RequestStop", (202 + 3 * r) * MS, (uint8_t)(210 + r));
    }
    finish(mh);
    const char *msg = mock_host_finding(mh, "db.n_plus_one", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "\"SELECT c FROM p WHERE b = @id\" ran 11 times per request") != NULL,
                  "%s", msg);
    ck_assert_msg(strstr(msg, "in 4 requests") && strstr(msg, "confidence high"), "%s", msg);
    ck_assert_msg(strstr(msg, "SELECT one") == NULL, "%s", msg);
    ck_assert_ptr_null(mock_host_finding(mh, "db.repeated_command", NULL));
    const mock_table *t = mock_host_table(mh, "n_plus_one");
    ck_assert_uint_eq(mock_table_rows(t), 1);
    ck_assert_str_eq(mock_table_str(t, 0, "group"), "request");
    ck_assert_int_eq(mock_table_int(t, 0, "executions"), 44);
    const mock_table *pr = mock_host_table(mh, "per_request");
    ck_assert_ptr_nonnull(pr);
    ck_assert_uint_eq(mock_table_rows(pr), 1); /* no path field: one unknown route */
    ck_assert_int_eq(mock_table_int(pr, 0, "requests"), 16);
    ck_assert_int_eq(mock_table_int(pr, 0, "commands"), 56);
    ck_assert_int_eq(mock_table_int(pr, 0, "max_per_request"), 11);
    int64_t n;
    ck_assert(mock_host_total_int(mh, "requests", &n));
    ck_assert_int_eq(n, 16);
    mock_host_free(mh);
}
END_TEST

START_TEST(slow_and_unmatched)
{
    mock_host *mh = new_host("slow_ms", "50");
    ef_command(mh, "UPDATE t SET a = 1", 0, 80 * MS, 1, 1, 1, "00:00:00.0800000", "False");
    ef_command(mh, "UPDATE t SET a = 2", 100 * MS, 110 * MS, 1, 1, 2, "00:00:00.0100000", "False");
    built b;
    /* a start whose stop never comes */
    build(&b, mh, "Activity2Start", 200 * MS, 1, 3, 0, EF, EXECUTING, "CommandText",
          "DELETE FROM t", (const char *)NULL);
    feed(mh, &b);
    /* a stop whose start was before the trace */
    build(&b, mh, "Activity2Stop", 210 * MS, 1, 9, 0, EF, EXECUTED, "Duration", "00:00:00.0010000",
          (const char *)NULL);
    feed(mh, &b);
    /* garbage payload */
    build(&b, mh, "Activity2Start", 220 * MS, 1, 4, 0, EF, EXECUTING, (const char *)NULL);
    b.ev.payload_size = 7;
    feed(mh, &b);
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_uint_eq(mock_table_rows(t), 1); /* DELETE never completed */
    ck_assert_int_eq(mock_table_int(t, 0, "count"), 2);
    const char *msg = mock_host_finding(mh, "db.slow_command", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strstr(msg, "1 of 2 executions took over 50 ms (max 80.0 ms)") != NULL, "%s",
                  msg);
    msg = mock_host_finding(mh, "db.unmatched_starts", NULL);
    ck_assert_ptr_nonnull(msg);
    ck_assert_msg(strncmp(msg, "1 command", 9) == 0, "%s", msg);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "db.unmatched_stops", NULL));
    ck_assert_ptr_nonnull(mock_host_finding(mh, "db.undecodable_events", NULL));
    mock_host_free(mh);
}
END_TEST

/* SqlClient's WriteCommandBefore/After inside EF Core's command is the same
 * database call: counted once. */
START_TEST(sqlclient_under_ef_counted_once)
{
    mock_host *mh = new_host(NULL, NULL);
    built b;
    const char *sql = "SELECT [b].[Id] FROM [Blogs] AS [b]";
    build(&b, mh, "Activity2Start", 0, 1, 0x31, 0, EF, EXECUTING, "CommandText", sql,
          (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity1Start", 1 * MS, 1, 0x32, 0x31, "SqlClientDiagnosticListener",
          "System.Data.SqlClient.WriteCommandBefore", "CommandText", sql, (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity1Stop", 9 * MS, 5, 0x32, 0, "SqlClientDiagnosticListener",
          "System.Data.SqlClient.WriteCommandAfter", (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity2Stop", 10 * MS, 5, 0x31, 0, EF, EXECUTED, (const char *)NULL);
    feed(mh, &b);
    /* SqlClient alone (no EF) counts */
    build(&b, mh, "Activity1Start", 20 * MS, 1, 0x41, 0, "SqlClientDiagnosticListener",
          "Microsoft.Data.SqlClient.WriteCommandBefore", "CommandText", "EXEC sp_who",
          (const char *)NULL);
    feed(mh, &b);
    build(&b, mh, "Activity1Stop", 25 * MS, 1, 0x41, 0, "SqlClientDiagnosticListener",
          "Microsoft.Data.SqlClient.WriteCommandAfter", (const char *)NULL);
    feed(mh, &b);
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_uint_eq(mock_table_rows(t), 2);
    int r = mock_table_find(t, "command", sql);
    ck_assert_int_ge(r, 0);
    ck_assert_int_eq(mock_table_int(t, r, "count"), 1);
    ck_near(mock_table_dbl(t, r, "total_ms"), 10.0); /* the outer (EF) interval */
    ck_assert_ptr_null(mock_host_table(mh, "timeline"));
    mock_host_free(mh);
}
END_TEST

START_TEST(no_activity_ids_fallback)
{
    mock_host *mh = new_host(NULL, NULL);
    ef_command(mh, "SELECT 1", 0, 4 * MS, 1, 9, 0, "00:00:00.0040000", "True");
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_command");
    ck_assert_int_eq(mock_table_int(t, 0, "count"), 1); /* paired by ConnectionId */
    ck_near(mock_table_dbl(t, 0, "total_ms"), 4.0);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "db.no_activity_ids", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(no_diagnostic_source_is_not_an_empty_success)
{
    mock_host *mh = new_host(NULL, NULL);
    built b;
    build(&b, mh, "GCAllocationTick", 0, 1, 0, 0, "x", "y", (const char *)NULL);
    b.ev.provider_known = PP_PROVIDER_RUNTIME;
    b.ev.provider = "Microsoft-Windows-DotNETRuntime";
    feed(mh, &b);
    finish(mh);
    uint32_t sev;
    const char *msg = mock_host_finding(mh, "db.no_diagnostic_source", &sev);
    ck_assert_ptr_nonnull(msg);
    /* the wrong capture, not a failed stage: a warning (perfpipe(1) exit 4) */
    ck_assert_uint_eq(sev, PP_SEVERITY_WARNING);
    ck_assert_msg(strstr(msg, "--profile database") != NULL, "%s", msg);
    ck_assert_msg(strstr(msg, "Microsoft.Data.SqlClient") != NULL, "%s", msg);
    ck_assert_ptr_null(mock_host_table(mh, "by_command"));
    mock_host_free(mh);

    /* the provider was on but no command came: also said */
    mh = new_host(NULL, NULL);
    build(&b, mh, "Message", 0, 1, 0, 0, "DiagnosticSource: Enabling", "", (const char *)NULL);
    feed(mh, &b);
    finish(mh);
    ck_assert_ptr_nonnull(mock_host_finding(mh, "db.no_commands", NULL));
    mock_host_free(mh);
}
END_TEST

START_TEST(by_caller_first_user_frame)
{
    mock_host *mh = new_host(NULL, NULL);
    static const mock_symbol syms[] = {
        { 0x1000, 0x100, "Microsoft.EntityFrameworkCore.Storage.RelationalCommand.ExecuteReader" },
        { 0x2000, 0x100, "System.Linq.Enumerable.ToList" },
        { 0x3000, 0x100, "Workload.DbScenario.NPlusOneSync" },
        { 0x4000, 0x100, "Workload.Program.Main" },
    };
    mock_host_set_symbols(mh, syms, 4);
    for (int i = 0; i < 3; i++) {
        built b;
        build(&b, mh, "Activity2Start", i * 10 * MS, 1, (uint8_t)(i + 1), 0, EF, EXECUTING,
              "CommandText", "SELECT 1", (const char *)NULL);
        /* leaf first; an unresolved frame on top */
        b.stack[0] = 0x9999990;
        b.stack[1] = 0x1010;
        b.stack[2] = 0x2020;
        b.stack[3] = 0x3030;
        b.stack[4] = 0x4040;
        b.ev.stack = b.stack;
        b.ev.stack_depth = 5;
        b.ev.stack_id = 1;
        feed(mh, &b);
        build(&b, mh, "Activity2Stop", i * 10 * MS + 2 * MS, 1, (uint8_t)(i + 1), 0, EF, EXECUTED,
              (const char *)NULL);
        feed(mh, &b);
    }
    finish(mh);
    const mock_table *t = mock_host_table(mh, "by_caller");
    ck_assert_ptr_nonnull(t);
    ck_assert_uint_eq(mock_table_rows(t), 1);
    ck_assert_str_eq(mock_table_str(t, 0, "caller"), "Workload.DbScenario.NPlusOneSync");
    ck_assert_int_eq(mock_table_int(t, 0, "count"), 3);
    ck_near(mock_table_dbl(t, 0, "total_ms"), 6.0);
    mock_host_free(mh);
}
END_TEST

static Suite *
suite(void)
{
    Suite *s = suite_create("plugin_db");
    TCase *tc = tcase_create("db");
    tcase_add_test(tc, decode_real_layout);
    tcase_add_test(tc, timespan);
    tcase_add_test(tc, normalize);
    tcase_add_test(tc, pair_by_activity_across_threads);
    tcase_add_test(tc, literals_aggregate_percentiles_timeline);
    tcase_add_test(tc, n_plus_one_driver);
    tcase_add_test(tc, n_plus_one_concurrent_without_driver_is_no_verdict);
    tcase_add_test(tc, n_plus_one_inside_requests);
    tcase_add_test(tc, slow_and_unmatched);
    tcase_add_test(tc, sqlclient_under_ef_counted_once);
    tcase_add_test(tc, no_activity_ids_fallback);
    tcase_add_test(tc, no_diagnostic_source_is_not_an_empty_success);
    tcase_add_test(tc, by_caller_first_user_frame);
    suite_add_tcase(s, tc);
    return s;
}

int
main(void)
{
    SRunner *sr = srunner_create(suite());
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
