/* Private: handing out a versioned struct, one whose first field is its
 * uint32_t struct_size, so that a caller built against an older (shorter)
 * or newer (longer) header gets exactly the fields both sides know. */
#ifndef PP_CORE_SIZED_H
#define PP_CORE_SIZED_H

#include <stdint.h>
#include <string.h>

/* Copy min(out's struct_size, in_size) bytes of in to out and set out's
 * struct_size to that count. The caller has checked that out holds at
 * least the struct_size field. */
static inline void
pp_sized_copy(void *out, const void *in, size_t in_size)
{
    uint32_t want, n;

    memcpy(&want, out, sizeof want);
    n = want < in_size ? want : (uint32_t)in_size;
    memcpy(out, in, n);
    memcpy(out, &n, sizeof n);
}

#endif
