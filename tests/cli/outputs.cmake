# The files a run writes for people and ParaView: VTK, PNG, DOT, results.json and the live
# lines (included by CMakeLists.txt).

# The outputs ParaView and people read. Each run below writes VTK and PNG at step 0,
# every few steps and at the end, and dumps its last field; then python reads them back:
# check_vtk.py with VTK's own readers (every piece alone, the .pvti, the .pvd: extents, origin,
# spacing, point or cell data, time values, array names, values against the dump and against the
# initial state at VTK's coordinates, bytes per value), check_png.py with a PNG decoder of its own
# (pypng or Pillow), check_results.py (results.json holds what the report says). The checks want
# python's vtk and pypng (Debian: python3-vtk9, python3-png); the system's python often has them
# where pyenv's has not, so the first python that imports them runs them (exit 77 without one).
set(output_python ${HALOFLOW_PYTHON3})
foreach(candidate ${HALOFLOW_PYTHON3} /usr/bin/python3)
  execute_process(COMMAND ${candidate} -c "import vtkmodules.vtkIOXML, png"
                  RESULT_VARIABLE output_python_missing OUTPUT_QUIET ERROR_QUIET)
  if(output_python_missing EQUAL 0)
    set(output_python ${candidate})
    break()
  endif()
endforeach()
set(h32 0.03125)
set(j256 0.00392156862745098)  # 1 / 255: jacobi2d's rows and columns at i / (n - 1)
# name|ranks|case file|flags|steps|whole extent|origin|spacing|centring|arrays|check_vtk options|
# check_png options
set(output_runs
    "heat3d|4|json/cases/heat3d.json|--steps 4 --output-every 2|0,2,4|0 32 0 32 0 32|0 0 0|${h32} ${h32} ${h32}|points|u:1|--dump-type float64 --physics heat3d|--field 32 32 --range -1 1 --slice 8"
    "euler2d|4|json/cases/euler2d.json|--steps 3 --output-every 1|0,1,2,3|0 64 0 64 0 0|0 0 0|0.15625 0.15625 1|cells|density:1,velocity:3,pressure:1,mach:1|--dump-type float64 --physics euler2d-vortex|--field 64 64 --range 0.01 10"
    "jacobi2d|2|json/cases/jacobi2d.json|--steps 5|0,5|0 255 0 254 0 0|0 ${j256} 0|${j256} ${j256} 1|points|a:1|--dump-type float32 --physics jacobi2d|--field 256 254 --range -1 1"
    "jacobi2d_split2d|4|tests/cases/jacobi2d_split2d.json||0,5,10|0 39 0 28 0 0|0 0.034482758620689655 0|0.02564102564102564 0.034482758620689655 1|points|a:1|--compression none --dump-type float32 --physics jacobi2d|--field 40 28 --range -1 1"
    "heat3d_vtk_float64_zlib|3|tests/cases/heat3d_vtk_float64_zlib.json||0,3,6|0 12 0 10 0 8|0 0 0|0.083333333333333329 0.1 0.125|points|u:1|--precision float64 --compression zlib --dump-type float64 --physics heat3d|--field 12 10 --range -1 1 --slice 2"
    "euler2d_sod_t_end|2|tests/cases/euler2d_sod_t_end.json||0,10,20,25|0 64 0 4 0 0|0 0 0|0.015625 0.015625 1|cells|density:1,velocity:3,pressure:1,mach:1|--dump-type float64|--field 64 4 --range 0.1 1.01")
foreach(output_run IN LISTS output_runs)
  string(REPLACE "|" ";" output_fields "${output_run}")
  list(GET output_fields 0 output_name)
  list(GET output_fields 1 output_ranks)
  list(GET output_fields 2 output_case)
  list(GET output_fields 3 output_flags)
  list(GET output_fields 4 output_steps)
  list(GET output_fields 5 output_whole)
  list(GET output_fields 6 output_origin)
  list(GET output_fields 7 output_spacing)
  list(GET output_fields 8 output_centring)
  list(GET output_fields 9 output_arrays)
  list(GET output_fields 10 output_vtk_options)
  list(GET output_fields 11 output_png_options)
  set(output_dir ${cli_runs}/outputs_${output_name})
  haloflow_cli_test(cli_outputs_${output_name}_run
    COMMAND sh -c
            "rm -rf '${output_dir}' '${output_dir}.raw' && '${MPIEXEC_EXECUTABLE}' ${MPIEXEC_NUMPROC_FLAG} ${output_ranks} '$<TARGET_FILE:haloflow>' run '${PROJECT_SOURCE_DIR}/${output_case}' --executor host --vtk --png ${output_flags} --out '${output_dir}' --dump '${output_dir}.raw'"
    LABELS host mpi TIMEOUT 120 FIXTURES_SETUP cli_outputs_${output_name}
    PASS_REGEX "wrote [0-9]+ files \\([^)]+ in all\\):.*${output_name}.pvd.*results.json")
  separate_arguments(output_vtk_args UNIX_COMMAND "${output_vtk_options}")
  separate_arguments(output_png_args UNIX_COMMAND "${output_png_options}")
  haloflow_cli_test(cli_outputs_${output_name}_vtk
    COMMAND ${output_python} ${CMAKE_CURRENT_SOURCE_DIR}/check_vtk.py ${output_dir} ${output_name}
            --steps ${output_steps} --ranks ${output_ranks} --whole "${output_whole}" --origin
            "${output_origin}" --spacing "${output_spacing}" --centring ${output_centring} --arrays
            ${output_arrays} --dump ${output_dir}.raw ${output_vtk_args}
    TIMEOUT 120 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED cli_outputs_${output_name}
    PASS_REGEX "check_vtk: [0-9]+ steps, ${output_ranks} pieces each, .* 0 failures")
  haloflow_cli_test(cli_outputs_${output_name}_png
    COMMAND ${output_python} ${CMAKE_CURRENT_SOURCE_DIR}/check_png.py ${output_dir} --steps
            ${output_steps} ${output_png_args}
    TIMEOUT 120 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED cli_outputs_${output_name}
    PASS_REGEX "check_png: [0-9]+ pictures of .* 0 failures")
endforeach()
# results.json of those runs holds what their reports say (the t_end run's step percentiles mix
# its no-op steps with the mean of the steps taken, so its timing is not checked here).
foreach(output_run heat3d:4 euler2d:3 jacobi2d:5 jacobi2d_split2d:10 heat3d_vtk_float64_zlib:6)
  string(REPLACE ":" ";" output_pair "${output_run}")
  list(GET output_pair 0 output_name)
  list(GET output_pair 1 output_steps)
  haloflow_cli_test(cli_outputs_${output_name}_results
    COMMAND ${HALOFLOW_PYTHON3} ${CMAKE_CURRENT_SOURCE_DIR}/check_results.py
            ${cli_runs}/outputs_${output_name}/results.json ${output_steps}
    FIXTURES_REQUIRED cli_outputs_${output_name}
    PASS_REGEX "0 failures")
endforeach()

# The header and the per-step lines print as the run goes: jacobi2d's norms before the progress
# line that follows them, heat3d's errors at its outputs, euler2d's clock every progress interval.
# (A GPU machine prints its device line first.) jacobi2d's two-step frames pass 10 at 11.
haloflow_cli_test(cli_outputs_live_jacobi2d
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --executor host --steps 41
          --out ${cli_runs}/live_jacobi2d --force
  TIMEOUT 60
  PASS_REGEX "(^|\n)jacobi2d: 256 x 256 [^\n]*norm every 20[^\n]*\nstep     0: L2 norm[^\n]*\nprogress: steps 1[01]/41.*step    20: L2 norm[^\n]*\nprogress: steps 3[01]/41.*step    40: L2 norm[^\n]*\nprogress: steps 41/41[^\n]*\ntime per step")
haloflow_cli_test(cli_outputs_live_heat3d
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/heat3d.json --executor host --steps 10
          --output-every 5 --out ${cli_runs}/live_heat3d --force
  TIMEOUT 60
  PASS_REGEX "(^|\n)heat3d: 32 x 32 x 32 [^\n]*\nstep     0: t = 0.000000e\\+00, max error 0[^\n]*\n.*step     5: t = [^\n]*max error [1-9][^\n]*\n.*step    10: t = .*\nt = ")
haloflow_cli_test(cli_outputs_live_euler2d
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/euler2d.json --executor host --steps 20
          --out ${cli_runs}/live_euler2d --force
  TIMEOUT 60
  PASS_REGEX "(^|\n)euler2d: case vortex[^\n]*\nstep    10: t = [0-9.]+, dt = [^\n]*\n.*step    20: t = [0-9.]+, dt = .*\nt = [0-9.]+ after 20 steps")

# A GPU run's field outputs are the host executor's, byte for byte (the graph and host executors
# agree bitwise on every model): the device-to-host path of the outputs, on 2 ranks (skipped
# without a GPU).
foreach(match_case IN ITEMS jacobi2d heat3d euler2d)
  haloflow_cli_test(cli_outputs_graph_matches_host_${match_case}
    COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/outputs_match_host.sh
            ${cli_runs}/outputs_match_${match_case} ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2
            $<TARGET_FILE:haloflow> ${PROJECT_SOURCE_DIR}/json/cases/${match_case}.json graph
            --steps 20 --output-every 10
    LABELS gpu mpi TIMEOUT 120
    PASS_REGEX "files compared, 0 differ")
endforeach()

# --vtk, --png, --output-every and --dump on the seed, which writes no field: refused, naming
# them, before anything is written. --dot and --json apply to every case: a model's frames as
# DOT, a file per frame (jacobi2d's six: one step, with the norm, two steps, each for both field
# sets), and its results.
haloflow_cli_test(cli_outputs_seed_refuses_field_flags
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --vtk --dump x.raw --out
          ${cli_runs}/seed_refused --force
  PASS_REGEX "haloflow: --vtk and --dump: apply only to the models that step in time \\(jacobi2d, heat3d and euler2d\\); the seed model measures frames and writes no fields")
haloflow_cli_test(cli_outputs_seed_refuses_field_flags_fails
  COMMAND haloflow run ${test_cases}/seed_small.json --executor host --png --out
          ${cli_runs}/seed_refused --force
  WILL_FAIL)
haloflow_cli_test(cli_outputs_model_dot_json
  COMMAND haloflow run ${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json --executor host --steps 3
          --out ${cli_runs}/dot_json --dot ${cli_runs}/dot_json_frames --json
          ${cli_runs}/dot_json.json --force
  TIMEOUT 60 FIXTURES_SETUP cli_outputs_dot_json
  PASS_REGEX "wrote [0-9]+ files.*dot_json_frames/jacobi2d_even.dot +[0-9.]+ [KM]?i?B\n.*dot_json.json +[0-9.]+ [KM]?i?B\n")
if(HALOFLOW_PYTHON3)
  haloflow_cli_test(cli_outputs_model_dot_json_read_back
    COMMAND ${HALOFLOW_PYTHON3} -c
            "import json,os,sys; d=[open(os.path.join(sys.argv[1],f)).read() for f in os.listdir(sys.argv[1])]; r=json.load(open(sys.argv[2])); n=[t.count('digraph') for t in d]; print(n, r['format_version']); sys.exit(n != [1] * 6 or r['model']['result']['steps'] != 3)"
            ${cli_runs}/dot_json_frames ${cli_runs}/dot_json.json
    FIXTURES_REQUIRED cli_outputs_dot_json)
endif()
haloflow_cli_test(cli_version
  COMMAND haloflow --version
  PASS_REGEX "^haloflow [0-9]+\\.[0-9]+\\.[0-9]+\n$")

# A field larger than 1024 cells along an axis is drawn at most 1024 pixels wide.
haloflow_cli_test(cli_png_wide_run
  COMMAND sh -c
          "rm -rf '${cli_runs}/png_wide' && '$<TARGET_FILE:haloflow>' run '${test_cases}/jacobi2d_wide.json' --executor host --out '${cli_runs}/png_wide'"
  TIMEOUT 120 FIXTURES_SETUP cli_png_wide
  PASS_REGEX "result: model=jacobi2d")
haloflow_cli_test(cli_png_wide_read_back
  COMMAND ${output_python} ${CMAKE_CURRENT_SOURCE_DIR}/check_png.py ${cli_runs}/png_wide --steps 0,3
          --field 2100 38 --range -1 1
  TIMEOUT 120 SKIP_RETURN_CODE 77 FIXTURES_REQUIRED cli_png_wide
  PASS_REGEX "check_png: [0-9]+ pictures of .* 0 failures")

# A machine where fontconfig finds no font: the run says so once and writes its pictures anyway,
# without text.
haloflow_cli_test(cli_png_without_font
  COMMAND sh -c
          "rm -rf '${cli_runs}/png_no_font' && '$<TARGET_FILE:haloflow>' run '${PROJECT_SOURCE_DIR}/json/cases/jacobi2d.json' --executor host --steps 2 --png --out '${cli_runs}/png_no_font'"
  ENVIRONMENT FONTCONFIG_FILE=${CMAKE_CURRENT_SOURCE_DIR}/no_fonts.conf
  TIMEOUT 120
  PASS_REGEX "no font found through fontconfig .*: the pictures are written without text.*png/jacobi2d_000002.png"
  FAIL_REGEX "without text.*without text")
