# Faults (included by CMakeLists.txt): a rank stopped, killed or silent inside a collective,
# on every executor, and writes that fail; each run must end within its bound, naming the rank.

# A peer stopped (SIGSTOP) in the middle of a model run: the live rank ends the run within the
# exchange timeout + 2 s, naming it, on every executor and handoff (GPU ones skip without a GPU).
set(silent_jacobi jacobi2d --set jacobi2d.nx=256 --set jacobi2d.ny=256 --steps 100000000
    --set jacobi2d.norm_every=0)
haloflow_cli_test(silent_peer_host
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow_model> ${silent_jacobi} --executor host
  LABELS host mpi fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
foreach(variant "graph;proxy" "graph;host-node" "streams;auto" "serial;auto")
  list(GET variant 0 executor)
  list(GET variant 1 handoff)
  haloflow_cli_test(silent_peer_${executor}_${handoff}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE}
            ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow_model> ${silent_jacobi} --executor
            ${executor} --handoff ${handoff}
    LABELS gpu mpi TIMEOUT 90)
endforeach()
if(HALOFLOW_HAVE_NCCL)
  # A peer that stops under the nccl transport: the watchdog aborts the communicator (needs a GPU
  # per rank: skipped on a machine with fewer GPUs than ranks).
  haloflow_cli_test(silent_peer_graph_nccl
    COMMAND env MIN_GPUS=2 bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE}
            ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow_model> ${silent_jacobi} --executor
            graph --transport nccl
    LABELS gpu mpi nccl TIMEOUT 90)
endif()
# The same with exchanges that mix peer and mpi routes: 4 ranks as 2 x 2 on two "nodes" by parity
# (MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1), so rank 1 is rank 3's neighbour peer to peer (along y)
# and rank 0's by mpi (along x); whichever of the two waits ends first names rank 1.
haloflow_cli_test(silent_peer_host_peer_nodes
  COMMAND env RANKS=4 MPIR_CVAR_ODD_EVEN_CLIQUES=1 "EXPECT=no halo (arrived )?from rank 1" bash
          ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
          $<TARGET_FILE:haloflow_model> ${silent_jacobi} --split 2d --executor host --transport peer
  LABELS host mpi peer fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
# Peer routes only (2 ranks of one node): rank 0 fails the run on the receive's deadline, then
# frees the exchange's shared window, which waits for rank 1, the stopped one. That wait must not
# cost a second timeout (it did: 4.2 s every run, where the 4-rank case above showed it 1 run in
# 16 to 35, when no other rank's abort ended the job first).
haloflow_cli_test(silent_peer_host_peer
  COMMAND env "EXPECT=no halo from rank 1" bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow_model>
          ${silent_jacobi} --executor host --transport peer
  LABELS host mpi peer fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
# The same window after rank 1 stops in the norm's MPI_Iallreduce rather than in an exchange: the
# collective's timeout ends the run, and the window's free adds none (it did: 4.7 s).
haloflow_cli_test(silent_peer_host_peer_collective
  COMMAND env FAULT=collective CALL=MPI_Iallreduce
          STOPPER=$<TARGET_FILE:haloflow_stop_in_collective>
          "EXPECT=jacobi2d norms of steps [0-9]+ to [0-9]+: MPI_Iallreduce did not complete within 2 s on rank 0 .*not heard from: rank 1"
          bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow_model> jacobi2d --set jacobi2d.nx=256
          --set jacobi2d.ny=256 --steps 100000000 --set jacobi2d.norm_every=20 --executor host
          --transport peer
  LABELS host mpi peer fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
# MIN_GPUS=1: skipped before launching where there is no GPU; four ranks on a loaded 2-core CI
# machine can start more than the 2 s timeout apart, and the program's own skip then ends in the
# bounded MPI_Finalize, not exit 77.
haloflow_cli_test(silent_peer_graph_peer_nodes
  COMMAND env RANKS=4 MIN_GPUS=1 MPIR_CVAR_ODD_EVEN_CLIQUES=1 "EXPECT=no halo (arrived )?from rank 1" bash
          ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
          $<TARGET_FILE:haloflow_model> ${silent_jacobi} --split 2d --executor graph
          --transport peer
  LABELS gpu mpi peer TIMEOUT 90)
# euler2d's step has three exchanges and the time step's allreduce: the stop finds rank 1 in
# either, and the live rank names it from whichever it waits in (both seen on an H200).
haloflow_cli_test(silent_peer_euler2d_graph_proxy
  COMMAND env "EXPECT=no halo arrived from rank 1|not heard from: rank 1" bash
          ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
          $<TARGET_FILE:haloflow_model> euler2d --set euler2d.nx=128 --set euler2d.ny=128
          --steps 100000000 --executor graph
          --handoff proxy
  LABELS gpu mpi TIMEOUT 90)

# The same through `haloflow run`, each fault on the host executor: rank 1 stopped
# from outside (in an exchange or a collective: either message names it), stopped inside a
# collective by the fault injector (the jacobi2d norm, the checkpoint agreement, the euler2d time
# step), and killed (kill -9: the launcher ends the job). Each must end within --timeout + 2 s.
set(fault_cases ${test_cases}/faults)
set(fault_runs ${CMAKE_CURRENT_BINARY_DIR}/fault_runs)
set(fault_stopper $<TARGET_FILE:haloflow_stop_in_collective>)
set(fault_tests
    "run_stopped|stop||jacobi2d_long|no halo arrived from rank 1|not heard from: rank 1"
    "run_norm_collective|collective|MPI_Iallreduce|jacobi2d_long|jacobi2d norms of steps [0-9]+ to [0-9]+: MPI_Iallreduce did not complete within 3 s on rank 0 .*not heard from: rank 1"
    "run_checkpoint_agreement|collective|MPI_Iallreduce|heat3d_long|the checkpoint of step [0-9]+ \\(the ranks' verdicts\\): MPI_Iallreduce did not complete within 3 s on rank 0 .*not heard from: rank 1"
    "run_euler_time_step|collective|MPI_Iallreduce|euler2d_long|euler2d cfl.allreduce \\(the time step\\): MPI_Iallreduce did not complete within 3 s on rank 0 .*not heard from: rank 1"
    "run_killed|kill||jacobi2d_long|BAD TERMINATION|Killed \\(signal 9\\)")
foreach(fault_test IN LISTS fault_tests)
  string(REPLACE "|" ";" fault_fields "${fault_test}")
  list(GET fault_fields 0 fault_name)
  list(GET fault_fields 1 fault_kind)
  list(GET fault_fields 2 fault_call)
  list(GET fault_fields 3 fault_case)
  list(SUBLIST fault_fields 4 -1 fault_expect)
  string(REPLACE ";" "|" fault_expect "${fault_expect}")
  haloflow_cli_test(fault_${fault_name}
    COMMAND env FAULT=${fault_kind} CALL=${fault_call} STOPPER=${fault_stopper}
            "EXPECT=${fault_expect}" bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:haloflow> run
            ${fault_cases}/${fault_case}.json --out ${fault_runs}/${fault_name} --force
    LABELS host mpi fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
endforeach()

# kill -9 of a rank while it writes checkpoints: the restart from what is left is bitwise the
# uninterrupted run (no silent loss).
haloflow_cli_test(fault_kill_restart_bitwise
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/kill_restart.sh ${fault_runs}/kill_restart
          ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json 20000 500
  LABELS host mpi fault TIMEOUT 180 RESOURCE_LOCK fault_timing
  PASS_REGEX "kill_restart: restarted after kill -9, bitwise identical to the straight run")
# The same faults on the GPU executors (skipped without a GPU): a rank stopped inside the
# jacobi2d norm (the host reads it between frames; `haloflow run`, whose norm lines every 20 steps
# read it that often) and inside euler2d's time-step reduction (a host node of the frame, with
# each handoff; haloflow_model). name|executor|handoff|arguments|expected message.
set(gpu_fault_tests
    "jacobi2d_norm|graph|auto|run ${fault_cases}/jacobi2d_live_norms.json|jacobi2d norms of steps [0-9]+ to [0-9]+: MPI_Iallreduce did not complete"
    "jacobi2d_norm|streams|auto|run ${fault_cases}/jacobi2d_live_norms.json|jacobi2d norms of steps [0-9]+ to [0-9]+: MPI_Iallreduce did not complete"
    "jacobi2d_norm|serial|auto|run ${fault_cases}/jacobi2d_live_norms.json|jacobi2d norms of steps [0-9]+ to [0-9]+: MPI_Iallreduce did not complete"
    "euler2d_cfl|streams|auto|euler2d --set euler2d.nx=64 --set euler2d.ny=64 --steps 100000000|euler2d cfl.allreduce \\(the time step\\): MPI_Iallreduce did not complete"
    "euler2d_cfl_proxy|graph|proxy|euler2d --set euler2d.nx=64 --set euler2d.ny=64 --steps 100000000|euler2d cfl.allreduce \\(the time step\\): MPI_Iallreduce did not complete"
    "euler2d_cfl_host_node|graph|host-node|euler2d --set euler2d.nx=64 --set euler2d.ny=64 --steps 100000000|euler2d cfl.allreduce \\(the time step\\): MPI_Iallreduce did not complete")
foreach(gpu_fault IN LISTS gpu_fault_tests)
  string(REPLACE "|" ";" gpu_fields "${gpu_fault}")
  list(GET gpu_fields 0 gpu_name)
  list(GET gpu_fields 1 gpu_executor)
  list(GET gpu_fields 2 gpu_handoff)
  list(GET gpu_fields 3 gpu_args)
  list(GET gpu_fields 4 gpu_expect)
  separate_arguments(gpu_args UNIX_COMMAND "${gpu_args}")
  set(gpu_test fault_collective_${gpu_name}_${gpu_executor})
  if(gpu_args MATCHES "^run;")
    # The haloflow command has no exit status for "no GPU": silent_peer.sh skips without one.
    # Rank 1 stops 10 s in: past the start-up's overlap measurement, whose reductions come first
    # and take seconds with two ranks time-sliced on one GPU (seen on an H200).
    set(gpu_program env MIN_GPUS=1 STOP_AFTER_S=10 bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh
                    ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:haloflow>)
    list(APPEND gpu_args --out ${fault_runs}/${gpu_test} --force)
  else()
    set(gpu_program bash ${CMAKE_CURRENT_SOURCE_DIR}/silent_peer.sh ${MPIEXEC_EXECUTABLE}
                    ${MPIEXEC_NUMPROC_FLAG} 3 $<TARGET_FILE:haloflow_model>)
  endif()
  haloflow_cli_test(${gpu_test}
    COMMAND env FAULT=collective CALL=MPI_Iallreduce STOPPER=${fault_stopper}
            "EXPECT=${gpu_expect}.*not heard from: rank 1" ${gpu_program} ${gpu_args} --executor
            ${gpu_executor} --handoff ${gpu_handoff}
    LABELS gpu mpi fault TIMEOUT 90 RESOURCE_LOCK fault_timing)
endforeach()

# Writes that cannot lose or corrupt data: a file size limit and a full disk (a small
# tmpfs, where mount is allowed) leave no partial file and name the file and the cause; planted
# links are refused by name; --dump needs --force; a failed forced rerun leaves no mix of runs.
haloflow_cli_test(output_faults
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/output_faults.sh $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/tests/cases/jacobi2d_vtk_raw.json
          ${CMAKE_CURRENT_BINARY_DIR}/output_faults ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
  LABELS host mpi fault TIMEOUT 180
  PASS_REGEX "output_faults: 7 scenarios, 0 failures")
