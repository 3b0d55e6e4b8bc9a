if(TARGET realmt_data)
  realmt_app(data realmt_data.cc realmt_data)
  target_compile_definitions(realmt-data PRIVATE REALMT_VERSION="${PROJECT_VERSION}")
endif()
