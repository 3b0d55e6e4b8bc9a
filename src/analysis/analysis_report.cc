#include "analysis/analysis_report.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <nlohmann/json.hpp>

#include "analysis/analyze_files.h"
#include "core/error.h"

namespace realmt::analysis {

std::string entropy_colour(double median) {
  return median > 4.5 ? "red" : median < 1.5 ? "blue" : "yellow";
}
std::string jsd_colour(double median) {
  return median < 0.25 ? "blue" : median > 0.75 ? "red" : "yellow";
}

namespace {

using Json = nlohmann::ordered_json;
constexpr int kBins = 40;

std::string number(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", x);
  return buf;
}

void write_file(const std::string& path, const std::string& text) {
  std::ofstream f(path, std::ios::binary);
  f << text;
  f.close();
  REALMT_CHECK(f.good(), "cannot write {}", path);
}

struct Row {
  std::string chain, measure, layer, colour;
  int head;
  Summary s;
  std::vector<int64_t> histogram;
  double hi;  // histogram range [0, hi]
};

std::vector<int64_t> histogram(const std::vector<float>& v, double hi) {
  std::vector<int64_t> h(kBins, 0);
  for (float x : v) ++h[std::clamp(static_cast<int>(x / hi * kBins), 0, kBins - 1)];
  return h;
}

}  // namespace

void write_tables(AttentionStats& stats, const std::string& dir, const ReportInfo& info) {
  // One entropy range for every histogram: the largest value seen, up to the next half bit.
  double entropy_hi = 0.5;
  for (int c = 0; c < kChains; ++c)
    for (int l = 0; l < stats.layers(c); ++l)
      for (int h = 0; h < stats.heads(); ++h)
        for (float x : stats.entropy(c, l, h))
          entropy_hi = std::max(entropy_hi, std::ceil(x * 2.0) / 2.0);
  std::vector<Row> rows;
  for (int c = 0; c < kChains; ++c) {
    const std::string chain = chain_name(static_cast<models::AttentionChain>(c));
    for (int l = 0; l < stats.layers(c); ++l)
      for (int h = 0; h < stats.heads(); ++h) {
        std::vector<float>& v = stats.entropy(c, l, h);
        Row r{chain, "entropy", std::to_string(l + 1),    "",
              h + 1, {},        histogram(v, entropy_hi), entropy_hi};
        r.s = summarize(v);
        r.colour = entropy_colour(r.s.median);
        rows.push_back(std::move(r));
      }
    for (int l = 0; l + 1 < stats.layers(c); ++l)
      for (int h = 0; h < stats.heads(); ++h) {
        std::vector<float>& v = stats.jsd(c, l, h);
        Row r{chain,
              "jsd",
              std::to_string(l + 1) + "-" + std::to_string(l + 2),
              "",
              h + 1,
              {},
              histogram(v, 1.0),
              1.0};
        r.s = summarize(v);
        r.colour = jsd_colour(r.s.median);
        rows.push_back(std::move(r));
      }
  }
  std::string tsv = "chain\tmeasure\tlayer\thead\tcount\tq1\tmedian\tq3\tmean\tmin\tmax\tcolour\n";
  Json json;
  json["model"] = info.model;
  json["inputs"] = info.inputs;
  json["sentences"] = info.sentences;
  json["skipped"] = info.skipped;
  json["units"] = {{"entropy", "bits"}, {"jsd", "base 2, in [0, 1]"}};
  json["thresholds"] = {{"entropy", {{"blue_below", 1.5}, {"red_above", 4.5}}},
                        {"jsd", {{"blue_below", 0.25}, {"red_above", 0.75}}}};
  json["rows"] = Json::array();
  for (const Row& r : rows) {
    tsv += r.chain + "\t" + r.measure + "\t" + r.layer + "\t" + std::to_string(r.head) + "\t" +
           std::to_string(r.s.count) + "\t" + number(r.s.q1) + "\t" + number(r.s.median) + "\t" +
           number(r.s.q3) + "\t" + number(r.s.mean) + "\t" + number(r.s.min) + "\t" +
           number(r.s.max) + "\t" + r.colour + "\n";
    json["rows"].push_back({{"chain", r.chain},
                            {"measure", r.measure},
                            {"layer", r.layer},
                            {"head", r.head},
                            {"count", r.s.count},
                            {"q1", r.s.q1},
                            {"median", r.s.median},
                            {"q3", r.s.q3},
                            {"mean", r.s.mean},
                            {"min", r.s.min},
                            {"max", r.s.max},
                            {"colour", r.colour},
                            {"histogram", {{"range", {0.0, r.hi}}, {"counts", r.histogram}}}});
  }
  write_file(dir + "/attention.tsv", tsv);
  write_file(dir + "/attention.json", json.dump(1) + "\n");
}

void write_heatmap(const AttentionStats& stats, const std::string& path, int64_t line,
                   const std::vector<std::string>& source, const std::vector<std::string>& target) {
  Json json;
  json["line"] = line;
  json["source"] = source;
  json["target"] = target;
  json["rows"] =
      "queries: encoder source pieces, decoder and cross target input (<s> first); "
      "columns: keys (decoder: positions up to the query)";
  for (int c = 0; c < kChains; ++c) {
    Json layers = Json::array();
    for (const auto& heads : stats.heatmap()[c]) layers.push_back(heads);
    json["chains"][chain_name(static_cast<models::AttentionChain>(c))] = layers;
  }
  write_file(path, json.dump() + "\n");
}

}  // namespace realmt::analysis
