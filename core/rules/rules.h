/* Private: rules, the fix shapes of .NET performance antipatterns
 * (docs/rules.md).
 *
 * A rule is data: an id, the axis it speaks of, a match over the evidence a
 * result document already holds (evidence.h says what can be matched), the
 * fix shape, a public documentation link and a confidence. Rule files are
 * YAML (format version 1) read from the shipped, administrator and user
 * directories; a rule of an earlier directory replaces a later one of the
 * same id. Everything here is plain C over jansson documents: no plugin
 * sees a rule. */
#ifndef PP_CORE_RULES_H
#define PP_CORE_RULES_H

#include <regex.h>
#include <stddef.h>

#include <jansson.h>

#include <perfpipe/error.h>

#include "pipeline/pos.h"

/* Bounds of one rule file: a rule set is configuration, never data. */
#define PP_RULES_MAX_RULES   512u
#define PP_RULES_MAX_CLAUSES 16u
#define PP_RULES_MAX_CONDS   16u

typedef enum pp_rule_op {
    PP_RULE_EQUALS = 1,
    PP_RULE_REGEX,
    PP_RULE_NOT_REGEX,
    PP_RULE_GLOB,
    PP_RULE_MIN,
    PP_RULE_MAX
} pp_rule_op;

typedef enum pp_rule_finding {
    PP_RULE_FINDING_NONE = 0,
    PP_RULE_FINDING_INFO,
    PP_RULE_FINDING_WARNING
} pp_rule_finding;

/* One test on one column of a row. */
typedef struct pp_rule_cond {
    char *column;
    pp_rule_op op;
    char *text;    /* equals, regex, not_regex, glob: as written */
    double number; /* min, max */
    regex_t re;    /* regex, not_regex: compiled (REG_EXTENDED|REG_NOSUB) */
    int has_re;
} pp_rule_cond;

/* Rows of one table of a stage of one analyzer, every condition holding. */
typedef struct pp_rule_clause {
    char *analyzer;
    char *table;
    char *target; /* column tying a row to a candidate, or NULL */
    int absent;   /* requires: holds where another result has the table and no row
                     of it names the target (it stopped growing there) */
    pp_rule_cond *conds;
    size_t nconds;
    pp_pos pos;
} pp_rule_clause;

typedef struct pp_rule {
    char *id;
    char *title;
    char *axis;       /* one of pp_decl_axes (result/decl.h) */
    char *confidence; /* "high", "medium", "low" */
    char *fix;
    char *doc;
    char *message; /* finding template, or NULL */
    pp_rule_finding finding;
    int disabled;
    pp_rule_clause *match; /* alternatives: any one */
    size_t nmatch;
    pp_rule_clause *requires; /* each must match somewhere (one, with requires_any); a
                                 clause with a target: a row naming the candidate's
                                 target in another result */
    size_t nrequires;
    char *file;          /* where it was defined */
    pp_pos pos;          /* of its `id` value */
    char *superseded_by; /* rule ids (space-separated): where one of them matches a
                            candidate too, only that one shows */
    int experimental;    /* no antipattern/twin capture pair proves it (docs/rules.md):
                                    never ranked above medium (pp_rule_confidence) */
    int l1_blind_spot;   /* what it names lives behind I/O an L1 benchmark mocks (a
                                    DbContext, a repository): a candidate it matches plans L2+L3 */
    int requires_any;    /* one `requires` clause holding is enough */
} pp_rule;

typedef struct pp_ruleset {
    pp_rule *rules;
    size_t count, cap;
    /* Borrowed: what rule files are checked against (evidence.h: a schema
     * of the analyzers' declared tables). NULL, or an analyzer absent from
     * it: its tables and columns are not checked (they are matched as the
     * documents hold them). Set it before loading. */
    const json_t *schema;
} pp_ruleset;

#define PP_RULESET_INIT                                                                            \
    {                                                                                              \
        NULL, 0, 0, NULL                                                                           \
    }

/* Parse and validate one rule file's text (len bytes; `file` names it in
 * messages) and append its rules to *set. A rule whose id *set already holds
 * is an error when it comes from the same file (duplicate), and is dropped
 * when an earlier file defined it (the earlier one overrides: that is how
 * user rules replace shipped ones). Errors: "FILE:LINE:COLUMN: what was
 * expected", PP_EINVAL (PP_EFORMAT for YAML syntax, PP_ELIMIT, PP_ENOMEM);
 * *set keeps the rules of earlier files. */
int pp_rules_load_text(pp_ruleset *set, const char *file, const char *text, size_t len,
                       pp_error *err);

/* pp_rules_load_text where the rules from index first_new on came from the
 * same directory: an id among them is a duplicate, an id before them an
 * override. */
int pp_rules_load_text_in(pp_ruleset *set, size_t first_new, const char *file, const char *text,
                          size_t len, pp_error *err);

/* Read `path` and pp_rules_load_text it. PP_EIO when it cannot be read,
 * PP_ELIMIT past PP_YAML_MAX_BYTES. */
int pp_rules_load_file(pp_ruleset *set, const char *path, pp_error *err);
int pp_rules_load_file_in(pp_ruleset *set, size_t first_new, const char *path, pp_error *err);

/* Load every *.yaml of the rule directories (pp_rules_dirs order, each
 * directory's files in name order): the rules in force. A directory that
 * does not exist is skipped; an unreadable or invalid file is an error
 * naming it. Disabled rules stay in the set (flagged), so they keep
 * overriding later ones. */
int pp_rules_load_default(pp_ruleset *set, pp_error *err);

/* The confidence a rule carries on a candidate: its own, at most "medium"
 * when it is experimental. */
const char *pp_rule_confidence(const pp_rule *r);

/* The rule of that id, or NULL. Disabled ones are returned too. */
const pp_rule *pp_ruleset_find(const pp_ruleset *set, const char *id);

void pp_ruleset_free(pp_ruleset *set);

/* The rule directories in search order, malloc'd strings the caller frees:
 * PERFPIPE_RULES_PATH (colon-separated; ignored when privileged), the
 * user's ~/.config/perfpipe/rules ($XDG_CONFIG_HOME honoured), then in a
 * build tree the source tree's etc/rules, else SYSCONFDIR/perfpipe/rules
 * and PKGDATADIR/rules. Returns how many were stored (at most max). */
size_t pp_rules_dirs(char **dirs, size_t max);

struct pp_ev_cache;

/* The rules (at most max, in set order, disabled ones never) attached to a
 * candidate of `stage` whose target is `target`: a match clause for the
 * stage's analyzer with a target column, some row of its table in that
 * stage satisfying it with row[target] == target, and every `requires`
 * clause satisfied in one of docs. Evidence is read through cache.
 * Returns how many were stored. */
size_t pp_rules_for_target(const pp_ruleset *set, struct pp_ev_cache *cache,
                           const json_t *const *docs, size_t ndocs, const json_t *stage,
                           const char *target, const pp_rule **out, size_t max);

/* Called once per rule that reports on its own (finding: info|warning) and
 * matches a row of `stage` (requires checked against docs): text is the
 * finding's message (template filled from the first matching row, "and N
 * more", the fix, confidence and doc). */
typedef void (*pp_rules_finding_fn)(void *user, const pp_rule *rule, const char *text);

void pp_rules_stage_findings(const pp_ruleset *set, struct pp_ev_cache *cache,
                             const json_t *const *docs, size_t ndocs, const json_t *stage,
                             pp_rules_finding_fn fn, void *user);

/* Append the findings of pp_rules_stage_findings to every stage of doc
 * (code "rule.ID", severity the rule's), requires judged on doc alone.
 * Returns how many were added. */
size_t pp_rules_annotate(const pp_ruleset *set, json_t *doc);

#endif
