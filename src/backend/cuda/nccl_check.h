// Checked NCCL calls, for the data-parallel code (it includes nccl.h and links NCCL; the
// rest of the backend does not). A failure throws realmt::Error naming the call, NCCL's
// error text and the caller's file:line.
//
//   REALMT_NCCL_CHECK(ncclAllReduce(buf, buf, n, ncclFloat, ncclSum, comm, stream));
#pragma once

#include <nccl.h>

#include "core/error.h"

#define REALMT_NCCL_CHECK(call)                                                                \
  do {                                                                                         \
    const ncclResult_t realmt_nccl_res_ = (call);                                              \
    if (realmt_nccl_res_ != ncclSuccess) [[unlikely]]                                          \
      REALMT_FAIL("NCCL call {} failed: {} (code {}; set NCCL_DEBUG=WARN for details)", #call, \
                  ncclGetErrorString(realmt_nccl_res_), static_cast<int>(realmt_nccl_res_));   \
  } while (0)
