// REALMT_NCCL_CHECK turns an NCCL failure into realmt::Error naming the call and NCCL's text
// (no GPU needed: the result code is given directly).
#include <gtest/gtest.h>

#include "backend/cuda/nccl_check.h"

namespace realmt {
namespace {

TEST(NcclCheck, FailureNamesCallAndError) {
  try {
    REALMT_NCCL_CHECK(ncclInvalidArgument);
    FAIL() << "no realmt::Error thrown";
  } catch (const Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("ncclInvalidArgument"), std::string::npos) << msg;
    EXPECT_NE(msg.find(ncclGetErrorString(ncclInvalidArgument)), std::string::npos) << msg;
    EXPECT_NE(std::string(e.file()).find("cuda_nccl_check_test.cc"), std::string::npos);
  }
  EXPECT_NO_THROW(REALMT_NCCL_CHECK(ncclSuccess));
}

}  // namespace
}  // namespace realmt
