#!/usr/bin/env bash
# A model's plans say what every node reads and writes, fully: the edges those accesses imply
# alone (HALOFLOW_EDGES=accesses) are the graphs the model writes by hand and checks in strict
# mode, DOT for DOT, on 1, 2 and 4 ranks; and a strict run passes.
#   plan_edges.sh WORKDIR MPIEXEC NUMPROC_FLAG HALOFLOW CASE [run options...]
# (PLAN_EDGES_RANKS: the rank counts, default "1 2 4".)
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 haloflow=$4 case=$5
shift 5
rm -rf "$work"
mkdir -p "$work"
failed=0
for ranks in ${PLAN_EDGES_RANKS:-1 2 4}; do
  for rule in strict accesses; do
    out="$work/$ranks-$rule"
    if ! HALOFLOW_EDGES=$rule "$mpiexec" "$numproc_flag" "$ranks" "$haloflow" run "$case" "$@" \
        --executor host --out "$out" --dot "$out.dot" >"$out.log" 2>&1; then
      echo "FAILED: $ranks ranks, HALOFLOW_EDGES=$rule:"
      cat "$out.log"
      failed=1
    fi
  done
  if ! ls "$work/$ranks-strict.dot"/*.dot >/dev/null 2>&1; then
    echo "FAILED: no DOT files in $work/$ranks-strict.dot"
    failed=1
  elif diff -r "$work/$ranks-strict.dot" "$work/$ranks-accesses.dot"; then
    echo "same graphs on $ranks ranks: $(ls "$work/$ranks-strict.dot" | tr '\n' ' ')"
  else
    echo "DIFFERENT: the accesses' edges differ from the hand-written ones on $ranks ranks"
    failed=1
  fi
done
exit $failed
