# Installs the build into a scratch prefix, then builds and runs a consumer
# project with find_package(sluice), and a compile through pkg-config.
set(prefix ${BUILD}/install-check/prefix)
file(REMOVE_RECURSE ${BUILD}/install-check)
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${prefix}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
foreach(f include/sluice.h share/sluice/conformance/suites/think)
  if(NOT EXISTS ${prefix}/${f})
    message(FATAL_ERROR "not installed: ${f}")
  endif()
endforeach()
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/consumer -B ${BUILD}/install-check/b
                        -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "find_package(sluice) failed:\n${out}")
endif()
execute_process(COMMAND ${CMAKE_COMMAND} --build ${BUILD}/install-check/b
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "building the consumer failed:\n${out}")
endif()
foreach(exe consumer consumer_static)
  execute_process(COMMAND env LD_LIBRARY_PATH=${prefix}/lib:${prefix}/lib64
                          ${BUILD}/install-check/b/${exe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${exe} failed:\n${out}")
  endif()
endforeach()
file(GLOB_RECURSE pcs ${prefix}/*/sluice.pc)
list(GET pcs 0 pc)
get_filename_component(pcdir ${pc} DIRECTORY)
execute_process(COMMAND env PKG_CONFIG_PATH=${pcdir} pkg-config --cflags --libs sluice
                RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
if(NOT rc EQUAL 0 OR NOT flags MATCHES "-lsluice")
  message(FATAL_ERROR "pkg-config sluice failed: ${flags}")
endif()
message("install check: header, libraries, CMake package and pkg-config all work")
