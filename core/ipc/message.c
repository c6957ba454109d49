/* Diagnostics IPC message framing: the 20-byte header, little-endian
 * payload encoding, UTF-16 protocol strings, whole-message receive with a
 * deadline. */
#include "config.h"

#include <errno.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <perfpipe/perfpipe.h>

#include "ipc/ipc.h"

static const uint8_t magic[14] = "DOTNET_IPC_V1";

static void
buf_put(pp_ipc_buf *b, const void *p, size_t n)
{
    if (b->failed)
        return;
    if (b->len + n > PP_IPC_MESSAGE_MAX - PP_IPC_HEADER_SIZE) {
        b->failed = 1;
        return;
    }
    if (b->len + n > b->cap) {
        size_t ncap = b->cap ? b->cap * 2 : 256;
        while (ncap < b->len + n)
            ncap *= 2;
        uint8_t *nd = realloc(b->data, ncap);
        if (!nd) {
            b->failed = 1;
            return;
        }
        b->data = nd;
        b->cap = ncap;
    }
    memcpy(b->data + b->len, p, n);
    b->len += n;
}

void
pp_ipc_buf_u8(pp_ipc_buf *b, uint8_t v)
{
    buf_put(b, &v, 1);
}

void
pp_ipc_buf_u32(pp_ipc_buf *b, uint32_t v)
{
    uint8_t le[4] = { (uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24) };
    buf_put(b, le, 4);
}

void
pp_ipc_buf_u64(pp_ipc_buf *b, uint64_t v)
{
    pp_ipc_buf_u32(b, (uint32_t)v);
    pp_ipc_buf_u32(b, (uint32_t)(v >> 32));
}

/* Decode one UTF-8 sequence; invalid bytes become U+FFFD. */
static uint32_t
utf8_next(const unsigned char **s)
{
    const unsigned char *p = *s;
    uint32_t c = *p++;
    int n = 0;

    if (c >= 0xF0 && c < 0xF8) {
        c &= 0x07;
        n = 3;
    } else if (c >= 0xE0) {
        c &= 0x0F;
        n = 2;
    } else if (c >= 0xC0) {
        c &= 0x1F;
        n = 1;
    } else if (c >= 0x80) {
        *s = p;
        return 0xFFFD;
    }
    for (int i = 0; i < n; i++) {
        if ((*p & 0xC0) != 0x80) {
            *s = p;
            return 0xFFFD;
        }
        c = (c << 6) | (*p++ & 0x3F);
    }
    *s = p;
    return c > 0x10FFFF ? 0xFFFD : c;
}

static void
put_u16(pp_ipc_buf *b, uint32_t u)
{
    uint8_t le[2] = { (uint8_t)u, (uint8_t)(u >> 8) };
    buf_put(b, le, 2);
}

void
pp_ipc_buf_string(pp_ipc_buf *b, const char *s)
{
    if (s == NULL || *s == '\0') {
        pp_ipc_buf_u32(b, 0);
        return;
    }
    /* Count UTF-16 units first (the count precedes the data). */
    uint32_t units = 1;
    for (const unsigned char *p = (const unsigned char *)s; *p;)
        units += utf8_next(&p) >= 0x10000 ? 2 : 1;
    pp_ipc_buf_u32(b, units);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        uint32_t c = utf8_next(&p);
        if (c >= 0x10000) {
            c -= 0x10000;
            put_u16(b, 0xD800 + (c >> 10));
            put_u16(b, 0xDC00 + (c & 0x3FF));
        } else {
            put_u16(b, c);
        }
    }
    put_u16(b, 0);
}

void
pp_ipc_buf_free(pp_ipc_buf *b)
{
    free(b->data);
    memset(b, 0, sizeof *b);
}

static int
write_all(int fd, const uint8_t *p, size_t n, pp_error *err)
{
    while (n > 0) {
        ssize_t k = send(fd, p, n, MSG_NOSIGNAL);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            pp_error_set(err, PP_EIO, "diagnostics IPC: send failed: %s", strerror(errno));
            return PP_EIO;
        }
        p += k;
        n -= (size_t)k;
    }
    return PP_OK;
}

int
pp_ipc_send(int fd, uint8_t set, uint8_t id, const void *payload, size_t len, pp_error *err)
{
    uint8_t h[PP_IPC_HEADER_SIZE];
    size_t total = PP_IPC_HEADER_SIZE + len;

    if (total > PP_IPC_MESSAGE_MAX) {
        pp_error_set(err, PP_ELIMIT,
                     "diagnostics IPC: a %zu-byte message is over the "
                     "protocol's 65535-byte limit (too many providers or arguments?)",
                     total);
        return PP_ELIMIT;
    }
    memcpy(h, magic, 14);
    h[14] = (uint8_t)total;
    h[15] = (uint8_t)(total >> 8);
    h[16] = set;
    h[17] = id;
    h[18] = h[19] = 0;
    int rc = write_all(fd, h, sizeof h, err);
    if (rc == PP_OK && len > 0)
        rc = write_all(fd, payload, len, err);
    return rc;
}

static int64_t
now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* How long a reply may take: idle_ms (< 0 = forever) from the start or
 * from the last time alive(user) answered nonzero, asked about once a
 * second; never past cap (< 0 = none). */
typedef struct wait_for {
    int idle_ms;
    int (*alive)(void *user);
    void *user;
    int64_t start, deadline, cap;
} wait_for;

static void
timed_out(const wait_for *w, pp_error *err)
{
    int64_t now = now_ms();
    double idle = w->idle_ms / 1000.0, all = (double)(now - w->start) / 1000.0;
    if (w->alive && w->cap >= 0 && now >= w->cap)
        pp_error_set(err, PP_EIO, "%s in %.0f s, its limit (the process ran all along)",
                     PP_IPC_NO_REPLY, all);
    else if (w->alive && all > idle + 0.5)
        pp_error_set(err, PP_EIO, "%s within %.3g s without progress (%.0f s in all)",
                     PP_IPC_NO_REPLY, idle, all);
    else
        pp_error_set(err, PP_EIO, "%s within %.3g s", PP_IPC_NO_REPLY, idle);
}

/* Read exactly n bytes before w's deadline. */
static int
read_exact(int fd, uint8_t *p, size_t n, wait_for *w, pp_error *err)
{
    size_t got = 0;

    while (got < n) {
        if (w->deadline >= 0) {
            int64_t now = now_ms(), left = w->deadline - now;
            if (left <= 0 && w->alive && (w->cap < 0 || now < w->cap) && w->alive(w->user)) {
                w->deadline = now + w->idle_ms;
                left = w->idle_ms;
            }
            if (left <= 0) {
                timed_out(w, err);
                return PP_EIO;
            }
            if (w->alive && left > 1000)
                left = 1000;
            struct pollfd pfd = { fd, POLLIN, 0 };
            int pr = poll(&pfd, 1, (int)left);
            if (pr < 0 && errno == EINTR)
                continue;
            if (pr == 0) {
                /* A live target moves the deadline on (but not past cap). */
                if (w->alive && w->alive(w->user)) {
                    int64_t d = now_ms() + w->idle_ms;
                    w->deadline = w->cap >= 0 && d > w->cap ? w->cap : d;
                }
                continue;
            }
        }
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0) {
            if (errno == EINTR)
                continue;
            pp_error_set(err, PP_EIO, "diagnostics IPC: read failed: %s", strerror(errno));
            return PP_EIO;
        }
        if (k == 0) {
            pp_error_set(err, PP_EIO,
                         "diagnostics IPC: the runtime closed the connection "
                         "after %zu of %zu bytes of its reply",
                         got, n);
            return PP_EIO;
        }
        got += (size_t)k;
    }
    return PP_OK;
}

static int
recv_within(int fd, pp_ipc_msg *msg, wait_for *w, pp_error *err)
{
    uint8_t h[PP_IPC_HEADER_SIZE];

    memset(msg, 0, sizeof *msg);
    int rc = read_exact(fd, h, sizeof h, w, err);
    if (rc != PP_OK)
        return rc;
    if (memcmp(h, magic, 14) != 0) {
        pp_error_set(err, PP_EFORMAT,
                     "diagnostics IPC: the reply does not start with the "
                     "DOTNET_IPC_V1 magic (not a .NET diagnostics socket?)");
        return PP_EFORMAT;
    }
    size_t size = (size_t)h[14] | (size_t)h[15] << 8;
    if (size < PP_IPC_HEADER_SIZE) {
        pp_error_set(err, PP_EFORMAT,
                     "diagnostics IPC: reply size %zu is below the "
                     "20-byte header",
                     size);
        return PP_EFORMAT;
    }
    msg->command_set = h[16];
    msg->command_id = h[17];
    msg->len = size - PP_IPC_HEADER_SIZE;
    if (msg->len > 0) {
        if ((msg->payload = malloc(msg->len)) == NULL) {
            pp_error_set(err, PP_ENOMEM, "diagnostics IPC: out of memory");
            return PP_ENOMEM;
        }
        rc = read_exact(fd, msg->payload, msg->len, w, err);
        if (rc != PP_OK) {
            pp_ipc_msg_free(msg);
            return rc;
        }
    }
    return PP_OK;
}

int
pp_ipc_recv(int fd, pp_ipc_msg *msg, int timeout_ms, pp_error *err)
{
    return pp_ipc_recv_watch(fd, msg, timeout_ms, NULL, NULL, -1, err);
}

int
pp_ipc_recv_watch(int fd, pp_ipc_msg *msg, int idle_ms, int (*alive)(void *user), void *user,
                  int cap_ms, pp_error *err)
{
    wait_for w = { idle_ms, alive, user, now_ms(), -1, -1 };
    if (idle_ms >= 0) {
        w.deadline = w.start + idle_ms;
        w.cap = cap_ms < 0 ? -1 : w.start + cap_ms;
    }
    return recv_within(fd, msg, &w, err);
}

int
pp_ipc_no_reply(const pp_error *err)
{
    return err && strncmp(err->message, PP_IPC_NO_REPLY, strlen(PP_IPC_NO_REPLY)) == 0;
}

int
pp_ipc_command_timeout_ms(int dflt_ms)
{
    const char *v = getenv("PERFPIPE_IPC_TIMEOUT");
    char *end;
    if (!v || !*v)
        return dflt_ms;
    double s = strtod(v, &end);
    if (end != v && *end == 's') /* "90s", as --timeout takes it */
        end++;
    if (end == v || *end || !(s > 0) || s > 86400.0)
        return dflt_ms;
    return (int)(s * 1000.0 + 0.5);
}

void
pp_ipc_msg_free(pp_ipc_msg *msg)
{
    free(msg->payload);
    msg->payload = NULL;
    msg->len = 0;
}

int
pp_ipc_reply_check(const pp_ipc_msg *msg, const char *what, uint32_t *hresult, pp_error *err)
{
    if (hresult)
        *hresult = 0;
    if (msg->command_set == PP_IPC_SET_SERVER && msg->command_id == PP_IPC_SERVER_OK)
        return PP_OK;
    if (msg->command_set == PP_IPC_SET_SERVER && msg->command_id == PP_IPC_SERVER_ERROR) {
        uint32_t hr = 0;
        if (msg->len >= 4)
            hr = (uint32_t)msg->payload[0] | (uint32_t)msg->payload[1] << 8 |
                 (uint32_t)msg->payload[2] << 16 | (uint32_t)msg->payload[3] << 24;
        if (hresult)
            *hresult = hr;
        if (hr == PP_IPC_HR_UNKNOWN_COMMAND) {
            pp_error_set(err, PP_EUNSUPPORTED,
                         "diagnostics IPC: the runtime does not know "
                         "%s (HRESULT 0x%08X: older runtime)",
                         what, hr);
            return PP_EUNSUPPORTED;
        }
        pp_error_set(err, PP_EIO, "diagnostics IPC: the runtime refused %s (HRESULT 0x%08X)", what,
                     hr);
        return PP_EIO;
    }
    pp_error_set(err, PP_EFORMAT, "diagnostics IPC: unexpected reply 0x%02X/0x%02X to %s",
                 msg->command_set, msg->command_id, what);
    return PP_EFORMAT;
}

static const uint8_t *
take(pp_ipc_cursor *c, size_t n)
{
    if (c->failed || n > c->len - c->at) {
        c->failed = 1;
        return NULL;
    }
    const uint8_t *p = c->p + c->at;
    c->at += n;
    return p;
}

uint32_t
pp_ipc_get_u32(pp_ipc_cursor *c)
{
    const uint8_t *p = take(c, 4);
    return p ? (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24 :
               0;
}

uint64_t
pp_ipc_get_u64(pp_ipc_cursor *c)
{
    uint64_t lo = pp_ipc_get_u32(c);
    return lo | (uint64_t)pp_ipc_get_u32(c) << 32;
}

void
pp_ipc_get_bytes(pp_ipc_cursor *c, void *out, size_t n)
{
    const uint8_t *p = take(c, n);
    if (p)
        memcpy(out, p, n);
    else
        memset(out, 0, n);
}

char *
pp_ipc_get_string(pp_ipc_cursor *c)
{
    uint32_t units = pp_ipc_get_u32(c);
    if (c->failed)
        return NULL;
    if (units > (c->len - c->at) / 2) {
        c->failed = 1;
        return NULL;
    }
    const uint8_t *p = take(c, (size_t)units * 2);
    char *out = malloc((size_t)units * 3 + 1), *o = out;
    if (!out) {
        c->failed = 1;
        return NULL;
    }
    for (uint32_t i = 0; i < units; i++) {
        uint32_t u = (uint32_t)p[2 * i] | (uint32_t)p[2 * i + 1] << 8;
        if (u == 0)
            break;
        if (u >= 0xD800 && u < 0xDC00 && i + 1 < units) {
            uint32_t lo = (uint32_t)p[2 * i + 2] | (uint32_t)p[2 * i + 3] << 8;
            if (lo >= 0xDC00 && lo < 0xE000) {
                u = 0x10000 + ((u - 0xD800) << 10) + (lo - 0xDC00);
                i++;
            } else {
                u = 0xFFFD;
            }
        } else if (u >= 0xD800 && u < 0xE000) {
            u = 0xFFFD;
        }
        if (u < 0x80) {
            *o++ = (char)u;
        } else if (u < 0x800) {
            *o++ = (char)(0xC0 | u >> 6);
            *o++ = (char)(0x80 | (u & 0x3F));
        } else if (u < 0x10000) {
            *o++ = (char)(0xE0 | u >> 12);
            *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
            *o++ = (char)(0x80 | (u & 0x3F));
        } else {
            *o++ = (char)(0xF0 | u >> 18);
            *o++ = (char)(0x80 | ((u >> 12) & 0x3F));
            *o++ = (char)(0x80 | ((u >> 6) & 0x3F));
            *o++ = (char)(0x80 | (u & 0x3F));
        }
    }
    *o = '\0';
    return out;
}
