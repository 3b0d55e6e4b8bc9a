// The training and validation lines are Marian's, byte for byte for the fields Marian prints
// (Marian 1.12 scheduler.h; the examples are lines of Marian logs), realmt's fields after them.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <nlohmann/json.hpp>
#include <regex>

#include "core/log.h"
#include "training/train_log.h"

namespace realmt::training {
namespace {

DisplayStats marian_example() {
  // Marian: "Ep. 24 : Up. 20785 : Sen. 646,829,638 : Cost 0.12538165 * 25,437,554 @ 2,305,265 after
  // 24,150,553,337 : Time 21.29s : 1193424.53 words/s : gNorm 0.0552 : L.r. 6.5259e-04"
  DisplayStats s;
  s.epoch = 24;
  s.updates = 20785;
  s.sentences_in_epoch = 646829638;
  s.labels = 25437554;
  s.cost_sum = 0.12538165 * 25437554;
  s.batch_labels = 2305265;
  s.labels_total = 24150553337LL;
  s.seconds = 21.29;
  s.labels = 25437554;
  s.grad_norm_avg = 0.05521;
  s.lr = 6.5259e-04;
  s.mem_bytes = 3 * 1048576;
  return s;
}

TEST(TrainLog, CeSumLineIsMariansWithLabelCounts) {
  DisplayStats s = marian_example();
  const std::string line = format_train_line(s, {.cost_type = CostType::kCeSum, .lr_report = true});
  const std::string marian =
      "Ep. 24 : Up. 20785 : Sen. 646,829,638 : Cost 0.12538165 * 25,437,554 @ 2,305,265 after "
      "24,150,553,337 : Time 21.29s : 1194812.31 words/s : gNorm 0.0552 : L.r. 6.5259e-04";
  EXPECT_EQ(line.substr(0, marian.size()), marian);
  EXPECT_EQ(line.substr(marian.size()), " : Mem 3.0 MB : ETA ?");  // realmt's fields after Marian's
}

TEST(TrainLog, CeMeanWordsLineWithoutLearningRate) {
  DisplayStats s;
  s.epoch = 1;
  s.updates = 1000;
  s.sentences_in_epoch = 1269755;
  s.cost_sum = 7.95987511 * 4000;
  s.labels = 4000;
  s.seconds = 785.53;
  s.grad_norm_avg = 1.23456;
  const std::string line = format_train_line(s, {.cost_type = CostType::kCeMeanWords});
  EXPECT_EQ(line.substr(0, line.find(" : Mem")),
            "Ep. 1 : Up. 1000 : Sen. 1,269,755 : Cost 7.95987511 : Time 785.53s : 5.09 words/s : "
            "gNorm 1.2346");
  // Marian's other cost types.
  s.sentences = 100;
  s.updates_since = 10;
  EXPECT_NE(
      format_train_line(s, {.cost_type = CostType::kCrossEntropy}).find("Cost 318.39500440 :"),
      std::string::npos);
  EXPECT_NE(format_train_line(s, {.cost_type = CostType::kCeSum, .disp_label_counts = false})
                .find("Cost 3183.95004400 :"),
            std::string::npos);
  char ppl[64];
  std::snprintf(ppl, sizeof ppl, "Cost %.8f :", std::exp(7.95987511));
  EXPECT_NE(format_train_line(s, {.cost_type = CostType::kPerplexity}).find(ppl),
            std::string::npos);
}

TEST(TrainLog, ValidationLinesAreMarians) {
  EXPECT_EQ(format_valid_line(1, 5000, {"ce-mean-words", 5.212771, true, 0, 0}),
            "[valid] Ep. 1 : Up. 5000 : ce-mean-words : 5.21277 : new best");
  EXPECT_EQ(
      format_valid_line(9, 775000, {"perplexity", 4.248121, false, 4, 4.241117}),
      "[valid] Ep. 9 : Up. 775000 : perplexity : 4.24812 : stalled 4 times (last best: 4.24112)");
  EXPECT_EQ(format_valid_line(2, 300, {"translation", 27.3, true, 0, 0}),
            "[valid] Ep. 2 : Up. 300 : translation : 27.3 : new best");
}

TEST(TrainLog, CommasAndLogParsers) {
  EXPECT_EQ(with_commas(0), "0");
  EXPECT_EQ(with_commas(999), "999");
  EXPECT_EQ(with_commas(1000), "1,000");
  EXPECT_EQ(with_commas(24150553337LL), "24,150,553,337");
  // What Marian log parsers (marian-tensorboard) look for in a training line.
  const std::regex train(
      R"(Ep\.\s+[\d.]+\s+:\s+Up\.\s+\d+\s+:\s+Sen\.\s+[\d,]+\s+:\s+Cost\s+[\d.]+(?: \* [\d,]+ @ [\d,]+ after [\d,]+)? :)"
      R"( Time [\d.]+s : [\d.]+ words/s : gNorm [\d.]+ : L\.r\. [\d.]+e-\d+)");
  for (CostType cost : {CostType::kCeSum, CostType::kCeMeanWords})
    EXPECT_TRUE(std::regex_search(
        format_train_line(marian_example(), {.cost_type = cost, .lr_report = true}), train));
}

TEST(TrainLog, ValidLinesGoToTheValidLogToo) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("realmt_trainlog_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  log::set_file(dir + "/train.log");  // what --log does (common/options_cli.cc)
  {
    TrainLog::Options o;
    o.valid_log_path = dir + "/valid.log";
    o.quiet = true;
    TrainLog log(o);
    log.line("Training started");
    log.validation(1, 10, {{"ce-mean-words", 3.5, true, 0, 0}, {"bleu", 12.25, false, 1, 13}});
  }
  log::set_file("");
  std::ifstream valid(dir + "/valid.log"), train(dir + "/train.log");
  std::string l1, l2, rest;
  std::getline(valid, l1);
  std::getline(valid, l2);
  EXPECT_TRUE(std::regex_match(
      l1, std::regex(R"(\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] \[valid\] Ep\. 1 : Up\. 10 : )"
                     R"(ce-mean-words : 3\.5 : new best)")))
      << l1;
  EXPECT_NE(l2.find("[valid] Ep. 1 : Up. 10 : bleu : 12.25 : stalled 1 times (last best: 13)"),
            std::string::npos);
  EXPECT_FALSE(std::getline(valid, rest));  // only the validation lines
  int lines = 0;
  while (std::getline(train, rest)) ++lines;
  EXPECT_EQ(lines, 3);  // the log file has everything
  std::filesystem::remove_all(dir);
}

// The metrics file is JSON a line whatever the values: a diverged loss (NaN, Inf) is null, metric
// names are escaped. (The snprintf writer it replaced printed "nan" and "inf", which no JSON
// reader accepts, and wrote names unescaped.)
TEST(TrainLog, MetricsFileIsJsonEvenForNonFiniteValues) {
  const std::string dir =
      std::filesystem::temp_directory_path() / ("realmt_trainjson_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    TrainLog::Options o;
    o.metrics_path = dir + "/m.jsonl";
    o.quiet = true;
    TrainLog log(o);
    DisplayStats s = marian_example();
    s.cost_sum = std::nan("");
    s.grad_norm = std::numeric_limits<double>::infinity();
    s.grad_norm_avg = -std::numeric_limits<double>::infinity();
    s.loss_scale = 64;
    log.display(s);
    log.validation(
        2, 30,
        {{"bleu", std::nan(""), false, 2, 11.5}, {"my \"script\"\tmetric\\", 1.25, true, 0, 0}});
  }
  std::ifstream in(dir + "/m.jsonl");
  std::string train, valid, rest;
  ASSERT_TRUE(std::getline(in, train));
  ASSERT_TRUE(std::getline(in, valid));
  EXPECT_FALSE(std::getline(in, rest));
  nlohmann::json t, v;
  ASSERT_NO_THROW(t = nlohmann::json::parse(train)) << train;
  ASSERT_NO_THROW(v = nlohmann::json::parse(valid)) << valid;
  EXPECT_EQ(train.rfind("{\"type\":\"train\",", 0), 0u) << train;  // "type" first
  EXPECT_TRUE(t.at("loss_per_token").is_null());
  EXPECT_TRUE(t.at("grad_norm").is_null());
  EXPECT_TRUE(t.at("grad_norm_avg").is_null());
  EXPECT_EQ(t.at("updates"), 20785);
  EXPECT_DOUBLE_EQ(t.at("lr").get<double>(), 6.5259e-04);
  EXPECT_EQ(t.at("loss_scale"), 64.0);
  EXPECT_EQ(v.at("type"), "valid");
  EXPECT_EQ(v.at("updates"), 30);
  EXPECT_TRUE(v.at("bleu").is_null());
  EXPECT_EQ(v.at("my \"script\"\tmetric\\"), 1.25);
  EXPECT_EQ(v.at("stalled"), 2);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace realmt::training
