# Bad input that `haloflow run` and `validate` must refuse by name (the JSON pointer, the value,
# what is allowed), never crash or hang on, and never echo raw (included by CMakeLists.txt; the
# unit side is tests/unit/test_input_edges.cpp and test_checkpoint.cpp).
set(edge_cases ${PROJECT_SOURCE_DIR}/tests/cases/input_edges)
set(edge_runs ${CMAKE_CURRENT_BINARY_DIR}/input_edges)
set(edge_script ${CMAKE_CURRENT_SOURCE_DIR}/input_edges.sh)
file(MAKE_DIRECTORY ${edge_runs})
set(edge_mpi ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG})
# A message that must be one of haloflow's, not the engine's or MPI's.
set(edge_not_engine "ghost_width|MPI_Abort|BAD TERMINATION|application called|terminate called")

# `haloflow validate` refusals: "name|arguments|message" (the messages' ';' written as '.').
set(edge_refusals
    "jacobi2d_3x3|jacobi2d_3x3.json|/jacobi2d/steps_per_frame: 2 is not allowed on 1 rank: the process grid 1 x 1 leaves a rank 1 computed row along y .*fewer than the 2 ghost layers its halo exchange fills. expected 1 \\(one ghost layer\\) or \"auto\" .*, or /jacobi2d/ny at least 4"
    "jacobi2d_8x5_2_ranks|jacobi2d_8x5.json --ranks 2|/jacobi2d/steps_per_frame: 2 is not allowed on 2 ranks: the process grid 1 x 2 leaves a rank 1 computed row along y \\(3 computed rows over 2 ranks\\).* expected 1 \\(one ghost layer\\) or \"auto\" .*, or /jacobi2d/ny at least 6"
    "output_nul|output_nul.json|/run/output: \"runs/a\\\\u0000b\" is not allowed: it holds a NUL character \\(\\\\u0000\\). expected a string without one"
    "name_nul|name_nul.json|2 problems:.*/name: \"heat\\\\u0000\" is not allowed: it holds a NUL character.*/description: \"x\\\\u0000\" is not allowed: it holds a NUL character"
    "heat3d_tiny_nu|heat3d_tiny_nu.json|/heat3d/nu: 1e-320 is not allowed: too small to bound the time step \\(the largest stable dt, 1 / \\(2 nu sum 1/h\\^2\\), is beyond a double's range on this grid\\). expected a diffusivity from [0-9.e+-]+ to 1e\\+12"
    "bom_blanks|bom_blanks.json|bom_blanks.json: is empty. expected a JSON case file")
foreach(edge_refusal IN LISTS edge_refusals)
  string(REPLACE "|" ";" edge_fields "${edge_refusal}")
  list(GET edge_fields 0 edge_name)
  list(GET edge_fields 1 edge_args)
  list(GET edge_fields 2 edge_message)
  separate_arguments(edge_args UNIX_COMMAND "${edge_args}")
  list(TRANSFORM edge_args PREPEND ${edge_cases}/ AT 0)
  haloflow_cli_test(input_edges_validate_${edge_name}
    COMMAND haloflow validate ${edge_args}
    PASS_REGEX "${edge_message}"
    FAIL_REGEX "ghost_width|dt <= inf|nan|^ok: ")
  haloflow_cli_test(input_edges_validate_${edge_name}_fails
    COMMAND haloflow validate ${edge_args}
    WILL_FAIL)
endforeach()
# What must pass: the grids that just fit, a byte-order mark before the document.
foreach(edge_good "jacobi2d_8x6_2_ranks|jacobi2d_8x6.json --ranks 2"
                  "jacobi2d_3x3_one_step|jacobi2d_3x3_one_step.json --ranks 1"
                  "bom_document|bom_document.json")
  string(REPLACE "|" ";" edge_fields "${edge_good}")
  list(GET edge_fields 0 edge_name)
  list(GET edge_fields 1 edge_args)
  separate_arguments(edge_args UNIX_COMMAND "${edge_args}")
  list(TRANSFORM edge_args PREPEND ${edge_cases}/ AT 0)
  haloflow_cli_test(input_edges_validate_${edge_name}
    COMMAND haloflow validate ${edge_args}
    PASS_REGEX "^ok: ")
endforeach()
# 3 x 3 with one step a frame, the way out the refusal names, runs.
haloflow_cli_test(input_edges_run_jacobi2d_3x3_one_step
  COMMAND haloflow run ${edge_cases}/jacobi2d_3x3_one_step.json --executor host --steps 4 --out
          ${edge_runs}/run_3x3_one_step --force
  TIMEOUT 60
  PASS_REGEX "result: model=jacobi2d")

# `haloflow run` on the grids validate refuses: the same message, once (rank 0), exit 1, no
# engine text and no MPI abort; the grid that just fits runs.
set(edge_run_properties LABELS host mpi TIMEOUT 60 PASS_REGEX "input_edges: ok")
haloflow_cli_test(input_edges_run_jacobi2d_8x5_2_ranks
  COMMAND bash ${edge_script} once 1
          "/jacobi2d/steps_per_frame: 2 is not allowed on 2 ranks: .*expected 1 \\(one ghost layer\\) or \"auto\" .*, or /jacobi2d/ny at least 6"
          "${edge_not_engine}"
          ${edge_mpi} 2 $<TARGET_FILE:haloflow> run ${edge_cases}/jacobi2d_8x5.json
          --executor host --steps 4 --out ${edge_runs}/run_8x5 --force
  ${edge_run_properties})
haloflow_cli_test(input_edges_run_jacobi2d_3x3
  COMMAND bash ${edge_script} once 1
          "/jacobi2d/steps_per_frame: 2 is not allowed on 1 rank" "${edge_not_engine}"
          ${edge_mpi} 1 $<TARGET_FILE:haloflow> run ${edge_cases}/jacobi2d_3x3.json
          --executor host --steps 4 --out ${edge_runs}/run_3x3 --force
  ${edge_run_properties})
haloflow_cli_test(input_edges_run_jacobi2d_8x6_2_ranks
  COMMAND bash ${edge_script} once 0 "result: model=jacobi2d" "${edge_not_engine}"
          ${edge_mpi} 2 $<TARGET_FILE:haloflow> run ${edge_cases}/jacobi2d_8x6.json
          --executor host --steps 4 --out ${edge_runs}/run_8x6 --force
  ${edge_run_properties})
haloflow_cli_test(input_edges_run_output_nul
  COMMAND bash ${edge_script} once 1 "/run/output: .* it holds a NUL character"
          "${edge_not_engine}|wrote "
          $<TARGET_FILE:haloflow> run ${edge_cases}/output_nul.json --executor host
  ${edge_run_properties})

# The rest: many problems, escapes, the memory of a machine without a GPU.
set(edge_rest_properties TIMEOUT 60 SKIP_RETURN_CODE 77 PASS_REGEX "input_edges: ok")
haloflow_cli_test(input_edges_many_keys
  COMMAND bash ${edge_script} many_keys $<TARGET_FILE:haloflow> ${edge_runs}/many_keys
  ${edge_rest_properties})
haloflow_cli_test(input_edges_escapes
  COMMAND bash ${edge_script} escapes $<TARGET_FILE:haloflow> ${edge_runs}/escapes
  ${edge_rest_properties})
haloflow_cli_test(input_edges_memory
  COMMAND bash ${edge_script} memory $<TARGET_FILE:haloflow> ${edge_cases}/heat3d_4096.json
  ${edge_rest_properties})

# Checkpoint refusals at --restart, each by its real cause (checkpoint_damage.sh), on the two
# checkpoints (steps 5 and 10, 2 ranks) of ckpt_two_checkpoints: "name|mode|ranks|case|args|
# message|forbidden" (';' written as '.').
set(edge_heat3d ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json)
set(edge_ckpt_refusals
    "other_case|none|2|${test_cases}/heat3d_other.json||step_00000010_r0000.ckpt: written for another case .*. the older complete checkpoint of step 5 does not fit this run either|not intact|corrupted|damaged"
    "other_ranks|none|1|${edge_heat3d}||step_00000010_r0000.ckpt: written by a run on 2 ranks. this run has 1 \\(restart on 2 ranks\\). the older complete checkpoint of step 5 does not fit this run either|not intact|corrupted|damaged"
    "missing|missing|2|${edge_heat3d}||step_00000010_r0001.ckpt: missing \\(the checkpoint of step 10 should hold a file for each of 2 ranks\\). the older checkpoint of step 5 is complete and intact: continue from it with --restart [^\n]* --step 5|no older"
    "no_marker|no_marker|2|${edge_heat3d}|--step 10|--step 10: no complete checkpoint of step 10 \\(its rank files are there, but no marker step_N.complete says that every rank wrote its file: the run stopped while writing them\\). the complete ones are of steps 5|checkpoint-every first"
    "no_markers|no_markers|2|${edge_heat3d}||no complete checkpoint in [^\n]*: it holds rank files of steps 10, 5, but no marker \\(step_N.complete\\) says that every rank wrote its file|checkpoint-every first")
foreach(edge_refusal IN LISTS edge_ckpt_refusals)
  string(REPLACE "|" ";" edge_fields "${edge_refusal}")
  list(GET edge_fields 0 edge_name)
  list(GET edge_fields 1 edge_mode)
  list(GET edge_fields 2 edge_ranks)
  list(GET edge_fields 3 edge_case)
  list(GET edge_fields 4 edge_args)
  list(GET edge_fields 5 edge_message)
  list(SUBLIST edge_fields 6 -1 edge_forbidden)
  string(REPLACE ";" "|" edge_forbidden "${edge_forbidden}")
  separate_arguments(edge_args UNIX_COMMAND "${edge_args}")
  haloflow_cli_test(input_edges_ckpt_${edge_name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_damage.sh ${edge_mode} ${ckpt_runs}/heat3d_two
            ${edge_runs}/ckpt_${edge_name} ${edge_mpi} ${edge_ranks} $<TARGET_FILE:haloflow> run
            ${edge_case} --executor host --steps 20 --force --out ${edge_runs}/ckpt_${edge_name}_out
            ${edge_args}
    LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_two
    PASS_REGEX "haloflow: --restart [^\n]*${edge_message}[^\n]*\nexit=1"
    FAIL_REGEX "${edge_forbidden}")
endforeach()
# jacobi2d's checkpoints of two steps a frame, restarted with one: the checkpoint holds the owned
# cells only and its case hash leaves steps_per_frame out, so the restart continues (bitwise: the
# numerics_jacobi2d_restart_* tests), never refused as damage or as another case.
haloflow_cli_test(input_edges_ckpt_jacobi2d_two
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --executor host --steps 10
          --checkpoint-every 5 --force --out ${edge_runs}/jacobi2d_two
  TIMEOUT 120 FIXTURES_SETUP input_edges_jacobi2d_two)
haloflow_cli_test(input_edges_ckpt_other_steps_per_frame
  COMMAND env COPY_CASE=1 sh ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_damage.sh none
          ${edge_runs}/jacobi2d_two ${edge_runs}/ckpt_steps_per_frame $<TARGET_FILE:haloflow> run
          ${edge_cases}/jacobi2d_one_step.json --steps 20 --force --out
          ${edge_runs}/ckpt_steps_per_frame_out
  TIMEOUT 120 FIXTURES_REQUIRED input_edges_jacobi2d_two
  PASS_REGEX "restarting from the checkpoint of step 10.*\nexit=0"
  FAIL_REGEX "not intact|corrupted|damaged|written for another case")
