/* Private: the pieces of the dotnet-counters reader, shared by its files. */
#ifndef PP_CORE_COUNTERS_PRIVATE_H
#define PP_CORE_COUNTERS_PRIVATE_H

#include <stdint.h>
#include <locale.h>
#include <stdio.h>

#include <perfpipe/counters.h>

/* Longest CSV line / JSON string we accept: far above any real counter
 * row, small enough that a garbage file cannot make us allocate much. */
#define PP_COUNTERS_MAX_TEXT (1u << 20)

/* ---- stream.c: buffered input with position tracking ------------------ */

typedef struct pp_cstream {
    FILE *fp;           /* NULL for memory input */
    const uint8_t *buf; /* current chunk */
    uint8_t *own;       /* chunk storage for file input */
    size_t len, pos;
    int64_t base;          /* file offset of buf[0] */
    uint32_t line, column; /* 1-based position of the next byte */
    int eof, ioerr;
    int mem_done; /* memory input handed out already */
    const uint8_t *mem;
    size_t mem_len;
    void (*on_bytes)(void *user, const void *data, size_t len);
    void *user;
} pp_cstream;

int pp_cstream_init_file(pp_cstream *s, FILE *fp);
void pp_cstream_init_memory(pp_cstream *s, const void *data, size_t len);
void pp_cstream_release(pp_cstream *s);
/* Refill; returns the next byte, -1 at end, -2 on a read error. */
int pp_cstream_fill(pp_cstream *s);

static inline int
pp_cstream_peek(pp_cstream *s)
{
    if (s->pos < s->len)
        return s->buf[s->pos];
    return pp_cstream_fill(s);
}

static inline int
pp_cstream_get(pp_cstream *s)
{
    int c = pp_cstream_peek(s);

    if (c < 0)
        return c;
    s->pos++;
    if (c == '\n') {
        s->line++;
        s->column = 1;
    } else {
        s->column++;
    }
    return c;
}

static inline int64_t
pp_cstream_offset(const pp_cstream *s)
{
    return s->base + (int64_t)s->pos;
}

/* ---- growable text buffer ---------------------------------------------- */

typedef struct pp_ctext {
    char *p;
    size_t len, cap;
} pp_ctext;

int pp_ctext_putc(pp_ctext *t, char c); /* PP_OK, PP_ENOMEM, PP_ELIMIT */
int pp_ctext_append(pp_ctext *t, const char *s, size_t n);
void pp_ctext_free(pp_ctext *t);

static inline const char *
pp_ctext_str(const pp_ctext *t)
{
    return t->p != NULL ? t->p : "";
}

static inline void
pp_ctext_reset(pp_ctext *t)
{
    t->len = 0;
    if (t->p != NULL)
        t->p[0] = '\0';
}

/* ---- timestamp.c ------------------------------------------------------- */

#define PP_DATE_ORDER_UNKNOWN 0
#define PP_DATE_ORDER_MDY     1
#define PP_DATE_ORDER_DMY     2

/* Parse a dotnet-counters timestamp in any culture the tool may have used:
 * "11/29/2026 15:22:16", "29.11.2026 15:22:16", "29/11/2026 3:22:16 PM",
 * "2026-11-29 15:22:16", "2026-11-29T15:22:21.2193116+00:00". *order is the
 * file's day/month order for slash dates: used when a date is ambiguous,
 * set by the first unambiguous one. Without a zone the time is read as UTC.
 * Returns PP_OK or PP_EFORMAT (*bad_at = index of the offending char). */
int pp_counters_parse_time(const char *s, int *order, int64_t *unix_ns, size_t *bad_at);

/* ---- names.c ------------------------------------------------------------- */

/* The parts of a display name "name (unit / N sec)[tags]". Pointers into
 * a copy owned by the caller's scratch text. */
typedef struct pp_counter_name {
    const char *name;
    const char *unit;     /* normalized */
    const char *raw_tags; /* ';'-separated as in CSV, "" if none */
    double interval_s;    /* from "/ N sec", 0 if none */
    double scale;         /* multiply values by this (MB -> B) */
} pp_counter_name;

/* Split display (modified in place). provider decides unit scaling. */
void pp_counters_split_name(char *display, const char *provider, pp_counter_name *out);

/* Append the tags of each source (separated by sep) to out, canonical:
 * trimmed, empty items dropped, sorted, joined by ';'. */
int pp_counters_canon_tags(pp_ctext *out, const char *const *sources, const char *seps,
                           size_t nsources);

/* Parse a counter value: invariant "1234.5", "1e-05", bare NaN/Infinity,
 * or comma-decimal "0,0079" when comma_decimal. PP_OK or PP_EFORMAT. */
int pp_counters_parse_value(const char *s, int comma_decimal, locale_t c_locale, double *out);

/* ---- reader.c ------------------------------------------------------------ */

struct pp_counters_reader {
    pp_cstream in;
    char *name; /* path or caller's name, for messages */
    uint32_t format;
    int status;     /* 0 running, 1 ended, < 0 sticky error */
    pp_error saved; /* the sticky error */
    int truncated;
    int date_order;
    int have_t0;
    int64_t t0_unix_ns;
    uint64_t samples;
    locale_t c_locale; /* numbers are Invariant, whatever the process locale */
    void (*on_warning)(void *user, const pp_error *warning);
    void *user;

    /* CSV */
    pp_ctext line;
    uint32_t line_no;
    /* JSON */
    int json_state; /* see json.c */
    pp_ctext target_process;
    pp_ctext start_time;
    pp_ctext key, sval;
    pp_ctext f_time, f_provider, f_name, f_tags, f_meter, f_instr, f_type, f_value;
    /* the current sample's strings */
    pp_ctext scratch; /* split display name lives here */
    pp_ctext tags;
    char *provider_s;
    pp_counter_sample api_sample; /* reader_api.c: the sample next lends out */
    /* Row anomalies (reader.c): the latest time read, rows before it. */
    int64_t last_time_ns;
    uint64_t backwards;
};

/* ---- sample.c: below reader.c, csv.c and json.c ------------------------ */

/* Emit a warning through the hook with the current position. */
void pp_counters_warn(pp_counters_reader *r, int32_t code, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* Fill err with "NAME:LINE:COL: message" at the stream position. */
int pp_counters_fail(pp_counters_reader *r, pp_error *err, int32_t code, uint32_t line,
                     uint32_t column, int64_t offset, const char *fmt, ...)
    __attribute__((format(printf, 7, 8)));

/* Build *out from the textual fields of one row/event (any may be "" but
 * not NULL). tag sources: CSV passes the tags split off the display name;
 * JSON passes tags, meterTags, instrumentTags. Returns PP_OK or a code with
 * a message in msg (no position: the caller adds it). */
int pp_counters_make_sample(pp_counters_reader *r, const char *timestamp, const char *provider,
                            char *display, const char *const *tag_sources, const char *tag_seps,
                            size_t ntag_sources, const char *ctype, double value, int from_json,
                            pp_counter_sample *out, char *msg, size_t msgsize);

/* ---- csv.c / json.c -------------------------------------------------------- */

int pp_counters_csv_header(pp_counters_reader *r, pp_error *err);
int pp_counters_csv_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err);
int pp_counters_json_header(pp_counters_reader *r, pp_error *err);
int pp_counters_json_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err);

#endif
