/* Private seam of the symbolizer (symbols.c) for the host and inspect. */
#ifndef PP_NETTRACE_SYMBOLS_H
#define PP_NETTRACE_SYMBOLS_H

/* The name pp_nettrace_symbolize gives when it could not allocate one
 * (compare the pointer): a caller must not pass it off as a frame (the
 * host counts them for the engine, inspect fails with PP_ENOMEM). */
extern const char nt_symbol_oom[];

#endif
