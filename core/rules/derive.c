/* The cells rules' derived evidence computes from one value (derive.h).
 * They know .NET's shapes (a SQL command, the GC's root groups, the thread
 * pool's dispatch loop), never an analyzer's. */
#include "config.h"

#include <string.h>
#include <strings.h>

#include "rules/derive.h"

/* SELECT, INSERT, ... of a normalized command; "" when it has no word. */
void
pp_ev_sql_verb(const char *cmd, char *buf, size_t size)
{
    size_t n = 0;

    while (*cmd == ' ' || *cmd == '(')
        cmd++;
    while (n + 1 < size && ((*cmd >= 'A' && *cmd <= 'Z') || (*cmd >= 'a' && *cmd <= 'z'))) {
        buf[n++] = (char)(*cmd >= 'a' ? *cmd - 32 : *cmd);
        cmd++;
    }
    buf[n] = '\0';
}

/* Top-level items of the SELECT list (commas outside parentheses and
 * quotes, up to the top-level FROM); 0 when the command is no SELECT. */
json_int_t
pp_ev_select_columns(const char *cmd)
{
    const char *p = cmd;
    json_int_t items = 1;
    int depth = 0;
    char quote = 0;

    while (*p == ' ' || *p == '(')
        p++;
    if (strncasecmp(p, "SELECT", 6) != 0)
        return 0;
    for (p += 6; *p != '\0'; p++) {
        if (quote) {
            if (*p == quote)
                quote = 0;
        } else if (*p == '"' || *p == '\'' || *p == '`' || *p == '[') {
            quote = *p == '[' ? ']' : *p;
        } else if (*p == '(') {
            depth++;
        } else if (*p == ')') {
            depth--;
        } else if (depth == 0 && *p == ',') {
            items++;
        } else if (depth == 0 && strncasecmp(p, " FROM ", 6) == 0) {
            break;
        }
    }
    return items;
}

/* The root group a heap path starts from: its segment after
 * "[.NET Roots] > ". */
const char *
pp_ev_root_kind(const char *path)
{
    const char *seg = strstr(path, "[.NET Roots] > ");
    char low[64];
    size_t n = 0;

    if (seg == NULL)
        return "other";
    seg += strlen("[.NET Roots] > ");
    while (n + 1 < sizeof low && seg[n] != '\0' && seg[n] != '>') {
        char ch = seg[n];
        low[n++] = (char)(ch >= 'A' && ch <= 'Z' ? ch + 32 : ch);
    }
    low[n] = '\0';
    if (strstr(low, "static") != NULL)
        return "static";
    if (strstr(low, "finaliz") != NULL)
        return "finalizer";
    if (strstr(low, "local") != NULL || strstr(low, "stack") != NULL)
        return "local";
    if (strstr(low, "handle") != NULL || strstr(low, "pinned") != NULL)
        return "handle";
    return "other";
}

/* A stack run by a thread-pool thread: it passes through the pool's
 * dispatch loop (a thread of its own, Main, or a timer thread does not). */
int
pp_ev_pool_stack(const char *stack)
{
    static const char *const loops[] = {
        "System.Threading.ThreadPoolWorkQueue.Dispatch",
        "System.Threading.PortableThreadPool+WorkerThread.",
        "System.Threading.PortableThreadPool+IOCompletionPoller.",
        "System.Threading.WindowsThreadPool.",
        "System.Threading._ThreadPoolWaitCallback.",
    };
    for (size_t i = 0; i < sizeof loops / sizeof loops[0]; i++) {
        const char *p = strstr(stack, loops[i]);
        if (p != NULL && (p == stack || p[-1] == ';'))
            return 1;
    }
    return 0;
}
