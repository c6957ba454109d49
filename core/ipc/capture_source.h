/* Private: the live capture source (core/input/source.h) and its spec, the
 * `capture:KEY=VALUE;...` text a pipeline input's path holds when the
 * input is captured live (YAML `capture:` mapping, --input NAME=capture:...,
 * or the `perfpipe ANALYZER --pid N` shorthand). */
#ifndef PP_CORE_IPC_CAPTURE_SOURCE_H
#define PP_CORE_IPC_CAPTURE_SOURCE_H

#include "ipc/capture.h"
#include "input/source.h"

#define PP_CAPTURE_PREFIX "capture:"

extern const pp_source_ops pp_capture_source_ops;
/* Counters (kind "counters") from the System.Diagnostics.Metrics events of
 * a .nettrace (counters_events.c). */
extern const pp_source_ops pp_counters_nettrace_source_ops;

/* Heap snapshots (kind gcdump) taken live (heapsnap_source.c). */
extern const pp_source_ops pp_gcdump_capture_source_ops;
/* Sleep for a capture's delay (interrupted by a signal that sets
 * pp_ipc_cancel). */
void pp_capture_delay(double seconds);

/* Whether path is a capture spec. */
int pp_capture_spec_is(const char *path);

/* A duration as collect and capture: specs take it: 30, 30s, 500ms, 2m, 1h
 * or dd:hh:mm:ss, in seconds; < 0 if it is none of these or longer than
 * PP_CAPTURE_MAX_SECONDS (the poll timeouts count milliseconds in an int). */
#define PP_CAPTURE_MAX_SECONDS 1000000.0
double pp_capture_parse_duration(const char *s);
/* Parse a capture spec into *spec; its strings point into *storage (the
 * caller frees it after the spec's last use). PP_EINVAL with the key. */
int pp_capture_spec_parse(const char *path, pp_capture_spec *spec, char **storage, pp_error *err);

#endif
