/* plugins/db: DiagnosticSource payload decoding (see dsevent.h). */
#include <config.h>

#include <stdlib.h>
#include <string.h>

#include "dsevent.h"
#include "../common/utf16.h"

uint32_t
db_ds_method(const char *name, uint32_t *slot)
{
    *slot = 0;
    if (!name)
        return DB_DS_OTHER;
    if (strcmp(name, "Event") == 0)
        return DB_DS_EVENT;
    const char *p = name;
    if (strncmp(p, "Recursive", 9) == 0)
        p += 9;
    if (strncmp(p, "Activity", 8) != 0)
        return DB_DS_OTHER;
    p += 8;
    if (*p == '1' || *p == '2') {
        *slot = (uint32_t)(*p - '0');
        p++;
    }
    if (*p == '/')
        p++;
    if (strcmp(p, "Start") == 0)
        return DB_DS_START;
    if (strcmp(p, "Stop") == 0)
        return DB_DS_STOP;
    return DB_DS_OTHER;
}

void
db_ds_decoder_free(db_ds_decoder *d)
{
    free(d->buf);
    d->buf = NULL;
    d->cap = 0;
}

/* One UTF-16LE string at payload[*pos]; its UTF-8 goes to d->buf at *out. */
static int
take_string(db_ds_decoder *d, const uint8_t *payload, uint32_t size, uint32_t *pos, size_t *out,
            const char **str)
{
    size_t consumed, len;
    if (*pos >= size)
        return -1;
    if (pp_pc_utf16le_to_utf8(payload + *pos, size - *pos, d->buf + *out, &consumed, &len) != 0)
        return -1;
    *str = d->buf + *out;
    *out += len + 1;
    *pos += (uint32_t)consumed;
    return 0;
}

int
db_ds_decode(db_ds_decoder *d, const char *event_name, const uint8_t *payload, uint32_t size,
             db_ds_event *out)
{
    memset(out, 0, offsetof(db_ds_event, args));
    out->method = db_ds_method(event_name, &out->slot);
    out->source = out->event = "";
    /* UTF-8 of a UTF-16 string is at most 3 bytes per 2-byte unit, plus a
     * NUL per string; strings are at least 2 bytes each. */
    size_t need = (size_t)size / 2 * 3 + (size_t)size / 2 + 16;
    if (need > d->cap) {
        char *b = realloc(d->buf, need);
        if (!b)
            return -2;
        d->buf = b;
        d->cap = need;
    }
    uint32_t pos = 0;
    size_t o = 0;
    if (take_string(d, payload, size, &pos, &o, &out->source) != 0 ||
        take_string(d, payload, size, &pos, &o, &out->event) != 0)
        return -1;
    if (size - pos < 2)
        return -1;
    uint32_t count = (uint32_t)payload[pos] | ((uint32_t)payload[pos + 1] << 8);
    pos += 2;
    if ((uint64_t)count * 4 > size - pos) /* each pair is at least two terminators */
        return -1;
    for (uint32_t i = 0; i < count; i++) {
        const char *k, *v;
        if (take_string(d, payload, size, &pos, &o, &k) != 0 ||
            take_string(d, payload, size, &pos, &o, &v) != 0)
            return -1;
        if (out->argc < DB_DS_MAX_ARGS) {
            out->args[out->argc].key = k;
            out->args[out->argc].value = v;
            out->argc++;
        }
    }
    return 0;
}

const char *
db_ds_arg_get(const db_ds_event *e, const char *key)
{
    for (uint32_t i = 0; i < e->argc; i++)
        if (strcmp(e->args[i].key, key) == 0)
            return e->args[i].value;
    return NULL;
}

static int
digits(const char **p, int min, int max, int64_t *v)
{
    int n = 0;
    *v = 0;
    while (**p >= '0' && **p <= '9' && n < max) {
        *v = *v * 10 + (**p - '0');
        (*p)++;
        n++;
    }
    return n >= min ? 0 : -1;
}

int
db_parse_timespan(const char *s, int64_t *ns)
{
    if (!s)
        return -1;
    const char *p = s;
    int neg = 0;
    if (*p == '-') {
        neg = 1;
        p++;
    }
    int64_t days = 0, h, m, sec, frac = 0, a;
    if (digits(&p, 1, 8, &a) != 0)
        return -1;
    if (*p == '.') { /* d.hh:mm:ss */
        days = a;
        p++;
        if (digits(&p, 1, 2, &h) != 0)
            return -1;
    } else {
        h = a;
    }
    if (*p++ != ':' || digits(&p, 2, 2, &m) != 0 || *p++ != ':' || digits(&p, 2, 2, &sec) != 0)
        return -1;
    if (*p == '.') {
        p++;
        const char *f = p;
        if (digits(&p, 1, 7, &frac) != 0)
            return -1;
        for (ptrdiff_t n = p - f; n < 7; n++)
            frac *= 10;
    }
    /* 106,751 days is int64_t's range in ns: a longer "duration" is damage */
    if (*p != '\0' || h > 23 || m > 59 || sec > 59 || days > 106750)
        return -1;
    int64_t t = (((days * 24 + h) * 60 + m) * 60 + sec) * INT64_C(1000000000) + frac * 100;
    *ns = neg ? -t : t;
    return 0;
}
