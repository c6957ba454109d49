/* plugins/common: the time window and thread filter shared by the trace
 * analyzers.
 *
 * Options: `from` / `to` in milliseconds since the trace's sync time (the
 * instant the trace header records; event time_ns == 0), `thread` an OS
 * thread id. Events with from <= t < to on the thread are admitted. */
#ifndef PP_PLUGIN_WINDOW_H
#define PP_PLUGIN_WINDOW_H

#include <stdint.h>

#include <perfpipe/plugin.h>

#define PP_PC_WINDOW_OPTION_DECLS                                                                  \
    { "from", PP_OPT_DOUBLE, 0, NULL,                                                              \
      "start of the window, ms since the trace's sync time (default: trace start)" },              \
        { "to", PP_OPT_DOUBLE, 0, NULL,                                                            \
          "end of the window (exclusive), ms since the trace's sync time (default: trace end)" },  \
    {                                                                                              \
        "thread", PP_OPT_INT, 0, NULL, "only events of this OS thread id"                          \
    }

typedef struct pp_pc_window {
    int has_from, has_to, has_thread;
    int64_t from_ns, to_ns;
    uint64_t thread;
} pp_pc_window;

/* Read from/to/thread. PP_OK or PP_EINVAL (negative or reversed window). */
int pp_pc_window_load(const pp_host_api *host, const pp_options *opts, pp_pc_window *w,
                      pp_error *err);

static inline int
pp_pc_window_admits_time(const pp_pc_window *w, int64_t t)
{
    return (!w->has_from || t >= w->from_ns) && (!w->has_to || t < w->to_ns);
}

static inline int
pp_pc_window_admits(const pp_pc_window *w, const pp_trace_event *ev)
{
    return pp_pc_window_admits_time(w, ev->time_ns) &&
           (!w->has_thread || ev->thread_id == w->thread);
}

/* The window's length clipped to the trace span [first_ns, last_ns]; 0 when
 * they do not overlap. */
int64_t pp_pc_window_span(const pp_pc_window *w, int64_t first_ns, int64_t last_ns);

/* A one-line description ("12.0 ms .. 80.0 ms, thread 4242"), or "" when
 * nothing is filtered. */
void pp_pc_window_describe(const pp_pc_window *w, char *buf, size_t size);

#endif
