// sacreBLEU 2.6.0's command line: the CLI's exact output on the README example.
#include <gtest/gtest.h>

#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.h"
#include "metrics/cli.h"
#include "metrics/cli_options.h"
#include "metrics/text_io.h"
#include "metrics/format.h"

namespace realmt::metrics {
namespace {

class Cli : public ::testing::Test {
 protected:
  void SetUp() override {
    // One folder per test process: ctest runs these tests side by side, and files shared by
    // name in TempDir() were rewritten by one test while another read them (a flaky failure).
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = ::testing::TempDir() + "realmt_cli_" + info->name() + "_" + std::to_string(::getpid()) +
           "/";
    std::filesystem::create_directories(dir_);
    write("r1", "The dog bit the man.\nIt was not unexpected.\nThe man bit him first.\n");
    write("r2", "The dog had bit the man.\nNo one was surprised.\nThe man had bitten the dog.\n");
    hyp_ = "The dog bit the man.\nIt wasn't surprising.\nThe man had just bitten him.\n";
  }
  void write(const std::string& name, const std::string& text) {
    std::ofstream(dir_ + name) << text;
  }
  std::string run(std::vector<std::string> args, const std::string& stdin_text) {
    for (auto& a : args) {
      if (a == "r1" || a == "r2" || a == "h2") a = dir_ + a;
    }
    std::istringstream in(stdin_text);
    std::ostringstream out;
    run_cli(parse_cli(args), in, out);
    return out.str();
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_, hyp_;
};

TEST_F(Cli, DefaultJson) {
  EXPECT_EQ(
      run({"r1", "r2"}, hyp_),
      "{\n \"name\": \"BLEU\",\n \"score\": 48.5,\n \"signature\": "
      "\"nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0\",\n \"verbose_score\": "
      "\"82.4/50.0/45.5/37.5 "
      "(BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\",\n \"nrefs\": \"2\",\n \"case\": "
      "\"mixed\",\n"
      " \"eff\": \"no\",\n \"tok\": \"13a\",\n \"smooth\": \"exp\",\n \"version\": \"2.6.0\",\n"
      " \"implementation\": \"" +
          implementation_name() + "\"\n}\n");
  EXPECT_EQ(run({"r1", "r2", "-b"}, hyp_), "48.5\n");
  EXPECT_EQ(run({"r1", "r2", "-m", "bleu", "chrf", "ter", "-b"}, hyp_),
            "[\n48.5,\n59.7,\n40.0\n]\n");
}

TEST_F(Cli, Text) {
  EXPECT_EQ(run({"r1", "r2", "-f", "text", "--short", "-w", "3"}, hyp_),
            "BLEU|#:2|c:mixed|e:no|tok:13a|s:exp|v:2.6.0 = 48.531 82.4/50.0/45.5/37.5 (BP = 0.943 "
            "ratio = 0.944 "
            "hyp_len = 17 ref_len = 18)\n");
  EXPECT_EQ(run({"r1", "r2", "-m", "ter", "chrf", "bleu", "-f", "text"}, hyp_),
            "        BLEU|nrefs:2|case:mixed|eff:no|tok:13a|smooth:exp|version:2.6.0 = 48.5 "
            "82.4/50.0/45.5/37.5 "
            "(BP = 0.943 ratio = 0.944 hyp_len = 17 ref_len = 18)\n"
            "      chrF2|nrefs:2|case:mixed|eff:yes|nc:6|nw:0|space:no|version:2.6.0 = 59.7\n"
            "TER|nrefs:2|case:lc|tok:tercom|norm:no|punct:yes|asian:no|version:2.6.0 = 40.0\n");
}

TEST_F(Cli, SentenceLevel) {
  const std::string out = run({"r1", "r2", "-sl", "-f", "text"}, hyp_);
  EXPECT_NE(
      out.find(
          "= 100.0 100.0/100.0/100.0/100.0 (BP = 1.000 ratio = 1.000 hyp_len = 6 ref_len = 6)\n"),
      std::string::npos);
  EXPECT_NE(
      out.find("= 14.8 50.0/16.7/12.5/12.5 (BP = 0.779 ratio = 0.800 hyp_len = 4 ref_len = 5)\n"),
      std::string::npos);
  EXPECT_NE(out.find("eff:yes"), std::string::npos);
  EXPECT_EQ(run({"r1", "r2", "-sl", "-m", "chrf", "-b"}, hyp_), "100.0\n35.3\n51.9\n");
  EXPECT_EQ(run({"r1", "-sl", "-m", "ter", "--short", "-w", "4"}, hyp_),
            "TER|#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:2.6.0 = 0.0000\n"
            "TER|#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:2.6.0 = 75.0000\n"
            "TER|#:1|c:lc|t:tercom|nr:no|pn:yes|as:no|v:2.6.0 = 80.0000\n");
}

TEST_F(Cli, Errors) {
  EXPECT_THROW(run({"r1", "r2"}, "one line\n"), CliExit);
  EXPECT_THROW(run({"r1", "-sl", "-m", "bleu", "chrf"}, hyp_), CliExit);
  EXPECT_THROW(run({"r1"}, "a\tb\nc\n"), CliExit);
  try {
    run({"r1", "r2"}, "a\nb\n");
    FAIL();
  } catch (const CliExit& e) {
    EXPECT_EQ(e.code, 1);
  }
}

TEST_F(Cli, ADirectoryAsAReferenceIsAnErrorNamingIt) {
  try {
    read_lines_file(dir_);
    FAIL() << "expected an error";
  } catch (const Error& e) {
    EXPECT_NE(std::string(e.what()).find("it is a directory"), std::string::npos) << e.what();
  }
}

TEST(Format, PythonRepr) {
  EXPECT_EQ(py_repr(48.5), "48.5");
  EXPECT_EQ(py_repr(100.0), "100.0");
  EXPECT_EQ(py_repr(1e-14), "1e-14");
  EXPECT_EQ(py_repr(0.0001), "0.0001");
  EXPECT_EQ(py_repr(1e-05), "1e-05");
  EXPECT_EQ(py_repr(1e16), "1e+16");
  EXPECT_EQ(py_repr(123456789012345.6), "123456789012345.6");
  EXPECT_EQ(py_repr(0.0004997501249375312), "0.0004997501249375312");
  EXPECT_EQ(json_rounded(48.53, 0), "49.0");
  EXPECT_EQ(json_string("μ ±\"", true), "\"\\u03bc \\u00b1\\\"\"");
}

}  // namespace
}  // namespace realmt::metrics
