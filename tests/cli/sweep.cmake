# --set on run, validate, replay and haloflow_model, and haloflow sweep, end to end (included by
# CMakeLists.txt): the overrides reach the resolved case and the results (check_sweep.py), a bad
# override is refused as a bad value in the file is (its pointer, the value, what is allowed), and
# a sweep writes a run directory per point, its tables and plots, and refuses to overwrite.
set(sweep_case ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json)
set(sweep_runs ${CMAKE_CURRENT_BINARY_DIR}/sweep_runs)
file(MAKE_DIRECTORY ${sweep_runs})

if(HALOFLOW_PYTHON3)
  haloflow_cli_test(cli_set_reaches_the_run
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_sweep.py override
            $<TARGET_FILE:haloflow> ${sweep_case} ${sweep_runs}/override
    TIMEOUT 120)
  haloflow_cli_test(cli_sweep_points_tables_plots
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_sweep.py sweep
            $<TARGET_FILE:haloflow> ${sweep_case} ${sweep_runs}/sweep
    TIMEOUT 300)
endif()

# Under mpiexec: every rank runs each point, rank 0 writes the tables.
haloflow_cli_test(cli_sweep_two_ranks RANKS 2
  COMMAND $<TARGET_FILE:haloflow> sweep ${sweep_case} --set jacobi2d.nx=32,64 --set run.steps=3
          --set run.vtk=false --set run.png=false --set run.executor=host
          --out ${sweep_runs}/two_ranks --force
  LABELS host mpi TIMEOUT 120
  PASS_REGEX "sweep of jacobi2d \\(2 points\\).*\\| 1 \\| 64 \\| [0-9.e+]+ \\| [0-9.e+]+ \\| 01_jacobi2d.nx=64 \\|.*sweep_time_per_step.svg")

# name | arguments after `haloflow` | the message (a regular expression)
set(set_refusals
    "wrong_type|run ${sweep_case} --set jacobi2d.nx=abc --out ${sweep_runs}/refused|jacobi2d.json with --set jacobi2d.nx=abc: 1 problem:.*/jacobi2d/nx: \"abc\" is not allowed. expected an integer from 3"
    "unknown_key|run ${sweep_case} --set jacobi2d.nxx=5 --out ${sweep_runs}/refused|/jacobi2d/nxx: unknown key \\(did you mean 'nx'\\?\\). allowed here: nx, ny"
    "unknown_section|validate ${sweep_case} --set solver.nx=5|/solver: unknown key"
    "fraction|validate ${sweep_case} --set run.steps=1.5|/run/steps: 1.5 is not allowed. expected an integer from 1"
    "through_value|run ${sweep_case} --set jacobi2d.nx.a=1 --out ${sweep_runs}/refused|--set jacobi2d.nx.a: /jacobi2d/nx is a number in the case, not an object"
    "no_equals|run ${sweep_case} --set jacobi2d.nx --out ${sweep_runs}/refused|--set jacobi2d.nx: expected PATH=VALUE"
    "twice|validate ${sweep_case} --set jacobi2d.nx=8 --set jacobi2d.nx=16|--set jacobi2d.nx is given twice"
    "flag_too|run ${sweep_case} --steps 3 --set run.steps=4 --out ${sweep_runs}/refused|--set run.steps sets /run/steps, which a flag of the command line also sets"
    "replay|replay ${sweep_case} --executor host --set jacobi2d.precision=half|/jacobi2d/precision: \"half\" is not allowed. expected one of float, double"
    "sweep_one_point|sweep ${sweep_case} --set jacobi2d.nx=64 --out ${sweep_runs}/refused|--set jacobi2d.nx gives 1 point. a sweep needs at least 2"
    "sweep_output|sweep ${sweep_case} --set jacobi2d.nx=64,128 --set run.output=x --out ${sweep_runs}/refused|--set run.output: a sweep writes each point into its own run directory inside the sweep's. name the sweep's with --out"
    "sweep_bad_point|sweep ${sweep_case} --set jacobi2d.nx=64,2 --out ${sweep_runs}/refused|point 1 \\(jacobi2d.nx=2\\): .*/jacobi2d/nx: 2 is not allowed")
foreach(set_refusal IN LISTS set_refusals)
  string(REPLACE "|" ";" refusal_fields "${set_refusal}")
  list(GET refusal_fields 0 refusal_name)
  list(GET refusal_fields 1 refusal_args)
  list(GET refusal_fields 2 refusal_message)
  separate_arguments(refusal_args UNIX_COMMAND "${refusal_args}")
  haloflow_cli_test(cli_set_refuses_${refusal_name}
    COMMAND haloflow ${refusal_args}
    PASS_REGEX "${refusal_message}" FIXTURES_SETUP cli_set_refusals)
  haloflow_cli_test(cli_set_refuses_${refusal_name}_fails
    COMMAND haloflow ${refusal_args}
    WILL_FAIL FIXTURES_SETUP cli_set_refusals)
endforeach()
# Nothing was made for a refused override or sweep.
haloflow_cli_test(cli_set_refusals_made_nothing
  COMMAND sh -c "test ! -e '${sweep_runs}/refused'"
  FIXTURES_REQUIRED cli_set_refusals)

# A valid override: validate reads the case with it (64 x 256, not the file's 256 x 256).
haloflow_cli_test(cli_set_validate
  COMMAND haloflow validate ${sweep_case} --set jacobi2d.nx=64 --set run.steps=7
  PASS_REGEX "ok: .*jacobi2d.json: jacobi2d model, 64 x 256 float, 7 steps")

# haloflow_model: --set is read by the case reader; its old flags are the same override (the same
# bytes per step and the same final norm), and a bad value is named by its pointer.
foreach(model_spelling "set|--set jacobi2d.nx=64 --set jacobi2d.ny=32 --set run.steps=7"
                       "alias|--nx 64 --ny 32 --steps 7")
  string(REPLACE "|" ";" spelling_fields "${model_spelling}")
  list(GET spelling_fields 0 spelling_name)
  list(GET spelling_fields 1 spelling_args)
  separate_arguments(spelling_args UNIX_COMMAND "${spelling_args}")
  haloflow_cli_test(cli_model_${spelling_name}
    COMMAND haloflow_model jacobi2d --executor host ${spelling_args}
    PASS_REGEX "steps=7 .*bytes_per_step=8192 steps_per_pass=2 .*final_norm=2.717838753e-01")
endforeach()
# Bytes a step physically moves: a frame of one step reads a and writes a_new each step (16384 B
# at 64 x 32 float), one of two steps once for both (above, 8192 B); heat3d one step or a deep
# pass of k; euler2d one step.
haloflow_cli_test(cli_model_one_step_bytes
  COMMAND haloflow_model jacobi2d --executor host --nx 64 --ny 32 --steps 7 --steps-per-frame 1
  PASS_REGEX "read a \\+ write a_new\\); achieved.*bytes_per_step=16384 steps_per_pass=1 ")
haloflow_cli_test(cli_model_heat3d_bytes
  COMMAND haloflow_model heat3d --executor host --nx 8 --steps 2
  PASS_REGEX "bytes_per_step=8192 steps_per_pass=1 ")
# heat3d's deep pass: one read of u and one write of u_new for its k steps (here 4).
haloflow_cli_test(cli_model_heat3d_deep_bytes
  COMMAND haloflow_model heat3d --executor host --nx 8 --steps 8 --steps-per-frame 4
  PASS_REGEX "bytes_per_step=2048 steps_per_pass=4 ")
# euler2d RK3: the first stage reads and writes the 4 fields, two more read U as well (3 each),
# the CFL monitor reads U: 9 x 4 x 16 x 16 doubles.
haloflow_cli_test(cli_model_euler2d_bytes
  COMMAND haloflow_model euler2d --executor host --nx 16 --ny 16 --steps 2
  PASS_REGEX "bytes_per_step=73728 steps_per_pass=1 ")
# The copy kernel's rates, what every benchmark script measures first (a GPU's; 77 without one).
haloflow_cli_test(cli_model_measure_copy
  COMMAND haloflow_model --measure-copy LABELS gpu
  PASS_REGEX "copy kernel: DRAM [0-9.]+ TB/s, L2 [0-9.]+ TB/s .*result: copy_dram_Bps=[0-9.e+]+ copy_l2_Bps=[0-9.e+]+ l2_bytes=[0-9]+ comparable=(yes|no)")
haloflow_cli_test(cli_model_set_refused
  COMMAND haloflow_model heat3d --executor host --set heat3d.nu=-1
  PASS_REGEX "haloflow_model heat3d \\(its flags as a case\\) with --set heat3d.nu=-1: 1 problem:.*/heat3d/nu: -1 is not allowed")
haloflow_cli_test(cli_model_set_outputs_refused
  COMMAND haloflow_model jacobi2d --executor host --set run.vtk=true
  PASS_REGEX "--set run.vtk: haloflow_model takes the model's section \\(jacobi2d.KEY\\) and run.steps")
