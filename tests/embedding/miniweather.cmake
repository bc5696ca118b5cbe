# miniWeather on haloflow (examples/miniweather), as an outside project builds and tests
# it against the installed package: the same script and arguments as the advection example
# (CMakeLists.txt above). Its own ctest runs miniWeather's checks for the five cases on the host
# executor, each on 1, 2, 3 and 4 ranks with the same bits, and the GPU against the host where a
# GPU exists.
set(miniweather_consumer ${CMAKE_CURRENT_BINARY_DIR}/miniweather)
add_test(NAME embedding_miniweather
         COMMAND ${fresh} ${miniweather_consumer} ${installed_examples}/build-and-test.sh
                 ${installed} ${installed_examples}/miniweather ${miniweather_consumer}
                 ${example_arguments})
set_tests_properties(embedding_miniweather PROPERTIES LABELS "host;mpi" TIMEOUT 900
  ENVIRONMENT "CMAKE_PREFIX_PATH=${dependency_prefixes}"
  FIXTURES_REQUIRED embedding_installed
  PASS_REGULAR_EXPRESSION "miniweather_thermal [.]+ +Passed.*miniweather_injection [.]+ +Passed.*100% tests passed")
