#include "metrics/test_set_cache.h"

#include <algorithm>
#include <filesystem>
#include <map>
#include <optional>

#include "common/atomic_file.h"
#include "core/error.h"
#include "metrics/test_sets.h"
#include "metrics/text_io.h"

namespace realmt::metrics {

namespace fs = std::filesystem;

namespace {

// basename -> path of every regular file under the dirs (the first dir, then sorted path order,
// wins).
std::map<std::string, std::string> index_files(const std::vector<std::string>& dirs) {
  REALMT_CHECK(!dirs.empty(), "testsets: no folder to search (--from)");
  std::map<std::string, std::string> by_name;
  for (const auto& dir : dirs) {
    REALMT_CHECK(fs::is_directory(dir), "testsets: --from {} is not a directory", dir);
    std::vector<std::string> paths;
    std::error_code ec;
    for (auto it = fs::recursive_directory_iterator(
             dir, fs::directory_options::skip_permission_denied, ec);
         !ec && it != fs::recursive_directory_iterator(); it.increment(ec)) {
      if (it->is_regular_file(ec)) paths.push_back(it->path().string());
    }
    REALMT_CHECK(!ec, "testsets: cannot list {}: {}", dir, ec.message());
    std::sort(paths.begin(), paths.end());
    for (const auto& p : paths) by_name.emplace(fs::path(p).filename().string(), p);
  }
  return by_name;
}

// sacreBLEU opens with newline="\n": a '\r' stays in its line, where the cleaning removes it.
std::vector<std::string> lines_of(const std::string& path) { return read_lines_file(path); }

struct Fields {
  std::vector<std::string> src, ref, docid, genre, origlang;
};

// FakeSGMLDataset.process_to_text: segment texts of both files, document fields of the source.
Fields from_sgm(const std::string& src, const std::string& ref) {
  Fields f;
  std::string docid, genre, origlang;
  for (const auto& line : lines_of(src)) {
    if (auto v = sgm_doc_attribute(line, "docid")) docid = *v;
    if (auto v = sgm_doc_attribute(line, "genre")) genre = *v;
    if (auto v = sgm_doc_attribute(line, "origlang")) origlang = *v;
    if (auto text = sgm_segment_text(line)) {
      f.src.push_back(*text);
      f.docid.push_back(docid);
      f.genre.push_back(genre);
      f.origlang.push_back(origlang);
    }
  }
  for (const auto& line : lines_of(ref)) {
    if (auto text = sgm_segment_text(line)) f.ref.push_back(*text);
  }
  return f;
}

Fields from_plain(const std::string& src, const std::string& ref) {
  Fields f;
  for (const auto& line : lines_of(src)) f.src.push_back(sacrebleu_clean(line));
  for (const auto& line : lines_of(ref)) f.ref.push_back(sacrebleu_clean(line));
  return f;
}

void write_lines(const std::string& path, const std::vector<std::string>& lines) {
  fs::create_directories(fs::path(path).parent_path());
  AtomicFile out(path);
  std::string text;
  for (const auto& l : lines) text += l + "\n";
  out.write(text);
  out.commit();
}

}  // namespace

TestSetCacheReport fill_test_set_cache(const std::vector<std::string>& from_dirs,
                                       const std::string& cache_dir,
                                       const std::vector<std::string>& sets) {
  for (const auto& name : sets) {
    REALMT_CHECK(find_test_set(name) != nullptr,
                 "testsets: unknown test set '{}' (see realmt-bleu --list)", name);
  }
  const auto files = index_files(from_dirs);
  auto find = [&](const std::string& name) -> std::optional<std::string> {
    const auto it = files.find(name);
    if (it == files.end()) return std::nullopt;
    return it->second;
  };
  TestSetCacheReport report;
  for (const TestSet& t : known_test_sets()) {
    if (!sets.empty() && std::find(sets.begin(), sets.end(), t.name) == sets.end()) continue;
    for (const TestSetPair& p : t.pairs) {
      const std::string src_lang = p.pair.substr(0, p.pair.find('-')),
                        trg_lang = p.pair.substr(p.pair.find('-') + 1);
      FilledTestSet done{t.name, p.pair, "", "", false, 0};
      Fields fields;
      if (auto s = find(p.src_sgm), r = find(p.ref_sgm); s && r) {
        done.src = *s, done.ref = *r, done.sgm = true;
        fields = from_sgm(*s, *r);
      } else if (auto s2 = find(p.plain + "." + src_lang), r2 = find(p.plain + "." + trg_lang);
                 s2 && r2) {
        done.src = *s2, done.ref = *r2;
        fields = from_plain(*s2, *r2);
      } else {
        report.missing.push_back(t.name + " " + p.pair);
        continue;
      }
      REALMT_CHECK(fields.src.size() == fields.ref.size() && !fields.src.empty(),
                   "testsets: {} {}: {} has {} segments, {} has {}", t.name, p.pair, done.src,
                   fields.src.size(), done.ref, fields.ref.size());
      done.segments = fields.src.size();
      write_lines(test_set_file(cache_dir, t, p.pair, "src"), fields.src);
      write_lines(test_set_file(cache_dir, t, p.pair, "ref"), fields.ref);
      if (t.document_fields) {
        const std::vector<std::pair<const char*, const std::vector<std::string>*>> meta = {
            {"docid", &fields.docid}, {"genre", &fields.genre}, {"origlang", &fields.origlang}};
        for (const auto& [name, values] : meta) {
          const std::string path = test_set_file(cache_dir, t, p.pair, name);
          // From plain text there are none: older ones (from SGM) would no longer line up.
          if (done.sgm)
            write_lines(path, *values);
          else
            fs::remove(path);
        }
      }
      report.filled.push_back(done);
    }
  }
  return report;
}

}  // namespace realmt::metrics
