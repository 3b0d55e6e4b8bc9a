#include "convert/torch_reader.h"

#include <cstring>
#include <memory>
#include <variant>
#include <vector>

#include "convert/zip_reader.h"
#include "core/error.h"
#include "core/half.h"

namespace realmt::convert {
namespace {

// A Python object as far as a state dict needs: None, bools, ints, floats, strings and bytes,
// tuples and lists, dicts, globals (module.name), the results of calling them (REDUCE), storage
// ids (BINPERSID) and rebuilt tensors. The Unpickler owns every object (an arena): a pickle can
// make a list hold itself (APPEND of its own memo entry), which reference counting would leak.
struct Obj;
using Ref = Obj*;
struct TensorRef {
  std::string storage_type, key;
  int64_t offset = 0;
  std::vector<int64_t> size, stride;
};
struct Obj {
  enum class Kind {
    kNone,
    kBool,
    kInt,
    kFloat,
    kStr,
    kBytes,
    kTuple,
    kList,
    kDict,
    kGlobal,
    kCall,
    kPersistent,
    kTensor
  };
  Kind kind = Kind::kNone;
  int64_t i = 0;
  double f = 0;
  std::string s, module;   // kStr/kBytes/kGlobal name; kGlobal module
  std::vector<Ref> items;  // tuple, list; kCall: {callable, args}; kPersistent: the id tuple
  std::vector<std::pair<Ref, Ref>> dict;
  TensorRef tensor;
};

class Unpickler {
 public:
  Unpickler(const std::string& data, const std::string& where) : d_(data), where_(where) {}

  // The objects live as long as the Unpickler.
  Ref make(Obj::Kind k) {
    arena_.push_back(std::make_unique<Obj>());
    arena_.back()->kind = k;
    return arena_.back().get();
  }

  Ref run() {
    while (true) {
      const unsigned char op = byte();
      switch (op) {
        case 0x80: byte(); break;                          // PROTO
        case 0x95: take(8); break;                         // FRAME
        case '.': return pop();                            // STOP
        case '(': marks_.push_back(stack_.size()); break;  // MARK
        case ')': push(make(Obj::Kind::kTuple)); break;    // EMPTY_TUPLE
        case '}': push(make(Obj::Kind::kDict)); break;     // EMPTY_DICT
        case ']': push(make(Obj::Kind::kList)); break;     // EMPTY_LIST
        case 'N': push(make(Obj::Kind::kNone)); break;
        case 0x88: push_bool(true); break;                            // NEWTRUE
        case 0x89: push_bool(false); break;                           // NEWFALSE
        case 'K': push_int(byte()); break;                            // BININT1
        case 'M': push_int(static_cast<int64_t>(uint_le(2))); break;  // BININT2
        case 'J': push_int(static_cast<int32_t>(uint_le(4))); break;  // BININT
        case 0x8a: {  // LONG1: little-endian two's complement of n bytes
          const int n = byte();
          REALMT_CHECK(n <= 8,
                       "{}: LONG1 of {} bytes at byte {}: integers past 64 bits are not read",
                       where_, n, pos_ - 2);
          const std::string b = take(n);
          uint64_t u = 0;  // unsigned: the shifts wrap, as two's complement needs
          for (int k = n - 1; k >= 0; --k) u = (u << 8) | static_cast<unsigned char>(b[k]);
          if (n > 0 && n < 8 && (static_cast<unsigned char>(b[n - 1]) & 0x80))
            u -= uint64_t(1) << (8 * n);
          push_int(static_cast<int64_t>(u));
          break;
        }
        case 'G': {  // BINFLOAT: big-endian double
          const std::string b = take(8);
          uint64_t u = 0;
          for (int k = 0; k < 8; ++k) u = (u << 8) | static_cast<unsigned char>(b[k]);
          auto o = make(Obj::Kind::kFloat);
          std::memcpy(&o->f, &u, 8);
          push(o);
          break;
        }
        case 'X': push_str(Obj::Kind::kStr, uint_le(4)); break;    // BINUNICODE
        case 0x8c: push_str(Obj::Kind::kStr, byte()); break;       // SHORT_BINUNICODE
        case 'B': push_str(Obj::Kind::kBytes, uint_le(4)); break;  // BINBYTES
        case 'C': push_str(Obj::Kind::kBytes, byte()); break;      // SHORT_BINBYTES
        case 'c': {                                                // GLOBAL module\nname\n
          auto o = make(Obj::Kind::kGlobal);
          o->module = line();
          o->s = line();
          push(o);
          break;
        }
        case 0x93: {  // STACK_GLOBAL
          auto name = pop(), module = pop();
          auto o = make(Obj::Kind::kGlobal);
          o->module = module->s;
          o->s = name->s;
          push(o);
          break;
        }
        case 'q': memo_put(byte()); break;         // BINPUT
        case 'r': memo_put(uint_le(4)); break;     // LONG_BINPUT
        case 0x94: memo_put(memo_.size()); break;  // MEMOIZE
        case 'h': memo_get(byte()); break;         // BINGET
        case 'j': memo_get(uint_le(4)); break;     // LONG_BINGET
        case 't': {                                // TUPLE
          auto o = make(Obj::Kind::kTuple);
          o->items = pop_mark();
          push(o);
          break;
        }
        case 0x85: tuple_of(1); break;  // TUPLE1
        case 0x86: tuple_of(2); break;  // TUPLE2
        case 0x87: tuple_of(3); break;  // TUPLE3
        case 'a': {                     // APPEND
          auto v = pop();
          top()->items.push_back(v);
          break;
        }
        case 'e': {  // APPENDS
          auto vs = pop_mark();
          auto& l = top()->items;
          l.insert(l.end(), vs.begin(), vs.end());
          break;
        }
        case 's': {  // SETITEM
          auto v = pop(), k = pop();
          top()->dict.push_back({k, v});
          break;
        }
        case 'u': {  // SETITEMS
          auto vs = pop_mark();
          REALMT_CHECK(vs.size() % 2 == 0, "{}: SETITEMS with an odd number of values", where_);
          for (size_t k = 0; k < vs.size(); k += 2) top()->dict.push_back({vs[k], vs[k + 1]});
          break;
        }
        case 'Q': {  // BINPERSID: torch's storage id ('storage', type, key, location, numel)
          auto pid = pop();
          auto o = make(Obj::Kind::kPersistent);
          o->items = pid->items;
          push(o);
          break;
        }
        case 'R': {  // REDUCE
          auto args = pop(), callable = pop();
          push(call(callable, args));
          break;
        }
        case 0x81: {  // NEWOBJ (cls, args): an object we do not need
          auto args = pop(), cls = pop();
          push(call(cls, args));
          break;
        }
        case 'b': pop(); break;  // BUILD: state of an object (an OrderedDict's _metadata): dropped
        default:
          REALMT_FAIL(
              "{}: pickle opcode 0x{:02x} at byte {} is not one torch.save writes for a state dict",
              where_, static_cast<int>(op), pos_ - 1);
      }
    }
  }

 private:
  unsigned char byte() {
    REALMT_CHECK(pos_ < d_.size(), "{}: truncated pickle", where_);
    return static_cast<unsigned char>(d_[pos_++]);
  }
  std::string take(size_t n) {
    REALMT_CHECK(n <= d_.size() - pos_, "{}: truncated pickle", where_);
    std::string s = d_.substr(pos_, n);
    pos_ += n;
    return s;
  }
  uint64_t uint_le(int n) {
    const std::string b = take(static_cast<size_t>(n));
    uint64_t v = 0;
    for (int k = n - 1; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(b[k]);
    return v;
  }
  std::string line() {
    const size_t end = d_.find('\n', pos_);
    REALMT_CHECK(end != std::string::npos, "{}: truncated pickle", where_);
    std::string s = d_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return s;
  }
  void push(Ref o) { stack_.push_back(o); }
  Ref pop() {
    REALMT_CHECK(!stack_.empty() && (marks_.empty() || stack_.size() > marks_.back()),
                 "{}: pickle stack underflow", where_);
    Ref o = stack_.back();
    stack_.pop_back();
    return o;
  }
  Ref& top() {
    REALMT_CHECK(!stack_.empty(), "{}: pickle stack underflow", where_);
    return stack_.back();
  }
  std::vector<Ref> pop_mark() {
    REALMT_CHECK(!marks_.empty(), "{}: pickle without MARK", where_);
    const size_t m = marks_.back();
    marks_.pop_back();
    std::vector<Ref> items(stack_.begin() + static_cast<int64_t>(m), stack_.end());
    stack_.resize(m);
    return items;
  }
  void push_bool(bool b) {
    auto o = make(Obj::Kind::kBool);
    o->i = b;
    push(o);
  }
  void push_int(int64_t v) {
    auto o = make(Obj::Kind::kInt);
    o->i = v;
    push(o);
  }
  void push_str(Obj::Kind k, uint64_t n) {
    auto o = make(k);
    o->s = take(n);
    push(o);
  }
  void tuple_of(int n) {
    auto o = make(Obj::Kind::kTuple);
    o->items.resize(n);
    for (int k = n - 1; k >= 0; --k) o->items[k] = pop();
    push(o);
  }
  // Python's pickler numbers memo entries 0, 1, 2, ...: an index past the next one is refused
  // (it would let 4 bytes of input allocate gigabytes).
  void memo_put(uint64_t k) {
    REALMT_CHECK(k <= memo_.size(), "{}: pickle memo index {} skips past {}", where_, k,
                 memo_.size());
    if (k == memo_.size()) memo_.push_back(nullptr);
    memo_[k] = top();
  }
  void memo_get(uint64_t k) {
    REALMT_CHECK(k < memo_.size() && memo_[k], "{}: pickle memo {} unset", where_, k);
    push(memo_[k]);
  }
  static std::vector<int64_t> ints(const Ref& t) {
    std::vector<int64_t> v;
    for (const Ref& x : t->items) v.push_back(x->i);
    return v;
  }
  Ref call(const Ref& f, const Ref& args) {
    const std::string name = f->kind == Obj::Kind::kGlobal ? f->module + "." + f->s : "";
    if (name == "collections.OrderedDict") return make(Obj::Kind::kDict);
    if (name == "torch._utils._rebuild_tensor_v2" || name == "torch._utils._rebuild_tensor") {
      // (storage, storage_offset, size, stride, ...)
      REALMT_CHECK(args->items.size() >= 4 && args->items[0]->kind == Obj::Kind::kPersistent,
                   "{}: {} without a storage", where_, name);
      const auto& pid = args->items[0]->items;
      REALMT_CHECK(pid.size() >= 3, "{}: a storage id of {} fields", where_, pid.size());
      REALMT_CHECK(args->items[2]->items.size() <= static_cast<size_t>(kMaxDims),
                   "{}: a tensor of {} dimensions (at most {} are read)", where_,
                   args->items[2]->items.size(), kMaxDims);
      auto t = make(Obj::Kind::kTensor);
      t->tensor.storage_type = pid[1]->s;
      t->tensor.key = pid[2]->s;
      t->tensor.offset = args->items[1]->i;
      t->tensor.size = ints(args->items[2]);
      t->tensor.stride = ints(args->items[3]);
      return t;
    }
    if (name == "torch._utils._rebuild_parameter" ||
        name == "torch._utils._rebuild_parameter_with_state") {
      REALMT_CHECK(!args->items.empty(), "{}: {} without its tensor", where_, name);
      return args->items[0];
    }
    auto o = make(Obj::Kind::kCall);
    o->items = {f, args};
    return o;
  }

  const std::string& d_;
  std::string where_;
  size_t pos_ = 0;
  std::vector<Ref> stack_, memo_;
  std::vector<size_t> marks_;
  std::vector<std::unique_ptr<Obj>> arena_;
};

// Bytes per element and how to widen one to float, by storage class name.
struct StorageType {
  DType dtype;
  size_t bytes;
};
bool storage_type(const std::string& name, StorageType& out) {
  if (name == "FloatStorage")
    out = {DType::kF32, 4};
  else if (name == "HalfStorage")
    out = {DType::kF16, 2};
  else if (name == "BFloat16Storage")
    out = {DType::kBF16, 2};
  else if (name == "DoubleStorage")
    out = {DType::kF64, 8};
  else
    return false;
  return true;
}

float element(const char* p, DType dtype) {
  switch (dtype) {
    case DType::kF32: {
      float f;
      std::memcpy(&f, p, 4);
      return f;
    }
    case DType::kF64: {
      double d;
      std::memcpy(&d, p, 8);
      return static_cast<float>(d);
    }
    case DType::kF16: {
      Half h;
      std::memcpy(&h.bits, p, 2);
      return static_cast<float>(h);
    }
    default: {
      BFloat16 h;
      std::memcpy(&h.bits, p, 2);
      return static_cast<float>(h);
    }
  }
}

}  // namespace

namespace {

void check_torch_magic(const std::string& path) {
  std::string magic(2, '\0');
  FILE* f = std::fopen(path.c_str(), "rb");
  REALMT_CHECK(f != nullptr, "cannot open {}", path);
  const size_t n = std::fread(magic.data(), 1, 2, f);
  std::fclose(f);
  REALMT_CHECK(
      n == 2 && magic == "PK",
      "{}: not a zip archive: a torch.save file from before PyTorch 1.6 (legacy format), which "
      "realmt "
      "does not read; load and save it again with a recent PyTorch, or as model.safetensors",
      path);
}

// Checks that the view (offset, sizes, strides) stays inside a storage of `elements` elements and
// holds no more elements than it (an expanded view, stride 0, is refused: state dicts hold none),
// before anything is allocated.
void check_view(const TensorRef& t, uint64_t elements, const std::string& where) {
  REALMT_CHECK(t.stride.size() == t.size.size(), "{}: {} sizes and {} strides", where,
               t.size.size(), t.stride.size());
  REALMT_CHECK(t.offset >= 0, "{}: storage offset {}", where, t.offset);
  uint64_t numel = 1, last = static_cast<uint64_t>(t.offset);
  bool overflow = false;
  for (size_t r = 0; r < t.size.size(); ++r) {
    REALMT_CHECK(t.size[r] >= 0 && t.stride[r] >= 0, "{}: size {} or stride {} negative", where,
                 t.size[r], t.stride[r]);
    overflow = overflow || __builtin_mul_overflow(numel, static_cast<uint64_t>(t.size[r]), &numel);
    uint64_t reach = 0;
    if (t.size[r] > 0)
      overflow = overflow ||
                 __builtin_mul_overflow(static_cast<uint64_t>(t.size[r] - 1),
                                        static_cast<uint64_t>(t.stride[r]), &reach) ||
                 __builtin_add_overflow(last, reach, &last);
  }
  REALMT_CHECK(!overflow && numel <= elements && (numel == 0 || last < elements),
               "{}: its view (offset {}, {} elements) reads past its storage of {} elements", where,
               t.offset, overflow ? std::string("more than 2^64") : std::to_string(numel),
               elements);
}

// The tensor `t` of `bytes` (its storage) as an f32 tensor.
Tensor rebuild(const TensorRef& t, const StorageType& st, const std::string& bytes,
               const std::string& where) {
  check_view(t, bytes.size() / st.bytes, where);
  Tensor x = Tensor::empty(Shape(t.size), DType::kF32);
  float* dst = x.data<float>();
  const int64_t n = x.numel(), rank = static_cast<int64_t>(t.size.size());
  std::vector<int64_t> idx(static_cast<size_t>(rank), 0);
  for (int64_t e = 0; e < n; ++e) {
    int64_t off = t.offset;
    for (int64_t r = 0; r < rank; ++r) off += idx[r] * t.stride[r];
    dst[e] = element(bytes.data() + off * st.bytes, st.dtype);
    for (int64_t r = rank - 1; r >= 0 && ++idx[r] == t.size[r]; --r) idx[r] = 0;
  }
  return x;
}

}  // namespace

std::map<std::string, Tensor> read_torch_state_dict(const std::string& path,
                                                    std::map<std::string, std::string>* skipped) {
  check_torch_magic(path);
  const ZipReader zip(path);
  const ZipMember* pkl = nullptr;
  for (const ZipMember& m : zip.members())
    if (m.name.size() >= 9 && m.name.compare(m.name.size() - 9, 9, "/data.pkl") == 0) pkl = &m;
  REALMT_CHECK(pkl != nullptr, "{}: no data.pkl member: not a torch.save archive", path);
  const std::string prefix = pkl->name.substr(0, pkl->name.size() - 8);  // "<name>/"
  const std::string pickle = zip.read(*pkl);
  Unpickler unpickler(pickle, path + " (" + pkl->name + ")");
  const Ref root = unpickler.run();
  REALMT_CHECK(root->kind == Obj::Kind::kDict,
               "{}: the pickle holds no dict (a whole model, not a state dict?)", path);
  std::map<std::string, Tensor> out;
  std::map<std::string, std::string> storages;  // key -> bytes, read once
  for (const auto& [k, v] : root->dict) {
    if (k->kind != Obj::Kind::kStr || v->kind != Obj::Kind::kTensor) continue;
    const TensorRef& t = v->tensor;
    StorageType st;
    // A key given twice (possible in a pickle, found by torch_pickle_fuzz) ends as Python's dict
    // has it: the later value replaces the earlier, whichever list it went to.
    out.erase(k->s);
    if (skipped) skipped->erase(k->s);
    if (!storage_type(t.storage_type, st)) {  // integer and bool buffers
      if (skipped) (*skipped)[k->s] = t.storage_type;
      continue;
    }
    auto it = storages.find(t.key);
    if (it == storages.end()) {
      const ZipMember* m = zip.find(prefix + "data/" + t.key);
      REALMT_CHECK(m != nullptr, "{}: tensor '{}': storage {} missing", path, k->s, t.key);
      it = storages.emplace(t.key, zip.read(*m)).first;
    }
    out.emplace(k->s, rebuild(t, st, it->second, format("{}: tensor '{}'", path, k->s)));
  }
  return out;
}

}  // namespace realmt::convert
