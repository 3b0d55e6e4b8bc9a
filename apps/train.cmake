# realmt-train and realmt-init: the training job and the ADMIN initializer.
if(TARGET realmt_training)
  realmt_app(train realmt_train.cc realmt_training)
  realmt_app(init realmt_init.cc realmt_training)
endif()
