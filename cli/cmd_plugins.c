/* `perfpipe plugins` and `perfpipe describe ANALYZER`. */
#include "config.h"

#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cli.h"
#include "loader/loader.h"
#include "loader/paths.h"
#include "pipeline/options.h"
#include "pipeline/pipeline.h"

#define MAX_DIRS 32

static void
kinds_text(uint32_t kinds, char *buf, size_t size)
{
    pp_pipeline_kind_list(kinds, ",", buf, size);
}

typedef struct listing {
    int json;
    int names; /* --format names: loadable names, one a line */
    json_t *array;
    int refused;
} listing;

static void
list_one(void *user, const pp_plugin_candidate *c)
{
    listing *ls = user;
    char kinds[64] = "";

    if (c->analyzer != NULL)
        kinds_text(c->analyzer->input_kinds, kinds, sizeof kinds);
    else
        ls->refused++;
    if (ls->names) {
        if (c->analyzer != NULL)
            printf("%s\n", c->analyzer->name);
        return;
    }
    if (ls->json) {
        json_t *o = json_object();

        json_object_set_new(o, "name", json_string(c->analyzer ? c->analyzer->name : c->file_name));
        json_object_set_new(o, "path", json_string(c->path));
        if (c->analyzer != NULL) {
            json_object_set_new(o, "status", json_string("ok"));
            json_object_set_new(o, "version", json_string(c->analyzer->version));
            json_object_set_new(o, "abi",
                                json_sprintf("%u.%u", (unsigned)c->analyzer->abi_major,
                                             (unsigned)c->analyzer->abi_minor));
            json_object_set_new(o, "inputs", json_string(kinds));
            json_object_set_new(o, "summary",
                                json_string(c->analyzer->summary ? c->analyzer->summary : ""));
        } else {
            json_object_set_new(o, "status", json_string(c->broken ? "broken" : "refused"));
            json_object_set_new(o, "reason", json_string(c->refusal));
        }
        json_array_append_new(ls->array, o);
        return;
    }
    if (c->analyzer != NULL)
        printf("%-14s %-8s ABI %u.%u  %-9s %s\n%14s %s\n", c->analyzer->name, c->analyzer->version,
               (unsigned)c->analyzer->abi_major, (unsigned)c->analyzer->abi_minor, kinds,
               c->analyzer->summary ? c->analyzer->summary : "", "", c->path);
    else
        printf("%-14s %-8s %s\n", c->file_name, c->broken ? "BROKEN" : "REFUSED", c->refusal);
}

static void
plugins_help(FILE *out)
{
    fputs("Usage: perfpipe plugins [--plugin-dir DIR]... [--format table|json|names]\n"
          "\n"
          "List every analyzer plugin perfpipe can find, in search order, with its\n"
          "version, plugin ABI, the input kinds it reads, its file, and for every\n"
          "candidate that was refused, why (ABI mismatch, not a plugin, shadowed...).\n"
          "Each file is first loaded in a child process: one that crashes, calls exit,\n"
          "prints or does not finish loading within 10 s is listed as BROKEN with the\n"
          "reason, and the listing goes on.\n"
          "--format names prints the loadable analyzers' names alone, one a line\n"
          "(what shell completion uses).\n"
          "Exit status 0 even when some candidates are refused or broken (their lines\n"
          "say why); 2 on a usage error; 5 when the listing cannot be written.\n",
          out);
}

int
pp_cmd_plugins(int argc, char **argv)
{
    static const struct option opts[] = {
        { "plugin-dir", required_argument, NULL, 'P' },
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *dirs[MAX_DIRS];
    int ndirs = 0, c, status = PP_EXIT_OK;
    listing ls = { 0 };
    pp_loader *l;

    optind = 1;
    while ((c = getopt_long(argc, argv, "P:f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'P':
            if (ndirs < MAX_DIRS)
                dirs[ndirs++] = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "json") == 0)
                ls.json = 1;
            else if (strcmp(optarg, "names") == 0)
                ls.names = 1;
            else if (strcmp(optarg, "table") != 0) {
                pp_cli_error("plugins: --format takes table, json or names, not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'h': plugins_help(stdout); return PP_EXIT_OK;
        default: plugins_help(stderr); return PP_EXIT_USAGE;
        }
    }
    if (optind < argc) {
        pp_cli_error("plugins: unexpected argument '%s'", argv[optind]);
        return PP_EXIT_USAGE;
    }
    if ((l = pp_cli_loader(dirs, ndirs)) == NULL)
        return PP_EXIT_USAGE;
    if (ls.json)
        ls.array = json_array();
    else if (!ls.names) {
        printf("Search order:");
        for (size_t i = 0; i < pp_loader_dir_count(l); i++)
            printf("%s %s", i ? " ->" : "", pp_loader_dir(l, i));
        printf("\n\n");
    }
    pp_loader_scan(l, list_one, &ls);
    if (ls.json) {
        status = pp_cli_write_json(NULL, ls.array);
        json_decref(ls.array);
    }
    pp_loader_free(l);
    return status;
}

static void
describe_help(FILE *out)
{
    fputs("Usage: perfpipe describe ANALYZER [--plugin-dir DIR]... [--format text|names]\n"
          "\n"
          "Show what an analyzer reads, its options with their types, defaults and\n"
          "help, and the shipped pipeline that runs it alone (whose options may\n"
          "differ from the analyzer's defaults: `perfpipe validate NAME` shows it).\n"
          "--format names prints the option names alone, one a line (for completion).\n"
          "The plugin is loaded in a child process first, so a broken one is reported,\n"
          "not crashed on. Exit status 0; 2 when there is no such analyzer; 4 when its\n"
          "plugin is refused or broken (the line says why); 5 when stdout fails.\n",
          out);
}

/* describe --format names: the analyzer's option names, one a line. */
static int
option_names(const char *name, char **dirs, int ndirs)
{
    pp_error err = PP_ERROR_INIT;
    pp_loader *l = pp_cli_loader(dirs, ndirs);
    const pp_analyzer *a;

    if (l == NULL)
        return PP_EXIT_USAGE;
    if ((a = pp_loader_get(l, name, &err)) == NULL) {
        pp_cli_error("%s", err.message);
        pp_loader_free(l);
        return err.code == PP_ENOTFOUND ? PP_EXIT_USAGE : PP_EXIT_PLUGIN;
    }
    for (uint32_t i = 0; i < a->option_count; i++)
        printf("%s\n", a->options[i].name);
    pp_loader_free(l);
    return PP_EXIT_OK;
}

int
pp_cmd_describe(int argc, char **argv)
{
    static const struct option opts[] = {
        { "plugin-dir", required_argument, NULL, 'P' },
        { "format", required_argument, NULL, 'f' },
        { "help", no_argument, NULL, 'h' },
        { NULL, 0, NULL, 0 },
    };
    char *dirs[MAX_DIRS];
    int ndirs = 0, c, names = 0;

    optind = 1;
    while ((c = getopt_long(argc, argv, "P:f:h", opts, NULL)) != -1) {
        switch (c) {
        case 'P':
            if (ndirs < MAX_DIRS)
                dirs[ndirs++] = optarg;
            break;
        case 'f':
            if (strcmp(optarg, "names") == 0)
                names = 1;
            else if (strcmp(optarg, "text") != 0) {
                pp_cli_error("describe: --format takes text or names, not '%s'", optarg);
                return PP_EXIT_USAGE;
            }
            break;
        case 'h': describe_help(stdout); return PP_EXIT_OK;
        default: describe_help(stderr); return PP_EXIT_USAGE;
        }
    }
    if (optind + 1 != argc) {
        describe_help(stderr);
        return PP_EXIT_USAGE;
    }
    return names ? option_names(argv[optind], dirs, ndirs) :
                   pp_cli_describe(argv[optind], dirs, ndirs);
}

int
pp_cli_describe(const char *name, char **dirs, int ndirs)
{
    pp_error err = PP_ERROR_INIT;
    const pp_analyzer *a;
    pp_loader *l;
    char kinds[64];

    if ((l = pp_cli_loader(dirs, ndirs)) == NULL)
        return PP_EXIT_USAGE;
    if ((a = pp_loader_get(l, name, &err)) == NULL) {
        pp_cli_error("%s", err.message);
        pp_loader_free(l);
        return err.code == PP_ENOTFOUND ? PP_EXIT_USAGE : PP_EXIT_PLUGIN;
    }
    kinds_text(a->input_kinds, kinds, sizeof kinds);
    printf("%s %s — %s\n", a->name, a->version, a->summary ? a->summary : "");
    printf("  plugin ABI %u.%u, file %s\n", (unsigned)a->abi_major, (unsigned)a->abi_minor,
           pp_loader_path_of(l, a->name));
    printf("  reads: %s; inputs:", kinds);
    if (a->input_slot_count <= 1 || a->input_slots == NULL)
        printf(" one\n");
    else
        for (uint32_t i = 0; i < a->input_slot_count; i++)
            printf(" %s%s", a->input_slots[i], i + 1 < a->input_slot_count ? "," : "\n");
    printf("\nOptions (set in a pipeline stage's `options:`, or --option KEY=VALUE):\n");
    if (a->option_count == 0)
        printf("  (none)\n");
    for (uint32_t i = 0; i < a->option_count; i++) {
        const pp_option_decl *o = &a->options[i];

        printf("  %-20s %-11s default %-16s %s\n", o->name, pp_option_type_name(o->type),
               o->default_value ? o->default_value : "(unset)", o->help ? o->help : "");
    }
    {
        const char *pipeline = pp_cli_pipeline_for(a->name);
        char *path = pp_pipeline_find(pipeline, &err);

        printf("\nQuick path:    perfpipe %s INPUT...\n", a->name);
        if (path != NULL)
            printf("Declared path: perfpipe run %s --input NAME=PATH   (pipeline %s)\n", pipeline,
                   path);
        else
            printf("Declared path: no shipped pipeline; the quick path runs a one-stage pipeline "
                   "made from the descriptor\n");
        free(path);
    }
    pp_loader_free(l);
    return PP_EXIT_OK;
}
