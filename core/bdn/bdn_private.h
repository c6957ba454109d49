/* Private to core/bdn: the reader's state, shared by the JSON and CSV walks
 * (json.c, csv.c) and the common part (reader.c). */
#ifndef PP_CORE_BDN_PRIVATE_H
#define PP_CORE_BDN_PRIVATE_H

#include <jansson.h>

#include "bdn/bdn.h"

struct pp_bdn_reader {
    char *buf;
    size_t len;
    char *name;
    uint32_t form;
    size_t pos;  /* next byte to read */
    int started; /* JSON: inside the Benchmarks array; CSV: header read */
    int done;
    int failed; /* sticky error code, 0 if none */
    pp_error failure;
    int64_t truncated_at;
    int has_warning;
    pp_error warning;
    uint64_t count;
    /* run facts (owned) */
    char *title, *bdn_version, *runtime_version, *configuration;
    int32_t has_debugger;
    /* the current case */
    pp_bench_result cur;
    json_t *cur_json;  /* JSON: the element the strings point into */
    char *cur_strings; /* strings built for the current case (owned) */
    size_t cur_strings_cap;
    pp_bench_measurement *meas;
    uint32_t meas_cap;
    /* CSV: the header's columns */
    uint32_t ncols;
    char **cols;
    char sep; /* ',' (invariant culture), ';' or '\t' */
};

/* Fail with "NAME:LINE:COLUMN: message" about byte `offset`; sticky. */
int pp_bdn_fail(pp_bdn_reader *r, pp_error *err, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));

/* Record the truncation warning (no error). */
void pp_bdn_truncated(pp_bdn_reader *r, size_t offset, const char *what);

/* Copy `s` (NUL-terminated) into owned storage; NULL when out of memory. */
char *pp_bdn_strdup(const char *s);

int pp_bdn_json_next(pp_bdn_reader *r, pp_error *err); /* 1, 0, < 0 */
int pp_bdn_csv_next(pp_bdn_reader *r, pp_error *err);

#endif
