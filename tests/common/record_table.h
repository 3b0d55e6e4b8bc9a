// record_table_holes: checks that a checkpoint record's field table (its fields(V&) member,
// models/checkpoint_record.h) visits every member of the record. The members the table visits,
// placed by address, must tile the record's bytes with nothing between them but the padding
// alignment puts there; a member added to the struct and forgotten in the table leaves a hole.
// Returns "" or a description of the holes and of members visited twice.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace realmt::testing {

class RecordLayout {
 public:
  explicit RecordLayout(const void* record) : base_(static_cast<const char*>(record)) {}
  template <class T>
  void operator()(const std::string&, T& field) {
    add(field);
  }
  template <class R>
  void group(std::optional<R>& field) {
    add(field);
  }
  template <class T>
  void family(const std::string&, std::map<std::string, T>& field) {
    add(field);
  }

  struct Span {
    size_t offset, size, align;
    bool operator<(const Span& o) const { return offset < o.offset; }
  };
  std::vector<Span> spans;

 private:
  template <class F>
  void add(F& field) {
    spans.push_back({size_t(reinterpret_cast<const char*>(&field) - base_), sizeof(F), alignof(F)});
  }
  const char* base_;
};

inline size_t round_up(size_t n, size_t a) { return (n + a - 1) / a * a; }

template <class R>
std::string record_table_holes() {
  R record{};
  RecordLayout layout(&record);
  record.fields(layout);
  std::vector<RecordLayout::Span> spans = layout.spans;
  std::sort(spans.begin(), spans.end());
  std::string holes;
  size_t end = 0;
  for (const RecordLayout::Span& s : spans) {
    if (s.offset < end)
      holes += " a member at byte " + std::to_string(s.offset) + " is visited twice;";
    else if (s.offset != round_up(end, s.align))
      holes +=
          " bytes " + std::to_string(end) + ".." + std::to_string(s.offset) + " are in no field;";
    end = std::max(end, s.offset + s.size);
  }
  if (sizeof(R) != round_up(end, alignof(R)))
    holes +=
        " bytes " + std::to_string(end) + ".." + std::to_string(sizeof(R)) + " are in no field;";
  return holes;
}

}  // namespace realmt::testing
