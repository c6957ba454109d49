/* Private: loading a plugin once in a throwaway child before the host
 * process trusts it (the way GStreamer's plugin scanner does), so a .so
 * whose constructor crashes, whose entry function loops, or whose
 * descriptor points at garbage is a refusal with the reason, never the end
 * of `perfpipe plugins`, `describe` or a run. */
#ifndef PP_CORE_LOADER_PROBE_H
#define PP_CORE_LOADER_PROBE_H

#include <stdint.h>

#include <perfpipe/plugin.h>

/* The documented default limit for loading one plugin (perfpipe(1)). */
#define PP_LOADER_PROBE_TIMEOUT_DEFAULT 10u

/* In a child: dlopen path, call its entry, run pp_plugin_check(d, name,
 * path) (which reads every string the host will read), and see whether
 * anything was written to stdout. Returns PP_OK when all of that went well
 * within limit_s seconds; otherwise PP_EPLUGIN with err saying why, and
 * *broken set when the child crashed, exited, wrote to stdout or ran out
 * of time (the plugin is broken, not merely refused by the check). PP_EIO
 * when no child could be made (err says so; the caller may load in
 * process). */
int pp_loader_probe(const char *path, const char *name, uint32_t limit_s, int *broken,
                    pp_error *err);

#endif
