// WebSocket frames (RFC 6455 section 5) as the server sees them, with no sockets: a reader of
// the client's frames with every check of the RFC and a size limit, and the server's frames.
//
//   FrameReader r(max_message_bytes);
//   size_t used;
//   std::optional<WsEvent> e = r.next(buffered_bytes, &used);  // drop `used` bytes, act on e
//
// What the reader refuses (a kError event with the close code to send):
//   1002  reserved bits set (no extension is negotiated), an unknown opcode, an unmasked frame,
//         a control frame that is fragmented or longer than 125 bytes, a length not in its
//         shortest form or with the top bit of the 64-bit form set, a continuation with no
//         message begun, a new message before the last one ended, a close payload of 1 byte or
//         with a code no endpoint may send
//   1003  a binary message (the endpoint translates text)
//   1007  a text message or close reason that is not UTF-8
//   1009  a message (all its fragments) over max_message_bytes: refused at the frame header
//         that passes the limit, before its payload is read
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace realmt::server {

enum class WsOpcode : uint8_t {
  kContinuation = 0x0,
  kText = 0x1,
  kBinary = 0x2,
  kClose = 0x8,
  kPing = 0x9,
  kPong = 0xA
};

// Close codes the server sends (RFC 6455 section 7.4.1; 1013 from IANA's registry).
struct WsClose {
  static constexpr int kNormal = 1000, kGoingAway = 1001, kProtocolError = 1002,
                       kUnsupportedData = 1003, kNoStatus = 1005, kInvalidData = 1007,
                       kPolicy = 1008, kTooBig = 1009, kInternalError = 1011, kTryAgainLater = 1013;
};

struct WsEvent {
  enum class Kind { kText, kPing, kPong, kClose, kError };
  Kind kind = Kind::kText;
  std::string payload;  // the text message, the ping or pong data, the close or error reason
  int code = 0;         // kClose: the client's code (1005: none given); kError: the code to send
};

class FrameReader {
 public:
  explicit FrameReader(int64_t max_message_bytes) : max_message_bytes_(max_message_bytes) {}

  // Reads whole frames from the front of `in` until one completes an event (a text message,
  // a control frame, an error); *used says how many bytes of `in` were consumed, also when no
  // event came (fragments of a message). An incomplete frame is left in `in` for the next call:
  // the caller keeps at most 14 header bytes plus max_message_bytes of it. Call no more after
  // kClose or kError.
  std::optional<WsEvent> next(std::string_view in, size_t* used);

  // A fragmented message has begun and not ended.
  bool in_message() const { return fragmented_; }

 private:
  std::optional<WsEvent> complete_message();
  std::optional<WsEvent> control(WsOpcode op, std::string payload);

  int64_t max_message_bytes_;
  std::string message_;  // the fragments so far
  bool fragmented_ = false;
};

// A server frame: FIN set, not masked (section 5.1), the payload's length in its shortest form.
std::string encode_frame(WsOpcode opcode, std::string_view payload);
// A close frame with `code` and `reason`, cut to fit 125 bytes without splitting a character.
std::string encode_close(int code, std::string_view reason);

}  // namespace realmt::server
