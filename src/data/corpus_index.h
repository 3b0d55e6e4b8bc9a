// Random access to a parallel corpus without holding its text: the byte offset of every line
// (8 bytes a line and side) plus the list of usable lines (4 bytes each). A 36M-pair corpus
// costs about 0.7 GB. Lines are read with pread, so many threads may read at once.
//
// Contract:
// - Sources: two line-aligned files (source, target) or one TSV file (source<TAB>target[<TAB>...]).
//   Gzip files are decompressed once into an unlinked temporary file (temp_dir, default $TMPDIR),
//   which disappears with the index.
// - Building the index checks everything ParallelReader checks: equal line counts, valid UTF-8,
//   a tab on every TSV line; errors name the file and line.
// - Pairs with an empty side are left out of usable() and counted in empty_pairs().
// - Line i (0-based) of the index is line i+1 of the file(s).
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace realmt::data {

// Offsets of the lines of one (uncompressed) file.
class LineIndex {
 public:
  // `tsv`: every line must contain a tab; lines whose first or second column is empty are marked.
  LineIndex(const std::string& path, const std::string& temp_dir, bool tsv);
  ~LineIndex();
  LineIndex(const LineIndex&) = delete;
  LineIndex& operator=(const LineIndex&) = delete;

  int64_t lines() const { return int64_t(offsets_.size()) - 1; }
  int64_t length(int64_t i) const { return int64_t(offsets_[i + 1] - offsets_[i]) - 1; }
  void read(int64_t i, std::string& out) const;  // line i without its '\n'
  const std::string& path() const { return path_; }
  // TSV only: lines with an empty column 1 or 2 (sorted line indices).
  const std::vector<uint32_t>& tsv_empty() const { return tsv_empty_; }

 private:
  void scan(bool tsv);

  std::string path_;
  int fd_ = -1;
  std::vector<uint64_t> offsets_;  // start of each line, then end of file + 1 (as if '\n' ended it)
  std::vector<uint32_t> tsv_empty_;
};

class CorpusIndex {
 public:
  // tgt_path empty: src_path is a TSV file. Both sides are scanned in parallel.
  CorpusIndex(const std::string& src_path, const std::string& tgt_path,
              const std::string& temp_dir = "");

  int64_t lines() const { return src_->lines(); }
  const std::vector<uint32_t>& usable() const { return usable_; }  // sorted line indices
  int64_t empty_pairs() const { return lines() - int64_t(usable_.size()); }
  // Pair at line i (0-based). Thread-safe.
  void read(int64_t i, std::string& src, std::string& tgt) const;
  std::string name() const;

 private:
  std::unique_ptr<LineIndex> src_;
  std::unique_ptr<LineIndex> tgt_;
  std::vector<uint32_t> usable_;
};

}  // namespace realmt::data
