/* plugins/common: UTF-16LE payload strings to UTF-8.
 *
 * EventPipe payload strings are UTF-16LE ending at the first 00 00 at an
 * even offset from the string's start. Unpaired surrogates become U+FFFD so
 * the output is always valid UTF-8. */
#ifndef PP_PLUGIN_UTF16_H
#define PP_PLUGIN_UTF16_H

#include <stddef.h>
#include <stdint.h>

/* Decode the string at p (avail bytes available) into out, which must hold
 * at least (avail / 2) * 3 + 1 bytes. On success returns 0 with *consumed =
 * bytes used including the terminator and *outlen = UTF-8 length (out is
 * NUL-terminated); returns -1 when no terminator lies within avail. */
int pp_pc_utf16le_to_utf8(const uint8_t *p, size_t avail, char *out, size_t *consumed,
                          size_t *outlen);

#endif
