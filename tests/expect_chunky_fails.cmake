# Runs the conformance runner against the chunk-dependent implementation and
# checks that it fails, names a split mode and prints a two-chunk smallest
# failing chunking for a tag cut in two.
execute_process(
  COMMAND ${SLUICE} conform --suite think --case y_block_in_middle --impl ${IMPL}
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
message("${out}${err}")
if(rc EQUAL 0)
  message(FATAL_ERROR "the runner passed a chunk-dependent implementation")
endif()
if(NOT out MATCHES "FAIL think/y_block_in_middle")
  message(FATAL_ERROR "the failing case is not named")
endif()
if(NOT out MATCHES "smallest failing chunking \\(2 chunks\\)")
  message(FATAL_ERROR "no two-chunk smallest failing chunking was reported")
endif()
if(NOT out MATCHES "0 passed, 1 failed")
  message(FATAL_ERROR "the closing line is missing")
endif()

# The same verdict in TAP and JUnit.
execute_process(
  COMMAND ${SLUICE} conform --suite think --case y_block_in_middle --impl ${IMPL} --format tap
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_QUIET)
if(rc EQUAL 0 OR NOT out MATCHES "not ok 1 - think/y_block_in_middle" OR NOT out MATCHES "1\\.\\.1")
  message(FATAL_ERROR "TAP output is wrong:\n${out}")
endif()
execute_process(
  COMMAND ${SLUICE} conform --suite think --case y_block_in_middle --impl ${IMPL} --format junit
  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(rc EQUAL 0 OR NOT out MATCHES "<testsuites tests=\"1\" failures=\"1\">"
   OR NOT out MATCHES "<failure message=\"split mode single-cut\">"
   OR NOT err MATCHES "0 passed, 1 failed")
  message(FATAL_ERROR "JUnit output is wrong:\n${out}${err}")
endif()
