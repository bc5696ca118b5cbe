# The models' numerics end to end (included by CMakeLists.txt; the unit side is
# tests/unit/test_numerics.cpp).
set(numerics_script ${CMAKE_CURRENT_SOURCE_DIR}/numerics.sh)
set(numerics_cases ${PROJECT_SOURCE_DIR}/tests/cases/numerics)
set(numerics_runs ${CMAKE_CURRENT_BINARY_DIR}/numerics)
file(MAKE_DIRECTORY ${numerics_runs})

# The schema says what Sod's ends are: zero-gradient, not walls.
add_test(NAME numerics_schema_sod_ends
         COMMAND python3 -c
                 "import json,sys; d=json.load(open(sys.argv[1]))['$defs']['euler2d']['properties']['case']['description']; print(d); sys.exit(0 if 'zero-gradient' in d and 'wall' not in d else 1)"
                 ${PROJECT_SOURCE_DIR}/json/schema/case.schema.json)
set_tests_properties(numerics_schema_sod_ends PROPERTIES LABELS host TIMEOUT 30)
