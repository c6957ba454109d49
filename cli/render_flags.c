/* Layout flags every subcommand takes (--wide, --weight) and the width of
 * the terminal: read once in main, before the subcommand parses its own
 * options, so each subcommand's option table stays its own. */
#include "config.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include "cli.h"

pp_render_opts pp_cli_render = PP_RENDER_OPTS_INIT;

/* Keep in step with pp_cli_take_render_flags below. */
const char *const pp_cli_global_flags[] = { "--wide", "--weight", NULL };

/* $COLUMNS first (a script or a test can fix it), then the terminal on
 * stdout; 0 (the renderer's default of 120) when neither says. */
static unsigned
terminal_width(void)
{
    const char *env = getenv("COLUMNS");
    struct winsize ws;

    if (env != NULL && *env) {
        char *end;
        long v;
        errno = 0;
        v = strtol(env, &end, 10);
        if (errno == 0 && *end == '\0' && v >= 20 && v <= 100000)
            return (unsigned)v;
    }
    if (isatty(STDOUT_FILENO) && ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_col >= 20)
        return ws.ws_col;
    return 0;
}

static int
set_weight(const char *v)
{
    if (strcmp(v, "time") == 0 || strcmp(v, "ms") == 0) {
        pp_cli_render.weight = PP_RENDER_WEIGHT_TIME;
        return 0;
    }
    if (strcmp(v, "samples") == 0) {
        pp_cli_render.weight = PP_RENDER_WEIGHT_SAMPLES;
        return 0;
    }
    pp_cli_error("--weight takes time (the default: milliseconds where the table has them) or "
                 "samples (the table's count column), not '%s'",
                 v);
    return -1;
}

int
pp_cli_take_render_flags(int *argc, char **argv)
{
    int o = 1;

    pp_cli_render.width = terminal_width();
    for (int i = 1; i < *argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "--") == 0) {
            while (i < *argc)
                argv[o++] = argv[i++];
            break;
        }
        if (strcmp(a, "--wide") == 0) {
            pp_cli_render.wide = 1;
            continue;
        }
        if (strncmp(a, "--weight=", 9) == 0 || strcmp(a, "--weight") == 0) {
            const char *v = a[8] == '=' ? a + 9 : (i + 1 < *argc ? argv[++i] : NULL);
            if (v == NULL) {
                pp_cli_error("--weight needs a value: time or samples");
                return -1;
            }
            if (set_weight(v) < 0)
                return -1;
            continue;
        }
        /* --top stays for the subcommand (it sets the analyzer's option);
         * the text renderers apply it to every table too. */
        if ((strcmp(a, "--top") == 0 && i + 1 < *argc) || strncmp(a, "--top=", 6) == 0) {
            const char *v = a[5] == '=' ? a + 6 : argv[i + 1];
            char *end;
            long long n = strtoll(v, &end, 10);
            if (*v && *end == '\0' && n >= 0)
                pp_cli_render.top = n;
        }
        argv[o++] = argv[i];
    }
    argv[o] = NULL;
    *argc = o;
    return 0;
}
