/* Plugin-made process state: signals put back, strays ended (isolate_proc.h). */
#define _GNU_SOURCE 1 /* getdents64 */
#include "config.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

/* The parent pid in /proc/PID/stat, or -1. No stdio: the strays are ended
 * after the result may be in place, where a failed allocation (fopen's)
 * left them running and said nothing. */
static pid_t
parent_of(pid_t pid)
{
    char path[64], buf[512];
    ssize_t n;
    int fd;
    const char *close_paren;
    long ppid;

    snprintf(path, sizeof path, "/proc/%ld/stat", (long)pid);
    if ((fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return -1;
    n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return -1;
    buf[n] = '\0';
    /* "PID (COMM) STATE PPID ...": COMM may hold spaces and parentheses. */
    if ((close_paren = strrchr(buf, ')')) == NULL ||
        sscanf(close_paren + 1, " %*c %ld", &ppid) != 1)
        return -1;
    return (pid_t)ppid;
}

/* Calls fn(pid, user) for each child of the calling process; 0, or -1 when
 * /proc cannot be read or fn says stop (-1). No allocation: /proc is read
 * with getdents64 into a buffer on the stack. */
static int
each_child(int (*fn)(pid_t, void *), void *user)
{
    char buf[4096];
    pid_t self = getpid();
    int fd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC), rc = 0;
    ssize_t n = 0;

    if (fd < 0)
        return -1;
    while (rc == 0 && (n = getdents64(fd, buf, sizeof buf)) > 0) {
        for (ssize_t off = 0; rc == 0 && off < n;) {
            const struct dirent64 *e = (const struct dirent64 *)(buf + off);
            pid_t pid = (pid_t)strtol(e->d_name, NULL, 10);

            off += e->d_reclen;
            if (e->d_name[0] >= '1' && e->d_name[0] <= '9' && parent_of(pid) == self)
                rc = fn(pid, user);
        }
    }
    close(fd);
    if (n < 0)
        rc = -1;
    return rc;
}

typedef struct pid_list {
    pid_t *pids;
    size_t n, cap;
} pid_list;

static int
add_child(pid_t pid, void *user)
{
    pid_list *l = user;

    if (l->n == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 8;
        pid_t *grown = realloc(l->pids, cap * sizeof *grown);

        if (grown == NULL)
            return -1;
        l->pids = grown;
        l->cap = cap;
    }
    l->pids[l->n++] = pid;
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
    pid_list keep = { NULL, 0, 0 };

    r->was = 0;
    r->on = each_child(add_child, &keep) == 0 && prctl(PR_GET_CHILD_SUBREAPER, &r->was) == 0 &&
            prctl(PR_SET_CHILD_SUBREAPER, 1) == 0;
    r->keep = keep.pids;
    r->nkeep = keep.n;
}

void
pp_reaper_stop(pp_reaper *r)
{
    if (r->on)
        prctl(PR_SET_CHILD_SUBREAPER, r->was);
    free(r->keep);
    memset(r, 0, sizeof *r);
}

typedef struct stray_round {
    const pp_reaper *r;
    size_t ended;
} stray_round;

static int
end_stray(pid_t pid, void *user)
{
    stray_round *round = user;

    /* A child in this process's own group that was not there before is
     * the embedding program's (another thread forked it), not a stage's:
     * those are in the stages' group or one of their own. */
    if (kept(pid, round->r->keep, round->r->nkeep) || getpgid(pid) == getpgrp())
        return 0;
    kill(pid, SIGKILL);
    while (waitpid(pid, NULL, 0) < 0 && errno == EINTR)
        ;
    round->ended++;
    return 0;
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
        stray_round sr = { r, 0 };

        if (each_child(end_stray, &sr) != 0 || sr.ended == 0)
            break;
    }
}
