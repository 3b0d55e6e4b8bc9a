// realmt-server's Marian WebSocket endpoint and MT-API endpoint over loopback sockets, with the
// fake decoder (a translation is its source reversed) of server/fake_decoder.h.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "server/raw_client.h"
#include "server/served.h"
#include "server/websocket_frame.h"

namespace realmt::server::test {
namespace {

const char* kUpgrade =
    "GET /translate HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
    "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n";

std::string masked(int first_byte, std::string_view payload) {
  std::string f(1, static_cast<char>(first_byte));
  const size_t n = payload.size();
  if (n < 126) {
    f += static_cast<char>(0x80 | n);
  } else {
    f += static_cast<char>(0x80 | 126);
    f += {static_cast<char>(n >> 8), static_cast<char>(n & 0xff)};
  }
  const char key[4] = {1, 2, 3, 4};
  f.append(key, 4);
  for (size_t i = 0; i < n; ++i) f += static_cast<char>(payload[i] ^ key[i % 4]);
  return f;
}

struct Frame {
  int opcode = -1;  // -1: none came
  std::string payload;
  int close_code() const {
    return payload.size() >= 2 ? static_cast<unsigned char>(payload[0]) << 8 |
                                     static_cast<unsigned char>(payload[1])
                               : 0;
  }
};

Frame read_frame(RawClient& c) {
  Frame f;
  const std::string head = c.read_bytes(2);
  if (head.size() < 2) return f;
  size_t n = static_cast<unsigned char>(head[1]) & 0x7f;
  if (n == 126) {
    const std::string ext = c.read_bytes(2);
    n = static_cast<unsigned char>(ext[0]) << 8 | static_cast<unsigned char>(ext[1]);
  } else if (n == 127) {
    const std::string ext = c.read_bytes(8);
    n = 0;
    for (char b : ext) n = n << 8 | static_cast<unsigned char>(b);
  }
  f.payload = c.read_bytes(n);
  f.opcode = static_cast<unsigned char>(head[0]) & 0x0f;
  return f;
}

struct Socket {
  explicit Socket(int port) : client(port) {
    client.send(kUpgrade);
    handshake = client.read_response();
  }
  RawClient client;
  RawResponse handshake;
};

TEST(WebSocketServer, ManyMessagesOnOneConnection) {
  Served s(small_limits());
  Socket ws(s.port());
  ASSERT_EQ(ws.handshake.status, 101);
  EXPECT_EQ(ws.handshake.headers["sec-websocket-accept"], "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  for (int i = 0; i < 5; ++i) {
    ws.client.send(masked(0x81, "abc\n\nxy" + std::to_string(i) + "\n"));
    const Frame f = read_frame(ws.client);
    EXPECT_EQ(f.opcode, 1);
    EXPECT_EQ(f.payload, "cba\n\n" + std::to_string(i) + "yx\n");
  }
  // More lines than a request may hold (4) are queued in parts, in order.
  ws.client.send(masked(0x01, "a\nb\nc\n") + masked(0x89, "hb") + masked(0x80, "d\nef\ng"));
  const Frame pong = read_frame(ws.client);
  EXPECT_EQ(pong.opcode, 0xA);
  EXPECT_EQ(pong.payload, "hb");
  EXPECT_EQ(read_frame(ws.client).payload, "a\nb\nc\nd\nfe\ng\n");
  ws.client.send(masked(0x88, "\x03\xe8"));
  const Frame close = read_frame(ws.client);
  EXPECT_EQ(close.opcode, 8);
  EXPECT_EQ(close.close_code(), 1000);
  EXPECT_TRUE(ws.client.closed_within(5000));
}

TEST(WebSocketServer, OversizedAndBrokenFramesClose) {
  Served s(small_limits());  // max_body_bytes 2000: the message limit
  Socket big(s.port());
  std::string lines;  // short lines: only the message's size is over a limit
  while (lines.size() < 2001) lines += "ab\n";
  big.client.send(masked(0x81, lines));
  const Frame too_big = read_frame(big.client);
  EXPECT_EQ(too_big.close_code(), WsClose::kTooBig);
  EXPECT_NE(too_big.payload.find("over 2000 bytes"), std::string::npos);
  EXPECT_TRUE(big.client.closed_within(5000));
  Socket unmasked(s.port());
  unmasked.client.send(std::string("\x81\x02hi", 4));
  EXPECT_EQ(read_frame(unmasked.client).close_code(), WsClose::kProtocolError);
  Socket long_line(s.port());  // a line over max_sentence_bytes (100)
  long_line.client.send(masked(0x81, "ok\n" + std::string(101, 'a')));
  const Frame f = read_frame(long_line.client);
  EXPECT_EQ(f.close_code(), WsClose::kTooBig);
  EXPECT_NE(f.payload.find("lines[1]"), std::string::npos);
  // The server goes on serving.
  Socket fine(s.port());
  fine.client.send(masked(0x81, "ab"));
  EXPECT_EQ(read_frame(fine.client).payload, "ba\n");
}

TEST(WebSocketServer, PlainGetIs426AndTokenIsChecked) {
  HttpConfig c = small_limits();
  c.api_key = "k";
  Served s(c);
  auto http = s.client();
  auto r = http.Get("/translate");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 401);
  r = http.Get("/translate", {{"Authorization", "Bearer k"}});
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 426);
  EXPECT_NE(r->body.find("WebSocket"), std::string::npos);
  Socket ws(s.port());
  EXPECT_EQ(ws.handshake.status, 401);
}

TEST(MtApiServer, TranslatesAndRefuses) {
  HttpConfig c = small_limits();
  c.language_pair = "en-fr";
  Served s(c);
  auto http = s.client();
  auto r = http.Post("/translate?api-version=3.0&to=fr", R"([{"text": "abc"}, {"Text": "de"}])",
                     "application/json");
  ASSERT_TRUE(r);
  ASSERT_EQ(r->status, 200) << r->body;
  const auto j = nlohmann::json::parse(r->body);
  EXPECT_EQ(j[0]["translations"][0]["text"], "cba");
  EXPECT_EQ(j[1]["translations"][0]["text"], "ed");
  EXPECT_EQ(j[1]["translations"][0]["to"], "fr");
  r = http.Post("/translate", R"([{"txt": "abc"}])", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  EXPECT_NE(nlohmann::json::parse(r->body)["error"]["message"].get<std::string>().find("[0].txt"),
            std::string::npos);
  r = http.Post("/translate", "[]", "text/plain");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 415);
  r = http.Post("/translate?to=de", "[]", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 400);
  r = http.Put("/translate", "[]", "application/json");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->status, 405);
}

TEST(WebSocketServer, ShutdownClosesWithGoingAway) {
  auto s = std::make_unique<Served>(small_limits());
  Socket ws(s->port());
  ASSERT_EQ(ws.handshake.status, 101);
  ws.client.send(masked(0x81, "ab"));
  EXPECT_EQ(read_frame(ws.client).payload, "ba\n");
  s.reset();  // shutdown
  EXPECT_EQ(read_frame(ws.client).close_code(), WsClose::kGoingAway);
}

}  // namespace
}  // namespace realmt::server::test
