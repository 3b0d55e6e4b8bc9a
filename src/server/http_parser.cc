#include "server/http_parser.h"

#include <algorithm>
#include <cstring>

#include "core/error.h"

namespace realmt::server {

namespace {

constexpr size_t kMaxChunkLine = 4096;  // chunk size with its extensions

// RFC 9110 5.6.2 token characters.
bool is_tchar(unsigned char c) {
  return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
         (c != 0 && std::strchr("!#$%&'*+-.^_`|~", c) != nullptr);
}

bool is_token(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return is_tchar(c); });
}

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string_view strip_eol(std::string_view line) {
  if (!line.empty() && line.back() == '\n') line.remove_suffix(1);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

std::string_view trim_ows(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string lowercase(std::string_view s) {
  std::string out(s);
  for (char& c : out)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  return out;
}

// What a client sent, quoted in an error: at most 60 bytes, control bytes as '?'.
std::string quote(std::string_view s) {
  std::string out(s.substr(0, 60));
  for (char& c : out)
    if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) c = '?';
  return "'" + out + (s.size() > 60 ? "...'" : "'");
}

// 1 to 18 decimal digits (no sign, no spaces): the length, or -1.
int64_t parse_length(std::string_view s) {
  if (s.empty() || s.size() > 18) return -1;
  int64_t v = 0;
  for (char c : s) {
    if (c < '0' || c > '9') return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

}  // namespace

RequestParser::RequestParser(HttpLimits limits) : limits_(limits) {
  REALMT_CHECK(limits_.max_header_bytes >= 64 && limits_.max_header_fields >= 1 &&
                   limits_.max_body_bytes >= 0,
               "HTTP limits: max-header-bytes must be >= 64 (got {}), header fields >= 1",
               limits_.max_header_bytes);
}

void RequestParser::reset() {
  state_ = State::kIdle;
  head_done_ = false;
  request_ = HttpRequest{};
  head_.clear();
  line_.clear();
  chunk_cr_ = false;
  line_start_ = 0;
  fields_ = 0;
  remaining_ = 0;
  trailer_bytes_ = 0;
  error_status_ = 0;
  error_reason_.clear();
}

HttpRequest RequestParser::take() {
  HttpRequest r = std::move(request_);
  reset();
  return r;
}

void RequestParser::fail(int status, std::string reason) {
  state_ = State::kError;
  error_status_ = status;
  error_reason_ = std::move(reason);
}

int RequestParser::read_line(std::string_view data, size_t cap, size_t* used) {
  const size_t nl = data.find('\n');
  const size_t n = nl == std::string_view::npos ? data.size() : nl + 1;
  if (line_.size() + n > cap) {  // used: up to the cap, wherever the pieces were cut
    *used = cap - line_.size();
    return -1;
  }
  line_.append(data.substr(0, n));
  *used = n;
  return nl == std::string_view::npos ? 0 : 1;
}

size_t RequestParser::feed(std::string_view data) {
  size_t pos = 0;
  while (pos < data.size() && state_ != State::kDone && state_ != State::kError) {
    const std::string_view rest = data.substr(pos);
    size_t used = 0;
    switch (state_) {
      case State::kIdle:
        if (rest[0] == '\r' || rest[0] == '\n') {  // empty lines before a request
          ++pos;
        } else {
          state_ = State::kHead;
        }
        break;
      case State::kHead: {
        const size_t nl = rest.find('\n');
        const size_t n = nl == std::string_view::npos ? rest.size() : nl + 1;
        if (head_.size() + n > static_cast<size_t>(limits_.max_header_bytes)) {
          pos += static_cast<size_t>(limits_.max_header_bytes) - head_.size();  // to the limit
          if (line_start_ == 0)
            fail(414, format("request line longer than {} bytes", limits_.max_header_bytes));
          else
            fail(431, format("request header fields over the limit of {} bytes",
                             limits_.max_header_bytes));
          break;
        }
        head_.append(rest.substr(0, n));
        pos += n;
        if (nl == std::string_view::npos) break;
        const std::string_view line = strip_eol(std::string_view(head_).substr(line_start_));
        if (line.empty() && line_start_ > 0) {
          parse_head();
        } else if (line_start_ > 0 && ++fields_ > limits_.max_header_fields) {
          fail(431, format("more than {} request header fields", limits_.max_header_fields));
        } else {
          line_start_ = head_.size();
        }
        break;
      }
      case State::kBody: {
        const size_t n = static_cast<size_t>(std::min<int64_t>(remaining_, rest.size()));
        request_.body.append(rest.substr(0, n));
        pos += n;
        remaining_ -= static_cast<int64_t>(n);
        if (remaining_ == 0) state_ = State::kDone;
        break;
      }
      case State::kChunkSize: {
        const int r = read_line(rest, kMaxChunkLine, &used);
        pos += used;
        if (r < 0) {
          fail(400, format("chunk size line longer than {} bytes", kMaxChunkLine));
          break;
        }
        if (r == 1) {
          const std::string line(strip_eol(line_));
          line_.clear();
          parse_chunk_size(line);
        }
        break;
      }
      case State::kChunkData: {
        const size_t n = static_cast<size_t>(std::min<int64_t>(remaining_, rest.size()));
        request_.body.append(rest.substr(0, n));
        pos += n;
        remaining_ -= static_cast<int64_t>(n);
        if (remaining_ == 0) state_ = State::kChunkEnd;
        break;
      }
      case State::kChunkEnd: {  // "\r\n" or "\n", byte by byte: the error is at the bad byte
        if (rest[0] == '\n') {
          ++pos;
          chunk_cr_ = false;
          state_ = State::kChunkSize;
        } else if (rest[0] == '\r' && !chunk_cr_) {
          ++pos;
          chunk_cr_ = true;
        } else {
          fail(400, "chunk data longer than its chunk size (no CRLF after the data)");
        }
        break;
      }
      case State::kTrailer: {
        const size_t room = static_cast<size_t>(limits_.max_header_bytes - trailer_bytes_);
        const int r = read_line(rest, room, &used);
        pos += used;
        if (r < 0) {
          fail(431, format("chunked trailer fields over the limit of {} bytes",
                           limits_.max_header_bytes));
          break;
        }
        if (r == 1) {  // trailer fields are read and dropped: nothing here uses them
          trailer_bytes_ += static_cast<int64_t>(line_.size());
          if (strip_eol(line_).empty()) state_ = State::kDone;
          line_.clear();
        }
        break;
      }
      case State::kDone:
      case State::kError: break;
    }
  }
  return pos;
}

void RequestParser::parse_head() {
  std::string_view head(head_);
  size_t start = 0;
  bool first = true;
  while (start < head.size()) {
    const size_t nl = head.find('\n', start);
    const std::string_view line = strip_eol(head.substr(start, nl + 1 - start));
    start = nl + 1;
    if (first) {
      first = false;
      parse_request_line(line);
      if (failed()) return;
      continue;
    }
    if (line.empty()) break;
    if (line[0] == ' ' || line[0] == '\t') {
      fail(400, format("obsolete line folding in the header (a field line starting with "
                       "whitespace): {}",
                       quote(line)));
      return;
    }
    const size_t colon = line.find(':');
    if (colon == std::string_view::npos || !is_token(line.substr(0, colon))) {
      fail(400, format("malformed header field {} (want 'Name: value', no space before ':')",
                       quote(line)));
      return;
    }
    const std::string_view value = trim_ows(line.substr(colon + 1));
    for (char c : value) {
      const auto u = static_cast<unsigned char>(c);
      if ((u < 0x20 && c != '\t') || u == 0x7f) {
        fail(400, format("control character in header field {}", quote(line.substr(0, colon))));
        return;
      }
    }
    request_.headers.emplace_back(lowercase(line.substr(0, colon)), std::string(value));
  }
  head_.clear();
  head_.shrink_to_fit();
  head_done_ = true;
  finish_head_semantics();
}

void RequestParser::parse_request_line(std::string_view line) {
  const size_t sp1 = line.find(' ');
  const size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 == std::string_view::npos || line.find(' ', sp2 + 1) != std::string_view::npos) {
    fail(400, format("malformed request line {} (want 'METHOD /path HTTP/1.1')", quote(line)));
    return;
  }
  const std::string_view method = line.substr(0, sp1);
  const std::string_view target = line.substr(sp1 + 1, sp2 - sp1 - 1);
  const std::string_view version = line.substr(sp2 + 1);
  if (!is_token(method)) {
    fail(400, format("malformed method {}", quote(method)));
    return;
  }
  const bool visible = std::all_of(target.begin(), target.end(), [](char c) {
    return static_cast<unsigned char>(c) > 0x20 && static_cast<unsigned char>(c) < 0x7f;
  });
  if (target.empty() || !visible) {
    fail(400, format("malformed request target {}", quote(target)));
    return;
  }
  if (version.size() != 8 || version.substr(0, 5) != "HTTP/" || version[6] != '.' ||
      version[5] < '0' || version[5] > '9' || version[7] < '0' || version[7] > '9') {
    fail(400, format("malformed HTTP version {}", quote(version)));
    return;
  }
  if (version[5] != '1' || (version[7] != '0' && version[7] != '1')) {
    fail(505, format("{} is not supported (HTTP/1.1 and HTTP/1.0 are)", quote(version)));
    return;
  }
  request_.method = std::string(method);
  request_.target = std::string(target);
  request_.version_minor = version[7] - '0';
  // origin-form "/path?query"; absolute-form "http://host/path" (RFC 9112 3.2.2: servers
  // accept it); "*" (OPTIONS) is kept as the path "*", which no route has.
  std::string_view path = target;
  if (target[0] != '/' && target != "*") {
    const size_t scheme = target.find("://");
    const std::string_view s = target.substr(0, scheme);
    if (scheme == std::string_view::npos || !(iequals(s, "http") || iequals(s, "https"))) {
      fail(400, format("request target {} is not a path ('/...')", quote(target)));
      return;
    }
    const size_t slash = target.find('/', scheme + 3);
    path = slash == std::string_view::npos ? std::string_view("/") : target.substr(slash);
  }
  request_.path = std::string(path.substr(0, path.find_first_of("?#")));
}

void RequestParser::finish_head_semantics() {
  HttpRequest& r = request_;
  int hosts = 0;
  bool close = false, keep_alive = false;
  std::string transfer_encoding;
  int64_t length = -1;
  for (const auto& [name, value] : r.headers) {
    if (name == "host") {
      ++hosts;
    } else if (name == "connection") {
      close = close || has_token(value, "close");
      keep_alive = keep_alive || has_token(value, "keep-alive");
    } else if (name == "expect") {
      if (!iequals(value, "100-continue")) {
        fail(417, format("Expect: {} is not supported (only 100-continue)", quote(value)));
        return;
      }
      r.expect_continue = true;
    } else if (name == "transfer-encoding") {
      transfer_encoding += (transfer_encoding.empty() ? "" : ", ") + value;
    } else if (name == "content-length") {
      // A list of equal values ("5, 5") or repeated fields are one length (RFC 9112 6.3).
      std::string_view rest = value;
      while (true) {
        const size_t comma = rest.find(',');
        const int64_t v = parse_length(trim_ows(rest.substr(0, comma)));
        if (v < 0) {
          fail(400, format("Content-Length: {} is not a length (a decimal number of bytes)",
                           quote(value)));
          return;
        }
        if (length >= 0 && v != length) {
          fail(400, "Content-Length given more than once, with different values");
          return;
        }
        length = v;
        if (comma == std::string_view::npos) break;
        rest.remove_prefix(comma + 1);
      }
    }
  }
  if (r.version_minor == 1 && hosts != 1) {
    fail(400,
         hosts == 0 ? "Host header missing (HTTP/1.1 requires one)" : "more than one Host header");
    return;
  }
  r.keep_alive = r.version_minor == 1 ? !close : keep_alive && !close;
  const bool chunked = !transfer_encoding.empty();
  if (chunked) {
    if (r.version_minor == 0) {
      fail(400, "Transfer-Encoding in an HTTP/1.0 request");
      return;
    }
    if (length >= 0) {
      fail(400, "both Content-Length and Transfer-Encoding (send one of them)");
      return;
    }
    if (!iequals(transfer_encoding, "chunked")) {
      fail(501, format("Transfer-Encoding: {} is not supported (only chunked)",
                       quote(transfer_encoding)));
      return;
    }
    state_ = State::kChunkSize;
    return;
  }
  if (length > limits_.max_body_bytes) {
    fail(413, format("request body of {} bytes is over the limit of {} bytes", length,
                     limits_.max_body_bytes));
    return;
  }
  if (length < 0 && (r.method == "POST" || r.method == "PUT" || r.method == "PATCH")) {
    fail(411, format("{} without Content-Length (send the body's length, or "
                     "Transfer-Encoding: chunked)",
                     r.method));
    return;
  }
  remaining_ = std::max<int64_t>(length, 0);
  state_ = remaining_ > 0 ? State::kBody : State::kDone;
}

void RequestParser::parse_chunk_size(std::string_view line) {
  // chunk-size [ BWS ";" chunk-ext ]: extensions are allowed and ignored.
  std::string_view digits = line.substr(0, line.find(';'));
  while (!digits.empty() && (digits.back() == ' ' || digits.back() == '\t'))
    digits.remove_suffix(1);
  size_t i = 0;
  while (i + 1 < digits.size() && digits[i] == '0') ++i;  // leading zeros carry nothing
  const std::string_view significant = digits.substr(i);
  int64_t size = 0;
  bool huge = false;
  for (char c : significant) {
    const int h = hex_value(c);
    if (h < 0) {
      fail(400, format("malformed chunk size {}", quote(line)));
      return;
    }
    if (size > (int64_t{1} << 58)) huge = true;  // beyond any limit; stop before overflow
    if (!huge) size = size * 16 + h;
  }
  if (digits.empty()) {
    fail(400, format("malformed chunk size {}", quote(line)));
    return;
  }
  if (size == 0) {
    state_ = State::kTrailer;
    return;
  }
  if (huge || size > limits_.max_body_bytes - static_cast<int64_t>(request_.body.size())) {
    fail(413, format("chunked request body over the limit of {} bytes", limits_.max_body_bytes));
    return;
  }
  remaining_ = size;
  state_ = State::kChunkData;
}

}  // namespace realmt::server
