/* Capture provider lists: dotnet-trace's profiles, its --providers syntax,
 * the counter providers, merged the way dotnet-trace merges them. */
#include "config.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "ipc/providers.h"

#define RT      "Microsoft-Windows-DotNETRuntime"
#define SAMPLER "Microsoft-DotNETCore-SampleProfiler"

/* The `database` profile's DiagnosticSource filter, as dotnet-trace sends
 * it: quoted because it holds ';' and '='. */
#define DB_SPECS                                                                                                    \
    "FilterAndPayloadSpecs=\""                                                                                      \
    "SqlClientDiagnosticListener/System.Data.SqlClient.WriteCommandBefore@Activity1Start:-Command;"                 \
    "Command.CommandText;ConnectionId;Operation;Command.Connection.ServerVersion;Command.CommandTimeout;"           \
    "Command.CommandType;Command.Connection.ConnectionString;Command.Connection.Database;"                          \
    "Command.Connection.DataSource;Command.Connection.PacketSize\r\n"                                               \
    "SqlClientDiagnosticListener/System.Data.SqlClient.WriteCommandAfter@Activity1Stop:\r\n"                        \
    "Microsoft.EntityFrameworkCore/Microsoft.EntityFrameworkCore.Database.Command.CommandExecuting@Activity2Start:" \
    "-Command.CommandText;Command;ConnectionId;IsAsync;Command.Connection.ClientConnectionId;"                      \
    "Command.Connection.ServerVersion;Command.CommandTimeout;Command.CommandType;"                                  \
    "Command.Connection.ConnectionString;Command.Connection.Database;Command.Connection.DataSource;"                \
    "Command.Connection.PacketSize\r\n"                                                                             \
    "Microsoft.EntityFrameworkCore/Microsoft.EntityFrameworkCore.Database.Command.CommandExecuted@Activity2Stop:\""

typedef struct profile {
    const char *name;
    const char *alias_of; /* older name: expands to these profiles */
    uint64_t rundown;     /* 0 = the default keyword */
    pp_ipc_provider p[3];
} profile;

/* dotnet-trace 10 (ListProfilesCommandHandler.cs after d4961a0e), and the
 * older `cpu-sampling` (the default before), kept as an alias with its
 * old meaning. */
static const profile profiles[] = {
    { "dotnet-common", NULL, 0, { { RT, UINT64_C(0x100003801D), 4, NULL } } },
    { "dotnet-sampled-thread-time", NULL, 0, { { SAMPLER, UINT64_C(0xF00000000000), 4, NULL } } },
    { "gc-verbose", NULL, 0, { { RT, UINT64_C(0x8003), 5, NULL } } },
    { "gc-collect",
      NULL,
      0x1,
      { { RT, 0x1, 4, NULL }, { "Microsoft-Windows-DotNETRuntimePrivate", 0x1, 4, NULL } } },
    { "database",
      NULL,
      0,
      { { "System.Threading.Tasks.TplEventSource", 0x80, 4, NULL },
        { "Microsoft-Diagnostics-DiagnosticSource", 0x3, 5, DB_SPECS } } },
    { "cpu-sampling",
      NULL,
      0,
      { { SAMPLER, UINT64_C(0xF00000000000), 4, NULL }, { RT, UINT64_C(0x14C14FCCBD), 4, NULL } } },
};

const char *const pp_capture_profile_names[] = { "dotnet-common",
                                                 "dotnet-sampled-thread-time",
                                                 "gc-verbose",
                                                 "gc-collect",
                                                 "database",
                                                 "cpu-sampling",
                                                 NULL };

static pp_ipc_provider *
find(pp_capture_providers *cp, const char *name)
{
    for (size_t i = 0; i < cp->n; i++)
        if (strcasecmp(cp->v[i].name, name) == 0)
            return &cp->v[i];
    return NULL;
}

static int
append(pp_capture_providers *cp, const char *name, uint64_t kw, uint32_t level, const char *args,
       int is_explicit, pp_error *err)
{
    if (cp->n == cp->cap) {
        size_t nc = cp->cap ? cp->cap * 2 : 8;
        pp_ipc_provider *nv = realloc(cp->v, nc * sizeof *nv);
        if (!nv)
            goto oom;
        cp->v = nv;
        uint8_t *ne = realloc(cp->explicit_, nc);
        if (!ne)
            goto oom;
        cp->explicit_ = ne;
        cp->cap = nc;
    }
    pp_ipc_provider *p = &cp->v[cp->n];
    p->name = strdup(name);
    p->arguments = args && *args ? strdup(args) : NULL;
    if (!p->name || (args && *args && !p->arguments)) {
        free((char *)p->name);
        free((char *)p->arguments);
        goto oom;
    }
    p->keywords = kw;
    p->level = level;
    cp->explicit_[cp->n] = (uint8_t)is_explicit;
    cp->n++;
    return PP_OK;
oom:
    pp_error_set(err, PP_ENOMEM, "out of memory building the provider list");
    return PP_ENOMEM;
}

static void
merge(pp_ipc_provider *p, uint64_t kw, uint32_t level)
{
    p->keywords |= kw;
    if (level > p->level)
        p->level = level;
}

int
pp_capture_add_profiles(pp_capture_providers *cp, const char *list, pp_error *err)
{
    char *copy = strdup(list ? list : ""), *save = NULL;
    int rc = PP_OK;

    if (!copy) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == PP_OK;
         tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        size_t l = strlen(tok);
        while (l > 0 && isspace((unsigned char)tok[l - 1]))
            tok[--l] = '\0';
        if (l == 0)
            continue;
        const profile *pr = NULL;
        for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; i++)
            if (strcasecmp(profiles[i].name, tok) == 0)
                pr = &profiles[i];
        if (!pr) {
            pp_error_set(err, PP_ENOTFOUND,
                         "unknown profile '%s'; profiles: dotnet-common, "
                         "dotnet-sampled-thread-time, gc-verbose, gc-collect, database, "
                         "cpu-sampling (older name)%s",
                         tok,
                         strcasecmp(tok, "thread-time") == 0 ?
                             " (thread-time is dotnet-trace collect-linux's off-CPU "
                             "sampling; dotnet-sampled-thread-time is the EventPipe one)" :
                             "");
            rc = PP_ENOTFOUND;
            break;
        }
        cp->nprofiles++;
        cp->rundown_keyword |= pr->rundown ? pr->rundown : PP_IPC_DEFAULT_RUNDOWN_KEYWORD;
        for (int k = 0; k < 3 && pr->p[k].name && rc == PP_OK; k++) {
            pp_ipc_provider *have = find(cp, pr->p[k].name);
            if (have && cp->explicit_[have - cp->v])
                continue; /* --providers wins */
            if (have)
                merge(have, pr->p[k].keywords, pr->p[k].level);
            else
                rc = append(cp, pr->p[k].name, pr->p[k].keywords, pr->p[k].level,
                            pr->p[k].arguments, 0, err);
        }
    }
    free(copy);
    return rc;
}

static int
parse_level(const char *s, uint32_t *out)
{
    static const char *const names[] = { "logalways", "critical",      "error",
                                         "warning",   "informational", "verbose" };
    if (*s == '\0') {
        *out = 4;
        return 1;
    }
    if (isdigit((unsigned char)s[0]) && s[1] == '\0' && s[0] <= '5') {
        *out = (uint32_t)(s[0] - '0');
        return 1;
    }
    for (uint32_t i = 0; i < 6; i++)
        if (strcasecmp(s, names[i]) == 0) {
            *out = i;
            return 1;
        }
    return 0;
}

static int
parse_keywords(const char *s, uint64_t *out)
{
    char *end;
    if (*s == '\0') {
        *out = 0;
        return 1;
    }
    if (strcmp(s, "*") == 0) {
        *out = UINT64_MAX;
        return 1;
    }
    *out = strtoull(s, &end, 16);
    return *end == '\0';
}

/* One `Name[:Keywords[:Level[:Arguments]]]` (arguments may hold ':'). */
static int
add_one(pp_capture_providers *cp, char *spec, pp_error *err)
{
    char *f[4] = { spec, NULL, NULL, NULL };
    for (int k = 1; k < 4; k++) {
        char *c = strchr(f[k - 1], ':');
        if (!c)
            break;
        *c = '\0';
        f[k] = c + 1;
    }
    uint64_t kw = 0;
    uint32_t level = 4;
    const char *args = f[3] && *f[3] ? f[3] : NULL;
    if (f[0][0] == '\0') {
        pp_error_set(err, PP_EINVAL, "--providers: an entry has no provider name");
        return PP_EINVAL;
    }
    if (f[1] && !parse_keywords(f[1], &kw)) {
        pp_error_set(err, PP_EINVAL,
                     "--providers %s: keywords '%s' are not hexadecimal "
                     "(e.g. 0x8003)",
                     f[0], f[1]);
        return PP_EINVAL;
    }
    if (f[2] && !parse_level(f[2], &level)) {
        pp_error_set(err, PP_EINVAL,
                     "--providers %s: level '%s' is not 0-5 or a level name "
                     "(Critical, Error, Warning, Informational, Verbose)",
                     f[0], f[2]);
        return PP_EINVAL;
    }
    pp_ipc_provider *have = find(cp, f[0]);
    if (!have)
        return append(cp, f[0], kw, level, args, 1, err);
    if (cp->explicit_[have - cp->v]) {
        /* Given twice: keywords OR, highest level, arguments once. */
        if (have->arguments && args) {
            pp_error_set(err, PP_EINVAL,
                         "--providers: %s is given twice with arguments; "
                         "give its arguments once",
                         f[0]);
            return PP_EINVAL;
        }
        merge(have, kw, level);
    } else {
        /* An explicit entry replaces a profile's entry for the provider. */
        have->keywords = kw;
        have->level = level;
        free((char *)have->arguments);
        have->arguments = NULL;
        cp->explicit_[have - cp->v] = 1;
    }
    if (args && !(have->arguments = strdup(args))) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    return PP_OK;
}

int
pp_capture_add_providers(pp_capture_providers *cp, const char *list, pp_error *err)
{
    char *copy = strdup(list ? list : "");
    int rc = PP_OK;

    if (!copy) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    /* Split on commas outside double quotes. */
    char *start = copy;
    int inq = 0;
    for (char *p = copy;; p++) {
        if (*p == '"')
            inq = !inq;
        if ((*p == ',' && !inq) || *p == '\0') {
            int last = *p == '\0';
            *p = '\0';
            while (isspace((unsigned char)*start))
                start++;
            if (*start && (rc = add_one(cp, start, err)) != PP_OK)
                break;
            if (last)
                break;
            start = p + 1;
        }
    }
    free(copy);
    return rc;
}

int
pp_capture_add_counters(pp_capture_providers *cp, const char *list, unsigned interval_s,
                        pp_error *err)
{
    char args[512], metrics[1024] = "", sid[64];
    char *copy = strdup(list && *list ? list : "System.Runtime"), *save = NULL;
    int rc = PP_OK;

    if (!copy) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    if (interval_s == 0)
        interval_s = 1;
    snprintf(args, sizeof args, "EventCounterIntervalSec=%u", interval_s);
    for (char *tok = strtok_r(copy, ",", &save); tok && rc == PP_OK;
         tok = strtok_r(NULL, ",", &save)) {
        while (isspace((unsigned char)*tok))
            tok++;
        /* dotnet-counters' Provider[counter,...] selection is not supported:
         * a provider publishes all its counters. */
        char *br = strchr(tok, '[');
        if (br)
            *br = '\0';
        if (*tok == '\0')
            continue;
        int ec_only = 0;
        if (strncmp(tok, "EventCounters\\", 14) == 0) {
            tok += 14;
            ec_only = 1;
        }
        pp_ipc_provider *have = find(cp, tok);
        if (have) {
            if (!have->arguments)
                have->arguments = strdup(args);
        } else {
            rc = append(cp, tok, 0, 4, args, 0, err);
        }
        if (!ec_only) {
            size_t ml = strlen(metrics);
            snprintf(metrics + ml, sizeof metrics - ml, "%s%s", ml ? "," : "", tok);
        }
    }
    free(copy);
    if (rc == PP_OK && metrics[0]) {
        char margs[2048];
        /* The meter listener is per session: a session id of our own. */
        snprintf(sid, sizeof sid, "perfpipe-%ld-%ld", (long)getpid(), (long)time(NULL));
        snprintf(margs, sizeof margs,
                 "SessionId=%s;Metrics=%s;RefreshInterval=%u;"
                 "MaxTimeSeries=1000;MaxHistograms=10",
                 sid, metrics, interval_s);
        pp_ipc_provider *have = find(cp, "System.Diagnostics.Metrics");
        if (have) {
            merge(have, 0x2, 4);
            free((char *)have->arguments);
            have->arguments = strdup(margs);
        } else {
            rc = append(cp, "System.Diagnostics.Metrics", 0x2, 4, margs, 0, err);
        }
    }
    return rc;
}

int
pp_capture_providers_finish(pp_capture_providers *cp, pp_error *err)
{
    if (cp->n == 0) {
        int rc = pp_capture_add_profiles(cp, "dotnet-common,dotnet-sampled-thread-time", err);
        if (rc != PP_OK)
            return rc;
    }
    if (!cp->explicit_rundown && cp->rundown_keyword == 0)
        cp->rundown_keyword = PP_IPC_DEFAULT_RUNDOWN_KEYWORD;
    return PP_OK;
}

void
pp_capture_providers_free(pp_capture_providers *cp)
{
    for (size_t i = 0; i < cp->n; i++) {
        free((char *)cp->v[i].name);
        free((char *)cp->v[i].arguments);
    }
    free(cp->v);
    free(cp->explicit_);
    memset(cp, 0, sizeof *cp);
}
