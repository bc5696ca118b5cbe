# Case files end to end: `haloflow validate` on the good and broken cases, `haloflow run` into
# run directories, the schema, the command's help and info (included by CMakeLists.txt).

# The command on a small seed case, and its refusal of a bad one.
# Exit 0 means the grid matched the host reference too.
haloflow_cli_test(cli_seed_small COMMAND haloflow run ${test_cases}/seed_small.json --executor host)
haloflow_cli_test(cli_bad_case
  COMMAND haloflow run ${test_cases}/bad_seed.json --executor host
  WILL_FAIL)
haloflow_cli_test(cli_bad_case_message
  COMMAND haloflow run ${test_cases}/bad_seed.json --executor host
  PASS_REGEX "/seed/cells: -5 is not allowed; expected an integer from 2 to")

# Case files for every model. `haloflow validate` on the broken corpus
# (tests/cases/broken_cases.json lists each case, its arguments and the message it must give):
# one test for the message, one that it exits non-zero. Then the schema against an independent
# validator, and `haloflow run` on the repository's cases into run directories in the build tree.
set(broken_manifest ${test_cases}/broken_cases.json)
set_property(DIRECTORY APPEND PROPERTY CMAKE_CONFIGURE_DEPENDS ${broken_manifest})
file(READ ${broken_manifest} broken_json)
string(JSON broken_cases GET "${broken_json}" cases)
string(JSON broken_count LENGTH "${broken_cases}")
math(EXPR broken_last "${broken_count} - 1")
foreach(index RANGE ${broken_last})
  string(JSON broken_file MEMBER "${broken_cases}" ${index})
  string(JSON broken_message GET "${broken_cases}" "${broken_file}" message)
  string(JSON broken_args ERROR_VARIABLE no_args GET "${broken_cases}" "${broken_file}" args)
  set(validate_args)
  if(NOT no_args)
    string(JSON args_count LENGTH "${broken_args}")
    math(EXPR args_last "${args_count} - 1")
    foreach(arg_index RANGE ${args_last})
      string(JSON arg GET "${broken_args}" ${arg_index})
      list(APPEND validate_args ${arg})
    endforeach()
  endif()
  get_filename_component(stem ${broken_file} NAME_WE)
  if(broken_file STREQUAL ".")
    set(stem directory)
  endif()
  set(broken_path ${test_cases}/broken/${broken_file})
  if(broken_file STREQUAL ".")
    set(broken_path ${test_cases}/broken)
  endif()
  haloflow_cli_test(cli_broken_${stem}
    COMMAND haloflow validate ${broken_path} ${validate_args}
    PASS_REGEX "${broken_message}")
  haloflow_cli_test(cli_broken_${stem}_fails
    COMMAND haloflow validate ${broken_path} ${validate_args}
    WILL_FAIL)
endforeach()

file(GLOB good_cases CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/json/cases/*.json)
foreach(good_case IN LISTS good_cases)
  get_filename_component(stem ${good_case} NAME_WE)
  haloflow_cli_test(cli_validate_${stem}
    COMMAND haloflow validate ${good_case} --ranks 1 --memory-gib 16
    PASS_REGEX "^ok: .*${stem}.json: ")
endforeach()

# Each model case runs a few steps on the host executor, into a fresh run directory.
foreach(model jacobi2d heat3d)
  haloflow_cli_test(cli_run_${model}
    COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/${model}.json --executor auto --steps 5
            --out ${cli_runs}/${model} --force
    TIMEOUT 120 FIXTURES_SETUP cli_run_${model}
    PASS_REGEX "executor auto: (no CUDA device found: host|a CUDA device is present: graph).*progress: steps 5/5, .*result: model=${model}.*wrote .*results.json")
  haloflow_cli_test(cli_run_${model}_results
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_results.py
            ${cli_runs}/${model}/results.json 5
    FIXTURES_REQUIRED cli_run_${model})
endforeach()
# heat3d's frame cuts only the axes whose halos travel: no slab on 1 rank, the x slabs on 2, x
# and y on 4 (the plans as DOT, host executor).
haloflow_cli_test(cli_heat3d_frame_shape
  COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/heat3d_frame_shape.sh ${MPIEXEC_EXECUTABLE}
          ${MPIEXEC_NUMPROC_FLAG} $<TARGET_FILE:haloflow>
          ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json ${cli_runs}/heat3d_frame_shape
  LABELS host mpi TIMEOUT 120)
# --executor all on a model: graph, streams and serial in turn on a GPU machine (each with its
# percentiles and hidden fraction in results.json), the host executor alone without one.
haloflow_cli_test(cli_run_all_jacobi2d
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --executor all --steps 20
          --out ${cli_runs}/all_jacobi2d --force
  TIMEOUT 120 FIXTURES_SETUP cli_run_all_jacobi2d
  PASS_REGEX "executor all: (no CUDA device found: host only|graph, streams and serial in turn).*wrote .*results.json")
haloflow_cli_test(cli_run_all_jacobi2d_results
  COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_results.py
          ${cli_runs}/all_jacobi2d/results.json 20
  FIXTURES_REQUIRED cli_run_all_jacobi2d
  PASS_REGEX "0 failures")
# The seed at test size, with the executor comparison in results.json; a second run into the
# same directory without --force is refused and changes nothing.
haloflow_cli_test(cli_run_seed_dir
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --frames 3 --out
          ${cli_runs}/seed_small --force
  FIXTURES_SETUP cli_run_seed
  PASS_REGEX "progress: frames 4/4.*wrote .*seed_small/results.json")
haloflow_cli_test(cli_run_refuses_existing_dir
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --out ${cli_runs}/seed_small
  FIXTURES_REQUIRED cli_run_seed
  PASS_REGEX "run directory .*seed_small exists; pass --force to replace it")
haloflow_cli_test(cli_run_refuses_existing_dir_fails
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --out ${cli_runs}/seed_small
  WILL_FAIL FIXTURES_REQUIRED cli_run_seed)
foreach(subcommand run validate replay info)
  haloflow_cli_test(cli_help_${subcommand}
    COMMAND haloflow ${subcommand} --help
    PASS_REGEX "Usage:.*${subcommand}")
endforeach()

# The schema and `haloflow validate` agree: every good case (and the run directories' resolved
# cases) passes both, every broken case fails as its manifest entry says. Skipped (77) without
# python3-jsonschema.
if(HALOFLOW_PYTHON3)
  haloflow_cli_test(case_schema
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/validate_schema.py
            ${PROJECT_SOURCE_DIR}/json/schema/case.schema.json ${PROJECT_SOURCE_DIR}/json/cases
            ${broken_manifest} --haloflow $<TARGET_FILE:haloflow> --good
            ${cli_runs}/jacobi2d/case.resolved.json ${cli_runs}/heat3d/case.resolved.json
            ${cli_runs}/seed_small/case.resolved.json
    SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED cli_run_jacobi2d cli_run_heat3d cli_run_seed
    PASS_REGEX "validate_schema: [0-9]+ good, [0-9]+ broken, 0 failures")
endif()

# euler2d in the case files: json/cases/euler2d.json runs a few steps on the host executor into a
# run directory, and its resolved case passes the schema too.
haloflow_cli_test(cli_run_euler2d
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --executor auto --steps 5 --out
          ${cli_runs}/euler2d --force
  TIMEOUT 120 FIXTURES_SETUP cli_run_euler2d
  PASS_REGEX "executor auto: (no CUDA device found: host|a CUDA device is present: graph).*euler2d: case vortex, 64 x 64.*result: model=euler2d.*wrote .*results.json")
if(HALOFLOW_PYTHON3)
  haloflow_cli_test(case_schema_euler2d
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/validate_schema.py
            ${PROJECT_SOURCE_DIR}/json/schema/case.schema.json ${PROJECT_SOURCE_DIR}/json/cases
            ${broken_manifest} --good ${cli_runs}/euler2d/case.resolved.json
    SKIP_RETURN_CODE 77 TIMEOUT 300 FIXTURES_REQUIRED cli_run_euler2d
    PASS_REGEX "validate_schema: [0-9]+ good, [0-9]+ broken, 0 failures")
endif()
# euler2d's case on 4 ranks (a 2 x 2 process grid).
haloflow_cli_test(cli_run_euler2d_4_ranks RANKS 4
  COMMAND $<TARGET_FILE:haloflow> run ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --executor host
          --steps 3 --out ${cli_runs}/euler2d_4_ranks --force
  LABELS host mpi TIMEOUT 120
  PASS_REGEX "4 ranks as 2 x 2.*result: model=euler2d.*ranks=4")

# The exchange section from the command line: --handoff and --transport land in the case the one
# reader reads, and so in case.resolved.json; haloflow_model's flags are read as the model's case
# section, by the same reader (its message names the section's key).
haloflow_cli_test(cli_run_exchange_flags
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --executor host --steps 2
          --handoff host-node --transport mpi --out ${cli_runs}/exchange_flags --force
  TIMEOUT 60 FIXTURES_SETUP cli_exchange_flags)
if(HALOFLOW_PYTHON3)
  haloflow_cli_test(cli_run_exchange_flags_resolved
    COMMAND ${HALOFLOW_PYTHON3} -c
            "import json,sys; e=json.load(open(sys.argv[1]))['exchange']; print(e); sys.exit(e != {'handoff': 'host-node', 'transport': 'mpi'})"
            ${cli_runs}/exchange_flags/case.resolved.json
    FIXTURES_REQUIRED cli_exchange_flags)
endif()
haloflow_cli_test(cli_model_flags_read_by_the_model
  COMMAND haloflow_model jacobi2d --nz 4 --split 3d --executor host
  PASS_REGEX "2 problems:.*/jacobi2d/nz: unknown key.*/jacobi2d/split: \"3d\" is not allowed; expected one of 1d, 2d")

# `haloflow info`: the MPI library (first line of MPI_Get_library_version), the thread level
# MPI_Query_thread reports, and the build's versions (CUDA's or "no device").
haloflow_cli_test(cli_info_versions
  COMMAND haloflow info
  PASS_REGEX "haloflow [0-9]+\\.[0-9]+\\.[0-9]+.*MPI library: [^\n]+\nMPI standard [0-9]+\\.[0-9]+, thread level provided: MPI_THREAD_(SINGLE|FUNNELED|SERIALIZED|MULTIPLE).*build: haloflow [0-9.]+, CUDA runtime ([0-9]+\\.[0-9]+|no device), CUDA driver ([0-9]+\\.[0-9]+|no device), fmt [0-9]+\\.[0-9]+\\.[0-9]+, nlohmann_json [0-9]+\\.[0-9]+\\.[0-9]+")
haloflow_cli_test(cli_info_two_ranks RANKS 2
  COMMAND $<TARGET_FILE:haloflow> info
  LABELS host mpi TIMEOUT 60
  PASS_REGEX "thread level provided: MPI_THREAD_[A-Z]+, 2 rank")

# Integers written as 32.0 are integers (JSON Schema's "integer" says so); 32.5 is refused by name.
haloflow_cli_test(cli_validate_integral_floats
  COMMAND haloflow validate ${test_cases}/jacobi2d_integral_floats.json --ranks 1 --memory-gib 16
  PASS_REGEX "64 x 32")
if(HALOFLOW_PYTHON3)  # the schema agrees (skipped, 77, without python3-jsonschema)
  haloflow_cli_test(cli_validate_integral_floats_schema
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/validate_schema.py
            ${PROJECT_SOURCE_DIR}/json/schema/case.schema.json ${PROJECT_SOURCE_DIR}/json/cases
            ${broken_manifest} --haloflow $<TARGET_FILE:haloflow> --good
            ${test_cases}/jacobi2d_integral_floats.json
    SKIP_RETURN_CODE 77 TIMEOUT 300
    PASS_REGEX "validate_schema: [0-9]+ good, [0-9]+ broken, 0 failures")
endif()
