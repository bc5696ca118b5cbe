# Nothing a user has is lost, from the start of a run to its end (included by CMakeLists.txt):
# run directories haloflow made and only those replaced, reruns put in place only when complete,
# outputs that are regular files or nothing, runs started together, runs killed, signals, closed
# standard output, file size limits (run_lifecycle.sh); and the end of a run bounded like its
# middle: a rank that stops before the last barrier, in MPI_Finalize, or inside an output's
# collective ends the job within the timeout + 2 s, named (silent_peer.sh).
haloflow_cli_test(run_lifecycle
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/run_lifecycle.sh $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json ${fault_cases}/jacobi2d_long.json
          ${CMAKE_CURRENT_BINARY_DIR}/run_lifecycle ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
  LABELS host mpi fault TIMEOUT 300 RESOURCE_LOCK fault_timing
  PASS_REGEX "run_lifecycle: 12 scenarios, 0 failures")

# name | MPI call rank 1 stops before | calls of that kind it lets pass first | case | expected
set(end_fault_tests
    "end_barrier|MPI_Ibarrier|1|jacobi2d_short|the end of the run \\(every rank done before MPI_Finalize\\): MPI_Ibarrier did not complete within 3 s on rank 0 .*not heard from: rank 1"
    "in_finalize|MPI_Finalize|0|jacobi2d_short|rank 0: MPI_Finalize did not complete within 3 s: another rank stopped after the end of the run"
    "in_vtk_output|MPI_Igather|0|jacobi2d_long_vtk|the VTK pieces' extents of step [0-9]+: MPI_Igather did not complete within 3 s on rank 0 .*not heard from: rank 1")
foreach(end_fault IN LISTS end_fault_tests)
  string(REPLACE "|" ";" end_fields "${end_fault}")
  list(GET end_fields 0 end_name)
  list(GET end_fields 1 end_call)
  list(GET end_fields 2 end_skip)
  list(GET end_fields 3 end_case)
  list(GET end_fields 4 end_expect)
  # The output stop waits 2 s into the run (the first outputs are at step 0); the others stop at
  # the run's end, whenever that is.
  set(end_after 0)
  if(end_name STREQUAL "in_vtk_output")
    set(end_after 2)
  endif()
  haloflow_cli_test(fault_run_${end_name}
    COMMAND env FAULT=collective CALL=${end_call} STOP_SKIP=${end_skip} STOP_AFTER_S=${end_after}
            STOPPER=${fault_stopper} "EXPECT=${end_expect}" bash
            ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
            3 $<TARGET_FILE:haloflow> run ${fault_cases}/${end_case}.json --out
            ${fault_runs}/${end_name} --force
    LABELS host mpi fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
endforeach()
