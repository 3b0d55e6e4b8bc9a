// The page realmt-server answers at / (src/server/web/index.html, built into the program by
// src/server/CMakeLists.txt): plain HTML and JavaScript that use the server's own API
// (/v1/info, /v1/translate, /metrics). Nothing is fetched from elsewhere.
#pragma once

#include <string_view>

namespace realmt::server {

std::string_view web_page_html();

// The Content-Security-Policy the page is served with: its own inline script and style, requests
// to this server only.
inline constexpr const char* kWebPagePolicy =
    "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; connect-src "
    "'self'; "
    "img-src 'self' data:; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

}  // namespace realmt::server
