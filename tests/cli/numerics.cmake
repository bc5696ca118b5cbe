# The models' numerics end to end (included by CMakeLists.txt; the unit side is
# tests/unit/test_numerics.cpp).
set(numerics_script ${CMAKE_CURRENT_SOURCE_DIR}/numerics.sh)
set(numerics_cases ${PROJECT_SOURCE_DIR}/tests/cases/numerics)
set(numerics_runs ${CMAKE_CURRENT_BINARY_DIR}/numerics)
file(MAKE_DIRECTORY ${numerics_runs})

# The conservation lines euler2d prints, from exact sums: identical on 1, 2 and 3 ranks (the
# fields are bitwise identical; the totals were summed in rank order).
foreach(numerics_case "kh --set euler2d.nx=48 --set euler2d.ny=40 --steps 30"
                      "vortex --set euler2d.nx=36 --set euler2d.ny=30 --steps 30"
                      "sod-x --set euler2d.nx=60 --set euler2d.ny=6 --steps 40")
  separate_arguments(numerics_args UNIX_COMMAND "${numerics_case}")
  list(GET numerics_args 0 numerics_name)
  haloflow_cli_test(numerics_euler2d_conservation_ranks_${numerics_name}
    COMMAND bash ${numerics_script} conservation ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
            $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=${numerics_args}
    LABELS host mpi TIMEOUT 120
    PASS_REGEX "numerics: ok")
endforeach()

# A jacobi2d checkpoint written with one steps_per_frame restarts under another, bitwise.
foreach(numerics_pair "2|1" "1|2" "auto|1" "1|auto")
  string(REPLACE "|" ";" numerics_pair "${numerics_pair}")
  list(GET numerics_pair 0 numerics_writer)
  list(GET numerics_pair 1 numerics_restarter)
  set(numerics_name jacobi2d_restart_${numerics_writer}_to_${numerics_restarter})
  haloflow_cli_test(numerics_${numerics_name}
    COMMAND bash ${numerics_script} restart ${numerics_runs}/${numerics_name}
            $<TARGET_FILE:haloflow>
            ${numerics_cases}/jacobi2d_steps_per_frame_${numerics_writer}.json
            ${numerics_cases}/jacobi2d_steps_per_frame_${numerics_restarter}.json
    TIMEOUT 120
    PASS_REGEX "numerics: ok")
endforeach()

# steps_per_frame auto on a grid too thin for two steps a frame: runs, one step a frame, said once.
haloflow_cli_test(numerics_jacobi2d_auto_thin_run
  COMMAND bash ${numerics_script} once
          "one step a frame \\(steps_per_frame auto: two do not fit a rank of 1 computed row along y"
          $<TARGET_FILE:haloflow> run ${numerics_cases}/jacobi2d_3x3_auto.json --out
          ${numerics_runs}/auto_thin --force
  TIMEOUT 60
  PASS_REGEX "numerics: ok")
haloflow_cli_test(numerics_jacobi2d_auto_thin_model
  COMMAND bash ${numerics_script} once "one step a frame \\(steps_per_frame auto"
          $<TARGET_FILE:haloflow_model> jacobi2d --set jacobi2d.nx=8 --set jacobi2d.ny=3 --steps 4
          --executor host --set jacobi2d.steps_per_frame=auto
  TIMEOUT 60
  PASS_REGEX "numerics: ok")
haloflow_cli_test(numerics_jacobi2d_two_thin_model
  COMMAND $<TARGET_FILE:haloflow_model> jacobi2d --set jacobi2d.nx=8 --set jacobi2d.ny=3 --steps 4
          --executor host --set jacobi2d.steps_per_frame=2
  TIMEOUT 60
  PASS_REGEX "/jacobi2d/steps_per_frame: 2 is not allowed on 1 rank: [^\n]*expected 1 \\(one ghost layer\\) or \"auto\""
  FAIL_REGEX "ghost_width|result: model=jacobi2d")

# The schema says what Sod's ends are: zero-gradient, not walls.
haloflow_cli_test(numerics_schema_sod_ends
  COMMAND python3 -c
          "import json,sys; d=json.load(open(sys.argv[1]))['$defs']['euler2d']['properties']['case']['description']; print(d); sys.exit(0 if 'zero-gradient' in d and 'wall' not in d else 1)"
          ${PROJECT_SOURCE_DIR}/json/schema/case.schema.json
  TIMEOUT 30)
