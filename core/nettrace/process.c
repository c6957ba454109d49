/* Process identity and wrong-process detection (see process.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/nettrace.h>
#include <perfpipe/plugin.h>

#include "base/advice.h"
#include "nettrace/process.h"

/* 1 when the field was there and replaced *slot. Out of memory marks p
 * (a lost fact is refused, never shown as absent). */
static int
keep(pp_nt_process *p, char **slot, const pp_trace_event *ev, const char *field)
{
    pp_value v;
    int rc = pp_nettrace_field(ev, field, &v);

    if (rc == PP_ENOMEM)
        p->modules.oom = 1;
    if (rc != PP_OK || v.type != PP_VALUE_STRING || v.v.s[0] == '\0')
        return 0;
    free(*slot);
    if ((*slot = strdup(v.v.s)) == NULL)
        p->modules.oom = 1;
    return 1;
}

static unsigned
u16_field(const pp_trace_event *ev, const char *field)
{
    pp_value v;

    return pp_nettrace_field(ev, field, &v) == PP_OK && v.type == PP_VALUE_UINT ? (unsigned)v.v.u :
                                                                                  0;
}

/* Namespaces that are not the app: the framework, the SDK, NuGet and
 * MSBuild, and what the runtime generates. */
static int
framework_namespace(const char *ns)
{
    static const char *const prefixes[] = {
        "System.", "Microsoft.", "Internal.",   "Interop",      "NuGet.",   "Newtonsoft.Json",
        "MS.",     "Mono.",      "ILStubClass", "dynamicClass", "<Module>", "FxResources.",
    };

    if (ns[0] == '\0' || strcmp(ns, "System") == 0)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(ns, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

/* A string later set moves over p's (keep(): the last one wins). */
static void
take(char **slot, char **later)
{
    if (*later == NULL)
        return;
    free(*slot);
    *slot = *later;
    *later = NULL;
}

void
pp_nt_process_merge(pp_nt_process *p, pp_nt_process *later)
{
    /* RuntimeInformation sets the command line only where ProcessInfo left
     * none, so one that later took from it counts only if p has none. */
    if (later->command_line != NULL && (later->command_line_from_info || p->command_line == NULL)) {
        take(&p->command_line, &later->command_line);
        p->command_line_from_info |= later->command_line_from_info;
    }
    take(&p->os, &later->os);
    take(&p->arch, &later->arch);
    take(&p->runtime_dll, &later->runtime_dll);
    if (later->have_runtime) {
        memcpy(p->bcl, later->bcl, sizeof p->bcl);
        p->have_runtime = 1;
    }
    p->methods += later->methods;
    p->user_methods += later->user_methods;
    p->requests_started += later->requests_started;
    p->requests_completed += later->requests_completed;
    pp_nt_modident_merge(&p->modules, &later->modules);
}

void
pp_nt_process_describe_requests(const pp_nt_process *p, json_t *nettrace)
{
    if (p->requests_started == 0 && p->requests_completed == 0)
        return;
    json_object_set_new(nettrace, "requests",
                        json_pack("{s:I,s:I}", "started", (json_int_t)p->requests_started,
                                  "completed", (json_int_t)p->requests_completed));
}

/* Hosting's RequestStart (1) or RequestStop (2), else 0: names, not ids,
 * since an EventSource's ids are its own (plugins/common/requests.c reads
 * the same events the same way). */
static int
hosting_kind(const pp_trace_event *ev)
{
    static const char hosting[] = "Microsoft.AspNetCore.Hosting";

    if (ev->provider_known != PP_PROVIDER_OTHER || ev->provider == NULL || ev->name == NULL ||
        ev->provider[0] != 'M' || strcmp(ev->provider, hosting) != 0)
        return 0;
    if (strcmp(ev->name, "RequestStart") == 0)
        return 1;
    return strcmp(ev->name, "RequestStop") == 0 ? 2 : 0;
}

void
pp_nt_process_observe(pp_nt_process *p, const pp_trace_event *ev)
{
    pp_value v;
    int hk = hosting_kind(ev);

    if (hk != 0) {
        p->requests_started += hk == 1;
        p->requests_completed += hk == 2;
        return;
    }

    if (ev->provider_known == PP_PROVIDER_EVENTPIPE && ev->event_id == 1) {
        if (keep(p, &p->command_line, ev, "CommandLine"))
            p->command_line_from_info = 1;
        keep(p, &p->os, ev, "OSInformation");
        keep(p, &p->arch, ev, "ArchInformation");
        return;
    }
    if (ev->provider_known != PP_PROVIDER_RUNTIME && ev->provider_known != PP_PROVIDER_RUNDOWN)
        return;
    pp_nt_modident_observe(&p->modules, ev);
    if (ev->event_id == 187) { /* RuntimeInformationStart / DCStart */
        keep(p, &p->runtime_dll, ev, "RuntimeDllPath");
        if (p->command_line == NULL)
            keep(p, &p->command_line, ev, "CommandLine");
        p->bcl[0] = u16_field(ev, "BclMajorVersion");
        p->bcl[1] = u16_field(ev, "BclMinorVersion");
        p->bcl[2] = u16_field(ev, "BclBuildNumber");
        p->bcl[3] = u16_field(ev, "BclQfeNumber");
        p->have_runtime = 1;
        return;
    }
    /* MethodLoadVerbose (143), MethodDCStartVerbose (143) and
     * MethodDCEndVerbose (144) name every method the trace can symbolize. */
    if ((ev->event_id == 143 || ev->event_id == 144) &&
        pp_nettrace_field(ev, "MethodNamespace", &v) == PP_OK && v.type == PP_VALUE_STRING) {
        p->methods++;
        p->user_methods += !framework_namespace(v.v.s);
    }
}

/* The file name of a path-like token, both separators. */
static const char *
base_of(const char *tok, size_t len, size_t *blen)
{
    size_t i = len;

    while (i > 0 && tok[i - 1] != '/' && tok[i - 1] != '\\')
        i--;
    *blen = len - i;
    return tok + i;
}

static int
token_is(const char *base, size_t blen, const char *name)
{
    return blen == strlen(name) && strncmp(base, name, blen) == 0;
}

const char *
pp_nt_process_host(const char *cl)
{
    static const char *const tools[] = { "dotnet-trace", "dotnet-counters", "dotnet-gcdump",
                                         "dotnet-dump",  "dotnet-monitor",  "dotnet-dsrouter" };
    const char *p = cl;
    int after_sdk = 0;

    if (cl == NULL)
        return NULL;
    while (*p) {
        size_t len, blen;
        const char *base;

        while (*p == ' ' || *p == '"')
            p++;
        len = strcspn(p, " \"");
        if (len == 0)
            break;
        base = base_of(p, len, &blen);
        if (after_sdk) { /* the verb after the SDK's dotnet.dll */
            if (token_is(base, blen, "run"))
                return "dotnet run";
            if (token_is(base, blen, "watch"))
                return "dotnet watch";
            if (token_is(base, blen, "test"))
                return "dotnet test";
            if (base[0] != '-')
                return NULL;
        }
        if (token_is(base, blen, "dotnet.dll"))
            after_sdk = 1;
        if (token_is(base, blen, "dotnet-watch.dll") || token_is(base, blen, "dotnet-watch"))
            return "dotnet watch";
        if (token_is(base, blen, "vstest.console.dll"))
            return "dotnet test";
        if (token_is(base, blen, "MSBuild.dll"))
            return "MSBuild (dotnet build)";
        for (size_t i = 0; i < sizeof tools / sizeof tools[0]; i++) {
            size_t n = strlen(tools[i]);

            if (blen >= n && strncmp(base, tools[i], n) == 0 &&
                (blen == n || strncmp(base + n, ".dll", 4) == 0 ||
                 strncmp(base + n, ".exe", 4) == 0))
                return tools[i];
        }
        p += len;
    }
    return NULL;
}

/* ".../shared/Microsoft.NETCore.App/10.0.12/libcoreclr.so" -> "10.0.12". */
static int
version_from_path(const char *path, char *out, size_t size)
{
    const char *app = strstr(path, "Microsoft.NETCore.App");
    const char *v, *end;

    if (app == NULL || (app[21] != '/' && app[21] != '\\'))
        return 0;
    v = app + 22;
    end = v + strcspn(v, "/\\");
    if (end == v || *end == '\0' || (size_t)(end - v) >= size)
        return 0;
    memcpy(out, v, (size_t)(end - v));
    out[end - v] = '\0';
    return 1;
}

static void
set_str(json_t *o, const char *key, const char *value)
{
    if (value != NULL)
        json_object_set_new(o, key, json_string(value));
}

int
pp_nt_process_describe(const pp_nt_process *p, uint32_t pid, int perfpipe, json_t *nettrace,
                       char *warning, size_t size)
{
    json_t *o = json_object();
    const char *host = pp_nt_process_host(p->command_line);
    char version[64];
    char reason[256] = "";
    char attach[128], launch[256];

    warning[0] = '\0';
    if (o == NULL)
        return 0;
    if (pid != 0)
        json_object_set_new(o, "pid", json_integer(pid));
    set_str(o, "command_line", p->command_line);
    if (p->runtime_dll != NULL && version_from_path(p->runtime_dll, version, sizeof version))
        set_str(o, "runtime_version", version);
    else if (p->have_runtime && p->bcl[0] != 0) {
        snprintf(version, sizeof version, "%u.%u.%u", p->bcl[0], p->bcl[1], p->bcl[2]);
        set_str(o, "runtime_version", version);
    }
    set_str(o, "os", p->os);
    set_str(o, "arch", p->arch);
    if (host != NULL)
        snprintf(reason, sizeof reason, "the trace is of `%s`, not of the app", host);
    else if (p->methods >= 100 && p->user_methods == 0)
        snprintf(reason, sizeof reason,
                 "none of the %llu methods the trace names is user code "
                 "(all framework, SDK or tool code)",
                 (unsigned long long)p->methods);
    if (reason[0] != '\0') {
        json_object_set_new(o, "wrong_process", json_string(reason));
        pp_advice_capture(perfpipe, PP_CAPTURE_ATTACH, "-p APP_PID ...", attach, sizeof attach);
        pp_advice_capture(perfpipe, PP_CAPTURE_LAUNCH, "...", launch, sizeof launch);
        snprintf(warning, size,
                 "wrong process? %s (pid %u%s%.160s%s): its figures are the host's, not your "
                 "code's. Find the app's own pid: `%s` lists it under the app's "
                 "name (the host shows as dotnet), or `pgrep -P %u` lists the host's children; "
                 "then %s, or start the app itself under the tool: %s",
                 reason, (unsigned)pid, p->command_line ? ": " : "",
                 p->command_line ? p->command_line : "",
                 p->command_line && strlen(p->command_line) > 160 ? "..." : "",
                 perfpipe ? "perfpipe ps" : "dotnet-trace ps", (unsigned)pid, attach, launch);
    }
    json_object_set_new(nettrace, "process", o);
    return reason[0] != '\0';
}

void
pp_nt_process_free(pp_nt_process *p)
{
    free(p->command_line);
    free(p->os);
    free(p->arch);
    free(p->runtime_dll);
    pp_nt_modident_free(&p->modules);
    memset(p, 0, sizeof *p);
}
