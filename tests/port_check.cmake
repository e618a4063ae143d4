# Builds tests/port (the core and its libc-only unit tests) with one
# compiler and set of flags, runs those tests, and with REFERENCE compares
# what that build's port_dump prints with what the main build's printed.
#
#   cmake -DSRC=<source tree> -DBIN=<build folder> -DCC=<compiler>
#         -DFLAGS=<C flags, all targets> -DLIB_FLAGS=<the library only>
#         -DPORTABLE=ON|OFF -DSOURCES=<core sources, |-separated>
#         -DVERSION_DIR=<folder of sluice_version.h>
#         [-DLIST=<port_dump's input list> -DREFERENCE=<the main build's dump>]
#         -P port_check.cmake
#
# A compiler that is not installed, or cannot link a program with FLAGS
# (-m32 without gcc-multilib), is a skip ("port: skipped: ..."), not a
# failure: scripts/install-deps installs both.
cmake_minimum_required(VERSION 3.16)
separate_arguments(flags UNIX_COMMAND "${FLAGS}")

find_program(cc_path ${CC})
if(NOT cc_path)
  message("port: skipped: ${CC} is not installed (scripts/install-deps installs it)")
  return()
endif()
file(MAKE_DIRECTORY ${BIN})
file(WRITE ${BIN}/probe.c "#include <stdio.h>\nint main(void) { return puts(\"probe\") < 0; }\n")
execute_process(COMMAND ${cc_path} ${flags} ${BIN}/probe.c -o ${BIN}/probe
                RESULT_VARIABLE rc OUTPUT_QUIET ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message("${err}")
  message("port: skipped: ${CC} ${FLAGS} cannot build a program (for -m32: gcc-multilib, "
          "which scripts/install-deps installs)")
  return()
endif()

function(step what)
  execute_process(COMMAND ${ARGN} RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "port: ${what} failed (${rc})")
  endif()
endfunction()

step("configuring tests/port with ${CC} ${FLAGS}"
  ${CMAKE_COMMAND} -S ${SRC}/tests/port -B ${BIN} -DCMAKE_BUILD_TYPE=Release
  -DCMAKE_C_COMPILER=${cc_path} "-DCMAKE_C_FLAGS=${FLAGS}" "-DSLUICE_LIB_FLAGS=${LIB_FLAGS}"
  -DSLUICE_PORTABLE=${PORTABLE} -DSLUICE_SRC=${SRC} "-DSLUICE_CORE_SOURCES=${SOURCES}"
  -DSLUICE_VERSION_DIR=${VERSION_DIR})
step("building tests/port" ${CMAKE_COMMAND} --build ${BIN} --parallel 2)
step("the unit tests of tests/port" ${CMAKE_CTEST_COMMAND} --output-on-failure WORKING_DIRECTORY ${BIN})

if(REFERENCE)
  step("port_dump" ${BIN}/port_dump ${LIST} OUTPUT_FILE ${BIN}/port_dump.txt WORKING_DIRECTORY ${SRC})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${REFERENCE} ${BIN}/port_dump.txt
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    execute_process(COMMAND diff ${REFERENCE} ${BIN}/port_dump.txt OUTPUT_VARIABLE d)
    string(SUBSTRING "${d}" 0 3000 d)
    message(FATAL_ERROR "port: what this build prints differs from the default build's "
            "(< default, > here; a line is input, filter, chunking, status, then length and "
            "hash of each channel and of the events):\n${d}")
  endif()
  file(STRINGS ${BIN}/port_dump.txt summary REGEX "^[0-9]+ runs over ")
  message("port: the same as the default build, line for line: ${summary}")
endif()
