/* plugins/cpu: recognizing methods where a thread waits instead of running.
 *
 * Thread-time sampling (SampleProfiler) samples blocked threads too, so the
 * top "methods" of a mostly idle process are waits; and an `await` leaves
 * no thread to sample at all. The analyzer says so when waits dominate. */
#ifndef PP_CPU_WAITS_H
#define PP_CPU_WAITS_H

/* 1 when the frame name is a known blocking wait of the BCL or runtime. */
int pp_cpu_is_wait(const char *method);

#endif
