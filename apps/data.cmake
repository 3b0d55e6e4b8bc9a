if(TARGET realmt_data)
  realmt_app(data realmt_data.cc realmt_data)
endif()
