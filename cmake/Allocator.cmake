# SWITCHYARD_MIMALLOC links the programs (the gateway, the desktop app) with mimalloc, which then
# serves every malloc and free of the process, Qt's and libcurl's included. A request allocates
# and frees about 200 blocks; with glibc's allocator that was 17 % of the gateway thread's
# instructions (docs/benchmarks/allocator.md).
# Sanitizer builds keep the sanitizer's own allocator.
option(SWITCHYARD_MIMALLOC "Link the programs with mimalloc (Debian: libmimalloc-dev)" ON)

if(SWITCHYARD_MIMALLOC AND NOT SWITCHYARD_SANITIZE)
  find_library(SWITCHYARD_MIMALLOC_LIBRARY NAMES mimalloc)
  if(NOT SWITCHYARD_MIMALLOC_LIBRARY)
    message(FATAL_ERROR "mimalloc not found: install libmimalloc-dev, or configure with -DSWITCHYARD_MIMALLOC=OFF")
  endif()
  message(STATUS "Allocator: mimalloc (${SWITCHYARD_MIMALLOC_LIBRARY})")
else()
  set(SWITCHYARD_MIMALLOC_LIBRARY "")
  message(STATUS "Allocator: the C library's")
endif()

# Links a program with mimalloc: its libraries come before the C library, so its malloc is the one
# every library of the process binds to. --no-as-needed keeps it linked although no object of the
# program names one of its own symbols.
function(switchyard_allocator target)
  if(SWITCHYARD_MIMALLOC_LIBRARY)
    target_link_libraries(${target} PRIVATE ${SWITCHYARD_MIMALLOC_LIBRARY})
    target_link_options(${target} PRIVATE "LINKER:--no-as-needed")
  endif()
endfunction()
