# realmt-translate, realmt-score, realmt-average: decoding, scoring and checkpoint averaging.
if(TARGET realmt_search)
  realmt_app(translate realmt_translate.cc realmt_search)
  realmt_app(score realmt_score.cc realmt_search)
  realmt_app(average realmt_average.cc realmt_search)
endif()
