# Configures the project again in its core-only form (libsluice and its
# unit tests: -DSLUICE_BUILD_KIT=OFF -DSLUICE_BUILD_TOOLS=OFF) with one
# compiler and set of flags, builds it, runs its tests, and with REFERENCE
# compares what that build's port_dump prints with what the main build's
# printed.
#
#   cmake -DSRC=<source tree> -DBIN=<build folder> -DCC=<compiler>
#         -DFLAGS=<C flags> -DBUILD_TYPE=<Release, Debug> -DSANITIZE=ON|OFF
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

step("configuring the core with ${CC} ${FLAGS}"
  ${CMAKE_COMMAND} -S ${SRC} -B ${BIN} -DCMAKE_C_COMPILER=${cc_path} "-DCMAKE_C_FLAGS=${FLAGS}"
  -DCMAKE_BUILD_TYPE=${BUILD_TYPE} -DSLUICE_SANITIZE=${SANITIZE}
  -DSLUICE_BUILD_KIT=OFF -DSLUICE_BUILD_TOOLS=OFF)
step("building the core" ${CMAKE_COMMAND} --build ${BIN} --parallel 2)
step("the core's unit tests" ${CMAKE_CTEST_COMMAND} --output-on-failure WORKING_DIRECTORY ${BIN})

if(REFERENCE)
  step("port_dump" ${BIN}/tests/port_dump ${LIST} OUTPUT_FILE ${BIN}/port-dump.txt
       WORKING_DIRECTORY ${SRC})
  execute_process(COMMAND ${CMAKE_COMMAND} -E compare_files ${REFERENCE} ${BIN}/port-dump.txt
                  RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    execute_process(COMMAND diff ${REFERENCE} ${BIN}/port-dump.txt OUTPUT_VARIABLE d)
    string(SUBSTRING "${d}" 0 3000 d)
    message(FATAL_ERROR "port: what this build prints differs from the default build's "
            "(< default, > here; a line is input, filter, chunking, status, then length and "
            "hash of each channel and of the events):\n${d}")
  endif()
  file(STRINGS ${BIN}/port-dump.txt summary REGEX "^[0-9]+ runs over ")
  message("port: the same as the default build, line for line: ${summary}")
endif()
