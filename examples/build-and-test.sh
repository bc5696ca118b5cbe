#!/usr/bin/env bash
# Builds one of these examples against an installed haloflow and runs its tests (the host
# executor under mpiexec; the GPU ones skip without a GPU), as a team's CI would:
#   build-and-test.sh PREFIX EXAMPLE_DIR BUILD_DIR [more cmake arguments]
# PREFIX is where haloflow is installed (/usr for the .deb). haloflow's CI runs this too.
set -euo pipefail
prefix=$1
example=$2
build=$3
shift 3
# snippet-begin: build
cmake -S "$example" -B "$build" -DCMAKE_PREFIX_PATH="$prefix" -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build "$build"
ctest --test-dir "$build" --output-on-failure
# snippet-end: build
