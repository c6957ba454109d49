/* Private: a reader of .NET assemblies' debug directories, ECMA-335
 * metadata and portable PDBs, enough to turn (method token, IL offset)
 * into file:line:column (issue #42).
 *
 *   pe.c        PE/COFF headers, the debug directory: the CodeView (RSDS)
 *               entry, the embedded portable PDB (MPDB + deflate), R2R.
 *   metadata.c  the metadata root, its streams and heaps, table row sizes.
 *   pdb.c       a portable PDB: Document and MethodDebugInformation rows,
 *               sequence-point blobs.
 *   lookup.c    (method token, IL offset) -> file:line:column; ids.
 *
 * Every read is checked against the input's length; every allocation is
 * bounded by the input's size. Errors are PP_EFORMAT with the byte offset
 * (in the buffer given to the failing call) in the pp_error. */
#ifndef PP_CORE_PDB_PDB_H
#define PP_CORE_PDB_PDB_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

/* The line of a hidden sequence point (compiler-generated code). */
#define PP_PDB_HIDDEN_LINE 0xFEEFEEu
/* Largest file the reader maps into memory, and largest embedded PDB. */
#define PP_PDB_MAX_FILE (512u << 20)
/* Longest document path produced (longer ones are refused). */
#define PP_PDB_PATH_MAX 1024

/* ---- pe.c ----------------------------------------------------------------- */

typedef struct pp_pe_info {
    int has_cli;      /* a CLI (COR20) header: a managed assembly */
    int ready_to_run; /* COR20 ManagedNativeHeader names an RTR header */
    int has_codeview; /* a CodeView RSDS debug entry */
    int portable;     /* ... whose version says portable PDB */
    uint8_t guid[16]; /* RSDS signature, as stored (Windows GUID layout) */
    uint32_t age;
    uint32_t stamp; /* the entry's TimeDateStamp: portable PDB id's tail */
    char pdb_path[PP_PDB_PATH_MAX];
    const uint8_t *embedded; /* deflate data of an embedded PDB, or NULL */
    size_t embedded_len;
    uint32_t embedded_size;  /* its uncompressed size */
    const uint8_t *metadata; /* the CLI header's metadata root, or NULL */
    size_t metadata_len;
} pp_pe_info;

/* Reads the PE headers of buf (len bytes). PP_EFORMAT when buf is not a PE
 * file or a header lies outside it. out points into buf. */
int pp_pe_read(const uint8_t *buf, size_t len, pp_pe_info *out, pp_error *err);

/* Inflates pe's embedded PDB into a malloc'ed buffer of pe->embedded_size
 * bytes (refused above 1032 times the compressed size or PP_PDB_MAX_FILE).
 * PP_ENOTFOUND when there is none. The caller frees *out. */
int pp_pe_inflate_pdb(const pp_pe_info *pe, uint8_t **out, size_t *out_len, pp_error *err);

/* ---- metadata.c ----------------------------------------------------------- */

enum {
    PP_MD_TABLE_MODULE = 0x00,
    PP_MD_TABLE_METHODDEF = 0x06,
    PP_MD_TABLE_DOCUMENT = 0x30,
    PP_MD_TABLE_METHODDEBUG = 0x31,
    PP_MD_TABLE_STATEMACHINE = 0x36,
    PP_MD_TABLES = 64
};

typedef struct pp_md_heap {
    const uint8_t *p;
    uint32_t len;
} pp_md_heap;

typedef struct pp_md {
    const uint8_t *base;
    size_t len;
    pp_md_heap strings, blob, guid, tables;
    int has_pdb_stream;
    uint8_t pdb_id[20];               /* #Pdb: GUID + stamp */
    uint32_t rows[PP_MD_TABLES];      /* rows present in this file's #~ */
    uint32_t size_rows[PP_MD_TABLES]; /* rows that size the indices (#Pdb adds the assembly's) */
    uint8_t str_w, guid_w, blob_w;    /* heap index widths: 2 or 4 */
    uint32_t row_size[PP_MD_TABLES];
    const uint8_t *table[PP_MD_TABLES]; /* first row of each present table */
} pp_md;

/* Reads the metadata root at buf: the streams, #~'s row counts and each
 * table's position. Every table must fit in the #~ stream. */
int pp_md_open(const uint8_t *buf, size_t len, pp_md *md, pp_error *err);

/* Column col (0-based) of row (1-based) of table: *val. PP_EFORMAT when the
 * row or column does not exist. */
int pp_md_cell(const pp_md *md, unsigned table, uint32_t row, unsigned col, uint32_t *val,
               pp_error *err);

/* The blob at heap index idx: *p, *n (its length prefix decoded). */
int pp_md_blob(const pp_md *md, uint32_t idx, const uint8_t **p, uint32_t *n, pp_error *err);

/* The NUL-ended string at #Strings index idx. */
int pp_md_string(const pp_md *md, uint32_t idx, const char **s, pp_error *err);

/* The GUID at 1-based heap index idx (0: nil, *g = NULL). */
int pp_md_guid(const pp_md *md, uint32_t idx, const uint8_t **g, pp_error *err);

/* ECMA-335 II.23.2 compressed integers read from *p (< end); *p advances.
 * Return 0, or -1 when the bytes run out or the lead byte is invalid. */
int pp_md_uint(const uint8_t **p, const uint8_t *end, uint32_t *v);
int pp_md_int(const uint8_t **p, const uint8_t *end, int32_t *v);

/* ---- pdb.c ---------------------------------------------------------------- */

typedef struct pp_seq_point {
    uint32_t il_offset;
    uint32_t document;             /* Document row */
    uint32_t start_line, end_line; /* PP_PDB_HIDDEN_LINE when hidden */
    uint32_t start_col, end_col;
} pp_seq_point;

typedef struct pp_pdb {
    uint8_t *owned; /* the bytes md points into, when owned */
    pp_md md;
} pp_pdb;

/* Opens the portable PDB in buf; takes ownership of buf (freed by
 * pp_pdb_close, also on failure) when own is non-zero. */
int pp_pdb_open_memory(uint8_t *buf, size_t len, int own, pp_pdb **out, pp_error *err);
void pp_pdb_close(pp_pdb *pdb);

/* The sequence points of MethodDef row method (1-based), in blob order, in
 * a malloc'ed array (*pts NULL and *n 0 when the method has none). */
int pp_pdb_sequence_points(const pp_pdb *pdb, uint32_t method, pp_seq_point **pts, size_t *n,
                           pp_error *err);

/* Document row doc's name (its parts joined by its separator) into buf. */
int pp_pdb_document_name(const pp_pdb *pdb, uint32_t doc, char *buf, size_t cap, pp_error *err);

/* ---- lookup.c ------------------------------------------------------------- */

typedef struct pp_source_line {
    char file[PP_PDB_PATH_MAX];
    uint32_t line, column;
    uint32_t end_line, end_column;
    uint32_t il_offset; /* the sequence point's own IL offset */
} pp_source_line;

/* IL offsets of the IL-to-native map's special entries. */
#define PP_IL_NO_MAPPING (-1)
#define PP_IL_PROLOG     (-2)
#define PP_IL_EPILOG     (-3)

/* The source line of IL offset il in method token (0x06xxxxxx): the last
 * visible sequence point at or before il (the prolog: the method's first,
 * the epilog: its last). PP_ENOTFOUND when the method has no visible
 * sequence point there. */
int pp_pdb_lookup(const pp_pdb *pdb, uint32_t token, int32_t il, pp_source_line *out,
                  pp_error *err);

/* Opens the portable PDB file at path (read whole, at most PP_PDB_MAX_FILE). */
int pp_pdb_open_file(const char *path, pp_pdb **out, pp_error *err);

/* PP_OK when pdb's id is guid (the assembly's CodeView signature or the
 * trace's ManagedPdbSignature); else PP_EFORMAT, the message naming both. */
int pp_pdb_check_id(const pp_pdb *pdb, const uint8_t guid[16], pp_error *err);

/* "xxxxxxxx-xxxx-xxxx-xxxx-xxxxxxxxxxxx" of a GUID in Windows layout. */
void pp_pdb_guid_text(const uint8_t guid[16], char out[37]);

#endif
