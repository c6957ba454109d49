/* Human units for the text renderers. Decimal SI (1 KB = 1000 B) because
 * the runtime's own counters and dotnet-counters report decimal MB, and
 * three significant digits because more is noise for a person comparing
 * two runs (JSON and CSV keep the exact integers). */
#include "config.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "result/result.h"

/* Print |v| (>= 1 after scaling, < 1000) with three significant digits and
 * the unit; the caller has already promoted values that would round to
 * 1000 to the next unit. */
static void
sig3(char *buf, size_t size, const char *sign, double v, const char *unit)
{
    if (v < 9.995)
        snprintf(buf, size, "%s%.2f %s", sign, v, unit);
    else if (v < 99.95)
        snprintf(buf, size, "%s%.1f %s", sign, v, unit);
    else
        snprintf(buf, size, "%s%.0f %s", sign, v, unit);
}

/* Scale v through units of factor 1000 and print it. units[0] is printed
 * as an integer (bytes, nanoseconds are whole); `last` is the index of the
 * largest unit, beyond which the value just grows. */
static void
scaled(char *buf, size_t size, double v, const char *const *units, int last)
{
    const char *sign = "";
    int u = 0;

    if (size == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, size, "-");
        return;
    }
    if (v < 0) {
        sign = "-";
        v = -v;
    }
    if (v < 999.5) {
        if (v < 0.5)
            sign = ""; /* never "-0 B" */
        snprintf(buf, size, "%s%.0f %s", sign, v, units[0]);
        return;
    }
    /* Promote while the 3-digit rounding would show 1000 or more. */
    while (u < last && v >= 999.5) {
        v /= 1000.0;
        u++;
    }
    if (u == last && v >= 999.5) {
        snprintf(buf, size, "%s%.0f %s", sign, v, units[u]);
        return;
    }
    sig3(buf, size, sign, v, units[u]);
}

void
pp_format_bytes(char *buf, size_t size, double bytes)
{
    static const char *const units[] = { "B", "KB", "MB", "GB", "TB", "PB", "EB" };
    scaled(buf, size, bytes, units, 6);
}

void
pp_format_duration_ns(char *buf, size_t size, double ns)
{
    static const char *const units[] = { "ns", "us", "ms", "s" };
    scaled(buf, size, ns, units, 3);
}

/* Insert thousands separators into the digits of `digits` (no sign). */
static void
group_digits(char *buf, size_t size, const char *sign, const char *digits, const char *tail)
{
    char tmp[512];
    size_t n = strlen(digits), o = 0;

    for (size_t i = 0; i < n && o + 2 < sizeof tmp; i++) {
        if (i > 0 && (n - i) % 3 == 0)
            tmp[o++] = ',';
        tmp[o++] = digits[i];
    }
    tmp[o] = '\0';
    snprintf(buf, size, "%s%s%s", sign, tmp, tail);
}

void
pp_format_count(char *buf, size_t size, int64_t n)
{
    char digits[32];
    /* INT64_MIN has no positive int64: go through uint64. */
    uint64_t mag = n < 0 ? (uint64_t)0 - (uint64_t)n : (uint64_t)n;

    if (size == 0)
        return;
    snprintf(digits, sizeof digits, "%" PRIu64, mag);
    group_digits(buf, size, n < 0 ? "-" : "", digits, "");
}

void
pp_format_percent(char *buf, size_t size, double pct)
{
    if (size == 0)
        return;
    if (!isfinite(pct)) {
        snprintf(buf, size, "-");
        return;
    }
    if (fabs(pct) < 0.05)
        pct = 0.0; /* never "-0.0%" */
    snprintf(buf, size, fabs(pct) < 1e6 ? "%.1f%%" : "%.3g%%", pct);
}

void
pp_format_timestamp_ns(char *buf, size_t size, int64_t ns)
{
    char digits[32];
    uint64_t mag = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    /* Round to 0.1 ms = 100000 ns, half up, in integers: exact at any size. */
    uint64_t tenths = mag / 100000u + (mag % 100000u >= 50000u ? 1 : 0);
    char tail[16];

    if (size == 0)
        return;
    snprintf(digits, sizeof digits, "%" PRIu64, tenths / 10u);
    snprintf(tail, sizeof tail, ".%u ms", (unsigned)(tenths % 10u));
    group_digits(buf, size, (ns < 0 && tenths > 0) ? "-" : "", digits, tail);
}

void
pp_format_number(char *buf, size_t size, double v)
{
    double a;

    if (size == 0)
        return;
    if (!isfinite(v)) {
        snprintf(buf, size, "-");
        return;
    }
    a = fabs(v);
    if (a < 0.00005) {
        snprintf(buf, size, "0");
        return;
    }
    if (a >= 1e18) {
        /* past int64_t: only a damaged or hand-made document gets here,
         * and 400 grouped digits would say less than an exponent */
        snprintf(buf, size, "%.3g", v);
        return;
    }
    if (a >= 999.5) {
        /* Whole, grouped: exact as long as the double holds the integer. */
        char digits[400];
        snprintf(digits, sizeof digits, "%.0f", a);
        group_digits(buf, size, v < 0 ? "-" : "", digits, "");
        return;
    }
    /* 4 significant digits, fixed point, trailing zeros dropped. */
    {
        int prec = a >= 99.995     ? 1 :
                   a >= 9.9995     ? 2 :
                   a >= 0.99995    ? 3 :
                   a >= 0.099995   ? 4 :
                   a >= 0.0099995  ? 5 :
                   a >= 0.00099995 ? 6 :
                                     7;
        char *dot, *end;
        snprintf(buf, size, "%.*f", prec, v);
        if ((dot = strchr(buf, '.')) != NULL) {
            end = buf + strlen(buf);
            while (end > dot + 1 && end[-1] == '0')
                *--end = '\0';
            if (end == dot + 1)
                *dot = '\0';
        }
    }
}
