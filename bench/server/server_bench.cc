// Load benchmark of realmt-server on loopback: sentences/s and request latency (p50, p99) with
// 1, 8 and 64 concurrent clients, against offline realmt-translate on the same sentences in the
// same run. Bounded: every level sends each input sentence once (requests of
// --sentences-per-request consecutive sentences, pulled by the clients from a shared counter)
// and stops taking new requests after --max-seconds.
//
//   realmt-bench-server --port P --input test.src
//       --translate "realmt-translate -m model.safetensors -v vocab.spm --cpu-threads 2"
//       [--clients 1 8 64] [--sentences-per-request 1] [--max-seconds 120]
//
// Offline throughput = sentences / realmt-translate's own decoding time (the "Total time: X s"
// of its summary line: model loading excluded), measured before and after every level; a level's
// ratio is against the mean of the two. Target tokens/s of a level: its sentences/s times the
// offline run's target tokens a sentence (eos included; the answers equal the offline
// translations when mismatches is 0, and every level sends each sentence once). Server answers are
// compared with realmt-translate's output line by line; mismatches are reported (they should be 0).
// Exit status 1 when any request failed or any answer differs from realmt-translate's.
#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

namespace {

using Clock = std::chrono::steady_clock;

struct Args {
  std::string host = "127.0.0.1";
  int port = 0;
  std::string input, translate;
  std::vector<int> clients{1, 8, 64};
  int per_request = 1;
  double max_seconds = 120;
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto next = [&]() -> std::string {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", k.c_str());
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--host")
      a.host = next();
    else if (k == "--port")
      a.port = std::stoi(next());
    else if (k == "--input")
      a.input = next();
    else if (k == "--translate")
      a.translate = next();
    else if (k == "--sentences-per-request")
      a.per_request = std::stoi(next());
    else if (k == "--max-seconds")
      a.max_seconds = std::stod(next());
    else if (k == "--clients") {
      a.clients.clear();
      while (i + 1 < argc && argv[i + 1][0] != '-') a.clients.push_back(std::stoi(argv[++i]));
    } else {
      std::fprintf(stderr, "unknown option %s\n", k.c_str());
      std::exit(2);
    }
  }
  if (a.port <= 0 || a.input.empty() || a.translate.empty() || a.per_request < 1) {
    std::fprintf(stderr,
                 "usage: realmt-bench-server --port P --input FILE --translate CMD "
                 "[--clients 1 8 64] [--sentences-per-request N] [--max-seconds S]\n");
    std::exit(2);
  }
  return a;
}

std::vector<std::string> read_lines(const std::string& path) {
  std::ifstream in(path);
  std::vector<std::string> lines;
  for (std::string l; std::getline(in, l);) lines.push_back(l);
  return lines;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const size_t i = std::min(v.size() - 1, static_cast<size_t>(p * (v.size() - 1) + 0.5));
  return v[i];
}

struct Offline {
  double seconds = 0;  // decoding time reported by realmt-translate
  double tokens = 0;   // target tokens of its best translations (eos included)
  std::vector<std::string> output;
};

// realmt-translate's summary line: "Total time: <s>s wall : <n> sentences : <t> target tokens
// (eos included) : ..." (model loading excluded). False when absent.
bool parse_summary(const std::string& log, Offline* o) {
  const size_t at = log.rfind("Total time: ");
  if (at == std::string::npos) return false;
  double seconds = 0, sentences = 0, tokens = 0;
  if (std::sscanf(log.c_str() + at, "Total time: %lfs wall : %lf sentences : %lf target tokens",
                  &seconds, &sentences, &tokens) != 3)
    return false;
  o->seconds = seconds;
  o->tokens = tokens;
  return true;
}

Offline run_offline(const Args& a, size_t n) {
  const std::string out = "server_bench.offline.txt", err = "server_bench.offline.err";
  const std::string cmd = a.translate + " -i " + a.input + " -o " + out + " 2> " + err;
  if (std::system(cmd.c_str()) != 0) {
    std::fprintf(stderr, "offline run failed: %s\n", cmd.c_str());
    std::exit(1);
  }
  Offline o;
  o.output = read_lines(out);
  std::ifstream e(err);
  std::stringstream ss;
  ss << e.rdbuf();
  if (!parse_summary(ss.str(), &o) || o.output.size() != n || o.seconds <= 0) {
    std::fprintf(stderr, "offline run: no \"Total time\" summary line or %zu of %zu lines: %s\n",
                 o.output.size(), n, ss.str().c_str());
    std::exit(1);
  }
  return o;
}

// A counter from the server's /metrics (0 when absent).
double scrape(const Args& a, const std::string& name) {
  httplib::Client http(a.host, a.port);
  auto res = http.Get("/metrics");
  if (!res) return 0;
  std::istringstream in(res->body);
  for (std::string line; std::getline(in, line);)
    if (line.rfind(name + " ", 0) == 0) return std::stod(line.substr(name.size() + 1));
  return 0;
}

struct Level {
  int clients = 0;
  size_t sentences = 0, requests = 0, errors = 0, mismatches = 0;
  double seconds = 0;
  double decode_seconds = 0, batches = 0;  // the server's decoding thread during the level
  std::vector<double> latency;
};

Level run_level(const Args& a, int clients, const std::vector<std::string>& input,
                const std::vector<std::string>& reference) {
  const size_t n_requests = (input.size() + a.per_request - 1) / a.per_request;
  std::atomic<size_t> next{0}, done_sentences{0}, errors{0}, mismatches{0};
  std::vector<std::vector<double>> lat(clients);
  const double decode0 = scrape(a, "realmt_decode_seconds_total");
  const double batches0 = scrape(a, "realmt_batches_total");
  const auto t0 = Clock::now();
  const auto stop_at = t0 + std::chrono::duration<double>(a.max_seconds);
  std::vector<std::thread> threads;
  for (int c = 0; c < clients; ++c)
    threads.emplace_back([&, c] {
      httplib::Client http(a.host, a.port);
      http.set_keep_alive(true);
      http.set_tcp_nodelay(true);
      http.set_read_timeout(300, 0);
      for (size_t r; (r = next++) < n_requests && Clock::now() < stop_at;) {
        const size_t b = r * a.per_request, e = std::min(input.size(), b + a.per_request);
        nlohmann::json body = {
            {"text", std::vector<std::string>(input.begin() + b, input.begin() + e)}};
        const auto s = Clock::now();
        auto res = http.Post("/v1/translate", body.dump(), "application/json");
        lat[c].push_back(std::chrono::duration<double>(Clock::now() - s).count());
        if (!res || res->status != 200) {
          ++errors;
          continue;
        }
        const auto tr = nlohmann::json::parse(res->body)["translations"];
        for (size_t i = b; i < e; ++i)
          if (tr[i - b].get<std::string>() != reference[i]) ++mismatches;
        done_sentences += e - b;
      }
    });
  for (auto& t : threads) t.join();
  Level l;
  l.clients = clients;
  l.seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  l.decode_seconds = scrape(a, "realmt_decode_seconds_total") - decode0;
  l.batches = scrape(a, "realmt_batches_total") - batches0;
  l.sentences = done_sentences;
  l.errors = errors;
  l.mismatches = mismatches;
  for (auto& v : lat) {
    l.requests += v.size();
    l.latency.insert(l.latency.end(), v.begin(), v.end());
  }
  return l;
}

}  // namespace

int main(int argc, char** argv) {
  const Args a = parse(argc, argv);
  const std::vector<std::string> input = read_lines(a.input);
  if (input.empty()) {
    std::fprintf(stderr, "no sentences in %s\n", a.input.c_str());
    return 1;
  }
  // Offline runs interleave with the levels (offline, level, offline, level, ..., offline) and
  // each level is compared with the mean of the two offline runs around it: on a shared
  // machine the load drifts within minutes.
  Offline off = run_offline(a, input.size());
  double before = input.size() / off.seconds;
  // Tokens a sentence: the offline translations' (the server's are compared with them).
  const double tokens_per_sentence = off.tokens / input.size();
  std::printf(
      "offline realmt-translate: %zu sentences, %.0f target tokens (eos included) in %.2f s = "
      "%.1f sentences/s, %.1f target tokens/s\n",
      input.size(), off.tokens, off.seconds, before, off.tokens / off.seconds);
  std::printf("%8s %10s %9s %12s %12s %10s %8s %9s %9s %7s %10s\n", "clients", "sentences",
              "seconds", "sentences/s", "offline s/s", "tokens/s", "ratio", "p50 ms", "p99 ms",
              "errors", "mismatches");
  size_t failures = 0;  // errors and mismatches over all levels: the exit status
  for (int c : a.clients) {
    const Level l = run_level(a, c, input, off.output);
    failures += l.errors + l.mismatches;
    const double after = input.size() / run_offline(a, input.size()).seconds;
    const double rate = l.sentences / l.seconds, offline = 0.5 * (before + after);
    std::printf("%8d %10zu %9.2f %12.1f %12.1f %10.1f %7.0f%% %9.1f %9.1f %7zu %10zu\n", c,
                l.sentences, l.seconds, rate, offline, rate * tokens_per_sentence,
                100 * rate / offline, 1e3 * percentile(l.latency, 0.5),
                1e3 * percentile(l.latency, 0.99), l.errors, l.mismatches);
    std::printf(
        "         (offline before %.1f, after %.1f sentences/s; server: %.0f batches, "
        "%.1f sentences a batch, decoding thread busy %.0f%% of the time)\n",
        before, after, l.batches, l.batches > 0 ? l.sentences / l.batches : 0.0,
        100 * l.decode_seconds / l.seconds);
    std::fflush(stdout);
    before = after;
  }
  if (failures > 0)
    std::fprintf(stderr, "%zu errors or answers unlike realmt-translate's\n", failures);
  return failures > 0 ? 1 : 0;
}
