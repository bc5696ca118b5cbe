# haloflow_model: the models bitwise invariant under decomposition and alike on the host and
# graph executors (included by CMakeLists.txt).

# Dumps go here; made now so tests that run in parallel never race to create it.
file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/model_dumps)
# Decomposition invariance: 1 to 4 ranks give bitwise identical global fields.
set(model_cases
    "jacobi2d --set jacobi2d.nx=64 --set jacobi2d.ny=48 --steps 40 --set jacobi2d.norm_every=5"
    "heat3d --set heat3d.nx=23 --set heat3d.ny=22 --set heat3d.nz=21 --steps 30")
# The host executor's tests run in CI; the graph executor's skip without a GPU.
set(model_host_properties LABELS host mpi TIMEOUT 60)
set(model_graph_properties LABELS gpu mpi TIMEOUT 120)
foreach(executor host graph)
  foreach(model_case IN LISTS model_cases)
    separate_arguments(model_args UNIX_COMMAND "${model_case}")
    list(GET model_args 0 model)
    haloflow_cli_test(model_invariance_${model}_${executor}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_model_dumps.sh
              ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${executor}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              ${model_args} --executor ${executor}
      ${model_${executor}_properties})
  endforeach()
endforeach()
# The same invariance with the halos stored peer to peer (host executor: MPI shared-memory windows;
# graph: CUDA IPC between ranks that share the GPU), for each model.
foreach(executor host graph)
  foreach(model_case IN LISTS model_cases ITEMS
          "euler2d --set euler2d.case=vortex --set euler2d.nx=40 --set euler2d.ny=36 --steps 30")
    separate_arguments(model_args UNIX_COMMAND "${model_case}")
    list(GET model_args 0 model)
    haloflow_cli_test(model_invariance_${model}_${executor}_peer
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_model_dumps.sh
              ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${executor}_peer
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              ${model_args} --executor ${executor} --transport peer
      ${model_${executor}_properties})
  endforeach()
endforeach()
# The same with the ranks on two "nodes" by parity (MPICH's MPIR_CVAR_ODD_EVEN_CLIQUES=1): on 3 and
# 4 ranks each rank's routes within its node go peer to peer and the others by mpi, in one
# exchange, and the fields stay bitwise those of 1 rank (and so of the mpi transport's runs).
foreach(executor host graph)
  foreach(model_case IN LISTS model_cases ITEMS
          "euler2d --set euler2d.case=vortex --set euler2d.nx=40 --set euler2d.ny=36 --steps 30")
    separate_arguments(model_args UNIX_COMMAND "${model_case}")
    list(GET model_args 0 model)
    haloflow_cli_test(model_invariance_${model}_${executor}_peer_nodes
      COMMAND env MPIR_CVAR_ODD_EVEN_CLIQUES=1 bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_model_dumps.sh
              ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${executor}_peer_nodes
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              ${model_args} --executor ${executor} --transport peer
      ${model_${executor}_properties})
  endforeach()
endforeach()
# The run header names each route's transport and why, on 4 ranks as 2 x 2 over two "nodes": rank 0
# reaches rank 2 (along y, its node) peer to peer and ranks 1 and 3 (the other node) by mpi.
set(peer_nodes_header
    "halos of this rank: peer to rank 2 \\(-y, \\+y\\): same node[^;]*; mpi to rank 3 \\(\\+x-y, \\+x\\+y\\): rank 3 is on another node; mpi to rank 1 \\(\\+x\\): rank 1 is on another node")
foreach(executor host graph)
  set(header_command $<TARGET_FILE:haloflow> run ${PROJECT_SOURCE_DIR}/tests/cases/jacobi2d_split2d.json
      --executor ${executor} --transport peer --out ${cli_runs}/peer_nodes_${executor} --force)
  set(header_labels host mpi peer)
  if(executor STREQUAL "graph")
    set(header_command bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh ${header_command})
    set(header_labels gpu mpi peer)
  endif()
  haloflow_cli_test(cli_run_peer_nodes_header_${executor} RANKS 4
    COMMAND ${header_command}
    ENVIRONMENT MPIR_CVAR_ODD_EVEN_CLIQUES=1 LABELS ${header_labels} TIMEOUT 120
    PASS_REGEX "${peer_nodes_header}")
endforeach()
# The same invariance with MPICH's shared-memory path off (MPIR_CVAR_NOLOCAL=1: as if every rank
# sat on another node).
foreach(executor host graph)
  foreach(model_case IN LISTS model_cases)
    separate_arguments(model_args UNIX_COMMAND "${model_case}")
    list(GET model_args 0 model)
    set(nolocal_properties LABELS host mpi nolocal TIMEOUT 120)
    if(executor STREQUAL "graph")
      set(nolocal_properties LABELS gpu mpi nolocal TIMEOUT 180)
    endif()
    haloflow_cli_test(model_invariance_${model}_${executor}_nolocal
      COMMAND env MPIR_CVAR_NOLOCAL=1 bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_model_dumps.sh
              ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${executor}_nolocal
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              ${model_args} --executor ${executor}
      ${nolocal_properties})
  endforeach()
endforeach()
# Host and graph executors on the same case, bitwise: jacobi2d has no operation the GPU may fuse,
# heat3d fuses its products explicitly in both twins (heat3d/heat_kernels.cuh).
foreach(model_case IN LISTS model_cases)
  separate_arguments(model_args UNIX_COMMAND "${model_case}")
  list(GET model_args 0 model)
  set(dump ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${model}-host-reference.raw)
  haloflow_cli_test(model_host_reference_${model} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> ${model_args} --executor host --dump ${dump}
    LABELS host mpi TIMEOUT 60 FIXTURES_SETUP model_host_${model})
  haloflow_cli_test(model_graph_vs_host_${model} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> ${model_args} --executor graph --compare ${dump}
            --tolerance 0
    LABELS gpu mpi TIMEOUT 60 FIXTURES_REQUIRED model_host_${model})
endforeach()

# An unstable CFL number (3) makes Sod's tube go negative: the run must stop naming step, rank
# and cell.
haloflow_cli_test(model_euler_bad_state RANKS 3
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --executor host --set euler2d.case=sod-x
          --set euler2d.nx=60 --set euler2d.ny=4 --set euler2d.cfl=3
          --steps 50
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "euler2d: step [0-9]+, rank [0-9]+, cell \\([0-9]+, [0-9]+\\): density")
# Decomposition invariance (1..4 ranks bitwise): the vortex (periodic), Sod along y (physical
# walls), Kelvin-Helmholtz; host in CI, graph on a GPU.
set(euler_cases
    "vortex --set euler2d.nx=40 --set euler2d.ny=36 --steps 30"
    "sod-y --set euler2d.nx=6 --set euler2d.ny=64 --steps 40"
    "kh --set euler2d.nx=48 --set euler2d.ny=48 --steps 30")
foreach(executor host graph)
  foreach(euler_case IN LISTS euler_cases)
    separate_arguments(euler_args UNIX_COMMAND "${euler_case}")
    list(GET euler_args 0 euler_name)
    haloflow_cli_test(model_invariance_euler2d_${euler_name}_${executor}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_model_dumps.sh
              ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/${executor}-euler-${euler_name}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              euler2d --set euler2d.case=${euler_args} --executor ${executor}
      ${model_${executor}_properties})
  endforeach()
endforeach()
# Graph against host on the vortex, Sod and Kelvin-Helmholtz, bitwise: the kernels use only
# correctly rounded operations and explicit fused multiply-adds, the same in both twins, and are
# compiled without FMA contraction (measured on an H200: largest |difference| 0, docs/models.md).
foreach(euler_case IN LISTS euler_cases)
  separate_arguments(euler_args UNIX_COMMAND "${euler_case}")
  list(GET euler_args 0 euler_name)
  set(dump ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/euler2d-${euler_name}-host-reference.raw)
  haloflow_cli_test(model_host_reference_euler2d_${euler_name} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=${euler_args} --executor host
            --dump ${dump}
    LABELS host mpi TIMEOUT 60 FIXTURES_SETUP model_host_euler2d_${euler_name})
  haloflow_cli_test(model_graph_vs_host_euler2d_${euler_name} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=${euler_args} --executor graph
            --compare ${dump} --tolerance 0
    LABELS gpu mpi TIMEOUT 60 FIXTURES_REQUIRED model_host_euler2d_${euler_name})
endforeach()
# The unlimited reconstruction (limiter none), both Riemann solvers, graph against host bitwise.
foreach(riemann hllc rusanov)
  set(dump ${CMAKE_CURRENT_BINARY_DIR}/model_dumps/euler2d-vortex-none-${riemann}-host.raw)
  set(unlimited_args vortex --set euler2d.nx=40 --set euler2d.ny=36 --steps 30
      --set euler2d.limiter=none --set euler2d.riemann=${riemann})
  haloflow_cli_test(model_host_reference_euler2d_vortex_unlimited_${riemann} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=${unlimited_args}
            --executor host --dump ${dump}
    LABELS host mpi TIMEOUT 60 FIXTURES_SETUP model_host_euler2d_unlimited_${riemann})
  haloflow_cli_test(model_graph_vs_host_euler2d_vortex_unlimited_${riemann} RANKS 2
    COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=${unlimited_args}
            --executor graph --compare ${dump} --tolerance 0
    LABELS gpu mpi TIMEOUT 60 FIXTURES_REQUIRED model_host_euler2d_unlimited_${riemann})
endforeach()
