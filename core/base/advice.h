/* Private to core: advice that tells the user to capture again names the
 * tool that took the capture. A trace perfpipe took (a live capture, or a
 * file `perfpipe collect` wrote: it keeps the module map FILE.maps beside
 * it, and no other tool does) gets `perfpipe collect ...`; any other trace
 * gets `dotnet-trace collect ...`, the tool most traces come from. Plugins
 * reach this through pp_host_api.capture_advice (ABI 1.6), core through
 * these functions, so no analyzer carries its own copy of either command. */
#ifndef PP_CORE_ADVICE_H
#define PP_CORE_ADVICE_H

#include <stddef.h>
#include <stdint.h>

/* 1 when perfpipe took the input at path: a capture spec ("capture:..."),
 * or a file with PATH.maps beside it (also PATH-without-.xz/.gz/.zst.maps
 * for a trace compressed after the capture). 0 otherwise, NULL included. */
int pp_advice_perfpipe_took(const char *path);

/* The advice of kind how (PP_CAPTURE_*, plugin.h) with args (the options
 * both tools share: --profile, --providers, -p PID; NULL = none) for the
 * tool (perfpipe: 1 = perfpipe collect, 0 = dotnet-trace), written to buf
 * (always NUL-terminated, cut to size). Returns buf. */
char *pp_advice_capture(int perfpipe, uint32_t how, const char *args, char *buf, size_t size);

#endif
