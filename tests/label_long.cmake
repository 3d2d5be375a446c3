# Run by ctest (TEST_INCLUDE_FILES), after the test cases of `exe` are declared: labels "long"
# those of doctest's test suite "long" (named `prefix` + their name), so that `ctest -LE long`
# leaves them out. Set before it is included: exe, prefix.
if(NOT EXISTS "${exe}")
  return()
endif()
execute_process(COMMAND "${exe}" --list-test-cases --test-suite=long
                OUTPUT_VARIABLE listed RESULT_VARIABLE status)
if(NOT status EQUAL 0)
  message(WARNING "${exe} --list-test-cases --test-suite=long failed (${status}): none labelled")
  return()
endif()
string(REPLACE "\n" ";" lines "${listed}")
foreach(line IN LISTS lines)
  if(line STREQUAL "" OR line MATCHES "^=+$" OR line MATCHES "^\\[doctest\\] ")
    continue()
  endif()
  set_tests_properties("${prefix}${line}" PROPERTIES LABELS long)
endforeach()
