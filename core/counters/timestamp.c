/* Timestamps as dotnet-counters writes them. CSV rows carry
 * DateTime.ToString() of the tool's culture (Invariant since 2025, the
 * machine's before: dd.MM.yyyy, dd/MM/yyyy, 12-hour clocks...), JSON carries
 * ISO-8601 with an offset. Only differences between samples matter, so a
 * zone-less time is read as UTC. */
#include "config.h"

#include <ctype.h>
#include <string.h>

#include "counters/counters_private.h"

/* Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant). */
static int64_t
days_from_civil(int64_t y, unsigned m, unsigned d)
{
    int64_t era;
    unsigned yoe, doy, doe;

    y -= m <= 2;
    era = (y >= 0 ? y : y - 399) / 400;
    yoe = (unsigned)(y - era * 400);
    doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
    doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + (int64_t)doe - 719468;
}

/* Up to maxd digits at *i; returns the count read (0 = none). */
static int
digits(const char *s, size_t *i, int maxd, int64_t *out)
{
    int n = 0;
    int64_t v = 0;

    while (n < maxd && isdigit((unsigned char)s[*i])) {
        v = v * 10 + (s[*i] - '0');
        (*i)++;
        n++;
    }
    *out = v;
    return n;
}

static int
days_in_month(int64_t y, int64_t m)
{
    static const int dm[12] = { 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31 };
    int leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;

    return m == 2 ? 28 + leap : dm[m - 1];
}

int
pp_counters_parse_time(const char *s, int *order, int64_t *unix_ns, size_t *bad_at)
{
    size_t i = 0;
    int64_t a, b, c, y, mo, d, h, mi, se = 0, frac = 0, off_min = 0;
    int na, nb, nc, nf = 0;
    char sep;

    while (s[i] == ' ')
        i++;
    na = digits(s, &i, 4, &a);
    if (na == 0)
        goto bad;
    sep = s[i];
    if (sep != '/' && sep != '.' && sep != '-')
        goto bad;
    i++;
    nb = digits(s, &i, 2, &b);
    if (nb == 0 || s[i] != sep)
        goto bad;
    i++;
    nc = digits(s, &i, 4, &c);
    if (nc == 0)
        goto bad;
    if (na == 4) {
        y = a;
        mo = b;
        d = c;
    } else {
        if (nc != 4)
            goto bad; /* two-digit years: not a culture the tool used */
        y = c;
        if (sep != '/') {
            mo = b;
            d = a; /* dd.MM.yyyy, dd-MM-yyyy */
        } else {
            int o = *order;
            if (a > 12)
                o = PP_DATE_ORDER_DMY;
            else if (b > 12)
                o = PP_DATE_ORDER_MDY;
            if (o != PP_DATE_ORDER_UNKNOWN && a != b && (a > 12 || b > 12))
                *order = o;
            if (o == PP_DATE_ORDER_UNKNOWN)
                o = PP_DATE_ORDER_MDY; /* Invariant culture */
            if (o == PP_DATE_ORDER_DMY) {
                d = a;
                mo = b;
            } else {
                mo = a;
                d = b;
            }
        }
    }
    if (s[i] == '.') /* "29.11.2026." (some cultures) */
        i++;
    if (mo < 1 || mo > 12 || d < 1 || d > days_in_month(y, mo))
        goto bad;
    if (s[i] != ' ' && s[i] != 'T')
        goto bad;
    while (s[i] == ' ' || s[i] == 'T')
        i++;
    if (digits(s, &i, 2, &h) == 0 || s[i] != ':')
        goto bad;
    i++;
    if (digits(s, &i, 2, &mi) != 2)
        goto bad;
    if (s[i] == ':') {
        i++;
        if (digits(s, &i, 2, &se) != 2)
            goto bad;
        if (s[i] == '.' || s[i] == ',') {
            i++;
            while (isdigit((unsigned char)s[i])) {
                if (nf < 9) {
                    frac = frac * 10 + (s[i] - '0');
                    nf++;
                }
                i++;
            }
            if (nf == 0)
                goto bad;
            for (int k = nf; k < 9; k++)
                frac *= 10;
        }
    }
    while (s[i] == ' ')
        i++;
    /* 12-hour clock: en-US "3:22:16 PM" (older tools, machine culture). */
    if ((s[i] == 'A' || s[i] == 'a' || s[i] == 'P' || s[i] == 'p') &&
        (s[i + 1] == 'M' || s[i + 1] == 'm')) {
        int pm = s[i] == 'P' || s[i] == 'p';
        if (h < 1 || h > 12)
            goto bad;
        h = h % 12 + (pm ? 12 : 0);
        i += 2;
        while (s[i] == ' ')
            i++;
    }
    if (h > 23 || mi > 59 || se > 60)
        goto bad;
    if (s[i] == 'Z') {
        i++;
    } else if (s[i] == '+' || s[i] == '-') {
        int neg = s[i] == '-';
        int64_t oh, om = 0;
        i++;
        if (digits(s, &i, 2, &oh) != 2)
            goto bad;
        if (s[i] == ':')
            i++;
        if (isdigit((unsigned char)s[i]) && digits(s, &i, 2, &om) != 2)
            goto bad;
        if (oh > 14 || om > 59)
            goto bad;
        off_min = (oh * 60 + om) * (neg ? -1 : 1);
    }
    while (s[i] == ' ')
        i++;
    if (s[i] != '\0')
        goto bad;
    /* ns since 1970 in int64 (and differences of two of them) must not
     * overflow: captures are recent, so 1970..2261 is plenty. */
    if (y < 1970 || y > 2261)
        goto bad;
    {
        int64_t secs = days_from_civil(y, (unsigned)mo, (unsigned)d) * 86400 + h * 3600 + mi * 60 +
                       se - off_min * 60;
        *unix_ns = secs * INT64_C(1000000000) + frac;
    }
    return PP_OK;
bad:
    *bad_at = i;
    return PP_EFORMAT;
}
