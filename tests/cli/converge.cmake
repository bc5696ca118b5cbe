# haloflow converge end to end (included by CMakeLists.txt): studies on the host executor with
# small grids, each observed order within 0.3 (the vortex 0.4) of the design order and the CSV,
# Markdown and SVG read back (check_converge.py), and every refusal of bad input by its message.
set(converge_cases ${PROJECT_SOURCE_DIR}/tests/cases/converge)
set(converge_runs ${CMAKE_CURRENT_BINARY_DIR}/converge_runs)
set(converge_check ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_converge.py)
file(MAKE_DIRECTORY ${converge_runs})

# name | design order | tolerance | the norms whose orders are checked | case | arguments
# (The vortex: within 0.4, as model_euler_order requires, since the limiter clips the slopes at
# its extremum (docs/models.md); measured 2.11 and 2.26 in L1, 1.75 and 1.96 in Linf. Sod: L1
# only; L2 and Linf do not reach first order across the shock and the contact.)
set(converge_studies
    "heat3d|2|0.3|L1,L2,Linf|heat3d.json|--set heat3d.nx=8,16,32 --set run.steps=8,32,128"
    "heat3d_time|1|0.3|L1,L2,Linf|heat3d.json|--time --set heat3d.dt=1e-3,5e-4,2.5e-4 --set run.steps=8,16,32"
    "euler2d_vortex|2|0.4|L1,L2,Linf|euler2d_vortex.json|--set euler2d.nx=32,64,128 --set euler2d.ny=32,64,128"
    "euler2d_sod|1|0.3|L1|euler2d_vortex.json|--set euler2d.case=sod-x --set euler2d.ny=4 --set euler2d.t_end=0.2 --set euler2d.nx=100,200,400")
foreach(converge_study IN LISTS converge_studies)
  string(REPLACE "|" ";" study_fields "${converge_study}")
  list(GET study_fields 0 study_name)
  list(GET study_fields 1 study_order)
  list(GET study_fields 2 study_tolerance)
  list(GET study_fields 3 study_norms)
  list(GET study_fields 4 study_case)
  list(GET study_fields 5 study_args)
  separate_arguments(study_args UNIX_COMMAND "${study_args}")
  haloflow_cli_test(cli_converge_${study_name}
    COMMAND ${converge_check} study $<TARGET_FILE:haloflow> ${converge_runs}/${study_name}
            ${study_order} ${study_tolerance} ${study_norms} ${converge_cases}/${study_case}
            ${study_args}
    TIMEOUT 120)
endforeach()

# name | arguments after `haloflow converge` | the message (a regular expression)
set(converge_refusals
    "jacobi2d|${converge_cases}/jacobi2d.json --set jacobi2d.nx=64,128|jacobi2d has no exact solution to converge to"
    "unknown_key|${converge_cases}/heat3d.json --set heat3d.nxx=8,16|point 0 \\(heat3d.nxx=8\\): .*/heat3d/nxx"
    "unknown_section|${converge_cases}/heat3d.json --set solver.nx=8,16|point 0 \\(solver.nx=8\\): .*/solver"
    "lengths_differ|${converge_cases}/heat3d.json --set heat3d.nx=8,16,32 --set run.steps=8,32|--set heat3d.nx has 3 values and --set run.steps has 2: settings varied together need as many values each"
    "one_point|${converge_cases}/heat3d.json --set heat3d.nx=8|--set heat3d.nx gives 1 point. a convergence study needs at least 2"
    "bad_value|${converge_cases}/heat3d.json --set heat3d.nx=8,-4|point 1 \\(heat3d.nx=-4\\): .*/heat3d/nx: -4 is not allowed"
    "string_value|${converge_cases}/heat3d.json --set heat3d.precision=double,half|point 1 \\(heat3d.precision=half\\): .*/heat3d/precision"
    "through_value|${converge_cases}/heat3d.json --set heat3d.nx.cells=8,16|--set heat3d.nx.cells: /heat3d/nx is a number in the case, not an object"
    "no_equals|${converge_cases}/heat3d.json --set heat3d.nx|--set heat3d.nx: expected PATH=V1,V2"
    "euler2d_no_t_end|${converge_cases}/euler2d_vortex.json --set euler2d.t_end=0 --set euler2d.nx=32,64|point 0 \\(euler2d.nx=32\\): euler2d.t_end is 0, so the run ends after run.steps steps"
    "time_grid_varies|${converge_cases}/heat3d.json --time --set heat3d.nx=8,16 --set heat3d.dt=1e-3,5e-4|--time studies the time step at a fixed grid: point 1 \\(heat3d.nx=16 heat3d.dt=0.0005\\) has 16 x 16 x 16 samples, point 0 8 x 8 x 8"
    "time_without_dt|${converge_cases}/heat3d.json --time --set heat3d.nx=8,16|--time refines the time step of heat3d: give --set heat3d.dt")
foreach(converge_refusal IN LISTS converge_refusals)
  string(REPLACE "|" ";" refusal_fields "${converge_refusal}")
  list(GET refusal_fields 0 refusal_name)
  list(GET refusal_fields 1 refusal_args)
  list(GET refusal_fields 2 refusal_message)
  separate_arguments(refusal_args UNIX_COMMAND "${refusal_args}")
  haloflow_cli_test(cli_converge_refuses_${refusal_name}
    COMMAND ${converge_check} refuses $<TARGET_FILE:haloflow> "${refusal_message}" converge
            ${refusal_args} --out ${converge_runs}/refused_${refusal_name}
    TIMEOUT 60)
endforeach()

# Points that end at different times: found once they ran (the run directory says failed).
haloflow_cli_test(cli_converge_fails_end_times_differ
  COMMAND ${converge_check} fails $<TARGET_FILE:haloflow>
          "point 1 \\(heat3d.nx=16\\) ends at t = 0.00390625, point 0 at t = 0.015625.*run.steps = 32 for point 1"
          converge ${converge_cases}/heat3d.json --set heat3d.nx=8,16 --out
          ${converge_runs}/end_times_differ
  TIMEOUT 60)

# Points whose coarsest axis is not refined: one h, no order.
haloflow_cli_test(cli_converge_fails_same_h
  COMMAND ${converge_check} fails $<TARGET_FILE:haloflow>
          "point 1 \\(heat3d.nx=16 run.steps=32\\) has the grid spacing of point 0 \\(h = 0.125"
          converge ${converge_cases}/heat3d.json --set heat3d.nx=8,16 --set heat3d.ny=8 --set
          heat3d.nz=8 --set run.steps=8,32 --out ${converge_runs}/same_h
  TIMEOUT 60)

# euler2d with too few steps to reach t_end on the finer grid.
haloflow_cli_test(cli_converge_fails_too_few_steps
  COMMAND ${converge_check} fails $<TARGET_FILE:haloflow>
          "point 1 \\(euler2d.nx=64 euler2d.ny=64\\) stopped at t = [0-9.]+ after run.steps = 50 steps, before euler2d.t_end = 1: give it more steps"
          converge ${converge_cases}/euler2d_vortex.json --set run.steps=50 --set euler2d.nx=32,64
          --set euler2d.ny=32,64 --out ${converge_runs}/too_few_steps
  TIMEOUT 60)

# An existing run directory is not replaced without --force (the study above made it).
haloflow_cli_test(cli_converge_refuses_existing
  COMMAND ${converge_check} refuses $<TARGET_FILE:haloflow>
          "run directory .*converge_runs/existing exists.* pass --force" converge
          ${converge_cases}/heat3d.json --set heat3d.nx=8,16 --set run.steps=8,32 --out
          ${converge_runs}/existing
  TIMEOUT 60 FIXTURES_REQUIRED cli_converge_existing)
haloflow_cli_test(cli_converge_existing_setup
  COMMAND $<TARGET_FILE:haloflow> converge ${converge_cases}/heat3d.json --set heat3d.nx=8,16 --set
          run.steps=8,32 --out ${converge_runs}/existing --force
  TIMEOUT 60 FIXTURES_SETUP cli_converge_existing)
