# SWITCHYARD_SANITIZE=address,undefined instruments every target of the tree (the test build uses it).
if(SWITCHYARD_SANITIZE)
  add_compile_options(-fsanitize=${SWITCHYARD_SANITIZE} -fno-omit-frame-pointer -g)
  add_link_options(-fsanitize=${SWITCHYARD_SANITIZE})
endif()
