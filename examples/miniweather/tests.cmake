# miniWeather's own correctness checks, on the host executor under mpiexec (any CI machine), at
# its test size: 100 x 50 cells to t = 400 s. Each case runs on 1, 2, 3 and 4 ranks; every run
# must pass its checks, and all four must give the same bits (same_bits.cmake).
set(mw_size --nx 100 --nz 50 --sim-time 400 --out-freq 400)

# thermal: miniWeather's criteria (mass to round-off; total energy lost, but less than 4.5e-5).
# collision, gravity_waves, density_current: mass to round-off too (the walls and the periodic x
# let nothing in or out). injection: its inflow adds mass, so d_mass must be positive.
# And every case's d_te (injection's d_mass too) within 1e-4 (relative) of what miniWeather's own
# C code gives at this size (c/miniWeather_mpi.cpp, 1 rank; README.md).
set(mw_checks_thermal --check-mass 1e-13 --check-energy 4.5e-5 --expect-energy -4.141519e-05)
set(mw_checks_collision --check-mass 1e-13 --expect-energy -1.162820e-04)
set(mw_checks_gravity_waves --check-mass 1e-13 --expect-energy -1.031550e-07)
set(mw_checks_density_current --check-mass 1e-13 --expect-energy 9.364701e-04)
set(mw_checks_injection --check-mass-gain --expect-mass 7.394230e-02 --expect-energy 1.033370e-01)
foreach(case thermal collision gravity_waves density_current injection)
  string(REPLACE ";" "$<SEMICOLON>" arguments
         "${mw_size};--data-spec;${case};--executor;host;${mw_checks_${case}}")
  add_test(NAME miniweather_${case}
           COMMAND ${CMAKE_COMMAND} -DMPIEXEC=${MPIEXEC_EXECUTABLE} -DNP=${MPIEXEC_NUMPROC_FLAG}
                   -DEXE=$<TARGET_FILE:miniweather> "-DRANKS=1$<SEMICOLON>2$<SEMICOLON>3$<SEMICOLON>4"
                   "-DARGS=${arguments}" -P ${CMAKE_CURRENT_SOURCE_DIR}/same_bits.cmake)
  set_tests_properties(miniweather_${case} PROPERTIES LABELS host TIMEOUT 300
                       PASS_REGULAR_EXPRESSION "the same bits on ranks 1 2 3 4")
endforeach()

# The graph executor against the host executor; skipped (exit 77) without a GPU. pow and the
# divisions round differently on the two, so they are compared with a tolerance.
add_test(NAME miniweather_gpu_vs_host
         COMMAND ${MPIEXEC_EXECUTABLE} ${MPIEXEC_NUMPROC_FLAG} 2 $<TARGET_FILE:miniweather>
                 ${mw_size} --data-spec thermal --executor host,graph
                 --check-mass 1e-13 --check-energy 4.5e-5)
set_tests_properties(miniweather_gpu_vs_host PROPERTIES SKIP_RETURN_CODE 77 TIMEOUT 120
                     FAIL_REGULAR_EXPRESSION "FAILED")
