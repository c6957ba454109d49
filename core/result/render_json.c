/* The json renderer: the document itself, indented 2, keys in insertion
 * order (the order the builder chose), one trailing newline. Integers are
 * exact; reals are written with the fewest digits that read back to the
 * same double (66.04, not jansson's 66.040000000000006), so people can read
 * the file and programs lose nothing. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/render_util.h"

static void
indent(FILE *out, int depth)
{
    for (int i = 0; i < depth; i++)
        fputs("  ", out);
}

/* A string, escaped by jansson (control characters, quotes, backslash). */
static int
emit_string(FILE *out, const char *s, size_t len)
{
    json_t *j = json_stringn_nocheck(s, len);
    char *enc = j != NULL ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

    json_decref(j);
    if (enc == NULL)
        return -1;
    fputs(enc, out);
    free(enc);
    return 0;
}

static int
emit(FILE *out, const json_t *v, int depth)
{
    char buf[64];
    size_t i, n;
    const char *k;
    const json_t *x;

    switch (json_typeof(v)) {
    case JSON_OBJECT:
        if (json_object_size(v) == 0) {
            fputs("{}", out);
            return 0;
        }
        fputs("{\n", out);
        n = 0;
        json_object_foreach((json_t *)v, k, x) {
            indent(out, depth + 1);
            if (emit_string(out, k, strlen(k)) != 0)
                return -1;
            fputs(": ", out);
            if (emit(out, x, depth + 1) != 0)
                return -1;
            fputs(++n < json_object_size(v) ? ",\n" : "\n", out);
        }
        indent(out, depth);
        fputc('}', out);
        return 0;
    case JSON_ARRAY:
        if (json_array_size(v) == 0) {
            fputs("[]", out);
            return 0;
        }
        fputs("[\n", out);
        json_array_foreach(v, i, x) {
            indent(out, depth + 1);
            if (emit(out, x, depth + 1) != 0)
                return -1;
            fputs(i + 1 < json_array_size(v) ? ",\n" : "\n", out);
        }
        indent(out, depth);
        fputc(']', out);
        return 0;
    case JSON_STRING: return emit_string(out, json_string_value(v), json_string_length(v));
    case JSON_INTEGER: fprintf(out, "%" PRId64, (int64_t)json_integer_value(v)); return 0;
    case JSON_REAL:
        pp_render_cell_raw(buf, sizeof buf, v);
        /* Keep it a real for readers that type by syntax. */
        if (strpbrk(buf, ".eEn") == NULL)
            strcat(buf, ".0");
        fputs(buf, out);
        return 0;
    case JSON_TRUE: fputs("true", out); return 0;
    case JSON_FALSE: fputs("false", out); return 0;
    case JSON_NULL: fputs("null", out); return 0;
    }
    return -1;
}

int
pp_render_json(const json_t *doc, FILE *out, pp_error *err)
{
    if (emit(out, doc, 0) != 0) {
        pp_error_set(err, PP_ENOMEM, "json rendering: out of memory");
        return PP_ENOMEM;
    }
    fputc('\n', out);
    return pp_render_check_io(out, "json", err);
}
