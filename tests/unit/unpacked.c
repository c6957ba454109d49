/* tests/unit/unpacked.h: zstd fixtures unpacked into unlinked temporaries. */
#include "unpacked.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <zstd.h>

static int
ends_with(const char *s, const char *suffix)
{
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && strcmp(s + a - b, suffix) == 0;
}

/* Stream in through a zstd decoder into out; 0 on success. */
static int
decode(FILE *in, FILE *out, char *why, size_t n)
{
    ZSTD_DCtx *dc = ZSTD_createDCtx();
    size_t isz = ZSTD_DStreamInSize(), osz = ZSTD_DStreamOutSize();
    char *ib = malloc(isz), *ob = malloc(osz);
    int rc = (dc && ib && ob) ? 0 : -1, more = 0;
    size_t got;
    while (rc == 0 && (got = fread(ib, 1, isz, in)) > 0) {
        ZSTD_inBuffer zi = { ib, got, 0 };
        while (rc == 0 && zi.pos < zi.size) {
            ZSTD_outBuffer zo = { ob, osz, 0 };
            size_t r = ZSTD_decompressStream(dc, &zo, &zi);
            if (ZSTD_isError(r)) {
                snprintf(why, n, "zstd: %s", ZSTD_getErrorName(r));
                rc = -1;
            } else if (fwrite(ob, 1, zo.pos, out) != zo.pos) {
                snprintf(why, n, "writing the unpacked copy failed");
                rc = -1;
            }
            more = r != 0;
        }
    }
    if (rc == 0 && more) {
        snprintf(why, n, "zstd: the compressed file is cut short");
        rc = -1;
    }
    free(ib);
    free(ob);
    ZSTD_freeDCtx(dc);
    return rc;
}

int
unpacked_open(const char *path, char *out, size_t n)
{
    if (!ends_with(path, ".zst")) {
        snprintf(out, n, "%s", path);
        return -1;
    }
    FILE *in = fopen(path, "rb"), *tmp = in ? tmpfile() : NULL;
    if (!in || !tmp) {
        snprintf(out, n, "%s: cannot open it or a temporary file", path);
        if (in)
            fclose(in);
        return -2;
    }
    int rc = decode(in, tmp, out, n);
    fclose(in);
    if (rc != 0 || fflush(tmp) != 0) {
        fclose(tmp);
        return -2;
    }
    int fd = dup(fileno(tmp));
    fclose(tmp);
    if (fd < 0) {
        snprintf(out, n, "%s: dup failed", path);
        return -2;
    }
    snprintf(out, n, "/proc/self/fd/%d", fd);
    return fd;
}

void
unpacked_close(int fd)
{
    if (fd >= 0)
        close(fd);
}

int
unpacked_exists(const char *path, char *zpath, size_t n)
{
    struct stat st;
    if (stat(path, &st) == 0) {
        snprintf(zpath, n, "%s", path);
        return 1;
    }
    snprintf(zpath, n, "%s.zst", path);
    return stat(zpath, &st) == 0;
}
