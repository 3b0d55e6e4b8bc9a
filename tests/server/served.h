// The HTTP service in process for the server tests: on a loopback port chosen by the kernel,
// with a fake codec (letter -> id; language tags >>fra<< and >>spa<<) and the fake decoder (a
// translation is the source reversed).
#pragma once

#include <httplib.h>

#include <chrono>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "server/fake_decoder.h"
#include "server/http_server.h"

namespace realmt::server::test {

inline TextCodec letters() {
  return {[](const std::string& s) {
            std::vector<int32_t> ids;
            for (char c : s) ids.push_back(static_cast<int32_t>(c));
            return ids;
          },
          [](const std::vector<int32_t>& ids) {
            std::string s;
            for (int32_t i : ids) s.push_back(static_cast<char>(i));
            return s;
          },
          [](const std::string& language) {
            if (language != "fra" && language != "spa")
              throw std::invalid_argument("no tag >>" + language + "<<; it has >>fra<< >>spa<<");
            return ">>" + language + "<<";
          }};
}

// Small limits that the tests can pass with few bytes.
inline HttpConfig small_limits() {
  HttpConfig c;
  c.max_body_bytes = 2000;
  c.limits.max_sentences = 4;
  c.limits.max_sentence_bytes = 100;
  c.limits.max_sentence_tokens = 20;
  c.limits.max_beam_size = 4;
  c.limits.max_n_best = 4;
  c.scheduler.max_wait_ms = 1;
  return c;
}

class Served {
 public:
  explicit Served(HttpConfig c, int threads = 8)
      : server_(adjust(std::move(c), threads), letters(), fake_.fn()) {
    port_ = server_.bind();
    thread_ = std::thread([this] { server_.serve(); });
  }
  ~Served() {
    server_.shutdown(std::chrono::milliseconds(10000));
    thread_.join();
  }
  httplib::Client client() const {
    httplib::Client c("127.0.0.1", port_);
    c.set_read_timeout(20, 0);
    return c;
  }
  HttpServer& server() { return server_; }
  int port() const { return port_; }

 private:
  static HttpConfig adjust(HttpConfig c, int threads) {
    c.port = 0;
    c.threads = threads;
    return c;
  }
  FakeDecoder fake_;
  HttpServer server_;
  int port_ = 0;
  std::thread thread_;
};

}  // namespace realmt::server::test
