/* fake_runtime.h: the server side for the IPC tests. */
#include "config.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "fake_runtime.h"

int
fake_runtime_listen(char *path, size_t size, const char *tag, int n)
{
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    snprintf(path, size, "/tmp/pp-check-%s-%ld-%d.sock", tag, (long)getpid(), n);
    unlink(path);
    snprintf(sa.sun_path, sizeof sa.sun_path, "%s", path);
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd < 0)
        return -1;
    if (bind(fd, (struct sockaddr *)&sa, sizeof sa) != 0 || listen(fd, 4) != 0) {
        close(fd);
        return -1;
    }
    return fd;
}

size_t
fake_runtime_read(int fd, uint8_t *out, size_t cap)
{
    size_t got = 0, want = 20;
    while (got < want && got < cap) {
        ssize_t k = read(fd, out + got, (want < cap ? want : cap) - got);
        if (k <= 0)
            break;
        got += (size_t)k;
        if (got >= 16)
            want = (size_t)out[14] | (size_t)out[15] << 8;
    }
    return got;
}
