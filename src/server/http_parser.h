// An incremental reader of HTTP/1.1 requests (RFC 9112) from a byte stream, with every size
// limit enforced while reading: nothing beyond the limits is ever buffered.
//
//   RequestParser p(limits);
//   size_t used = p.feed(bytes);         // call again with what arrives next (and bytes[used:])
//   if (p.failed()) answer p.error_status() / p.error_reason() and close the connection
//   if (p.done())   handle p.take(); the parser is ready for the next request on the connection
//
// What is refused, and how:
//   400  malformed request line or field, obs-fold, whitespace before ':', control characters,
//        missing or repeated Host (HTTP/1.1), Content-Length not a plain decimal number or
//        given twice with different values, both Content-Length and Transfer-Encoding,
//        Transfer-Encoding in HTTP/1.0, malformed chunk size or chunk framing
//   411  POST, PUT or PATCH with neither Content-Length nor Transfer-Encoding: chunked
//   413  Content-Length over max_body_bytes (at once, before any of the body is read), or
//        chunks whose sum passes it (at the chunk header that passes it)
//   414  a request line longer than max_header_bytes
//   417  an Expect other than 100-continue
//   431  request line and fields (or a chunked body's trailer) over max_header_bytes, or more
//        than max_header_fields fields
//   501  a transfer coding other than chunked
//   505  an HTTP version other than 1.0 and 1.1
// Empty lines before a request line are skipped (RFC 9112 2.2); a bare LF ends a line as CRLF.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "server/http_message.h"

namespace realmt::server {

struct HttpLimits {
  int64_t max_header_bytes = 16384;  // request line + header fields (and a chunked trailer)
  int max_header_fields = 100;
  int64_t max_body_bytes = 1 << 20;  // Content-Length, or the chunks' sum
};

class RequestParser {
 public:
  explicit RequestParser(HttpLimits limits);

  // Consumes a prefix of `data`: all of it, or up to the end of a request, or up to where an
  // error was found (the bad byte, or the byte at which a limit was passed): the same position
  // however the stream is split into calls. Returns how many bytes were consumed. Does nothing
  // once done() or failed() until take() or reset().
  size_t feed(std::string_view data);

  bool started() const { return state_ != State::kIdle; }  // a byte of a request arrived
  bool head_done() const { return head_done_; }            // request line and fields parsed
  bool done() const { return state_ == State::kDone; }
  bool failed() const { return state_ == State::kError; }
  int error_status() const { return error_status_; }
  const std::string& error_reason() const { return error_reason_; }

  // The request so far: after head_done() its method, path and fields (also when failed()
  // afterwards, e.g. a 413 on the body), before that whatever the request line gave.
  const HttpRequest& request() const { return request_; }
  // After done(): the complete request; the parser starts over for the next one.
  HttpRequest take();
  void reset();

 private:
  enum class State {
    kIdle,
    kHead,
    kBody,
    kChunkSize,
    kChunkData,
    kChunkEnd,
    kTrailer,
    kDone,
    kError
  };
  void fail(int status, std::string reason);
  void parse_head();  // head_ holds the request line and fields, each line ending in '\n'
  void parse_request_line(std::string_view line);
  void parse_chunk_size(std::string_view line);
  void finish_head_semantics();
  // Appends `data` up to its first '\n' to line_ (*used: how many bytes): 1 when the line is
  // complete, 0 when it goes on, -1 when it would pass `cap` bytes (*used: up to the cap).
  int read_line(std::string_view data, size_t cap, size_t* used);

  HttpLimits limits_;
  State state_ = State::kIdle;
  bool head_done_ = false;
  HttpRequest request_;
  std::string head_;       // the raw head until it is complete
  size_t line_start_ = 0;  // where the head's current line starts (0: the request line)
  int fields_ = 0;         // header field lines so far
  std::string line_;       // a chunk-size or trailer line being read
  bool chunk_cr_ = false;  // the CR after a chunk's data has come
  int64_t remaining_ = 0;  // body or chunk bytes still to come
  int64_t trailer_bytes_ = 0;
  int error_status_ = 0;
  std::string error_reason_;
};

}  // namespace realmt::server
