// The HTTP/1.1 request parser on its own: framing, limits while reading, every refusal with
// its status, and the same result however the bytes are split.
#include "server/http_parser.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace realmt::server {
namespace {

HttpLimits small() {
  HttpLimits l;
  l.max_header_bytes = 256;
  l.max_header_fields = 8;
  l.max_body_bytes = 100;
  return l;
}

struct Outcome {
  std::vector<HttpRequest> requests;
  int status = 0;  // of the error, 0 when none
  std::string reason;
  size_t consumed = 0;  // bytes used before the error (or all)
};

// Feeds `bytes` in pieces of `step` bytes (0: at once), taking every complete request.
Outcome run(const std::string& bytes, size_t step = 0, HttpLimits limits = small()) {
  RequestParser p(limits);
  Outcome o;
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t n = step == 0 ? bytes.size() - pos : std::min(step, bytes.size() - pos);
    std::string_view piece(bytes.data() + pos, n);
    while (!piece.empty()) {
      const size_t used = p.feed(piece);
      piece.remove_prefix(used);
      pos += used;
      if (p.failed()) {
        o.status = p.error_status();
        o.reason = p.error_reason();
        o.consumed = pos;
        return o;
      }
      if (p.done())
        o.requests.push_back(p.take());
      else if (used == 0)
        break;
    }
  }
  o.consumed = pos;
  return o;
}

TEST(HttpParser, ParsesRequestLineFieldsAndBody) {
  const Outcome o =
      run("\r\nPOST /v1/translate?x=1 HTTP/1.1\r\nHost: h\r\nContent-Type:  application/json \r\n"
          "Content-Length: 5\r\n\r\nhello");
  ASSERT_EQ(o.status, 0) << o.reason;
  ASSERT_EQ(o.requests.size(), 1u);
  const HttpRequest& r = o.requests[0];
  EXPECT_EQ(r.method, "POST");
  EXPECT_EQ(r.target, "/v1/translate?x=1");
  EXPECT_EQ(r.path, "/v1/translate");
  EXPECT_EQ(r.version_minor, 1);
  ASSERT_NE(r.header("content-type"), nullptr);
  EXPECT_EQ(*r.header("content-type"), "application/json");
  EXPECT_EQ(r.body, "hello");
  EXPECT_TRUE(r.keep_alive);
}

TEST(HttpParser, KeepAliveFollowsVersionAndConnection) {
  EXPECT_FALSE(
      run("GET / HTTP/1.1\r\nHost: h\r\nConnection: Close\r\n\r\n").requests[0].keep_alive);
  EXPECT_FALSE(run("GET / HTTP/1.0\r\n\r\n").requests[0].keep_alive);
  EXPECT_TRUE(run("GET / HTTP/1.0\r\nConnection: keep-alive\r\n\r\n").requests[0].keep_alive);
  // A bare LF ends lines too; absolute-form targets give their path.
  const Outcome o = run("GET http://h:1/health?q HTTP/1.1\nHost: h\n\n");
  ASSERT_EQ(o.requests.size(), 1u) << o.reason;
  EXPECT_EQ(o.requests[0].path, "/health");
}

TEST(HttpParser, ChunkedBodyIsJoinedAndTrailersDropped) {
  const std::string req =
      "POST /p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5;ext=1\r\nhello\r\n0007\r\n, world\r\n0\r\nX-Trailer: t\r\n\r\n"
      "GET /next HTTP/1.1\r\nHost: h\r\n\r\n";
  for (size_t step : {0, 1, 2, 3, 7}) {
    const Outcome o = run(req, step);
    ASSERT_EQ(o.status, 0) << "step " << step << ": " << o.reason;
    ASSERT_EQ(o.requests.size(), 2u) << "step " << step;
    EXPECT_EQ(o.requests[0].body, "hello, world");
    EXPECT_EQ(o.requests[1].path, "/next");  // pipelined
  }
}

TEST(HttpParser, EveryRefusalHasItsStatus) {
  const std::string h = "Host: h\r\n";
  const std::vector<std::pair<std::string, int>> cases = {
      {"GARBAGE\r\n\r\n", 400},
      {"GET  / HTTP/1.1\r\n" + h + "\r\n", 400},
      {"GET / HTTP/1.1 x\r\n" + h + "\r\n", 400},
      {"G(T / HTTP/1.1\r\n" + h + "\r\n", 400},
      {"GET nopath HTTP/1.1\r\n" + h + "\r\n", 400},
      {"GET / HTTP/2.0\r\n" + h + "\r\n", 505},
      {"GET / HTTQ/1.1\r\n" + h + "\r\n", 400},
      {"GET / HTTP/1.1\r\n\r\n", 400},                              // no Host
      {"GET / HTTP/1.1\r\n" + h + h + "\r\n", 400},                 // two Hosts
      {"GET / HTTP/1.1\r\n" + h + "Bad Name: x\r\n\r\n", 400},      // space in a name
      {"GET / HTTP/1.1\r\n" + h + "Name : x\r\n\r\n", 400},         // space before ':'
      {"GET / HTTP/1.1\r\n" + h + "X: a\r\n folded\r\n\r\n", 400},  // obs-fold
      {"GET / HTTP/1.1\r\n" + h +
           "X: a\x01"
           "b\r\n\r\n",
       400},                                      // control character
      {"POST / HTTP/1.1\r\n" + h + "\r\n", 411},  // no length
      {"PUT / HTTP/1.1\r\n" + h + "\r\n", 411},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: -1\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: abc\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: 1 0\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: 99999999999999999999\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: 3\r\nContent-Length: 4\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: 101\r\n\r\n", 413},
      {"POST / HTTP/1.1\r\n" + h + "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: gzip, chunked\r\n\r\n", 501},
      {"POST / HTTP/1.0\r\nTransfer-Encoding: chunked\r\n\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\nzz\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n2\r\nabc\r\n", 400},
      {"POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\n65\r\n", 413},  // 101 bytes
      {"POST / HTTP/1.1\r\n" + h +
           "Transfer-Encoding: chunked\r\n\r\n"
           "40\r\n" +
           std::string(64, 'a') + "\r\n40\r\n",
       413},  // 128 in all, refused at its size
      {"POST / HTTP/1.1\r\n" + h + "Transfer-Encoding: chunked\r\n\r\nfffffffffffffffffffff\r\n",
       413},
      {"GET / HTTP/1.1\r\n" + h + "Expect: something\r\n\r\n", 417},
      {"GET /" + std::string(300, 'a') + " HTTP/1.1\r\n", 414},
      {"GET / HTTP/1.1\r\n" + h + "X: " + std::string(300, 'a') + "\r\n", 431},
      {"GET / HTTP/1.1\r\n" + h +  // 9 fields, 8 allowed
           "A: 1\r\nB: 1\r\nC: 1\r\nD: 1\r\nE: 1\r\nF: 1\r\nG: 1\r\nH: 1\r\n\r\n",
       431},
  };
  for (const auto& [bytes, status] : cases) {
    const Outcome o = run(bytes);
    EXPECT_EQ(o.status, status) << bytes.substr(0, 80) << " -> " << o.reason;
    EXPECT_FALSE(o.reason.empty());
    EXPECT_TRUE(o.requests.empty()) << bytes.substr(0, 80);
  }
}

TEST(HttpParser, ErrorsNameWhatIsWrong) {
  EXPECT_NE(run("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: -1\r\n\r\n").reason.find("'-1'"),
            std::string::npos);
  EXPECT_NE(run("POST /v1/translate HTTP/1.1\r\nHost: h\r\n\r\n").reason.find("Content-Length"),
            std::string::npos);
  EXPECT_NE(run("POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 101\r\n\r\n").reason.find("100"),
            std::string::npos);
}

TEST(HttpParser, BodyOverTheLimitIsRefusedBeforeItIsRead) {
  // Content-Length: refused at the end of the fields, none of the body consumed.
  const std::string head = "POST / HTTP/1.1\r\nHost: h\r\nContent-Length: 1000\r\n\r\n";
  const Outcome a = run(head + std::string(1000, 'x'));
  EXPECT_EQ(a.status, 413);
  EXPECT_EQ(a.consumed, head.size());
  // Chunked: refused at the size line of the chunk that passes the limit.
  const std::string chunked = "POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n";
  const std::string first = "32\r\n" + std::string(50, 'x') + "\r\n";  // 50 bytes: fits
  const std::string second = "3c\r\n";                                 // 60 more: 110 > 100
  const Outcome b = run(chunked + first + second + std::string(60, 'y') + "\r\n0\r\n\r\n", 7);
  EXPECT_EQ(b.status, 413);
  EXPECT_EQ(b.consumed, chunked.size() + first.size() + second.size());
  // At the limit exactly: accepted.
  const Outcome c = run(chunked + "64\r\n" + std::string(100, 'z') + "\r\n0\r\n\r\n");
  ASSERT_EQ(c.status, 0) << c.reason;
  EXPECT_EQ(c.requests.at(0).body.size(), 100u);
}

TEST(HttpParser, SplittingNeverChangesTheResult) {
  const std::string stream =
      "GET /a HTTP/1.1\r\nHost: h\r\n\r\n"
      "POST /b HTTP/1.1\r\nHost: h\r\nContent-Length: 3\r\n\r\nxyz"
      "POST /c HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n1\r\nq\r\n0\r\n\r\n"
      "GET /d HTTP/1.0\r\n\r\n"
      "POST /e HTTP/1.1\r\nHost: h\r\nContent-Length: nope\r\n\r\n";
  const Outcome whole = run(stream);
  ASSERT_EQ(whole.requests.size(), 4u);
  EXPECT_EQ(whole.status, 400);
  for (size_t step = 1; step < 12; ++step) {
    const Outcome o = run(stream, step);
    ASSERT_EQ(o.requests.size(), whole.requests.size()) << "step " << step;
    for (size_t i = 0; i < o.requests.size(); ++i) {
      EXPECT_EQ(o.requests[i].path, whole.requests[i].path);
      EXPECT_EQ(o.requests[i].body, whole.requests[i].body);
      EXPECT_EQ(o.requests[i].headers, whole.requests[i].headers);
    }
    EXPECT_EQ(o.status, whole.status);
    EXPECT_EQ(o.consumed, whole.consumed);
  }
  // Refusals inside a line are at the same byte too (found by fuzz/http_parser_fuzz.cc).
  for (const std::string& bad :
       {std::string("POST / HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
                    "2\r\nabcdef\r\n"),
        "GET / HTTP/1.1\r\nHost: h\r\nX: " + std::string(400, 'x') + "\r\n\r\n",
        "GET /" + std::string(400, 'x') + " HTTP/1.1\r\n"}) {
    const Outcome ref = run(bad);
    EXPECT_NE(ref.status, 0);
    for (size_t step = 1; step < 6; ++step) {
      const Outcome o = run(bad, step);
      EXPECT_EQ(o.status, ref.status) << "step " << step;
      EXPECT_EQ(o.consumed, ref.consumed) << "step " << step << ": " << bad.substr(0, 40);
    }
  }
}

TEST(HttpParser, ExpectContinueIsSeenBeforeTheBody) {
  RequestParser p(small());
  const std::string head =
      "POST / HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n";
  EXPECT_EQ(p.feed(head), head.size());
  EXPECT_TRUE(p.head_done());
  EXPECT_FALSE(p.done());
  EXPECT_TRUE(p.request().expect_continue);
  EXPECT_EQ(p.feed("ok"), 2u);
  ASSERT_TRUE(p.done());
  EXPECT_EQ(p.take().body, "ok");
  EXPECT_FALSE(p.started());  // ready for the next request
}

}  // namespace
}  // namespace realmt::server
