/* Diagnostics IPC process commands: ProcessInfo2 (ProcessInfo on older
 * runtimes) and ResumeRuntime. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "ipc/ipc.h"

/* Wire order (ProcessInfo.cs in dotnet/diagnostics): uint64 pid, GUID
 * cookie, string command line, string OS, string arch; ProcessInfo2 adds
 * string entrypoint assembly name, string CLR product version. */
static int
parse_info(const pp_ipc_msg *m, int v2, pp_ipc_process_info *out, pp_error *err)
{
    pp_ipc_cursor c = { m->payload, m->len, 0, 0 };

    out->pid = pp_ipc_get_u64(&c);
    pp_ipc_get_bytes(&c, out->cookie, 16);
    out->command_line = pp_ipc_get_string(&c);
    out->os = pp_ipc_get_string(&c);
    out->arch = pp_ipc_get_string(&c);
    if (v2) {
        out->entrypoint_assembly = pp_ipc_get_string(&c);
        out->clr_version = pp_ipc_get_string(&c);
    }
    if (c.failed) {
        pp_ipc_process_info_free(out);
        pp_error_set(err, PP_EFORMAT,
                     "diagnostics IPC: malformed ProcessInfo%s reply "
                     "(%zu bytes)",
                     v2 ? "2" : "", m->len);
        return PP_EFORMAT;
    }
    return PP_OK;
}

int
pp_ipc_process_info_get(pp_ipc_endpoint *ep, int timeout_ms, pp_ipc_process_info *out,
                        pp_error *err)
{
    pp_ipc_msg m;
    int rc;

    memset(out, 0, sizeof *out);
    rc = pp_ipc_command(ep, PP_IPC_SET_PROCESS, PP_IPC_PROC_INFO2, NULL, timeout_ms, &m, err);
    if (rc != PP_OK)
        return rc;
    rc = pp_ipc_reply_check(&m, "ProcessInfo2", NULL, err);
    if (rc == PP_OK) {
        rc = parse_info(&m, 1, out, err);
    } else if (rc == PP_EUNSUPPORTED) {
        pp_ipc_msg_free(&m);
        rc = pp_ipc_command(ep, PP_IPC_SET_PROCESS, PP_IPC_PROC_INFO, NULL, timeout_ms, &m, err);
        if (rc != PP_OK)
            return rc;
        rc = pp_ipc_reply_check(&m, "ProcessInfo", NULL, err);
        if (rc == PP_OK)
            rc = parse_info(&m, 0, out, err);
    }
    pp_ipc_msg_free(&m);
    return rc;
}

void
pp_ipc_process_info_free(pp_ipc_process_info *info)
{
    free(info->command_line);
    free(info->os);
    free(info->arch);
    free(info->entrypoint_assembly);
    free(info->clr_version);
    info->command_line = info->os = info->arch = NULL;
    info->entrypoint_assembly = info->clr_version = NULL;
}

int
pp_ipc_resume_runtime(pp_ipc_endpoint *ep, int timeout_ms, pp_error *err)
{
    pp_ipc_msg m;
    int rc = pp_ipc_command(ep, PP_IPC_SET_PROCESS, PP_IPC_PROC_RESUME_RUNTIME, NULL, timeout_ms,
                            &m, err);
    if (rc != PP_OK)
        return rc;
    rc = pp_ipc_reply_check(&m, "ResumeRuntime", NULL, err);
    pp_ipc_msg_free(&m);
    return rc;
}
