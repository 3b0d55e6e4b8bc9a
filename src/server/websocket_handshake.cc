#include "server/websocket_handshake.h"

#include <algorithm>

#include "core/error.h"
#include "server/request.h"

namespace realmt::server {

namespace {

constexpr std::string_view kAlphabet =
    "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
// RFC 6455 section 1.3: appended to the client's key before hashing.
constexpr std::string_view kGuid = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11";

uint32_t rotl(uint32_t x, int n) { return (x << n) | (x >> (32 - n)); }

// One 64-byte block (FIPS 180-4 section 6.1.2).
void sha1_block(const uint8_t* block, uint32_t h[5]) {
  uint32_t w[80];
  for (int t = 0; t < 16; ++t)
    w[t] = uint32_t{block[4 * t]} << 24 | uint32_t{block[4 * t + 1]} << 16 |
           uint32_t{block[4 * t + 2]} << 8 | uint32_t{block[4 * t + 3]};
  for (int t = 16; t < 80; ++t) w[t] = rotl(w[t - 3] ^ w[t - 8] ^ w[t - 14] ^ w[t - 16], 1);
  uint32_t a = h[0], b = h[1], c = h[2], d = h[3], e = h[4];
  for (int t = 0; t < 80; ++t) {
    uint32_t f, k;
    if (t < 20) {
      f = (b & c) | (~b & d), k = 0x5a827999;
    } else if (t < 40) {
      f = b ^ c ^ d, k = 0x6ed9eba1;
    } else if (t < 60) {
      f = (b & c) | (b & d) | (c & d), k = 0x8f1bbcdc;
    } else {
      f = b ^ c ^ d, k = 0xca62c1d6;
    }
    const uint32_t temp = rotl(a, 5) + f + e + k + w[t];
    e = d, d = c, c = rotl(b, 30), b = a, a = temp;
  }
  h[0] += a, h[1] += b, h[2] += c, h[3] += d, h[4] += e;
}

HttpResponse refuse(int status, const std::string& reason) {
  HttpResponse r;
  r.status = status;
  r.body = format_error(reason);
  return r;
}

}  // namespace

std::array<uint8_t, 20> sha1(std::string_view data) {
  uint32_t h[5] = {0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476, 0xc3d2e1f0};
  const size_t rest = data.size() % 64;  // bytes after the last whole block (below 64)
  const size_t i = data.size() - rest;
  for (size_t b = 0; b < i; b += 64)
    sha1_block(reinterpret_cast<const uint8_t*>(data.data() + b), h);
  // Padding (section 5.1.1): 0x80, zeros, the message length in bits as 64-bit big-endian.
  uint8_t tail[128] = {};
  for (size_t j = 0; j < rest; ++j) tail[j] = static_cast<uint8_t>(data[i + j]);
  tail[rest] = 0x80;
  const size_t blocks = rest + 9 <= 64 ? 1 : 2;
  const uint64_t bits = static_cast<uint64_t>(data.size()) * 8;
  for (int j = 0; j < 8; ++j) tail[blocks * 64 - 1 - j] = static_cast<uint8_t>(bits >> (8 * j));
  for (size_t b = 0; b < blocks; ++b) sha1_block(tail + 64 * b, h);
  std::array<uint8_t, 20> out;
  for (int j = 0; j < 20; ++j) out[j] = static_cast<uint8_t>(h[j / 4] >> (24 - 8 * (j % 4)));
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  for (size_t i = 0; i < bytes.size(); i += 3) {
    const size_t n = std::min<size_t>(3, bytes.size() - i);
    uint32_t v = 0;
    for (size_t j = 0; j < 3; ++j) v = v << 8 | (j < n ? static_cast<uint8_t>(bytes[i + j]) : 0u);
    for (size_t j = 0; j < 4; ++j) out += j <= n ? kAlphabet[(v >> (18 - 6 * j)) & 63] : '=';
  }
  return out;
}

std::optional<std::string> base64_decode(std::string_view text) {
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  for (size_t i = 0; i < text.size(); i += 4) {
    const bool last = i + 4 == text.size();
    const size_t pad = last ? (text[i + 3] == '=') + (text[i + 2] == '=') : 0;
    if (pad == 1 && text[i + 2] == '=') return std::nullopt;  // "x=y=" is not padding
    uint32_t v = 0;
    for (size_t j = 0; j < 4; ++j) {
      const size_t k = j < 4 - pad ? kAlphabet.find(text[i + j]) : 0;
      if (k == std::string_view::npos) return std::nullopt;
      v = v << 6 | static_cast<uint32_t>(k);
    }
    if (pad > 0 && (v & ((1u << (8 * pad)) - 1)) != 0) return std::nullopt;  // bits beyond the data
    for (size_t j = 0; j < 3 - pad; ++j) out += static_cast<char>((v >> (16 - 8 * j)) & 0xff);
  }
  return out;
}

std::string websocket_accept_key(std::string_view key) {
  std::string joined(key);
  joined += kGuid;
  const std::array<uint8_t, 20> digest = sha1(joined);
  return base64_encode(
      std::string_view(reinterpret_cast<const char*>(digest.data()), digest.size()));
}

HttpResponse websocket_handshake(const HttpRequest& req) {
  const std::string* upgrade = req.header("upgrade");
  const std::string* connection = req.header("connection");
  if (!upgrade || !has_token(*upgrade, "websocket") || !connection ||
      !has_token(*connection, "upgrade")) {
    HttpResponse r =
        refuse(426, format("{} is a WebSocket endpoint: connect with a WebSocket client "
                           "(Upgrade: websocket, Connection: Upgrade)",
                           req.path));
    r.headers.emplace_back("Upgrade", "websocket");
    return r;
  }
  if (req.version_minor != 1) return refuse(400, "a WebSocket handshake needs HTTP/1.1");
  const std::string* version = req.header("sec-websocket-version");
  if (!version || *version != "13") {
    HttpResponse r = refuse(426, format("Sec-WebSocket-Version '{}' is not supported (13 is)",
                                        version ? *version : std::string()));
    r.headers.emplace_back("Sec-WebSocket-Version", "13");
    return r;
  }
  const std::string* key = req.header("sec-websocket-key");
  const std::optional<std::string> nonce = key ? base64_decode(*key) : std::nullopt;
  if (!nonce || nonce->size() != 16)
    return refuse(400, "Sec-WebSocket-Key must be 16 bytes in base64 (RFC 6455 section 4.1)");
  HttpResponse r;
  r.status = 101;
  r.content_type.clear();
  r.upgrade = true;
  r.headers.emplace_back("Upgrade", "websocket");
  r.headers.emplace_back("Connection", "Upgrade");
  r.headers.emplace_back("Sec-WebSocket-Accept", websocket_accept_key(*key));
  return r;
}

}  // namespace realmt::server
