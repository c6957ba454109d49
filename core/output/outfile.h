/* Private: writing an output file without destroying what is there.
 *
 * - a regular file (or a new name) is written to a temporary file in the
 *   same directory, flushed to disk (fsync) and renamed into place, so a
 *   failed or interrupted run never leaves a cut file under the final name;
 *   a new file gets mode 0666 & ~umask, a replaced one keeps its mode;
 * - a symbolic link is followed: its target is replaced, the link stays;
 * - anything else that exists (character or block device, FIFO, terminal,
 *   socket) is opened and written in place, never replaced; a write error
 *   there (ENOSPC on /dev/full) is reported like any other;
 * - a regular file nobody may write (no write bit, or one this user may
 *   not write) is refused, never replaced: "PATH: cannot write: the file
 *   is read-only" (errno EACCES), unless PP_OUTFILE_FORCE: then it is
 *   replaced like any other, keeping its mode;
 * - with PP_OUTFILE_EXCL the final name must not exist: the file is put in
 *   place with link(2), which never replaces (PP_EEXISTS-like: the error
 *   code is PP_EIO with errno EEXIST so a caller can pick another name).
 *
 * Temporary files are announced to a tracker so the program can remove
 * them when it is interrupted (SIGINT/SIGTERM); the library installs no
 * signal handler itself. */
#ifndef PP_CORE_OUTFILE_H
#define PP_CORE_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

#include <perfpipe/error.h>

#define PP_OUTFILE_EXCL  1u /* never replace: fail with errno EEXIST */
#define PP_OUTFILE_FORCE 2u /* replace a read-only regular file too (--force) */

typedef struct pp_outfile_tracker {
    /* tmp is a path valid until remove() is called with it. */
    void (*add)(void *user, const char *tmp);
    void (*remove)(void *user, const char *tmp);
    void *user;
} pp_outfile_tracker;

typedef struct pp_outfile {
    FILE *f;    /* write here between open and commit/abort */
    char *path; /* the final path (a symlink resolved) */
    char *tmp;  /* NULL when written in place */
    unsigned flags;
    int prepared; /* pp_outfile_prepare done: f is NULL */
    const pp_outfile_tracker *tracker;
} pp_outfile;

/* Open path for writing as described above. tracker may be NULL. PP_OK, or
 * PP_EIO with "PATH: cannot create: reason" (errno kept), PP_ENOMEM. */
int pp_outfile_open(pp_outfile *o, const char *path, unsigned flags,
                    const pp_outfile_tracker *tracker, pp_error *err);

/* Flush, fsync and close the file, not yet in place (a set of files is
 * prepared whole before any is renamed, so a write error replaces none).
 * On failure o is released and nothing is left under a temporary name;
 * PP_EIO with "PATH: cannot write: reason". A file written in place is
 * only flushed. */
int pp_outfile_prepare(pp_outfile *o, pp_error *err);

/* Flush, fsync and put the file in place (after pp_outfile_prepare, only
 * the rename). Always releases o. PP_OK, or
 * PP_EIO with "PATH: cannot write: reason" (nothing left under a temporary
 * name; errno kept: EEXIST for an excluded name). */
int pp_outfile_commit(pp_outfile *o, pp_error *err);

/* Drop what was written (the temporary file is removed; an in-place target
 * keeps whatever reached it). Releases o. */
void pp_outfile_abort(pp_outfile *o);

/* The process's umask, read without changing it for good (the CLI is
 * single-threaded while it writes outputs). */
mode_t pp_outfile_umask(void);

/* Whether a and b name the same existing file (device and inode, links
 * followed). 0 when either does not exist. */
int pp_same_file(const char *a, const char *b);

#endif
