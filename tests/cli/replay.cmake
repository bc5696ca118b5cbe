# `haloflow replay`: its trace, timeline, report and DOT files, read back (included by
# CMakeLists.txt).

# `haloflow replay` on the host executor, its files written to the build tree and checked: the
# SVG is well-formed XML with a row per branch, the Chrome trace has every node inside its frame,
# the report's numbers are consistent.
set(replay_out ${CMAKE_CURRENT_BINARY_DIR}/replay_host)
haloflow_cli_test(cli_replay_host
  COMMAND haloflow replay ${test_cases}/seed_small.json --executor host --frames 4 --trace
          ${replay_out}_trace.json --timeline ${replay_out}_timeline.svg --report
          ${replay_out}_report.json --dot ${replay_out}_frames --force
  FIXTURES_SETUP replay_host
  PASS_REGEX "recording costs .*wrote .*_report.json")
if(HALOFLOW_PYTHON3)
  haloflow_cli_test(replay_host_outputs
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_outputs.py
            ${replay_out}_trace.json ${replay_out}_timeline.svg ${replay_out}_report.json
    FIXTURES_REQUIRED replay_host)
  haloflow_cli_test(replay_host_svg_xml
    COMMAND ${HALOFLOW_PYTHON3} -c "import xml.dom.minidom,sys; xml.dom.minidom.parse(sys.argv[1])"
            ${replay_out}_timeline.svg
    FIXTURES_REQUIRED replay_host)
endif()
# `haloflow replay` of every model's case under mpiexec, 1 to 4 ranks, host executor: each rank's
# frames recorded (jacobi2d's step and norm frames, euler2d's stage frame and CFL frame), the
# ranks' traces merged on rank 0's clock into one Chrome trace, an SVG with a row per rank and
# lane, and a report per rank, all read back (check_replay_outputs.py --ranks N).
foreach(replay_model jacobi2d heat3d euler2d)
  foreach(replay_ranks 1 2 3 4)
    set(replay_run ${CMAKE_CURRENT_BINARY_DIR}/replay_${replay_model}_${replay_ranks})
    haloflow_cli_test(cli_replay_${replay_model}_${replay_ranks} RANKS ${replay_ranks}
      COMMAND $<TARGET_FILE:haloflow> replay ${PROJECT_SOURCE_DIR}/json/cases/${replay_model}.json
              --executor host --frames 3 --trace ${replay_run}_trace.json --timeline
              ${replay_run}_timeline.svg --report ${replay_run}_report.json --dot
              ${replay_run}_frames --force
      LABELS host mpi TIMEOUT 120 FIXTURES_SETUP replay_${replay_model}_${replay_ranks}
      PASS_REGEX "replay of '${replay_model}[^']*' on the host executor, ${replay_ranks} ranks?: 3 frames.*recording costs .*wrote .*_report.json")
    if(HALOFLOW_PYTHON3)
      haloflow_cli_test(replay_${replay_model}_${replay_ranks}_outputs
        COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_outputs.py
                ${replay_run}_trace.json ${replay_run}_timeline.svg ${replay_run}_report.json
                --ranks ${replay_ranks}
        FIXTURES_REQUIRED replay_${replay_model}_${replay_ranks}
        PASS_REGEX "check_replay_outputs: ${replay_ranks} rank\\(s\\), 3 frames each.*: ok")
    endif()
  endforeach()
endforeach()
# The same replays on the graph executor (skipped without a GPU): CUPTI's kernel and copy records,
# the proxy handoff's host work, 1 to 4 ranks on the GPUs there are; and the seed's one rank.
foreach(replay_model jacobi2d heat3d euler2d seed)
  set(replay_rank_counts 1 2 3 4)
  set(replay_case ${PROJECT_SOURCE_DIR}/json/cases/${replay_model}.json)
  if(replay_model STREQUAL "seed")
    set(replay_rank_counts 1)
    set(replay_case ${test_cases}/seed_small.json)
  endif()
  foreach(replay_ranks IN LISTS replay_rank_counts)
    set(replay_run ${CMAKE_CURRENT_BINARY_DIR}/replay_graph_${replay_model}_${replay_ranks})
    haloflow_cli_test(cli_replay_graph_${replay_model}_${replay_ranks}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh ${model_mpiexec} ${replay_ranks}
              $<TARGET_FILE:haloflow> replay ${replay_case} --executor graph --frames 3 --trace
              ${replay_run}_trace.json --timeline ${replay_run}_timeline.svg --report
              ${replay_run}_report.json --force
      LABELS gpu mpi TIMEOUT 120 FIXTURES_SETUP replay_graph_${replay_model}_${replay_ranks}
      PASS_REGEX "replay of '[^']*' on the graph executor, ${replay_ranks} ranks?: 3 frames.*recording costs .*wrote .*_report.json")
    if(HALOFLOW_PYTHON3)
      haloflow_cli_test(replay_graph_${replay_model}_${replay_ranks}_outputs
        COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh ${HALOFLOW_PYTHON3}
                ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_outputs.py ${replay_run}_trace.json
                ${replay_run}_timeline.svg ${replay_run}_report.json --ranks ${replay_ranks}
        LABELS gpu mpi FIXTURES_REQUIRED replay_graph_${replay_model}_${replay_ranks}
        PASS_REGEX "check_replay_outputs: ${replay_ranks} rank\\(s\\), 3 frames each.*: ok")
    endif()
  endforeach()
endforeach()
# Replays with the halos stored peer to peer, 2 ranks: on the host executor through a shared
# window (CI), on the graph executor through CUDA IPC; the receive's wait is part of the exchange
# node the recording shows (the send and receive kernel; every node, --per-frame: among the
# slowest eight it is only when a rank happened to wait, and euler2d's interiors and boundaries
# fill them otherwise).
foreach(replay_model jacobi2d heat3d euler2d)
  foreach(executor host graph)
    set(replay_run ${CMAKE_CURRENT_BINARY_DIR}/replay_peer_${executor}_${replay_model})
    set(peer_replay_labels host mpi peer)
    set(peer_replay_command ${model_mpiexec} 2)
    set(peer_replay_check)
    if(executor STREQUAL "graph")
      set(peer_replay_labels gpu mpi peer)
      set(peer_replay_command bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh ${model_mpiexec} 2)
      set(peer_replay_check bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh)
    endif()
    haloflow_cli_test(cli_replay_peer_${executor}_${replay_model}
      COMMAND ${peer_replay_command} $<TARGET_FILE:haloflow> replay
              ${PROJECT_SOURCE_DIR}/json/cases/${replay_model}.json --executor ${executor}
              --transport peer --frames 3 --per-frame --trace ${replay_run}_trace.json --timeline
              ${replay_run}_timeline.svg --report ${replay_run}_report.json --force
      LABELS ${peer_replay_labels} TIMEOUT 120
      FIXTURES_SETUP replay_peer_${executor}_${replay_model}
      PASS_REGEX "replay of '[^']*' on the ${executor} executor, 2 ranks: 3 frames.*recording costs .*halo.exchange.*wrote .*_report.json")
    if(HALOFLOW_PYTHON3)
      haloflow_cli_test(replay_peer_${executor}_${replay_model}_outputs
        COMMAND ${peer_replay_check} ${HALOFLOW_PYTHON3}
                ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_outputs.py ${replay_run}_trace.json
                ${replay_run}_timeline.svg ${replay_run}_report.json --ranks 2
        LABELS ${peer_replay_labels}
        FIXTURES_REQUIRED replay_peer_${executor}_${replay_model}
        PASS_REGEX "check_replay_outputs: 2 rank\\(s\\), 3 frames each.*: ok")
    endif()
  endforeach()
endforeach()
# The seed runs on one rank: a replay under mpiexec -n 2 is refused by the case reader, once.
haloflow_cli_test(cli_replay_seed_two_ranks RANKS 2
  COMMAND $<TARGET_FILE:haloflow> replay ${test_cases}/seed_small.json --executor host
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "/model: \"seed\" runs on one rank; this run has 2")
haloflow_cli_test(cli_replay_refuses_overwrite
  COMMAND haloflow replay ${test_cases}/seed_small.json --executor host --frames 1 --trace
          ${replay_out}_trace.json
  FIXTURES_REQUIRED replay_host
  PASS_REGEX "replay_host_trace.json exists; pass --force to overwrite it")
