/* (method token, IL offset) -> file:line:column, and opening a PDB file.
 * The point chosen is the last visible one at or before the IL offset,
 * the choice TraceEvent's portable PDB lookup makes: hidden points
 * (compiler-generated code such as a state machine's dispatch) take the
 * line of the statement before them. */
#include "config.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "pdb.h"

static int
visible(const pp_seq_point *p)
{
    return p->start_line != PP_PDB_HIDDEN_LINE;
}

static const pp_seq_point *
choose(const pp_seq_point *pts, size_t n, int32_t il)
{
    const pp_seq_point *best = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!visible(&pts[i]))
            continue;
        if (il == PP_IL_PROLOG)
            return &pts[i];
        if (il == PP_IL_EPILOG || (il >= 0 && pts[i].il_offset <= (uint32_t)il))
            best = &pts[i];
        else if (il >= 0 && pts[i].il_offset > (uint32_t)il)
            break;
    }
    return best;
}

int
pp_pdb_lookup(const pp_pdb *pdb, uint32_t token, int32_t il, pp_source_line *out, pp_error *err)
{
    memset(out, 0, sizeof *out);
    if (token >> 24 != PP_MD_TABLE_METHODDEF || !(token & 0xffffff)) {
        pp_error_set(err, PP_EINVAL, "token 0x%08x is not a MethodDef", token);
        return PP_EINVAL;
    }
    if (il < PP_IL_EPILOG || il == PP_IL_NO_MAPPING) {
        pp_error_set(err, PP_ENOTFOUND, "IL offset %d maps to no source", il);
        return PP_ENOTFOUND;
    }
    pp_seq_point *pts;
    size_t n;
    int rc = pp_pdb_sequence_points(pdb, token & 0xffffff, &pts, &n, err);
    if (rc != PP_OK)
        return rc;
    const pp_seq_point *sp = choose(pts, n, il);
    if (!sp) {
        free(pts);
        pp_error_set(err, PP_ENOTFOUND, "method 0x%08x has no visible sequence point at IL 0x%x",
                     token, (unsigned)il);
        return PP_ENOTFOUND;
    }
    out->line = sp->start_line;
    out->column = sp->start_col;
    out->end_line = sp->end_line;
    out->end_column = sp->end_col;
    out->il_offset = sp->il_offset;
    uint32_t doc = sp->document;
    free(pts);
    return pp_pdb_document_name(pdb, doc, out->file, sizeof out->file, err);
}

int
pp_pdb_open_file(const char *path, pp_pdb **out, pp_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) {
        pp_error_set(err, PP_EIO, "%s: %s", path, strerror(errno));
        return PP_EIO;
    }
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0)
        size = ftell(f);
    if (size < 0 || (unsigned long)size > PP_PDB_MAX_FILE || fseek(f, 0, SEEK_SET) != 0) {
        fclose(f);
        pp_error_set(err, size < 0 ? PP_EIO : PP_ELIMIT, "%s: %s", path,
                     size < 0 ? "cannot tell its size" : "larger than the 512 MiB a PDB may be");
        return size < 0 ? PP_EIO : PP_ELIMIT;
    }
    uint8_t *buf = malloc(size ? (size_t)size : 1);
    if (!buf || fread(buf, 1, (size_t)size, f) != (size_t)size) {
        int nomem = !buf;
        free(buf);
        fclose(f);
        pp_error_set(err, nomem ? PP_ENOMEM : PP_EIO, "%s: %s", path,
                     nomem ? "out of memory" : "short read");
        return nomem ? PP_ENOMEM : PP_EIO;
    }
    fclose(f);
    int rc = pp_pdb_open_memory(buf, (size_t)size, 1, out, err);
    if (rc != PP_OK && err) {
        char msg[PP_ERROR_MESSAGE_MAX];
        snprintf(msg, sizeof msg, "%s", err->message);
        pp_error_set_at(err, rc, err->offset, "%s: %s", path, msg);
    }
    return rc;
}

int
pp_pdb_check_id(const pp_pdb *pdb, const uint8_t guid[16], pp_error *err)
{
    if (!memcmp(pdb->md.pdb_id, guid, 16))
        return PP_OK;
    char want[37], have[37];
    pp_pdb_guid_text(guid, want);
    pp_pdb_guid_text(pdb->md.pdb_id, have);
    pp_error_set(err, PP_EFORMAT,
                 "PDB id %s does not match the assembly's %s (a PDB of another build)", have, want);
    return PP_EFORMAT;
}

void
pp_pdb_guid_text(const uint8_t g[16], char out[37])
{
    snprintf(out, 37, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", g[3],
             g[2], g[1], g[0], g[5], g[4], g[7], g[6], g[8], g[9], g[10], g[11], g[12], g[13],
             g[14], g[15]);
}
