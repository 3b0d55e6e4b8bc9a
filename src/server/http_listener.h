// The server's HTTP/1.1 front on epoll: one thread (the one in serve()) owns the listening
// socket and every connection, reads and parses requests without blocking, enforces every
// deadline and limit, and writes answers; slow handlers run on a pool of worker threads.
//
// A connection waits for the first byte of a request at most idle_timeout_ms (a new one, and a
// kept-alive one between requests), then has header_timeout_ms for the request line and fields
// and body_timeout_ms for the body: totals from the first byte, not renewed by each byte, so a
// client sending one byte every few seconds is cut off (408) like one sending nothing. An answer
// must be taken within write_timeout_ms. Limits on the header and the body (server/http_parser.h)
// hold while reading: a body over the limit is refused when its length or the chunk that passes
// it arrives, never read whole. Connections are capped in total (503) and per client address
// (429): the connection is answered and closed at once.
//
// A complete request goes to handlers.quick on the loop thread (cheap routes: health, metrics,
// refusals; it must not block), and when quick declines, to handlers.work on a worker thread
// (translation: it may block until the decoder answers); reading never happens on a worker. One
// request per connection is handled at a time: pipelined requests wait in order. After an answer
// with "Connection: close" (and after an error) the server shuts its side and discards what the
// client still sends for a short while, so that the client reads the answer rather than a reset.
//
// WebSocket. When `quick` answers 101 with `upgrade` set (server/websocket_handshake.h), the
// connection speaks WebSocket from the next byte on (server/websocket_session.h): each text
// message goes to handlers.message on a worker, one at a time per connection, while the loop
// keeps reading (pings are answered during a long translation). Such a connection may wait
// websocket_idle_timeout_ms between messages; a message, from its first byte, has
// body_timeout_ms to arrive (then close code 1008), and a reply write_timeout_ms to be taken.
// On stop() an idle WebSocket is closed with 1001 at once, a busy one after its reply.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "server/http_message.h"
#include "server/http_parser.h"

namespace realmt::server {

class Registry;

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 0;       // 0: a free port (bind() says which)
  int threads = 128;  // worker threads running handlers.work
  HttpLimits limits;
  int64_t idle_timeout_ms = 5000;        // waiting for the first byte of a request
  int64_t header_timeout_ms = 10000;     // first byte to the end of the header fields
  int64_t body_timeout_ms = 30000;       // end of the header fields to the end of the body
  int64_t write_timeout_ms = 10000;      // an answer to be taken by the client
  int max_connections = 10000;           // open connections at most (503 beyond)
  int max_connections_per_client = 256;  // open connections of one client address (429 beyond)
  int64_t max_message_bytes = 1 << 20;   // a WebSocket message (all fragments; 1009 beyond)
  int64_t websocket_idle_timeout_ms = 300000;  // a WebSocket waiting for its next message
  void validate() const;
};

// What handlers.message answers: the reply text, or (close_code != 0) a close frame instead.
struct WsReply {
  std::string text;
  int close_code = 0;
  std::string close_reason;
};

struct HttpHandlers {
  // On the loop thread: the answer now, or nullopt to pass the request to `work`.
  std::function<std::optional<HttpResponse>(const HttpRequest&)> quick;
  // On a worker thread; an exception becomes a 500 (through `refuse`).
  std::function<HttpResponse(const HttpRequest&)> work;
  // On a worker thread: the reply to one text message of an upgraded connection; `request` is
  // its handshake. An exception closes the connection with 1011.
  std::function<WsReply(const HttpRequest& request, const std::string& message)> message;
  // The answer to a request refused by the front itself (parser error, timeout, connection cap,
  // handler exception). `partial` holds what was parsed (its path may be empty).
  std::function<HttpResponse(int status, const std::string& reason, const HttpRequest& partial)>
      refuse;
};

class HttpListener {
 public:
  // metrics (may be null): open connections, refused connections, timeouts.
  HttpListener(ListenerOptions options, HttpHandlers handlers, Registry* metrics = nullptr);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Opens and binds the listening socket (raising the open-file limit to max_connections when
  // the hard limit allows; otherwise max_connections is lowered, with a warning). Returns the
  // port.
  int bind();
  // Serves until stop(); call after bind(), from one thread.
  void serve();
  // From any thread: stop accepting, close connections waiting for a request, finish the
  // answers being handled or written (at most write_timeout_ms), then serve() returns.
  void stop();

  int open_connections() const;

  struct Impl;

 private:
  std::unique_ptr<Impl> impl_;
};

}  // namespace realmt::server
