// Communicators: the single-process one, replica hashes and the watchdog wait (plain process);
// the MPI communicator's collectives (Mpi* cases, under mpirun -np 2; they skip in a plain
// process).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "distributed/communicator.h"
#include "distributed/mpi_communicator.h"
#include "distributed/replicas.h"
#include "distributed/wait.h"

namespace realmt::distributed {
namespace {

TEST(Single, CollectivesAreIdentity) {
  if (launched_by_mpi()) GTEST_SKIP() << "under mpirun";
  auto world = make_world({});
  EXPECT_EQ(world->name(), "single");
  EXPECT_EQ(world->size(), 1);
  EXPECT_EQ(world->rank(), 0);
  Tensor t = Tensor::from_vector(std::vector<float>{1.5f, -2.f, 3.f}, {3});
  world->all_reduce_sum(t);
  EXPECT_EQ(t.to_vector<float>(), (std::vector<float>{1.5f, -2.f, 3.f}));
  double d[2] = {0.25, 7};
  world->all_reduce_sum(std::span<double>(d));
  EXPECT_EQ(d[1], 7);
  std::string s = "state";
  world->broadcast(s, 0);
  EXPECT_EQ(s, "state");
  EXPECT_THROW(world->broadcast(s, 1), Error);
  EXPECT_EQ(all_gather(*world, "x"), std::vector<std::string>{"x"});
  // A CPU device keeps the host communicator.
  auto dev = for_device(std::move(world), Device::cpu(), {});
  EXPECT_EQ(dev->name(), "single");
  EXPECT_THROW(make_world({.timeout_s = 0.0}), Error);
}

TEST(Replicas, HashSeesOneBit) {
  Tensor a = Tensor::from_vector(std::vector<float>(1001, 0.5f), {1001});
  Tensor b = a.clone();
  EXPECT_EQ(content_hash(a), content_hash(b));
  b.data<float>()[1000] = std::nextafter(0.5f, 1.f);
  EXPECT_NE(content_hash(a), content_hash(b));
  EXPECT_NE(content_hash(a.narrow0(0, 1000)), content_hash(a));
}

TEST(Wait, ReturnsOnSuccessAndOnDeadline) {
  int polls = 0;
  EXPECT_TRUE(wait_until([&] { return ++polls == 3; }, 10.0));
  EXPECT_EQ(polls, 3);
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_FALSE(wait_until([] { return false; }, 0.2));
  const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_GE(s, 0.2);
  EXPECT_LT(s, 2.0);
  EXPECT_NE(
      timeout_message(1, 2, "barrier", 3).find("rank 1 of 2: barrier did not complete within 3 s"),
      std::string::npos);
}

// ---- under mpirun -np 2 ----
class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!launched_by_mpi())
      GTEST_SKIP() << "needs mpirun -np 2 (ctest runs distributed_tests_mpirun_np2)";
    static std::unique_ptr<Communicator> world = make_world({.timeout_s = 60});
    comm = world.get();
    ASSERT_EQ(comm->name(), "mpi");
    ASSERT_EQ(comm->size(), 2);
  }
  Communicator* comm = nullptr;
};

TEST_F(Mpi, AllReduceSumsTensorsOverBuckets) {
  // Just over one bucket, so that two MPI_Iallreduce calls are in flight; f32 and f64.
  const int64_t n = static_cast<int64_t>(kBucketBytes / sizeof(float)) + 3;
  std::vector<float> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i)
    v[size_t(i)] = static_cast<float>((i % 1000) * (comm->rank() + 1));
  Tensor t = Tensor::from_vector(v, {n});
  comm->all_reduce_sum(t);
  const float* p = t.data<float>();
  for (int64_t i : {int64_t(0), int64_t(1), n / 2, n - 4, n - 1})
    EXPECT_EQ(p[i], static_cast<float>((i % 1000) * 3)) << i;
  Tensor d = Tensor::from_vector(std::vector<double>{0.1 * (comm->rank() + 1), 1e300}, {2});
  comm->all_reduce_sum(d);
  EXPECT_DOUBLE_EQ(d.data<double>()[0], 0.1 + 0.2);
  EXPECT_DOUBLE_EQ(d.data<double>()[1], 2e300);
  Tensor i32 = Tensor::zeros({4}, DType::kI32);
  EXPECT_THROW(comm->all_reduce_sum(i32), Error);
}

TEST_F(Mpi, ScalarsStringsAndBarrier) {
  double d[2] = {1.5, static_cast<double>(comm->rank())};
  comm->all_reduce_sum(std::span<double>(d));
  EXPECT_EQ(d[0], 3.0);
  EXPECT_EQ(d[1], 1.0);
  int64_t c[1] = {(int64_t(1) << 40) + comm->rank()};
  comm->all_reduce_sum(std::span<int64_t>(c));
  EXPECT_EQ(c[0], (int64_t(1) << 41) + 1);
  for (int root : {0, 1}) {
    std::string s = comm->rank() == root ? std::string("from root ") + std::to_string(root) : "";
    comm->broadcast(s, root);
    EXPECT_EQ(s, "from root " + std::to_string(root));
  }
  EXPECT_EQ(all_gather(*comm, "r" + std::to_string(comm->rank())),
            (std::vector<std::string>{"r0", "r1"}));
  comm->barrier();
}

TEST_F(Mpi, ReplicaCheckFailsOnEveryRank) {
  Tensor same = Tensor::full({100}, 0.25);
  EXPECT_NO_THROW(check_replicas_agree(*comm, same, "weights"));
  Tensor differ = Tensor::full({100}, 0.25 + comm->rank());
  try {
    check_replicas_agree(*comm, differ, "weights");
    FAIL() << "no error on rank " << comm->rank();
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("weights differ between the ranks of the job (1 of 2"),
              std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace realmt::distributed
