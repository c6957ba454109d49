/* Private: compressed inputs (.xz, .gz, .zst) read transparently. A file
 * whose first bytes are an xz, gzip or zstd magic is decompressed as it is
 * read: into a pipe by a thread (streaming kinds: the nettrace reader never
 * holds more than its window) or into an anonymous memory file (readers that
 * seek: a heap dump, the whole-file text readers). The reader is handed
 * "/dev/fd/N" and never knows; the engine names the file as given.
 *
 * Decompression is bounded: at most PP_UNPACK_RATIO times the compressed
 * size, and never less than PP_UNPACK_FLOOR bytes (what real captures
 * justify: traces and dumps compress 5-30x), or PERFPIPE_UNPACK_MAX bytes
 * when set. A file that would decompress past it is refused as a
 * decompression bomb. Damage (a corrupt or cut stream) is one message
 * naming the byte offset in the compressed file. */
#ifndef PP_CORE_UNPACK_H
#define PP_CORE_UNPACK_H

#include <stdint.h>

#include <perfpipe/error.h>

#define PP_UNPACK_RATIO 200u
#define PP_UNPACK_FLOOR (256ull << 20)

typedef struct pp_unpack pp_unpack;

/* If path is a regular file in a compressed format, start decompressing it
 * (stream: through a pipe, else into a memory file, all of it now) and set
 * *u and *read_path ("/dev/fd/N", valid until pp_unpack_free). A file in no
 * such format: PP_OK, *u = NULL. Errors (the memory file's damage or bound,
 * no memory, no thread): a code with err filled, naming `name`. */
int pp_unpack_open(const char *path, const char *name, int stream, pp_unpack **u,
                   const char **read_path, pp_error *err);

/* The format's name ("xz", "gzip", "zstd") and the compressed size. */
const char *pp_unpack_format(const pp_unpack *u);
uint64_t pp_unpack_packed_bytes(const pp_unpack *u);

/* After the reader stopped (reached_end: it read to the end of the stream;
 * else it stopped on data it could not read, and the rest is decoded,
 * unwritten, to tell damage from a file of another kind): wait for the
 * decompressor and say whether the stream was whole. PP_OK,
 * or the decompressor's error (damage with its byte offset, the bound),
 * which explains whatever the reader made of the cut stream. */
int pp_unpack_finish(pp_unpack *u, int reached_end, pp_error *err);

/* Whether the decompressor has failed (so far): a reader's warning about
 * the cut stream it sees then is a consequence, not news. */
int pp_unpack_failed(pp_unpack *u);

/* Stop the decompressor if it runs, close everything. NULL-safe. */
void pp_unpack_free(pp_unpack *u);

#endif
