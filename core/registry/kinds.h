/* The input kind registry: one row per kind a pipeline's `inputs:` take,
 * built on the readers' own ops (name and PP_KIND_* bit come from the
 * reader). Pipeline validation, the loader's check of a descriptor's
 * input_kinds, the quick path's guess from a file name, usage, errors and
 * completion read it; adding a kind is its reader plus one row in
 * core/registry/kinds.c (HACKING.md "Adding an input kind"). */
#ifndef PP_REGISTRY_KINDS_H
#define PP_REGISTRY_KINDS_H

#include <stddef.h>
#include <stdint.h>

#include "input/source.h"

typedef struct pp_input_kind {
    const pp_source_ops *reader; /* its kind and kind_bit name the row */
    /* File name endings that say a file is of this kind, space-separated
     * (".csv .json"); the quick path picks a kind by them when an analyzer
     * reads several. "" when a name says nothing. */
    const char *endings;
    const char *what; /* for people: "a nettrace trace (dotnet-trace)" */
} pp_input_kind;

/* The rows, ended by one whose reader is NULL. */
extern const pp_input_kind pp_input_kinds[];

/* The row of a kind name, or NULL. */
const pp_input_kind *pp_input_kind_named(const char *name);
/* The row of the lowest PP_KIND_* bit set in bits, or NULL. */
const pp_input_kind *pp_input_kind_of_bits(uint32_t bits);
/* Every PP_KIND_* bit the host reads. */
uint32_t pp_input_kinds_all(void);
/* The names of the kinds whose bit is in bits into names[0..max-1], in
 * registry order, NULL-terminated; returns how many. */
size_t pp_input_kind_names(uint32_t bits, const char **names, size_t max);
/* Whether path's name ends with one of k's endings. */
int pp_input_kind_ending_matches(const pp_input_kind *k, const char *path);

#endif
