/* Private: a client of the .NET runtime's diagnostics IPC protocol
 * (dotnet/diagnostics documentation/design-docs/ipc-protocol.md), written
 * from the spec, with no .NET code involved.
 *
 * Transport: the runtime listens on a Unix socket
 * `dotnet-diagnostic-{pid}-{key}-socket` in its $TMPDIR (else /tmp). A
 * target in another mount or pid namespace is reached through
 * /proc/PID/root and its namespace pid (NSpid). In reverse ("listen") mode
 * the runtime connects to a socket we listen on (DOTNET_DiagnosticPorts),
 * advertises itself, and we send one command per connection it makes.
 *
 * Every connection carries one command: a 20-byte header (magic
 * "DOTNET_IPC_V1\0", uint16 size, uint8 command set, uint8 command id,
 * uint16 reserved) and a payload; the reply has the same header (set 0xFF,
 * id 0x00 OK or 0xFF error with a uint32 HRESULT). A tracing session's
 * reply is followed, on the same connection, by the nettrace stream.
 *
 * Conventions: functions return PP_OK or a negative PP_E* code and fill the
 * caller's pp_error. Timeouts are in milliseconds (< 0 = wait forever).
 * Nothing here prints, calls exit() or installs signal handlers. */
#ifndef PP_CORE_IPC_H
#define PP_CORE_IPC_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include <perfpipe/error.h>

/* Command sets and ids (ipc-protocol.md). */
enum {
    PP_IPC_SET_DUMP = 0x01,
    PP_IPC_SET_EVENTPIPE = 0x02,
    PP_IPC_SET_PROFILER = 0x03,
    PP_IPC_SET_PROCESS = 0x04,
    PP_IPC_SET_SERVER = 0xFF,

    PP_IPC_EP_STOP_TRACING = 0x01,
    PP_IPC_EP_COLLECT_TRACING = 0x02,
    PP_IPC_EP_COLLECT_TRACING2 = 0x03,
    PP_IPC_EP_COLLECT_TRACING3 = 0x04,
    PP_IPC_EP_COLLECT_TRACING4 = 0x05,

    PP_IPC_PROC_INFO = 0x00,
    PP_IPC_PROC_RESUME_RUNTIME = 0x01,
    PP_IPC_PROC_ENVIRONMENT = 0x02,
    PP_IPC_PROC_INFO2 = 0x04,

    PP_IPC_SERVER_OK = 0x00,
    PP_IPC_SERVER_ERROR = 0xFF,
};

#define PP_IPC_HEADER_SIZE 20
#define PP_IPC_MESSAGE_MAX 65535u
/* HRESULT the runtime answers an unknown command with (older runtimes). */
#define PP_IPC_HR_UNKNOWN_COMMAND 0x80131385u
/* dotnet-trace's rundown keyword (EventPipeSession.DefaultRundownKeyword). */
#define PP_IPC_DEFAULT_RUNDOWN_KEYWORD UINT64_C(0x80020139)

/* ---- message framing (message.c) ---- */

/* A growable little-endian payload being built. */
typedef struct pp_ipc_buf {
    uint8_t *data;
    size_t len, cap;
    int failed; /* an append ran out of memory or past 64 KiB */
} pp_ipc_buf;

void pp_ipc_buf_u8(pp_ipc_buf *b, uint8_t v);
void pp_ipc_buf_u32(pp_ipc_buf *b, uint32_t v);
void pp_ipc_buf_u64(pp_ipc_buf *b, uint64_t v);
/* A protocol string: uint32 count of UTF-16 units including the NUL, then
 * UTF-16LE. NULL or "" is written as count 0. s is UTF-8. */
void pp_ipc_buf_string(pp_ipc_buf *b, const char *s);
void pp_ipc_buf_free(pp_ipc_buf *b);

/* One received message. payload is owned by the message. */
typedef struct pp_ipc_msg {
    uint8_t command_set, command_id;
    uint8_t *payload;
    size_t len;
} pp_ipc_msg;

/* Send header + payload (payload may be NULL when len is 0). */
int pp_ipc_send(int fd, uint8_t set, uint8_t id, const void *payload, size_t len, pp_error *err);
/* Receive one whole message within timeout_ms. A server error reply is
 * returned as a message (set 0xFF, id 0xFF); see pp_ipc_reply_check. */
int pp_ipc_recv(int fd, pp_ipc_msg *msg, int timeout_ms, pp_error *err);
/* pp_ipc_recv for a command the runtime answers only once its work is done
 * (a heap dump's CollectTracing: after the induced GC has walked the heap):
 * the idle_ms timeout counts from the last time alive(user) answered
 * nonzero (asked about once a second; NULL = never), up to cap_ms in all
 * (< 0 = no cap). */
int pp_ipc_recv_watch(int fd, pp_ipc_msg *msg, int idle_ms, int (*alive)(void *user), void *user,
                      int cap_ms, pp_error *err);
/* The message of a reply that did not come in time starts with this;
 * pp_ipc_no_reply tells such an error from the others (the caller names
 * the step and says what to do). */
#define PP_IPC_NO_REPLY "diagnostics IPC: the runtime did not answer"
int pp_ipc_no_reply(const pp_error *err);
/* The wait for a command's reply: PERFPIPE_IPC_TIMEOUT (seconds, > 0, an
 * optional 's') when set and valid, else dflt_ms. */
int pp_ipc_command_timeout_ms(int dflt_ms);
void pp_ipc_msg_free(pp_ipc_msg *msg);
/* PP_OK for an OK reply; for an error reply PP_EUNSUPPORTED when the
 * HRESULT is UNKNOWN_COMMAND, else PP_EIO, with what names the command in
 * the message. *hresult (may be NULL) gets the HRESULT or 0. */
int pp_ipc_reply_check(const pp_ipc_msg *msg, const char *what, uint32_t *hresult, pp_error *err);

/* Bounded reading of a reply payload. */
typedef struct pp_ipc_cursor {
    const uint8_t *p;
    size_t len, at;
    int failed; /* read past the end or a bad string */
} pp_ipc_cursor;

uint32_t pp_ipc_get_u32(pp_ipc_cursor *c);
uint64_t pp_ipc_get_u64(pp_ipc_cursor *c);
void pp_ipc_get_bytes(pp_ipc_cursor *c, void *out, size_t n);
/* A protocol string as newly allocated UTF-8 ("" for count 0), or NULL
 * when malformed or out of memory (c->failed set). */
char *pp_ipc_get_string(pp_ipc_cursor *c);

/* ---- endpoints (transport.c) ---- */

/* Set (from a signal handler) to make a wait for a runtime in listen mode
 * give up when a signal interrupts it. */
extern volatile sig_atomic_t pp_ipc_cancel;

/* Where to reach one runtime. */
typedef enum pp_ipc_mode {
    PP_IPC_CONNECT = 0, /* connect to the runtime's socket at path */
    PP_IPC_LISTEN = 1,  /* the runtime connects to our socket at path */
} pp_ipc_mode;

typedef struct pp_ipc_endpoint {
    pp_ipc_mode mode;
    char path[4096];    /* the socket */
    int listen_fd;      /* LISTEN: our listening socket, else -1 */
    uint64_t pid;       /* target pid as we see it (0 = unknown) */
    uint8_t cookie[16]; /* LISTEN: from the runtime's advertisement */
    int advertised;     /* LISTEN: a runtime has connected once */
    int pending_fd;     /* LISTEN: an accepted, unused connection, or -1 */
} pp_ipc_endpoint;

/* Find the diagnostics socket of process pid, looking in its own $TMPDIR
 * (from /proc/PID/environ), then /tmp, through /proc/PID/root with its
 * innermost namespace pid; the newest socket wins. PP_ENOTFOUND when the
 * process has none (not .NET, diagnostics disabled, or exited). */
int pp_ipc_find_socket(uint64_t pid, char *path, size_t size, pp_error *err);

/* An endpoint for pid (CONNECT to its socket). */
int pp_ipc_endpoint_pid(pp_ipc_endpoint *ep, uint64_t pid, pp_error *err);
/* An endpoint connecting to the socket at path. */
int pp_ipc_endpoint_connect(pp_ipc_endpoint *ep, const char *path, pp_error *err);
/* Listen at path for runtimes started with DOTNET_DiagnosticPorts=path.
 * Refuses to replace anything but a stale socket at path. */
int pp_ipc_endpoint_listen(pp_ipc_endpoint *ep, const char *path, pp_error *err);
/* LISTEN: wait up to timeout_ms for the first runtime to connect and
 * advertise (fills pid and cookie). No-op for CONNECT. */
int pp_ipc_endpoint_wait(pp_ipc_endpoint *ep, int timeout_ms, pp_error *err);
/* A fresh connection for one command (CONNECT: connect; LISTEN: the
 * runtime's next connection, within timeout_ms). Caller closes *fd. */
int pp_ipc_endpoint_open(pp_ipc_endpoint *ep, int timeout_ms, int *fd, pp_error *err);
/* Close the listening socket (and unlink it) and any pending connection. */
void pp_ipc_endpoint_close(pp_ipc_endpoint *ep);

/* One command, one reply: open a connection, send, receive. */
int pp_ipc_command(pp_ipc_endpoint *ep, uint8_t set, uint8_t id, const pp_ipc_buf *payload,
                   int timeout_ms, pp_ipc_msg *reply, pp_error *err);

/* ---- process commands (process.c) ---- */

typedef struct pp_ipc_process_info {
    uint64_t pid; /* as the runtime sees it (its namespace) */
    uint8_t cookie[16];
    char *command_line;        /* the runtime's view of its command line */
    char *os, *arch;           /* "Linux", "x64"... */
    char *entrypoint_assembly; /* ProcessInfo2; NULL from older runtimes */
    char *clr_version;         /* ProcessInfo2, e.g. "10.0.12+..." */
} pp_ipc_process_info;

/* ProcessInfo2, falling back to ProcessInfo on runtimes that lack it. */
int pp_ipc_process_info_get(pp_ipc_endpoint *ep, int timeout_ms, pp_ipc_process_info *out,
                            pp_error *err);
void pp_ipc_process_info_free(pp_ipc_process_info *info);
/* Let a runtime started suspended (DOTNET_DiagnosticPorts ...,suspend, the
 * default for a listen port) run its Main. */
int pp_ipc_resume_runtime(pp_ipc_endpoint *ep, int timeout_ms, pp_error *err);

/* ---- tracing sessions (session.c) ---- */

/* One EventPipe provider. Strings are borrowed. */
typedef struct pp_ipc_provider {
    const char *name;
    uint64_t keywords;
    uint32_t level;        /* 0 LogAlways .. 5 Verbose */
    const char *arguments; /* "k=v;k2=v2" filter arguments, or NULL */
} pp_ipc_provider;

typedef struct pp_ipc_session_config {
    uint32_t buffer_mb;       /* runtime's circular buffer; 0 = 256 */
    uint64_t rundown_keyword; /* 0 = no rundown; PP_IPC_DEFAULT_RUNDOWN_KEYWORD */
    int request_stackwalk;    /* 1 = stacks with events (dotnet-trace's default) */
    size_t nproviders;
    const pp_ipc_provider *providers;
    /* The start's reply: when alive is set, timeout_ms counts from the
     * last time alive(alive_user) answered nonzero, up to alive_cap_ms in
     * all (pp_ipc_recv_watch). */
    int (*alive)(void *user);
    void *alive_user;
    int alive_cap_ms;
} pp_ipc_session_config;

typedef struct pp_ipc_session pp_ipc_session;

/* Start a session; the nettrace stream then arrives on the session's
 * connection. Chooses CollectTracing2 (default rundown, stacks),
 * CollectTracing3 (no stacks) or CollectTracing4 (other rundown keyword),
 * falling back to CollectTracing2 when the runtime does not know 4. */
int pp_ipc_session_start(pp_ipc_endpoint *ep, const pp_ipc_session_config *cfg, int timeout_ms,
                         pp_ipc_session **out, pp_error *err);
uint64_t pp_ipc_session_id(const pp_ipc_session *s);
/* The streaming connection: read the nettrace bytes from it (blocking
 * read() or poll()). End of stream = the runtime finished the session.
 * Owned by the session. */
int pp_ipc_session_fd(const pp_ipc_session *s);
/* Ask the runtime to stop (StopTracing on a new connection). The stream
 * then carries the rundown and ends. Safe to call from another thread
 * than the reader; a second call is a no-op. */
int pp_ipc_session_stop(pp_ipc_session *s, int timeout_ms, pp_error *err);
/* Close the streaming connection (the runtime ends the session if it was
 * not stopped) and free. */
void pp_ipc_session_close(pp_ipc_session *s);

#endif
