/* The live-capture options of `perfpipe ANALYZER --pid N ...` and the
 * signal handling of a run that captures: shared by the run commands so
 * cmd_run.c only forwards options here. */
#include "config.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "pipeline/pipeline.h"
#include "ipc/capture.h"
#include "ipc/capture_source.h"
#include "shipped.h"

/* What each analyzer needs from a capture when no --profile is given
 * (NULL: dotnet-trace's default, dotnet-common + sampled thread time). */
static const char *
default_profile(const char *analyzer)
{
    const pp_cli_shipped *s = pp_cli_shipped_of(analyzer);
    return s != NULL ? s->profile : NULL;
}

int
pp_cli_capture_opt(pp_cli_capture *c, const char *name, const char *value)
{
    static const char *const keys[] = { "pid",       "process",      "diagnostic-port", "profile",
                                        "providers", "counters",     "interval",        "duration",
                                        "keep",      "follow-child", "buffersize",      NULL };
    for (int i = 0; keys[i]; i++)
        if (strcmp(name, keys[i]) == 0) {
            if (c->n >= PP_CLI_CAPTURE_MAX)
                return -1;
            c->keys[c->n] = keys[i];
            c->values[c->n++] = value;
            return 0;
        }
    pp_cli_error("unknown capture option --%s", name);
    return -1;
}

char *
pp_cli_capture_spec(const char *analyzer, const pp_cli_capture *c)
{
    size_t size = 64;
    int have_profile = 0, have_providers = 0;
    for (int i = 0; i < c->n; i++) {
        size += strlen(c->keys[i]) + strlen(c->values[i] ? c->values[i] : "") + 4;
        have_profile |= strcmp(c->keys[i], "profile") == 0;
        have_providers |= strcmp(c->keys[i], "providers") == 0;
    }
    size *= 2; /* room for escapes */
    char *s = malloc(size);
    if (!s)
        return NULL;
    size_t used = (size_t)snprintf(s, size, "%s", PP_CAPTURE_PREFIX);
    for (int i = 0; i < c->n; i++) {
        const char *k = c->keys[i];
        if (strcmp(k, "diagnostic-port") == 0)
            k = "port";
        else if (strcmp(k, "follow-child") == 0)
            k = "follow_child";
        used += (size_t)snprintf(s + used, size - used, "%s%s=", i ? ";" : "", k);
        for (const char *v = c->values[i] ? c->values[i] : "true"; *v; v++) {
            if (*v == ';' || *v == '\\')
                s[used++] = '\\';
            s[used++] = *v;
        }
        s[used] = '\0';
    }
    /* --providers adds to the analyzer's profile (db's own finding asks
     * for Hosting beside the database events); --profile replaces it */
    const char *dp = default_profile(analyzer);
    if (dp == NULL && have_providers) /* else providers alone replace it */
        dp = "dotnet-common,dotnet-sampled-thread-time";
    if (!have_profile && dp)
        snprintf(s + used, size - used, "%sprofile=%s", c->n ? ";" : "", dp);
    return s;
}

static volatile sig_atomic_t signals_seen;

static void
on_signal(int sig)
{
    signals_seen++;
    if (pp_capture_signal(signals_seen > 1) == 0) {
        /* No capture is open (analysis after the capture): the default. */
        signal(sig, SIG_DFL);
        raise(sig);
    }
}

int
pp_cli_capture_signals(const pp_pipeline *p)
{
    struct sigaction sa;
    int live = 0;

    for (uint32_t i = 0; i < p->input_count; i++)
        live |= pp_capture_spec_is(p->inputs[i].path);
    if (!live)
        return 0;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    return 1;
}
