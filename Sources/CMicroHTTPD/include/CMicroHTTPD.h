// CMicroHTTPD: GNU libmicrohttpd loaded at run time, behind a small request/response API for
// `hap studio`'s local web server.
//
// hap does not link libmicrohttpd, and building needs no header of it: the functions hap calls
// are declared in cmicrohttpd.c with libmicrohttpd's documented C prototypes (microhttpd.h of
// 0.9.x) and resolved with dlsym from "libmicrohttpd.so.12" (Debian's libmicrohttpd12).
//
// The server listens on sockets this file binds itself: 127.0.0.1:PORT and [::1]:PORT (never
// any other address), handed to one daemon each (MHD_OPTION_LISTEN_SOCKET), each with a thread
// per connection, a connection limit and an idle timeout; libmicrohttpd owns (and closes) those
// sockets once handed over. A request's body is gathered here up to a limit: a request that
// announces a larger body (Content-Length) is answered 413 at once, its body unread (with
// "Expect: 100-continue", no 100 is sent), and the connection is then closed; a body that grows
// past the limit without announcing its size (chunked) has its connection closed at once, with
// no answer (libmicrohttpd 0.9 can answer only before a body or after all of it). Only when the
// whole request is in is the handler called, once, on the connection's own thread.
#ifndef HAP_CMICROHTTPD_H
#define HAP_CMICROHTTPD_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct hap_http_server hap_http_server;
/// One request, valid only during the handler's call.
typedef struct hap_http_request hap_http_request;

/// Called once per complete request on the connection's thread; it must answer with one
/// hap_http_respond or hap_http_respond_stream call and return 0 (returning -1, or not
/// answering, closes the connection).
typedef int (*hap_http_handler)(void *context, hap_http_request *request);

/// A stream's next bytes (Server-Sent Events): fills at most `capacity` bytes of `buffer`,
/// blocking as long as it likes on its own thread, and returns how many (at least 1), or -1
/// to end the stream (the connection is then closed). A client that went away is noticed only
/// when the bytes returned next are written; hap_http_stop waits for a blocked reader to return.
typedef ssize_t (*hap_http_stream_reader)(void *stream, char *buffer, size_t capacity);
/// Called once when the stream ends, however it ends (reader's -1, the client gone, the
/// server stopped).
typedef void (*hap_http_stream_free)(void *stream);

/// What the server is started with.
typedef struct {
  /// 0: a free port the kernel picks (the IPv6 socket then takes the same port).
  uint16_t port;
  /// Also listen on [::1]; when the machine has no IPv6 loopback, only 127.0.0.1 is used.
  int ipv6;
  /// The largest request body read; a larger one is answered 413 (a chunked one: see above).
  size_t max_body;
  /// Connections at once per address (MHD_OPTION_CONNECTION_LIMIT); at least 1.
  unsigned max_connections;
  /// Seconds an idle connection is kept (MHD_OPTION_CONNECTION_TIMEOUT).
  unsigned idle_timeout;
  hap_http_handler handler;
  void *context;
} hap_http_settings;

/// Loads libmicrohttpd (once; never unloaded). Returns 0, or -1 with a one-line reason in
/// `message` (dlopen's, or the missing symbol's name).
int hap_http_load(char *message, size_t size);

/// Loads libmicrohttpd if needed, binds, listens and starts. Returns the server, or NULL with a
/// one-line reason in `message` (e.g. "127.0.0.1:8080: Address already in use").
hap_http_server *hap_http_start(const hap_http_settings *settings, char *message, size_t size);
/// The port listened on.
uint16_t hap_http_port(const hap_http_server *server);
/// Whether [::1] is listened on too.
int hap_http_has_ipv6(const hap_http_server *server);
/// Stops accepting, closes the listening sockets and every connection (ending streams, whose
/// free functions are called) and frees the server. It waits for every handler and stream reader
/// to return: a reader blocked waiting for events must be made to return (e.g. -1) before or
/// while stopping, or this never returns. Must not be called from a handler or a stream reader.
void hap_http_stop(hap_http_server *server);

/// "GET", "POST", ...
const char *hap_http_method(const hap_http_request *request);
/// The path as sent, before the query, percent-decoded by libmicrohttpd (e.g. "/api/pattern").
const char *hap_http_path(const hap_http_request *request);
/// A request header's value (case-insensitive name), or NULL.
const char *hap_http_header(const hap_http_request *request, const char *name);
/// A cookie's value, or NULL.
const char *hap_http_cookie(const hap_http_request *request, const char *name);
/// A query argument's value (percent-decoded), or NULL; "" for a name without a value.
const char *hap_http_argument(const hap_http_request *request, const char *name);
/// Whether a header, cookie or argument looked up so far held a NUL byte, which its C string
/// leaves out (the request is then refused, not read as the shorter value).
int hap_http_nul_seen(const hap_http_request *request);
/// The body (never NULL; `*size` 0 when there is none).
const uint8_t *hap_http_body(const hap_http_request *request, size_t *size);
/// The peer's address as text ("127.0.0.1", "::1").
const char *hap_http_peer(const hap_http_request *request);

/// Answers with `status`, a body copied here and `headers`: `header_count` name/value pairs in
/// `headers[2k]`, `headers[2k+1]` (Content-Type among them when wanted; a Content-Length is
/// skipped, libmicrohttpd sets it). Returns 0, or -1 (e.g. when the request was answered already).
int hap_http_respond(hap_http_request *request, unsigned status, const char *const *headers, size_t header_count,
                     const void *body, size_t size);
/// Answers with `status`, `headers` and a body of unknown length produced by `reader`
/// (chunked), until it returns -1 or the client goes away; `free_stream(stream)` is then
/// called once. Returns 0, or -1 (then `free_stream` has been called already).
int hap_http_respond_stream(hap_http_request *request, unsigned status, const char *const *headers,
                            size_t header_count, hap_http_stream_reader reader, void *stream,
                            hap_http_stream_free free_stream);

#ifdef __cplusplus
}
#endif

#endif
