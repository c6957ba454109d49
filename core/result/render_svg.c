/* The svg renderer: a self-contained interactive flame graph, drawn here
 * (root at the bottom, one rectangle per frame, width by weight, children
 * in frame-name order). Hovering a frame shows its name, weight and share
 * (<title>); clicking zooms to it (ancestors stay as full-width dimmed
 * bars), Escape or "Reset zoom" undoes it; '/' or Ctrl-F or "Search" asks
 * for a regular expression, highlights matching frames and shows their
 * share. Frames narrower than MIN_PX at full width are not drawn, which
 * bounds the file size by the picture rather than by the input. */
#include "config.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include <perfpipe/perfpipe.h>

#include "result/result.h"
#include "result/render_util.h"

#define IMG_W     1200.0
#define PAD       10.0
#define FRAME_H   16.0
#define FONT_PX   12
#define CHAR_PX   7.0 /* average advance of a 12px monospace glyph */
#define TOP_H     44.0
#define BOTTOM_H  24.0
#define MIN_PX    0.1
#define MAX_DEPTH 4096 /* frames deeper than this are folded into the last */

typedef struct node {
    const char *name; /* borrowed: points into a stack string */
    size_t name_len;
    int64_t weight; /* inclusive */
    struct node **kids;
    size_t nkids, cap;
} node;

static void
node_free(node *n)
{
    if (n == NULL)
        return;
    for (size_t i = 0; i < n->nkids; i++)
        node_free(n->kids[i]);
    free(n->kids);
    free(n);
}

/* The child of p named name[0..len), created when absent. Stacks arrive
 * sorted frame by frame, so an existing child can only be the last one. */
static node *
child(node *p, const char *name, size_t len)
{
    node *k;

    if (p->nkids > 0) {
        k = p->kids[p->nkids - 1];
        if (k->name_len == len && memcmp(k->name, name, len) == 0)
            return k;
    }
    if (p->nkids == p->cap) {
        size_t cap = p->cap ? p->cap * 2 : 4;
        node **kids = realloc(p->kids, cap * sizeof *kids);
        if (kids == NULL)
            return NULL;
        p->kids = kids;
        p->cap = cap;
    }
    if ((k = calloc(1, sizeof *k)) == NULL)
        return NULL;
    k->name = name;
    k->name_len = len;
    p->kids[p->nkids++] = k;
    return k;
}

static void
xml_text(FILE *out, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        switch (s[i]) {
        case '&': fputs("&amp;", out); break;
        case '<': fputs("&lt;", out); break;
        case '>': fputs("&gt;", out); break;
        case '"': fputs("&quot;", out); break;
        case '\'': fputs("&#39;", out); break;
        case '\n':
        case '\r':
        case '\t': fputc(' ', out); break;
        default:
            /* XML 1.0 forbids the other C0 controls even escaped. */
            if ((unsigned char)s[i] >= 0x20)
                fputc(s[i], out);
        }
    }
}

/* Bytes of name[0..n) that fit in `chars` code points, leaving room for
 * "..": 0 when nothing sensible fits. Sets *cut when shortened. */
static size_t
label_bytes(const char *name, size_t n, size_t chars, int *cut)
{
    size_t cp = 0, i;

    *cut = 0;
    for (i = 0; i < n; i++)
        if (((unsigned char)name[i] & 0xC0) != 0x80)
            cp++;
    if (cp <= chars)
        return n;
    if (chars < 4)
        return 0;
    *cut = 1;
    cp = 0;
    for (i = 0; i < n; i++) {
        if (((unsigned char)name[i] & 0xC0) != 0x80) {
            if (cp == chars - 2)
                break;
            cp++;
        }
    }
    return i;
}

/* A warm colour from the frame name (FNV-1a), stable across runs. */
static void
colour(const char *name, size_t n, int *r, int *g, int *b)
{
    uint32_t h = 2166136261u;

    for (size_t i = 0; i < n; i++)
        h = (h ^ (unsigned char)name[i]) * 16777619u;
    *r = 205 + (int)(h % 50u);
    *g = 90 + (int)((h >> 8) % 140u);
    *b = 40 + (int)((h >> 16) % 50u);
}

typedef struct svg_ctx {
    FILE *out;
    double scale; /* px per weight unit */
    int64_t total;
    const pp_stacks *stacks;
    double base_y; /* y of the depth-0 row */
} svg_ctx;

static void
weight_text(char *buf, size_t size, const pp_stacks *st, int64_t w)
{
    char human[64], exact[80];

    pp_stacks_weight_human(st, w, human, sizeof human);
    pp_stacks_weight_exact(st, w, exact, sizeof exact);
    if (strcmp(human, exact) == 0 || st->weight_type == PP_COL_COUNT)
        snprintf(buf, size, "%s", exact);
    else
        snprintf(buf, size, "%s (%s)", human, exact);
}

static void
draw(svg_ctx *c, const node *n, double x, int depth)
{
    double w = (double)n->weight * c->scale;
    double y = c->base_y - depth * FRAME_H;
    char wt[200];
    int r, g, b, cut;
    size_t lb;
    double sub = x;

    if (w < MIN_PX)
        return;
    colour(n->name, n->name_len, &r, &g, &b);
    weight_text(wt, sizeof wt, c->stacks, n->weight);
    fprintf(c->out, "<g class=\"f\" data-x=\"%.2f\" data-w=\"%.2f\" data-d=\"%d\" data-n=\"",
            x - PAD, w, depth);
    xml_text(c->out, n->name, n->name_len);
    fputs("\"><title>", c->out);
    xml_text(c->out, n->name, n->name_len);
    fprintf(
        c->out,
        "\n%s, %.2f%%</title><rect x=\"%.2f\" y=\"%.1f\" width=\"%.2f\" height=\"%.1f\" fill=\"rgb(%d,%d,%d)\" rx=\"2\"/>",
        wt, c->total > 0 ? 100.0 * (double)n->weight / (double)c->total : 0.0, x, y, w,
        FRAME_H - 1.0, r, g, b);
    lb = label_bytes(n->name, n->name_len, w > 6.0 ? (size_t)((w - 6.0) / CHAR_PX) : 0, &cut);
    fprintf(c->out, "<text x=\"%.2f\" y=\"%.1f\">", x + 3.0, y + FRAME_H - 4.5);
    xml_text(c->out, n->name, lb);
    if (cut)
        fputs("..", c->out);
    fputs("</text></g>\n", c->out);
    for (size_t i = 0; i < n->nkids; i++) {
        draw(c, n->kids[i], sub, depth + 1);
        sub += (double)n->kids[i]->weight * c->scale;
    }
}

static int
max_depth(const node *n, int d)
{
    int m = d;

    for (size_t i = 0; i < n->nkids; i++) {
        int k = max_depth(n->kids[i], d + 1);
        if (k > m)
            m = k;
    }
    return m;
}

/* The interactive part. Positions are recomputed from data-x/data-w (the
 * full-width layout), so zooming never accumulates rounding; the 0.02 px
 * slack absorbs the 2-decimal rounding of data-x/data-w. */
static const char svg_script[] =
    "<script type=\"text/ecmascript\"><![CDATA[\n"
    "(function(){\n"
    "var W=%.1f,P=%.1f,CH=%.1f;\n"
    "var fs=[].slice.call(document.querySelectorAll('g.f'));\n"
    "var info=document.getElementById('info'),zr=document.getElementById('unzoom');\n"
    "function num(g,a){return parseFloat(g.getAttribute(a));}\n"
    "function label(g,w){var t=g.querySelector('text'),n=g.getAttribute('data-n'),c=Math.floor((w-6)/CH);\n"
    " t.textContent=c<4?'':(n.length<=c?n:n.slice(0,c-2)+'..');}\n"
    "function place(g,x,w,dim){var r=g.querySelector('rect');r.setAttribute('x',(P+x).toFixed(2));\n"
    " r.setAttribute('width',w.toFixed(2));g.querySelector('text').setAttribute('x',(P+x+3).toFixed(2));\n"
    " g.style.display='';g.style.opacity=dim?'0.5':'';label(g,w);}\n"
    "function zoom(z){var x0=num(z,'data-x'),w0=num(z,'data-w'),d0=num(z,'data-d'),s=(W-2*P)/w0;\n"
    " fs.forEach(function(g){var x=num(g,'data-x'),w=num(g,'data-w'),d=num(g,'data-d');\n"
    "  if(d>=d0&&x>=x0-0.02&&x+w<=x0+w0+0.02){var nw=w*s;if(nw<0.1){g.style.display='none';return;}place(g,(x-x0)*s,nw,false);}\n"
    "  else if(d<d0&&x<=x0+0.02&&x+w>=x0+w0-0.02)place(g,0,W-2*P,true);\n"
    "  else g.style.display='none';});\n"
    " zr.style.display='';}\n"
    "function reset(){fs.forEach(function(g){place(g,num(g,'data-x'),num(g,'data-w'),false);});zr.style.display='none';}\n"
    "function search(){var q=window.prompt('Search frames (regular expression):','');\n"
    " fs.forEach(function(g){g.classList.remove('m');});info.textContent='';\n"
    " if(!q)return;var re;try{re=new RegExp(q);}catch(e){info.textContent='bad expression';return;}\n"
    " var iv=[];fs.forEach(function(g){if(re.test(g.getAttribute('data-n'))){g.classList.add('m');\n"
    "  iv.push([num(g,'data-x'),num(g,'data-x')+num(g,'data-w')]);}});\n"
    " iv.sort(function(a,b){return a[0]-b[0];});var sum=0,e=-1;\n"
    " iv.forEach(function(v){if(v[0]>=e){sum+=v[1]-v[0];e=v[1];}else if(v[1]>e){sum+=v[1]-e;e=v[1];}});\n"
    " info.textContent='matched '+iv.length+' frames, '+(100*sum/(W-2*P)).toFixed(1)+'%%';}\n"
    "fs.forEach(function(g){g.addEventListener('click',function(){zoom(g);});});\n"
    "zr.addEventListener('click',reset);\n"
    "document.getElementById('search').addEventListener('click',search);\n"
    "document.addEventListener('keydown',function(e){\n"
    " if(e.key==='/'||(e.ctrlKey&&e.key==='f')){e.preventDefault();search();}\n"
    " else if(e.key==='Escape')reset();});\n"
    "})();\n"
    "]]></script>\n";

int
pp_render_svg(const json_t *doc, const json_t *st, const json_t *tj, const pp_render_opts *o,
              FILE *out, pp_error *err)
{
    pp_stacks s;
    node *root;
    svg_ctx c;
    int rc, depth;
    double height;
    char total[200];
    const char *sid = json_string_value(json_object_get(st, "id"));
    const char *tn = json_string_value(json_object_get(tj, "name"));

    (void)doc;
    if ((rc = pp_stacks_collect_ex(tj, o->weight, 0, &s, err)) != PP_OK)
        return rc;
    if ((root = calloc(1, sizeof *root)) == NULL)
        goto nomem;
    root->name = "all";
    root->name_len = 3;
    root->weight = s.total;
    for (size_t i = 0; i < s.n; i++) {
        node *p = root;
        const char *f = s.v[i].stack;
        int d = 0;
        for (;;) {
            const char *semi = pp_render_frame_end(f);
            /* Past MAX_DEPTH the rest of the stack is one frame: a
             * pathological input must not make the recursion unbounded. */
            size_t len = semi != NULL && d < MAX_DEPTH ? (size_t)(semi - f) : strlen(f);
            if ((p = child(p, f, len)) == NULL)
                goto nomem;
            p->weight += s.v[i].weight;
            d++;
            if (semi == NULL || d > MAX_DEPTH || len == strlen(f))
                break;
            f = semi + 1;
        }
    }

    depth = max_depth(root, 0);
    height = TOP_H + (depth + 1) * FRAME_H + BOTTOM_H;
    c.out = out;
    c.scale = s.total > 0 ? (IMG_W - 2 * PAD) / (double)s.total : 0.0;
    c.total = s.total;
    c.stacks = &s;
    c.base_y = TOP_H + depth * FRAME_H;
    weight_text(total, sizeof total, &s, s.total);

    fprintf(
        out,
        "<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%.0f\" height=\"%.0f\" viewBox=\"0 0 %.0f %.0f\">\n"
        "<style>\n"
        "text{font-family:monospace;font-size:%dpx;fill:#000}\n"
        "g.f{cursor:pointer}\n"
        "g.f:hover rect{stroke:#000;stroke-width:0.5}\n"
        "g.f text{pointer-events:none}\n"
        "g.m rect{fill:rgb(230,0,230)}\n"
        ".ui{cursor:pointer;fill:#333}\n"
        "</style>\n"
        "<rect x=\"0\" y=\"0\" width=\"100%%\" height=\"100%%\" fill=\"#f8f8f0\"/>\n"
        "<text x=\"%.1f\" y=\"18\" style=\"font-size:15px\">",
        IMG_W, height, IMG_W, height, FONT_PX, IMG_W / 2 - 300);
    xml_text(out, sid ? sid : "?", strlen(sid ? sid : "?"));
    fputs(" / ", out);
    xml_text(out, tn ? tn : "?", strlen(tn ? tn : "?"));
    fputs(": ", out);
    xml_text(out, total, strlen(total));
    fprintf(
        out,
        "</text>\n"
        "<text id=\"unzoom\" class=\"ui\" x=\"%.1f\" y=\"36\" style=\"display:none\">Reset zoom</text>\n"
        "<text id=\"search\" class=\"ui\" x=\"%.1f\" y=\"36\" text-anchor=\"end\">Search</text>\n"
        "<text id=\"info\" x=\"%.1f\" y=\"%.1f\" text-anchor=\"end\"></text>\n",
        PAD, IMG_W - PAD, IMG_W - PAD, height - 8.0);
    if (s.n == 0)
        fprintf(out, "<text x=\"%.1f\" y=\"%.1f\">(no stacks with a positive weight)</text>\n", PAD,
                TOP_H + FRAME_H);
    else
        draw(&c, root, PAD, 0);
    fprintf(out, svg_script, IMG_W, PAD, CHAR_PX);
    fputs("</svg>\n", out);
    rc = pp_render_check_io(out, "svg", err);
    goto done;

nomem:
    pp_error_set(err, PP_ENOMEM, "svg rendering: out of memory");
    rc = PP_ENOMEM;
done:
    node_free(root);
    pp_stacks_free(&s);
    return rc;
}
