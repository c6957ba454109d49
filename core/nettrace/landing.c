/* Where a fix lands: application, package or framework (see landing.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "nettrace/landing.h"

static void
copy(char *out, size_t size, const char *s, size_t n)
{
    if (size == 0)
        return;
    if (n >= size)
        n = size - 1;
    memcpy(out, s, n);
    out[n] = '\0';
}

static int
is_sep(char c)
{
    return c == '/' || c == '\\';
}

void
pp_lands_dir_of(const char *path, char *out, size_t size)
{
    size_t n = path ? strlen(path) : 0;

    while (n > 0 && !is_sep(path[n - 1]))
        n--;
    while (n > 1 && is_sep(path[n - 1]))
        n--;
    copy(out, size, path ? path : "", n);
}

static int
ends_with_ci(const char *s, size_t n, const char *suffix)
{
    size_t k = strlen(suffix);

    if (n < k)
        return 0;
    for (size_t i = 0; i < k; i++) {
        char a = s[n - k + i], b = suffix[i];
        if (a >= 'A' && a <= 'Z')
            a = (char)(a - 'A' + 'a');
        if (a != b)
            return 0;
    }
    return 1;
}

void
pp_lands_module_name(const char *path, char *out, size_t size)
{
    size_t n = path ? strlen(path) : 0, b = n;

    while (b > 0 && !is_sep(path[b - 1]))
        b--;
    const char *base = path ? path + b : "";
    n -= b;
    if (ends_with_ci(base, n, ".dll") || ends_with_ci(base, n, ".exe"))
        n -= 4;
    if (ends_with_ci(base, n, ".ni"))
        n -= 3;
    copy(out, size, base, n);
}

/* The next token of a command line (quotes group), or 0 at the end. */
static size_t
token(const char **p, const char **start)
{
    const char *s = *p;

    while (*s == ' ' || *s == '\t')
        s++;
    if (*s == '\0') {
        *p = s;
        return 0;
    }
    if (*s == '"') {
        const char *e = strchr(s + 1, '"');
        size_t n = e ? (size_t)(e - s - 1) : strlen(s + 1);
        *start = s + 1;
        *p = e ? e + 1 : s + 1 + n;
        return n;
    }
    size_t n = strcspn(s, " \t");
    *start = s;
    *p = s + n;
    return n;
}

void
pp_lands_app_init(pp_lands_app *app, const char *command_line, const char *runtime_dll)
{
    char tok[1024], name[256];
    const char *p = command_line ? command_line : "", *s;
    size_t n;
    int host = 0;

    memset(app, 0, sizeof *app);
    if (runtime_dll != NULL)
        pp_lands_dir_of(runtime_dll, app->runtime_dir, sizeof app->runtime_dir);
    /* "dotnet [options] App.dll args" names the app in its first .dll
     * argument; an apphost ("/srv/App args", "App.exe") is the app itself. */
    while ((n = token(&p, &s)) > 0) {
        copy(tok, sizeof tok, s, n);
        pp_lands_module_name(tok, name, sizeof name);
        if (!host && strcmp(name, "dotnet") == 0) {
            host = 1;
            continue;
        }
        if (host && !ends_with_ci(tok, strlen(tok), ".dll"))
            continue; /* options of the host, "exec" */
        copy(app->name, sizeof app->name, name, strlen(name));
        if (strchr(tok, '/') != NULL || strchr(tok, '\\') != NULL)
            pp_lands_dir_of(tok, app->dir, sizeof app->dir);
        return;
    }
}

static int
under(const char *path, const char *dir)
{
    size_t n = strlen(dir);

    return n > 0 && strncmp(path, dir, n) == 0 && is_sep(path[n]);
}

/* A path segment ("shared/Microsoft.NETCore.App") with either separator. */
static int
has_segment(const char *path, const char *a, const char *b)
{
    size_t na = strlen(a);

    for (const char *s = path; (s = strstr(s, a)) != NULL; s += na)
        if ((s == path || is_sep(s[-1])) && is_sep(s[na]) &&
            (b == NULL ||
             (strncmp(s + na + 1, b, strlen(b)) == 0 && is_sep(s[na + 1 + strlen(b)]))))
            return 1;
    return 0;
}

/* Names of assemblies that come from packages when they sit beside the app:
 * Microsoft's own packages (EF Core, Extensions, Data.SqlClient...) and the
 * common third-party publishers. */
static int
package_name(const char *name)
{
    static const char *const prefixes[] = {
        "System.",
        "Microsoft.",
        "Newtonsoft.",
        "Serilog",
        "NLog",
        "Npgsql",
        "Dapper",
        "AutoMapper",
        "Polly",
        "StackExchange.",
        "Grpc.",
        "Google.",
        "Azure.",
        "AWSSDK.",
        "MongoDB.",
        "MediatR",
        "FluentValidation",
        "Swashbuckle.",
        "Castle.",
        "Autofac",
        "SQLitePCLRaw.",
        "Humanizer",
        "RabbitMQ.",
        "Confluent.",
        "Elastic.",
        "OpenTelemetry",
        "MySql.",
        "MySqlConnector",
        "Oracle.",
        "IdentityModel",
        "Hangfire",
        "Quartz",
        "Bogus",
        "xunit",
        "nunit",
        "NUnit",
        "Moq",
        "MessagePack",
        "protobuf-net",
        "Pomelo.",
        "Npgsql.",
        "BenchmarkDotNet",
        "Scrutor",
        "Refit",
        "MassTransit",
        "NodaTime",
        "CsvHelper",
    };

    if (strcmp(name, "System") == 0 || strcmp(name, "mscorlib") == 0 ||
        strcmp(name, "netstandard") == 0)
        return 1;
    for (size_t i = 0; i < sizeof prefixes / sizeof prefixes[0]; i++)
        if (strncmp(name, prefixes[i], strlen(prefixes[i])) == 0)
            return 1;
    return 0;
}

pp_lands_class
pp_lands_classify(const pp_lands_app *app, const char *path, const char *name, const char **why)
{
    const char *nuget = getenv("NUGET_PACKAGES");
    char dir[1024];

    if (path == NULL || path[0] == '\0') {
        *why = "the trace names no file for this module";
        return PP_LANDS_UNKNOWN;
    }
    if (strchr(path, '/') == NULL && strchr(path, '\\') == NULL) {
        *why = "a dynamic (in-memory) module: no file";
        return PP_LANDS_UNKNOWN;
    }
    if (has_segment(path, "shared", "Microsoft.NETCore.App") ||
        has_segment(path, "shared", "Microsoft.AspNetCore.App") ||
        has_segment(path, "shared", "Microsoft.WindowsDesktop.App") ||
        (app->runtime_dir[0] != '\0' && under(path, app->runtime_dir))) {
        *why = "in the shared framework's dir: a usage change in the app, or an upstream ticket";
        return PP_LANDS_FRAMEWORK;
    }
    if (has_segment(path, ".nuget", "packages") || has_segment(path, "NuGetFallbackFolder", NULL) ||
        (nuget != NULL && nuget[0] != '\0' && under(path, nuget))) {
        *why = "in the NuGet package cache: a package the app references";
        return PP_LANDS_PACKAGE;
    }
    if (app->name[0] != '\0' && name != NULL && strcmp(name, app->name) == 0) {
        *why = "the app's own assembly (the process command line names it)";
        return PP_LANDS_APPLICATION;
    }
    pp_lands_dir_of(path, dir, sizeof dir);
    if (app->dir[0] != '\0' && strcmp(dir, app->dir) != 0 && !under(dir, app->dir)) {
        *why = "outside the app's dir, the shared framework and the NuGet cache";
        return PP_LANDS_UNKNOWN;
    }
    if (name != NULL && package_name(name)) {
        *why = "beside the app, with a package publisher's name (copied from the NuGet cache by "
               "the build)";
        return PP_LANDS_PACKAGE;
    }
    *why = app->dir[0] != '\0' ? "beside the app's own assembly, not a package name" :
                                 "not framework or package by path or name (the app's dir is "
                                 "not known)";
    return PP_LANDS_APPLICATION;
}

const char *
pp_lands_class_name(pp_lands_class c)
{
    switch (c) {
    case PP_LANDS_APPLICATION: return "application";
    case PP_LANDS_PACKAGE: return "package";
    case PP_LANDS_FRAMEWORK: return "framework";
    default: return "unknown";
    }
}
