/* Fixtures committed compressed (NAME.zst, zstd -19: tests/data/MANIFEST)
 * for the tests that call a reader directly: perfpipe's own runs unpack
 * through the engine (core/unpack.c), a reader opened by path does not. */
#ifndef PP_TESTS_UNPACKED_H
#define PP_TESTS_UNPACKED_H

#include <stddef.h>

/* The readable plain form of `path` into out (n bytes): path itself when it
 * is not zstd-compressed, else "/proc/self/fd/N" naming an unlinked
 * temporary file holding its decompressed bytes. Returns that file's
 * descriptor (the caller passes it to unpacked_close), -1 when none was
 * needed, -2 on failure (out then holds the reason). */
int unpacked_open(const char *path, char *out, size_t n);

/* Close what unpacked_open made (fd < 0: nothing). */
void unpacked_close(int fd);

/* 1 when path exists as given or as path.zst (then *zpath, n bytes, is the
 * name that exists). */
int unpacked_exists(const char *path, char *zpath, size_t n);

#endif
