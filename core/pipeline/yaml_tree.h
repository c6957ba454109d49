/* Private: a YAML document read with libyaml's event API into a small,
 * bounded tree that keeps every node's position.
 *
 * The event API (not the document API) is used so anchors and aliases can
 * be refused as they appear, and so every limit is enforced before memory
 * is spent. Mapping keys must be scalars and unique. */
#ifndef PP_PIPELINE_YAML_TREE_H
#define PP_PIPELINE_YAML_TREE_H

#include <stddef.h>
#include <stdint.h>

#include <perfpipe/error.h>

#include "pipeline/pos.h"

#define PP_YAML_MAX_BYTES  (1u << 20)
#define PP_YAML_MAX_DEPTH  16u
#define PP_YAML_MAX_NODES  65536u
#define PP_YAML_MAX_KEY    256u
#define PP_YAML_MAX_SCALAR 65536u

typedef enum pp_ynode_type {
    PP_YNODE_SCALAR = 1,
    PP_YNODE_SEQUENCE,
    PP_YNODE_MAPPING
} pp_ynode_type;

typedef struct pp_ynode pp_ynode;
struct pp_ynode {
    pp_ynode_type type;
    pp_pos pos;
    char *text;       /* scalar: NUL-terminated (NULs refused) */
    int plain;        /* scalar written without quotes */
    pp_ynode **items; /* sequence: count items; mapping: key, value pairs */
    uint32_t count;   /* sequence: items; mapping: pairs */
};

/* Parse text (len bytes) into *root. `file` names it in messages. An empty
 * stream (nothing but comments/blanks) is an error (PP_EFORMAT, "empty
 * pipeline"). Errors are "FILE:L:C: ..."; PP_EFORMAT, PP_ELIMIT, PP_ENOMEM. */
int pp_yaml_tree_parse(const char *file, const char *text, size_t len, pp_ynode **root,
                       pp_error *err);

void pp_yaml_tree_free(pp_ynode *n);

/* A scalar that YAML reads as null: empty plain, "~", "null". */
int pp_ynode_is_null(const pp_ynode *n);

/* "a scalar", "a list", "a mapping". */
const char *pp_ynode_type_name(const pp_ynode *n);

#endif
