# switchyard_warnings(target): the warning set every project target compiles with.
function(switchyard_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wno-missing-field-initializers)
endfunction()
