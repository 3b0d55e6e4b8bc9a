# realmt-convert: model conversion (Hugging Face Marian, Marian .npz -> realmt; realmt -> CTranslate2).
if(TARGET realmt_convert)
  realmt_app(convert realmt_convert.cc realmt_convert)
endif()
