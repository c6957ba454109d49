/* plugins/cpu: known wait methods (see waits.h): the same list the running
 * vs waiting split uses (blocked.c), so the finding and the views agree. */
#include "waits.h"

#include "blocked.h"

int
pp_cpu_is_wait(const char *method)
{
    return pp_cpu_frame_blocks(method);
}
