/* A fault plugin, compiled once per fault (FAULT=...), to run beside a
 * shipped analyzer: the shipped stage's result must be written and right
 * whatever this one does (tests/faults/test-faults.sh).
 *   segv      writes through a wild pointer in consume
 *   abort     abort() in finish
 *   exit      exit(0) in consume
 *   stdout    printf in consume (the document is on stdout)
 *   loop      never returns from consume
 *   sleep     sleeps in finish
 *   nullargs  NULL to every host function, then goes on
 *   garbage   a 2^30-column table, then a row on a forged table handle
 *   destroyrow keeps its table and adds a row from destroy()
 *   bigdesc / slots / features / badname / badopt: a lying descriptor
 *             (struct_size 0xFFFFFFFF, 10^8 input slots, host features
 *             nobody offers, a name or an option help pointing nowhere)
 *   ctor      crashes in its constructor, while being loaded
 *   loadprint printf in its entry function
 *   entrysleep never returns from its entry function
 *   chdir     chdir($PP_FAULT_DIR, else "/") in create
 *   umask     umask(0) in create
 *   closefds  closes every descriptor above 2 in create
 *   linger    forks in create a child that sleeps 1000 s, its pid written
 *             to $PP_FAULT_PIDFILE
 *   nan       a table of figures: NaN, +infinity, -infinity and 1.5
 *   dupkey    a keyed table whose rows repeat a key ("a" twice)
 *   signals   in create, $PP_FAULT_SIGMODE for SIGINT, SIGTERM and SIGHUP:
 *             "ignore" (SIG_IGN), "handler" (a handler that does nothing)
 *             or "block" (sigprocmask); in finish, when $PP_FAULT_READY is
 *             set, creates that file and goes on after $PP_FAULT_HOLD
 *             seconds whatever signal comes
 *   daemon    forks in create a daemon: a second fork, setsid(), SIGINT,
 *             SIGTERM and SIGHUP ignored, the descriptors kept, its pid
 *             written to $PP_FAULT_PIDFILE; finish never returns when
 *             $PP_FAULT_HANG is set
 *   nomem     finish fails with PP_ENOMEM, "out of memory" (an analyzer
 *             that ran out of memory: its stage fails, the others stand) */
#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <perfpipe/plugin.h>

#define F_SEGV       1
#define F_ABORT      2
#define F_EXIT       3
#define F_STDOUT     4
#define F_LOOP       5
#define F_SLEEP      6
#define F_NULLARGS   7
#define F_GARBAGE    8
#define F_DESTROYROW 9
#define F_BIGDESC    10
#define F_SLOTS      11
#define F_FEATURES   12
#define F_BADNAME    13
#define F_BADOPT     14
#define F_CTOR       15
#define F_LOADPRINT  16
#define F_ENTRYSLEEP 17
#define F_CHDIR      18
#define F_UMASK      19
#define F_CLOSEFDS   20
#define F_LINGER     21
#define F_NAN        22
#define F_DUPKEY     23
#define F_SIGNALS    24
#define F_DAEMON     25
#define F_NOMEM      26

#ifndef FAULT
#error FAULT must name the fault
#endif
#ifndef FAULT_NAME
#error FAULT_NAME must name the plugin
#endif

typedef struct state {
    const pp_host_api *host;
    const pp_options *opts;
    uint64_t records;
    pp_table *kept;
} state;

static void
do_nothing(int sig)
{
    (void)sig;
}

/* SIGINT, SIGTERM and SIGHUP ignored, caught or blocked ($PP_FAULT_SIGMODE). */
static void
change_signals(void)
{
    const char *mode = getenv("PP_FAULT_SIGMODE") ? getenv("PP_FAULT_SIGMODE") : "ignore";
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    sigset_t set;

    sigemptyset(&set);
    for (int i = 0; i < 3; i++) {
        if (strcmp(mode, "ignore") == 0)
            signal(sigs[i], SIG_IGN);
        else if (strcmp(mode, "handler") == 0) {
            struct sigaction sa;
            memset(&sa, 0, sizeof sa);
            sa.sa_handler = do_nothing;
            sa.sa_flags = SA_RESTART;
            sigaction(sigs[i], &sa, NULL);
        }
        sigaddset(&set, sigs[i]);
    }
    if (strcmp(mode, "block") == 0)
        sigprocmask(SIG_BLOCK, &set, NULL);
}

/* Write our pid to $PP_FAULT_PIDFILE (through a temporary name: a reader
 * never sees it half written). */
static void
write_pid(pid_t pid)
{
    const char *path = getenv("PP_FAULT_PIDFILE");
    char tmp[4096];
    FILE *f;

    if (path == NULL)
        return;
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    if ((f = fopen(tmp, "w")) != NULL) {
        fprintf(f, "%d\n", (int)pid);
        fclose(f);
        rename(tmp, path);
    }
}

/* A daemon as the books make one, except that it keeps every descriptor
 * (the stages' pipe and the real stdout among them). create() returns
 * once its pid is written. */
static void
daemonize(void)
{
    int ready[2];
    char c = 0;
    pid_t pid;

    if (pipe(ready) != 0)
        return;
    if ((pid = fork()) != 0) {
        close(ready[1]);
        if (pid > 0) {
            while (read(ready[0], &c, 1) < 0 && errno == EINTR)
                ;
            while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
                ;
        }
        close(ready[0]);
        return;
    }
    close(ready[0]);
    setsid();
    signal(SIGINT, SIG_IGN);
    signal(SIGTERM, SIG_IGN);
    signal(SIGHUP, SIG_IGN);
    if (fork() != 0)
        _exit(0);
    write_pid(getpid());
    (void)write(ready[1], &c, 1);
    close(ready[1]);
    for (;;)
        pause();
}

/* Create $PP_FAULT_READY, then go on only after $PP_FAULT_HOLD seconds,
 * whatever signal interrupts the wait. */
static void
ready_then_hold(void)
{
    const char *ready = getenv("PP_FAULT_READY"), *hold = getenv("PP_FAULT_HOLD");
    struct timespec start, now;
    FILE *f;

    if (ready == NULL || (f = fopen(ready, "w")) == NULL)
        return;
    fclose(f);
    clock_gettime(CLOCK_MONOTONIC, &start);
    do {
        usleep(20000);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - start.tv_sec < (hold ? atoi(hold) : 0));
}

static int
create(const pp_host_api *host, pp_ctx *ctx, const pp_options *opts, void **out, pp_error *err)
{
    state *s = calloc(1, sizeof *s);

    (void)ctx;
    if (s == NULL) {
        host->error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    s->host = host;
    s->opts = opts;
    *out = s;
    if (FAULT == F_CHDIR && chdir(getenv("PP_FAULT_DIR") ? getenv("PP_FAULT_DIR") : "/") != 0)
        return PP_OK;
    if (FAULT == F_UMASK)
        umask(0);
    if (FAULT == F_CLOSEFDS)
        for (int fd = 3; fd < 1024; fd++)
            close(fd);
    if (FAULT == F_SIGNALS)
        change_signals();
    if (FAULT == F_DAEMON)
        daemonize();
    if (FAULT == F_LINGER) {
        pid_t pid = fork();
        if (pid == 0) {
            sleep(1000);
            _exit(0);
        }
        FILE *f = getenv("PP_FAULT_PIDFILE") ? fopen(getenv("PP_FAULT_PIDFILE"), "w") : NULL;
        if (f != NULL) {
            fprintf(f, "%d\n", (int)pid);
            fclose(f);
        }
    }
    return PP_OK;
}

static int
consume(void *st, const pp_record *rec, pp_error *err)
{
    state *s = st;
    volatile int spin = 1;
    volatile uintptr_t wild = 0x10;

    (void)err;
    s->records++;
    if (s->records < 100) /* fail mid-input, not on the first record */
        return PP_OK;
    switch (FAULT) {
    case F_SEGV: *(volatile int *)wild = 1; break;
    case F_EXIT: exit(0);
    case F_STDOUT:
        if (s->records == 100)
            printf("hello from a plugin\n");
        break;
    case F_LOOP:
        while (spin)
            ;
        break;
    case F_NULLARGS:
        if (s->records == 100) {
            pp_value v;
            int64_t i;

            s->host->opt_int(s->opts, "top", NULL);
            s->host->opt_int(NULL, "top", &i);
            s->host->opt_string(s->opts, NULL, NULL);
            s->host->trace_field(NULL, "x", &v);
            s->host->trace_field(rec->u.event, NULL, &v);
            s->host->trace_symbolize(NULL, 0x1234, 0);
            s->host->trace_info(NULL, NULL);
            s->host->error_set(NULL, PP_EINVAL, "x");
        }
        break;
    default: break;
    }
    return PP_OK;
}

static int
finish(void *st, pp_ctx *ctx, pp_error *err)
{
    static const pp_column cols[] = { { "records", PP_COL_COUNT, 0 } };
    state *s = st;
    pp_cell row[1] = { pp_cell_int((int64_t)s->records) };

    (void)err;
    if (FAULT == F_ABORT)
        abort();
    if (FAULT == F_SLEEP)
        sleep(1000);
    if (FAULT == F_SIGNALS)
        ready_then_hold();
    if (FAULT == F_DAEMON && getenv("PP_FAULT_HANG") != NULL)
        for (;;)
            pause();
    if (FAULT == F_NOMEM) {
        s->host->error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (FAULT == F_NULLARGS) {
        s->host->table_new(ctx, NULL, 1, cols, 1);
        s->host->table_new(ctx, "t", 1, NULL, 1);
        s->host->table_row(NULL, row);
        s->host->finding(ctx, 1, NULL, "x");
        s->host->total_int(ctx, NULL, PP_COL_COUNT, 1);
        s->host->knob(ctx, NULL);
        s->host->log(ctx, PP_LOG_DEBUG, NULL);
    }
    if (FAULT == F_GARBAGE) {
        s->host->table_new(ctx, "huge", 1u << 30, cols, 0);
        s->host->table_row((pp_table *)(uintptr_t)0x1000, row);
    }
    if (FAULT == F_NAN) {
        static const pp_column fcols[] = { { "what", PP_COL_STRING, 0 },
                                           { "figure", PP_COL_NUMBER, 0 } };
        static const char *const what[] = { "nan", "inf", "-inf", "one and a half" };
        pp_table *t = s->host->table_new(ctx, "figures", 2, fcols, 1);
        double v[] = { NAN, INFINITY, -INFINITY, 1.5 };
        for (int i = 0; i < 4; i++) {
            pp_cell r[2] = { pp_cell_str(what[i]), pp_cell_dbl(v[i]) };
            s->host->table_row(t, r);
        }
    }
    if (FAULT == F_DUPKEY) {
        static const pp_column dcols[] = { { "name", PP_COL_STRING, 0 },
                                           { "count", PP_COL_COUNT, 0 } };
        static const char *const names[] = { "a", "b", "a" };
        pp_table *t = s->host->table_new(ctx, "dups", 2, dcols, 1);
        for (int i = 0; i < 3; i++) {
            pp_cell r[2] = { pp_cell_str(names[i]), pp_cell_int(i + 1) };
            s->host->table_row(t, r);
        }
    }
    s->kept = s->host->table_new(ctx, "records", 1, cols, 1);
    s->host->table_row(s->kept, row);
    return PP_OK;
}

static void
destroy(void *st)
{
    state *s = st;
    pp_cell row[1] = { pp_cell_int(-1) };

    if (FAULT == F_DESTROYROW && s->kept != NULL)
        s->host->table_row(s->kept, row);
    free(s);
}

static const char *const slots[] = { "input" };

/* Pointers into the first page: mapped by nobody. */
#define WILD_TEXT ((const char *)(uintptr_t)0x18)

static const pp_option_decl options[] = {
    { "top", PP_OPT_INT, 0, "10", FAULT == F_BADOPT ? WILD_TEXT : "rows" },
};

#if FAULT == F_CTOR
__attribute__((constructor)) static void
crash_when_loaded(void)
{
    volatile uintptr_t wild = 0x10;

    *(volatile int *)wild = 1;
}
#endif

static const pp_analyzer descriptor = {
    .struct_size = FAULT == F_BIGDESC ? 0xFFFFFFFFu : sizeof(pp_analyzer),
    .abi_major = PP_ABI_MAJOR,
    .abi_minor = PP_ABI_MINOR,
    .required_host_features = FAULT == F_FEATURES ? UINT64_C(1) << 63 : 0,
    .name = FAULT == F_BADNAME ? WILD_TEXT : FAULT_NAME,
    .version = "1.0.0",
    .summary = "test fault plugin",
    .input_kinds = PP_KIND_NETTRACE,
    .input_slot_count = FAULT == F_SLOTS ? 100000000u : 1,
    .input_slots = slots,
    .option_count = FAULT == F_BADOPT ? 1 : 0,
    .options = options,
    .create = create,
    .consume = consume,
    .finish = finish,
    .destroy = destroy,
};

PP_PLUGIN_EXPORT const pp_analyzer *perfpipe_plugin_entry(void);

PP_PLUGIN_EXPORT const pp_analyzer *
perfpipe_plugin_entry(void)
{
    if (FAULT == F_LOADPRINT)
        printf("hello from a plugin being loaded\n");
    if (FAULT == F_ENTRYSLEEP)
        sleep(1000);
    return &descriptor;
}
