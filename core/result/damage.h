/* Private: damage travels with the data. A reader's damage facts become the
 * input's "damage" object in the result document, and every stage that read
 * a damaged input gets status "partial" and an `input.damaged` warning, so
 * no damaged input yields a quiet "ok" (CONTRACTS.md, "Damage travels with
 * the data"). */
#ifndef PP_CORE_DAMAGE_H
#define PP_CORE_DAMAGE_H

#include <stddef.h>
#include <stdint.h>
#include <jansson.h>

#include "input/source.h"

/* The "damage" object: truncated_at (offset or null), dropped_events,
 * repeated_blocks, reordered_blocks, missing_blocks, sequence_gaps and
 * reader_warnings. New reference, NULL when out of memory. */
json_t *pp_damage_json(const pp_source_damage *d, uint64_t warnings);

/* Whether anything is damaged. */
int pp_damage_any(const pp_source_damage *d, uint64_t warnings);

/* One line saying what is damaged: "input 'trace' (x.nettrace): truncated
 * at byte 400000; 13 events dropped (1 sequence gap)". */
void pp_damage_text(char *buf, size_t size, const char *name, const char *path,
                    const pp_source_damage *d, uint64_t warnings);

/* Mark a stage that read the damaged input: status "partial" (a failed
 * stage stays failed) and a warning finding `input.damaged` with text. */
int pp_damage_mark_stage(json_t *stage, const char *text);

#endif
