// GNU libmicrohttpd through dlopen/dlsym; the prototypes, enumerations and option constants below
// are libmicrohttpd's own (microhttpd.h of 0.9.75, unchanged in 1.0), declared here so that no
// development package is needed to build.
#include "CMicroHTTPD.h"

#include <CHapLibrary.h>
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/socket.h>
#include <unistd.h>

// ---- From microhttpd.h: only what this file uses. ----

struct MHD_Daemon;
struct MHD_Connection;
struct MHD_Response;

typedef int MHD_socket;  // POSIX

enum MHD_Result { MHD_NO = 0, MHD_YES = 1 };

enum {  // enum MHD_FLAG
  MHD_USE_THREAD_PER_CONNECTION = 4,
  MHD_USE_INTERNAL_POLLING_THREAD = 8,
  MHD_USE_IPv6 = 16,
};

enum {  // enum MHD_OPTION
  MHD_OPTION_END = 0,
  MHD_OPTION_CONNECTION_LIMIT = 2,    // followed by an unsigned int
  MHD_OPTION_CONNECTION_TIMEOUT = 3,  // followed by an unsigned int (seconds)
  MHD_OPTION_NOTIFY_COMPLETED = 4,    // followed by an MHD_RequestCompletedCallback and its void *
  MHD_OPTION_LISTEN_SOCKET = 12,      // followed by an MHD_socket
  MHD_OPTION_EXTERNAL_LOGGER = 13,    // followed by an MHD_LogCallback and its void *
};

enum MHD_ValueKind { MHD_HEADER_KIND = 1, MHD_COOKIE_KIND = 2, MHD_GET_ARGUMENT_KIND = 8 };
enum MHD_ConnectionInfoType { MHD_CONNECTION_INFO_CLIENT_ADDRESS = 2 };
enum MHD_ResponseMemoryMode { MHD_RESPMEM_MUST_COPY = 2 };
enum MHD_RequestTerminationCode { MHD_REQUEST_TERMINATED_COMPLETED_OK = 0 };

// The member used here of union MHD_ConnectionInfo (every member of a union starts at its start).
union MHD_ConnectionInfo {
  struct sockaddr *client_addr;
};

#define MHD_SIZE_UNKNOWN UINT64_MAX
#define MHD_CONTENT_READER_END_OF_STREAM ((ssize_t)-1)

typedef enum MHD_Result (*MHD_AcceptPolicyCallback)(void *cls, const struct sockaddr *addr, socklen_t addrlen);
typedef enum MHD_Result (*MHD_AccessHandlerCallback)(void *cls, struct MHD_Connection *connection,
                                                     const char *url, const char *method, const char *version,
                                                     const char *upload_data, size_t *upload_data_size,
                                                     void **con_cls);
typedef void (*MHD_RequestCompletedCallback)(void *cls, struct MHD_Connection *connection, void **con_cls,
                                             enum MHD_RequestTerminationCode toe);
typedef ssize_t (*MHD_ContentReaderCallback)(void *cls, uint64_t pos, char *buf, size_t max);
typedef void (*MHD_ContentReaderFreeCallback)(void *cls);
typedef void (*MHD_LogCallback)(void *cls, const char *fm, va_list ap);

// ---- The functions, resolved once by hap_http_load. ----

static struct {
  struct MHD_Daemon *(*start_daemon)(unsigned int flags, uint16_t port, MHD_AcceptPolicyCallback apc,
                                     void *apc_cls, MHD_AccessHandlerCallback dh, void *dh_cls, ...);
  void (*stop_daemon)(struct MHD_Daemon *daemon);
  enum MHD_Result (*lookup_connection_value_n)(struct MHD_Connection *connection, enum MHD_ValueKind kind,
                                               const char *key, size_t key_size, const char **value_ptr,
                                               size_t *value_size_ptr);
  const union MHD_ConnectionInfo *(*get_connection_info)(struct MHD_Connection *connection,
                                                         enum MHD_ConnectionInfoType info_type, ...);
  struct MHD_Response *(*create_response_from_buffer)(size_t size, void *buffer, enum MHD_ResponseMemoryMode mode);
  struct MHD_Response *(*create_response_from_callback)(uint64_t size, size_t block_size,
                                                        MHD_ContentReaderCallback crc, void *crc_cls,
                                                        MHD_ContentReaderFreeCallback crfc);
  enum MHD_Result (*add_response_header)(struct MHD_Response *response, const char *header, const char *content);
  enum MHD_Result (*queue_response)(struct MHD_Connection *connection, unsigned int status_code,
                                    struct MHD_Response *response);
  void (*destroy_response)(struct MHD_Response *response);
} mhd;

static const hap_library_symbol symbols[] = {
    {"MHD_start_daemon", (void **)&mhd.start_daemon, 0},
    {"MHD_stop_daemon", (void **)&mhd.stop_daemon, 0},
    {"MHD_lookup_connection_value_n", (void **)&mhd.lookup_connection_value_n, 0},  // since 0.9.63
    {"MHD_get_connection_info", (void **)&mhd.get_connection_info, 0},
    {"MHD_create_response_from_buffer", (void **)&mhd.create_response_from_buffer, 0},
    {"MHD_create_response_from_callback", (void **)&mhd.create_response_from_callback, 0},
    {"MHD_add_response_header", (void **)&mhd.add_response_header, 0},
    {"MHD_queue_response", (void **)&mhd.queue_response, 0},
    {"MHD_destroy_response", (void **)&mhd.destroy_response, 0},
};
static hap_library library = HAP_LIBRARY_INITIALIZER;

int hap_http_load(char *message, size_t size) {
  return hap_library_load(&library, "libmicrohttpd.so.12", symbols, HAP_LIBRARY_COUNT(symbols), NULL, NULL, message,
                          size);
}

// ---- Servers and requests. ----

struct hap_http_server {
  hap_http_settings settings;
  uint16_t port;
  struct MHD_Daemon *daemons[2];  // 127.0.0.1's, then [::1]'s or NULL
};

// One request's state (MHD's *con_cls), from its first access-handler call to its completion.
struct hap_http_request {
  struct MHD_Connection *connection;
  const struct hap_http_server *server;
  const char *method;  // MHD's, valid for the request's life
  const char *path;
  uint8_t *body;  // NULL until the first byte
  size_t size;
  size_t capacity;
  int handled;   // the handler has been called
  int answered;  // a response has been queued
  int nul_seen;  // a value looked up held a NUL byte (cut short in its C string)
  char peer[INET6_ADDRSTRLEN];
};

// A streamed response's reader and its owner's state (MHD's crc_cls).
struct hap_http_stream {
  hap_http_stream_reader reader;
  void *stream;
  hap_http_stream_free free_stream;
};

static void ignore_log(void *cls, const char *format, va_list arguments) {
  (void)cls;
  (void)format;
  (void)arguments;
}

// ---- Listening sockets. ----

// A socket bound to `address` and listening, or -1 with errno set.
static int listen_on(const struct sockaddr *address, socklen_t length) {
  int fd = socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int on = 1;
  if (setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &on, sizeof on) != 0 ||
      (address->sa_family == AF_INET6 && setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &on, sizeof on) != 0) ||
      bind(fd, address, length) != 0 || listen(fd, 16) != 0) {
    int error = errno;
    close(fd);
    errno = error;
    return -1;
  }
  return fd;
}

// Listens on 127.0.0.1:`port` (0: the kernel's pick, stored in *port): the socket, or -1 with
// the reason in `message`.
static int listen_ipv4(uint16_t *port, char *message, size_t size) {
  struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons(*port)};
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  int fd = listen_on((const struct sockaddr *)&address, sizeof address);
  socklen_t length = sizeof address;
  if (fd >= 0 && getsockname(fd, (struct sockaddr *)&address, &length) != 0) {
    int error = errno;
    close(fd);
    errno = error;
    fd = -1;
  }
  if (fd < 0) {
    snprintf(message, size, "127.0.0.1:%u: %s", (unsigned)*port, strerror(errno));
    return -1;
  }
  *port = ntohs(address.sin_port);
  return fd;
}

// Binds both sockets: fds[0] on 127.0.0.1, fds[1] on [::1] (-1 when not wanted or the machine
// has no IPv6 loopback). With port 0, a port the kernel picks that is taken on [::1] only is
// tried again: the 127.0.0.1 socket holding it stays open meanwhile, so that the next pick differs.
// 0, or -1 with the reason in `message` (nothing left open).
static int open_sockets(const hap_http_settings *settings, int fds[2], uint16_t *port, char *message,
                        size_t size) {
  int held[8];
  size_t held_count = 0;
  int result = -1;
  for (;;) {
    *port = settings->port;
    fds[0] = listen_ipv4(port, message, size);
    fds[1] = -1;
    if (fds[0] < 0) break;
    if (!settings->ipv6) {
      result = 0;
      break;
    }
    struct sockaddr_in6 address = {.sin6_family = AF_INET6, .sin6_port = htons(*port), .sin6_addr = in6addr_loopback};
    fds[1] = listen_on((const struct sockaddr *)&address, sizeof address);
    if (fds[1] >= 0 || errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT) {
      result = 0;
      break;
    }
    int error = errno;
    if (error == EADDRINUSE && settings->port == 0 && held_count < sizeof held / sizeof held[0]) {
      held[held_count++] = fds[0];
      continue;
    }
    close(fds[0]);
    snprintf(message, size, "[::1]:%u: %s", (unsigned)*port, strerror(error));
    break;
  }
  while (held_count > 0) close(held[--held_count]);
  return result;
}

// ---- Responses. ----

// Adds `headers` to `response` (Content-Length is skipped: libmicrohttpd sets it), queues it and
// drops this reference to it (so a response not queued is destroyed here). 0, or -1.
static int queue(hap_http_request *request, unsigned status, const char *const *headers, size_t header_count,
                 struct MHD_Response *response) {
  int ok = 1;
  for (size_t i = 0; ok && i < header_count; i++) {
    const char *name = headers[2 * i], *value = headers[2 * i + 1];
    if (strcasecmp(name, "Content-Length") == 0) continue;
    ok = mhd.add_response_header(response, name, value) == MHD_YES;
  }
  if (ok) ok = mhd.queue_response(request->connection, status, response) == MHD_YES;
  mhd.destroy_response(response);
  if (!ok) return -1;
  request->answered = 1;
  return 0;
}

int hap_http_respond(hap_http_request *request, unsigned status, const char *const *headers, size_t header_count,
                     const void *body, size_t size) {
  if (request->answered) return -1;
  struct MHD_Response *response =
      mhd.create_response_from_buffer(size, (void *)(body ? body : ""), MHD_RESPMEM_MUST_COPY);
  if (!response) return -1;
  return queue(request, status, headers, header_count, response);
}

// MHD's content reader: the user's bytes, or the end of the stream at -1 (or any count < 1,
// which the contract rules out; 0 would make MHD poll the reader in a busy loop).
static ssize_t read_stream(void *cls, uint64_t position, char *buffer, size_t capacity) {
  (void)position;
  struct hap_http_stream *stream = cls;
  ssize_t count = stream->reader(stream->stream, buffer, capacity);
  return count > 0 ? count : MHD_CONTENT_READER_END_OF_STREAM;
}

// MHD's free callback: called once, when the response's last reference is dropped (after the
// stream ended, the connection closed or the daemon stopped, or by queue() if never queued).
static void end_stream(void *cls) {
  struct hap_http_stream *stream = cls;
  stream->free_stream(stream->stream);
  free(stream);
}

int hap_http_respond_stream(hap_http_request *request, unsigned status, const char *const *headers,
                            size_t header_count, hap_http_stream_reader reader, void *stream,
                            hap_http_stream_free free_stream) {
  struct hap_http_stream *state = request->answered ? NULL : malloc(sizeof *state);
  struct MHD_Response *response = NULL;
  if (state) {
    *state = (struct hap_http_stream){.reader = reader, .stream = stream, .free_stream = free_stream};
    response = mhd.create_response_from_callback(MHD_SIZE_UNKNOWN, 4096, read_stream, state, end_stream);
  }
  if (!response) {  // end_stream will not be called
    free(state);
    free_stream(stream);
    return -1;
  }
  return queue(request, status, headers, header_count, response);  // end_stream runs once, in any case
}

// Answers 413 before the body is read; libmicrohttpd then closes the connection.
static enum MHD_Result refuse_body(hap_http_request *request) {
  char body[96];
  int length = snprintf(body, sizeof body, "{\"error\":\"the request body is larger than %zu bytes\"}",
                        request->server->settings.max_body);
  const char *headers[] = {"Content-Type", "application/json", "Connection", "close"};
  return hap_http_respond(request, 413, headers, 2, body, (size_t)length) == 0 ? MHD_YES : MHD_NO;
}

// ---- Request handling. ----

// Whether a Content-Length value announces more than `limit` bytes (without overflowing).
static int announces_more(const char *value, size_t limit) {
  size_t total = 0;
  for (; *value >= '0' && *value <= '9'; value++) {
    size_t digit = (size_t)(*value - '0');
    if (digit > limit || total > (limit - digit) / 10) return 1;
    total = total * 10 + digit;
  }
  return 0;
}

// Appends upload bytes to the body: 0, or -1 when the body would pass max_body (or memory ran out).
static int append_body(hap_http_request *request, const char *data, size_t size) {
  size_t limit = request->server->settings.max_body;
  if (size > limit - request->size) return -1;
  size_t needed = request->size + size;
  if (needed > request->capacity) {
    size_t capacity = request->capacity ? request->capacity : 4096;
    while (capacity < needed) capacity = capacity > SIZE_MAX / 2 ? SIZE_MAX : capacity * 2;
    if (capacity > limit) capacity = limit;
    uint8_t *body = realloc(request->body, capacity);
    if (!body) return -1;
    request->body = body;
    request->capacity = capacity;
  }
  memcpy(request->body + request->size, data, size);
  request->size = needed;
  return 0;
}

// Fills request->peer with the client's address as text ("" when unknown).
static void read_peer(hap_http_request *request) {
  const union MHD_ConnectionInfo *info =
      mhd.get_connection_info(request->connection, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
  const struct sockaddr *address = info ? info->client_addr : NULL;
  request->peer[0] = '\0';
  if (address && address->sa_family == AF_INET)
    inet_ntop(AF_INET, &((const struct sockaddr_in *)address)->sin_addr, request->peer, sizeof request->peer);
  else if (address && address->sa_family == AF_INET6)
    inet_ntop(AF_INET6, &((const struct sockaddr_in6 *)address)->sin6_addr, request->peer, sizeof request->peer);
}

// The first call, once the headers are in: the request's state, and a 413 at once when the body
// announced is too large.
static enum MHD_Result begin_request(const hap_http_server *server, struct MHD_Connection *connection,
                                     const char *url, const char *method, void **con_cls) {
  hap_http_request *request = calloc(1, sizeof *request);
  if (!request) return MHD_NO;
  *request = (hap_http_request){.connection = connection, .server = server, .method = method, .path = url};
  *con_cls = request;  // freed by on_completed
  const char *length = hap_http_header(request, "Content-Length");
  if (length && announces_more(length, server->settings.max_body)) return refuse_body(request);
  return MHD_YES;
}

// MHD's access handler: called after the headers, for each piece of the body, and once the
// whole request is in (*upload_data_size 0); the user's handler is called then, once.
static enum MHD_Result on_request(void *cls, struct MHD_Connection *connection, const char *url,
                                  const char *method, const char *version, const char *upload_data,
                                  size_t *upload_data_size, void **con_cls) {
  (void)version;
  const hap_http_server *server = cls;
  hap_http_request *request = *con_cls;
  if (!request) return begin_request(server, connection, url, method, con_cls);
  if (*upload_data_size != 0) {
    // libmicrohttpd 0.9 cannot queue a response while a body is being received (only before it
    // or after all of it), so a body that grows past the limit closes the connection instead.
    if (append_body(request, upload_data, *upload_data_size) != 0) return MHD_NO;
    *upload_data_size = 0;
    return MHD_YES;
  }
  if (request->handled) return MHD_NO;  // the handler did not answer; MHD asks again
  request->handled = 1;
  read_peer(request);
  int result = server->settings.handler(server->settings.context, request);
  return result == 0 && request->answered ? MHD_YES : MHD_NO;
}

// MHD's request-completed callback: frees the request's state.
static void on_completed(void *cls, struct MHD_Connection *connection, void **con_cls,
                         enum MHD_RequestTerminationCode toe) {
  (void)cls;
  (void)connection;
  (void)toe;
  hap_http_request *request = *con_cls;
  if (!request) return;
  free(request->body);
  free(request);
  *con_cls = NULL;
}

// ---- Starting and stopping. ----

// A daemon serving the listening socket `fd`: the daemon, or NULL. libmicrohttpd owns `fd` from
// this call on and closes it, in MHD_stop_daemon or when the start fails (0.9.75 leaves it open
// only when an option is rejected, which these fixed options never are; 1.0 closes it always),
// so it is never closed here: a leak in that impossible case beats a double close.
static struct MHD_Daemon *start_daemon(hap_http_server *server, int fd, int ipv6) {
  unsigned flags = MHD_USE_THREAD_PER_CONNECTION | MHD_USE_INTERNAL_POLLING_THREAD | (ipv6 ? MHD_USE_IPv6 : 0);
  // No MHD_USE_ERROR_LOG: libmicrohttpd writes nothing to stderr (the no-op logger is extra care).
  return mhd.start_daemon(flags, server->port, NULL, NULL, on_request, server,
                          MHD_OPTION_EXTERNAL_LOGGER, (MHD_LogCallback)ignore_log, (void *)NULL,
                          MHD_OPTION_LISTEN_SOCKET, (MHD_socket)fd,
                          MHD_OPTION_CONNECTION_LIMIT, (unsigned int)server->settings.max_connections,
                          MHD_OPTION_CONNECTION_TIMEOUT, (unsigned int)server->settings.idle_timeout,
                          MHD_OPTION_NOTIFY_COMPLETED, (MHD_RequestCompletedCallback)on_completed, (void *)NULL,
                          MHD_OPTION_END);
}

hap_http_server *hap_http_start(const hap_http_settings *settings, char *message, size_t size) {
  if (hap_http_load(message, size) != 0) return NULL;
  if (!settings->handler || settings->max_connections == 0) {
    snprintf(message, size, "the server needs a handler and max_connections of at least 1");
    return NULL;
  }
  hap_http_server *server = calloc(1, sizeof *server);
  int fds[2];
  if (!server) {
    snprintf(message, size, "out of memory");
    return NULL;
  }
  server->settings = *settings;
  if (open_sockets(settings, fds, &server->port, message, size) != 0) {
    free(server);
    return NULL;
  }
  server->daemons[0] = start_daemon(server, fds[0], 0);
  if (!server->daemons[0]) {
    if (fds[1] >= 0) close(fds[1]);  // never handed over
    snprintf(message, size, "127.0.0.1:%u: libmicrohttpd could not start", (unsigned)server->port);
  } else if (fds[1] >= 0 && !(server->daemons[1] = start_daemon(server, fds[1], 1))) {
    mhd.stop_daemon(server->daemons[0]);
    server->daemons[0] = NULL;
    snprintf(message, size, "[::1]:%u: libmicrohttpd could not start", (unsigned)server->port);
  }
  if (!server->daemons[0]) {
    free(server);
    return NULL;
  }
  return server;
}

uint16_t hap_http_port(const hap_http_server *server) { return server->port; }

int hap_http_has_ipv6(const hap_http_server *server) { return server->daemons[1] != NULL; }

void hap_http_stop(hap_http_server *server) {
  if (!server) return;
  // MHD_stop_daemon closes the listening socket it was handed and every connection, and joins
  // their threads (hence waits for handlers and stream readers to return).
  for (int i = 1; i >= 0; i--)
    if (server->daemons[i]) mhd.stop_daemon(server->daemons[i]);
  free(server);
}

// ---- Reading a request. ----

// A value of `kind` named `name`: "" when present without a value, NULL when absent.
static const char *lookup(const hap_http_request *request, enum MHD_ValueKind kind, const char *name) {
  const char *value = NULL;
  size_t size = 0;
  if (mhd.lookup_connection_value_n(request->connection, kind, name, strlen(name), &value, &size) != MHD_YES)
    return NULL;
  if (value && strlen(value) != size) ((hap_http_request *)request)->nul_seen = 1;
  return value ? value : "";
}

int hap_http_nul_seen(const hap_http_request *request) { return request->nul_seen; }

const char *hap_http_method(const hap_http_request *request) { return request->method; }

const char *hap_http_path(const hap_http_request *request) { return request->path; }

const char *hap_http_header(const hap_http_request *request, const char *name) {
  return lookup(request, MHD_HEADER_KIND, name);
}

const char *hap_http_cookie(const hap_http_request *request, const char *name) {
  return lookup(request, MHD_COOKIE_KIND, name);
}

const char *hap_http_argument(const hap_http_request *request, const char *name) {
  return lookup(request, MHD_GET_ARGUMENT_KIND, name);
}

const uint8_t *hap_http_body(const hap_http_request *request, size_t *size) {
  *size = request->size;
  return request->body ? request->body : (const uint8_t *)"";
}

const char *hap_http_peer(const hap_http_request *request) { return request->peer; }
