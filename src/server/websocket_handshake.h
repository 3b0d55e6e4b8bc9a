// The opening handshake of WebSocket (RFC 6455 section 4.2) and the two small pieces of
// cryptography it needs: SHA-1 (FIPS 180-4) and base64 (RFC 4648 section 4). SHA-1 here only
// proves that the server read the client's key (section 1.3); it protects nothing.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "server/http_message.h"

namespace realmt::server {

std::array<uint8_t, 20> sha1(std::string_view data);
std::string base64_encode(std::string_view bytes);
// Strict: the alphabet of RFC 4648 section 4, '=' padding to a multiple of 4, no whitespace,
// and zero bits in the padding positions; nullopt otherwise.
std::optional<std::string> base64_decode(std::string_view text);

// Sec-WebSocket-Accept for a Sec-WebSocket-Key: base64(SHA-1(key + the RFC's GUID)).
std::string websocket_accept_key(std::string_view key);

// The answer to a GET that asks for a WebSocket: 101 Switching Protocols (upgrade set, with
// Upgrade, Connection and Sec-WebSocket-Accept) when the request is a valid opening handshake;
// otherwise 426 (no "Upgrade: websocket" or no "Connection: Upgrade": a plain GET), 400 (a key
// that is not 16 bytes in base64, a missing key, HTTP/1.0) or 426 with
// "Sec-WebSocket-Version: 13" (another version), each with {"error": "<reason>"}. No
// subprotocol and no extension is accepted (those the client offers are ignored, as the RFC
// allows).
HttpResponse websocket_handshake(const HttpRequest& request);

}  // namespace realmt::server
