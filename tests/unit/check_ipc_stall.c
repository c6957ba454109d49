/* A runtime that accepts and never answers: the wait for a reply ends with
 * a failure that names the step, how long it waited and what to do, and is
 * asked once more only where that is safe (issue 35). The server is a
 * thread on a Unix socket that answers by command, or holds the
 * connection open without a word. */
#include "config.h"

#include <check.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/socket.h>

#include <perfpipe/perfpipe.h>

#include "ipc/heapsnap.h"
#include "ipc/ipc.h"

#include "fake_runtime.h"

typedef struct stall_server {
    int lfd;
    int stall_info; /* ProcessInfo(2) never answered; else CollectTracing #2 */
    int info, collect, stop;
    int held[8], nheld;
} stall_server;

static void
hold(stall_server *sv, int fd)
{
    if (sv->nheld < 8)
        sv->held[sv->nheld++] = fd;
    else
        close(fd);
}

static void *
serve(void *arg)
{
    stall_server *sv = arg;
    for (;;) {
        int fd = accept(sv->lfd, NULL, NULL);
        if (fd < 0)
            return NULL;
        uint8_t req[1024];
        if (fake_runtime_read(fd, req, sizeof req) < 20) {
            close(fd);
            continue;
        }
        pp_ipc_buf b = { 0 };
        if (req[16] == PP_IPC_SET_PROCESS) {
            sv->info++;
            if (sv->stall_info) {
                hold(sv, fd);
                continue;
            }
            if (req[17] != PP_IPC_PROC_INFO) { /* ProcessInfo2: "older runtime" */
                pp_ipc_buf_u32(&b, PP_IPC_HR_UNKNOWN_COMMAND);
                pp_ipc_send(fd, 0xFF, 0xFF, b.data, b.len, NULL);
            } else {
                uint8_t cookie[16] = { 1 };
                pp_ipc_buf_u64(&b, 4242);
                for (int k = 0; k < 16; k++)
                    pp_ipc_buf_u8(&b, cookie[k]);
                pp_ipc_buf_string(&b, "/usr/bin/dotnet App.dll");
                pp_ipc_buf_string(&b, "Linux");
                pp_ipc_buf_string(&b, "x64");
                pp_ipc_send(fd, 0xFF, 0x00, b.data, b.len, NULL);
            }
        } else if (req[17] == PP_IPC_EP_STOP_TRACING) {
            sv->stop++;
            pp_ipc_buf_u64(&b, 77);
            pp_ipc_send(fd, 0xFF, 0x00, b.data, b.len, NULL);
        } else if (++sv->collect == 2) {
            hold(sv, fd); /* the heap dump's start: the "walk" never ends */
            continue;
        } else {
            pp_ipc_buf_u64(&b, 77); /* the type flush: its stream ends at once */
            pp_ipc_send(fd, 0xFF, 0x00, b.data, b.len, NULL);
        }
        pp_ipc_buf_free(&b);
        close(fd);
    }
}

static void
start(stall_server *sv, char *path, size_t size, pthread_t *t)
{
    sv->lfd = fake_runtime_listen(path, size, "stall", sv->stall_info);
    ck_assert_int_ge(sv->lfd, 0);
    pthread_create(t, NULL, serve, sv);
}

static void
stop(stall_server *sv, const char *path, pthread_t t)
{
    shutdown(sv->lfd, SHUT_RDWR); /* accept() returns */
    pthread_join(t, NULL);
    close(sv->lfd);
    for (int i = 0; i < sv->nheld; i++)
        close(sv->held[i]);
    unlink(path);
}

/* collect_from(sv, timeout_s, out): one heap snapshot of the server. */
static int
collect_from(const char *path, double timeout_s, const char *out, pp_error *err)
{
    char port[160];
    snprintf(port, sizeof port, "%s,connect", path);
    pp_heapsnap_spec spec = { .timeout_s = timeout_s };
    spec.target.diagnostic_port = port;
    spec.target.output = out;
    pp_heapsnap_result res;
    return pp_heapsnap_collect(&spec, &res, err);
}

START_TEST(process_info_asked_twice_then_named)
{
    stall_server sv = { .stall_info = 1 };
    char path[128], out[160];
    pthread_t t;
    pp_error err = PP_ERROR_INIT;
    setenv("PERFPIPE_IPC_TIMEOUT", "0.5", 1);
    start(&sv, path, sizeof path, &t);
    snprintf(out, sizeof out, "%s.gcdump", path);
    ck_assert_int_eq(collect_from(path, 30, out, &err), PP_EIO);
    stop(&sv, path, t);
    ck_assert_int_eq(sv.info, 2); /* asked once more: it changes nothing */
    ck_assert_int_eq(sv.collect, 0);
    ck_assert_msg(strstr(err.message, "did not answer ProcessInfo") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "within 0.5 s") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "PERFPIPE_IPC_TIMEOUT=SECONDS") != NULL, "%s", err.message);
    ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

START_TEST(dump_start_not_asked_again)
{
    stall_server sv = { .stall_info = 0 };
    char path[128], out[160];
    pthread_t t;
    pp_error err = PP_ERROR_INIT;
    setenv("PERFPIPE_IPC_TIMEOUT", "5", 1);
    start(&sv, path, sizeof path, &t);
    snprintf(out, sizeof out, "%s.gcdump", path);
    ck_assert_int_eq(collect_from(path, 1, out, &err), PP_EIO);
    stop(&sv, path, t);
    ck_assert_int_eq(sv.info, 2); /* ProcessInfo2 refused, ProcessInfo */
    ck_assert_int_eq(sv.stop, 1); /* the type flush stopped */
    /* the flush and the dump: a second dump request would queue behind
     * the first and walk the heap again */
    ck_assert_int_eq(sv.collect, 2);
    ck_assert_msg(strstr(err.message, "did not answer the heap-dump session's start") != NULL, "%s",
                  err.message);
    ck_assert_msg(strstr(err.message, "within 1 s") != NULL, "%s", err.message);
    ck_assert_msg(strstr(err.message, "--timeout SECONDS") != NULL, "%s", err.message);
    ck_assert_int_ne(access(out, F_OK), 0);
}
END_TEST

/* alive(): yes for the first `yes` questions, then no. */
typedef struct answers {
    int asked, yes;
} answers;

static int
alive(void *user)
{
    answers *a = user;
    return a->asked++ < a->yes;
}

static double
now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

START_TEST(a_live_target_is_waited_for)
{
    int sp[2];
    pp_ipc_msg m;
    pp_error err = PP_ERROR_INIT;
    answers a = { 0, 3 };
    ck_assert_int_eq(socketpair(AF_UNIX, SOCK_STREAM, 0, sp), 0);
    double t0 = now_s();
    ck_assert_int_eq(pp_ipc_recv_watch(sp[0], &m, 400, alive, &a, -1, &err), PP_EIO);
    double took = now_s() - t0;
    ck_assert_msg(pp_ipc_no_reply(&err), "%s", err.message);
    ck_assert_msg(strstr(err.message, "within 0.4 s without progress") != NULL, "%s", err.message);
    ck_assert_int_ge(a.asked, 4); /* three yes, then the no that ends it */
    ck_assert_msg(took >= 1.0, "waited %.2f s for a target alive three times", took);

    /* alive all along: the cap ends it */
    answers always = { 0, 1000000 };
    ck_assert_int_eq(pp_ipc_recv_watch(sp[0], &m, 300, alive, &always, 900, &err), PP_EIO);
    ck_assert_msg(strstr(err.message, "its limit") != NULL, "%s", err.message);

    /* without a watch: the plain timeout, and an answer is read */
    ck_assert_int_eq(pp_ipc_recv(sp[0], &m, 200, &err), PP_EIO);
    ck_assert_msg(strstr(err.message, "within 0.2 s") != NULL, "%s", err.message);
    ck_assert_int_eq(pp_ipc_send(sp[1], 0xFF, 0x00, NULL, 0, &err), PP_OK);
    ck_assert_int_eq(pp_ipc_recv_watch(sp[0], &m, 400, alive, &a, -1, &err), PP_OK);
    ck_assert_uint_eq(m.command_set, 0xFF);
    pp_ipc_msg_free(&m);
    close(sp[0]);
    close(sp[1]);
}
END_TEST

START_TEST(the_timeout_variable)
{
    unsetenv("PERFPIPE_IPC_TIMEOUT");
    ck_assert_int_eq(pp_ipc_command_timeout_ms(30000), 30000);
    setenv("PERFPIPE_IPC_TIMEOUT", "90", 1);
    ck_assert_int_eq(pp_ipc_command_timeout_ms(30000), 90000);
    setenv("PERFPIPE_IPC_TIMEOUT", "2.5", 1);
    ck_assert_int_eq(pp_ipc_command_timeout_ms(30000), 2500);
    setenv("PERFPIPE_IPC_TIMEOUT", "10s", 1);
    ck_assert_int_eq(pp_ipc_command_timeout_ms(30000), 10000);
    const char *bad[] = { "0", "-3", "soon", "10 s", "" };
    for (size_t i = 0; i < sizeof bad / sizeof *bad; i++) {
        setenv("PERFPIPE_IPC_TIMEOUT", bad[i], 1);
        ck_assert_int_eq(pp_ipc_command_timeout_ms(30000), 30000);
    }
}
END_TEST

int
main(void)
{
    Suite *s = suite_create("ipc-stall");
    TCase *tc = tcase_create("core");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, process_info_asked_twice_then_named);
    tcase_add_test(tc, dump_start_not_asked_again);
    tcase_add_test(tc, a_live_target_is_waited_for);
    tcase_add_test(tc, the_timeout_variable);
    suite_add_tcase(s, tc);
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
