/* Private: the nettrace reader's state, shared by the files of core/nettrace.
 *
 * struct pp_trace_source IS the reader: its address is the opaque handle of
 * records.h, so plugins get it in pp_trace_event.source. */
#ifndef PP_NETTRACE_INTERNAL_H
#define PP_NETTRACE_INTERNAL_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>
#include <perfpipe/records.h>
#include <perfpipe/nettrace.h>

#include "nettrace/u64map.h"
#include "nettrace/sequence.h"
#include "nettrace/process.h"

/* TypeCodes of metadata (System.TypeCode + EventPipe/V6 additions), plus
 * the manifest-only pointer-sized integer. */
enum {
    NT_T_OBJECT = 1,
    NT_T_BOOL32 = 3,
    NT_T_CHAR16 = 4,
    NT_T_I8 = 5,
    NT_T_U8 = 6,
    NT_T_I16 = 7,
    NT_T_U16 = 8,
    NT_T_I32 = 9,
    NT_T_U32 = 10,
    NT_T_I64 = 11,
    NT_T_U64 = 12,
    NT_T_F32 = 13,
    NT_T_F64 = 14,
    NT_T_DECIMAL = 15,
    NT_T_DATETIME = 16,
    NT_T_GUID = 17,
    NT_T_UTF16Z = 18,
    NT_T_ARRAY = 19,
    NT_T_VARINT = 20,
    NT_T_VARUINT = 21,
    NT_T_FIXARRAY = 22,
    NT_T_UTF8CU = 23,
    NT_T_RELLOC = 24,
    NT_T_DATALOC = 25,
    NT_T_PTR = 100 /* pointer-sized unsigned (manifest only) */
};

/* A type node; a metadata entry owns a flat array of them. */
typedef struct nt_type {
    uint8_t code;
    uint8_t pad;
    uint16_t fixed_count;  /* FixedLengthArray element count */
    int32_t fixed_size;    /* byte size, -1 if variable */
    uint32_t elem;         /* element node (arrays, rel/dataloc) */
    uint32_t first_member; /* Object: members [first, first+n) */
    uint32_t member_count;
} nt_type;

typedef struct nt_member {
    const char *name; /* UTF-8, owned by the metadata entry or static */
    uint32_t type;    /* node index */
    int32_t offset;   /* fixed offset within the parent, -1 if not fixed */
} nt_member;

typedef struct nt_meta {
    uint32_t id;
    uint32_t event_id;
    uint32_t version;
    uint32_t provider_known;
    uint32_t opcode;
    uint32_t level;
    uint64_t keywords;
    const char *provider; /* UTF-8, in strings */
    const char *name;     /* UTF-8, metadata name or manifest name */
    char *strings;        /* owned storage of provider/name/member names */
    nt_type *types;       /* [ntypes]; node 0 = the payload (Object) */
    uint32_t ntypes;
    nt_member *members;
    uint32_t nmembers;
    uint32_t has_layout;  /* fields known (metadata or manifest) */
    uint32_t kind;        /* NT_KIND_* special handling */
    uint32_t stats_index; /* row of the per-(provider,id,version) counter */
} nt_meta;

/* Special events the reader acts on while reading. */
enum {
    NT_KIND_NONE = 0,
    NT_KIND_METHOD_VERBOSE, /* MethodLoadVerbose, DCStart/DCEndVerbose */
    NT_KIND_METHOD_UNLOAD_VERBOSE,
    NT_KIND_MODULE, /* ModuleLoad/Unload, rundown ModuleDCStart/DCEnd */
    NT_KIND_ILMAP   /* MethodILToNativeMap, rundown DCStart/DCEnd ILToNativeMap */
};

/* A stack of the current sequence-point region. */
typedef struct nt_stack {
    uint32_t id;
    uint32_t depth;
    size_t first; /* index in stack_ips */
} nt_stack;

typedef struct nt_method {
    uint64_t start;
    uint64_t str; /* raw UTF-16 namespace, name, signature: a file
                                    offset in the mapping, or an offset in
                                    method_names when reading a pipe */
    uint32_t str_len;
    uint32_t size;
    uint32_t seq;       /* definition order, to keep dedup stable */
    uint64_t module_id; /* ModuleID of the method's event (modules.c) */
    uint64_t method_id; /* MethodID: its IL-to-native map's key (ilmap.c) */
    uint32_t token;     /* MethodToken (0x06xxxxxx), or 0 */
} nt_method;

/* One method's IL-to-native map (MethodILToNativeMap, rundown DCStart/DCEnd
 * ILToNativeMap): count pairs from first in the source's ilmap_pairs. */
typedef struct nt_ilmap {
    uint64_t method_id;
    size_t first;
    uint32_t count;
} nt_ilmap;

/* A module (assembly file) of the trace, from its load/rundown event. */
typedef struct nt_module {
    uint64_t id;
    char *path;      /* ModuleILPath, UTF-8 */
    char *name;      /* assembly name (file name without .dll) */
    int cls;         /* pp_lands_class, or -1 before classification */
    const char *why; /* static reason of cls */
    int has_pdb_sig; /* ModuleLoad V2+: the managed PDB's id */
    uint8_t pdb_guid[16];
    uint32_t pdb_age;
    char *pdb_build_path; /* ManagedPdbBuildPath, UTF-8, or NULL */
    int pdb_state;        /* srclines.c: 0 not tried, 1 open, -1 none/refused */
    struct pp_pdb *pdb;
    char *pdb_why; /* why there is no PDB (malloc'ed), or NULL */
} nt_module;

/* A per-(provider,event id,version) counter; provider strings interned. */
typedef struct nt_count {
    const char *provider;
    const char *name;
    uint32_t event_id;
    uint32_t version;
    uint64_t count;
    uint64_t payload_bytes;
} nt_count;

/* A chunked arena: pointers into it stay valid until it is freed. */
typedef struct nt_arena_chunk nt_arena_chunk;
typedef struct nt_arena {
    nt_arena_chunk *head;
    size_t used, cap;
} nt_arena;

struct pp_trace_source {
    /* ---- input ---- */
    int fd;
    char *name;         /* for messages */
    const uint8_t *map; /* mmap of a regular file, or NULL */
    uint64_t file_size; /* mapped size (regular files) */
    uint8_t *buf;       /* read() window */
    size_t buf_cap, buf_len;
    uint64_t buf_off; /* file offset of buf[0] */
    int eof;          /* read() saw the end */
    int seekable;     /* a regular file: pread() works */
    uint64_t pos;     /* absolute offset of the next unread byte */
    uint64_t hashed;  /* bytes already given to on_bytes */
    /* Bytes consumed before callbacks were set (the header, read by open),
     * replayed to on_bytes by pp_nettrace_set_callbacks. */
    uint8_t early[4096];
    size_t early_len;
    uint64_t released; /* mapped bytes already madvise'd away */
    pp_nettrace_bytes_fn on_bytes;
    pp_nettrace_warning_fn on_warning;
    void *user;

    /* ---- header ---- */
    uint32_t format; /* 4 (V4/V5 container) or 6 */
    uint32_t minor;
    uint32_t pointer_size;
    uint32_t process_id;
    uint32_t num_processors;
    uint32_t sampling_rate;
    int v5_tags; /* a V5 metadata tag was seen */
    uint64_t sync_qpc, qpc_freq;
    int64_t start_unix_ns;
    uint16_t systime[8];

    /* ---- block cursor ---- */
    const uint8_t *blk;     /* current event block body */
    size_t blk_len, blk_at; /* length, cursor */
    uint64_t blk_off;       /* file offset of blk[0] */
    uint32_t blk_flags;     /* event block flags (bit 0 = compressed) */
    int done;               /* end reached (0 returned) */
    int failed;             /* an error was returned */

    /* compressed-header state */
    struct {
        uint32_t meta_id, seq, proc, stack_id, label_id, payload_size;
        uint64_t capture_tid, tid, ts;
        pp_guid act, rel;
    } h;

    /* ---- caches ---- */
    nt_meta **metas; /* all entries ever defined (freed at close) */
    size_t nmetas, metas_cap;
    pp_u64map meta_by_id; /* id -> index in metas */
    nt_meta *last_meta;

    nt_stack *stacks;
    size_t nstacks, stacks_cap;
    uint64_t *stack_ips;
    size_t nips, ips_cap;
    int stacks_contiguous;

    pp_u64map threads; /* V6 index -> slot in thread_rows */
    struct nt_thread {
        uint64_t tid;
        uint32_t pid;
        uint32_t live;
    } * thread_rows;
    size_t nthread_rows, thread_rows_cap;

    struct nt_label {
        pp_guid act, rel;
        uint32_t has_act, has_rel;
        int32_t opcode, version;
    } * labels;
    size_t nlabels, labels_cap;
    pp_u64map label_map; /* V6 label list index -> slot in labels */

    pp_u64map seq_by_thread; /* capture thread -> last sequence number */
    nt_sequence seqs;        /* repeated/reordered blocks (sequence.c) */
    uint32_t *pids;
    size_t npids, pids_cap;

    /* ---- counts per (provider,id,version) ---- */
    nt_count *counts;
    size_t ncounts, counts_cap;

    /* ---- method map (whole trace) ---- */
    nt_method *methods;
    size_t nmethods, methods_cap;
    size_t methods_sorted; /* prefix known sorted and deduplicated */
    char *method_names;
    size_t names_len, names_cap;
    pp_u64map unresolved[2]; /* ip -> name, without/with signature */
    size_t unresolved_at;    /* nmethods when that cache was filled */
    nt_arena sym_arena;
    const char **method_sym;                   /* [nmethods*2] cached names of sorted methods */
    struct pp_native_syms *native;             /* module map sidecar (core/native), or NULL */
    char native_warning[PP_ERROR_MESSAGE_MAX]; /* a bad sidecar, told once callbacks are set */
    nt_module *modules;                        /* modules.c: every module the trace names */
    size_t nmodules, modules_cap;
    pp_u64map module_index;    /* ModuleID -> index in modules */
    size_t modules_classified; /* nmodules when the classes were computed */
    nt_ilmap *ilmaps;          /* ilmap.c: IL-to-native maps of jitted methods */
    size_t nilmaps, ilmaps_cap;
    pp_u64map ilmap_index;       /* MethodID -> index in ilmaps */
    uint32_t *ilmap_pairs;       /* (IL offset, native offset) pairs */
    size_t ilmap_len, ilmap_cap; /* in pairs */
    pp_u64map source_cache[2];   /* srclines.c: ip -> "file:line", leaf / return address */
    char **source_strings;       /* every string source_cache names (freed at close) */
    size_t nsource_strings, source_strings_cap;
    /* srclines.c: ip -> "file:line", leaf / return address */

    /* Called by a sequence point before the region's stacks are forgotten
     * (inspect.c walks each used stack there once). */
    void (*on_region_end)(void *user, const pp_trace_source *r);
    void *region_user;

    /* ---- a region of a parallel read (region.c) ---- */
    uint64_t stop_at; /* end the read when the next block starts here (0: never) */
    int stopped;      /* ended at stop_at: not the input's end, nothing drained */
    int seq_logging;  /* log first sightings of capture threads (seq_log) */
    int seq_unsure;   /* a sequence went backwards while logging */
    struct nt_seq_miss {
        uint64_t thread;
        uint32_t seq;
        uint32_t from_sp;
    } * seq_log;
    size_t nseq_log, seq_log_cap;

    /* ---- the event handed out ---- */
    pp_trace_event ev;
    char *scratch; /* field strings */
    size_t scratch_cap;

    /* ---- facts ---- */
    pp_nettrace_stats st;
    int64_t first_ns, last_ns;
    int have_time;
    pp_nt_process proc; /* the traced process, as the engine adapter saw it (process.c) */
    int perfpipe_took;  /* perfpipe collect wrote the file (core/base/advice.h) */
};

/* ---- symbols.c ---- */
/* Load PATH.maps (the module map perfpipe collect saves) when it exists. */
void nt_native_attach(pp_trace_source *r, const char *path);

/* ---- input.c ---- */
int nt_input_open(pp_trace_source *r, int fd, pp_error *err);
/* Make [off, off+len) addressable; returns a pointer or NULL if the input
 * ends first (then *avail says how many bytes exist). Never moves backwards
 * beyond the start of the last request. */
const uint8_t *nt_input_get(pp_trace_source *r, uint64_t off, size_t len, size_t *avail,
                            pp_error *err);
/* Everything before off has been consumed: hash it, release it. */
void nt_input_consume(pp_trace_source *r, uint64_t off);
/* Hash and release the rest of the input (after the end). */
void nt_input_drain(pp_trace_source *r);
void nt_input_close(pp_trace_source *r);

/* ---- metadata.c ---- */
/* Parse one V4/V5 metadata payload / one V6 metadata row into a new entry. */
int nt_meta_parse_v5(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, nt_meta **out,
                     pp_error *err);
int nt_meta_parse_v6(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, nt_meta **out,
                     pp_error *err);
void nt_meta_free(nt_meta *m);
/* Resolve the provider, the manifest layout and the name of a new entry. */
int nt_meta_finish(pp_trace_source *r, nt_meta *m);
uint32_t nt_provider_known(const char *provider);
/* TraceEvent's display name for an event ("GC/Start", "Activity2/Start"). */
const char *nt_te_name(const nt_meta *m, char *buf, size_t size);
int nt_meta_is_tracelog_omitted(const nt_meta *m, const pp_trace_event *ev);

/* ---- payload.c ---- */
/* Size of a value of node t at p (n bytes left); -1 if it does not fit. */
int64_t nt_value_size(const nt_meta *m, uint32_t t, const uint8_t *p, size_t n, uint32_t ptr_size);
int nt_decode_member(pp_trace_source *r, const nt_meta *m, uint32_t member, const uint8_t *payload,
                     size_t n, pp_value *out);
/* UTF-16LE, NUL-terminated at an even offset, to UTF-8 in buf. Returns the
 * number of source bytes consumed including the terminator, -1 (no
 * terminator) or -2 (out of memory). */
int64_t nt_utf16z_to_utf8(const uint8_t *p, size_t n, char **buf, size_t *cap, size_t *outlen);

/* ---- modules.c ---- */
int nt_modules_add(pp_trace_source *r, const pp_trace_event *ev);
/* The module facts flags ask for (PP_SYM_MODULE*) of module_id (0: none
 * known): a string that lives until close, never NULL. */
const char *nt_module_string(pp_trace_source *r, uint64_t module_id, uint32_t flags);
void nt_modules_free(pp_trace_source *r);
/* ilmap.c: keep an IL-to-native map event's pairs (the first per method). */
int nt_ilmaps_add(pp_trace_source *r, const pp_trace_event *ev);
/* The IL offset of native offset off in method_id's map: PP_OK, or
 * PP_ENOTFOUND when the trace has no map for it. */
int nt_ilmap_il_offset(const pp_trace_source *r, uint64_t method_id, uint32_t off, int32_t *il);
void nt_ilmaps_free(pp_trace_source *r);
/* srclines.c: "file:line" of ip in method m (PP_SYM_SOURCE), or why there
 * is none (PP_SYM_SOURCE_WHY); NULL when either could not be kept for want
 * of memory; PP_SYM_CALLER: ip is a return address. */
const char *nt_source_string(pp_trace_source *r, const nt_method *m, uint64_t ip, uint32_t flags);
void nt_srclines_free(pp_trace_source *r);

/* ---- symbols.c ---- */
int nt_methods_add_verbose(pp_trace_source *r, const pp_trace_event *ev);
void nt_methods_free(pp_trace_source *r);

/* ---- util.c (calls nothing else in the folder) ---- */
/* Grow *p to hold need elements (doubling); NULL if out of memory or the
 * size overflows, then *p is unchanged and still owned by the caller. */
void *nt_grow(void *p, size_t *cap, size_t need, size_t elem);
/* Set err (code, message, byte offset off), mark the reader failed and
 * return code. */
int nt_fail_at(pp_trace_source *r, pp_error *err, int code, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
/* Hand a PP_EFORMAT warning at byte off to on_warning, if set. */
void nt_warn_at(pp_trace_source *r, uint64_t off, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* ---- rows.c ---- */
/* Read an event block's header at p (n bytes at file offset off): sets the
 * block flags, resets the compressed-header state, *at = first row. */
int nt_event_block_header(pp_trace_source *r, const uint8_t *p, size_t n, uint64_t off, size_t *at,
                          pp_error *err);
/* Decode one event row header at b[*atp] of a block of n bytes at file
 * offset boff; sets *payload, *psize, r->h, advances *atp past the row. */
int nt_decode_header(pp_trace_source *r, const uint8_t *b, size_t n, size_t *atp,
                     const uint8_t **payload, uint32_t *psize, uint64_t boff, pp_error *err);

/* ---- blocks.c ---- */
/* Read blocks until an event block is current (1), the end (0) or an error. */
int nt_next_block(pp_trace_source *r, pp_error *err);
/* Remember a process id (once); -1 if out of memory. */
int nt_add_pid(pp_trace_source *r, uint32_t pid);
/* Row of the (provider, id, version) counter, created if new; SIZE_MAX if
 * out of memory. provider/name must live until close. */
size_t nt_count_row(pp_trace_source *r, const char *provider, const char *name, uint32_t id,
                    uint32_t ver);
/* The stack of the current region with that id, or NULL. */
const nt_stack *nt_find_stack(pp_trace_source *r, uint32_t id);
/* Account sequence number seq of a capture thread (from an event, or from a
 * sequence point / remove-thread block when from_sp): gaps are drops. */
void nt_seq_check(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp);

/* Read exactly one block: 1 an event block is now current, 2 another block
 * was read (or an event block skipped as a repeat), 0 the end, or an error. */
int nt_read_block(pp_trace_source *r, pp_error *err);
/* A capture thread's first sighting while r->seq_logging (sequence.c). */
void nt_seq_log_miss(pp_trace_source *r, uint64_t thread, uint32_t seq, int from_sp);

/* ---- input.c ---- */
/* Move a seekable input to off (nothing before it is hashed or handed to
 * on_bytes); PP_EIO if the seek fails. */
int nt_input_seek(pp_trace_source *r, uint64_t off, pp_error *err);

/* ---- fields.c ---- */
/* The metadata entry of a handed-out event, or NULL. */
const nt_meta *nt_event_meta(const pp_trace_event *ev);

/* varuint readers: return bytes consumed, 0 on overrun/overlong. */
static inline size_t
nt_varu64(const uint8_t *p, size_t n, uint64_t *out)
{
    uint64_t v = 0;
    for (size_t i = 0; i < n && i < 10; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

static inline size_t
nt_varu32(const uint8_t *p, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    if (n > 0 && !(p[0] & 0x80)) {
        *out = p[0];
        return 1;
    }
    for (size_t i = 0; i < n && i < 5; i++) {
        v |= (uint32_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) {
            *out = v;
            return i + 1;
        }
    }
    return 0;
}

static inline uint16_t
nt_rd16(const uint8_t *p)
{
    return (uint16_t)(p[0] | p[1] << 8);
}
static inline uint32_t
nt_rd32(const uint8_t *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t
nt_rd64(const uint8_t *p)
{
    return (uint64_t)nt_rd32(p) | (uint64_t)nt_rd32(p + 4) << 32;
}

#endif
