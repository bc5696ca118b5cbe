# Checkpoint and restart: bitwise restarts, damaged checkpoints refused by name, the older
# intact one named (included by CMakeLists.txt).

# Checkpoint and restart (host executor): 20 steps straight; 10 steps with a checkpoint every 10,
# then --restart to 20; the dumped global fields must be bitwise identical (cmp).
set(ckpt_runs ${CMAKE_CURRENT_BINARY_DIR}/ckpt_runs)
file(MAKE_DIRECTORY ${ckpt_runs})
foreach(ckpt_model_ranks heat3d:2 jacobi2d:2 euler2d:4)
  string(REPLACE ":" ";" ckpt_pair "${ckpt_model_ranks}")
  list(GET ckpt_pair 0 ckpt_model)
  list(GET ckpt_pair 1 ckpt_ranks)
  set(ckpt_run $<TARGET_FILE:haloflow> run ${PROJECT_SOURCE_DIR}/json/cases/${ckpt_model}.json
      --executor host --force)
  haloflow_cli_test(ckpt_${ckpt_model}_straight RANKS ${ckpt_ranks}
    COMMAND ${ckpt_run} --steps 20 --out ${ckpt_runs}/${ckpt_model}_straight
            --dump ${ckpt_runs}/${ckpt_model}_straight.raw
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP ckpt_${ckpt_model}_straight
    PASS_REGEX "result: model=${ckpt_model}.*steps=20")
  haloflow_cli_test(ckpt_${ckpt_model}_first_half RANKS ${ckpt_ranks}
    COMMAND ${ckpt_run} --steps 10 --checkpoint-every 10 --out ${ckpt_runs}/${ckpt_model}_first_half
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP ckpt_${ckpt_model}_first_half
    PASS_REGEX "result: model=${ckpt_model}.*steps=10")
  haloflow_cli_test(ckpt_${ckpt_model}_restart RANKS ${ckpt_ranks}
    COMMAND ${ckpt_run} --steps 20 --restart ${ckpt_runs}/${ckpt_model}_first_half
            --out ${ckpt_runs}/${ckpt_model}_restarted
            --dump ${ckpt_runs}/${ckpt_model}_restarted.raw
    LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_${ckpt_model}_first_half
    FIXTURES_SETUP ckpt_${ckpt_model}_restarted
    PASS_REGEX "restarting from the checkpoint of step 10 .*result: model=${ckpt_model}.*steps=10")
  haloflow_cli_test(ckpt_${ckpt_model}_bitwise
    COMMAND cmp ${ckpt_runs}/${ckpt_model}_straight.raw ${ckpt_runs}/${ckpt_model}_restarted.raw
    FIXTURES_REQUIRED ckpt_${ckpt_model}_straight ckpt_${ckpt_model}_restarted)
endforeach()
# The same on the graph executor (GPU machines; skipped without a CUDA device).
foreach(ckpt_model_ranks heat3d:2 jacobi2d:2 euler2d:2)
  string(REPLACE ":" ";" ckpt_pair "${ckpt_model_ranks}")
  list(GET ckpt_pair 0 ckpt_model)
  list(GET ckpt_pair 1 ckpt_ranks)
  haloflow_cli_test(ckpt_${ckpt_model}_bitwise_graph
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/restart_bitwise.sh ${ckpt_runs}/${ckpt_model}_graph
            graph $<TARGET_FILE:haloflow> ${PROJECT_SOURCE_DIR}/json/cases/${ckpt_model}.json
            ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} ${ckpt_ranks}
    LABELS gpu mpi TIMEOUT 180
    PASS_REGEX "restart_bitwise: graph, ${ckpt_model}.json: restarted run bitwise identical")
endforeach()
# A damaged or mismatched checkpoint is refused before the run, naming the file and the problem
# (the messages' ';' appear as '.' here: a CMake list cannot hold one).
set(ckpt_refusals
    "truncated|truncate|2|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: truncated: .+ payload bytes. the header says"
    "truncated_header|truncate_header|2|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: truncated: 20 bytes, shorter than its 56-byte header"
    "corrupted|flip|2|heat3d.json|checkpoint .*step_00000010_r0001.ckpt: corrupted: the CRC-32 of its header and payload is [0-9a-f]+. the file says [0-9a-f]+"
    "corrupted_header|flip_header|2|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: corrupted: the CRC-32 of its header and payload is [0-9a-f]+. the file says"
    "fifo|fifo|2|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: is a FIFO \\(named pipe\\), not a regular file. expected a haloflow checkpoint file"
    "device|device|2|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: is a character device, not a regular file"
    "other_case|none|2|heat3d_other.json|checkpoint .*step_00000010_r0000.ckpt: written for another case"
    "other_ranks|none|4|heat3d.json|checkpoint .*step_00000010_r0000.ckpt: written by a run on 2 ranks. this run has 4")
foreach(ckpt_refusal IN LISTS ckpt_refusals)
  string(REPLACE "|" ";" ckpt_fields "${ckpt_refusal}")
  list(GET ckpt_fields 0 ckpt_name)
  list(GET ckpt_fields 1 ckpt_mode)
  list(GET ckpt_fields 2 ckpt_ranks)
  list(GET ckpt_fields 3 ckpt_case)
  list(GET ckpt_fields 4 ckpt_message)
  set(ckpt_case_path ${PROJECT_SOURCE_DIR}/json/cases/${ckpt_case})
  if(ckpt_case STREQUAL "heat3d_other.json")
    set(ckpt_case_path ${test_cases}/${ckpt_case})
  endif()
  haloflow_cli_test(ckpt_refuses_${ckpt_name}
    COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_damage.sh ${ckpt_mode}
            ${ckpt_runs}/heat3d_first_half ${ckpt_runs}/damaged_${ckpt_name} ${MPIEXEC_EXECUTABLE}
            ${MPIEXEC_NUMPROC_FLAG} ${ckpt_ranks} $<TARGET_FILE:haloflow> run ${ckpt_case_path}
            --executor host --steps 20 --force --out ${ckpt_runs}/damaged_${ckpt_name}_out
    LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_first_half
    PASS_REGEX "haloflow: --restart [^\n]*${ckpt_message}[^\n]*\nexit=1")
endforeach()

# Two checkpoints (steps 5 and 10); the newest damaged: the refusal names the older intact one and
# how to select it; --step selects it, and the restarted run is bitwise the straight run. A
# restart at the run's last step has nothing to do and says so; --step of no complete checkpoint
# lists the complete ones.
set(ckpt_two ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:haloflow> run
    ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --executor host --force)
haloflow_cli_test(ckpt_two_checkpoints
  COMMAND ${ckpt_two} --steps 10 --checkpoint-every 5 --out ${ckpt_runs}/heat3d_two
  LABELS host mpi TIMEOUT 120 FIXTURES_SETUP ckpt_heat3d_two)
haloflow_cli_test(ckpt_names_older_intact
  COMMAND sh ${CMAKE_CURRENT_SOURCE_DIR}/checkpoint_damage.sh flip ${ckpt_runs}/heat3d_two
          ${ckpt_runs}/damaged_two ${ckpt_two} --steps 20 --out ${ckpt_runs}/damaged_two_out
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_two FIXTURES_SETUP
  ckpt_heat3d_damaged_two
  PASS_REGEX "step_00000010_r0001.ckpt: corrupted: [^\n]*. the older checkpoint of step 5 is complete and intact: continue from it with --restart [^\n]*damaged_two --step 5\nexit=1")
haloflow_cli_test(ckpt_restart_older_step
  COMMAND ${ckpt_two} --steps 20 --restart ${ckpt_runs}/damaged_two --step 5 --out
          ${ckpt_runs}/heat3d_from_5 --dump ${ckpt_runs}/heat3d_from_5.raw
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_damaged_two FIXTURES_SETUP
  ckpt_heat3d_from_5
  PASS_REGEX "restarting from the checkpoint of step 5 .*result: model=heat3d.*steps=15")
haloflow_cli_test(ckpt_restart_older_step_bitwise
  COMMAND cmp ${ckpt_runs}/heat3d_straight.raw ${ckpt_runs}/heat3d_from_5.raw
  FIXTURES_REQUIRED ckpt_heat3d_straight ckpt_heat3d_from_5)
haloflow_cli_test(ckpt_restart_nothing_to_do
  COMMAND ${ckpt_two} --steps 10 --restart ${ckpt_runs}/heat3d_two --out ${ckpt_runs}/heat3d_nothing
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_two
  PASS_REGEX "--restart [^\n]*heat3d_two: nothing to do: its checkpoint of step 10 is this run's last step \\(10 steps\\). raise --steps to continue")
haloflow_cli_test(ckpt_restart_no_such_step
  COMMAND ${ckpt_two} --steps 20 --restart ${ckpt_runs}/heat3d_two --step 7 --out
          ${ckpt_runs}/heat3d_step7
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_two
  PASS_REGEX "--restart [^\n]*heat3d_two --step 7: no complete checkpoint of step 7. the complete ones are of steps 10, 5")
haloflow_cli_test(ckpt_restart_into_itself
  COMMAND ${ckpt_two} --steps 20 --restart ${ckpt_runs}/heat3d_two --out ${ckpt_runs}/heat3d_two
  LABELS host mpi TIMEOUT 120 FIXTURES_REQUIRED ckpt_heat3d_two
  PASS_REGEX "--restart [^\n]*heat3d_two is also the run directory")
