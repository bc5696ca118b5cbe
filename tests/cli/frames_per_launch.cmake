# run.frames_per_launch (docs/architecture.md, "Frames per launch"): the bits of a launch a frame
# for 2, 7 and 8 frames a launch, on 1 to 4 ranks (one rank's device self-exchange loops on the
# graph executor, and so does the mpi exchange of several ranks under the default proxy handoff;
# the host-node handoff case goes a frame a launch), for jacobi2d with and without its norm, and
# heat3d with frames of 1, 2 (a cycle of one frame twice) and 3 steps and over peer; the header's
# line where the frames loop and where they cannot; the refusal of a bad value; a checkpoint and
# restart under loops (included by CMakeLists.txt).

file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/frames_per_launch)
set(launch_dir ${CMAKE_CURRENT_BINARY_DIR}/frames_per_launch)
# 37 and 41 steps: odd, so that launches end with an odd frame and the loop's remainder runs.
set(launch_cases
    "jacobi2d|jacobi2d_no_norm|--set jacobi2d.nx=40 --set jacobi2d.ny=34 --set jacobi2d.norm_every=0 --steps 37"
    "jacobi2d|jacobi2d_norm|--set jacobi2d.nx=40 --set jacobi2d.ny=34 --set jacobi2d.norm_every=5 --steps 41"
    "jacobi2d|jacobi2d_one_step_norm|--set jacobi2d.nx=40 --set jacobi2d.ny=34 --set jacobi2d.steps_per_frame=1 --set jacobi2d.norm_every=6 --steps 37"
    "jacobi2d|jacobi2d_norm_host_node|--set jacobi2d.nx=40 --set jacobi2d.ny=34 --set jacobi2d.norm_every=5 --handoff host-node --steps 41"
    "heat3d|heat3d_peer|--set heat3d.nx=20 --set heat3d.ny=18 --set heat3d.nz=9 --transport peer --steps 13"
    "heat3d|heat3d|--set heat3d.nx=23 --set heat3d.ny=22 --set heat3d.nz=21 --steps 30"
    "heat3d|heat3d_k2|--set heat3d.nx=23 --set heat3d.ny=22 --set heat3d.nz=21 --set heat3d.steps_per_frame=2 --steps 31"
    "heat3d|heat3d_k3|--set heat3d.nx=23 --set heat3d.ny=22 --set heat3d.nz=21 --set heat3d.steps_per_frame=3 --steps 31")
set(launch_host_labels host mpi)
set(launch_graph_labels gpu mpi)
foreach(executor host graph)
  foreach(launch_case IN LISTS launch_cases)
    string(REPLACE "|" ";" launch_parts "${launch_case}")
    list(GET launch_parts 0 launch_model)
    list(GET launch_parts 1 launch_name)
    list(GET launch_parts 2 launch_args)
    separate_arguments(launch_args UNIX_COMMAND "${launch_args}")
    haloflow_cli_test(frames_per_launch_${launch_name}_${executor}
      COMMAND env FRAME_SETTING=run.frames_per_launch "FRAME_VALUES=1 2 7 8"
              bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_frame_steps.sh
              ${launch_dir}/${executor}-${launch_name}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              ${launch_model} ${launch_args} --executor ${executor}
      LABELS ${launch_${executor}_labels} TIMEOUT 300)
  endforeach()
endforeach()

# The header: one rank on the graph executor loops on the device (its self-exchange has no host
# node), and so does two ranks' mpi exchange under the proxy handoff (its host node is a kernel);
# under the host-node handoff it is a CUDA host node, named; the host executor and euler2d say
# why not.
haloflow_cli_test(frames_per_launch_graph_loops
  COMMAND $<TARGET_FILE:haloflow_model> jacobi2d --set jacobi2d.nx=64 --set jacobi2d.ny=64
          --steps 40 --executor graph --set run.frames_per_launch=8
  LABELS gpu TIMEOUT 60
  PASS_REGEX "frames per launch: 8 \\(run.frames_per_launch\\): a CUDA graph WHILE node")
haloflow_cli_test(frames_per_launch_graph_proxy_loops RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=16 --steps 10 --executor graph
          --transport mpi --handoff proxy --set run.frames_per_launch=8
  LABELS gpu mpi TIMEOUT 60
  PASS_REGEX "frames per launch: 8 \\(run.frames_per_launch\\): a CUDA graph WHILE node")
haloflow_cli_test(frames_per_launch_graph_host_node_falls_back RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=16 --steps 10 --executor graph
          --transport mpi --handoff host-node --set run.frames_per_launch=8
  LABELS gpu mpi TIMEOUT 60
  PASS_REGEX "frames per launch: 1 of the 8 asked \\(run.frames_per_launch\\): host node '[^']+' of frame '[^']+' is host work")
haloflow_cli_test(frames_per_launch_host_falls_back
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=12 --steps 10 --executor host
          --set run.frames_per_launch=4
  LABELS host TIMEOUT 60
  PASS_REGEX "frames per launch: 1 of the 4 asked \\(run.frames_per_launch\\): the host executor launches frames one by one")
haloflow_cli_test(frames_per_launch_euler2d_falls_back
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.nx=24 --set euler2d.ny=20 --steps 5
          --executor host --set run.frames_per_launch=4
  LABELS host TIMEOUT 60
  PASS_REGEX "frames per launch: 1 of the 4 asked \\(run.frames_per_launch\\): this model launches its frames one by one")
haloflow_cli_test(frames_per_launch_refused
  COMMAND $<TARGET_FILE:haloflow_model> jacobi2d --steps 3 --executor host
          --set run.frames_per_launch=0
  LABELS host TIMEOUT 60
  PASS_REGEX "/run/frames_per_launch: 0 is not allowed; expected an integer from 1 to 1000000")

# Outputs and checkpoints stay exact: `haloflow run` with a checkpoint every 5 steps and a
# progress report every 3, 8 frames a launch, restarted from step 10, bitwise the straight run of
# a frame a launch.
set(launch_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 1 $<TARGET_FILE:haloflow> run
    ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --force --set jacobi2d.nx=48
    --set jacobi2d.ny=40 --set run.progress_every=3)
# haloflow run has no exit status of its own for "no GPU": on_gpu.sh skips the graph's.
set(launch_host_prefix)
set(launch_graph_prefix bash ${CMAKE_CURRENT_SOURCE_DIR}/on_gpu.sh)
foreach(executor host graph)
  haloflow_cli_test(frames_per_launch_run_straight_${executor}
    COMMAND ${launch_${executor}_prefix} ${launch_run} --executor ${executor} --steps 23
            --out ${launch_dir}/straight_${executor}
            --dump ${launch_dir}/straight_${executor}.raw
    LABELS ${launch_${executor}_labels} TIMEOUT 120
    FIXTURES_SETUP frames_per_launch_straight_${executor}
    PASS_REGEX "result: model=jacobi2d.*steps=23")
  haloflow_cli_test(frames_per_launch_run_checkpoint_${executor}
    COMMAND ${launch_${executor}_prefix} ${launch_run} --executor ${executor} --steps 15
            --checkpoint-every 5 --set run.frames_per_launch=8 --out ${launch_dir}/first_${executor}
    LABELS ${launch_${executor}_labels} TIMEOUT 120
    FIXTURES_SETUP frames_per_launch_checkpoint_${executor}
    PASS_REGEX "result: model=jacobi2d.*steps=15")
  haloflow_cli_test(frames_per_launch_run_restart_${executor}
    COMMAND ${launch_${executor}_prefix} ${launch_run} --executor ${executor} --steps 23
            --restart ${launch_dir}/first_${executor} --step 10 --set run.frames_per_launch=7
            --out ${launch_dir}/second_${executor} --dump ${launch_dir}/second_${executor}.raw
    LABELS ${launch_${executor}_labels} TIMEOUT 120
    FIXTURES_REQUIRED frames_per_launch_checkpoint_${executor}
    FIXTURES_SETUP frames_per_launch_restart_${executor}
    PASS_REGEX "restarting from the checkpoint of step 10 .*result: model=jacobi2d.*steps=13")
  haloflow_cli_test(frames_per_launch_run_bitwise_${executor}
    COMMAND bash -c "test -f \"$1\" || exit 77; cmp \"$1\" \"$2\"" bitwise
            ${launch_dir}/straight_${executor}.raw ${launch_dir}/second_${executor}.raw
    LABELS ${launch_${executor}_labels}
    FIXTURES_REQUIRED frames_per_launch_straight_${executor} frames_per_launch_restart_${executor})
endforeach()
