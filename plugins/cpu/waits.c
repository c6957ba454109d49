/* plugins/cpu: known wait methods (see waits.h). Substrings, because the
 * same wait shows up under several types and internal helpers. */
#include "waits.h"

#include <string.h>

static const char *const wait_markers[] = {
    "System.Threading.Monitor.Wait",
    "System.Threading.Monitor.ObjWait",
    "System.Threading.WaitHandle.Wait",
    "System.Threading.Thread.Sleep",
    "System.Threading.Thread.Join",
    "System.Threading.SpinWait.",
    "System.Threading.LowLevelLifoSemaphore.",
    "System.Threading.LowLevelMonitor.Wait",
    "System.Threading.LowLevelSpinWaiter.",
    "System.Threading.ManualResetEventSlim.Wait",
    "System.Threading.SemaphoreSlim.Wait",
    "System.Threading.Tasks.Task.Wait",
    "System.Threading.Tasks.Task.InternalWait",
    "System.Threading.Tasks.Task.SpinThenBlockingWait",
    "System.Threading.Tasks.Task`1.GetResultCore",
    "System.Threading.WaitSubsystem.",
    "System.Console.ReadLine",
    "System.IO.StdInReader.ReadKey",
};

int pp_cpu_is_wait(const char *method)
{
    for (size_t i = 0; i < sizeof wait_markers / sizeof wait_markers[0]; i++)
        if (strstr(method, wait_markers[i]))
            return 1;
    return 0;
}
