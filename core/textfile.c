/* Whole text files and positions in them (textfile.h). */
#include "config.h"

#include <errno.h>
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
