/* Private to diagnose's files (cmd_diagnose.c, diag_*.c). */
#ifndef PP_CLI_DIAG_INTERNAL_H
#define PP_CLI_DIAG_INTERNAL_H

#include <stddef.h>

#include <jansson.h>

#include "diag.h"

struct pp_ipc_endpoint;

/* {pid, command_line, name, runtime_version, os, arch, start_time,
 * socket} of the resolved target (new reference). */
json_t *pp_diag_identity(struct pp_ipc_endpoint *ep);
/* PP_EXIT_OK when no other client holds a session on the target, else
 * PP_EXIT_INPUT after naming it (diag_target.c). */
int pp_diag_check_busy(const struct pp_ipc_endpoint *ep, const char *name);
/* t (seconds since the epoch) as 2026-12-06T07:00:00Z. */
void pp_diag_iso_time(long long t, char *out, size_t size);

/* Run `perfpipe ARGV...` in this process (argv[0] is the command or the
 * analyzer, NULL-terminated), its stdout to /dev/null; an exit code. */
int pp_diag_run(const char *const *argv);

#endif
