/* Whole text files, positions in them, and the source over their readers
 * (textfile.h). */
#include "config.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/perfpipe.h>

#include "textfile.h"

int
pp_textfile_read(const char *path, const char *not_regular, char **buf, size_t *len, pp_error *err)
{
    FILE *f = fopen(path, "rb");
    struct stat st;
    size_t size, got;
    char *b;
    int rerr;

    if (f == NULL) {
        pp_error_set(err, PP_EIO, "%s: cannot open: %s", path, strerror(errno));
        return PP_EIO;
    }
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) {
        fclose(f);
        pp_error_set(err, PP_EIO, "%s: not a regular file %s", path, not_regular);
        return PP_EIO;
    }
    size = (size_t)st.st_size;
    if ((b = malloc(size + 1)) == NULL) {
        fclose(f);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory reading %zu bytes", path, size);
        return PP_ENOMEM;
    }
    got = fread(b, 1, size, f);
    rerr = ferror(f);
    fclose(f);
    if (rerr || got != size) {
        free(b);
        pp_error_set(err, PP_EIO, "%s: read failed after %zu of %zu bytes", path, got, size);
        return PP_EIO;
    }
    b[size] = '\0';
    *buf = b;
    *len = size;
    return PP_OK;
}

void
pp_textfile_locate(const char *buf, size_t len, size_t offset, uint32_t *line, uint32_t *col)
{
    uint32_t l = 1, c = 1;

    if (offset > len)
        offset = len;
    for (size_t i = 0; i < offset; i++) {
        if (buf[i] == '\n') {
            l++;
            c = 1;
        } else {
            c++;
        }
    }
    *line = l;
    *col = c;
}

void
pp_textfile_error(pp_error *out, int code, const char *name, const char *buf, size_t len,
                  size_t offset, const char *what)
{
    uint32_t line, col;

    pp_textfile_locate(buf, len, offset, &line, &col);
    *out = (pp_error)PP_ERROR_INIT;
    pp_error_set_at(out, code, (int64_t)offset, "%s:%u:%u: %s", name, (unsigned)line, (unsigned)col,
                    what);
    out->line = line;
    out->column = col;
}

void
pp_textfile_error_copy(pp_error *err, const pp_error *failure)
{
    if (err != NULL) {
        uint32_t size = err->struct_size;

        *err = *failure;
        if (size != 0)
            err->struct_size = size;
    }
}

int
pp_textfile_vfail(pp_error *failure, pp_error *err, int code, const char *name, const char *buf,
                  size_t len, size_t offset, const char *fmt, va_list ap)
{
    char what[PP_ERROR_MESSAGE_MAX];

    vsnprintf(what, sizeof what, fmt, ap);
    pp_textfile_error(failure, code, name, buf, len, offset, what);
    pp_textfile_error_copy(err, failure);
    return code;
}

void
pp_textfile_truncated(pp_error *warning, const char *name, const char *buf, size_t len,
                      size_t offset, const char *fmt, ...)
{
    char what[PP_ERROR_MESSAGE_MAX];
    uint32_t line, col;
    va_list ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    pp_textfile_locate(buf, len, offset, &line, &col);
    *warning = (pp_error)PP_ERROR_INIT;
    pp_error_set_at(warning, PP_EFORMAT, (int64_t)offset,
                    "%s:%u:%u: truncated at byte %zu of %zu%s", name, (unsigned)line, (unsigned)col,
                    offset, len, what);
    warning->line = line;
    warning->column = col;
}

typedef struct text_source {
    const pp_text_reader *r;
    void *reader;
    pp_source_hooks hooks;
    int warned;
} text_source;

int
pp_text_source_open(const pp_text_reader *r, const char *path, const pp_source_hooks *hooks,
                    void **src, pp_error *err)
{
    text_source *s;
    char *buf;
    size_t len;
    int rc;

    *src = NULL;
    if ((rc = r->read_file(path, &buf, &len, err)) != PP_OK)
        return rc;
    if (hooks != NULL && hooks->on_bytes != NULL && len > 0)
        hooks->on_bytes(hooks->user, buf, len);
    if ((s = calloc(1, sizeof *s)) == NULL) {
        free(buf);
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
        return PP_ENOMEM;
    }
    s->r = r;
    if (hooks != NULL)
        s->hooks = *hooks;
    if ((rc = r->open(buf, len, path, &s->reader, err)) != PP_OK) {
        free(s);
        return rc;
    }
    *src = s;
    return PP_OK;
}

int
pp_text_source_next(void *p, pp_record *rec, pp_error *err)
{
    text_source *s = p;
    int rc = s->r->next(s->reader, rec, err);

    if (rc == 0 && !s->warned && s->r->warning(s->reader) != NULL) {
        s->warned = 1;
        if (s->hooks.on_warning != NULL)
            s->hooks.on_warning(s->hooks.user, s->r->warning(s->reader));
    }
    if (rc != 1)
        return rc;
    rec->struct_size = sizeof *rec;
    rec->kind = s->r->kind_bit;
    rec->input_index = 0;
    rec->reserved = 0;
    return 1;
}

void
pp_text_source_close(void *p)
{
    text_source *s = p;

    if (s == NULL)
        return;
    s->r->close(s->reader);
    free(s);
}

void *
pp_text_source_reader(void *p)
{
    return ((text_source *)p)->reader;
}
