#include "server/websocket_frame.h"

#include <algorithm>

#include "common/utf8.h"
#include "core/error.h"

namespace realmt::server {

namespace {

WsEvent error(int code, std::string reason) {
  WsEvent e;
  e.kind = WsEvent::Kind::kError;
  e.code = code;
  e.payload = std::move(reason);
  return e;
}

bool known_opcode(int op) { return op <= 2 || (op >= 8 && op <= 10); }

// Codes an endpoint may send (RFC 6455 section 7.4): 1004-1006 and 1015 are reserved for reports.
bool valid_close_code(int code) {
  return (code >= 1000 && code <= 1003) || (code >= 1007 && code <= 1014) ||
         (code >= 3000 && code <= 4999);
}

struct Header {
  bool fin = false;
  int opcode = 0;
  uint64_t length = 0;
  size_t size = 0;  // bytes of the header, mask key included
  const unsigned char* mask = nullptr;
};

// The header at the front of `in`: nullopt when it has not all arrived, or when it breaks a
// rule that needs no message state (then *bad holds the error).
std::optional<Header> read_header(std::string_view in, std::optional<WsEvent>* bad) {
  const auto fail = [bad](const char* reason) -> std::optional<Header> {
    *bad = error(WsClose::kProtocolError, reason);
    return std::nullopt;
  };
  if (in.size() < 2) return std::nullopt;
  const auto* p = reinterpret_cast<const unsigned char*>(in.data());
  Header h;
  h.fin = p[0] & 0x80;
  h.opcode = p[0] & 0x0f;
  const int len7 = p[1] & 0x7f;
  if (p[0] & 0x70) return fail("reserved bits set (no extension was negotiated)");
  if (!known_opcode(h.opcode)) return fail("unknown opcode");
  if (h.opcode >= 8 && (!h.fin || len7 > 125))
    return fail("a control frame must be whole and at most 125 bytes");
  if (!(p[1] & 0x80)) return fail("client frames must be masked");
  const size_t ext = len7 == 126 ? 2 : len7 == 127 ? 8 : 0;
  h.size = 2 + ext + 4;
  if (in.size() < 2 + ext) return std::nullopt;
  h.length = static_cast<uint64_t>(len7);
  if (ext > 0) {
    if (ext == 8 && (p[2] & 0x80)) return fail("a 64-bit length with its top bit set");
    h.length = 0;
    for (size_t i = 0; i < ext; ++i) h.length = h.length << 8 | p[2 + i];
    if (h.length < (ext == 2 ? 126u : 65536u)) return fail("a length not in its shortest form");
  }
  if (in.size() < h.size) return std::nullopt;
  h.mask = p + 2 + ext;
  return h;
}

}  // namespace

std::optional<WsEvent> FrameReader::next(std::string_view in, size_t* used) {
  *used = 0;
  while (true) {
    std::optional<WsEvent> bad;
    const std::optional<Header> h = read_header(in.substr(*used), &bad);
    if (bad) return bad;
    if (!h) return std::nullopt;
    const auto op = static_cast<WsOpcode>(h->opcode);
    if (op == WsOpcode::kBinary)
      return error(WsClose::kUnsupportedData, "binary messages are not supported: send text");
    if (op == WsOpcode::kContinuation && !fragmented_)
      return error(WsClose::kProtocolError, "a continuation frame with no message begun");
    if (op == WsOpcode::kText && fragmented_)
      return error(WsClose::kProtocolError, "a new message before the last one ended");
    const bool data = h->opcode < 8;
    if (data && h->length > static_cast<uint64_t>(max_message_bytes_) - message_.size())
      return error(WsClose::kTooBig, format("a message over {} bytes", max_message_bytes_));
    if (in.size() - *used - h->size < h->length) return std::nullopt;  // the payload is coming
    std::string payload(in.substr(*used + h->size, h->length));
    for (size_t i = 0; i < payload.size(); ++i)
      payload[i] = static_cast<char>(payload[i] ^ h->mask[i % 4]);
    *used += h->size + h->length;
    if (!data) return control(op, std::move(payload));
    message_ += payload;
    fragmented_ = !h->fin;
    if (h->fin) return complete_message();
  }
}

std::optional<WsEvent> FrameReader::complete_message() {
  WsEvent e;
  e.payload.swap(message_);
  if (!is_valid_utf8(e.payload))
    return error(WsClose::kInvalidData,
                 format("the message is not UTF-8 (byte {})", find_invalid_utf8(e.payload)));
  return e;
}

std::optional<WsEvent> FrameReader::control(WsOpcode op, std::string payload) {
  WsEvent e;
  e.kind = op == WsOpcode::kPing   ? WsEvent::Kind::kPing
           : op == WsOpcode::kPong ? WsEvent::Kind::kPong
                                   : WsEvent::Kind::kClose;
  if (e.kind != WsEvent::Kind::kClose) {
    e.payload = std::move(payload);
    return e;
  }
  if (payload.size() == 1) return error(WsClose::kProtocolError, "a close payload of 1 byte");
  e.code = WsClose::kNoStatus;
  if (payload.size() >= 2) {
    e.code = static_cast<unsigned char>(payload[0]) << 8 | static_cast<unsigned char>(payload[1]);
    if (!valid_close_code(e.code))
      return error(WsClose::kProtocolError, format("close code {} may not be sent", e.code));
    e.payload = payload.substr(2);
    if (!is_valid_utf8(e.payload))
      return error(WsClose::kInvalidData, "the close reason is not UTF-8");
  }
  return e;
}

std::string encode_frame(WsOpcode opcode, std::string_view payload) {
  std::string f;
  f += static_cast<char>(0x80 | static_cast<int>(opcode));
  const uint64_t n = payload.size();
  if (n < 126) {
    f += static_cast<char>(n);
  } else if (n < 65536) {
    f += static_cast<char>(126);
    for (int i = 1; i >= 0; --i) f += static_cast<char>((n >> (8 * i)) & 0xff);
  } else {
    f += static_cast<char>(127);
    for (int i = 7; i >= 0; --i) f += static_cast<char>((n >> (8 * i)) & 0xff);
  }
  f += payload;
  return f;
}

std::string encode_close(int code, std::string_view reason) {
  size_t n = std::min<size_t>(reason.size(), 123);
  // Back up over continuation bytes (10xxxxxx) so that no character is cut in two.
  while (n < reason.size() && n > 0 && (static_cast<unsigned char>(reason[n]) & 0xc0) == 0x80) --n;
  std::string payload;
  payload += static_cast<char>((code >> 8) & 0xff);
  payload += static_cast<char>(code & 0xff);
  payload += reason.substr(0, n);
  return encode_frame(WsOpcode::kClose, payload);
}

}  // namespace realmt::server
