// Communicators: the single-process one, batch dealing (shard.h), replica hashes and the watchdog wait
// (plain process); the MPI communicator's collectives (Mpi* cases, under mpirun -np 2; they
// skip in a plain process).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <numeric>

#include "distributed/communicator.h"
#include "distributed/mpi_communicator.h"
#include "distributed/replicas.h"
#include "distributed/shard.h"
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
  EXPECT_THROW(make_world({0.0}), Error);
}

// A stream of `count` batches; batch i has i + 1 sentence pairs whose line ids are 100 * i + row.
struct Stream {
  int count, drawn = 0;
  std::optional<data::Batch> next() {
    if (drawn == count) {
      drawn = 0;  // as the BatchGenerator: nullopt once, then the next epoch
      return std::nullopt;
    }
    data::Batch b;
    b.size = drawn + 1;
    for (int64_t r = 0; r < b.size; ++r) b.ids.push_back(100 * drawn + r);
    ++drawn;
    return b;
  }
};

// Each rank's batches, round after round, until the end of the epoch; also checks that the
// job-wide counters every rank computes agree.
std::vector<std::vector<int64_t>> deal(int batches, int ranks, int64_t* total_batches, int64_t* total_sentences) {
  std::vector<std::vector<int64_t>> own(ranks);
  std::vector<Stream> streams(ranks, Stream{batches});  // every rank runs its own copy of the loader
  bool ended = false;
  *total_batches = *total_sentences = 0;
  while (!ended) {
    for (int r = 0; r < ranks; ++r) {
      const Round round = draw_round([&] { return streams[r].next(); }, r, ranks);
      if (r == 0) {
        *total_batches += round.batches;
        *total_sentences += round.sentences;
        ended = round.end_of_epoch;
      } else {
        EXPECT_EQ(round.end_of_epoch, ended) << "rank " << r << " sees the end of the epoch elsewhere";
      }
      if (round.own) own[r].push_back(round.own->ids[0] / 100);
    }
  }
  return own;
}

TEST(Shard, RoundsDealTheStreamOutBatchByBatch) {
  int64_t batches = 0, sentences = 0;
  // 7 batches over 3 ranks: rounds {0,1,2} {3,4,5} {6, end}.
  const auto own = deal(7, 3, &batches, &sentences);
  EXPECT_EQ(own[0], (std::vector<int64_t>{0, 3, 6}));
  EXPECT_EQ(own[1], (std::vector<int64_t>{1, 4}));
  EXPECT_EQ(own[2], (std::vector<int64_t>{2, 5}));
  EXPECT_EQ(batches, 7);
  EXPECT_EQ(sentences, 1 + 2 + 3 + 4 + 5 + 6 + 7);
  // One process takes every batch; the next call starts the next epoch.
  Stream s{2};
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 1);
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 2);
  const Round end = draw_round([&] { return s.next(); }, 0, 1);
  EXPECT_TRUE(end.end_of_epoch);
  EXPECT_FALSE(end.own.has_value());
  EXPECT_EQ(end.batches, 0);
  EXPECT_EQ(draw_round([&] { return s.next(); }, 0, 1).own->size, 1);
  // The round ends exactly at the epoch's end: all ranks get a batch, and the next round is empty.
  const auto even = deal(4, 2, &batches, &sentences);
  EXPECT_EQ(even[0], (std::vector<int64_t>{0, 2}));
  EXPECT_EQ(even[1], (std::vector<int64_t>{1, 3}));
  EXPECT_THROW(draw_round([&] { return s.next(); }, 3, 3), Error);
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
  EXPECT_NE(timeout_message(1, 2, "barrier", 3).find("rank 1 of 2: barrier did not complete within 3 s"),
            std::string::npos);
}

// ---- under mpirun -np 2 ----
class Mpi : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!launched_by_mpi()) GTEST_SKIP() << "needs mpirun -np 2 (ctest runs distributed_tests_mpirun_np2)";
    static std::unique_ptr<Communicator> world = make_world({60});
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
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = static_cast<float>((i % 1000) * (comm->rank() + 1));
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
  EXPECT_EQ(all_gather(*comm, "r" + std::to_string(comm->rank())), (std::vector<std::string>{"r0", "r1"}));
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
    EXPECT_NE(std::string(e.what()).find("weights differ between the ranks of the job (1 of 2"), std::string::npos)
        << e.what();
  }
}

}  // namespace
}  // namespace realmt::distributed
