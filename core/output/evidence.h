/* Private: keeping the evidence of a run. A result is written, with its
 * markdown rendering, under a dated, knob-stamped name that never
 * overwrites an earlier one, and the directory's index.tsv gains a line
 * (date, pipeline, knobs, file, input hashes), so a folder of runs can be
 * read, compared and audited later. */
#ifndef PP_CORE_EVIDENCE_H
#define PP_CORE_EVIDENCE_H

#include <jansson.h>

#include <perfpipe/error.h>

/* Write doc into dir (created if missing). date is the run's stamp
 * ("YYYYMMDD-HHMMSS"). Each file is written to a temporary name, fsynced
 * and linked into place (never over an existing file), so a full disk
 * leaves no cut file under a final name; tracker (may be NULL) hears of the
 * temporary names. index.tsv fields escape backslash, TAB, CR, LF and other
 * control bytes as \\ \t \r \n \xHH. On success *written (malloc'd,
 * caller frees) is the JSON file's path. PP_EIO with the path and reason on
 * failure. */
struct pp_outfile_tracker;
int pp_evidence_write(const char *dir, const json_t *doc, const char *date,
                      const struct pp_outfile_tracker *tracker, char **written, pp_error *err);

#endif
