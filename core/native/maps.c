/* The module map sidecar: read from /proc/PID/maps, saved and parsed back.
 *
 * Format (docs/native-frames.md): a first line "# perfpipe-maps/1 pid=N",
 * then one file-backed mapping a line:
 *     START-END PERMS OFFSET BUILD_ID PATH
 * START, END and OFFSET in hex without 0x, PERMS as in /proc (4 chars),
 * BUILD_ID in hex or "-", PATH the rest of the line (may contain spaces).
 * Lines starting with '#' and empty lines are ignored. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>
#include "native/native.h"

#define MAPS_MAX_BYTES (64u << 20) /* far above any real process's maps */

void
pp_native_maps_free(pp_native_maps *m)
{
    if (!m)
        return;
    for (size_t i = 0; i < m->n; i++)
        free(m->v[i].path);
    free(m->v);
    m->v = NULL;
    m->n = m->cap = 0;
}

static pp_native_mapping *
maps_push(pp_native_maps *m)
{
    if (m->n == m->cap) {
        size_t cap = m->cap ? m->cap * 2 : 64;
        pp_native_mapping *v = realloc(m->v, cap * sizeof *v);
        if (!v)
            return NULL;
        m->v = v;
        m->cap = cap;
    }
    pp_native_mapping *x = &m->v[m->n++];
    memset(x, 0, sizeof *x);
    return x;
}

static int
cmp_map(const void *a, const void *b)
{
    const pp_native_mapping *x = a, *y = b;
    return x->start < y->start ? -1 : x->start > y->start;
}

/* Parse a hex field at *p; advances *p. 0 when no digit. */
static int
hex_field(const char **p, const char *end, uint64_t *v)
{
    const char *s = *p;
    uint64_t x = 0;
    int nd = 0;
    while (s < end && nd < 17) {
        int c = *s, d = c >= '0' && c <= '9' ? c - '0' :
                        c >= 'a' && c <= 'f' ? c - 'a' + 10 :
                        c >= 'A' && c <= 'F' ? c - 'A' + 10 :
                                               -1;
        if (d < 0)
            break;
        x = x << 4 | (uint64_t)d;
        s++;
        nd++;
    }
    if (nd == 0 || nd > 16)
        return 0;
    *v = x;
    *p = s;
    return 1;
}

static int
fail(pp_error *err, const char *name, size_t line, const char *ls, const char *at, const char *what)
{
    size_t col = (size_t)(at - ls) + 1;
    pp_error_set(err, PP_EFORMAT, "%s:%zu:%zu: expected %s", name, line, col, what);
    if (err) {
        err->line = (uint32_t)line;
        err->column = (uint32_t)col;
    }
    return PP_EFORMAT;
}

/* One mapping line [s, e) (no newline). proc: /proc format (dev, inode,
 * path) instead of the sidecar's (build id, path). Returns 1 when a
 * mapping was added, 0 when the line holds none (anonymous), <0 on error. */
static int
parse_line(pp_native_maps *m, const char *s, const char *e, int proc, const char *name, size_t line,
           pp_error *err)
{
    const char *p = s;
    uint64_t start, end, off;
    char perms[5];
    if (!hex_field(&p, e, &start))
        return fail(err, name, line, s, p, "a hex start address");
    if (p >= e || *p != '-')
        return fail(err, name, line, s, p, "'-' after the start address");
    const char *at = ++p;
    if (!hex_field(&p, e, &end) || end <= start)
        return fail(err, name, line, s, at, "a hex end address above the start");
    if (p >= e || *p != ' ')
        return fail(err, name, line, s, p, "a space before the permissions");
    p++;
    if (e - p < 4 || !strchr("r-", p[0]) || !strchr("w-", p[1]) || !strchr("x-", p[2]) ||
        !strchr("ps", p[3]))
        return fail(err, name, line, s, p, "permissions like r-xp");
    memcpy(perms, p, 4);
    perms[4] = 0;
    p += 4;
    if (p >= e || *p != ' ')
        return fail(err, name, line, s, p, "a space before the file offset");
    p++;
    if (!hex_field(&p, e, &off))
        return fail(err, name, line, s, p, "a hex file offset");
    if (p >= e || *p != ' ')
        return fail(err, name, line, s, p, "a space before the build id");
    p++;
    char bid[PP_NATIVE_BUILD_ID_MAX + 1] = "-";
    if (proc) {
        /* dev inode, then spaces, then the path (absent when anonymous) */
        while (p < e && *p != ' ')
            p++;
        while (p < e && *p == ' ')
            p++;
        while (p < e && *p != ' ')
            p++;
        while (p < e && *p == ' ')
            p++;
        if (p >= e || *p != '/')
            return 0; /* anonymous, [heap], [stack], [vdso] */
        if (e - p > 10 && memcmp(e - 10, " (deleted)", 10) == 0)
            e -= 10;
    } else {
        const char *b = p;
        while (p < e && *p != ' ')
            p++;
        size_t bl = (size_t)(p - b);
        int ok = bl == 1 ? *b == '-' : bl >= 2 && bl <= PP_NATIVE_BUILD_ID_MAX;
        for (size_t i = 0; ok && bl > 1 && i < bl; i++)
            ok = (b[i] >= '0' && b[i] <= '9') || (b[i] >= 'a' && b[i] <= 'f');
        if (!ok)
            return fail(err, name, line, s, b, "a build id in lower-case hex or '-'");
        memcpy(bid, b, bl);
        bid[bl] = 0;
        if (p >= e || *p++ != ' ' || p >= e || *p != '/')
            return fail(err, name, line, s, p, "an absolute module path after the build id");
    }
    pp_native_mapping *x = maps_push(m);
    if (!x || !(x->path = strndup(p, (size_t)(e - p)))) {
        if (x)
            m->n--;
        pp_error_set(err, PP_ENOMEM, "%s: out of memory", name);
        return PP_ENOMEM;
    }
    x->start = start;
    x->end = end;
    x->offset = off;
    memcpy(x->perms, perms, 5);
    memcpy(x->build_id, bid, sizeof bid);
    return 1;
}

static int
parse_text(const char *text, size_t len, const char *name, int proc, pp_native_maps *out,
           pp_error *err)
{
    memset(out, 0, sizeof *out);
    const char *p = text, *end = text + len;
    size_t line = 0;
    if (!proc) {
        size_t ml = strlen(PP_NATIVE_MAPS_MAGIC);
        if (len < ml || memcmp(text, PP_NATIVE_MAPS_MAGIC, ml) != 0)
            return fail(err, name, 1, text, text,
                        "the first line \"" PP_NATIVE_MAPS_MAGIC
                        " pid=N\" (a perfpipe module map)");
        const char *q = strstr(text, " pid=");
        const char *nl = memchr(text, '\n', len);
        if (q && (!nl || q < nl))
            out->pid = strtoull(q + 5, NULL, 10);
    }
    while (p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        const char *e = nl ? nl : end;
        line++;
        if (e > p && e[-1] == '\r')
            e--;
        if (e > p && *p != '#') {
            int rc = parse_line(out, p, e, proc, name, line, err);
            if (rc < 0) {
                pp_native_maps_free(out);
                return rc;
            }
        }
        p = nl ? nl + 1 : end;
    }
    if (out->n > 1)
        qsort(out->v, out->n, sizeof *out->v, cmp_map);
    return PP_OK;
}

int
pp_native_maps_parse(const char *text, size_t len, const char *name, pp_native_maps *out,
                     pp_error *err)
{
    return parse_text(text, len, name, 0, out, err);
}

/* Whole small text file into a malloc'd buffer (files in /proc have no size). */
static int
slurp(const char *path, char **buf, size_t *len, pp_error *err)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        int rc = errno == ENOENT ? PP_ENOTFOUND : PP_EIO;
        pp_error_set(err, rc, "%s: cannot open: %s", path, strerror(errno));
        return rc;
    }
    size_t cap = 1 << 16, n = 0;
    char *b = malloc(cap);
    for (;;) {
        if (!b) {
            close(fd);
            pp_error_set(err, PP_ENOMEM, "%s: out of memory", path);
            return PP_ENOMEM;
        }
        if (n == cap) {
            if (cap >= MAPS_MAX_BYTES) {
                free(b);
                close(fd);
                pp_error_set(err, PP_ELIMIT, "%s: larger than %u MB; not a module map", path,
                             MAPS_MAX_BYTES >> 20);
                return PP_ELIMIT;
            }
            char *g = realloc(b, cap * 2);
            if (!g)
                free(b);
            b = g;
            cap *= 2;
            continue;
        }
        ssize_t k = read(fd, b + n, cap - n);
        if (k < 0 && errno == EINTR)
            continue;
        if (k < 0) {
            int e = errno;
            free(b);
            close(fd);
            pp_error_set(err, PP_EIO, "%s: cannot read: %s", path, strerror(e));
            return PP_EIO;
        }
        if (k == 0)
            break;
        n += (size_t)k;
    }
    close(fd);
    *buf = b;
    *len = n;
    return PP_OK;
}

int
pp_native_maps_load(const char *path, pp_native_maps *out, pp_error *err)
{
    char *b;
    size_t n;
    memset(out, 0, sizeof *out);
    int rc = slurp(path, &b, &n, err);
    if (rc != PP_OK)
        return rc;
    rc = parse_text(b, n, path, 0, out, err);
    free(b);
    return rc;
}

int
pp_native_maps_read_proc(uint64_t pid, pp_native_maps *out, pp_error *err)
{
    char path[64], *b;
    size_t n;
    memset(out, 0, sizeof *out);
    snprintf(path, sizeof path, "/proc/%" PRIu64 "/maps", pid);
    int rc = slurp(path, &b, &n, err);
    if (rc != PP_OK)
        return rc == PP_ENOTFOUND ? PP_EIO : rc;
    rc = parse_text(b, n, path, 1, out, err);
    free(b);
    if (rc != PP_OK)
        return rc;
    out->pid = pid;
    /* Build ids: once per distinct path (mappings of one file are adjacent
     * enough that comparing with the previous one catches most). */
    for (size_t i = 0; i < out->n; i++) {
        pp_native_mapping *x = &out->v[i];
        const pp_native_mapping *same = NULL;
        for (size_t j = 0; j < i && !same; j++)
            if (strcmp(out->v[j].path, x->path) == 0)
                same = &out->v[j];
        if (same) {
            memcpy(x->build_id, same->build_id, sizeof x->build_id);
            continue;
        }
        char root[4200];
        snprintf(root, sizeof root, "/proc/%" PRIu64 "/root%s", pid, x->path);
        pp_native_elf *e = NULL;
        if (pp_native_elf_open(root, &e, NULL) == PP_OK ||
            pp_native_elf_open(x->path, &e, NULL) == PP_OK) {
            snprintf(x->build_id, sizeof x->build_id, "%s", pp_native_elf_build_id(e));
            pp_native_elf_close(e);
        }
    }
    return PP_OK;
}

int
pp_native_maps_merge(pp_native_maps *into, pp_native_maps *from)
{
    /* A mapping overlapping one already kept is dropped: the first file seen
     * at an address is the one the earlier samples ran in. */
    size_t had = into->n;
    for (size_t i = 0; i < from->n; i++) {
        pp_native_mapping *y = &from->v[i];
        int clash = 0;
        for (size_t j = 0; j < had && !clash; j++)
            clash = y->start < into->v[j].end && into->v[j].start < y->end;
        if (clash)
            continue;
        pp_native_mapping *x = maps_push(into);
        if (!x)
            return PP_ENOMEM;
        *x = *y;
        y->path = NULL; /* moved */
    }
    if (!into->pid)
        into->pid = from->pid;
    if (into->n > had)
        qsort(into->v, into->n, sizeof *into->v, cmp_map);
    pp_native_maps_free(from);
    return PP_OK;
}
