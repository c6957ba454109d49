/* Private: a .gcdump file mapped read-only for the reader (its graph needs
 * the whole file: forward references resolve from the end). */
#ifndef PP_GCDUMP_FILEMAP_H
#define PP_GCDUMP_FILEMAP_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

typedef struct pp_gcdump_map {
    const uint8_t *data; /* [size]; never NULL after a successful open */
    size_t size;
    void *base; /* the mapping, NULL for an empty file */
} pp_gcdump_map;

/* Map the regular file at path. PP_EIO ("PATH: reason", "PATH: not a
 * regular file") or PP_ENOMEM, with err filled; m is then empty. A FIFO or
 * device is refused without blocking. */
int pp_gcdump_map_open(const char *path, pp_gcdump_map *m, pp_error *err);

/* Run fn(arg), which reads the mapping, so that the file shrinking under
 * it (SIGBUS on a page past the new end) makes this return PP_EIO with err
 * saying so ("PATH: the file shrank while it was read ...") instead of
 * killing the process; otherwise fn's result. fn is abandoned mid-way then:
 * what it must free on failure has to be reachable from arg. mapguard.c
 * says why a guard rather than read(). */
int pp_gcdump_map_run(const pp_gcdump_map *m, const char *path, int (*fn)(void *), void *arg,
                      pp_error *err);

/* Give the whole pages of data[from, to) back (MADV_DONTNEED on a
 * read-only private file mapping: a later read faults them in again from
 * the page cache, same bytes). A no-op for memory not mapped by m. */
void pp_gcdump_map_release(const pp_gcdump_map *m, size_t from, size_t to);

/* Unmap; a zeroed or closed map is a no-op. */
void pp_gcdump_map_close(pp_gcdump_map *m);

#endif
