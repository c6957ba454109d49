/* Advice to capture again, for the tool that took the capture (advice.h). */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include <perfpipe/plugin.h>

#include "advice.h"

/* Where perfpipe collect listens when it is to start the app itself: it
 * has no `-- COMMAND` (it never forks the app), so the app is started
 * pointing at collect's listening diagnostic port. */
#define LISTEN_AT "/tmp/app-diag.sock"
#define APP_DLL   "dotnet bin/Release/net10.0/App.dll"

static int
has_maps(const char *path, size_t n)
{
    char *mp = malloc(n + 6);
    struct stat st;
    int yes;

    if (mp == NULL)
        return 0;
    memcpy(mp, path, n);
    memcpy(mp + n, ".maps", 6);
    yes = stat(mp, &st) == 0 && S_ISREG(st.st_mode);
    free(mp);
    return yes;
}

int
pp_advice_perfpipe_took(const char *path)
{
    static const char *const packed[] = { ".xz", ".gz", ".zst" };
    size_t n;

    if (path == NULL)
        return 0;
    if (strncmp(path, "capture:", 8) == 0)
        return 1;
    n = strlen(path);
    if (has_maps(path, n))
        return 1;
    for (size_t i = 0; i < sizeof packed / sizeof packed[0]; i++) {
        size_t k = strlen(packed[i]);
        if (n > k && strcmp(path + n - k, packed[i]) == 0 && has_maps(path, n - k))
            return 1;
    }
    return 0;
}

char *
pp_advice_capture(int perfpipe, uint32_t how, const char *args, char *buf, size_t size)
{
    const char *tool = perfpipe ? "perfpipe collect" : "dotnet-trace collect";
    const char *sp = args != NULL && args[0] != '\0' ? " " : "";

    if (args == NULL)
        args = "";
    if (buf == NULL || size == 0)
        return buf;
    switch (how) {
    case PP_CAPTURE_LAUNCH:
        if (perfpipe)
            snprintf(buf, size,
                     "`%s%s%s --diagnostic-port " LISTEN_AT "`, then start the app with "
                     "`DOTNET_DiagnosticPorts=" LISTEN_AT " " APP_DLL "` (not `dotnet run`)",
                     tool, sp, args);
        else
            snprintf(buf, size, "`%s%s%s -- " APP_DLL "` (not `-- dotnet run`)", tool, sp, args);
        break;
    case PP_CAPTURE_STOP:
        snprintf(buf, size, "%s",
                 perfpipe ? "stop `perfpipe collect` with one Ctrl+C (or give it --duration) "
                            "and let it finish (a second Ctrl+C cuts the rundown)" :
                            "stop `dotnet-trace collect` with Enter or Ctrl+C and let it finish");
        break;
    default: snprintf(buf, size, "`%s%s%s`", tool, sp, args); break;
    }
    return buf;
}
