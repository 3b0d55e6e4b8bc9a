#include "metrics/cli_argparse.h"

#include <algorithm>

namespace realmt::metrics::argparse {

namespace {

[[noreturn]] void error(const std::string& msg) { throw ArgumentError{msg}; }

// argparse's _negative_number_matcher, '^-\d+$|^-\d*\.\d+$': such a word is a value, since no
// option looks like a negative number.
bool negative_number(const std::string& a) {
  if (a.size() < 2 || a[0] != '-') return false;
  const size_t dot = a.find('.');
  const auto digits = [](std::string_view s) {
    return std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  if (dot == std::string::npos) return digits(std::string_view(a).substr(1));
  return dot + 1 < a.size() && digits(std::string_view(a).substr(1, dot - 1)) &&
         digits(std::string_view(a).substr(dot + 1));
}

// Python's repr of a str without quotes or backslashes inside: 'value'.
std::string quoted(const std::string& s) { return "'" + s + "'"; }

}  // namespace

std::string Option::display() const {
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "/") + n;
  return out;
}

const Option* Parser::exact(const std::string& name) const {
  for (const auto& o : options_) {
    if (std::find(o.names.begin(), o.names.end(), name) != o.names.end()) return &o;
  }
  return nullptr;
}

// _get_option_tuples over sacreBLEU's options (own = false) or realmt-bleu's (own = true).
std::vector<Match> Parser::prefix_matches(const std::string& arg, bool own) const {
  std::vector<Match> out;
  const bool long_form = arg[1] == '-';
  const size_t eq = long_form ? arg.find('=') : std::string::npos;
  const std::string prefix = arg.substr(0, eq);
  std::optional<std::string> explicit_arg;
  if (eq != std::string::npos) explicit_arg = arg.substr(eq + 1);
  for (const auto& o : options_) {
    if (o.own != own) continue;
    for (const auto& name : o.names) {
      if (!long_form && name == arg.substr(0, 2)) {
        out.push_back({&o, name, arg.substr(2)});  // one-letter option with its value: -w3
      } else if (name.starts_with(prefix)) {
        out.push_back({&o, name, explicit_arg});
      }
    }
  }
  return out;
}

std::optional<Match> Parser::classify(const std::string& arg) const {
  if (arg.empty() || arg[0] != '-') return std::nullopt;
  if (const Option* o = exact(arg)) return Match{o, arg, std::nullopt};
  if (arg.size() == 1) return std::nullopt;
  if (const size_t eq = arg.find('='); eq != std::string::npos) {
    if (const Option* o = exact(arg.substr(0, eq)))
      return Match{o, arg.substr(0, eq), arg.substr(eq + 1)};
  }
  std::vector<Match> found = prefix_matches(arg, false);
  if (found.empty()) found = prefix_matches(arg, true);
  if (found.size() > 1) {
    std::string names;
    for (const auto& m : found) names += (names.empty() ? "" : ", ") + m.name;
    error("ambiguous option: " + arg + " could match " + names);
  }
  if (found.size() == 1) return found[0];
  if (negative_number(arg) || arg.find(' ') != std::string::npos) return std::nullopt;
  return Match{nullptr, arg, std::nullopt};
}

size_t Parser::take_values(const Option& o, const std::vector<std::string>& args, size_t i) const {
  std::vector<std::string> values;
  size_t next = i + 1;
  const size_t most = o.nargs == Nargs::kOne ? 1 : args.size();
  while (next < args.size() && values.size() < most && args[next] != "--" &&
         !classify(args[next])) {
    values.push_back(args[next++]);
  }
  if (o.nargs == Nargs::kOne && values.empty())
    error("argument " + o.display() + ": expected one argument");
  if (o.nargs == Nargs::kPlus && values.empty()) {
    error("argument " + o.display() + ": expected at least one argument");
  }
  o.apply(values);
  return next;
}

size_t Parser::consume(const Match& m, const std::vector<std::string>& args, size_t i) const {
  const Option* o = m.option;
  std::string name = m.name;
  std::optional<std::string> explicit_arg = m.explicit_arg;
  for (;;) {
    if (o->stops) {
      o->apply({});
      return std::string::npos;
    }
    if (!explicit_arg)
      return o->nargs == Nargs::kZero ? (o->apply({}), i + 1) : take_values(*o, args, i);
    if (o->nargs != Nargs::kZero) {
      o->apply({*explicit_arg});  // --tokenize=13a, -w3, -i=hyp: the one value given
      return i + 1;
    }
    // A flag with text after it: one-letter flags combine (-qb), anything else is an error.
    if (name[1] == '-' || explicit_arg->empty()) {
      error("argument " + o->display() + ": ignored explicit argument " + quoted(*explicit_arg));
    }
    const Option* next = exact(std::string("-") + (*explicit_arg)[0]);
    if (next == nullptr)
      error("argument " + o->display() + ": ignored explicit argument " + quoted(*explicit_arg));
    o->apply({});
    name = std::string("-") + (*explicit_arg)[0];
    explicit_arg = explicit_arg->size() > 1 ? std::optional(explicit_arg->substr(1)) : std::nullopt;
    o = next;
  }
}

std::vector<std::string> Parser::parse(const std::vector<std::string>& args) const {
  std::vector<std::string> positionals, extras;
  bool positionals_taken = false;
  for (size_t i = 0; i < args.size();) {
    std::optional<Match> m;
    if (args[i] != "--") m = classify(args[i]);
    if (m && m->option == nullptr) {
      extras.push_back(args[i++]);
    } else if (m) {
      i = consume(*m, args, i);
      if (i == std::string::npos) return positionals;
    } else {
      // A run of free words; after "--" every word is one.
      const bool rest = args[i] == "--";
      std::vector<std::string> run;
      for (i += rest ? 1 : 0; i < args.size() && (rest || (args[i] != "--" && !classify(args[i])));
           ++i) {
        run.push_back(args[i]);
      }
      auto& into = positionals_taken ? extras : positionals;
      into.insert(into.end(), run.begin(), run.end());
      positionals_taken = true;
    }
  }
  if (!extras.empty()) {
    std::string words;
    for (const auto& w : extras) words += (words.empty() ? "" : " ") + w;
    error("unrecognized arguments: " + words);
  }
  return positionals;
}

}  // namespace realmt::metrics::argparse
