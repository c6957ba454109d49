/* Private: content identity of an input, computed during the one read.
 * xxh3-128 by default (fast enough never to cap a reader); sha256 on request,
 * from libcrypto. */
#ifndef PP_CORE_HASH_H
#define PP_CORE_HASH_H

#include <stddef.h>

#include <perfpipe/error.h>

typedef struct pp_hash pp_hash;

/* algo: "xxh3-128" or "sha256". NULL with err set for an unknown name. */
pp_hash *pp_hash_new(const char *algo, pp_error *err);
void pp_hash_update(pp_hash *h, const void *data, size_t len);
/* Lower-case hex digest into out (>= 65 bytes). */
void pp_hash_final(pp_hash *h, char *out, size_t size);
const char *pp_hash_algo(const pp_hash *h);
void pp_hash_free(pp_hash *h);

#endif
