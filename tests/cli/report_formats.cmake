# What a scientist sees in a day (issue #33), each friction a test that reads the output as a user
# does (included by CMakeLists.txt): replay's console (progress, the summary across the ranks
# first, no rows of zeros, no negative recording cost, no GPU rows on the host executor), the
# timeline's labels (none overlapping, measured with the font's own advances), --dot (one graph a
# file, in a directory, nothing overwritten without --force), and the JSON files against their
# schemas (results.json of the seed and of each model, the replay report), the seed's console and
# results.json saying the same thing about the share hidden.
if(NOT HALOFLOW_PYTHON3)
  return()
endif()
set(formats_out ${CMAKE_CURRENT_BINARY_DIR}/report_formats)
set(schemas ${PROJECT_SOURCE_DIR}/json/schema)
# The folder the files go to: a file's folder must exist (haloflow checks it before running).
haloflow_cli_test(cli_formats_folder
  COMMAND ${CMAKE_COMMAND} -E make_directory ${formats_out}
  FIXTURES_SETUP formats_folder)

# The new user's replay: 4 ranks, 50 frames, host executor, every file.
haloflow_cli_test(cli_formats_replay_console
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_console.py --ranks 4 --host
          -- ${model_mpiexec} 4 $<TARGET_FILE:haloflow> replay
          ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --frames 50 --executor host
          --timeline ${formats_out}/jacobi2d_timeline.svg --report ${formats_out}/jacobi2d_report.json
          --dot ${formats_out}/jacobi2d_frames --force
  LABELS host mpi TIMEOUT 180 FIXTURES_SETUP formats_replay FIXTURES_REQUIRED formats_folder
  PASS_REGEX "check_replay_console: [0-9]+ lines, [0-9]+ progress lines, 0 frame tables, 0 problems")
haloflow_cli_test(cli_formats_replay_per_frame
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_console.py --ranks 2
          --per-frame --host -- ${model_mpiexec} 2 $<TARGET_FILE:haloflow> replay
          ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --frames 10 --executor host --per-frame
  LABELS host mpi TIMEOUT 180
  PASS_REGEX "check_replay_console: [0-9]+ lines, [0-9]+ progress lines, 2 frame tables, 0 problems")
# Three frames: jacobi2d's one-step and norm frames never run in them; their rows of zeros were
# printed before, as were the GPU's idle gaps on the host executor.
haloflow_cli_test(cli_formats_replay_never_ran
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_replay_console.py --ranks 2
          --per-frame --host -- ${model_mpiexec} 2 $<TARGET_FILE:haloflow> replay
          ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --frames 3 --executor host --per-frame
  LABELS host mpi TIMEOUT 180
  PASS_REGEX "check_replay_console: [0-9]+ lines, [0-9]+ progress lines, 2 frame tables, 0 problems")
haloflow_cli_test(cli_formats_replay_timeline_labels
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_svg_labels.py
          ${formats_out}/jacobi2d_timeline.svg --min-texts 20
  FIXTURES_REQUIRED formats_replay
  PASS_REGEX "check_svg_labels: .*, 0 problems")
# Six frames at once: the crowded case, where labels must be left out rather than overlap.
haloflow_cli_test(cli_formats_replay_window
  COMMAND $<TARGET_FILE:haloflow> replay ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --frames 8
          --executor host --window 0:8 --timeline ${formats_out}/euler2d_window.svg --force
  TIMEOUT 120 FIXTURES_SETUP formats_window FIXTURES_REQUIRED formats_folder)
haloflow_cli_test(cli_formats_replay_window_labels
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_svg_labels.py
          ${formats_out}/euler2d_window.svg --min-texts 20
  FIXTURES_REQUIRED formats_window
  PASS_REGEX "check_svg_labels: .*, 0 problems")
haloflow_cli_test(cli_formats_replay_timeline_host_rows
  COMMAND ${HALOFLOW_PYTHON3} -c
          "import sys; t=open(sys.argv[1]).read(); n=t.count('GPU idle') + t.count('no kernel or copy'); print('GPU rows:', n); sys.exit(n != 0)"
          ${formats_out}/jacobi2d_timeline.svg
  FIXTURES_REQUIRED formats_replay
  PASS_REGEX "GPU rows: 0")
haloflow_cli_test(cli_formats_replay_report_schema
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_schema.py
          ${schemas}/replay-report.schema.json ${formats_out}/jacobi2d_report.json
  FIXTURES_REQUIRED formats_replay
  PASS_REGEX "check_schema: 1 file\\(s\\) against replay-report.schema.json, 0 errors")
haloflow_cli_test(cli_formats_replay_dot_files
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_dot_dir.py
          ${formats_out}/jacobi2d_frames 6
  FIXTURES_REQUIRED formats_replay
  PASS_REGEX "check_dot_dir: 6 files, one graph each .*, 0 problems")
# The same directory again without --force: refused before anything runs, the files kept.
haloflow_cli_test(cli_formats_replay_dot_refused
  COMMAND $<TARGET_FILE:haloflow> replay ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json
          --frames 2 --executor host --dot ${formats_out}/jacobi2d_frames
  FIXTURES_REQUIRED formats_replay
  PASS_REGEX "haloflow: --dot .*jacobi2d_frames: already holds jacobi2d_[a-z_]+\\.dot; pass --force to overwrite it")
haloflow_cli_test(cli_formats_run_dot_not_a_directory
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --out
          ${formats_out}/seed_dot_file_run --dot ${CMAKE_CURRENT_SOURCE_DIR}/check_dot_dir.py --force
  FIXTURES_REQUIRED formats_folder
  PASS_REGEX "--dot .*check_dot_dir.py: exists and is not a directory")

# results.json of the seed and of each model (small sizes, host executor) against the schema;
# the seed's host row says n/a on the console and null (with the reason) in the file.
haloflow_cli_test(cli_formats_seed_run
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --out ${formats_out}/seed_run
          --dot ${formats_out}/seed_frames --force
  TIMEOUT 120 FIXTURES_SETUP formats_seed_run FIXTURES_REQUIRED formats_folder
  PASS_REGEX "\nhost +[0-9]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +[0-9.]+ +n/a ")
haloflow_cli_test(cli_formats_seed_results_schema
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_schema.py
          ${schemas}/results.schema.json ${formats_out}/seed_run/results.json
  FIXTURES_REQUIRED formats_seed_run
  PASS_REGEX "check_schema: 1 file\\(s\\) against results.schema.json, 0 errors")
haloflow_cli_test(cli_formats_seed_hidden_null
  COMMAND ${HALOFLOW_PYTHON3} -c
          "import json,sys; r=json.load(open(sys.argv[1])); e=r['executor_comparison']['executors'][0]; print(r['model'], e['hidden_fraction'], e['hidden_fraction_note']); sys.exit(not (r['model'] == {'name': 'seed'} and e['hidden_fraction'] is None and 'nothing can be hidden' in e['hidden_fraction_note']))"
          ${formats_out}/seed_run/results.json
  FIXTURES_REQUIRED formats_seed_run)
haloflow_cli_test(cli_formats_seed_dot_files
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_dot_dir.py
          ${formats_out}/seed_frames 1
  FIXTURES_REQUIRED formats_seed_run
  PASS_REGEX "check_dot_dir: 1 files, one graph each .*, 0 problems")
foreach(formats_model jacobi2d heat3d euler2d)
  haloflow_cli_test(cli_formats_${formats_model}_run RANKS 2
    COMMAND $<TARGET_FILE:haloflow> run ${PROJECT_SOURCE_DIR}/json/cases/${formats_model}.json
            --executor host --steps 4 --out ${formats_out}/${formats_model}_run --force
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP formats_${formats_model}_run
    FIXTURES_REQUIRED formats_folder)
  haloflow_cli_test(cli_formats_${formats_model}_results_schema
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_schema.py
            ${schemas}/results.schema.json ${formats_out}/${formats_model}_run/results.json
    FIXTURES_REQUIRED formats_${formats_model}_run
    PASS_REGEX "check_schema: 1 file\\(s\\) against results.schema.json, 0 errors")
endforeach()
