// A raw HTTP client for the server tests: one TCP connection from a chosen loopback address
// (any of 127.0.0.0/8, so that tests can play several clients), bytes sent exactly as given,
// answers read with a time limit. Everything blocks at most the time it is given.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <map>
#include <stdexcept>
#include <string>

namespace realmt::server::test {

struct RawResponse {
  int status = -1;  // -1: the connection closed, or the time passed, before a whole answer
  std::map<std::string, std::string> headers;  // names lower-cased
  std::string body;
};

class RawClient {
 public:
  explicit RawClient(int port, const std::string& source = "127.0.0.1") {
    fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd_ < 0) throw std::runtime_error("socket()");
    sockaddr_in a{};
    a.sin_family = AF_INET;
    inet_pton(AF_INET, source.c_str(), &a.sin_addr);
    if (::bind(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("bind " + source);
    a.sin_port = htons(static_cast<uint16_t>(port));
    inet_pton(AF_INET, "127.0.0.1", &a.sin_addr);
    if (::connect(fd_, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0)
      throw std::runtime_error("connect from " + source);
  }
  ~RawClient() { close(); }
  RawClient(const RawClient&) = delete;
  RawClient& operator=(const RawClient&) = delete;

  void close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }
  int fd() const { return fd_; }

  // False when the server has closed or reset the connection.
  bool send(const std::string& bytes) {
    size_t done = 0;
    while (done < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + done, bytes.size() - done, MSG_NOSIGNAL);
      if (n <= 0) return false;
      done += static_cast<size_t>(n);
    }
    return true;
  }

  // Whether bytes (or the end) can be read within timeout_ms.
  bool readable(int timeout_ms) {
    pollfd p{fd_, POLLIN, 0};
    return ::poll(&p, 1, timeout_ms) > 0;
  }

  // One answer: status line, fields, Content-Length body (none for the answer to HEAD). What
  // follows it stays buffered.
  RawResponse read_response(int timeout_ms = 10000, bool answer_to_head = false) {
    RawResponse r;
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    size_t end;
    while ((end = buf_.find("\r\n\r\n")) == std::string::npos)
      if (!fill(until)) return r;
    const std::string head = buf_.substr(0, end + 2);
    buf_.erase(0, end + 4);
    if (head.compare(0, 9, "HTTP/1.1 ") != 0) return r;
    size_t pos = head.find("\r\n") + 2;
    while (pos < head.size()) {
      const size_t eol = head.find("\r\n", pos);
      const std::string line = head.substr(pos, eol - pos);
      const size_t colon = line.find(':');
      std::string name = line.substr(0, colon);
      for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      r.headers[name] = line.substr(line.find_first_not_of(' ', colon + 1));
      pos = eol + 2;
    }
    const size_t length = !answer_to_head && r.headers.count("content-length")
                              ? std::stoul(r.headers["content-length"])
                              : 0;
    while (buf_.size() < length)
      if (!fill(until)) return r;
    r.body = buf_.substr(0, length);
    buf_.erase(0, length);
    r.status = std::stoi(head.substr(9, 3));
    return r;
  }

  // The next n bytes (what follows an answer: WebSocket frames), or what came before the end or
  // the time limit.
  std::string read_bytes(size_t n, int timeout_ms = 10000) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (buf_.size() < n)
      if (!fill(until)) break;
    const std::string out = buf_.substr(0, n);
    buf_.erase(0, out.size());
    return out;
  }

  // True when the server closes (end of stream or reset) within timeout_ms; data before the
  // end is dropped.
  bool closed_within(int timeout_ms) {
    const auto until = std::chrono::steady_clock::now() + std::chrono::milliseconds(timeout_ms);
    while (true) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                            until - std::chrono::steady_clock::now())
                            .count();
      if (left < 0 || !readable(static_cast<int>(left))) return false;
      char b[4096];
      if (::recv(fd_, b, sizeof b, 0) <= 0) return true;
    }
  }

 private:
  bool fill(std::chrono::steady_clock::time_point until) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
                          until - std::chrono::steady_clock::now())
                          .count();
    if (left < 0 || !readable(static_cast<int>(left))) return false;
    char b[4096];
    const ssize_t n = ::recv(fd_, b, sizeof b, 0);
    if (n <= 0) return false;
    buf_.append(b, static_cast<size_t>(n));
    return true;
  }

  int fd_ = -1;
  std::string buf_;
};

}  // namespace realmt::server::test
