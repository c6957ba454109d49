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
#define PP_API           __attribute__((visibility("default")))
#define PP_PLUGIN_EXPORT __attribute__((visibility("default")))
#define PP_PRINTF(f, a)  __attribute__((format(printf, f, a)))
#else
#define PP_API
#define PP_PLUGIN_EXPORT
#define PP_PRINTF(f, a)
#endif

/* Symbolization flag (host->trace_symbolize, pp_nettrace_symbolize):
 * append the method's parameter list to its name. */
#define PP_SYM_SIGNATURE 0x1u
/* Module facts instead of the method's name (nettrace.h says what each
 * returns; docs/landing.md); a host offers them when its host_features has
 * PP_HOST_SYM_MODULE (plugin.h). */
#define PP_SYM_MODULE       0x2u  /* assembly name */
#define PP_SYM_MODULE_PATH  0x4u  /* the module's file */
#define PP_SYM_MODULE_CLASS 0x8u  /* application, package, framework, unknown */
#define PP_SYM_MODULE_WHY   0x10u /* the rule that gave that class */
#define PP_SYM_MODULE_ANY   0x1eu
/* Source facts (portable PDBs, issue #42; a host offers them when its
 * host_features has PP_HOST_SYM_SOURCE): "file:line" of the address, or ""
 * when there is none; PP_SYM_SOURCE_WHY: why there is none ("" when there
 * is a line). PP_SYM_CALLER: the address is a return address (a frame
 * below the leaf): the line of the call, not of the statement after it. */
#define PP_SYM_SOURCE     0x20u
#define PP_SYM_SOURCE_WHY 0x40u
#define PP_SYM_CALLER     0x80u

#endif
