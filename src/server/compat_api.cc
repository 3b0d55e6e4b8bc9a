#include "server/compat_api.h"

#include <map>

#include "core/error.h"
#include "server/http_message.h"
#include "server/json_body.h"

namespace realmt::server {

namespace {

using nlohmann::json;

[[noreturn]] void bad(const std::string& reason) { throw HttpError(400, reason); }

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// application/x-www-form-urlencoded decoding: '+' is a space, %XX a byte.
std::string url_decode(std::string_view s) {
  std::string out;
  for (size_t i = 0; i < s.size(); ++i) {
    if (s[i] == '+') {
      out += ' ';
    } else if (s[i] == '%') {
      const int hi = i + 2 < s.size() ? hex_value(s[i + 1]) : -1;
      const int lo = i + 2 < s.size() ? hex_value(s[i + 2]) : -1;
      if (hi < 0 || lo < 0) bad(format("query: malformed %-escape in '{}'", s));
      out += static_cast<char>(hi * 16 + lo);
      i += 2;
    } else {
      out += s[i];
    }
  }
  return out;
}

std::map<std::string, std::string> parse_query(std::string_view target) {
  std::map<std::string, std::string> params;
  const size_t q = target.find('?');
  std::string_view rest = q == std::string_view::npos ? std::string_view() : target.substr(q + 1);
  while (!rest.empty()) {
    const std::string_view item = rest.substr(0, rest.find('&'));
    rest.remove_prefix(std::min(rest.size(), item.size() + 1));
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    const std::string key = url_decode(item.substr(0, eq));
    const std::string value = eq == std::string_view::npos ? "" : url_decode(item.substr(eq + 1));
    if (key != "api-version" && key != "from" && key != "to" && key != "textType")
      bad(format("query parameter '{}' is not supported (known: api-version, from, to, textType)",
                 key));
    if (!params.emplace(key, value).second)
      bad(key == "to" ? format("to: this server translates into one language; give 'to' once")
                      : format("{}: the query parameter is given more than once", key));
  }
  return params;
}

// Checks from/to against the pair's sides; returns the target language to report.
std::string check_languages(const std::map<std::string, std::string>& q,
                            std::string_view language_pair) {
  const size_t dash = language_pair.find('-');
  const std::string source(dash == std::string_view::npos ? "" : language_pair.substr(0, dash));
  const std::string target(dash == std::string_view::npos ? "" : language_pair.substr(dash + 1));
  for (const auto& [key, side] : {std::pair{"from", source}, std::pair{"to", target}}) {
    const auto it = q.find(key);
    if (it != q.end() && !side.empty() && !iequals(it->second, side))
      bad(format("{}: '{}' is not this server's {} language ({}; its pair is {})", key, it->second,
                 key == std::string("from") ? "source" : "target", side, language_pair));
  }
  const auto to = q.find("to");
  return to != q.end() ? to->second : target;
}

std::string item_text(const json& item, size_t i, const RequestLimits& limits) {
  if (!item.is_object())
    bad(format("[{}]: must be an object {\"text\": \"...\"}, got {}", i, item.type_name()));
  const json* text = nullptr;
  for (const auto& [key, v] : item.items()) {
    if (key != "text" && key != "Text") bad(format("[{}].{}: unknown field (known: text)", i, key));
    if (text) bad(format("[{}]: give one of text and Text", i));
    text = &v;
  }
  if (!text) bad(format("[{}].text: missing", i));
  if (!text->is_string()) bad(format("[{}].text: must be a string, got {}", i, text->type_name()));
  const auto& s = text->get_ref<const std::string&>();
  if (static_cast<int64_t>(s.size()) > limits.max_sentence_bytes)
    throw HttpError(413, format("[{}].text: {} bytes, this server takes at most {} a sentence", i,
                                s.size(), limits.max_sentence_bytes));
  return s;
}

}  // namespace

bool is_compat_path(std::string_view path) { return path == "/translate" || path == "/translate/"; }

std::vector<std::string> split_marian_lines(std::string_view message) {
  std::vector<std::string> lines;
  while (!message.empty()) {
    const size_t nl = message.find('\n');
    lines.emplace_back(message.substr(0, nl));
    message.remove_prefix(nl == std::string_view::npos ? message.size() : nl + 1);
  }
  return lines;
}

std::string join_marian_lines(const std::vector<std::string>& translations) {
  std::string out;
  for (size_t i = 0; i < translations.size(); ++i) {
    if (i > 0) out += '\n';
    out += translations[i];
  }
  return out + '\n';  // marian-server joins with '\n' and ends its reply with std::endl
}

MtApiRequest parse_mtapi_request(std::string_view target, std::string_view body,
                                 const RequestLimits& limits, std::string_view language_pair) {
  const std::map<std::string, std::string> q = parse_query(target);
  if (auto v = q.find("api-version"); v != q.end() && v->second != "3.0")
    bad(format("api-version: '{}' is not supported (3.0 is)", v->second));
  if (auto t = q.find("textType"); t != q.end() && !iequals(t->second, "plain"))
    bad(format("textType: '{}' is not supported (plain is)", t->second));
  MtApiRequest r;
  r.to = check_languages(q, language_pair);
  const json doc = parse_json_body(body);
  if (!doc.is_array())
    bad(format("the body must be a JSON array [{\"text\": \"...\"}, ...], got {}",
               doc.type_name()));
  if (static_cast<int64_t>(doc.size()) > limits.max_sentences)
    throw HttpError(413, format("{} entries, this server takes at most {} a request", doc.size(),
                                limits.max_sentences));
  for (size_t i = 0; i < doc.size(); ++i) r.text.push_back(item_text(doc[i], i, limits));
  return r;
}

std::string format_mtapi_translations(const std::vector<std::string>& translations,
                                      const std::string& to) {
  json out = json::array();
  for (const std::string& t : translations) {
    json one = {{"text", t}};
    if (!to.empty()) one["to"] = to;
    out.push_back({{"translations", json::array({std::move(one)})}});
  }
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

std::string format_mtapi_error(int status, std::string_view reason) {
  const json out = {{"error", {{"code", status * 1000}, {"message", std::string(reason)}}}};
  return out.dump(-1, ' ', false, json::error_handler_t::replace);
}

}  // namespace realmt::server
