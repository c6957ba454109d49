/* What the CLI says of the registries (output formats: result/formats.h;
 * input kinds: registry/kinds.h): usage texts with their names filled in,
 * the unknown-format error, and `perfpipe help --list` for completion. */
#include "config.h"

#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "registry/kinds.h"
#include "result/formats.h"

#define ALL_FORMATS (PP_FORMAT_DOCUMENT | PP_FORMAT_STACKS)

int
pp_cli_format_ok(const char *fmt)
{
    char docs[512], stacks[512];

    if (pp_output_format_named(fmt) != NULL)
        return 1;
    pp_cli_error("unknown format '%s': use %s, or for a stack table %s", fmt,
                 pp_output_format_list(PP_FORMAT_DOCUMENT, ", ", " or ", docs, sizeof docs),
                 pp_output_format_list(PP_FORMAT_STACKS, ", ", " or ", stacks, sizeof stacks));
    return 0;
}

static char *
kind_list(char *buf, size_t size)
{
    const char *names[64];
    size_t n = pp_input_kind_names(UINT32_MAX, names, 64), used = 0;

    buf[0] = '\0';
    for (size_t i = 0; i < n && used < size; i++) {
        int w = snprintf(buf + used, size - used, "%s%s",
                         i == 0     ? "" :
                         i + 1 == n ? " or " :
                                      ", ",
                         names[i]);
        if (w < 0)
            break;
        used += (size_t)w;
    }
    return buf;
}

void
pp_cli_put_text(FILE *out, const char *text)
{
    static const struct {
        const char *mark;
        unsigned formats;
    } marks[] = {
        { "@FORMATS@", ALL_FORMATS },
        { "@DOC_FORMATS@", PP_FORMAT_DOCUMENT },
        { "@STACK_FORMATS@", PP_FORMAT_STACKS },
        { "@KINDS@", 0 },
    };
    const char *p = text;

    while (*p != '\0') {
        const char *at = strchr(p, '@');
        size_t m, len;
        char list[1024];

        if (at == NULL) {
            fputs(p, out);
            return;
        }
        fwrite(p, 1, (size_t)(at - p), out);
        for (m = 0; m < sizeof marks / sizeof marks[0]; m++)
            if (strncmp(at, marks[m].mark, strlen(marks[m].mark)) == 0)
                break;
        if (m == sizeof marks / sizeof marks[0]) {
            fputc('@', out);
            p = at + 1;
            continue;
        }
        len = strlen(marks[m].mark);
        if (marks[m].formats != 0)
            pp_output_format_list(marks[m].formats, ", ", " or ", list, sizeof list);
        else
            kind_list(list, sizeof list);
        fputs(list, out);
        p = at + len;
    }
}

int
pp_cli_list_registry(const char *what, FILE *out)
{
    const char *names[64];
    size_t n;

    if (strcmp(what, "formats") == 0)
        n = pp_output_format_names(ALL_FORMATS, names, 64);
    else if (strcmp(what, "document-formats") == 0)
        n = pp_output_format_names(PP_FORMAT_DOCUMENT, names, 64);
    else if (strcmp(what, "stack-formats") == 0)
        n = pp_output_format_names(PP_FORMAT_STACKS, names, 64);
    else if (strcmp(what, "kinds") == 0)
        n = pp_input_kind_names(UINT32_MAX, names, 64);
    else {
        pp_cli_error("help --list: '%s' is not a list: use commands, formats, "
                     "document-formats, stack-formats or kinds",
                     what);
        return PP_EXIT_USAGE;
    }
    for (size_t i = 0; i < n; i++)
        fprintf(out, "%s\n", names[i]);
    return PP_EXIT_OK;
}
