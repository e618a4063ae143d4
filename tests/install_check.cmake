# Installs the build into a scratch prefix, then moves the prefix elsewhere
# (a relocated install) and checks, from outside the tree, that:
# - the header, libraries, CMake package, pkg-config files, the command, the
#   suites, FORMAT.md and the design notes are installed;
# - libsluice needs libc only (ldd), and a program that uses only the
#   filters links without jansson, through CMake and through pkg-config;
# - the kit (filters by name from JSON) links and works, shared and static;
# - pkg-config finds the moved prefix (${pcfiledir}), and the moved sluice
#   command finds the suites installed beside it;
# - the installed command names no folder of this machine: neither the
#   source tree nor the build folder is compiled into it (its debug
#   information aside: a stripped copy is read when STRIP is given), and
#   the build's sluice-build-paths is not installed.
set(root ${BUILD}/install-check)
set(first ${root}/first)
set(prefix ${root}/moved)
file(REMOVE_RECURSE ${root})
execute_process(COMMAND ${CMAKE_COMMAND} --install ${BUILD} --prefix ${first}
                RESULT_VARIABLE rc OUTPUT_QUIET)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cmake --install failed")
endif()
file(RENAME ${first} ${prefix})
function(check what)
  if(${ARGN})
  else()
    message(FATAL_ERROR "install check: ${what}")
  endif()
endfunction()
foreach(f include/sluice.h include/sluice_version.h bin/sluice
          share/sluice/conformance/suites/think share/sluice/conformance/FORMAT.md
          share/doc/sluice/DESIGN.md)
  check("not installed: ${f}" EXISTS ${prefix}/${f})
endforeach()
file(GLOB_RECURSE core_so ${prefix}/*/libsluice.so)
list(GET core_so 0 core_so)
get_filename_component(libdir ${core_so} DIRECTORY)
execute_process(COMMAND ldd ${core_so} OUTPUT_VARIABLE deps)
string(REGEX REPLACE "[^\n]*(linux-vdso|ld-linux|libc\\.so)[^\n]*\n?" "" others "${deps}")
string(STRIP "${others}" others)
if(others)
  message(FATAL_ERROR "install check: libsluice needs more than libc:\n${others}")
endif()

# CMake consumers
execute_process(COMMAND ${CMAKE_COMMAND} -S ${SRC}/tests/consumer -B ${root}/b
                        -DCMAKE_PREFIX_PATH=${prefix}
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("find_package(sluice) failed:\n${out}" rc EQUAL 0)
execute_process(COMMAND ${CMAKE_COMMAND} --build ${root}/b RESULT_VARIABLE rc
                OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("building the consumers failed:\n${out}" rc EQUAL 0)
foreach(exe consumer consumer_static kit_consumer kit_consumer_static)
  execute_process(COMMAND env LD_LIBRARY_PATH=${libdir} ${root}/b/${exe}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
  check("${exe} failed:\n${out}" rc EQUAL 0)
endforeach()
foreach(exe consumer consumer_static)
  execute_process(COMMAND env LD_LIBRARY_PATH=${libdir} ldd ${root}/b/${exe} OUTPUT_VARIABLE deps)
  check("${exe} (filters only) links jansson:\n${deps}" NOT deps MATCHES "jansson")
endforeach()

# pkg-config, from the moved prefix: a filters-only program links without
# jansson; a kit program links with it. Each is compiled and run.
function(pc_program pc source out)
  execute_process(COMMAND env PKG_CONFIG_PATH=${libdir}/pkgconfig pkg-config --cflags --libs ${pc}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE flags OUTPUT_STRIP_TRAILING_WHITESPACE)
  check("pkg-config ${pc} failed: ${flags}" rc EQUAL 0)
  check("pkg-config ${pc} does not point into the moved prefix: ${flags}" flags MATCHES "${prefix}")
  set(${out}_flags "${flags}" PARENT_SCOPE)
  separate_arguments(flags UNIX_COMMAND "${flags}")
  execute_process(COMMAND cc -std=c11 ${SRC}/tests/consumer/${source} ${flags} -o ${root}/${out}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE log ERROR_VARIABLE log)
  check("compiling ${source} against pkg-config ${pc} failed:\n${log}" rc EQUAL 0)
  execute_process(COMMAND env LD_LIBRARY_PATH=${libdir} ${root}/${out} RESULT_VARIABLE rc
                  OUTPUT_VARIABLE log ERROR_VARIABLE log)
  check("${out} (pkg-config ${pc}) failed:\n${log}" rc EQUAL 0)
endfunction()
pc_program(sluice consumer.c pc_consumer)
check("pkg-config sluice mentions jansson: ${pc_consumer_flags}" NOT pc_consumer_flags MATCHES "jansson")
pc_program(sluice-kit kit_consumer.c pc_kit)

# The moved command finds the suites beside it: a suite that exists only
# in the moved prefix is found and passes.
set(extra ${prefix}/share/sluice/conformance/suites/zz_install_check)
file(MAKE_DIRECTORY ${extra})
file(WRITE ${extra}/only_here.json
  "{\"filter\": \"think\", \"cases\": [{\"id\": \"y_only_in_the_moved_prefix\", \"input\": \"a<think>b</think>c\", \"expect\": {\"text\": \"ac\", \"thought\": \"b\", \"markup\": \"<think></think>\", \"events\": [{\"type\": \"thought\", \"tag\": \"think\", \"text\": \"b\", \"complete\": true}]}, \"source\": \"install check\"}]}\n")
execute_process(COMMAND env -u SLUICE_SUITES ${prefix}/bin/sluice conform --quiet --suite zz_install_check
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE out)
check("the moved sluice did not find its suites:\n${out}" rc EQUAL 0 AND out MATCHES "1 passed, 0 failed")
# No build-machine path in the installed command: its strings are read as
# `strings` would (runs of 4 or more printable bytes).
set(exe ${prefix}/bin/sluice)
if(STRIP)
  configure_file(${prefix}/bin/sluice ${root}/sluice-stripped COPYONLY)
  execute_process(COMMAND ${STRIP} ${root}/sluice-stripped RESULT_VARIABLE rc)
  check("${STRIP} failed on a copy of the installed sluice" rc EQUAL 0)
  set(exe ${root}/sluice-stripped)
endif()
foreach(dir ${SRC} ${BUILD})
  string(REGEX REPLACE "([][+.*()^$?|\\{}])" "\\\\\\1" pattern "${dir}")
  file(STRINGS ${exe} found REGEX "${pattern}")
  check("the installed sluice names ${dir}: ${found}" NOT found)
endforeach()
check("sluice-build-paths is installed" NOT EXISTS ${prefix}/bin/sluice-build-paths)

message("install check: relocated install, libc-only core, kit, CMake package, pkg-config and suites all work; no build path in the installed sluice")
