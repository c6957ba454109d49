/* plugins/common: the 95 % interval of a sampled figure. A row of k
 * samples (allocation ticks, thread-time samples) is a Poisson count; its
 * interval is Wilson's score interval for a Poisson mean,
 * k + z^2/2 -/+ z sqrt(k + z^2/4) with z = 1.96 (0 .. 3.84 for k = 0), and
 * the figure the samples weigh (bytes, ms) scales with it. It says how far
 * the sampling alone can move the figure; not how two runs differ. */
#ifndef PP_PLUGINS_COMMON_INTERVAL_H
#define PP_PLUGINS_COMMON_INTERVAL_H

#include <math.h>
#include <stdint.h>

static inline void
pp_pc_interval95(double figure, int64_t samples, double *lo, double *hi)
{
    const double z = 1.959963984540054, k = (double)samples;
    double h = z * sqrt(k + z * z / 4), l = k + z * z / 2 - h, u = k + z * z / 2 + h;

    if (samples <= 0) {
        *lo = *hi = figure;
        return;
    }
    *lo = figure * (l > 0 ? l : 0) / k;
    *hi = figure * u / k;
}

#endif
