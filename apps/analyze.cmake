# realmt-analyze: attention entropy and cross-layer JSD (src/analysis/).
if(TARGET realmt_analysis)
  realmt_app(analyze realmt_analyze.cc realmt_analysis)
endif()
