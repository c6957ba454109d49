/* The diagnostics server side for the IPC tests: a listening Unix socket
 * standing in for a runtime's, and the reading of one request. */
#ifndef PP_TESTS_FAKE_RUNTIME_H
#define PP_TESTS_FAKE_RUNTIME_H

#include <stddef.h>
#include <stdint.h>

/* Listen at /tmp/pp-check-TAG-PID-N.sock (its path in path[size]); the
 * listening fd, or -1. */
int fake_runtime_listen(char *path, size_t size, const char *tag, int n);
/* One request (header and payload, at most cap bytes) into out; the bytes
 * read (< 20: the client went away). */
size_t fake_runtime_read(int fd, uint8_t *out, size_t cap);

#endif
