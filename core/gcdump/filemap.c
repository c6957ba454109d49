/* Read-only file mapping for the gcdump reader (filemap.h). Mapping, not
 * reading, keeps the file's bytes out of anonymous memory: no copy, no
 * zeroed pages, and the pages go back to the page cache when unmapped. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "gcdump/filemap.h"

int
pp_gcdump_map_open(const char *path, pp_gcdump_map *m, pp_error *err)
{
    static const uint8_t empty[1];
    memset(m, 0, sizeof(*m));
    /* O_NONBLOCK: opening a FIFO must not wait for a writer; it is then
     * refused as not a regular file. */
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0)
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno)), PP_EIO;
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return pp_error_set(err, PP_EIO, "%s: not a regular file", path), PP_EIO;
    }
    size_t size = (size_t)st.st_size;
    if (size == 0) {
        close(fd);
        m->data = empty;
        return PP_OK;
    }
    /* Not MAP_POPULATE: that makes the whole file resident at once, while
     * the readers give pages back behind them (pp_gcdump_map_release). */
    void *p = mmap(NULL, size, PROT_READ, MAP_PRIVATE, fd, 0);
    int e = errno;
    close(fd);
    if (p != MAP_FAILED)
        (void)madvise(p, size, MADV_WILLNEED); /* read ahead into the page cache */
    if (p == MAP_FAILED) {
        if (e == ENOMEM)
            return pp_error_set(err, PP_ENOMEM, "%s: out of memory for %zu bytes", path, size),
                   PP_ENOMEM;
        return pp_error_set(err, PP_EIO, "%s: %s", path, strerror(e)), PP_EIO;
    }
    m->base = p;
    m->data = p;
    m->size = size;
    return PP_OK;
}

void
pp_gcdump_map_release(const pp_gcdump_map *m, size_t from, size_t to)
{
    if (!m || !m->base || from >= to || to > m->size)
        return;
    /* Whole pages inside the range only: a page shared with bytes not yet
     * read stays. */
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    uintptr_t base = (uintptr_t)m->base;
    uintptr_t lo = (base + from + page - 1) / page * page, hi = (base + to) / page * page;
    if (lo < hi)
        (void)madvise((void *)lo, hi - lo, MADV_DONTNEED);
}

void
pp_gcdump_map_close(pp_gcdump_map *m)
{
    if (m->base)
        munmap(m->base, m->size);
    memset(m, 0, sizeof(*m));
}
