// Fixtures for the data tests: files written by the test (in tests/common's TempDir), a synthetic
// corpus and a small vocabulary trained on it once per test binary.
#pragma once

#include <zlib.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "../common/temp_dir.h"
#include "data/rng.h"
#include "data/vocab_trainer.h"

namespace realmt::data::test {

using realmt::testing::read_bytes;
using realmt::testing::TempDir;

inline std::string write_file(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

inline std::string write_gzip(const std::string& path, const std::string& text) {
  gzFile f = gzopen(path.c_str(), "wb");
  gzwrite(f, text.data(), unsigned(text.size()));
  gzclose(f);
  return path;
}

// A synthetic parallel corpus: sentence i has 1..max_words words drawn from small "English" and
// "French" word lists, the French side a word-for-word image of the English one.
struct Corpus {
  std::vector<std::string> src, tgt;
  std::string src_text() const { return join(src); }
  std::string tgt_text() const { return join(tgt); }
  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += x + "\n";
    return s;
  }
};

inline Corpus make_corpus(int n, int max_words, uint64_t seed = 7) {
  static const char* en[] = {"the",    "house", "is",      "red",   "a",     "cat",
                             "sleeps", "on",    "table",   "we",    "read",  "books",
                             "every",  "day",   "under",   "green", "trees", "children",
                             "play",   "music", "quickly", "river", "flows", "north"};
  static const char* fr[] = {"la",     "maison",  "est",   "rouge",   "un",     "chat",
                             "dort",   "sur",     "table", "nous",    "lisons", "livres",
                             "chaque", "jour",    "sous",  "verts",   "arbres", "enfants",
                             "jouent", "musique", "vite",  "rivière", "coule",  "nord"};
  Rng rng(seed);
  Corpus c;
  for (int i = 0; i < n; ++i) {
    const int words = 1 + int(rng.below(uint64_t(max_words)));
    std::string s, t;
    for (int w = 0; w < words; ++w) {
      const size_t k = rng.below(24);
      s += (w ? " " : "") + std::string(en[k]);
      t += (w ? " " : "") + std::string(fr[k]);
    }
    c.src.push_back(s);
    c.tgt.push_back(t);
  }
  return c;
}

// A small joint vocabulary (64 pieces), trained once per test binary.
inline const std::string& test_vocab() {
  static TempDir dir;
  static std::string path = [] {
    const Corpus c = make_corpus(2000, 12);
    VocabTrainOptions o;
    o.inputs = {write_file(dir.file("v.en"), c.src_text()),
                write_file(dir.file("v.fr"), c.tgt_text())};
    o.output = dir.file("test.spm");
    o.vocab_size = 64;
    train_vocab(o);
    return o.output;
  }();
  return path;
}

}  // namespace realmt::data::test
