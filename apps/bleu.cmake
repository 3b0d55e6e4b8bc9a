# realmt-bleu: sacreBLEU-compatible scorer (links realmt_metrics, never the tensor core).
if(TARGET realmt_metrics)
  realmt_app(bleu realmt_bleu.cc realmt_metrics)
endif()
