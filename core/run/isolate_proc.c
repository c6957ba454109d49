/* Plugin-made process state: signals put back, strays ended (isolate_proc.h). */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "isolate_proc.h"

void
pp_sig_state_take(pp_sig_state *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        s->have[sig] = sigaction(sig, NULL, &s->act[sig]) == 0;
    sigprocmask(SIG_SETMASK, NULL, &s->mask);
}

void
pp_sig_state_restore(const pp_sig_state *s)
{
    for (int sig = 1; sig < NSIG; sig++)
        if (s->have[sig] && sig != SIGKILL && sig != SIGSTOP)
            sigaction(sig, &s->act[sig], NULL);
    /* Last: a signal a plugin blocked is delivered now, to the host's
     * handler. */
    sigprocmask(SIG_SETMASK, &s->mask, NULL);
}

/* The parent pid in /proc/PID/stat, or -1. */
static pid_t
parent_of(const char *pid)
{
    char path[64], buf[512];
    FILE *f;
    size_t n;
    const char *close_paren;
    long ppid;

    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    if ((f = fopen(path, "re")) == NULL)
        return -1;
    n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = '\0';
    /* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses. */
    if ((close_paren = strrchr(buf, ')')) == NULL ||
        sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

/* The calling process's children: *out (malloc'd, or NULL when none) and
 * *n. 0, or -1 (nothing in *out) when /proc cannot be read or memory ran
 * out. */
static int
children(pid_t **out, size_t *n)
{
    DIR *d = opendir("/proc");
    struct dirent *e;
    pid_t self = getpid();
    size_t cap = 0;

    *out = NULL;
    *n = 0;
    if (d == NULL)
        return -1;
    while ((e = readdir(d)) != NULL) {
        pid_t *grown;

        if (e->d_name[0] < '1' || e->d_name[0] > '9' || parent_of(e->d_name) != self)
            continue;
        if (*n == cap) {
            cap = cap ? 2 * cap : 8;
            if ((grown = realloc(*out, cap * sizeof **out)) == NULL) {
                free(*out);
                *out = NULL;
                *n = 0;
                closedir(d);
                return -1;
            }
            *out = grown;
        }
        (*out)[(*n)++] = (pid_t)strtol(e->d_name, NULL, 10);
    }
    closedir(d);
    return 0;
}

static int
kept(pid_t pid, const pid_t *keep, size_t nkeep)
{
    for (size_t i = 0; i < nkeep; i++)
        if (keep[i] == pid)
            return 1;
    return 0;
}

void
pp_reaper_start(pp_reaper *r)
{
    r->was = 0;
    r->on = children(&r->keep, &r->nkeep) == 0 && prctl(PR_GET_CHILD_SUBREAPER, &r->was) == 0 &&
            prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
}

void
pp_reaper_stop(pp_reaper *r)
{
    if (r->on)
        prctl(PR_SET_CHILD_SUBREAPER, r->was);
    free(r->keep);
    memset(r, 0, sizeof *r);
}

void
pp_reaper_end_strays(const pp_reaper *r)
{
    if (!r->on)
        return;
    /* Each round kills the strays that are children now; their own
     * children come to this process as they die, for the next round. A
     * killed process forks no more, so the rounds end. */
    for (int round = 0; round < 1000; round++) {
        size_t n, ended = 0;
        pid_t *kids;

        if (children(&kids, &n) != 0)
            break;

        for (size_t i = 0; i < n; i++) {
            /* A child in this process's own group that was not there
             * before is the embedding program's (another thread forked it),
             * not a stage's: those are in the stages' group or one of their
             * own. */
            if (kept(kids[i], r->keep, r->nkeep) || getpgid(kids[i]) == getpgrp())
                continue;
            kill(kids[i], SIGKILL);
            while (waitpid(kids[i], NULL, 0) < 0 && errno == EINTR)
                ;
            ended++;
        }
        free(kids);
        if (ended == 0)
            break;
    }
}
