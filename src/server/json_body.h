// The JSON reader of every request body the server parses (server/request.h,
// server/compat_api.h): nlohmann-json with the server's strictness. Internal to realmt_server.
#pragma once

#include <nlohmann/json.hpp>
#include <string_view>

namespace realmt::server {

// Parses `body`. Throws HttpError 400 for malformed JSON (naming where the parser stopped), a
// key given twice in one object, or a number beyond double's range (naming the field).
nlohmann::json parse_json_body(std::string_view body);

}  // namespace realmt::server
