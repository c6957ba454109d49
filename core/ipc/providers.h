/* Private: what a capture asks the runtime for. dotnet-trace's profiles
 * (today's names and the older ones as aliases), `--providers` in
 * dotnet-trace's syntax, and the counter providers of `--counters`, merged
 * into one provider list for pp_ipc_session_start. The profile table is in
 * perfpipe-collect(1). */
#ifndef PP_CORE_IPC_PROVIDERS_H
#define PP_CORE_IPC_PROVIDERS_H

#include <stddef.h>
#include <stdint.h>

#include "ipc/ipc.h"

typedef struct pp_capture_providers {
    pp_ipc_provider *v; /* names and arguments owned here */
    uint8_t *explicit_; /* per entry: 1 = from --providers (wins over profiles) */
    size_t n, cap;
    uint64_t rundown_keyword; /* OR of the profiles'; see _finish */
    int nprofiles;
    int explicit_rundown; /* rundown_keyword was set by the caller */
} pp_capture_providers;

/* Add a comma-separated list of profile names. PP_ENOTFOUND for an
 * unknown name (the message lists the known ones). */
int pp_capture_add_profiles(pp_capture_providers *cp, const char *list, pp_error *err);
/* Add comma-separated `Name[:Keywords[:Level[:Arguments]]]` entries
 * (keywords hex, 0x optional, `*` = all; level 0-5 or a name; arguments
 * `k=v;k2="v;2"`). These win over a profile's entry for the same provider;
 * two entries for one provider merge (keywords OR, highest level). */
int pp_capture_add_providers(pp_capture_providers *cp, const char *list, pp_error *err);
/* Add counter providers for the same session: list is dotnet-counters'
 * `--counters` (NULL or "" = System.Runtime), each provider both as
 * EventCounters and through the System.Diagnostics.Metrics meter
 * listener, published every interval_s seconds. */
int pp_capture_add_counters(pp_capture_providers *cp, const char *list, unsigned interval_s,
                            pp_error *err);
/* Defaults when nothing was added (dotnet-common +
 * dotnet-sampled-thread-time) and the rundown keyword. */
int pp_capture_providers_finish(pp_capture_providers *cp, pp_error *err);
void pp_capture_providers_free(pp_capture_providers *cp);

/* Known profile names, NULL-terminated (for --help and messages). */
extern const char *const pp_capture_profile_names[];

#endif
