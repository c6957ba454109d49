/* The text dotnet-counters packs into one counter cell: display name, unit,
 * rate interval and tags ("name (By / 1 sec)[k=v;k=v]"), and its values. */
#include "config.h"

#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "counters/counters_private.h"

static char *
trim(char *s)
{
    size_t n;

    while (*s == ' ' || *s == '\t')
        s++;
    n = strlen(s);
    while (n > 0 && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        s[--n] = '\0';
    return s;
}

/* "By / 1 sec" -> unit "By", interval 1. Returns 1 if it was a rate unit. */
static int
split_rate_unit(char *u, double *interval)
{
    char *slash = strstr(u, " / ");
    char *end;
    double n;

    if (slash == NULL)
        return 0;
    n = strtod(slash + 3, &end);
    if (end == slash + 3 || strcmp(end, " sec") != 0 || !(n > 0))
        return 0;
    *slash = '\0';
    *interval = n;
    return 1;
}

void
pp_counters_split_name(char *display, const char *provider, pp_counter_name *out)
{
    char *tags = NULL, *p, *name, *unit = NULL;
    size_t n;

    out->raw_tags = "";
    out->interval_s = 0;
    out->scale = 1;
    n = strlen(display);
    if (n > 0 && display[n - 1] == ']') {
        p = strstr(display, ")[");
        p = p != NULL ? p + 1 : strchr(display, '[');
        if (p != NULL) {
            display[n - 1] = '\0';
            *p = '\0';
            tags = p + 1;
        }
    }
    name = trim(display);
    n = strlen(name);
    if (n > 0 && name[n - 1] == ')') {
        int depth = 0;
        for (size_t i = n; i-- > 0;) {
            if (name[i] == ')') {
                depth++;
            } else if (name[i] == '(' && --depth == 0) {
                if (i > 0 && name[i - 1] == ' ') {
                    name[n - 1] = '\0';
                    name[i - 1] = '\0';
                    unit = trim(name + i + 1);
                    name = trim(name);
                }
                break;
            }
        }
    }
    out->name = name;
    if (unit == NULL)
        unit = name + strlen(name); /* "" */
    split_rate_unit(unit, &out->interval_s);
    unit = trim(unit);
    if (strcmp(unit, "By") == 0) {
        unit = (char *)"B";
    } else if (strcmp(unit, "MB") == 0 && strcmp(provider, "System.Runtime") == 0) {
        unit = (char *)"B"; /* RuntimeEventSource divides by 1,000,000 */
        out->scale = 1e6;
    } else if (strcmp(unit, "Count") == 0 || (unit[0] == '{' && unit[strlen(unit) - 1] == '}')) {
        unit = (char *)"";
    }
    out->unit = unit;
    out->raw_tags = tags != NULL ? tags : "";
}

static int
cmp_str(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

int
pp_counters_canon_tags(pp_ctext *out, const char *const *sources, const char *seps, size_t nsources)
{
    size_t total = 0, nitems = 0, cap = 0;
    char *copy, *w, **items;
    int rc = PP_OK;

    pp_ctext_reset(out);
    /* Fast path, most rows: at most one tag, nothing to split or sort. */
    {
        size_t nonempty = 0, which = 0;
        for (size_t k = 0; k < nsources; k++)
            if (sources[k][0] != '\0') {
                nonempty++;
                which = k;
            }
        if (nonempty == 0)
            return pp_ctext_append(out, "", 0);
        if (nonempty == 1 && strchr(sources[which], seps[which]) == NULL &&
            sources[which][0] != ' ' && sources[which][strlen(sources[which]) - 1] != ' ')
            return pp_ctext_append(out, sources[which], strlen(sources[which]));
    }
    for (size_t k = 0; k < nsources; k++)
        total += strlen(sources[k]) + 1;
    if (total <= nsources)
        return pp_ctext_append(out, "", 0);
    copy = malloc(total);
    /* at most one item per separator + one per source */
    cap = total / 2 + nsources + 1;
    items = malloc(cap * sizeof *items);
    if (copy == NULL || items == NULL) {
        free(copy);
        free(items);
        return PP_ENOMEM;
    }
    w = copy;
    for (size_t k = 0; k < nsources; k++) {
        size_t len = strlen(sources[k]);
        char *start = w, *tok;
        memcpy(w, sources[k], len + 1);
        w += len + 1;
        for (tok = start;;) {
            char *end = strchr(tok, seps[k]);
            if (end != NULL)
                *end = '\0';
            tok = trim(tok);
            if (*tok != '\0' && nitems < cap)
                items[nitems++] = tok;
            if (end == NULL)
                break;
            tok = end + 1;
        }
    }
    qsort(items, nitems, sizeof *items, cmp_str);
    pp_ctext_append(out, "", 0);
    for (size_t i = 0; i < nitems && rc == PP_OK; i++) {
        if (i > 0)
            rc = pp_ctext_putc(out, ';');
        if (rc == PP_OK)
            rc = pp_ctext_append(out, items[i], strlen(items[i]));
    }
    free(copy);
    free(items);
    return rc;
}

int
pp_counters_parse_value(const char *s, int comma_decimal, locale_t c_locale, double *out)
{
    char buf[128], *end;
    size_t n = 0;

    while (*s == ' ')
        s++;
    for (; s[n] != '\0'; n++) {
        if (n + 1 >= sizeof buf)
            return PP_EFORMAT;
        buf[n] = (comma_decimal && s[n] == ',') ? '.' : s[n];
    }
    while (n > 0 && buf[n - 1] == ' ')
        n--;
    buf[n] = '\0';
    if (n == 0)
        return PP_EFORMAT;
    /* .NET writes infinities as "Infinity"/"-Infinity" or the symbol. */
    if (strcmp(buf, "\xE2\x88\x9E") == 0) {
        *out = INFINITY;
        return PP_OK;
    }
    if (strcmp(buf, "-\xE2\x88\x9E") == 0) {
        *out = -INFINITY;
        return PP_OK;
    }
    *out = strtod_l(buf, &end, c_locale);
    if (end == buf || *end != '\0')
        return PP_EFORMAT;
    return PP_OK;
}
