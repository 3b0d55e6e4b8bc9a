#include "metrics/report.h"

#include <algorithm>

#include "metrics/format.h"

namespace realmt::metrics {

std::string format_score(const ScoreLine& s, int width, bool score_only,
                         const std::string& signature, bool json) {
  std::string json_out = "{\n \"name\": " + json_string(s.name, false) +
                         ",\n \"score\": " + json_rounded(s.score, width) +
                         ",\n \"signature\": " + json_string(signature, false);
  std::string sc = fixed(s.score, width);
  if (s.ci && s.ci->mean > 0) {
    const std::string mean = fixed(s.ci->mean, width), var = fixed(s.ci->ci, width);
    const std::string conf = "\xCE\xBC = " + mean + " \xC2\xB1 " + var;  // "μ = m ± c"
    sc += " (" + conf + ")";
    json_out += ",\n \"confidence_mean\": " + json_rounded(s.ci->mean, width) +
                ",\n \"confidence_var\": " + json_rounded(s.ci->ci, width) +
                ",\n \"confidence\": " + json_string(conf, false);
  }
  std::string full = (signature.empty() ? s.name : s.name + "|" + signature) + " = " + sc;
  if (!s.verbose.empty()) {
    full += " " + s.verbose;
    json_out += ",\n \"verbose_score\": " + json_string(s.verbose, false);
  }
  if (score_only) return sc;
  if (!json) return full;
  size_t pos = 0;
  while (pos <= signature.size()) {
    size_t bar = signature.find('|', pos);
    if (bar == std::string::npos) bar = signature.size();
    const std::string field = signature.substr(pos, bar - pos);
    const size_t colon = field.find(':');
    json_out += ",\n " + json_string(field.substr(0, colon), false) + ": " +
                json_string(colon == std::string::npos ? "" : field.substr(colon + 1), false);
    pos = bar + 1;
  }
  if (!s.implementation.empty())
    json_out += ",\n \"implementation\": " + json_string(s.implementation, false);
  return json_out + "\n}";
}

std::string single_results(const std::vector<std::string>& results, bool json) {
  std::string out;
  if (json) {
    if (results.size() > 1) {
      out = "[\n";
      for (size_t i = 0; i < results.size(); ++i)
        out += results[i] + (i + 1 < results.size() ? ",\n" : "\n");
      return out + "]\n";
    }
    return results[0] + "\n";
  }
  if (results.size() == 1) return results[0] + "\n";
  // Lines with '=' are right-aligned on it (in code points) and printed last; others at once.
  std::vector<std::pair<size_t, const std::string*>> aligned;
  for (const auto& line : results) {
    const size_t eq = line.find('=');
    if (eq == std::string::npos) {
      out += line + "\n";
    } else {
      aligned.emplace_back(py_len(line.substr(0, eq)) - 1, &line);
    }
  }
  size_t w = 0;
  for (const auto& a : aligned) w = std::max(w, a.first);
  for (const auto& [len, line] : aligned) {
    // f'{left:>{w}}{right}' with left = line[:len]: the line, shifted right by w - len.
    out += std::string(w - len, ' ') + *line + "\n";
  }
  return out;
}

namespace {

std::vector<std::string> split_newlines(const std::string& s) {
  std::vector<std::string> lines;
  size_t start = 0;
  for (;;) {
    const size_t nl = s.find('\n', start);
    lines.push_back(s.substr(start, nl == std::string::npos ? std::string::npos : nl - start));
    if (nl == std::string::npos) break;
    start = nl + 1;
  }
  return lines;
}

std::string pad(const std::string& s, size_t width, bool right_align) {
  const size_t len = py_len(s);
  if (len >= width) return s;
  const size_t spare = width - len;
  if (right_align) return std::string(spare, ' ') + s;
  return std::string(spare / 2, ' ') + s + std::string(spare - spare / 2, ' ');
}

std::string repeat(const std::string& unit, size_t n) {
  std::string s;
  for (size_t i = 0; i < n; ++i) s += unit;
  return s;
}

// tabulate(..., tablefmt='fancy_grid', colalign=('right',), stralign='center').
std::string fancy_grid(const std::vector<std::string>& headers,
                       const std::vector<std::vector<std::string>>& rows) {
  const size_t ncol = headers.size();
  std::vector<size_t> width(ncol);
  for (size_t c = 0; c < ncol; ++c) {
    width[c] = py_len(headers[c]) + 2;
    for (const auto& row : rows) {
      for (const auto& line : split_newlines(row[c])) width[c] = std::max(width[c], py_len(line));
    }
  }
  auto rule = [&](const char* l, const char* mid, const char* r, const char* fill) {
    std::string s = l;
    for (size_t c = 0; c < ncol; ++c) s += repeat(fill, width[c] + 2) + (c + 1 < ncol ? mid : r);
    return s + "\n";
  };
  auto line = [&](const std::vector<std::string>& cells) {
    std::vector<std::vector<std::string>> parts(ncol);
    size_t height = 1;
    for (size_t c = 0; c < ncol; ++c) {
      parts[c] = split_newlines(cells[c]);
      height = std::max(height, parts[c].size());
    }
    std::string s;
    for (size_t h = 0; h < height; ++h) {
      s += "\xE2\x94\x82";  // │
      for (size_t c = 0; c < ncol; ++c) {
        const std::string text = h < parts[c].size() ? parts[c][h] : "";
        s += " " + pad(text, width[c], c == 0) + " \xE2\x94\x82";
      }
      s += "\n";
    }
    return s;
  };
  std::string out =
      rule("\xE2\x95\x92", "\xE2\x95\xA4", "\xE2\x95\x95", "\xE2\x95\x90");  // ╒ ╤ ╕ ═
  out += line(headers);
  out += rule("\xE2\x95\x9E", "\xE2\x95\xAA", "\xE2\x95\xA1", "\xE2\x95\x90");  // ╞ ╪ ╡ ═
  for (size_t r = 0; r < rows.size(); ++r) {
    out += line(rows[r]);
    if (r + 1 < rows.size())
      out += rule("\xE2\x94\x9C", "\xE2\x94\xBC", "\xE2\x94\xA4", "\xE2\x94\x80");  // ├ ┼ ┤ ─
  }
  out += rule("\xE2\x95\x98", "\xE2\x95\xA7", "\xE2\x95\x9B", "\xE2\x95\x90");  // ╘ ╧ ╛ ═
  out.pop_back();
  return out;
}

// tabulate's latex_booktabs escapes, applied to each padded cell.
std::string latex_escape(const std::string& s) {
  std::string out;
  for (const char c : s) {
    switch (c) {
      case '&':
      case '%':
      case '$':
      case '#':
      case '_':
      case '{':
      case '}': out += std::string("\\") + c; break;
      case '^': out += "\\^{}"; break;
      case '~': out += "\\textasciitilde{}"; break;
      case '\\': out += "\\textbackslash{}"; break;
      case '<': out += "\\ensuremath{<}"; break;
      case '>': out += "\\ensuremath{>}"; break;
      default: out += c;
    }
  }
  return out;
}

// tabulate(..., tablefmt='latex_booktabs', colalign=('right',), stralign='center'): the widths
// are fancy_grid's (cells one line each here), escaping comes after the padding.
std::string latex_booktabs(const std::vector<std::string>& headers,
                           const std::vector<std::vector<std::string>>& rows) {
  const size_t ncol = headers.size();
  std::vector<size_t> width(ncol);
  for (size_t c = 0; c < ncol; ++c) {
    width[c] = py_len(headers[c]) + 2;
    for (const auto& row : rows) width[c] = std::max(width[c], py_len(row[c]));
  }
  auto line = [&](const std::vector<std::string>& cells) {
    std::string s;
    for (size_t c = 0; c < ncol; ++c)
      s += (c ? "&" : "") + latex_escape(" " + pad(cells[c], width[c], c == 0) + " ");
    s += "\\\\";
    return s.substr(0, s.find_last_not_of(' ') + 1) + "\n";
  };
  std::string out = "\\begin{tabular}{r" + std::string(ncol - 1, 'c') + "}\n\\toprule\n" +
                    line(headers) + "\\midrule\n";
  for (const auto& row : rows) out += line(row);
  return out + "\\bottomrule\n\\end{tabular}";
}

std::string json_opt(const std::optional<double>& v) { return v ? py_repr(*v) : "null"; }

const char* kPairedText =
    "   the p-value is roughly the probability of the absolute score difference (delta)\n"
    "   or higher occurring due to chance, under the assumption that the null hypothesis is "
    "correct.\n"
    "\n"
    " - Assuming a significance threshold of 0.05, the null hypothesis can be rejected\n"
    "   for p-values < 0.05 (marked with \"*\"). This means that the delta is unlikely to be "
    "attributed\n"
    "   to chance, hence the system is significantly \"different\" than the baseline.\n"
    "   Otherwise, the p-values are highlighted in red.\n"
    "\n"
    " - NOTE: Significance does not tell whether a system is \"better\" than the baseline but "
    "rather\n"
    "   emphasizes the \"difference\" of the systems in terms of the replicability of the delta.\n"
    "\n";

}  // namespace

std::string results_table(const TableRequest& r) {
  const bool paired = r.paired_bs || r.paired_ar;
  if (r.json) {
    std::string out = "[";
    for (size_t i = 0; i < r.systems.size(); ++i) {
      out += i ? ",\n    {\n" : "\n    {\n";
      out += "        \"system\": " + json_string(r.systems[i], true);
      for (const auto& col : r.columns) {
        out += ",\n        " + json_string(col.name, true) + ": ";
        if (!paired) {
          out += json_string(col.plain[i], true);
          continue;
        }
        const PairedResult& p = col.paired[i];
        out += "{\n            \"score\": " + py_repr(p.score) +
               ",\n            \"p_value\": " + json_opt(p.p_value) +
               ",\n            \"mean\": " + json_opt(p.mean) +
               ",\n            \"ci\": " + json_opt(p.ci) + "\n        }";
      }
      out += "\n    }";
    }
    return out + (r.systems.empty() ? "]\n" : "\n]\n");
  }
  std::vector<std::string> headers{"System"};
  std::vector<std::vector<std::string>> rows(r.systems.size());
  for (size_t i = 0; i < r.systems.size(); ++i) rows[i].push_back(r.systems[i]);
  bool is_bootstrap = false;  // sticky across columns, as in sacreBLEU
  for (const auto& col : r.columns) {
    for (size_t i = 0; i < r.systems.size(); ++i) {
      if (!paired) {
        rows[i].push_back(col.plain[i]);
        continue;
      }
      const PairedResult& p = col.paired[i];
      std::string cell = fixed(p.score, r.width);
      if (p.mean) {
        is_bootstrap = true;
        cell += " (" + fixed(*p.mean, r.width) + " \xC2\xB1 " + fixed(*p.ci, r.width) + ")";
      }
      if (p.p_value)
        cell += (r.latex ? " (p = " : "\n(p = ") + fixed(*p.p_value, 4) + ")" +
                (*p.p_value > 0.05 ? "" : "*");
      rows[i].push_back(cell);
    }
    headers.push_back(is_bootstrap ? col.name + " (\xCE\xBC \xC2\xB1 95% CI)" : col.name);
  }
  std::string out = (r.latex ? latex_booktabs(headers, rows) : fancy_grid(headers, rows)) + "\n\n";
  if (paired) {
    const std::string msg = std::string("Paired ") +
                            (r.paired_bs ? "bootstrap resampling" : "approximate randomization") +
                            " test with " + std::to_string(r.paired_n) +
                            (r.paired_bs ? " resampling trials" : " trials");
    const std::string dashes(msg.size(), '-');
    out += dashes + "\n" + msg + "\n" + dashes + "\n";
    // sacreBLEU names the baseline only when it is labelled "Baseline: <file>" (-i input).
    const std::string base =
        !r.systems.empty() && r.systems[0].rfind("Baseline:", 0) == 0 ? r.systems[0] : "";
    out += " - Each system is pairwise compared to " + base + ".\n";
    out += r.paired_bs ? "   Actual system score / bootstrap estimated true mean / 95% CI are "
                         "provided for each metric.\n"
                       : "   Actual system score is provided for each metric.\n";
    out +=
        "\n - Null hypothesis: the system and the baseline translations are essentially\n"
        "   generated by the same underlying process. For a given system and the baseline,\n";
    out += kPairedText;
  }
  out += "-----------------\nMetric signatures\n-----------------\n";
  for (const auto& [name, sig] : r.signatures) {
    const size_t len = py_len(name);
    out += " - " + name + std::string(len < 10 ? 10 - len : 0, ' ') + " " + sig + "\n";
  }
  return out;
}

}  // namespace realmt::metrics
