/* ${VAR} expansion of pipeline paths. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/error.h>

#include "pipeline/pipeline.h"

/* Growable output; a path longer than this is not a path. */
#define EXPAND_MAX 65536u

typedef struct sbuf {
    char *p;
    size_t len, cap;
} sbuf;

static int
sbuf_add(sbuf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > EXPAND_MAX)
        return PP_ELIMIT;
    if (b->len + n + 1 > b->cap) {
        size_t cap = b->cap ? b->cap : 64;
        char *grown;
        while (cap < b->len + n + 1)
            cap *= 2;
        grown = realloc(b->p, cap);
        if (grown == NULL)
            return PP_ENOMEM;
        b->p = grown;
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
    b->p[b->len] = '\0';
    return PP_OK;
}

static int
name_char(char c, int first)
{
    return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || c == '_' ||
           (!first && ((c >= '0' && c <= '9') || c == '.' || c == '-'));
}

int
pp_expand(const char *text, pp_expand_lookup_fn lookup, void *user, char **out, char **bad_name)
{
    sbuf b = { NULL, 0, 0 };
    const char *p = text;
    int rc = sbuf_add(&b, "", 0);

    *out = NULL;
    *bad_name = NULL;
    while (rc == PP_OK && *p != '\0') {
        const char *dollar = strchr(p, '$');
        if (dollar == NULL) {
            rc = sbuf_add(&b, p, strlen(p));
            break;
        }
        rc = sbuf_add(&b, p, (size_t)(dollar - p));
        if (rc != PP_OK)
            break;
        if (dollar[1] == '$') { /* $$ -> $ */
            rc = sbuf_add(&b, "$", 1);
            p = dollar + 2;
            continue;
        }
        if (dollar[1] != '{') { /* a lone $ is just a character */
            rc = sbuf_add(&b, "$", 1);
            p = dollar + 1;
            continue;
        }
        const char *name = dollar + 2, *q = name;
        while (name_char(*q, q == name))
            q++;
        if (*q != '}' || q == name) {
            rc = PP_EINVAL; /* malformed: *bad_name stays NULL */
            break;
        }
        char *key = strndup(name, (size_t)(q - name));
        if (key == NULL) {
            rc = PP_ENOMEM;
            break;
        }
        const char *val = lookup(user, key);
        if (val == NULL) {
            *bad_name = key;
            rc = PP_EINVAL;
            break;
        }
        free(key);
        rc = sbuf_add(&b, val, strlen(val));
        p = q + 1;
    }
    if (rc != PP_OK) {
        free(b.p);
        return rc;
    }
    *out = b.p;
    return PP_OK;
}
