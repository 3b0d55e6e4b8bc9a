# realmt-server: translation as an HTTP service, batching across concurrent requests.
if(TARGET realmt_server)
  realmt_app(server realmt_server.cc realmt_server)
endif()
