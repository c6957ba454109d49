/* Helpers shared by the subcommands: messages, exit codes, outputs. */
#include "config.h"

#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <jansson.h>

#include <perfpipe/perfpipe.h>

#include "cli.h"
#include "output/outfile.h"
#include "result/jsonmem.h"
#include "result/result.h"
#include "shipped.h"

const char *pp_prog = "perfpipe";
int pp_cli_quiet;
int pp_cli_force;
int pp_cli_out_of_memory;
int pp_cli_wrote_result;

void
pp_cli_error(const char *fmt, ...)
{
    char msg[8192];
    va_list ap;

    pp_cli_progress_done();
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    /* ours, or the C library's (strerror(ENOMEM): a fopen that got no
     * buffer), which is then named in our words too, the ones perfpipe(1)
     * gives exit 7 for */
    int ours = strstr(msg, "out of memory") != NULL;
    int libc = !ours && strstr(msg, strerror(ENOMEM)) != NULL;
    if (ours || libc)
        pp_cli_out_of_memory = 1;
    fprintf(stderr, "%s: %s%s\n", pp_prog, msg, libc ? " (out of memory)" : "");
}

int
pp_cli_exit_status(int rc)
{
    if (rc != PP_EXIT_OK && rc != PP_EXIT_NOMEM && pp_cli_out_of_memory && !pp_cli_wrote_result)
        return PP_EXIT_NOMEM;
    return rc;
}

int
pp_cli_exit_for(int status)
{
    switch (status) {
    case PP_OK: return PP_EXIT_OK;
    case PP_ENOMEM: return PP_EXIT_NOMEM;
    case PP_EPLUGIN: return PP_EXIT_PLUGIN;
    case PP_EFORMAT:
    case PP_EUNSUPPORTED:
    case PP_EIO:
    case PP_ELIMIT: return PP_EXIT_INPUT;
    default: return PP_EXIT_USAGE;
    }
}

static void
warn_writable(const char *line)
{
    pp_cli_error("warning: %s", line);
}

pp_loader *
pp_cli_loader(char **dirs, int ndirs)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_loader_new();
    const char *force = getenv("PERFPIPE_ALLOW_WRITABLE_PLUGINS");

    if (l == NULL) {
        pp_cli_error("out of memory");
        return NULL;
    }
    pp_loader_set_writable_policy(l, warn_writable,
                                  geteuid() == 0 && !(force != NULL && strcmp(force, "1") == 0));
    for (int i = 0; i < ndirs; i++)
        if (pp_loader_add_dir(l, dirs[i], &err) != PP_OK)
            goto fail;
    if (pp_loader_add_defaults(l, &err) != PP_OK)
        goto fail;
    return l;
fail:
    pp_cli_error("%s", err.message);
    pp_loader_free(l);
    return NULL;
}

/* Temporary files being written, removed if a signal ends the program:
 * the CLI is the one place that may own process-wide state. */
#define MAX_PENDING 64
static const char *volatile pending[MAX_PENDING];

static void
on_fatal_signal(int sig)
{
    /* Newest first: a temporary directory is emptied before its rmdir. */
    for (int i = MAX_PENDING - 1; i >= 0; i--)
        if (pending[i] != NULL && unlink(pending[i]) != 0)
            rmdir(pending[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

static void
track_add(void *user, const char *tmp)
{
    (void)user;
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i] == NULL) {
            pending[i] = tmp;
            return;
        }
}

static void
track_remove(void *user, const char *tmp)
{
    (void)user;
    for (int i = 0; i < MAX_PENDING; i++)
        if (pending[i] == tmp)
            pending[i] = NULL;
}

const pp_outfile_tracker *
pp_cli_temp_tracker(void)
{
    static const pp_outfile_tracker tracker = { track_add, track_remove, NULL };
    static int installed;

    if (!installed) {
        struct sigaction sa;
        /* not SIGPIPE: it ends no run (pp_cli_catch_sigpipe) */
        static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };

        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++) {
            struct sigaction old;

            /* Keep a signal the caller chose to ignore (nohup); SIGINT
             * and SIGTERM end the run whatever was inherited (a script's
             * background job starts with SIGINT ignored). */
            if (sigs[i] == SIGHUP && sigaction(sigs[i], NULL, &old) == 0 &&
                old.sa_handler == SIG_IGN)
                continue;
            sigaction(sigs[i], &sa, NULL);
        }
        installed = 1;
    }
    return &tracker;
}

static volatile sig_atomic_t sigpipe_seen;

static void
on_sigpipe(int sig)
{
    (void)sig;
    sigpipe_seen = 1;
}

void
pp_cli_catch_sigpipe(void)
{
    struct sigaction sa, old;

    /* A handler, not SIG_IGN: the programs perfpipe starts get the default
     * back at exec. Ignored by the caller: writes fail with EPIPE anyway. */
    if (sigaction(SIGPIPE, NULL, &old) == 0 && old.sa_handler == SIG_IGN)
        return;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_sigpipe;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGPIPE, &sa, NULL);
}

int
pp_cli_reader_gone(void)
{
    return sigpipe_seen || errno == EPIPE;
}

int
pp_cli_flush_stdout(void)
{
    if (fflush(stdout) != 0 || ferror(stdout)) {
        if (pp_cli_reader_gone()) {
            clearerr(stdout);
            return PP_EXIT_OK;
        }
        pp_cli_error("cannot write to standard output: %s", strerror(errno ? errno : EIO));
        return PP_EXIT_OUTPUT;
    }
    return PP_EXIT_OK;
}

/* The one line for a document refused for want of memory, naming where it
 * was to go. Returns PP_EXIT_NOMEM. */
static int
nothing_written(const char *path)
{
    pp_cli_error("%s: out of memory while the document was made: nothing written (free memory, "
                 "or write fewer tables with --top N)",
                 path == NULL || strcmp(path, "-") == 0 ? "standard output" : path);
    return PP_EXIT_NOMEM;
}

int
pp_cli_doc_whole(const char *path)
{
    return pp_jsonmem_failures() == 0 ? PP_EXIT_OK : nothing_written(path);
}

/* Standard output gets the rendering whole or not at all: it is made in
 * memory first, so a renderer that runs out of memory partway (or a
 * document a failed allocation left short) writes nothing, exit 7, as a
 * file output is aborted; a reader that went away is not an error. */
static int
write_stdout(pp_write_fn fn, void *user)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *mem = open_memstream(&buf, &len);
    int rc;

    if (mem == NULL)
        return nothing_written(NULL);
    rc = fn(user, mem);
    if (fclose(mem) != 0 && rc == PP_EXIT_OK)
        rc = nothing_written(NULL);
    if (rc == PP_EXIT_OK)
        rc = pp_cli_doc_whole(NULL);
    if (rc == PP_EXIT_OK && len > 0 && fwrite(buf, 1, len, stdout) != len && !pp_cli_reader_gone())
        rc = PP_EXIT_OUTPUT;
    free(buf);
    if (rc != PP_EXIT_OK && rc != PP_EXIT_OUTPUT)
        return rc;
    if (pp_cli_flush_stdout() != PP_EXIT_OK)
        return PP_EXIT_OUTPUT;
    if (rc == PP_EXIT_OK)
        pp_cli_wrote_result = 1;
    return rc;
}

int
pp_cli_write_output(const char *path, pp_write_fn fn, void *user)
{
    pp_error err = PP_ERROR_INIT;
    pp_outfile of;
    int rc;

    if ((rc = pp_cli_doc_whole(path)) != PP_EXIT_OK)
        return rc;
    if (path == NULL || strcmp(path, "-") == 0)
        return write_stdout(fn, user);
    if (pp_outfile_open(&of, path, pp_cli_force ? PP_OUTFILE_FORCE : 0, pp_cli_temp_tracker(),
                        &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_OUTPUT;
    }
    rc = fn(user, of.f);
    if (rc == PP_EXIT_OK)
        rc = pp_cli_doc_whole(path);
    if (rc != PP_EXIT_OK) {
        pp_outfile_abort(&of);
        return rc;
    }
    if (pp_outfile_commit(&of, &err) != PP_OK) {
        pp_cli_error("%s", err.message);
        return PP_EXIT_OUTPUT;
    }
    pp_cli_wrote_result = 1;
    return PP_EXIT_OK;
}

static int progress_shown;

void
pp_cli_progress(void *user, const char *input, unsigned long long done, unsigned long long total)
{
    (void)user;
    if (!isatty(STDERR_FILENO))
        return;
    if (total > 0)
        fprintf(stderr, "\r%s: reading %s: %3.0f%% (%.1f of %.1f MB)\033[K", pp_prog, input,
                100.0 * (double)done / (double)total, done / 1e6, total / 1e6);
    else
        fprintf(stderr, "\r%s: reading %s: %.1f MB\033[K", pp_prog, input, done / 1e6);
    progress_shown = 1;
}

void
pp_cli_progress_done(void)
{
    if (progress_shown) {
        fputs("\r\033[K", stderr);
        progress_shown = 0;
    }
}

const char *
pp_cli_pipeline_for(const char *analyzer)
{
    const pp_cli_shipped *s = pp_cli_shipped_of(analyzer);
    return s != NULL && s->pipeline != NULL ? s->pipeline : analyzer;
}

int
pp_cli_parse_jobs(const char *arg, unsigned *out)
{
    char *end;
    unsigned long v = strtoul(arg, &end, 10);

    if (*arg < '0' || *arg > '9' || *end || v < 1 || v > 64) {
        pp_cli_error("--jobs %s: expected a number of threads from 1 to 64", arg);
        return -1;
    }
    *out = (unsigned)v;
    return 0;
}

void
pp_cli_bad_option(const char *cmd, int c, char **argv)
{
    char name[64];
    const char *arg = optind > 0 ? argv[optind - 1] : "?";

    /* a long option is named as typed, without its =VALUE */
    if (c == ':' || optopt == 0 || optopt > 0xff)
        snprintf(name, sizeof name, "%.*s", (int)strcspn(arg, "="), arg);
    else
        snprintf(name, sizeof name, "-%c", optopt);
    if (c == ':')
        pp_cli_error("%s: option '%s' needs a value; try `perfpipe %s --help`", cmd, name, cmd);
    else
        pp_cli_error("%s: unknown option '%s'; try `perfpipe %s --help`", cmd, name, cmd);
}

json_t *
pp_cli_load_json(const char *path, json_error_t *jerr)
{
    if (strcmp(path, "-") == 0) {
        static int read_once;

        if (read_once++) {
            memset(jerr, 0, sizeof *jerr);
            snprintf(jerr->text, sizeof jerr->text,
                     "standard input was read already: give '-' once");
            return NULL;
        }
        return json_loadf(stdin, 0, jerr);
    }
    return json_load_file(path, 0, jerr);
}
