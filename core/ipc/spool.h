/* Private: a session's stream read off its socket as fast as it comes,
 * kept in an unlinked temporary file, and handed on through a socket pair
 * as fast as its reader takes it.
 *
 * Why: the runtime writes a heap dump's events into its session buffer
 * (--buffersize) far faster than the graph can be built from them (a
 * 1.65 GB heap: ~10 M objects in a few seconds), and when that buffer is
 * full it drops events, which makes the snapshot fail. With the spool the
 * socket is drained at disk speed whatever the reader does; the file, not
 * this process's memory, holds the backlog, and its consumed front is
 * given back to the file system as the reader moves on (hole punching).
 *
 * Use: pp_spool_start(session_fd) gives the fd the reader reads; the pump
 * thread ends when the session's stream ends and the backlog is handed on,
 * or when the reader closes its end; pp_spool_finish joins it. */
#ifndef PP_CORE_IPC_SPOOL_H
#define PP_CORE_IPC_SPOOL_H

#include <stdint.h>

#include <perfpipe/error.h>

typedef struct pp_spool pp_spool;

/* Start pumping from src (not closed by the spool). *reader_fd is the
 * stream to read (the caller closes it). PP_EIO (no temporary file, no
 * thread) or PP_ENOMEM. */
int pp_spool_start(int src, pp_spool **out, int *reader_fd, pp_error *err);

/* Join the pump (the reader's end must be closed, or the stream ended and
 * read to its end) and free. The highest backlog it held, in bytes, goes
 * to *peak when peak is not NULL. NULL-safe. */
void pp_spool_finish(pp_spool *s, uint64_t *peak);

#endif
