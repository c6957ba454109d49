/* Private to core/load: the reader's state, shared by the format walks
 * (text.c, json.c, k6_stream.c) and the common part (reader.c, util.c). */
#ifndef PP_CORE_LOAD_PRIVATE_H
#define PP_CORE_LOAD_PRIVATE_H

#include <jansson.h>

#include "load/load.h"

/* One result being built: the record and its growing arrays. */
typedef struct load_entry {
    pp_load_result res;
    pp_load_count *st;
    pp_load_count *ek;
    pp_load_threshold *th;
    double *samples;
    uint32_t st_cap, ek_cap, th_cap, samples_cap;
} load_entry;

struct pp_load_reader {
    char *buf;
    size_t len;
    char *name;
    const char *format; /* static strings */
    const char *tool;
    load_entry **entries; /* [0] is the whole run */
    size_t nentries, entries_cap;
    size_t next;
    char **strings; /* owned strings the records point to */
    size_t nstrings, strings_cap;
    int failed;
    pp_error failure;
    int64_t truncated_at;
    int has_warning;
    pp_error warning;
};

/* Fail with "NAME:LINE:COLUMN: message" about byte `offset`; sticky. */
int pp_load_fail(pp_load_reader *r, pp_error *err, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Record the truncation warning (no error): `what` says what was cut. */
void pp_load_truncated(pp_load_reader *r, size_t offset, const char *what);

/* An owned copy of s[0..n) (n = (size_t)-1: strlen), or NULL when out of memory. */
const char *pp_load_str(pp_load_reader *r, const char *s, size_t n);

/* A new result with every figure unknown, appended; NULL when out of
 * memory or past PP_LOAD_MAX_SCOPES. */
load_entry *pp_load_entry(pp_load_reader *r, const char *scope);

/* The entry of `scope` (created when missing), or NULL as above. */
load_entry *pp_load_scope(pp_load_reader *r, const char *scope);

/* Add to a status / error-kind count of e (same name: summed). PP_OK, PP_ENOMEM, PP_ELIMIT. */
int pp_load_add_status(pp_load_reader *r, load_entry *e, const char *name, int64_t count);
int pp_load_add_error_kind(pp_load_reader *r, load_entry *e, const char *name, int64_t count);
int pp_load_add_threshold(pp_load_reader *r, load_entry *e, const char *metric, const char *expr,
                          int failed);
int pp_load_add_sample(load_entry *e, double ns);

/* The sample's percentile p (0..100, nearest rank on the sorted samples);
 * sorts e->samples. NaN without samples. */
double pp_load_sample_percentile(load_entry *e, double p);

/* Fill the latency figures of e from its samples (min, max, mean, stdev,
 * percentiles), where the tool gave none. */
void pp_load_from_samples(load_entry *e);

/* A finite number from a JSON value (integer or real), else NaN. */
double pp_load_json_num(const json_t *v);

/* RFC 3339 with optional fraction and offset, as Go writes it (k6,
 * vegeta), to exact nanoseconds since the epoch in *ns; 0 when it does not
 * parse. */
int pp_load_rfc3339_ns(const char *s, int64_t *ns);

/* One parsed line of a JSON-lines input: PP_OK, or PP_EFORMAT / PP_ELIMIT /
 * PP_ENOMEM (pp_load_json_lines then fails with `expected` or the limit). */
typedef int (*pp_load_line_fn)(pp_load_reader *r, void *ctx, const json_t *line);

/* Walk r's JSON lines (k6 --out json, vegeta encode): blank lines skipped,
 * a last line without its newline dropped and flagged, a line that is not
 * JSON or that `each` refuses is "NAME:L:C: WHAT line: ..." (`what` names
 * the format, `expected` says what a line should be). PP_OK or the code. */
int pp_load_json_lines(pp_load_reader *r, const char *what, const char *expected,
                       pp_load_line_fn each, void *ctx, pp_error *err);

/* The walks: PP_OK or a PP_E* code with err filled (through pp_load_fail). */
int pp_load_wrk_text(pp_load_reader *r, pp_error *err);
int pp_load_hey_text(pp_load_reader *r, pp_error *err);
int pp_load_hey_csv(pp_load_reader *r, pp_error *err);
int pp_load_json(pp_load_reader *r, size_t start, pp_error *err);
int pp_load_k6_stream(pp_load_reader *r, pp_error *err);
int pp_load_vegeta_lines(pp_load_reader *r, pp_error *err);
/* The wrk-json object (wrk-json.lua) parsed as `root` into the run entry. */
int pp_load_wrk_json(pp_load_reader *r, const json_t *root, size_t at, pp_error *err);

#endif
