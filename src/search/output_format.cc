#include "search/output_format.h"

#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "core/error.h"

namespace realmt::search {

std::string format_number(double x) {
  char buf[64];
  const auto r = std::to_chars(buf, buf + sizeof buf, x);
  return std::string(buf, r.ptr);
}

std::string format_alignment(const Hypothesis& h, AlignmentKind kind, double threshold) {
  std::string out;
  if (kind == AlignmentKind::kNone) return out;
  for (size_t t = 0; t < h.alignment.size(); ++t) {
    const std::vector<float>& row = h.alignment[t];
    if (kind == AlignmentKind::kHard && threshold < 1.0) {
      if (t >= h.tokens.size()) continue;  // eos
      for (size_t s = 0; s + 1 < row.size(); ++s) {
        if (row[s] <= threshold) continue;
        if (!out.empty()) out += ' ';
        out += std::to_string(s) + "-" + std::to_string(t);
      }
    } else if (kind == AlignmentKind::kHard) {
      if (t >= h.tokens.size() || row.empty()) continue;  // eos
      size_t best = 0;
      for (size_t s = 1; s < row.size(); ++s)
        if (row[s] > row[best]) best = s;
      if (best + 1 == row.size()) continue;  // the source eos
      if (!out.empty()) out += ' ';
      out += std::to_string(best) + "-" + std::to_string(t);
    } else {
      if (!out.empty()) out += ' ';
      for (size_t s = 0; s < row.size(); ++s) {
        char buf[32];
        std::snprintf(buf, sizeof buf, "%s%.6g", s ? "," : "", static_cast<double>(row[s]));
        out += buf;
      }
    }
  }
  return out;
}

std::string format_features(const std::vector<double>& model_log_probs) {
  std::string out;
  for (size_t m = 0; m < model_log_probs.size(); ++m)
    out += (m ? " F" : "F") + std::to_string(m) + "= " + format_number(model_log_probs[m]);
  return out;
}

std::string format_nbest(size_t id, const std::string& text, const Hypothesis& h,
                         AlignmentKind kind, double threshold) {
  std::string out = std::to_string(id) + " ||| " + text;
  if (kind != AlignmentKind::kNone) out += " ||| " + format_alignment(h, kind, threshold);
  return out + " ||| " + format_features(h.model_log_probs) + " ||| " + format_number(h.score);
}

NBestEntry parse_nbest(const std::string& line, const std::string& where) {
  std::vector<std::string> fields;
  size_t begin = 0;
  for (;;) {
    const size_t sep = line.find(" ||| ", begin);
    fields.push_back(
        line.substr(begin, sep == std::string::npos ? std::string::npos : sep - begin));
    if (sep == std::string::npos) break;
    begin = sep + 5;
  }
  REALMT_CHECK(fields.size() >= 4,
               "{}: an n-best line has 'id ||| text ||| features ||| score', got {} fields", where,
               fields.size());
  NBestEntry e;
  char* end = nullptr;
  const unsigned long long id = std::strtoull(fields[0].c_str(), &end, 10);
  REALMT_CHECK(!fields[0].empty() && *end == '\0', "{}: n-best id '{}' is not a number", where,
               fields[0]);
  e.id = static_cast<size_t>(id);
  e.text = fields[1];
  e.extra.assign(fields.begin() + 2, fields.end() - 2);
  e.features = fields[fields.size() - 2];
  e.score = fields.back();
  return e;
}

std::string format_nbest(const NBestEntry& e) {
  std::string out = std::to_string(e.id) + " ||| " + e.text;
  for (const std::string& x : e.extra) out += " ||| " + x;
  return out + " ||| " + e.features + " ||| " + e.score;
}

}  // namespace realmt::search
