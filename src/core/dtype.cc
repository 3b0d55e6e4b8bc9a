#include "core/dtype.h"

#include "core/error.h"

namespace realmt {

size_t dtype_size(DType t) {
  switch (t) {
    case DType::kF32: return 4;
    case DType::kF64: return 8;
    case DType::kF16: return 2;
    case DType::kBF16: return 2;
    case DType::kI32: return 4;
    case DType::kU8: return 1;
    case DType::kI8: return 1;
  }
  REALMT_ASSERT(false, "bad dtype {}", int(t));
}

const char* dtype_name(DType t) {
  switch (t) {
    case DType::kF32: return "f32";
    case DType::kF64: return "f64";
    case DType::kF16: return "f16";
    case DType::kBF16: return "bf16";
    case DType::kI32: return "i32";
    case DType::kU8: return "u8";
    case DType::kI8: return "i8";
  }
  return "?";
}

DType parse_dtype(const std::string& name) {
  for (int i = 0; i < kNumDTypes; ++i)
    if (name == dtype_name(DType(i))) return DType(i);
  REALMT_FAIL("unknown dtype '{}' (known: f32, f64, f16, bf16, i32, u8, i8)", name);
}

void throw_unsupported_dtype(const char* op, DType t) {
  REALMT_FAIL("{} on the cpu computes in f32 or f64, not {} (cast first)", op, t);
}

bool is_floating(DType t) { return t != DType::kI32 && t != DType::kU8 && t != DType::kI8; }

std::ostream& operator<<(std::ostream& os, DType t) { return os << dtype_name(t); }

}  // namespace realmt
