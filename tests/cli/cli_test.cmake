# haloflow_cli_test(<name> COMMAND <program> <arguments>...
#                   [RANKS <n>] [LABELS <label>...] [TIMEOUT <seconds>]
#                   [PASS_REGEX <regex>] [FAIL_REGEX <regex>] [WILL_FAIL]
#                   [SKIP_RETURN_CODE <code>] [FIXTURES_SETUP <fixture>...]
#                   [FIXTURES_REQUIRED <fixture>...] [RESOURCE_LOCK <lock>...]
#                   [ENVIRONMENT <VAR=value>...])
#
# One CLI test: add_test and its properties in one call.
# - RANKS <n>: the command runs under mpiexec with n ranks (MPICH's, MPIEXEC_EXECUTABLE).
# - LABELS: host when not given; a test labelled gpu exits 77 without a CUDA device, which ctest
#   reports as skipped (SKIP_RETURN_CODE 77 unless another code is given).
# - PASS_REGEX and FAIL_REGEX: PASS_REGULAR_EXPRESSION and FAIL_REGULAR_EXPRESSION.
# The other keywords are the CTest test properties of the same name. Lists (labels, fixtures,
# locks, environment) are written as separate arguments, not as one "a;b" string.
function(haloflow_cli_test name)
  cmake_parse_arguments(PARSE_ARGV 1 test "WILL_FAIL"
    "RANKS;TIMEOUT;PASS_REGEX;FAIL_REGEX;SKIP_RETURN_CODE"
    "COMMAND;LABELS;FIXTURES_SETUP;FIXTURES_REQUIRED;RESOURCE_LOCK;ENVIRONMENT")
  if(test_UNPARSED_ARGUMENTS)
    message(FATAL_ERROR "haloflow_cli_test(${name}): unknown arguments: ${test_UNPARSED_ARGUMENTS}")
  endif()
  if(NOT test_COMMAND)
    message(FATAL_ERROR "haloflow_cli_test(${name}): COMMAND is required")
  endif()
  # An argument holding ';' (python -c "a; b") arrives escaped: keep it one argument.
  string(REPLACE "\\;" "$<SEMICOLON>" command "${test_COMMAND}")
  if(DEFINED test_RANKS)
    set(command ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${test_RANKS} ${command})
  endif()
  add_test(NAME ${name} COMMAND ${command})

  if(NOT test_LABELS)
    set(test_LABELS host)
  endif()
  if(NOT DEFINED test_SKIP_RETURN_CODE AND "gpu" IN_LIST test_LABELS)
    set(test_SKIP_RETURN_CODE 77)
  endif()
  if(DEFINED test_PASS_REGEX)
    set(test_PASS_REGULAR_EXPRESSION "${test_PASS_REGEX}")
  endif()
  if(DEFINED test_FAIL_REGEX)
    set(test_FAIL_REGULAR_EXPRESSION "${test_FAIL_REGEX}")
  endif()
  # One property a call: a property's value may be a list.
  foreach(property LABELS TIMEOUT SKIP_RETURN_CODE PASS_REGULAR_EXPRESSION
                   FAIL_REGULAR_EXPRESSION WILL_FAIL FIXTURES_SETUP FIXTURES_REQUIRED RESOURCE_LOCK
                   ENVIRONMENT)
    if(DEFINED test_${property} AND NOT "${test_${property}}" STREQUAL ""
       AND NOT "${test_${property}}" STREQUAL "FALSE")
      set_tests_properties(${name} PROPERTIES ${property} "${test_${property}}")
    endif()
  endforeach()
endfunction()
