/* perfpipe — the macros every public header shares, in one place.
 *
 * PP_API marks a function libperfpipe exports. The library is built with
 * -fvisibility=hidden, so a function without it stays inside the library
 * whatever its name; debian/libperfpipe0.symbols lists what is exported
 * and tests/abi/check-exports.sh compares the two. For a program that
 * includes the headers PP_API changes nothing.
 * PP_PLUGIN_EXPORT marks the one symbol a plugin exports (plugin.h's
 * PP_PLUGIN_DEFINE uses it); PP_PRINTF lets the compiler check a format. */
#ifndef PERFPIPE_DEFS_H
#define PERFPIPE_DEFS_H

#if defined(__GNUC__)
#define PP_API __attribute__((visibility("default")))
#define PP_PLUGIN_EXPORT __attribute__((visibility("default")))
#define PP_PRINTF(f, a) __attribute__((format(printf, f, a)))
#else
#define PP_API
#define PP_PLUGIN_EXPORT
#define PP_PRINTF(f, a)
#endif

/* Symbolization flag (host->trace_symbolize, pp_nettrace_symbolize):
 * append the method's parameter list to its name. */
#define PP_SYM_SIGNATURE 0x1u

#endif
