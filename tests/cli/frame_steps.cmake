# Frames of k steps (haloflow/steps.hpp) on heat3d: the same bits for k = 1 to 4 and auto on 1
# to 4 ranks, a checkpoint of one k restarting under another, and a k too deep for the ranks'
# shares refused at /heat3d/steps_per_frame; then euler2d's one exchange a step (exchange_every)
# the same ways (included by CMakeLists.txt).

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

# The peer case again with the ranks on two "nodes" by parity (MPICH's odd/even cliques): each
# rank's routes within its node peer to peer, the others by mpi, in one exchange k cells deep.
foreach(executor host graph)
  haloflow_cli_test(heat3d_frame_steps_peer_nodes_${executor}
    COMMAND env MPIR_CVAR_ODD_EVEN_CLIQUES=1 bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_frame_steps.sh
            ${frame_steps_dir}/${executor}-peer_nodes ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG}
            $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=20 --set heat3d.ny=18
            --set heat3d.nz=9 --transport peer --steps 13 --executor ${executor}
    LABELS ${frame_steps_${executor}_labels} TIMEOUT 300)
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
# With frames per launch, auto times launches of that many frames (three after one, or 12 steps
# where more): 3 x 8 frames of 1 step for k = 1, the fewest of the four.
haloflow_cli_test(heat3d_frame_steps_auto_loops
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=12 --steps 8 --executor host
          --steps-per-frame auto --set run.frames_per_launch=8
  LABELS host TIMEOUT 60
  PASS_REGEX "steps? a frame[^(]*\\(auto: a step took [0-9.]+ / [0-9.]+ / [0-9.]+ / [0-9.]+ us with 1 / 2 / 3 / 4 steps a frame, median of 24 steps, slowest rank")
haloflow_cli_test(heat3d_frame_steps_auto_thin RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> heat3d --set heat3d.nx=3 --set heat3d.ny=8
          --set heat3d.nz=8 --steps 3 --executor host --set heat3d.steps_per_frame=auto
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "1 step a frame \\(auto: a rank's share is too thin for ghosts 2 deep\\)")

# The plan of a frame of 3 steps on 1, 2 and 4 ranks: one deep pass, split like the one-step
# frame (its interior after the self copy, slabs after the unpack).
haloflow_cli_test(heat3d_frame_steps_plan
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/heat3d_steps_frame_shape.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json ${frame_steps_dir}/plan
  LABELS host mpi TIMEOUT 120)

# euler2d with one exchange a step (/euler2d/exchange_every step: a StepFrame of the Runge-Kutta
# stages, docs/k-step-frames.md): the bits of one exchange a stage on 1 to 4 ranks (1 x 1, 2 x 1,
# 3 x 1, 2 x 2), periodic and with walls, SSP-RK3 and SSP-RK2, both limiters and fluxes (the
# sod-x case also sends the halos a rank sends itself through MPI); a checkpoint of either setting
# restarting under the other; the refusals; the step's plan.
set(euler_step_cases
    "vortex|--set euler2d.case=vortex --set euler2d.nx=40 --set euler2d.ny=36 --steps 30"
    "vortex_rk2_unlimited_rusanov|--set euler2d.case=vortex --set euler2d.nx=20 --set euler2d.ny=18 --set euler2d.rk=2 --set euler2d.limiter=none --set euler2d.riemann=rusanov --steps 30"
    "sod_x_rk2_minmod_rusanov_self_mpi|--set euler2d.case=sod-x --set euler2d.nx=24 --set euler2d.ny=26 --set euler2d.rk=2 --set euler2d.limiter=minmod --set euler2d.riemann=rusanov --self-exchange mpi --steps 40"
    "sod_y|--set euler2d.case=sod-y --set euler2d.nx=26 --set euler2d.ny=30 --steps 40")
foreach(executor host graph)
  foreach(euler_step_case IN LISTS euler_step_cases)
    string(REPLACE "|" ";" euler_step_pair "${euler_step_case}")
    list(GET euler_step_pair 0 euler_step_name)
    list(GET euler_step_pair 1 euler_step_args)
    separate_arguments(euler_step_args UNIX_COMMAND "${euler_step_args}")
    haloflow_cli_test(euler2d_exchange_every_${euler_step_name}_${executor}
      COMMAND env FRAME_SETTING=euler2d.exchange_every "FRAME_VALUES=stage step auto"
              bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_frame_steps.sh
              ${frame_steps_dir}/euler2d-${executor}-${euler_step_name}
              ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model>
              euler2d ${euler_step_args} --executor ${executor}
      LABELS ${frame_steps_${executor}_labels} TIMEOUT 300)
  endforeach()
endforeach()

# Sod along x with the ranks on two "nodes" (odd/even cliques) and --transport peer: the mixed
# exchange (peer within a node, mpi across) 6 deep, the walls meeting both kinds of neighbour.
foreach(executor host graph)
  haloflow_cli_test(euler2d_exchange_every_sod_x_peer_nodes_${executor}
    COMMAND env MPIR_CVAR_ODD_EVEN_CLIQUES=1 FRAME_SETTING=euler2d.exchange_every
            "FRAME_VALUES=stage step" bash ${CMAKE_CURRENT_SOURCE_DIR}/compare_frame_steps.sh
            ${frame_steps_dir}/euler2d-${executor}-sod_x_peer_nodes ${MPIEXEC_EXECUTABLE}
            ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=sod-x
            --set euler2d.nx=36 --set euler2d.ny=30 --transport peer --steps 15
            --executor ${executor}
    LABELS ${frame_steps_${executor}_labels} TIMEOUT 300)
endforeach()

# Checkpoints hold U's owned cells only (and exchange_every is not in their case hash): one
# written at step 5 under either setting restarts under the other, bitwise a straight run of 20
# steps. Sod's tube along x on 2 x 2 ranks: the walls meet the neighbours' rows.
set(euler_step_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 4 $<TARGET_FILE:haloflow> run
    ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --executor host --force --set euler2d.case=sod-x
    --set euler2d.nx=48 --set euler2d.ny=16 --set run.vtk=false --set run.png=false)
haloflow_cli_test(euler2d_exchange_every_straight
  COMMAND ${euler_step_run} --steps 20 --out ${frame_steps_dir}/euler2d_straight
          --dump ${frame_steps_dir}/euler2d_straight.raw
  LABELS host mpi TIMEOUT 120 FIXTURES_SETUP euler2d_exchange_every_straight
  PASS_REGEX "one exchange a stage \\(ghosts 2 deep\\).*result: model=euler2d.*steps=20")
foreach(euler_pair "step|stage" "stage|step")
  string(REPLACE "|" ";" euler_pair "${euler_pair}")
  list(GET euler_pair 0 euler_first)
  list(GET euler_pair 1 euler_second)
  set(euler_name euler2d_exchange_every_${euler_first}_then_${euler_second})
  haloflow_cli_test(${euler_name}_checkpoint
    COMMAND ${euler_step_run} --steps 10 --checkpoint-every 5
            --set euler2d.exchange_every=${euler_first} --out ${frame_steps_dir}/${euler_name}_first
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP ${euler_name}_checkpoint
    PASS_REGEX "one exchange a ${euler_first}.*result: model=euler2d.*steps=10")
  haloflow_cli_test(${euler_name}_restart
    COMMAND ${euler_step_run} --steps 20 --restart ${frame_steps_dir}/${euler_name}_first --step 5
            --set euler2d.exchange_every=${euler_second} --out ${frame_steps_dir}/${euler_name}_second
            --dump ${frame_steps_dir}/${euler_name}_second.raw
    LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ${euler_name}_checkpoint
    FIXTURES_SETUP ${euler_name}_restart
    PASS_REGEX "restarting from the checkpoint of step 5 .*one exchange a ${euler_second}.*result: model=euler2d.*steps=15")
  haloflow_cli_test(${euler_name}_restart_bitwise
    COMMAND cmp ${frame_steps_dir}/euler2d_straight.raw ${frame_steps_dir}/${euler_name}_second.raw
    FIXTURES_REQUIRED euler2d_exchange_every_straight ${euler_name}_restart)
endforeach()

# A checkpoint of the state before 2026-12-02 (U, S1 and S2 whole, with their ghosts) restarts
# under either setting, bitwise the straight run (tests/cases/checkpoints/*/README.md).
set(euler_earlier_run ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow> run
    ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --executor host --force --set euler2d.case=sod-x
    --set euler2d.nx=24 --set euler2d.ny=8 --set run.vtk=false --set run.png=false --steps 10)
haloflow_cli_test(euler2d_checkpoint_before_2026_12_02_straight
  COMMAND ${euler_earlier_run} --out ${frame_steps_dir}/euler2d_earlier_straight
          --dump ${frame_steps_dir}/euler2d_earlier_straight.raw
  LABELS host mpi TIMEOUT 120 FIXTURES_SETUP euler2d_checkpoint_before_2026_12_02_straight)
foreach(euler_every stage step)
  set(euler_name euler2d_checkpoint_before_2026_12_02_${euler_every})
  haloflow_cli_test(${euler_name}_restart
    COMMAND ${euler_earlier_run} --set euler2d.exchange_every=${euler_every}
            --restart ${PROJECT_SOURCE_DIR}/tests/cases/checkpoints/euler2d_sod_x_24x8_2_ranks_before_2026-12-02
            --step 5 --out ${frame_steps_dir}/${euler_name} --dump ${frame_steps_dir}/${euler_name}.raw
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP ${euler_name}_restart
    PASS_REGEX "restarting from the checkpoint of step 5 .*one exchange a ${euler_every}.*result: model=euler2d.*steps=5")
  haloflow_cli_test(${euler_name}_bitwise
    COMMAND cmp ${frame_steps_dir}/euler2d_earlier_straight.raw ${frame_steps_dir}/${euler_name}.raw
    FIXTURES_REQUIRED euler2d_checkpoint_before_2026_12_02_straight ${euler_name}_restart)
endforeach()

# Ghosts 6 deep (SSP-RK3) on shares of 5 cells: refused where the case asks for them; and a value
# that is neither. The run's own refusal, in the same words: model_euler_exchange_refusal.
haloflow_cli_test(euler2d_exchange_every_too_deep RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=sod-x --set euler2d.nx=10
          --set euler2d.ny=8 --steps 3 --executor host --set euler2d.exchange_every=step
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "/euler2d/exchange_every: step is not allowed on 2 ranks: the process grid 2 x 1 leaves a rank 5 cells along x \\(10 cells over 2 ranks\\), fewer than the 6 ghost layers its halo exchange fills; expected stage \\(ghosts 2 deep\\), or /euler2d/nx at least 12")
haloflow_cli_test(euler2d_exchange_every_out_of_range
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --steps 1 --executor host
          --set euler2d.exchange_every=often
  LABELS host TIMEOUT 60
  PASS_REGEX "/euler2d/exchange_every: \"often\" is not allowed; expected one of stage, step, auto")

# auto: both timed and the header saying each one's step and the rule; where one exchange a step
# does not fit, or the run ends within the measurement, stage without measuring, and why.
haloflow_cli_test(euler2d_exchange_every_auto RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.nx=24 --set euler2d.ny=20 --steps 5
          --executor host --set euler2d.exchange_every=auto
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "one exchange a (stage \\(ghosts 2|step \\(ghosts 6) deep; auto: a step took [0-9.]+ us exchanging every stage, [0-9.]+ us once a step, median of 12 steps, slowest rank; a step only if faster by more than 3 %")
haloflow_cli_test(euler2d_exchange_every_auto_thin RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.nx=10 --set euler2d.ny=12 --steps 3
          --executor host --set euler2d.exchange_every=auto
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "one exchange a stage \\(ghosts 2 deep; auto: a rank's share is too thin for ghosts 6 deep\\)")
haloflow_cli_test(euler2d_exchange_every_auto_short RANKS 2
  COMMAND $<TARGET_FILE:haloflow_model> euler2d --set euler2d.case=sod-x --set euler2d.nx=32
          --set euler2d.ny=8 --set euler2d.t_end=0.01 --steps 50 --executor host
          --set euler2d.exchange_every=auto
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "one exchange a stage \\(ghosts 2 deep; auto: the run ends within the measurement\\)")

# The plan of one exchange a step on 1, 2 and 4 ranks (DOT): one exchange, stage 0's interior
# after the self copy, its slabs after the unpack, the later stages in turn; results.json's
# setting and redundant cells.
haloflow_cli_test(euler2d_exchange_every_plan
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/euler2d_step_exchange_shape.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json ${frame_steps_dir}/euler2d_plan
  LABELS host mpi TIMEOUT 120)
