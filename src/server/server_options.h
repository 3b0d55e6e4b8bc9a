// Options of realmt-server (Marian's names where the feature matches), parsed once.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "search/decode_options.h"
#include "server/http_server.h"

namespace realmt {
class OptionSet;
}

namespace realmt::server {

struct ServerOptions {
  search::ModelOptions model;  // models, vocabs, weights, devices, cpu-threads, mini-batch
  std::string language_pair;   // "en-fr": what the web page and /v1/info show (empty: unknown)
  // Listening
  std::string host = "127.0.0.1";
  int port = 8080;
  int http_threads = 128;    // workers handling translation requests (reading is on one thread)
  std::string api_key_file;  // first line is the bearer token; empty: no authentication
  // Connections (the HTTP front, server/http_listener.h)
  int64_t keep_alive_timeout_ms = 5000;  // waiting for a request, new or kept-alive connection
  int64_t header_timeout_ms = 10000;     // request line and fields, from their first byte
  int64_t body_timeout_ms = 30000;       // the body, from the end of the fields
  int64_t write_timeout_ms = 10000;      // an answer to be taken by the client
  int max_connections = 10000;
  int max_connections_per_client = 256;
  int64_t max_header_bytes = 16384;
  int64_t websocket_idle_timeout_ms = 300000;  // a WebSocket waiting for its next message
  // Search defaults (a request may choose beam_size and n_best within the limits)
  int beam_size = 4;
  double normalize = 0.0;
  double word_penalty = 0.0;
  double max_length_factor = 3.0;
  int repeat_guard = 4;  // SearchOptions::repeat_ngram (0: off)
  search::LengthRule length_rule = search::LengthRule::kRealmt;  // SearchOptions::length_rule
  int64_t max_length = 1000;  // source subwords, eos counted (Marian's input limit)
  bool allow_unk = false;
  std::vector<std::string>
      shortlist;  // FILE [first [best [threshold]]] (search/shortlist.h); empty: none
  // Batching across requests
  int64_t max_batch_tokens = 4096;
  int64_t max_wait_ms = 5;
  // Limits. A request's defaults are sized for 2 CPU cores and the default model (6+6 layers,
  // D 512, 8000 subwords, beam 4): at the 30-38 target subwords/s bench/RESULTS.md measured for
  // transformer-base there, 16 sentences of ~35 subwords take roughly 15-30 s, within the 60 s
  // deadline (README, realmt-server); raise max-request-sentences on faster hardware.
  int max_beam_size = 16;
  int max_n_best = 16;
  int64_t max_request_sentences = 16;
  int64_t max_sentence_tokens = 256;
  int64_t max_body_bytes = 1 << 20;
  int64_t max_queue_sentences = 4096;
  int64_t max_queue_tokens = 262144;
  int64_t request_timeout_ms = 60000;
  int64_t drain_timeout_ms = 60000;

  void declare(OptionSet& o);
  void validate() const;
  // The HTTP front's configuration (reads api-key-file).
  HttpConfig http_config() const;
};

// The token in `path`: its first line, surrounding whitespace removed; throws when the file is
// unreadable or the token empty.
std::string read_api_key(const std::string& path);

}  // namespace realmt::server
