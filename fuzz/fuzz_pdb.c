/* libFuzzer target: the portable PDB reader (core/pdb). An input starting
 * with "MZ" is an assembly: its PE headers, its metadata (every MethodDef
 * name) and its embedded PDB, inflated; any other input is a PDB. Each PDB
 * is walked whole: every method's sequence points and a lookup at several
 * IL offsets (the prolog and epilog too), every document name. Points must
 * come in IL order (deltas cannot wrap) and a visible point's lines be
 * 1-based and in order. */
#include "config.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pdb/pdb.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void
walk_pdb(uint8_t *buf, size_t len)
{
    pp_pdb *pdb;
    if (pp_pdb_open_memory(buf, len, 0, &pdb, NULL) != PP_OK)
        return;
    char name[PP_PDB_PATH_MAX];
    for (uint32_t d = 0; d <= pdb->md.rows[PP_MD_TABLE_DOCUMENT] + 1 && d < 4096; d++)
        (void)pp_pdb_document_name(pdb, d, name, sizeof name, NULL);
    for (uint32_t m = 0; m <= pdb->md.rows[PP_MD_TABLE_METHODDEBUG] + 1 && m < 4096; m++) {
        pp_seq_point *pts;
        size_t n;
        if (pp_pdb_sequence_points(pdb, m, &pts, &n, NULL) == PP_OK) {
            for (size_t i = 1; i < n; i++)
                if (pts[i].il_offset < pts[i - 1].il_offset)
                    abort();
            for (size_t i = 0; i < n; i++)
                if (pts[i].start_line != PP_PDB_HIDDEN_LINE &&
                    (pts[i].start_line == 0 || pts[i].end_line < pts[i].start_line))
                    abort();
            free(pts);
        }
        static const int32_t ils[] = {
            0, 1, 7, 0x40, 0x7fffffff, PP_IL_PROLOG, PP_IL_EPILOG, PP_IL_NO_MAPPING
        };
        for (size_t i = 0; i < sizeof ils / sizeof ils[0]; i++) {
            pp_source_line sl;
            if (pp_pdb_lookup(pdb, 0x06000000u | m, ils[i], &sl, NULL) == PP_OK &&
                (sl.line == 0 || sl.line == PP_PDB_HIDDEN_LINE ||
                 strlen(sl.file) >= sizeof sl.file))
                abort();
        }
    }
    uint8_t guid[16] = { 0 };
    (void)pp_pdb_check_id(pdb, guid, NULL);
    pp_pdb_close(pdb);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    /* An exact-size copy: a read one byte past the input is an ASan report. */
    uint8_t *buf = malloc(size ? size : 1);
    if (!buf)
        return 0;
    memcpy(buf, data, size);
    pp_pe_info pe;
    if (size >= 2 && buf[0] == 'M' && buf[1] == 'Z') {
        if (pp_pe_read(buf, size, &pe, NULL) == PP_OK) {
            pp_md md;
            if (pe.metadata && pp_md_open(pe.metadata, pe.metadata_len, &md, NULL) == PP_OK)
                for (uint32_t r = 1; r <= md.rows[PP_MD_TABLE_METHODDEF] && r < 4096; r++) {
                    uint32_t idx;
                    const char *s;
                    if (pp_md_cell(&md, PP_MD_TABLE_METHODDEF, r, 3, &idx, NULL) == PP_OK)
                        (void)pp_md_string(&md, idx, &s, NULL);
                }
            uint8_t *pdb;
            size_t n;
            if (pp_pe_inflate_pdb(&pe, &pdb, &n, NULL) == PP_OK) {
                walk_pdb(pdb, n);
                free(pdb);
            }
        }
    } else {
        walk_pdb(buf, size);
    }
    free(buf);
    return 0;
}
