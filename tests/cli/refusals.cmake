# Options and arguments that do not apply or make no sense: refused by name, before anything
# runs (included by CMakeLists.txt).

# Options that do not apply are errors, not ignored: the stepping models' flags on the
# seed, empty paths, numbers that are not finite; a case file that is a FIFO ends at once.
set(flag_refusals
    "seed_vtk|run ${test_cases}/seed_small.json --vtk|--vtk: applies only to the models that step in time \\(jacobi2d, heat3d and euler2d\\). the seed model measures frames"
    "seed_checkpoints|run ${test_cases}/seed_small.json --checkpoint-every 5 --dump x.raw|--checkpoint-every and --dump: apply only to the models that step in time"
    "seed_timeout|run ${test_cases}/seed_small.json --timeout 5|--timeout: applies only to the models that step in time"
    "seed_restart|run ${test_cases}/seed_small.json --restart somewhere|--restart: applies only to the models"
    "out_equals_nothing|run ${test_cases}/seed_small.json --out=|--out: "
    "dump_equals_nothing|run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --dump=|--dump: "
    "trace_empty|replay ${test_cases}/seed_small.json --trace=|--trace: "
    "memory_nan|validate ${test_cases}/seed_small.json --memory-gib nan|--memory-gib: nan is not allowed. expected a number above 0 and at most 1000000"
    "memory_inf|validate ${test_cases}/seed_small.json --memory-gib inf|--memory-gib: inf is not allowed"
    "memory_negative|validate ${test_cases}/seed_small.json --memory-gib -1|--memory-gib: -1 is not allowed"
    "timeout_nan|run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --timeout nan|--timeout: nan is not allowed. expected a number from 0.1 and at most 86400"
    "timeout_zero|run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --timeout 0|--timeout: 0 is not allowed"
    "step_without_restart|run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --step 5|--step requires --restart")
foreach(flag_refusal IN LISTS flag_refusals)
  string(REPLACE "|" ";" refusal_fields "${flag_refusal}")
  list(GET refusal_fields 0 refusal_name)
  list(GET refusal_fields 1 refusal_args)
  list(GET refusal_fields 2 refusal_message)
  separate_arguments(refusal_args UNIX_COMMAND "${refusal_args}")
  haloflow_cli_test(cli_refuses_${refusal_name}
    COMMAND haloflow ${refusal_args}
    PASS_REGEX "${refusal_message}")
  haloflow_cli_test(cli_refuses_${refusal_name}_fails
    COMMAND haloflow ${refusal_args}
    WILL_FAIL)
endforeach()
foreach(model_refusal "timeout_nan|--timeout nan|--timeout: nan is not allowed"
                      "tolerance_nan|--tolerance nan|--tolerance: nan is not allowed"
                      "cfl_nan|--cfl nan|/euler2d/cfl: \"nan\" is not allowed")
  string(REPLACE "|" ";" refusal_fields "${model_refusal}")
  list(GET refusal_fields 0 refusal_name)
  list(GET refusal_fields 1 refusal_args)
  list(GET refusal_fields 2 refusal_message)
  separate_arguments(refusal_args UNIX_COMMAND "${refusal_args}")
  haloflow_cli_test(cli_model_refuses_${refusal_name}
    COMMAND haloflow_model euler2d --executor host ${refusal_args}
    PASS_REGEX "${refusal_message}")
endforeach()
haloflow_cli_test(cli_refuses_out_empty
  COMMAND sh -c "exec '$<TARGET_FILE:haloflow>' run '${test_cases}/seed_small.json' --out ''"
  PASS_REGEX "--out: an empty path is not allowed. expected a file or directory name")
set(case_fifo ${CMAKE_CURRENT_BINARY_DIR}/case.fifo)
haloflow_cli_test(cli_case_fifo
  COMMAND sh -c
          "rm -f '${case_fifo}' && mkfifo '${case_fifo}' && exec '$<TARGET_FILE:haloflow>' validate '${case_fifo}'"
  TIMEOUT 20
  PASS_REGEX "case.fifo: is a FIFO \\(named pipe\\), not a regular file. expected a JSON case file")
