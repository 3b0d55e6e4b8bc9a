// realmt-server: translation over HTTP (POST /v1/translate, GET /health, GET /metrics), one
// queue and one decoding thread batching sentences across all concurrent requests, and the web
// page at /. Binds 127.0.0.1 unless --host says otherwise; logs "listening on HOST:PORT" once
// ready. SIGTERM or SIGINT: new requests get 503, queued ones are finished, then exit 0. Its lines
// go through core/log.h (--log, --log-level).
#include <atomic>
#include <chrono>
#include <csignal>
#include <iostream>
#include <thread>

#include "common/options.h"
#include "common/program.h"
#include "common/stop_signal.h"
#include "core/log.h"
#include "core/parallel.h"
#include "data/vocab.h"
#include "search/model_loader.h"
#include "search/translator.h"
#include "server/http_server.h"
#include "server/server_options.h"

int main(int argc, char** argv) {
  using namespace realmt;
  return run_program("realmt-server", [&] {
    server::ServerOptions o;
    OptionSet set("realmt-server", "Serve translations over HTTP with cross-request batching");
    o.declare(set);
    if (!set.parse(argc, argv, std::cout)) return 0;
    if (o.model.cpu_threads > 0) set_num_threads(o.model.cpu_threads);
    search::Translator translator =
        search::Translator::load(o.model.models, o.model.vocabs,
                                 search::parse_decode_device(o.model.devices), o.model.quantize);
    translator.use_shortlist(search::load_shortlist(o.shortlist, translator));
    server::TextCodec codec{
        [&](const std::string& s) { return translator.vocab().encode(s); },
        [&](const std::vector<int32_t>& ids) { return translator.vocab().decode(ids); },
        [&](const std::string& language) { return translator.vocab().language_tag(language); }};
    server::HttpConfig config = o.http_config();
    config.target_languages = data::language_tag_codes(translator.vocab().language_tags());
    server::HttpServer http(
        std::move(config), codec,
        [&](const std::vector<std::vector<int32_t>>& src, const search::SearchOptions& so) {
          return translator.translate(src, so);
        });
    const int port = http.bind();
    install_stop_signal_handlers();
    std::signal(SIGPIPE, SIG_IGN);  // a client that hangs up must not kill the server
    // The watcher turns the stop request into a drain; `done` ends it when serve() returns first.
    std::atomic<bool> done{false}, drained{true};
    std::thread watcher([&] {
      wait_for_stop_request();
      if (done) return;
      log::info("realmt-server: draining: refusing new requests, finishing queued");
      drained = http.shutdown(std::chrono::milliseconds(o.drain_timeout_ms));
    });
    log::info("realmt-server: listening on {}:{}", o.host, port);
    http.serve();
    done = true;
    request_stop();  // wakes the watcher if no signal did
    watcher.join();
    log::info("realmt-server: stopped{}",
              drained ? "" : " (drain timeout: some queued requests were not answered)");
    return drained ? 0 : 1;
  });
}
