/* Keeping the evidence of a run: dated, knob-stamped, never overwritten. */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <perfpipe/perfpipe.h>

#include "evidence.h"
#include "result/result.h"

/* Knobs as "k=v,k=v" in key order; a file-name-safe variant for stamps. */
static void
knob_text(const json_t *knobs, char *buf, size_t size, int for_file)
{
    const char **keys;
    size_t n = json_object_size(knobs), used = 0, k = 0;
    const char *key;
    json_t *v;

    buf[0] = '\0';
    if (n == 0 || (keys = malloc(n * sizeof *keys)) == NULL)
        return;
    json_object_foreach((json_t *)knobs, key, v)
        keys[k++] = key;
    for (size_t i = 1; i < n; i++)   /* insertion sort: a handful of knobs */
        for (size_t j = i; j > 0 && strcmp(keys[j - 1], keys[j]) > 0; j--) {
            const char *t = keys[j];
            keys[j] = keys[j - 1];
            keys[j - 1] = t;
        }
    for (size_t i = 0; i < n && used + 1 < size; i++) {
        const char *val = json_string_value(json_object_get(knobs, keys[i]));
        int w = snprintf(buf + used, size - used, "%s%s=%s", i ? "," : "", keys[i], val ? val : "");

        if (w < 0)
            break;
        used += (size_t)w < size - used ? (size_t)w : size - used - 1;
    }
    free(keys);
    if (for_file)
        for (char *p = buf; *p; p++)
            if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                  *p == '-' || *p == '.' || *p == '='))
                *p = '_';
}

static int
mkdir_p(const char *dir)
{
    char path[4096];

    if (snprintf(path, sizeof path, "%s", dir) >= (int)sizeof path)
        return -1;
    for (char *p = path + 1; *p; p++)
        if (*p == '/') {
            *p = '\0';
            if (mkdir(path, 0777) != 0 && errno != EEXIST)
                return -1;
            *p = '/';
        }
    return mkdir(path, 0777) != 0 && errno != EEXIST ? -1 : 0;
}

/* Create base.json exclusively, adding -2, -3... when taken. */
static FILE *
create_unique(const char *dir, const char *base, char *path, size_t size)
{
    for (int i = 1; i < 1000; i++) {
        int fd;

        if (i == 1)
            snprintf(path, size, "%s/%s.json", dir, base);
        else
            snprintf(path, size, "%s/%s-%d.json", dir, base, i);
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
        if (fd >= 0)
            return fdopen(fd, "w");
        if (errno != EEXIST)
            return NULL;
    }
    errno = EEXIST;
    return NULL;
}

int
pp_evidence_write(const char *dir, const json_t *doc, const char *date, char **written,
                  pp_error *err)
{
    const char *pipeline = json_string_value(json_object_get(doc, "pipeline"));
    char knobs_file[160], knobs_line[1024], base[320], path[4400], md[4400], index[4200];
    json_t *inputs = json_object_get(doc, "inputs"), *in;
    FILE *f, *ix;
    size_t i;
    int new_index;

    *written = NULL;
    knob_text(json_object_get(doc, "knobs"), knobs_file, sizeof knobs_file, 1);
    knob_text(json_object_get(doc, "knobs"), knobs_line, sizeof knobs_line, 0);
    snprintf(base, sizeof base, "%s-%s%s%s", date, pipeline ? pipeline : "run",
             knobs_file[0] ? "-" : "", knobs_file);
    if (mkdir_p(dir) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot create the evidence directory: %s", dir,
                     strerror(errno));
        return PP_EIO;
    }
    if ((f = create_unique(dir, base, path, sizeof path)) == NULL) {
        pp_error_set(err, PP_EIO, "%s/%s.json: cannot create: %s", dir, base, strerror(errno));
        return PP_EIO;
    }
    if (pp_render(doc, "json", f, err) != PP_OK || fclose(f) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot write", path);
        return PP_EIO;
    }
    snprintf(md, sizeof md, "%.*s.md", (int)(strlen(path) - 5), path);
    if ((f = fopen(md, "wx")) == NULL || pp_render(doc, "markdown", f, err) != PP_OK ||
        fclose(f) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot write: %s", md, strerror(errno));
        return PP_EIO;
    }
    snprintf(index, sizeof index, "%s/index.tsv", dir);
    new_index = access(index, F_OK) != 0;
    if ((ix = fopen(index, "a")) == NULL) {
        pp_error_set(err, PP_EIO, "%s: cannot append: %s", index, strerror(errno));
        return PP_EIO;
    }
    if (new_index)
        fputs("date\tpipeline\tknobs\tresult\tinputs\n", ix);
    fprintf(ix, "%s\t%s\t%s\t%s\t", date, pipeline ? pipeline : "", knobs_line,
            strrchr(path, '/') + 1);
    json_array_foreach(inputs, i, in) {
        json_t *h = json_object_get(in, "hash");

        fprintf(ix, "%s%s:%s:%s", i ? " " : "", json_string_value(json_object_get(in, "name")),
                json_string_value(json_object_get(h, "algo")),
                json_string_value(json_object_get(h, "value")));
    }
    fputc('\n', ix);
    if (fclose(ix) != 0) {
        pp_error_set(err, PP_EIO, "%s: cannot write", index);
        return PP_EIO;
    }
    *written = strdup(path);
    return PP_OK;
}
