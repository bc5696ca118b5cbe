# Accesses and edges end to end (included by CMakeLists.txt): each model's plans, derived from
# their accesses alone, are the graphs written by hand (plan_edges.sh); where the hand-written
# edges order more than the accesses need, the strict run checks them only: euler2d (the next
# stage's pack waits for the interior), and jacobi2d split in 2D on 2 ranks (the slabs along the
# axis a rank copies to itself wait for the unpack, where the self copy would do). A rule
# HALOFLOW_EDGES does not know is refused on every rank with one message.
set(plan_edges_runs ${CMAKE_CURRENT_BINARY_DIR}/plan_edges_runs)
# name | ranks | case | options
foreach(case IN ITEMS
        "jacobi2d|1 2 4|json/cases/jacobi2d.json|--set jacobi2d.nx=64 --set jacobi2d.ny=48 --steps 4"
        "jacobi2d_split2d|1 4|tests/cases/jacobi2d_split2d.json|--steps 4"
        "heat3d|1 2 4|json/cases/heat3d.json|--set heat3d.nx=24 --set heat3d.ny=20 --set heat3d.nz=16 --steps 4")
  string(REPLACE "|" ";" fields "${case}")
  list(GET fields 0 name)
  list(GET fields 1 ranks)
  list(GET fields 2 file)
  list(GET fields 3 options)
  separate_arguments(options UNIX_COMMAND "${options}")
  haloflow_cli_test(cli_plan_edges_${name}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/plan_edges.sh ${plan_edges_runs}/${name}
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
            ${PROJECT_SOURCE_DIR}/${file} ${options}
    ENVIRONMENT "PLAN_EDGES_RANKS=${ranks}" LABELS host mpi TIMEOUT 300)
endforeach()
haloflow_cli_test(cli_plan_edges_jacobi2d_split2d_strict RANKS 2
  COMMAND $<TARGET_FILE:haloflow> run ${PROJECT_SOURCE_DIR}/tests/cases/jacobi2d_split2d.json
          --steps 4 --executor host --out ${plan_edges_runs}/split2d_strict --force
  ENVIRONMENT HALOFLOW_EDGES=strict LABELS host mpi TIMEOUT 120 PASS_REGEX "results.json")
haloflow_cli_test(cli_plan_edges_euler2d_strict RANKS 2
  COMMAND $<TARGET_FILE:haloflow> run
          ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --set euler2d.nx=64 --set euler2d.ny=32
          --steps 4 --executor host --out ${plan_edges_runs}/euler2d_strict --force
  ENVIRONMENT HALOFLOW_EDGES=strict LABELS host mpi TIMEOUT 120 PASS_REGEX "results.json")
haloflow_cli_test(cli_plan_edges_unknown_rule RANKS 2
  COMMAND $<TARGET_FILE:haloflow> run
          ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --set jacobi2d.nx=32 --steps 2
          --executor host --out ${plan_edges_runs}/unknown_rule --force
  ENVIRONMENT HALOFLOW_EDGES=loose LABELS host mpi TIMEOUT 60
  PASS_REGEX "HALOFLOW_EDGES=loose is not allowed; expected derive, strict or accesses")
