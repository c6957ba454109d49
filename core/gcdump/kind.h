/* The gcdump input kind's word, once: its readers' kind (gcdump/source.c,
 * ipc/heapsnap_source.c: the kinds registry reads it from their ops) and
 * the name an error gives a snapshot read from memory without one. */
#ifndef PP_GCDUMP_KIND_H
#define PP_GCDUMP_KIND_H

#define PP_GCDUMP_KIND "gcdump"

#endif
