#include "server/batch_scheduler.h"

#include <gtest/gtest.h>

#include <random>
#include <thread>

#include "search/beam_search.h"
#include "search/tiny_model.h"
#include "server/fake_decoder.h"
#include "server/metrics.h"
#include "server/request.h"

namespace realmt::server {
namespace {

using test::FakeDecoder;
using test::reversed;

constexpr auto kLong = std::chrono::seconds(30);  // a wait or deadline no test reaches

search::SearchOptions beam(int k) {
  search::SearchOptions o;
  o.beam_size = k;
  return o;
}

SchedulerOptions options(int64_t sentences, int64_t tokens = 0, int64_t wait_ms = 30000) {
  SchedulerOptions o;
  o.max_batch_sentences = sentences;
  o.max_batch_tokens = tokens;
  o.max_wait_ms = wait_ms;
  return o;
}

int status_of_submit(BatchScheduler& s, std::vector<std::vector<int32_t>> src) {
  try {
    s.submit(std::move(src), beam(1), Clock::now() + kLong);
  } catch (const HttpError& e) {
    return e.status();
  }
  return 200;
}

TEST(BatchScheduler, BatchesAcrossRequestsAndRoutesResults) {
  FakeDecoder fake;
  // A batch waits (up to 30 s) until it holds 4 sentences, so the three requests share one.
  BatchScheduler s(fake.fn(), options(4));
  const auto deadline = Clock::now() + kLong;
  Ticket a = s.submit({{4, 5}}, beam(1), deadline);
  Ticket b = s.submit({{6, 7, 8}, {9}}, beam(1), deadline);
  Ticket c = s.submit({{10, 11}}, beam(1), deadline);
  const RequestResult ra = a.wait(), rb = b.wait(), rc = c.wait();
  ASSERT_EQ(ra.status, 200);
  ASSERT_EQ(rb.status, 200);
  ASSERT_EQ(rc.status, 200);
  EXPECT_EQ(ra.hypotheses[0][0].tokens, (std::vector<int32_t>{5, 4}));
  ASSERT_EQ(rb.hypotheses.size(), 2u);
  EXPECT_EQ(rb.hypotheses[0][0].tokens, (std::vector<int32_t>{8, 7, 6}));
  EXPECT_EQ(rb.hypotheses[1][0].tokens, (std::vector<int32_t>{9}));
  EXPECT_EQ(rc.hypotheses[0][0].tokens, (std::vector<int32_t>{11, 10}));
  const auto seen = fake.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].sources,
            (std::vector<std::vector<int32_t>>{{4, 5}, {6, 7, 8}, {9}, {10, 11}}));  // FIFO
}

TEST(BatchScheduler, OnlyRequestsWithTheSameOptionsShareABatch) {
  FakeDecoder fake;
  auto s = std::make_unique<BatchScheduler>(fake.fn(), options(2));
  const auto deadline = Clock::now() + kLong;
  Ticket a = s->submit({{4}}, beam(1), deadline);
  Ticket b = s->submit({{5}}, beam(4), deadline);
  Ticket c = s->submit({{6}}, beam(1), deadline);
  EXPECT_EQ(a.wait().status, 200);  // {a, c} fill a batch at once; b waits alone
  EXPECT_EQ(c.wait().status, 200);
  s->drain();  // no more waiting for a full batch
  EXPECT_EQ(b.wait().status, 200);
  const auto seen = fake.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].sources, (std::vector<std::vector<int32_t>>{{4}, {6}}));
  EXPECT_EQ(seen[0].beam_size, 1);
  EXPECT_EQ(seen[1].sources, (std::vector<std::vector<int32_t>>{{5}}));
  EXPECT_EQ(seen[1].beam_size, 4);
}

TEST(BatchScheduler, TokenBudgetCountsPadding) {
  FakeDecoder fake;
  // 10 tokens. The oldest sentence (1 token) is joined by the one closest in length ({8}):
  // 2 x (1 + eos) = 4; the 4-token one would make 3 x (4 + eos) = 15, so it waits.
  BatchScheduler s(fake.fn(), options(100, 10));
  const auto deadline = Clock::now() + kLong;
  Ticket a = s.submit({{4}, {4, 5, 6, 7}, {8}}, beam(1), deadline);
  s.drain();
  ASSERT_EQ(a.wait().status, 200);
  auto seen = fake.seen();
  ASSERT_EQ(seen.size(), 2u);
  EXPECT_EQ(seen[0].sources, (std::vector<std::vector<int32_t>>{{4}, {8}}));
  EXPECT_EQ(seen[1].sources, (std::vector<std::vector<int32_t>>{{4, 5, 6, 7}}));
  // Padding is counted: {1 token} + {4 tokens} = 2 x (4 + eos) = 10 fits exactly.
  FakeDecoder fake2;
  Ticket b = BatchScheduler(fake2.fn(), options(100, 10, 0))
                 .submit({{4}, {4, 5, 6, 7}}, beam(1), Clock::now() + kLong);
  EXPECT_EQ(b.wait().status, 200);
  seen = fake2.seen();
  ASSERT_EQ(seen.size(), 1u);
  EXPECT_EQ(seen[0].sources.size(), 2u);
  // A sentence longer than the whole budget still decodes, alone.
  Ticket big = BatchScheduler(fake.fn(), options(100, 3, 0))
                   .submit({{1, 2, 3, 4}}, beam(1), Clock::now() + kLong);
  EXPECT_EQ(big.wait().status, 200);
}

TEST(BatchScheduler, FullQueueIs429AndDrainingIs503) {
  FakeDecoder fake;
  SchedulerOptions o = options(100);  // nothing decodes before drain: the queue only grows
  o.max_queue_sentences = 3;
  o.max_queue_tokens = 100;
  BatchScheduler s(fake.fn(), o);
  Ticket a = s.submit({{4}, {5}}, beam(1), Clock::now() + kLong);
  EXPECT_EQ(s.queued_sentences(), 2);
  EXPECT_EQ(status_of_submit(s, {{4}, {5}}), 429);
  EXPECT_EQ(status_of_submit(s, {std::vector<int32_t>(100, 4)}), 429);  // tokens bound
  EXPECT_EQ(s.queued_sentences(), 2);  // refused requests leave nothing behind
  Ticket b = s.submit({{6}}, beam(1), Clock::now() + kLong);
  s.drain();
  EXPECT_EQ(status_of_submit(s, {{7}}), 503);
  EXPECT_EQ(a.wait().status, 200);  // queued work is finished
  EXPECT_EQ(b.wait().status, 200);
  EXPECT_TRUE(s.wait_idle(std::chrono::milliseconds(10000)));
  EXPECT_EQ(s.queued_sentences(), 0);
  EXPECT_EQ(s.queued_tokens(), 0);
}

TEST(BatchScheduler, DeadlineIs504AndDropsQueuedSentences) {
  FakeDecoder fake;
  Registry metrics;
  BatchScheduler s(fake.fn(), options(100), &metrics);
  Ticket a = s.submit({{4}, {5}}, beam(1), Clock::now() + std::chrono::milliseconds(20));
  const RequestResult r = a.wait();
  EXPECT_EQ(r.status, 504);
  EXPECT_NE(r.error.find("deadline"), std::string::npos);
  // The scheduler wakes at the deadline and drops the sentences without decoding them.
  for (int i = 0; i < 1000 && s.queued_sentences() > 0; ++i)
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  EXPECT_EQ(s.queued_sentences(), 0);
  s.drain();
  EXPECT_TRUE(s.wait_idle(std::chrono::milliseconds(10000)));
  EXPECT_TRUE(fake.seen().empty());
  EXPECT_NE(metrics.render().find("realmt_expired_sentences_total 2\n"), std::string::npos);
}

TEST(BatchScheduler, DecoderFailureIs500ForTheBatchOnly) {
  FakeDecoder fake;
  fake.throw_on_ = 99;
  BatchScheduler s(fake.fn(), options(1, 0, 0));
  Ticket bad = s.submit({{4, 99}}, beam(1), Clock::now() + kLong);
  Ticket good = s.submit({{4, 5}}, beam(1), Clock::now() + kLong);
  const RequestResult rb = bad.wait();
  EXPECT_EQ(rb.status, 500);
  EXPECT_NE(rb.error.find("fake decoder failure"), std::string::npos);
  EXPECT_EQ(good.wait().status, 200);
}

TEST(BatchScheduler, SentenceWithoutAFiniteHypothesisIs500ForItsRequestOnly) {
  // The search gives a sentence no hypothesis when the model's scores are NaN or Inf: its
  // request gets an error naming the sentence, never a 200 with an empty translation.
  DecodeFn decode = [](const std::vector<std::vector<int32_t>>& sources,
                       const search::SearchOptions&) {
    std::vector<std::vector<search::Hypothesis>> out(sources.size());
    for (size_t i = 0; i < sources.size(); ++i) {
      if (sources[i][0] == 66) continue;  // no finite hypothesis
      out[i].push_back(search::Hypothesis{});
      out[i][0].tokens = sources[i];
    }
    return out;
  };
  BatchScheduler s(decode, options(8, 0, 20));
  Ticket bad = s.submit({{4}, {66, 5}}, beam(1), Clock::now() + kLong);
  Ticket good = s.submit({{7, 8}}, beam(1), Clock::now() + kLong);
  const RequestResult rb = bad.wait();
  EXPECT_EQ(rb.status, 500);
  EXPECT_NE(rb.error.find("text[1]: no translation with a finite score"), std::string::npos)
      << rb.error;
  const RequestResult rg = good.wait();
  ASSERT_EQ(rg.status, 200);
  EXPECT_EQ(rg.hypotheses[0][0].tokens, (std::vector<int32_t>{7, 8}));
}

TEST(BatchScheduler, ConcurrentClientsGetTheirOwnAnswers) {
  FakeDecoder fake;
  Registry metrics;
  BatchScheduler s(fake.fn(), options(16, 0, 2), &metrics);
  std::vector<std::thread> clients;
  std::atomic<int> wrong{0};
  for (int c = 0; c < 16; ++c)
    clients.emplace_back([&, c] {
      for (int r = 0; r < 20; ++r) {
        std::vector<std::vector<int32_t>> src{{c, r, 4}, {r, c}};
        const RequestResult res = s.submit(src, beam(1), Clock::now() + kLong).wait();
        if (res.status != 200 || res.hypotheses[0][0].tokens != reversed(src[0]) ||
            res.hypotheses[1][0].tokens != reversed(src[1]))
          ++wrong;
      }
    });
  for (auto& t : clients) t.join();
  EXPECT_EQ(wrong.load(), 0);
  size_t sentences = 0, largest = 0;
  for (const auto& b : fake.seen()) {
    sentences += b.sources.size();
    largest = std::max(largest, b.sources.size());
    EXPECT_LE(b.sources.size(), 16u);
  }
  EXPECT_EQ(sentences, 16u * 20 * 2);
  EXPECT_NE(metrics.render().find("realmt_decoded_sentences_total 640\n"), std::string::npos);
}

// With a real (tiny, random) model: what the scheduler returns for sentences batched across
// requests is what the beam search gives each request's sentences on their own.
TEST(BatchScheduler, TinyModelMatchesDirectSearch) {
  auto model = search::test::tiny_model(3);
  const search::BeamSearch search({model.get()});
  search::SearchOptions o = beam(3);
  o.n_best = 2;
  o.max_length = 6;
  BatchScheduler s([&](const auto& src, const auto& so) { return search.search(src, so); },
                   options(8, 0, 50));
  std::mt19937 rng(5);
  std::vector<std::vector<std::vector<int32_t>>> requests;
  for (int r = 0; r < 5; ++r) {
    std::vector<std::vector<int32_t>> req;
    for (int i = 0; i <= r % 3; ++i) {
      std::vector<int32_t> src(1 + rng() % 4);
      for (auto& t : src) t = 4 + static_cast<int32_t>(rng() % 3);
      req.push_back(src);
    }
    requests.push_back(req);
  }
  std::vector<Ticket> tickets;
  for (const auto& req : requests) tickets.push_back(s.submit(req, o, Clock::now() + kLong));
  for (size_t r = 0; r < requests.size(); ++r) {
    const RequestResult got = tickets[r].wait();
    ASSERT_EQ(got.status, 200);
    const auto want = search.search(requests[r], o);
    ASSERT_EQ(got.hypotheses.size(), want.size());
    for (size_t i = 0; i < want.size(); ++i) {
      ASSERT_EQ(got.hypotheses[i].size(), want[i].size());
      for (size_t k = 0; k < want[i].size(); ++k) {
        EXPECT_EQ(got.hypotheses[i][k].tokens, want[i][k].tokens) << "request " << r;
        EXPECT_NEAR(got.hypotheses[i][k].score, want[i][k].score, 1e-5);
      }
    }
  }
}

}  // namespace
}  // namespace realmt::server
