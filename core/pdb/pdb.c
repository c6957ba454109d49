/* A portable PDB (dotnet/runtime docs/design/specs/PortablePdb-Metadata.md):
 * its Document rows (names stored as separator + blob parts) and the
 * sequence-point blobs of its MethodDebugInformation rows, which are
 * numbered like the assembly's MethodDef rows. */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pdb.h"

int
pp_pdb_open_memory(uint8_t *buf, size_t len, int own, pp_pdb **out, pp_error *err)
{
    *out = NULL;
    pp_pdb *pdb = calloc(1, sizeof *pdb);
    if (!pdb) {
        if (own)
            free(buf);
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    pdb->owned = own ? buf : NULL;
    int rc = pp_md_open(buf, len, &pdb->md, err);
    if (rc == PP_OK && !pdb->md.has_pdb_stream) {
        pp_error_set(err, PP_EFORMAT,
                     "metadata without a #Pdb stream: an assembly, not a portable PDB");
        rc = PP_EFORMAT;
    }
    if (rc != PP_OK) {
        pp_pdb_close(pdb);
        return rc;
    }
    *out = pdb;
    return PP_OK;
}

void
pp_pdb_close(pp_pdb *pdb)
{
    if (!pdb)
        return;
    free(pdb->owned);
    free(pdb);
}

static int
bad_blob(const pp_pdb *pdb, uint32_t method, const uint8_t *at, pp_error *err)
{
    pp_error_set_at(err, PP_EFORMAT, at - pdb->md.base,
                    "sequence points of method row %u: record truncated or invalid", method);
    return PP_EFORMAT;
}

typedef struct sp_state {
    uint32_t il, doc;
    int32_t line, col; /* previous visible point's start */
    int seen_visible;
} sp_state;

/* One record after the first field; *pt filled, or *is_doc set for a
 * document-record. */
static int
read_record(const uint8_t **p, const uint8_t *end, sp_state *st, uint32_t d_il, int first,
            pp_seq_point *pt, int *is_doc)
{
    *is_doc = 0;
    if (!first && d_il == 0) {
        uint32_t doc;
        if (pp_md_uint(p, end, &doc) != 0)
            return -1;
        st->doc = doc;
        *is_doc = 1;
        return 0;
    }
    if (!first && d_il > UINT32_MAX - st->il)
        return -1;
    st->il = first ? d_il : st->il + d_il;
    uint32_t d_lines, ucol;
    int32_t d_cols;
    if (pp_md_uint(p, end, &d_lines) != 0)
        return -1;
    if (d_lines == 0) {
        if (pp_md_uint(p, end, &ucol) != 0)
            return -1;
        d_cols = (int32_t)ucol;
    } else if (pp_md_int(p, end, &d_cols) != 0) {
        return -1;
    }
    pt->il_offset = st->il;
    pt->document = st->doc;
    if (d_lines == 0 && d_cols == 0) {
        pt->start_line = pt->end_line = PP_PDB_HIDDEN_LINE;
        pt->start_col = pt->end_col = 0;
        return 0;
    }
    int64_t line, col;
    if (!st->seen_visible) {
        uint32_t l, c;
        if (pp_md_uint(p, end, &l) != 0 || pp_md_uint(p, end, &c) != 0)
            return -1;
        line = l;
        col = c;
    } else {
        int32_t dl, dc;
        if (pp_md_int(p, end, &dl) != 0 || pp_md_int(p, end, &dc) != 0)
            return -1;
        line = (int64_t)st->line + dl;
        col = (int64_t)st->col + dc;
    }
    int64_t end_line = line + d_lines, end_col = col + d_cols;
    /* Lines below 0x20000000 and columns below 0x10000 (the spec's limits). */
    if (line < 1 || end_line >= 0x20000000 || line == PP_PDB_HIDDEN_LINE || col < 0 ||
        end_col < 0 || end_col >= 0x10000)
        return -1;
    st->seen_visible = 1;
    st->line = (int32_t)line;
    st->col = (int32_t)col;
    pt->start_line = (uint32_t)line;
    pt->end_line = (uint32_t)end_line;
    pt->start_col = (uint32_t)col;
    pt->end_col = (uint32_t)end_col;
    return 0;
}

int
pp_pdb_sequence_points(const pp_pdb *pdb, uint32_t method, pp_seq_point **pts, size_t *n,
                       pp_error *err)
{
    *pts = NULL;
    *n = 0;
    uint32_t doc, blob_idx;
    int rc = pp_md_cell(&pdb->md, PP_MD_TABLE_METHODDEBUG, method, 0, &doc, err);
    if (rc == PP_OK)
        rc = pp_md_cell(&pdb->md, PP_MD_TABLE_METHODDEBUG, method, 1, &blob_idx, err);
    if (rc != PP_OK || !blob_idx)
        return rc;
    const uint8_t *p, *end;
    uint32_t len;
    if ((rc = pp_md_blob(&pdb->md, blob_idx, &p, &len, err)) != PP_OK)
        return rc;
    end = p + len;
    uint32_t local_sig;
    sp_state st = { 0, doc, 0, 0, 0 };
    if (pp_md_uint(&p, end, &local_sig) != 0 || (!doc && pp_md_uint(&p, end, &st.doc) != 0))
        return bad_blob(pdb, method, p, err);
    /* A record takes at least 3 bytes but a document-record 2: the count
     * is bounded by the blob's length. */
    pp_seq_point *out = len ? malloc(sizeof *out * (len / 2 + 1)) : NULL;
    if (len && !out) {
        pp_error_set(err, PP_ENOMEM, "out of memory");
        return PP_ENOMEM;
    }
    size_t k = 0;
    for (int first = 1; p < end; first = 0) {
        uint32_t d_il;
        int is_doc;
        if (pp_md_uint(&p, end, &d_il) != 0 ||
            read_record(&p, end, &st, d_il, first, &out[k], &is_doc) != 0) {
            free(out);
            return bad_blob(pdb, method, p, err);
        }
        if (!is_doc)
            k++;
    }
    *pts = out;
    *n = k;
    return PP_OK;
}

int
pp_pdb_document_name(const pp_pdb *pdb, uint32_t doc, char *buf, size_t cap, pp_error *err)
{
    uint32_t idx, len, part_len;
    const uint8_t *p, *end, *part;
    int rc = pp_md_cell(&pdb->md, PP_MD_TABLE_DOCUMENT, doc, 0, &idx, err);
    if (rc == PP_OK)
        rc = pp_md_blob(&pdb->md, idx, &p, &len, err);
    if (rc != PP_OK)
        return rc;
    end = p + len;
    if (!len || cap == 0) {
        pp_error_set(err, PP_EFORMAT, "document %u: empty name blob", doc);
        return PP_EFORMAT;
    }
    uint8_t sep = *p++;
    size_t at = 0;
    for (int first = 1; p < end; first = 0) {
        uint32_t part_idx;
        if (pp_md_uint(&p, end, &part_idx) != 0) {
            pp_error_set(err, PP_EFORMAT, "document %u: name blob truncated", doc);
            return PP_EFORMAT;
        }
        if (part_idx == 0) {
            part = NULL;
            part_len = 0;
        } else if ((rc = pp_md_blob(&pdb->md, part_idx, &part, &part_len, err)) != PP_OK) {
            return rc;
        }
        size_t need = part_len + (!first && sep ? 1 : 0);
        if (need >= cap - at) {
            pp_error_set(err, PP_ELIMIT, "document %u: name longer than %zu bytes", doc, cap - 1);
            return PP_ELIMIT;
        }
        if (!first && sep)
            buf[at++] = (char)sep;
        if (part_len)
            memcpy(buf + at, part, part_len);
        at += part_len;
    }
    if (memchr(buf, '\0', at)) {
        pp_error_set(err, PP_EFORMAT, "document %u: name holds a NUL byte", doc);
        return PP_EFORMAT;
    }
    buf[at] = '\0';
    return PP_OK;
}
