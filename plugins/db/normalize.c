/* plugins/db: SQL normalization (see normalize.h), one left-to-right scan. */
#include <config.h>

#include <ctype.h>
#include <string.h>
#include <strings.h>

#include "normalize.h"

typedef struct out_buf {
    char *p;
    size_t len, cap;
} out_buf;

static void
put(out_buf *o, char c)
{
    if (o->len + 1 < o->cap)
        o->p[o->len++] = c;
}

static void
put_n(out_buf *o, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(o, s[i]);
}

static int
ident_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || (unsigned char)c >= 0x80;
}

/* After "IN (": a list of ?/parameters separated by commas, up to ')'.
 * Returns the input position after ')' or NULL when it is not such a list
 * (a subquery, expressions). The input is raw SQL, so literals are
 * recognized here too. */
static const char *
in_list_end(const char *p)
{
    int items = 0;
    for (;;) {
        while (isspace((unsigned char)*p))
            p++;
        if (*p == '\'') {
            p++;
            while (*p && !(*p == '\'' && p[1] != '\''))
                p += (*p == '\'' ? 2 : 1);
            if (!*p)
                return NULL;
            p++;
        } else if (*p == '@' || *p == ':' || *p == '$' || *p == '?') {
            p++;
            while (ident_char(*p))
                p++;
        } else if (*p == '-' || *p == '+' || isdigit((unsigned char)*p)) {
            if (*p == '-' || *p == '+')
                p++;
            if (!isdigit((unsigned char)*p))
                return NULL;
            while (isalnum((unsigned char)*p) || *p == '.')
                p++;
        } else if (strncasecmp(p, "NULL", 4) == 0 && !ident_char(p[4])) {
            p += 4;
        } else {
            return NULL;
        }
        items++;
        while (isspace((unsigned char)*p))
            p++;
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == ')')
            return items ? p + 1 : NULL;
        return NULL;
    }
}

size_t
db_normalize_sql(const char *sql, char *outp, size_t outcap)
{
    out_buf o = { outp, 0, outcap };
    const char *p = sql;
    int pending_space = 0;
    char prev = 0; /* last character written, for token boundaries */
    if (outcap == 0)
        return 0;
    while (*p) {
        char c = *p;
        if (isspace((unsigned char)c)) {
            pending_space = o.len > 0;
            p++;
            continue;
        }
        if (pending_space) {
            put(&o, ' ');
            pending_space = 0;
            prev = ' ';
        }
        if (c == '\'') { /* string literal */
            p++;
            while (*p && !(*p == '\'' && p[1] != '\''))
                p += (*p == '\'' && p[1] == '\'') ? 2 : 1;
            if (*p)
                p++;
            put(&o, '?');
            prev = '?';
            continue;
        }
        if (c == '"' || c == '[' || c == '`') { /* quoted identifier */
            char close = c == '[' ? ']' : c;
            const char *s = p++;
            while (*p && *p != close)
                p++;
            if (*p)
                p++;
            put_n(&o, s, (size_t)(p - s));
            prev = close;
            continue;
        }
        if (c == '-' && p[1] == '-') { /* line comment, kept */
            const char *s = p;
            while (*p && *p != '\n')
                p++;
            put_n(&o, s, (size_t)(p - s));
            prev = 'x';
            continue;
        }
        if (c == '/' && p[1] == '*') { /* block comment, kept */
            const char *s = p;
            p += 2;
            while (*p && !(*p == '*' && p[1] == '/'))
                p++;
            if (*p)
                p += 2;
            put_n(&o, s, (size_t)(p - s));
            prev = 'x';
            continue;
        }
        if (c == '@' || c == ':' || c == '$') { /* parameter name, kept */
            const char *s = p++;
            while (ident_char(*p))
                p++;
            put_n(&o, s, (size_t)(p - s));
            prev = 'x';
            continue;
        }
        if (isdigit((unsigned char)c) && !ident_char(prev) && prev != '.') {
            /* a number not glued to an identifier (t1, x.2 stay) */
            while (isalnum((unsigned char)*p) || (*p == '.' && isdigit((unsigned char)p[1])))
                p++;
            put(&o, '?');
            prev = '?';
            continue;
        }
        if (ident_char(c)) {
            const char *s = p;
            while (ident_char(*p))
                p++;
            size_t n = (size_t)(p - s);
            put_n(&o, s, n);
            prev = 'x';
            if (n == 2 && strncasecmp(s, "IN", 2) == 0) {
                const char *q = p;
                while (isspace((unsigned char)*q))
                    q++;
                if (*q == '(') {
                    const char *end = in_list_end(q + 1);
                    if (end) {
                        put_n(&o, " (...)", 6);
                        p = end;
                        prev = ')';
                    }
                }
            }
            continue;
        }
        put(&o, c);
        prev = c;
        p++;
    }
    o.p[o.len] = '\0';
    return o.len;
}
