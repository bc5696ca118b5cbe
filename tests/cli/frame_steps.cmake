# Frames of k steps (haloflow/steps.hpp) on heat3d: the same bits for k = 1 to 4 on 1 to 4 ranks,
# a checkpoint of one k restarting under another, and a k too deep for the ranks' shares refused
# at /heat3d/steps_per_frame (included by CMakeLists.txt).

file(MAKE_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/frame_steps)
set(frame_steps_dir ${CMAKE_CURRENT_BINARY_DIR}/frame_steps)
# 30 steps: k = 4 ends with a frame of 2. The float case also sends the halos a rank sends itself
# through MPI (the host path of one rank along an axis); the peer case stores them in the
# neighbours' mailboxes, whose waits the interiors of every sub-step must not come after.
set(frame_steps_cases
    "double|--set heat3d.nx=23 --set heat3d.ny=22 --set heat3d.nz=21 --steps 30"
    "float_self_mpi|--set heat3d.nx=16 --set heat3d.ny=13 --set heat3d.nz=9 --precision float --self-exchange mpi --steps 30"
    "peer|--set heat3d.nx=20 --set heat3d.ny=18 --set heat3d.nz=9 --transport peer --steps 13")
# The host executor's in CI; the graph executor's skip without a GPU (exit 77).
set(frame_steps_host_labels host mpi)
set(frame_steps_graph_labels gpu mpi)
foreach(executor host graph)
  foreach(frame_case IN LISTS frame_steps_cases)
    string(REPLACE "|" ";" frame_pair "${frame_case}")
    list(GET frame_pair 0 frame_name)
    list(GET frame_pair 1 frame_args)
    separate_arguments(frame_args UNIX_COMMAND "${frame_args}")
    haloflow_cli_test(heat3d_frame_steps_${frame_name}_${executor}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_frame_steps.sh
              ${frame_steps_dir}/${executor}-${frame_name}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              heat3d ${frame_args} --executor ${executor}
      LABELS ${frame_steps_${executor}_labels} TIMEOUT 300)
  endforeach()
endforeach()

# A checkpoint in the middle of a frame of 4 (step 5: the frame before it takes 1) restarts under
# 3 steps a frame, bitwise the run of 20 steps of one step a frame.
set(frame_steps_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow> run
    ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --executor host --force)
haloflow_cli_test(heat3d_frame_steps_straight
  COMMAND ${frame_steps_run} --steps 20 --out ${frame_steps_dir}/straight
          --dump ${frame_steps_dir}/straight.raw
  LABELS host mpi TIMEOUT 120 FIXTURES_SETUP heat3d_frame_steps_straight
  PASS_REGEX "result: model=heat3d.*steps=20")
haloflow_cli_test(heat3d_frame_steps_checkpoint
  COMMAND ${frame_steps_run} --steps 10 --checkpoint-every 5 --set heat3d.steps_per_frame=4
          --out ${frame_steps_dir}/k4_first
  LABELS host mpi TIMEOUT 120 FIXTURES_SETUP heat3d_frame_steps_checkpoint
  PASS_REGEX "4 steps a frame \\(ghosts 4 deep\\).*result: model=heat3d.*steps=10")
haloflow_cli_test(heat3d_frame_steps_restart
  COMMAND ${frame_steps_run} --steps 20 --restart ${frame_steps_dir}/k4_first --step 5
          --set heat3d.steps_per_frame=3 --out ${frame_steps_dir}/k3_second
          --dump ${frame_steps_dir}/k3_second.raw
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED heat3d_frame_steps_checkpoint
  FIXTURES_SETUP heat3d_frame_steps_restart
  PASS_REGEX "restarting from the checkpoint of step 5 .*3 steps a frame.*result: model=heat3d.*steps=15")
haloflow_cli_test(heat3d_frame_steps_restart_bitwise
  COMMAND cmp ${frame_steps_dir}/straight.raw ${frame_steps_dir}/k3_second.raw
  FIXTURES_REQUIRED heat3d_frame_steps_straight heat3d_frame_steps_restart)

# Ghosts 4 deep on shares of 3 cells: refused where the case asks for them, with the k that fits.
haloflow_cli_test(heat3d_frame_steps_too_deep RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=7 --set heat3d.ny=8
          --set heat3d.nz=8 --steps 3 --executor host --set heat3d.steps_per_frame=4
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "/heat3d/steps_per_frame: 4 is not allowed on 2 ranks: the process grid 2 x 1 x 1 leaves a rank 3 cells along x \\(7 cells over 2 ranks\\), fewer than the 4 ghost layers its halo exchange fills; expected at most 3, or /heat3d/nx at least 8")
haloflow_cli_test(heat3d_frame_steps_out_of_range
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=8 --steps 3 --executor host
          --set heat3d.steps_per_frame=5
  LABELS host TIMEOUT 60
  PASS_REGEX "/heat3d/steps_per_frame: 5 is not allowed; expected an integer from 1 to 4")

# auto: every k that fits timed, the header saying each k's step and the choice; on shares one
# cell thin nothing to measure, and the header says why.
haloflow_cli_test(heat3d_frame_steps_auto
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=12 --steps 8 --executor host
          --steps-per-frame auto
  LABELS host TIMEOUT 60
  PASS_REGEX "steps? a frame[^(]*\\(auto: a step took [0-9.]+ / [0-9.]+ / [0-9.]+ / [0-9.]+ us with 1 / 2 / 3 / 4 steps a frame, median of 12 steps, slowest rank; the fewest within 3 % of the fastest")
haloflow_cli_test(heat3d_frame_steps_auto_thin RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=3 --set heat3d.ny=8
          --set heat3d.nz=8 --steps 3 --executor host --set heat3d.steps_per_frame=auto
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "1 step a frame \\(auto: a rank's share is too thin for ghosts 2 deep\\)")

# The plan of a frame of 3 steps on 1, 2 and 4 ranks: the first sub-step split like the one-step
# frame (its interior after the self copy, slabs after the unpack), the others in turn.
haloflow_cli_test(heat3d_frame_steps_plan
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/heat3d_steps_frame_shape.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json ${frame_steps_dir}/plan
  LABELS host mpi TIMEOUT 120)
