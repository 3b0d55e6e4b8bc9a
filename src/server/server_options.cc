#include "server/server_options.h"

#include <algorithm>
#include <fstream>

#include "common/options.h"
#include "core/error.h"

namespace realmt::server {

void ServerOptions::declare(OptionSet& o) {
  model.declare(o, "Model");
  o.add("Model", "language-pair", &language_pair,
        "SRC-TRG the models translate (e.g. en-fr), shown by the web page and /v1/info (empty: not "
        "shown)");
  o.add("Server", "host", &host, "Address to listen on (0.0.0.0: all interfaces)");
  o.add("Server", "port", &port, "Port to listen on (0: a free one, printed at start)");
  o.add("Server", "http-threads", &http_threads,
        "Worker threads handling translation requests (one event-loop thread reads and writes "
        "every connection)");
  o.add("Server", "api-key-file", &api_key_file,
        "File whose first line is the bearer token clients must send (empty: none)");
  o.add("Connections", "keep-alive-timeout-ms", &keep_alive_timeout_ms,
        "How long a connection may wait for its next request (a new one: for its first)");
  o.add("Connections", "header-timeout-ms", &header_timeout_ms,
        "Request line and header fields must arrive within this, from their first byte (408)");
  o.add("Connections", "body-timeout-ms", &body_timeout_ms,
        "A request body must arrive within this, from the end of the header fields (408)");
  o.add("Connections", "write-timeout-ms", &write_timeout_ms,
        "An answer must be taken by the client within this, else the connection is closed");
  o.add("Connections", "max-connections", &max_connections,
        "Open connections at most (503 beyond); lowered to fit the open-file limit");
  o.add("Connections", "max-connections-per-client", &max_connections_per_client,
        "Open connections of one client address at most (429 beyond); raise it behind a proxy");
  o.add("Connections", "max-header-bytes", &max_header_bytes,
        "Request line and header fields at most (414 / 431 beyond)");
  o.add("Connections", "websocket-idle-timeout-ms", &websocket_idle_timeout_ms,
        "How long a WebSocket (ws://HOST:PORT/translate) may wait for its next message");
  o.add("Search", "beam-size", &beam_size, "Beam size of a request that sets no beam_size");
  o.add("Search", "normalize", &normalize, "Length normalisation: score / length^arg (0: off)");
  o.add("Search", "word-penalty", &word_penalty,
        "Subtract arg * translation length from the score");
  o.add("Search", "repeat-guard", &repeat_guard,
        "Loop guard: no token that makes an n-gram of this many subwords occur a third time (0: "
        "off)");
  o.add("Search", "max-length-factor", &max_length_factor,
        "Output length limit as a multiple of the source length");
  o.add_enum("Search", "length-rule", &length_rule,
             "At the length limit: realmt (the last token eos) or marian (Marian's: the ceiling, "
             "the output cut "
             "there)");
  o.add("Search", "max-length", &max_length,
        "Source subwords (eos counted) a sentence at most, as Marian; longer ones get 413 like "
        "max-sentence-tokens");
  o.add("Search", "allow-unk", &allow_unk, "Allow <unk> in translations");
  search::declare_shortlist(o, &shortlist);
  o.add("Batching", "max-batch-tokens", &max_batch_tokens,
        "Source subwords a batch at most, padding counted (0: off)");
  o.add("Batching", "max-wait-ms", &max_wait_ms,
        "How long a batch that is not full waits for more sentences");
  o.add("Limits", "max-beam-size", &max_beam_size, "Largest beam_size a request may ask for");
  o.add("Limits", "max-n-best", &max_n_best, "Largest n_best a request may ask for");
  o.add("Limits", "max-request-sentences", &max_request_sentences,
        "Sentences a request at most (413 beyond); sized for 2 CPU cores and a base-size model "
        "within "
        "request-timeout-ms");
  o.add("Limits", "max-sentence-tokens", &max_sentence_tokens,
        "Subwords a sentence at most (413 beyond)");
  o.add("Limits", "max-body-bytes", &max_body_bytes,
        "Request body (and WebSocket message) size at most (413; close code 1009)");
  o.add("Limits", "max-queue-sentences", &max_queue_sentences,
        "Queued sentences at most (429 beyond)");
  o.add("Limits", "max-queue-tokens", &max_queue_tokens,
        "Queued source subwords at most (429 beyond)");
  o.add("Limits", "request-timeout-ms", &request_timeout_ms,
        "A request's deadline (504 when passed); a request may ask for less with timeout_ms");
  o.add("Limits", "drain-timeout-ms", &drain_timeout_ms,
        "On SIGTERM, how long queued work may take before the server exits anyway");
  o.short_name("beam-size", 'b').short_name("port", 'p').short_name("normalize", 'n');
  o.implicit_value("normalize", "1");
  search::declare_marian_decoder_options(o, search::DecoderProgram::kServer);
  o.add_no_effect("quiet-translation", OptionSet::Kind::kFlag, "the server logs no translations");
  o.add_unavailable("max-length-crop", OptionSet::Kind::kFlag, {},
                    "the server refuses over-long sentences (413) rather than cropping them");
  o.on_parsed([this](const OptionSet&) { validate(); });
}

void ServerOptions::validate() const {
  model.validate();
  search::validate_shortlist(shortlist);
  REALMT_CHECK(port >= 0 && port <= 65535, "port must be in [0, 65535], got {}", port);
  const size_t dash = language_pair.find('-');
  REALMT_USAGE_CHECK(language_pair.empty() ||
                         (dash > 0 && dash + 1 < language_pair.size() &&
                          language_pair.find_first_of("-\"<>& ", dash + 1) == std::string::npos),
                     "language-pair must be SRC-TRG (e.g. en-fr), got '{}'", language_pair);
  REALMT_CHECK(max_beam_size >= 1 && max_n_best >= 1, "max-beam-size and max-n-best must be >= 1");
  REALMT_CHECK(beam_size >= 1 && beam_size <= max_beam_size,
               "beam-size {} must be in [1, max-beam-size {}]", beam_size, max_beam_size);
  REALMT_CHECK(max_request_sentences >= 1 && max_sentence_tokens >= 1,
               "max-request-sentences and max-sentence-tokens must be >= 1");
  REALMT_CHECK(drain_timeout_ms >= 0, "drain-timeout-ms must be >= 0");
  REALMT_CHECK(max_body_bytes >= 1, "max-body-bytes must be >= 1, got {}", max_body_bytes);
  REALMT_CHECK(websocket_idle_timeout_ms >= 1, "websocket-idle-timeout-ms must be >= 1, got {}",
               websocket_idle_timeout_ms);
  REALMT_CHECK(request_timeout_ms >= 1, "request-timeout-ms must be >= 1, got {}",
               request_timeout_ms);
  REALMT_CHECK(max_length >= 2, "max-length must be at least 2 (a subword and eos), got {}",
               max_length);
  REALMT_CHECK(max_sentence_tokens + 1 <= max_queue_tokens,
               "max-queue-tokens ({}) must hold one sentence of max-sentence-tokens ({})",
               max_queue_tokens, max_sentence_tokens);
}

std::string read_api_key(const std::string& path) {
  std::ifstream in(path);
  REALMT_CHECK(in.good(), "api-key-file: cannot read {}", path);
  std::string line;
  std::getline(in, line);
  const auto b = line.find_first_not_of(" \t\r\n");
  const auto e = line.find_last_not_of(" \t\r\n");
  REALMT_CHECK(b != std::string::npos, "api-key-file: {} has no token on its first line", path);
  return line.substr(b, e - b + 1);
}

HttpConfig ServerOptions::http_config() const {
  HttpConfig c;
  c.host = host;
  c.port = port;
  c.threads = http_threads;
  c.language_pair = language_pair;
  c.idle_timeout_ms = keep_alive_timeout_ms;
  c.websocket_idle_timeout_ms = websocket_idle_timeout_ms;
  c.header_timeout_ms = header_timeout_ms;
  c.body_timeout_ms = body_timeout_ms;
  c.write_timeout_ms = write_timeout_ms;
  c.max_connections = max_connections;
  c.max_connections_per_client = max_connections_per_client;
  c.max_header_bytes = max_header_bytes;
  if (!api_key_file.empty()) c.api_key = read_api_key(api_key_file);
  c.max_body_bytes = max_body_bytes;
  c.default_timeout_ms = request_timeout_ms;
  c.limits.max_sentences = max_request_sentences;
  // A sentence's byte limit follows from its subword limit: a subword is rarely over 16 bytes.
  // max-length counts the eos, as Marian's; max-sentence-tokens does not.
  const int64_t tokens = std::min<int64_t>(max_sentence_tokens, max_length - 1);
  c.limits.max_sentence_bytes = tokens * 16;
  c.limits.max_sentence_tokens = tokens;
  c.limits.max_beam_size = max_beam_size;
  c.limits.max_n_best = max_n_best;
  c.limits.max_timeout_ms = request_timeout_ms;
  c.search.beam_size = beam_size;
  c.search.normalize = normalize;
  c.search.word_penalty = word_penalty;
  c.search.max_length_factor = max_length_factor;
  c.search.repeat_ngram = repeat_guard;
  c.search.length_rule = length_rule;
  c.search.allow_unk = allow_unk;
  c.search.weights = model.weights;
  c.scheduler.max_batch_sentences = model.mini_batch;
  c.scheduler.max_batch_tokens = max_batch_tokens;
  c.scheduler.max_wait_ms = max_wait_ms;
  c.scheduler.max_queue_sentences = max_queue_sentences;
  c.scheduler.max_queue_tokens = max_queue_tokens;
  return c;
}

}  // namespace realmt::server
