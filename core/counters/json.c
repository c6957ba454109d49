/* dotnet-counters JSON: one hand-built line,
 *   { "TargetProcess": "...", "StartTime": "...", "Events": [{ ... },{ ... }]}
 * closed only when the tool stops. A capture whose tool was killed ends
 * after some "},", or inside an event: we read every complete event and
 * warn. Events are flat objects of strings and a number (a bare NaN or
 * Infinity is possible: the tool prints double.ToString()). */
#include "config.h"

#include <errno.h>
#include <string.h>

#include "counters/counters_private.h"

#define J_EOF       1 /* input ended: the capture is truncated */
#define J_MAX_DEPTH 64

enum { JS_FIRST = 0, JS_MORE, JS_AFTER_ARRAY, JS_DONE };

static int
ws(pp_counters_reader *r)
{
    int c;

    for (;;) {
        c = pp_cstream_peek(&r->in);
        if (c != ' ' && c != '\t' && c != '\r' && c != '\n')
            return c;
        pp_cstream_get(&r->in);
    }
}

static int
unexpected(pp_counters_reader *r, pp_error *err, int c, const char *what)
{
    if (c == -2)
        return pp_counters_fail(r, err, PP_EIO, 0, 0, pp_cstream_offset(&r->in), "read error: %s",
                                strerror(errno));
    if (c >= 0x20 && c < 0x7f)
        return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column,
                                pp_cstream_offset(&r->in), "expected %s, got '%c'", what, c);
    return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column, pp_cstream_offset(&r->in),
                            "expected %s, got byte 0x%02x", what, (unsigned)c);
}

static int
put_utf8(pp_ctext *t, unsigned long cp)
{
    char b[4];
    size_t n;

    if (cp < 0x80) {
        b[0] = (char)cp;
        n = 1;
    } else if (cp < 0x800) {
        b[0] = (char)(0xC0 | (cp >> 6));
        b[1] = (char)(0x80 | (cp & 0x3F));
        n = 2;
    } else if (cp < 0x10000) {
        b[0] = (char)(0xE0 | (cp >> 12));
        b[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[2] = (char)(0x80 | (cp & 0x3F));
        n = 3;
    } else {
        b[0] = (char)(0xF0 | (cp >> 18));
        b[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
        b[2] = (char)(0x80 | ((cp >> 6) & 0x3F));
        b[3] = (char)(0x80 | (cp & 0x3F));
        n = 4;
    }
    return pp_ctext_append(t, b, n);
}

static int
hex4(pp_counters_reader *r, unsigned long *out, pp_error *err)
{
    unsigned long v = 0;

    for (int i = 0; i < 4; i++) {
        int c = pp_cstream_peek(&r->in);
        if (c == -1)
            return J_EOF;
        if (c >= '0' && c <= '9')
            v = v * 16 + (unsigned long)(c - '0');
        else if (c >= 'a' && c <= 'f')
            v = v * 16 + (unsigned long)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            v = v * 16 + (unsigned long)(c - 'A' + 10);
        else
            return unexpected(r, err, c, "a hex digit in \\u escape");
        pp_cstream_get(&r->in);
    }
    *out = v;
    return 0;
}

/* A JSON string at the current position (on its '"') into dst (may be
 * NULL to skip). */
static int
parse_string(pp_counters_reader *r, pp_ctext *dst, pp_error *err)
{
    pp_ctext sink = { 0 };
    pp_ctext *t = dst != NULL ? dst : &sink;
    int c, rc = PP_OK;
    int64_t start = pp_cstream_offset(&r->in);
    uint32_t line = r->in.line, col = r->in.column;

    pp_ctext_reset(t);
    pp_ctext_append(t, "", 0);
    pp_cstream_get(&r->in); /* the opening quote */
    for (;;) {
        c = pp_cstream_peek(&r->in);
        if (c == -1) {
            rc = J_EOF;
            break;
        }
        if (c < 0x20) {
            rc = unexpected(r, err, c, "a string character or '\"'");
            break;
        }
        pp_cstream_get(&r->in);
        if (c == '"')
            break;
        if (c == '\\') {
            unsigned long cp;
            c = pp_cstream_peek(&r->in);
            if (c == -1) {
                rc = J_EOF;
                break;
            }
            pp_cstream_get(&r->in);
            switch (c) {
            case '"':
            case '\\':
            case '/': rc = pp_ctext_putc(t, (char)c); break;
            case 'b': rc = pp_ctext_putc(t, '\b'); break;
            case 'f': rc = pp_ctext_putc(t, '\f'); break;
            case 'n': rc = pp_ctext_putc(t, '\n'); break;
            case 'r': rc = pp_ctext_putc(t, '\r'); break;
            case 't': rc = pp_ctext_putc(t, '\t'); break;
            case 'u':
                rc = hex4(r, &cp, err);
                if (rc != 0)
                    break;
                if (cp >= 0xD800 && cp < 0xDC00 && pp_cstream_peek(&r->in) == '\\') {
                    unsigned long lo;
                    pp_cstream_get(&r->in);
                    if (pp_cstream_peek(&r->in) != 'u') {
                        rc = unexpected(r, err, pp_cstream_peek(&r->in), "'u' of a low surrogate");
                        break;
                    }
                    pp_cstream_get(&r->in);
                    rc = hex4(r, &lo, err);
                    if (rc != 0)
                        break;
                    if (lo >= 0xDC00 && lo < 0xE000)
                        cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
                    else
                        cp = 0xFFFD;
                } else if (cp >= 0xD800 && cp < 0xE000) {
                    cp = 0xFFFD;
                }
                if (cp == 0)
                    cp = 0xFFFD; /* keep C strings whole */
                rc = put_utf8(t, cp);
                break;
            default:
                rc = pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column - 1,
                                      pp_cstream_offset(&r->in) - 1,
                                      "invalid escape '\\%c' in a JSON string", c);
            }
            if (rc != 0)
                break;
            continue;
        }
        rc = pp_ctext_putc(t, (char)c);
        if (rc != 0)
            break;
    }
    if (rc == PP_ELIMIT)
        rc = pp_counters_fail(r, err, PP_ELIMIT, line, col, start,
                              "JSON string longer than %u bytes", (unsigned)PP_COUNTERS_MAX_TEXT);
    else if (rc == PP_ENOMEM)
        rc = pp_counters_fail(r, err, PP_ENOMEM, 0, 0, start, "out of memory");
    pp_ctext_free(&sink);
    return rc;
}

/* A bare token (number, true, false, null, NaN, Infinity) into dst. */
static int
parse_token(pp_counters_reader *r, pp_ctext *dst, pp_error *err)
{
    int c, n = 0;

    pp_ctext_reset(dst);
    pp_ctext_append(dst, "", 0);
    for (;;) {
        c = pp_cstream_peek(&r->in);
        if (c == -1)
            return J_EOF; /* a number can be cut too */
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
              c == '-' || c == '+' || c == '.'))
            break;
        if (++n > 64)
            return pp_counters_fail(r, err, PP_EFORMAT, r->in.line, r->in.column,
                                    pp_cstream_offset(&r->in), "JSON token too long");
        pp_ctext_putc(dst, (char)c);
        pp_cstream_get(&r->in);
    }
    if (n == 0)
        return unexpected(r, err, c, "a JSON value");
    return 0;
}

/* Skip any JSON value (members we do not use). */
static int
skip_value(pp_counters_reader *r, int depth, pp_error *err)
{
    int c = ws(r), rc;

    if (depth > J_MAX_DEPTH)
        return pp_counters_fail(r, err, PP_ELIMIT, r->in.line, r->in.column,
                                pp_cstream_offset(&r->in), "JSON nested deeper than %d",
                                J_MAX_DEPTH);
    if (c == -1)
        return J_EOF;
    if (c == '"')
        return parse_string(r, NULL, err);
    if (c == '{' || c == '[') {
        int close = c == '{' ? '}' : ']';
        pp_cstream_get(&r->in);
        c = ws(r);
        if (c == close) {
            pp_cstream_get(&r->in);
            return 0;
        }
        for (;;) {
            if (close == '}') {
                c = ws(r);
                if (c == -1)
                    return J_EOF;
                if (c != '"')
                    return unexpected(r, err, c, "a member name");
                if ((rc = parse_string(r, NULL, err)) != 0)
                    return rc;
                c = ws(r);
                if (c == -1)
                    return J_EOF;
                if (c != ':')
                    return unexpected(r, err, c, "':'");
                pp_cstream_get(&r->in);
            }
            if ((rc = skip_value(r, depth + 1, err)) != 0)
                return rc;
            c = ws(r);
            if (c == -1)
                return J_EOF;
            pp_cstream_get(&r->in);
            if (c == close)
                return 0;
            if (c != ',')
                return unexpected(r, err, c, close == '}' ? "',' or '}'" : "',' or ']'");
        }
    }
    return parse_token(r, &r->sval, err);
}

static int
truncated(pp_counters_reader *r, const char *where)
{
    r->truncated = 1;
    r->json_state = JS_DONE;
    pp_counters_warn(r, PP_EFORMAT,
                     "JSON capture not closed: the file ends at byte %lld %s "
                     "(dotnet-counters was killed before it stopped); read %llu complete samples",
                     (long long)pp_cstream_offset(&r->in), where, (unsigned long long)r->samples);
    return 0;
}

/* Members of the top object after "Events", then the end of input. */
static int
finish_top(pp_counters_reader *r, pp_error *err)
{
    int c, rc;

    for (;;) {
        c = ws(r);
        if (c == -1)
            return truncated(r, "before the closing '}'");
        pp_cstream_get(&r->in);
        if (c == '}')
            break;
        if (c != ',')
            return unexpected(r, err, c, "',' or '}' after the \"Events\" array");
        c = ws(r);
        if (c == -1)
            return truncated(r, "before the closing '}'");
        if (c != '"')
            return unexpected(r, err, c, "a member name");
        if ((rc = parse_string(r, &r->key, err)) != 0)
            return rc == J_EOF ? truncated(r, "in a member name") : rc;
        c = ws(r);
        if (c != ':')
            return c == -1 ? truncated(r, "after a member name") : unexpected(r, err, c, "':'");
        pp_cstream_get(&r->in);
        if ((rc = skip_value(r, 0, err)) != 0)
            return rc == J_EOF ? truncated(r, "in a value") : rc;
    }
    c = ws(r);
    r->json_state = JS_DONE;
    if (c != -1)
        return unexpected(r, err, c, "end of file after the closing '}'");
    return 0;
}

int
pp_counters_json_header(pp_counters_reader *r, pp_error *err)
{
    int c, rc;

    pp_cstream_get(&r->in); /* '{', checked by the detector */
    for (;;) {
        c = ws(r);
        if (c == -1)
            return truncated(r, "before the \"Events\" array");
        if (c == '}')
            return unexpected(r, err, c, "an \"Events\" member");
        if (c != '"')
            return unexpected(r, err, c, "a member name");
        if ((rc = parse_string(r, &r->key, err)) != 0)
            return rc == J_EOF ? truncated(r, "in a member name") : rc;
        c = ws(r);
        if (c != ':')
            return c == -1 ? truncated(r, "after a member name") : unexpected(r, err, c, "':'");
        pp_cstream_get(&r->in);
        c = ws(r);
        if (strcmp(r->key.p, "Events") == 0) {
            if (c == -1)
                return truncated(r, "before the \"Events\" array");
            pp_cstream_get(&r->in);
            if (c == '[') {
                r->json_state = JS_FIRST;
                return PP_OK;
            }
            /* With zero events the tool's Stop removes the '[': "Events": ]} */
            if (c == ']') {
                r->json_state = JS_AFTER_ARRAY;
                return PP_OK;
            }
            return unexpected(r, err, c, "'[' starting the \"Events\" array");
        }
        if (c == '"' && strcmp(r->key.p, "TargetProcess") == 0)
            rc = parse_string(r, &r->target_process, err);
        else if (c == '"' && strcmp(r->key.p, "StartTime") == 0)
            rc = parse_string(r, &r->start_time, err);
        else
            rc = skip_value(r, 0, err);
        if (rc != 0)
            return rc == J_EOF ? truncated(r, "in the header") : rc;
        c = ws(r);
        if (c == -1)
            return truncated(r, "before the \"Events\" array");
        pp_cstream_get(&r->in);
        if (c != ',')
            return unexpected(r, err, c, "',' (no \"Events\" member before the end)");
    }
}

static pp_ctext *
field_for(pp_counters_reader *r, const char *key)
{
    if (strcmp(key, "timestamp") == 0)
        return &r->f_time;
    if (strcmp(key, "provider") == 0)
        return &r->f_provider;
    if (strcmp(key, "name") == 0)
        return &r->f_name;
    if (strcmp(key, "tags") == 0)
        return &r->f_tags;
    if (strcmp(key, "meterTags") == 0)
        return &r->f_meter;
    if (strcmp(key, "instrumentTags") == 0)
        return &r->f_instr;
    if (strcmp(key, "counterType") == 0)
        return &r->f_type;
    if (strcmp(key, "value") == 0)
        return &r->f_value;
    return NULL;
}

/* One event object, at its '{'. */
static int
parse_event(pp_counters_reader *r, pp_counter_sample *out, pp_error *err)
{
    pp_ctext *all[] = { &r->f_time,  &r->f_provider, &r->f_name, &r->f_tags,
                        &r->f_meter, &r->f_instr,    &r->f_type, &r->f_value };
    uint32_t line = r->in.line, col = r->in.column;
    int64_t off = pp_cstream_offset(&r->in);
    char msg[PP_ERROR_MESSAGE_MAX];
    int c, rc, have_value = 0;
    double value;

    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        pp_ctext_reset(all[i]);
        pp_ctext_append(all[i], "", 0);
    }
    pp_cstream_get(&r->in);
    c = ws(r);
    if (c == '}') {
        pp_cstream_get(&r->in);
        return pp_counters_fail(r, err, PP_EFORMAT, line, col, off, "empty event object");
    }
    for (;;) {
        pp_ctext *dst;
        c = ws(r);
        if (c == -1)
            return J_EOF;
        if (c != '"')
            return unexpected(r, err, c, "a member name in an event");
        if ((rc = parse_string(r, &r->key, err)) != 0)
            return rc;
        c = ws(r);
        if (c == -1)
            return J_EOF;
        if (c != ':')
            return unexpected(r, err, c, "':'");
        pp_cstream_get(&r->in);
        c = ws(r);
        if (c == -1)
            return J_EOF;
        dst = field_for(r, r->key.p);
        if (dst == NULL)
            rc = skip_value(r, 1, err);
        else if (c == '"')
            rc = parse_string(r, dst, err);
        else if (c == '{' || c == '[')
            return unexpected(r, err, c, "a string or number");
        else
            rc = parse_token(r, dst, err);
        if (rc != 0)
            return rc;
        if (dst == &r->f_value)
            have_value = 1;
        c = ws(r);
        if (c == -1)
            return J_EOF;
        pp_cstream_get(&r->in);
        if (c == '}')
            break;
        if (c != ',')
            return unexpected(r, err, c, "',' or '}' in an event");
    }
    if (!have_value || r->f_name.len == 0 || r->f_time.len == 0)
        return pp_counters_fail(r, err, PP_EFORMAT, line, col, off, "event without %s",
                                !have_value        ? "\"value\"" :
                                r->f_name.len == 0 ? "\"name\"" :
                                                     "\"timestamp\"");
    if (pp_counters_parse_value(r->f_value.p, 0, r->c_locale, &value) != PP_OK)
        return pp_counters_fail(r, err, PP_EFORMAT, line, col, off,
                                "event \"value\" is not a number: \"%.40s\"", r->f_value.p);
    {
        const char *tags[3] = { r->f_tags.p, r->f_meter.p, r->f_instr.p };
        rc = pp_counters_make_sample(r, r->f_time.p, r->f_provider.p, r->f_name.p, tags, ",,,", 3,
                                     r->f_type.p, value, 1, out, msg, sizeof msg);
    }
    if (rc != PP_OK)
        return pp_counters_fail(r, err, rc, line, col, off, "%s", msg);
    return 0;
}

int
pp_counters_json_next(pp_counters_reader *r, pp_counter_sample *out, pp_error *err)
{
    int c, rc;

    switch (r->json_state) {
    case JS_DONE: return 0;
    case JS_AFTER_ARRAY: return finish_top(r, err);
    case JS_MORE:
        c = ws(r);
        if (c == -1)
            return truncated(r, "inside the \"Events\" array");
        pp_cstream_get(&r->in);
        if (c == ']') {
            r->json_state = JS_AFTER_ARRAY;
            return finish_top(r, err);
        }
        if (c != ',')
            return unexpected(r, err, c, "',' or ']' after an event");
        break;
    default: break;
    }
    c = ws(r);
    if (c == -1)
        return truncated(r, "inside the \"Events\" array");
    if (c == ']' && r->json_state == JS_FIRST) {
        pp_cstream_get(&r->in);
        r->json_state = JS_AFTER_ARRAY;
        return finish_top(r, err);
    }
    if (c != '{')
        return unexpected(r, err, c, "'{' starting an event");
    r->json_state = JS_MORE;
    rc = parse_event(r, out, err);
    if (rc == J_EOF)
        return truncated(r, "inside an event (the cut event is ignored)");
    if (rc < 0)
        return rc;
    return 1;
}
