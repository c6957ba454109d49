/* Private: where a frame a rule matched lands - the frame itself when it is
 * the application's, else its nearest application caller - read from the
 * stage's frame tables as their declarations describe them (subject,
 * module, call_site), the same attribution candidates use. */
#ifndef PP_CORE_RULES_SITE_H
#define PP_CORE_RULES_SITE_H

#include <stddef.h>

#include <jansson.h>

typedef enum pp_ev_site {
    PP_EV_SITE_UNKNOWN = 0, /* no frame table of the stage names it (not a frame, or no module) */
    PP_EV_SITE_APP,         /* an application module's frame: it lands there */
    PP_EV_SITE_CALLER,      /* a framework or package frame called by application code */
    PP_EV_SITE_NONE         /* a framework or package frame no application frame calls */
} pp_ev_site;

/* Where `frame` of `stage` (a stage object of a result document) lands:
 * the first row naming it in the subject column of a table declared as a
 * frame candidate (decl.candidate.frame), its `module`'s class in the
 * table whose subject is `module`, and its `call_site`. For
 * PP_EV_SITE_CALLER, site gets the application caller; otherwise "". */
pp_ev_site pp_ev_frame_site(const json_t *stage, const char *frame, char *site, size_t size);

/* Add to set (name -> true) the frames of `stage` that are the
 * application's, as its analyzer decided from the process's own assemblies:
 * the subjects of its frame-candidate tables whose `module` is of class
 * "application", and their `call_site`s (each the first application frame
 * from its row's frame outward). A frame no such table names is not added
 * (a table cut by `top` names fewer). 0, or -1 when memory ran out. */
int pp_ev_app_frames(const json_t *stage, json_t *set);

#endif
