/* `perfpipe __complete WHAT [CMD]`: the words shell completion offers, read
 * from the program itself so completion cannot drift from it. Options come
 * from the command's own --help (every option a command takes is in its
 * help; tests/cli/test-completion.sh also checks every getopt table against
 * what completes), formats from the format registry or the command's
 * `--format a|b` synopsis, pipelines from the pipeline directories in force.
 * Hidden: not in usage, not in `help --list commands`. */
#include "config.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "loader/paths.h"
#include "result/formats.h"

#define MAX_WORDS 256

typedef struct {
    char *w[MAX_WORDS];
    size_t n;
} word_set;

static void
add_word(word_set *s, const char *p, size_t len)
{
    for (size_t i = 0; i < s->n; i++)
        if (strlen(s->w[i]) == len && strncmp(s->w[i], p, len) == 0)
            return;
    if (s->n < MAX_WORDS && (s->w[s->n] = strndup(p, len)) != NULL)
        s->n++;
}

static void
put_words(word_set *s)
{
    for (size_t i = 0; i < s->n; i++) {
        printf("%s\n", s->w[i]);
        free(s->w[i]);
    }
    s->n = 0;
}

/* The text `perfpipe CMD --help` prints (stdout and stderr), malloc'd; NULL
 * when it cannot be captured. In a child: a command's --help may exit. */
static char *
help_text(pp_cli_command_fn fn, const char *name)
{
    char *args[3] = { (char *)name, (char *)"--help", NULL }, *text = NULL;
    size_t used = 0, cap = 0;
    int fd[2], status;
    pid_t pid;

    fflush(stdout);
    fflush(stderr);
    if (pipe(fd) < 0)
        return NULL;
    if ((pid = fork()) < 0) {
        close(fd[0]);
        close(fd[1]);
        return NULL;
    }
    if (pid == 0) {
        close(fd[0]);
        if (dup2(fd[1], STDOUT_FILENO) < 0 || dup2(fd[1], STDERR_FILENO) < 0)
            _exit(PP_EXIT_OUTPUT);
        exit(fn != NULL ? fn(2, args) : pp_cmd_analyzer(name, 2, args));
    }
    close(fd[1]);
    for (;;) {
        ssize_t got;
        char *grown;

        if (used + 4096 + 1 > cap) {
            if ((grown = realloc(text, cap + 65536)) == NULL)
                break;
            text = grown;
            cap += 65536;
        }
        if ((got = read(fd[0], text + used, cap - used - 1)) <= 0)
            break;
        used += (size_t)got;
    }
    close(fd[0]);
    (void)waitpid(pid, &status, 0);
    if (text != NULL)
        text[used] = '\0';
    return text;
}

static int
word_char(char c)
{
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-';
}

/* An option is a '-' or '--' word that starts after a blank, '[', '(', '|',
 * ',' or '`' (so "per-stage" and "dotnet-trace" are not options) and ends
 * at a blank, '=', '[', ']', ')', '|', ',', '`', '.' or the end of the line. */
static void
scan_options(const char *text, word_set *out)
{
    for (const char *p = text; *p != '\0'; p++) {
        const char *q, *start = p;

        if (*p != '-' || (p > text && strchr(" \t\n[(|,`", p[-1]) == NULL))
            continue;
        q = p + 1;
        if (*q == '-')
            q++;
        if (!((*q >= 'a' && *q <= 'z') || (*q >= 'A' && *q <= 'Z')))
            continue;
        while (word_char(*q))
            q++;
        if (q[-1] == '-' || (*q != '\0' && strchr(" \t\n=[])|,`.", *q) == NULL))
            continue;
        if (q - start == 2 || start[1] == '-')
            add_word(out, start, (size_t)(q - start));
        p = q - 1;
    }
}

/* `--format FMT  a, b or c` in the help, when each is a registered format
 * (compare's document formats): those words; else 0. */
static int
scan_format_list(const char *text, word_set *out)
{
    const char *p = strstr(text, "--format FMT ");
    word_set s = { .w = { NULL }, .n = 0 };

    if (p == NULL)
        return 0;
    for (p += 13; *p == ' '; p++)
        ;
    while ((*p >= 'a' && *p <= 'z') || *p == '-') {
        const char *q = p;
        while ((*q >= 'a' && *q <= 'z') || *q == '-')
            q++;
        add_word(&s, p, (size_t)(q - p));
        if (strncmp(q, ", ", 2) == 0)
            p = q + 2;
        else if (strncmp(q, " or ", 4) == 0)
            p = q + 4;
        else
            break;
    }
    for (size_t i = 0; i < s.n; i++)
        if (pp_output_format_named(s.w[i]) == NULL)
            s.n = 0;
    for (size_t i = 0; i < s.n; i++)
        add_word(out, s.w[i], strlen(s.w[i]));
    for (size_t i = 0; i < MAX_WORDS && s.w[i] != NULL; i++)
        free(s.w[i]);
    return s.n >= 2;
}

/* `--format a|b|c` in the help: the command's own formats; else 0. */
static int
scan_format_choices(const char *text, word_set *out)
{
    const char *p = text;

    while ((p = strstr(p, "--format ")) != NULL) {
        const char *q = p += 9, *end = q;

        while (word_char(*end) || *end == '|')
            end++;
        if (memchr(q, '|', (size_t)(end - q)) == NULL)
            continue;
        while (q < end) {
            const char *bar = memchr(q, '|', (size_t)(end - q));
            const char *stop = bar != NULL ? bar : end;
            add_word(out, q, (size_t)(stop - q));
            q = stop + 1;
        }
        return 1;
    }
    return scan_format_list(text, out);
}

static int
pipelines(void)
{
    char *dirs[16];
    size_t n = pp_pipeline_dirs(dirs, sizeof dirs / sizeof dirs[0]);
    word_set s = { .n = 0 };

    for (size_t i = 0; i < n; i++) {
        DIR *d = opendir(dirs[i]);
        struct dirent *e;

        while (d != NULL && (e = readdir(d)) != NULL) {
            size_t len = strlen(e->d_name);
            if (len > 5 && e->d_name[0] != '.' && strcmp(e->d_name + len - 5, ".yaml") == 0)
                add_word(&s, e->d_name, len - 5);
        }
        if (d != NULL)
            closedir(d);
        free(dirs[i]);
    }
    put_words(&s);
    return PP_EXIT_OK;
}

int
pp_cli_complete(int argc, char **argv, pp_cli_command_fn (*lookup)(const char *))
{
    const char *what = argc > 2 ? argv[2] : "", *cmd = argc > 3 ? argv[3] : NULL;
    word_set s = { .n = 0 };
    char *text;

    if (strcmp(what, "pipelines") == 0)
        return pipelines();
    if ((strcmp(what, "options") != 0 && strcmp(what, "formats") != 0) || cmd == NULL ||
        cmd[0] == '-' || strcmp(cmd, "help") == 0) {
        if (strcmp(what, "options") == 0 && cmd != NULL && strcmp(cmd, "help") == 0) {
            printf("--list\n");
            return PP_EXIT_OK;
        }
        pp_cli_error("__complete takes: pipelines | options CMD | formats CMD");
        return PP_EXIT_USAGE;
    }
    if ((text = help_text(lookup(cmd), cmd)) == NULL) {
        pp_cli_error("__complete: cannot capture `%s --help`", cmd);
        return PP_EXIT_NOMEM;
    }
    if (strcmp(what, "options") == 0) {
        scan_options(text, &s);
        for (const char *const *g = pp_cli_global_flags; *g != NULL; g++)
            add_word(&s, *g, strlen(*g));
    } else if (!scan_format_choices(text, &s)) {
        free(text);
        return pp_cli_list_registry("formats", stdout);
    }
    free(text);
    put_words(&s);
    return PP_EXIT_OK;
}
