// libFuzzer target: server::RequestParser (the HTTP/1.1 front's request reader) on arbitrary
// bytes. Properties: the parser never reads past an error or a complete request; every refusal
// has one of its documented statuses and a reason; accepted requests respect the limits; and
// the outcome is the same whether the bytes come at once or split at the points the first
// input byte chooses (the front receives them in arbitrary pieces). Seeds:
// corpus/http_parser_fuzz/. Self-contained (its own check macro), so that it builds with or without
// fuzz/fuzz_util.h:
//   realmt_fuzz_target(http_parser_fuzz http_parser_fuzz.cc realmt_server)
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

#include "server/http_parser.h"

using realmt::server::HttpLimits;
using realmt::server::HttpRequest;
using realmt::server::RequestParser;

#define HTTP_FUZZ_CHECK(cond)                                                                \
  do {                                                                                       \
    if (!(cond)) {                                                                           \
      std::fprintf(stderr, "fuzz property failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__); \
      std::abort();                                                                          \
    }                                                                                        \
  } while (0)

namespace {

struct Outcome {
  std::vector<HttpRequest> requests;
  int status = 0;
  size_t consumed = 0;
};

HttpLimits limits() {
  HttpLimits l;
  l.max_header_bytes = 512;
  l.max_header_fields = 16;
  l.max_body_bytes = 256;
  return l;
}

// Feeds `bytes` in pieces of 1 + (step_seed + i) % 7 bytes (all at once when step_seed is 0).
Outcome run(std::string_view bytes, unsigned step_seed) {
  RequestParser p(limits());
  Outcome o;
  size_t pos = 0, piece_no = 0;
  while (pos < bytes.size()) {
    const size_t step = step_seed == 0 ? bytes.size() : 1 + (step_seed + piece_no++) % 7;
    std::string_view piece = bytes.substr(pos, step);
    while (!piece.empty()) {
      const size_t used = p.feed(piece);
      HTTP_FUZZ_CHECK(used <= piece.size());
      piece.remove_prefix(used);
      pos += used;
      if (p.failed()) {
        const int s = p.error_status();
        HTTP_FUZZ_CHECK(s == 400 || s == 411 || s == 413 || s == 414 || s == 417 || s == 431 ||
                        s == 501 || s == 505);
        HTTP_FUZZ_CHECK(!p.error_reason().empty());
        o.status = s;
        o.consumed = pos;
        return o;
      }
      if (p.done()) {
        HttpRequest r = p.take();
        HTTP_FUZZ_CHECK(static_cast<int64_t>(r.body.size()) <= limits().max_body_bytes);
        HTTP_FUZZ_CHECK(static_cast<int>(r.headers.size()) <= limits().max_header_fields);
        HTTP_FUZZ_CHECK(!r.method.empty() && !r.path.empty());
        o.requests.push_back(std::move(r));
      } else if (used == 0) {
        break;  // needs more bytes
      }
    }
  }
  o.consumed = pos;
  return o;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const unsigned seed = data[0];
  const std::string_view bytes(reinterpret_cast<const char*>(data) + 1, size - 1);
  const Outcome whole = run(bytes, 0);
  const Outcome split = run(bytes, seed | 1u);
  HTTP_FUZZ_CHECK(whole.status == split.status);
  HTTP_FUZZ_CHECK(whole.consumed == split.consumed);
  HTTP_FUZZ_CHECK(whole.requests.size() == split.requests.size());
  for (size_t i = 0; i < whole.requests.size(); ++i) {
    HTTP_FUZZ_CHECK(whole.requests[i].method == split.requests[i].method);
    HTTP_FUZZ_CHECK(whole.requests[i].target == split.requests[i].target);
    HTTP_FUZZ_CHECK(whole.requests[i].headers == split.requests[i].headers);
    HTTP_FUZZ_CHECK(whole.requests[i].body == split.requests[i].body);
    HTTP_FUZZ_CHECK(whole.requests[i].keep_alive == split.requests[i].keep_alive);
  }
  return 0;
}
