/* Private: which build of each application module a trace ran (issue #44).
 *
 * The runtime's module events (Loader ModuleLoad/Unload V2, rundown
 * ModuleDCStart/DCEnd V2) carry each assembly's identity: its file
 * (ModuleILPath), the managed PDB signature GUID and age (the build's
 * identity: a rebuild with any change gives a new GUID; a deterministic
 * build of the same sources gives the same one) and the PDB path the
 * compiler wrote (ManagedPdbBuildPath). modident collects them as the
 * events pass and writes `nettrace.modules` for the application's own
 * modules (landing.h's rule: not under a shared framework, runtime or
 * package dir, not a package publisher's assembly beside the app). When the
 * file is on this machine it is read again (its CodeView entry) and its
 * modification time set against the trace's start, the latest the traced
 * process can have started: a file newer than that, or with another
 * identity, is a stale process (finding input.stale_process).
 * PERFPIPE_BUILD_CHECK=off skips the files (the result is the trace's only).
 *
 * Kept apart from modules.c (the method -> module map) so the PDB locator
 * can read the same fields its own way. */
#ifndef PP_NETTRACE_MODIDENT_H
#define PP_NETTRACE_MODIDENT_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include <perfpipe/records.h>

typedef struct pp_nt_modid {
    char *path;       /* ModuleILPath, UTF-8 */
    char *build_path; /* ManagedPdbBuildPath, "" when none */
    uint8_t guid[16]; /* ManagedPdbSignature */
    uint32_t age;
    int has_pdb; /* a V2 event gave the signature */
} pp_nt_modid;

/* Zero-initialised is empty. */
typedef struct pp_nt_modident {
    pp_nt_modid *mods;
    size_t n, cap;
    int oom; /* a module could not be recorded: the description is refused */
} pp_nt_modident;

/* Look at one event; cheap for any other than the module events. Out of
 * memory loses the module and sets m->oom (the reader's describe then
 * fails with PP_ENOMEM: a module list missing one is no whole result). */
void pp_nt_modident_observe(pp_nt_modident *m, const pp_trace_event *ev);

/* Move later's modules not already in m into m (a region of the file read
 * on another thread, core/engine/engine_par.c). */
void pp_nt_modident_merge(pp_nt_modident *m, pp_nt_modident *later);

/* Write `modules` (an array, application modules only, in load order) into
 * the input's nettrace object; command_line and runtime_dll as the process
 * identity knows them (either may be NULL); start_ns and end_ns are the
 * trace's first and last moments in Unix ns (0: unknown, no time check).
 * Returns 0 when every file on this machine is the build that ran (or none
 * can tell); 1 when a module's file changed before the trace ended (a stale
 * process: the warning input.stale_process); 2 when files changed only after
 * it (input.rebuilt_since, information). warning (NUL-terminated; "" on 0)
 * then holds the whole message with what to do. Nothing is written when the
 * trace has no module event. */
int pp_nt_modident_describe(const pp_nt_modident *m, const char *command_line,
                            const char *runtime_dll, int64_t start_ns, int64_t end_ns,
                            json_t *nettrace, char *warning, size_t size);

void pp_nt_modident_free(pp_nt_modident *m);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of a GUID as Windows lays it out
 * (the first three groups little-endian), into out (at least 37 bytes). */
void pp_nt_guid_text(const uint8_t guid[16], char *out);

/* pe_codeview.c: the first CodeView (RSDS) debug entry of a PE file. */
typedef struct pp_nt_pe_identity {
    uint8_t guid[16];
    uint32_t age;
} pp_nt_pe_identity;

#define PP_NT_PE_OK      0
#define PP_NT_PE_NOFILE  1 /* cannot be opened (not on this machine) */
#define PP_NT_PE_NODEBUG 2 /* a PE without a CodeView entry */
#define PP_NT_PE_BAD     3 /* not a PE file, or a damaged one */
int pp_nt_pe_identity_read(const char *path, pp_nt_pe_identity *out);

/* 0 when PERFPIPE_BUILD_CHECK=off: nothing is read from the files a trace
 * names on this machine (module files, PDBs beside them), so a result
 * depends on the trace only; 1 otherwise. */
int pp_nt_build_files_checked(void);

#endif
