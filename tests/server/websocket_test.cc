// WebSocket pieces of realmt-server without sockets: SHA-1 (FIPS 180 vectors), base64 (RFC 4648
// section 10), the opening handshake (RFC 6455's example key), the frame reader against hostile
// input, and the session's close handshake.
#include <gtest/gtest.h>

#include <string>

#include "server/websocket_frame.h"
#include "server/websocket_handshake.h"
#include "server/websocket_session.h"

namespace realmt::server {
namespace {

std::string hex(const std::array<uint8_t, 20>& d) {
  static const char* digits = "0123456789abcdef";
  std::string s;
  for (uint8_t b : d) s += {digits[b >> 4], digits[b & 15]};
  return s;
}

// A client frame: masked with a fixed key; `length_bytes` forces the length form (0: shortest).
std::string client_frame(int first_byte, std::string_view payload, bool masked = true) {
  std::string f(1, static_cast<char>(first_byte));
  const size_t n = payload.size();
  const char mask_bit = masked ? static_cast<char>(0x80) : 0;
  if (n < 126) {
    f += static_cast<char>(mask_bit | static_cast<char>(n));
  } else if (n < 65536) {
    f += static_cast<char>(mask_bit | 126);
    f += {static_cast<char>(n >> 8), static_cast<char>(n & 0xff)};
  } else {
    f += static_cast<char>(mask_bit | 127);
    for (int i = 7; i >= 0; --i) f += static_cast<char>((n >> (8 * i)) & 0xff);
  }
  const char key[4] = {0x37, static_cast<char>(0xfa), 0x21, 0x3d};
  if (masked) f.append(key, 4);
  for (size_t i = 0; i < n; ++i)
    f += masked ? static_cast<char>(payload[i] ^ key[i % 4]) : payload[i];
  return f;
}

std::optional<WsEvent> read_one(FrameReader& r, const std::string& bytes, size_t* used = nullptr) {
  size_t n = 0;
  auto e = r.next(bytes, &n);
  if (used) *used = n;
  return e;
}

int error_code(const std::string& bytes, int64_t limit = 1000) {
  FrameReader r(limit);
  const auto e = read_one(r, bytes);
  return e && e->kind == WsEvent::Kind::kError ? e->code : 0;
}

TEST(Sha1, Fips180Vectors) {
  EXPECT_EQ(hex(sha1("abc")), "a9993e364706816aba3e25717850c26c9cd0d89d");
  EXPECT_EQ(hex(sha1("")), "da39a3ee5e6b4b0d3255bfef95601890afd80709");
  EXPECT_EQ(hex(sha1("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq")),
            "84983e441c3bd26ebaae4aa1f95129e5e54670f1");
  EXPECT_EQ(hex(sha1(std::string(1000000, 'a'))), "34aa973cd4c4daa4f61eeb2bdbad27316534016f");
  // 55, 56 and 64 bytes: the padding fits in one block, just not, and a block of its own.
  EXPECT_EQ(hex(sha1(std::string(55, 'a'))), "c1c8bbdc22796e28c0e15163d20899b65621d65a");
  EXPECT_EQ(hex(sha1(std::string(56, 'a'))), "c2db330f6083854c99d4b5bfb6e8f29f201be699");
  EXPECT_EQ(hex(sha1(std::string(64, 'a'))), "0098ba824b5c16427bd7a1122a5a442a25ec644d");
}

TEST(Base64, Rfc4648Vectors) {
  const char* plain[] = {"", "f", "fo", "foo", "foob", "fooba", "foobar"};
  const char* coded[] = {"", "Zg==", "Zm8=", "Zm9v", "Zm9vYg==", "Zm9vYmE=", "Zm9vYmFy"};
  for (int i = 0; i < 7; ++i) {
    EXPECT_EQ(base64_encode(plain[i]), coded[i]);
    EXPECT_EQ(base64_decode(coded[i]), std::optional<std::string>(plain[i]));
  }
  for (const char* bad : {"Zg=", "Zg", "Z===", "Zh==", "Zm9v!A==", "Zg==Zg==", "Z=g="})
    EXPECT_EQ(base64_decode(bad), std::nullopt) << bad;
}

HttpRequest handshake_request() {
  HttpRequest r;
  r.method = "GET";
  r.path = r.target = "/translate";
  r.headers = {{"host", "127.0.0.1"},
               {"upgrade", "websocket"},
               {"connection", "keep-alive, Upgrade"},
               {"sec-websocket-key", "dGhlIHNhbXBsZSBub25jZQ=="},
               {"sec-websocket-version", "13"}};
  return r;
}

void set(HttpRequest& r, const std::string& name, const std::string& value) {
  for (auto& [k, v] : r.headers)
    if (k == name) v = value;
}

TEST(WebSocketHandshake, Rfc6455Example) {
  EXPECT_EQ(websocket_accept_key("dGhlIHNhbXBsZSBub25jZQ=="), "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=");
  const HttpResponse r = websocket_handshake(handshake_request());
  EXPECT_EQ(r.status, 101);
  EXPECT_TRUE(r.upgrade);
  const std::string head = response_head(r, true);
  EXPECT_NE(head.find("HTTP/1.1 101 Switching Protocols\r\n"), std::string::npos);
  EXPECT_NE(head.find("Sec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"), std::string::npos);
  EXPECT_NE(head.find("Upgrade: websocket\r\n"), std::string::npos);
  EXPECT_EQ(head.find("Content-Length"), std::string::npos);
}

TEST(WebSocketHandshake, Refusals) {
  HttpRequest plain = handshake_request();
  plain.headers.resize(1);  // a plain GET
  EXPECT_EQ(websocket_handshake(plain).status, 426);
  HttpRequest version = handshake_request();
  set(version, "sec-websocket-version", "8");
  const HttpResponse v = websocket_handshake(version);
  EXPECT_EQ(v.status, 426);
  ASSERT_FALSE(v.headers.empty());
  EXPECT_EQ(v.headers.back(), (std::pair<std::string, std::string>("Sec-WebSocket-Version", "13")));
  HttpRequest short_key = handshake_request();
  set(short_key, "sec-websocket-key", "Zm9vYmFy");  // 6 bytes
  EXPECT_EQ(websocket_handshake(short_key).status, 400);
  HttpRequest old = handshake_request();
  old.version_minor = 0;
  EXPECT_EQ(websocket_handshake(old).status, 400);
}

TEST(FrameReader, TextMessageWholeAndSplitAnywhere) {
  const std::string frame = client_frame(0x81, "the cat\nthe dog");
  for (size_t cut = 0; cut <= frame.size(); ++cut) {
    FrameReader r(1000);
    size_t used = 0;
    auto e = read_one(r, frame.substr(0, cut), &used);
    if (cut < frame.size()) {
      EXPECT_FALSE(e) << cut;
      EXPECT_EQ(used, 0u);
      e = read_one(r, frame, &used);
    }
    ASSERT_TRUE(e);
    EXPECT_EQ(e->kind, WsEvent::Kind::kText);
    EXPECT_EQ(e->payload, "the cat\nthe dog");
    EXPECT_EQ(used, frame.size());
  }
}

TEST(FrameReader, FragmentsWithControlFramesBetween) {
  const std::string bytes = client_frame(0x01, "one ") + client_frame(0x89, "hb") +
                            client_frame(0x00, "two ") + client_frame(0x80, "three");
  FrameReader r(1000);
  size_t used = 0;
  auto e = read_one(r, bytes, &used);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, WsEvent::Kind::kPing);
  EXPECT_EQ(e->payload, "hb");
  EXPECT_TRUE(r.in_message());
  size_t more = 0;
  e = r.next(std::string_view(bytes).substr(used), &more);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, WsEvent::Kind::kText);
  EXPECT_EQ(e->payload, "one two three");
  EXPECT_EQ(used + more, bytes.size());
  EXPECT_FALSE(r.in_message());
}

TEST(FrameReader, MediumAndLongLengths) {
  for (size_t n : {125u, 126u, 65535u, 65536u, 70000u}) {
    FrameReader r(100000);
    const auto e = read_one(r, client_frame(0x81, std::string(n, 'x')));
    ASSERT_TRUE(e);
    EXPECT_EQ(e->payload.size(), n);
  }
}

TEST(FrameReader, HostileFramesAreRefusedWithTheirCodes) {
  EXPECT_EQ(error_code(client_frame(0x81, "hi", false)), WsClose::kProtocolError);  // unmasked
  for (int rsv : {0x40, 0x20, 0x10})
    EXPECT_EQ(error_code(client_frame(0x81 | rsv, "hi")), WsClose::kProtocolError) << rsv;
  for (int op : {3, 7, 0xb, 0xf})
    EXPECT_EQ(error_code(client_frame(0x80 | op, "hi")), WsClose::kProtocolError) << op;
  EXPECT_EQ(error_code(client_frame(0x82, "bin")), WsClose::kUnsupportedData);
  EXPECT_EQ(error_code(client_frame(0x80, "cont")), WsClose::kProtocolError);  // nothing begun
  EXPECT_EQ(error_code(client_frame(0x09, "ping")), WsClose::kProtocolError);  // fragmented
  EXPECT_EQ(error_code(client_frame(0x89, std::string(126, 'p'))), WsClose::kProtocolError);
  EXPECT_EQ(error_code(client_frame(0x81, "\xc3\x28")), WsClose::kInvalidData);
  EXPECT_EQ(error_code(client_frame(0x88, "\x03")), WsClose::kProtocolError);      // 1-byte close
  EXPECT_EQ(error_code(client_frame(0x88, "\x03\xed")), WsClose::kProtocolError);  // 1005
  EXPECT_EQ(error_code(client_frame(0x88, "\x03\xe8\xff")), WsClose::kInvalidData);
}

TEST(FrameReader, NewMessageInsideAFragmentedOne) {
  FrameReader r(1000);
  size_t used = 0;
  const std::string bytes = client_frame(0x01, "a") + client_frame(0x81, "b");
  const auto e = r.next(bytes, &used);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->kind, WsEvent::Kind::kError);
  EXPECT_EQ(e->code, WsClose::kProtocolError);
}

TEST(FrameReader, OversizedLengthsAreRefusedAtTheHeader) {
  // The header alone (no payload sent): refused before anything else arrives.
  std::string huge = {static_cast<char>(0x81), static_cast<char>(0xff)};
  for (int i = 0; i < 8; ++i) huge += i == 0 ? '\x7f' : '\xff';
  huge += "mask";
  EXPECT_EQ(error_code(huge), WsClose::kTooBig);
  huge[2] = '\x80';  // the top bit of the 64-bit length
  EXPECT_EQ(error_code(huge), WsClose::kProtocolError);
  std::string medium = {
      static_cast<char>(0x81), static_cast<char>(0xfe), 0x04, 0x00, 'm', 'a', 's', 'k'};
  EXPECT_EQ(error_code(medium, 1000), WsClose::kTooBig);  // 1024 > 1000
  // Fragments that pass the limit together.
  const std::string parts =
      client_frame(0x01, std::string(600, 'a')) + client_frame(0x80, std::string(600, 'b'));
  FrameReader r(1000);
  size_t used = 0;
  const auto e = r.next(parts, &used);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, WsClose::kTooBig);
}

TEST(FrameReader, NonMinimalLengthsAndTruncatedFrames) {
  std::string padded = {
      static_cast<char>(0x81), static_cast<char>(0xfe), 0x00, 0x05, 'm', 'a', 's', 'k'};
  EXPECT_EQ(error_code(padded + "hello"), WsClose::kProtocolError);
  const std::string frame = client_frame(0x81, std::string(300, 'z'));
  FrameReader r(1000);
  size_t used = 99;
  EXPECT_FALSE(r.next(std::string_view(frame).substr(0, frame.size() - 1), &used));
  EXPECT_EQ(used, 0u);  // a truncated frame is left whole for the next call
  EXPECT_FALSE(r.next(std::string_view(frame).substr(0, 3), &used));
}

TEST(WebSocketSession, PingCloseAndQueue) {
  WebSocketSession s(1000, 2);
  std::string in = client_frame(0x89, "hb") + client_frame(0x81, "a") + client_frame(0x81, "b") +
                   client_frame(0x81, "c");
  std::string out;
  s.read(in, out);
  EXPECT_EQ(out, encode_frame(WsOpcode::kPong, "hb"));
  EXPECT_TRUE(s.full());
  EXPECT_EQ(in, client_frame(0x81, "c"));  // not read while the queue is full
  EXPECT_EQ(s.take(), std::optional<std::string>("a"));
  EXPECT_EQ(s.take(), std::nullopt);  // one at a time
  out.clear();
  s.reply("A\n", out);
  EXPECT_EQ(out, encode_frame(WsOpcode::kText, "A\n"));
  in += client_frame(0x88, std::string("\x0f\xa0", 2) + "bye");  // 4000
  out.clear();
  s.read(in, out);  // "c" fills the queue again: the close waits in `in`
  EXPECT_FALSE(s.closed());
  EXPECT_EQ(s.take(), std::optional<std::string>("b"));
  s.read(in, out);
  EXPECT_TRUE(s.closed());
  EXPECT_EQ(out, encode_close(4000, ""));  // the client's code echoed
  EXPECT_EQ(s.take(), std::nullopt);       // "c" is dropped: nothing follows a close
  out.clear();
  s.reply("B\n", out);
  EXPECT_EQ(out, "");  // a reply after the close is dropped
}

TEST(WebSocketSession, BrokenFrameClosesWithItsCode) {
  WebSocketSession s(1000, 4);
  std::string in = client_frame(0x81, "x", false), out;
  s.read(in, out);
  EXPECT_TRUE(s.closed());
  ASSERT_GE(out.size(), 4u);
  EXPECT_EQ(out.substr(0, 4), std::string("\x88") + static_cast<char>(out.size() - 2) + "\x03\xea");
}

TEST(EncodeClose, CutsTheReasonAtACharacter) {
  const std::string reason = std::string(122, 'a') + "\xc3\xa9";  // 124 bytes, é at 122-123
  const std::string f = encode_close(1009, reason);
  EXPECT_EQ(static_cast<unsigned char>(f[1]), 2u + 122u);  // é does not fit whole: left out
}

}  // namespace
}  // namespace realmt::server
