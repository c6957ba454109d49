/* Content identity of an input, computed during the one read. */
#include "config.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/evp.h>
#include <xxhash.h>

#include <perfpipe/perfpipe.h>

#include "hash.h"

struct pp_hash {
    int sha;
    XXH3_state_t *xxh;
    EVP_MD_CTX *md;
};

pp_hash *
pp_hash_new(const char *algo, pp_error *err)
{
    pp_hash *h = calloc(1, sizeof *h);

    if (h == NULL)
        goto nomem;
    if (strcmp(algo, "xxh3-128") == 0) {
        if ((h->xxh = XXH3_createState()) == NULL)
            goto nomem;
        XXH3_128bits_reset(h->xxh);
        return h;
    }
    if (strcmp(algo, "sha256") == 0) {
        h->sha = 1;
        if ((h->md = EVP_MD_CTX_new()) == NULL || EVP_DigestInit_ex(h->md, EVP_sha256(), NULL) != 1)
            goto nomem;
        return h;
    }
    free(h);
    pp_error_set(err, PP_EINVAL, "unknown hash '%s': use xxh3-128 or sha256", algo);
    return NULL;
nomem:
    pp_hash_free(h);
    pp_error_set(err, PP_ENOMEM, "out of memory setting up the input hash");
    return NULL;
}

void
pp_hash_update(pp_hash *h, const void *data, size_t len)
{
    if (h->sha)
        EVP_DigestUpdate(h->md, data, len);
    else
        XXH3_128bits_update(h->xxh, data, len);
}

void
pp_hash_final(pp_hash *h, char *out, size_t size)
{
    if (h->sha) {
        unsigned char md[EVP_MAX_MD_SIZE];
        unsigned int n = 0;
        size_t used = 0;

        EVP_DigestFinal_ex(h->md, md, &n);
        for (unsigned int i = 0; i < n && used + 3 <= size; i++)
            used += (size_t)snprintf(out + used, size - used, "%02x", md[i]);
    } else {
        XXH128_hash_t v = XXH3_128bits_digest(h->xxh);
        XXH128_canonical_t c;
        size_t used = 0;

        XXH128_canonicalFromHash(&c, v);
        for (size_t i = 0; i < sizeof c.digest && used + 3 <= size; i++)
            used += (size_t)snprintf(out + used, size - used, "%02x", c.digest[i]);
    }
}

const char *
pp_hash_algo(const pp_hash *h)
{
    return h->sha ? "sha256" : "xxh3-128";
}

void
pp_hash_free(pp_hash *h)
{
    if (h == NULL)
        return;
    if (h->xxh != NULL)
        XXH3_freeState(h->xxh);
    if (h->md != NULL)
        EVP_MD_CTX_free(h->md);
    free(h);
}
