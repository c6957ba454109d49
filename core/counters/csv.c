/* dotnet-counters CSV: "Timestamp,Provider,Counter Name,Counter Type,
 * Mean/Increment", one row per sample. No quoting: the tool turns commas in
 * tags into ';'. Older tools wrote the machine's culture, so a value may
 * use a comma decimal separator ("0,0079") and become two fields; the
 * counter type column ("Metric"/"Rate") anchors the split. */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "counters/counters_private.h"

#define CSV_MAX_FIELDS 64

/* One physical line into r->line, without '\n' and trailing '\r'.
 * 1 = got a line, 0 = end of input, < 0 = error (err filled). */
static int
read_line(pp_counters_reader *r, int *newline, pp_error *err)
{
    int c, rc;
    int64_t start = pp_cstream_offset(&r->in);

    pp_ctext_reset(&r->line);
    pp_ctext_append(&r->line, "", 0);
    *newline = 0;
    r->line_no = r->in.line;
    for (;;) {
        c = pp_cstream_get(&r->in);
        if (c == -1)
            break;
        if (c == -2)
            return pp_counters_fail(r, err, PP_EIO, 0, 0, pp_cstream_offset(&r->in),
                                    "read error: %s", strerror(errno));
        if (c == '\n') {
            *newline = 1;
            break;
        }
        rc = pp_ctext_putc(&r->line, (char)c);
        if (rc == PP_ELIMIT)
            return pp_counters_fail(r, err, PP_ELIMIT, r->line_no, 1, start,
                                    "line longer than %u bytes: not a dotnet-counters CSV",
                                    (unsigned)PP_COUNTERS_MAX_TEXT);
        if (rc != PP_OK)
            return pp_counters_fail(r, err, rc, 0, 0, start, "out of memory");
        if (c == '\0')
            return pp_counters_fail(r, err, PP_EFORMAT, r->line_no, r->in.column - 1,
                                    pp_cstream_offset(&r->in) - 1,
                                    "NUL byte in a text file: not a dotnet-counters CSV");
    }
    if (r->line.len > 0 && r->line.p[r->line.len - 1] == '\r')
        r->line.p[--r->line.len] = '\0';
    if (c == -1 && r->line.len == 0)
        return 0;
    return 1;
}

int
pp_counters_csv_header(pp_counters_reader *r, pp_error *err)
{
    static const char want[] = "Timestamp,Provider,Counter Name,Counter Type";
    int newline, rc = read_line(r, &newline, err);

    if (rc < 0)
        return rc;
    if (rc == 0 || strncmp(r->line.p, want, sizeof want - 1) != 0)
        return pp_counters_fail(r, err, PP_EFORMAT, r->line_no, 1, 0,
                                "expected the dotnet-counters CSV header "
                                "\"Timestamp,Provider,Counter Name,Counter Type,Mean/Increment\"");
    return PP_OK;
}

static int
is_counter_type(const char *s)
{
    return strcmp(s, "Metric") == 0 || strcmp(s, "Rate") == 0 || strcmp(s, "Mean") == 0 ||
           strcmp(s, "Sum") == 0 || strcmp(s, "Increment") == 0;
}

int
pp_counters_csv_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err)
{
    char *f[CSV_MAX_FIELDS], msg[PP_ERROR_MESSAGE_MAX];
    size_t nf, k, nvalue;
    int newline, rc;
    double value;
    int64_t line_off;

    for (;;) {
        line_off = pp_cstream_offset(&r->in);
        rc = read_line(r, &newline, err);
        if (rc <= 0)
            return rc;
        if (r->line.len == 0)
            continue;
        if (!newline) {
            /* The tool writes whole rows ending in '\n' and flushes in
             * 10,000-char blocks: a last row without one was cut when the
             * tool was killed. */
            r->truncated = 1;
            pp_counters_warn(r, PP_EFORMAT,
                             "line %u: the last row has no end of line (dotnet-counters "
                             "was stopped while writing); row ignored",
                             (unsigned)r->line_no);
            return 0;
        }
        break;
    }
    nf = 0;
    f[nf++] = r->line.p;
    for (char *p = r->line.p; *p != '\0'; p++) {
        if (*p == ',') {
            if (nf == CSV_MAX_FIELDS)
                return pp_counters_fail(r, err, PP_EFORMAT, r->line_no,
                                        (uint32_t)(p - r->line.p) + 1, line_off + (p - r->line.p),
                                        "more than %d fields: not a dotnet-counters row",
                                        CSV_MAX_FIELDS);
            *p = '\0';
            f[nf++] = p + 1;
        }
    }
    if (nf < 5)
        return pp_counters_fail(r, err, PP_EFORMAT, r->line_no, 1, line_off,
                                "expected 5 fields (Timestamp,Provider,Counter Name,"
                                "Counter Type,Mean/Increment), got %zu",
                                nf);
    /* The counter type is the last field followed by one value field, or by
     * two when the value was written with a comma decimal separator. */
    k = 0;
    for (size_t i = nf - 1; i >= 3; i--) {
        if (nf - 1 - i > 2)
            break;
        if (nf - 1 - i >= 1 && is_counter_type(f[i])) {
            k = i;
            break;
        }
    }
    if (k == 0) {
        size_t i = nf >= 2 ? nf - 2 : 0;
        return pp_counters_fail(r, err, PP_EFORMAT, r->line_no, (uint32_t)(f[i] - r->line.p) + 1,
                                line_off + (f[i] - r->line.p),
                                "expected counter type \"Metric\" or \"Rate\" before the value, "
                                "got \"%.40s\"",
                                f[i]);
    }
    for (size_t i = 3; i < k; i++)
        f[i][-1] = ','; /* a name with commas: join it back */
    nvalue = nf - 1 - k;
    if (nvalue == 2)
        f[k + 2][-1] = ',';
    if (pp_counters_parse_value(f[k + 1], nvalue == 2, r->c_locale, &value) != PP_OK)
        return pp_counters_fail(
            r, err, PP_EFORMAT, r->line_no, (uint32_t)(f[k + 1] - r->line.p) + 1,
            line_off + (f[k + 1] - r->line.p), "expected a number, got \"%.40s\"", f[k + 1]);
    rc = pp_counters_make_sample(r, f[0], f[1], f[2], NULL, NULL, 0, f[k], value, 0, out, msg,
                                 sizeof msg);
    if (rc != PP_OK)
        return pp_counters_fail(r, err, rc, r->line_no, 1, line_off, "%s", msg);
    return 1;
}
