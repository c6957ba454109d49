/* Private: the process state a plugin may change in the stages' process
 * (signal dispositions and mask) and the processes it may leave behind,
 * for core/run/isolate.c. */
#ifndef PP_CORE_ISOLATE_PROC_H
#define PP_CORE_ISOLATE_PROC_H

#include <signal.h>
#include <stddef.h>
#include <sys/types.h>

/* Every signal's disposition and the signal mask, as taken before plugin
 * code ran. */
typedef struct pp_sig_state {
    struct sigaction act[NSIG];
    unsigned char have[NSIG];
    sigset_t mask;
} pp_sig_state;

/* Take the calling process's dispositions and mask into s. */
void pp_sig_state_take(pp_sig_state *s);

/* Put back the dispositions and mask taken in s: the process that writes
 * the outputs handles signals as the host set it up, whatever a plugin
 * ignored, blocked or caught. */
void pp_sig_state_restore(const pp_sig_state *s);

/* The calling process as the subreaper of what its stages' processes
 * leave behind: `keep` are the children it had before (its caller's). */
typedef struct pp_reaper {
    int on, was;
    pid_t *keep;
    size_t nkeep;
} pp_reaper;

/* Make the calling process a subreaper (r->on = 0 when it cannot be, or
 * its children cannot be listed: nothing is ended then). */
void pp_reaper_start(pp_reaper *r);

/* Kill and reap every child that is not one of r's kept ones nor in this
 * process's group: the processes a stage forked and left behind, which
 * come to this process whatever session or process group they moved to. */
void pp_reaper_end_strays(const pp_reaper *r);

/* Undo pp_reaper_start. */
void pp_reaper_stop(pp_reaper *r);

#endif
