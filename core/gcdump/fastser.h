/* Private: the FastSerialization container as a .gcdump uses it (4-byte
 * stream labels): bounded little-endian primitives, CESU-8 strings, tags,
 * interned type records, tagged-field skipping and forward references.
 *
 * Every reader function returns PP_OK or a negative PP_E* code and, on
 * failure, has filled the cursor's error with the byte offset and what was
 * expected. The cursor never reads outside [data, data + size). */
#ifndef PP_GCDUMP_FASTSER_H
#define PP_GCDUMP_FASTSER_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

/* FastSerialization tags (FastSerialization.cs enum Tags). */
enum {
    PP_FS_NULL = 1,
    PP_FS_OBJREF = 2,
    PP_FS_FWDREF = 3,
    PP_FS_BEGIN = 4,
    PP_FS_BEGIN_PRIVATE = 5,
    PP_FS_END = 6,
    PP_FS_FWDDEF = 7,
    PP_FS_BYTE = 8,
    PP_FS_INT16 = 9,
    PP_FS_INT32 = 10,
    PP_FS_INT64 = 11,
    PP_FS_SKIP = 12,
    PP_FS_STRING = 13,
    PP_FS_BLOB = 14
};

/* A type record seen in the file: "GCHeapDump", "Graphs.MemoryGraph"... */
typedef struct pp_fs_type {
    uint32_t label; /* offset of its BeginObject byte */
    int32_t version;
    int32_t min_reader;
    char *name; /* UTF-8, owned by the cursor */
} pp_fs_type;

/* An object definition seen in the file, for later ObjectReferences. */
typedef struct pp_fs_object {
    uint32_t label;
    const pp_fs_type *type; /* NULL while unknown */
    int64_t user;           /* what the owner decoded it into (index) */
} pp_fs_object;

typedef struct pp_fs {
    const uint8_t *data;
    size_t size;
    size_t pos;
    const char *name; /* file name for messages */
    pp_error *err;
    pp_fs_type **types; /* interned type records, few; each
                                    allocated alone so pointers stay put */
    size_t ntypes, captypes;
    pp_fs_object *objects; /* object definitions, few */
    size_t nobjects, capobjects;
    int fwd_loaded; /* forward-reference table read (1) / absent (-1) */
    uint32_t fwd_count;
    size_t fwd_table;    /* offset of the first table entry */
    uint32_t type_depth; /* nesting of type records being read */
} pp_fs;

void pp_fs_init(pp_fs *fs, const uint8_t *data, size_t size, const char *name, pp_error *err);
void pp_fs_release(pp_fs *fs);

/* Fill the error at the given offset; returns code. */
int pp_fs_fail(pp_fs *fs, int code, size_t offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Bounded primitives; `what` names the field for the message. */
int pp_fs_need(pp_fs *fs, size_t n, const char *what);
int pp_fs_u8(pp_fs *fs, uint8_t *out, const char *what);
int pp_fs_i32(pp_fs *fs, int32_t *out, const char *what);
int pp_fs_u32(pp_fs *fs, uint32_t *out, const char *what);
int pp_fs_i64(pp_fs *fs, int64_t *out, const char *what);
int pp_fs_f32(pp_fs *fs, float *out, const char *what);

/* A string: i32 UTF-16 unit count (-1 = null) + CESU-8 units, re-encoded as
 * UTF-8 (surrogate pairs joined, lone surrogates become U+FFFD). On success
 * *out is malloc'ed, or NULL for a null string. */
int pp_fs_string(pp_fs *fs, char **out, const char *what);
/* Walk past a string without keeping it. */
int pp_fs_skip_string(pp_fs *fs, const char *what);

/* Check the "!FastSerialization.1" header; leaves pos at the entry object. */
int pp_fs_header(pp_fs *fs);

/* A type reference (01 = SerializationType, 02 label, 04/05 inline record).
 * *out is the interned record (never NULL on success for 02/04/05; NULL for
 * 01). */
int pp_fs_type_ref(pp_fs *fs, const pp_fs_type **out);

/* Start of an object reference field: consumes blob prefixes and returns the
 * tag (PP_FS_NULL, PP_FS_OBJREF with *label set, or PP_FS_BEGIN/PRIVATE
 * with the BeginObject byte consumed, *label its offset, and *type the
 * object's type record already read). PP_FS_FWDDEF is folded into BEGIN. */
int pp_fs_object_start(pp_fs *fs, int *tag, uint32_t *label, const pp_fs_type **type,
                       const char *what);

/* Skip the tagged fields left in the current object and its EndObject
 * (FindEndTag). */
int pp_fs_end_object(pp_fs *fs, const char *what);

/* Resolve forward-reference index idx through the trailer at EOF-4; *out is
 * an absolute offset. */
int pp_fs_forward(pp_fs *fs, int32_t idx, size_t *out);

/* Remember / find object definitions by label. */
int pp_fs_object_add(pp_fs *fs, uint32_t label, const pp_fs_type *type, int64_t user);
const pp_fs_object *pp_fs_object_find(const pp_fs *fs, uint32_t label);

/* Decode one compressed int (graph.cs ReadCompressedInt) from p within
 * [p, end); returns the number of bytes used, 0 if it runs past end.
 * Inline: the node blob is one compressed int after another (two to four
 * a node plus one an edge), the reader's innermost loop. */
static inline size_t
pp_fs_cint(const uint8_t *p, const uint8_t *end, int32_t *out)
{
    const uint8_t *s = p;
    if (p >= end)
        return 0;
    uint8_t b = *p++;
    /* First group sign-extended from bit 6; most significant group first. */
    uint32_t v = (uint32_t)((int32_t)((uint32_t)b << 25) >> 25);
    for (int k = 0; k < 3 && (b & 0x80); k++) {
        if (p >= end)
            return 0;
        b = *p++;
        v = (v << 7) + (b & 0x7Fu);
    }
    if (b & 0x80) {
        if (p >= end)
            return 0;
        b = *p++;
        v = (v << 7) + b;
    }
    *out = (int32_t)v;
    return (size_t)(p - s);
}

#endif
