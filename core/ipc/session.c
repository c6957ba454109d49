/* Diagnostics IPC EventPipe sessions: CollectTracing2/3/4 to start (the
 * nettrace stream follows the reply on the same connection), StopTracing
 * on a new connection to stop. */
#include "config.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/socket.h>

#include <perfpipe/perfpipe.h>

#include "ipc/ipc.h"

struct pp_ipc_session {
    pp_ipc_endpoint *ep;
    int fd;
    uint64_t id;
    pthread_mutex_t lock;
    int stopped;
};

/* CollectTracing2: bufMB, format, bool rundown, providers.
 * CollectTracing3: ... bool rundown, bool stackwalk, providers.
 * CollectTracing4: bufMB, format, ulong rundown keyword, bool stackwalk, providers. */
static void
build_start(pp_ipc_buf *b, uint8_t id, const pp_ipc_session_config *cfg)
{
    pp_ipc_buf_u32(b, cfg->buffer_mb ? cfg->buffer_mb : 256);
    pp_ipc_buf_u32(b, 1); /* 1 = NetTrace */
    if (id == PP_IPC_EP_COLLECT_TRACING4) {
        pp_ipc_buf_u64(b, cfg->rundown_keyword);
        pp_ipc_buf_u8(b, cfg->request_stackwalk ? 1 : 0);
    } else {
        pp_ipc_buf_u8(b, cfg->rundown_keyword ? 1 : 0);
        if (id == PP_IPC_EP_COLLECT_TRACING3)
            pp_ipc_buf_u8(b, cfg->request_stackwalk ? 1 : 0);
    }
    pp_ipc_buf_u32(b, (uint32_t)cfg->nproviders);
    for (size_t i = 0; i < cfg->nproviders; i++) {
        const pp_ipc_provider *p = &cfg->providers[i];
        pp_ipc_buf_u64(b, p->keywords);
        pp_ipc_buf_u32(b, p->level);
        pp_ipc_buf_string(b, p->name);
        pp_ipc_buf_string(b, p->arguments);
    }
}

static int
start_with(pp_ipc_endpoint *ep, uint8_t id, const pp_ipc_session_config *cfg, int timeout_ms,
           int *fd_out, uint64_t *sid, pp_error *err)
{
    static const char *const names[] = {
        "", "", "", "CollectTracing2", "CollectTracing3", "CollectTracing4"
    };
    pp_ipc_buf b = { 0 };
    pp_ipc_msg m;
    int fd, rc;

    build_start(&b, id, cfg);
    if (b.failed) {
        pp_ipc_buf_free(&b);
        pp_error_set(err, PP_ELIMIT,
                     "diagnostics IPC: the provider list does not fit one "
                     "65535-byte message");
        return PP_ELIMIT;
    }
    if ((rc = pp_ipc_endpoint_open(ep, timeout_ms, &fd, err)) != PP_OK) {
        pp_ipc_buf_free(&b);
        return rc;
    }
    rc = pp_ipc_send(fd, PP_IPC_SET_EVENTPIPE, id, b.data, b.len, err);
    pp_ipc_buf_free(&b);
    if (rc == PP_OK)
        rc = pp_ipc_recv_watch(fd, &m, timeout_ms, cfg->alive, cfg->alive_user,
                               cfg->alive ? cfg->alive_cap_ms : -1, err);
    if (rc == PP_OK) {
        rc = pp_ipc_reply_check(&m, names[id], NULL, err);
        if (rc == PP_OK) {
            pp_ipc_cursor c = { m.payload, m.len, 0, 0 };
            *sid = pp_ipc_get_u64(&c);
            if (c.failed) {
                pp_error_set(err, PP_EFORMAT, "diagnostics IPC: %s reply has no session id",
                             names[id]);
                rc = PP_EFORMAT;
            }
        }
        pp_ipc_msg_free(&m);
    }
    if (rc != PP_OK) {
        close(fd);
        return rc;
    }
    *fd_out = fd;
    return PP_OK;
}

int
pp_ipc_session_start(pp_ipc_endpoint *ep, const pp_ipc_session_config *cfg, int timeout_ms,
                     pp_ipc_session **out, pp_error *err)
{
    pp_ipc_session *s;
    uint8_t id;
    int fd = -1, rc;
    uint64_t sid = 0;

    *out = NULL;
    if (cfg->nproviders == 0) {
        pp_error_set(err, PP_EINVAL, "a tracing session needs at least one provider");
        return PP_EINVAL;
    }
    if (cfg->rundown_keyword != 0 && cfg->rundown_keyword != PP_IPC_DEFAULT_RUNDOWN_KEYWORD)
        id = PP_IPC_EP_COLLECT_TRACING4;
    else if (!cfg->request_stackwalk)
        id = PP_IPC_EP_COLLECT_TRACING3;
    else
        id = PP_IPC_EP_COLLECT_TRACING2;
    rc = start_with(ep, id, cfg, timeout_ms, &fd, &sid, err);
    if (rc == PP_EUNSUPPORTED && id == PP_IPC_EP_COLLECT_TRACING4) {
        /* Before .NET 9: the default rundown is what there is (as dotnet-trace
         * falls back). */
        pp_ipc_session_config c2 = *cfg;
        c2.rundown_keyword = PP_IPC_DEFAULT_RUNDOWN_KEYWORD;
        rc = start_with(
            ep, cfg->request_stackwalk ? PP_IPC_EP_COLLECT_TRACING2 : PP_IPC_EP_COLLECT_TRACING3,
            &c2, timeout_ms, &fd, &sid, err);
    }
    if (rc != PP_OK)
        return rc;
    if ((s = calloc(1, sizeof *s)) == NULL) {
        close(fd);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    s->ep = ep;
    s->fd = fd;
    s->id = sid;
    pthread_mutex_init(&s->lock, NULL);
    *out = s;
    return PP_OK;
}

uint64_t
pp_ipc_session_id(const pp_ipc_session *s)
{
    return s->id;
}

int
pp_ipc_session_fd(const pp_ipc_session *s)
{
    return s->fd;
}

int
pp_ipc_session_stop(pp_ipc_session *s, int timeout_ms, pp_error *err)
{
    pp_ipc_buf b = { 0 };
    pp_ipc_msg m;
    int rc;

    pthread_mutex_lock(&s->lock);
    if (s->stopped) {
        pthread_mutex_unlock(&s->lock);
        return PP_OK;
    }
    s->stopped = 1;
    pp_ipc_buf_u64(&b, s->id);
    rc = pp_ipc_command(s->ep, PP_IPC_SET_EVENTPIPE, PP_IPC_EP_STOP_TRACING, &b, timeout_ms, &m,
                        err);
    pp_ipc_buf_free(&b);
    if (rc == PP_OK) {
        rc = pp_ipc_reply_check(&m, "StopTracing", NULL, err);
        pp_ipc_msg_free(&m);
    }
    pthread_mutex_unlock(&s->lock);
    return rc;
}

void
pp_ipc_session_close(pp_ipc_session *s)
{
    if (!s)
        return;
    if (s->fd >= 0)
        close(s->fd);
    pthread_mutex_destroy(&s->lock);
    free(s);
}
