// The JSON body of POST /v1/translate (server::parse_translate_request) on arbitrary bytes: a
// request is parsed or refused with an HttpError of status 400 or 413, nothing else; an accepted
// request respects the limits and gives search options (or a 400) and a well-formed answer.
#include "fuzz_util.h"
#include "server/request.h"

using namespace realmt;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  server::RequestLimits limits;
  limits.max_sentences = 8;
  limits.max_sentence_bytes = 64;
  try {
    const server::TranslateRequest r =
        server::parse_translate_request(fuzz::as_text(data, size), limits);
    REALMT_FUZZ_CHECK(static_cast<int64_t>(r.text.size()) <= limits.max_sentences);
    for (const std::string& s : r.text)
      REALMT_FUZZ_CHECK(static_cast<int64_t>(s.size()) <= limits.max_sentence_bytes);
    REALMT_FUZZ_CHECK(r.beam_size >= 0 && r.beam_size <= limits.max_beam_size);
    REALMT_FUZZ_CHECK(r.n_best >= 1 && r.n_best <= limits.max_n_best);
    REALMT_FUZZ_CHECK(r.timeout_ms >= 0 && r.timeout_ms <= limits.max_timeout_ms);
    const search::SearchOptions so = server::request_search_options(r, search::SearchOptions{});
    std::vector<std::vector<server::ScoredText>> answers;
    for (const std::string& s : r.text) answers.push_back({{s, -1.0}});
    REALMT_FUZZ_CHECK(!server::format_translations(answers, so.n_best).empty());
  } catch (const server::HttpError& e) {
    REALMT_FUZZ_CHECK(e.status() == 400 || e.status() == 413);
    REALMT_FUZZ_CHECK(!server::format_error(e.what()).empty());
  }
  return 0;
}
