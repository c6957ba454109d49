/* core/native: names for native code addresses in a trace.
 *
 * While capturing, perfpipe saves the target's module map (its file-backed
 * /proc/PID/maps lines plus each file's ELF build id) as a text sidecar next
 * to the trace (FILE.nettrace.maps, format in docs/native-frames.md). When
 * the trace is read, an address no method covers is looked up in that map
 * and named "module!function+0xOFF" from the module's ELF symbol table
 * (.symtab, else .dynsym, read with elfutils' libelf), "module!?+0xOFF"
 * when no symbol covers it, and "module!?(build-id mismatch)+0xOFF" when the
 * file on disk is not the one that was mapped. Internal to libperfpipe. */
#ifndef PP_NATIVE_H
#define PP_NATIVE_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

#define PP_NATIVE_MAPS_MAGIC   "# perfpipe-maps/1"
#define PP_NATIVE_BUILD_ID_MAX 64 /* hex digits kept (32 bytes) */

typedef struct pp_native_mapping {
    uint64_t start, end, offset;               /* [start, end) maps file offset */
    char perms[5];                             /* "r-xp" */
    char build_id[PP_NATIVE_BUILD_ID_MAX + 1]; /* hex, or "-" when unknown */
    char *path;                                /* owned */
    uint32_t module;                           /* index into the symbolizer's modules */
} pp_native_mapping;

typedef struct pp_native_maps {
    uint64_t pid;
    pp_native_mapping *v; /* sorted by start */
    size_t n, cap;
} pp_native_maps;

/* ---- maps.c ---- */
/* Snapshot the file-backed mappings of a live process, with build ids read
 * from the files (through /proc/PID/root so a container's view is used).
 * *out is caller-owned (pp_native_maps_free). PP_EIO when the maps cannot
 * be read (process gone, no permission). */
int pp_native_maps_read_proc(uint64_t pid, pp_native_maps *out, pp_error *err);
/* Parse a sidecar. Malformed text fails with PP_EFORMAT and
 * "FILE:LINE:COLUMN: expected ..." (err->line/column set); PP_ENOTFOUND
 * when the file does not exist. */
int pp_native_maps_load(const char *path, pp_native_maps *out, pp_error *err);
/* Parse sidecar text held in memory; name is used in messages. */
int pp_native_maps_parse(const char *text, size_t len, const char *name, pp_native_maps *out,
                         pp_error *err);
void pp_native_maps_free(pp_native_maps *m);
/* Add from's mappings to into (sorted again), skipping any that overlaps a
 * mapping into already has; from is consumed (freed) either way.
 * PP_ENOMEM leaves into valid with what was added so far. */
int pp_native_maps_merge(pp_native_maps *into, pp_native_maps *from);

/* ---- keep.c ---- */
/* Write a sidecar by the output rules of core/output/outfile.h (atomic for a
 * regular file, mode from the umask, symlinks followed). */
int pp_native_maps_save(const pp_native_maps *m, const char *path, pp_error *err);
/* What perfpipe collect keeps: *seen (consumed) merged with the process's
 * maps now when it is still alive, saved as TRACE.maps. */
int pp_native_maps_keep(uint64_t pid, pp_native_maps *seen, const char *trace, pp_error *err);
/* A thread re-reading a live process's maps every interval_ms while it is
 * captured, so modules loaded during the run are kept even when the process
 * exits before the capture ends. NULL when the thread cannot start (then
 * only the final snapshot is kept). */
typedef struct pp_native_watch pp_native_watch;
pp_native_watch *pp_native_watch_start(uint64_t pid, unsigned interval_ms);
/* Stop and join the thread; *out (caller-owned) gets every mapping seen.
 * w may be NULL: *out is then empty. */
void pp_native_watch_stop(pp_native_watch *w, pp_native_maps *out);

/* ---- elfsym.c ---- */
typedef struct pp_native_elf pp_native_elf;
/* Open an ELF file and build its sorted function table (sized STT_FUNC
 * symbols of .symtab, or of .dynsym when there is no .symtab). PP_EIO when
 * the file cannot be opened, PP_EFORMAT when it is not ELF. */
int pp_native_elf_open(const char *path, pp_native_elf **out, pp_error *err);
/* The GNU build id in hex (NUL-terminated into hex[PP_NATIVE_BUILD_ID_MAX+1]),
 * or "-" when the file has none. */
const char *pp_native_elf_build_id(const pp_native_elf *e);
/* Translate a file offset to a virtual address through the PT_LOAD
 * segments; 0 when no segment holds it (then *vaddr is untouched). */
int pp_native_elf_offset_to_vaddr(const pp_native_elf *e, uint64_t off, uint64_t *vaddr);
/* The function covering vaddr (its name, owned by e, and *off the distance
 * from its start), or NULL. */
const char *pp_native_elf_lookup(const pp_native_elf *e, uint64_t vaddr, uint64_t *off);
size_t pp_native_elf_nsyms(const pp_native_elf *e);
/* Whether the table came from .symtab (1) or .dynsym (0). */
int pp_native_elf_full_symtab(const pp_native_elf *e);
void pp_native_elf_close(pp_native_elf *e);

/* ---- r2r.c ---- */
typedef struct pp_native_r2r pp_native_r2r;
/* Open a ReadyToRun (precompiled managed, x64) PE image and index which
 * runtime function starts which MethodDef. PP_EIO when it cannot be opened,
 * PP_EFORMAT when it is not an x64 R2R image. Close with pp_native_r2r_close. */
int pp_native_r2r_open(const char *path, pp_native_r2r **out, pp_error *err);
/* "Namespace.Type+Nested.Method" of the method whose main body holds file
 * offset foff (owned by r, valid until the next lookup), *off the distance
 * from its start; NULL for funclets, generic instantiations, stubs and
 * offsets outside code. */
const char *pp_native_r2r_lookup(pp_native_r2r *r, uint64_t foff, uint64_t *off);
void pp_native_r2r_close(pp_native_r2r *r);

/* ---- symbolize.c ---- */
typedef struct pp_native_syms pp_native_syms;
/* Take ownership of maps; modules are opened lazily on first hit and kept. */
int pp_native_syms_new(pp_native_maps *maps, pp_native_syms **out);
/* Name ip into buf ("module!fn+0xOFF" etc.). 0 when no mapping holds ip,
 * 1 when named (function found), 2 when only the module is known. */
int pp_native_syms_name(pp_native_syms *s, uint64_t ip, char *buf, size_t size);
void pp_native_syms_free(pp_native_syms *s);

#endif
