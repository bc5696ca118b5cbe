#!/usr/bin/env bash
# heat3d's frame follows the halos that travel (docs/models.md, heat3d "Frame"): its plan, written
# as DOT by `haloflow run --dot DIR` on the host executor (a file per frame), must have exactly the boundary slabs of the
# axes with more than one rank, the interior after the self copy, and the slabs after the unpack.
#   heat3d_frame_shape.sh MPIEXEC NUMPROC_FLAG HALOFLOW CASE WORK_DIR
# Ranks 1 (1x1x1: no slab), 2 (2x1x1: the two x slabs), 4 (2x2x1: x and y, four slabs).
set -euo pipefail
mpiexec=$1 numproc_flag=$2 haloflow=$3 case_file=$4 work=$5
mkdir -p "$work"
failures=0
check() {
  local ranks=$1 slabs=$2 dot="$work/frames_$1"
  "$mpiexec" "$numproc_flag" "$ranks" "$haloflow" run "$case_file" --executor host --steps 2 \
    --out "$work/run_$ranks" --dot "$dot" --force >"$work/log_$ranks.txt" 2>&1 || {
    cat "$work/log_$ranks.txt"
    echo "heat3d_frame_shape: the run on $ranks ranks failed"
    failures=$((failures + 1))
    return
  }
  # The even frame's plan.
  local plan
  plan=$(cat "$dot/heat3d_even.dot")
  local found
  found=$(grep -cE '^  "boundary\.[0-9]+" \[' <<<"$plan" || true)
  local problems=()
  ((found == slabs)) || problems+=("$found boundary slabs, expected $slabs")
  grep -q '"halo.self" -> "interior"' <<<"$plan" || problems+=("no edge halo.self -> interior")
  for ((s = 0; s < slabs; ++s)); do
    grep -q "\"halo.unpack\" -> \"boundary.$s\"" <<<"$plan" ||
      problems+=("no edge halo.unpack -> boundary.$s")
  done
  if ((${#problems[@]} > 0)); then
    echo "heat3d_frame_shape: $ranks ranks: ${problems[*]}"
    echo "$plan"
    failures=$((failures + 1))
  else
    echo "heat3d_frame_shape: $ranks ranks: $slabs boundary slabs, interior after halo.self: ok"
  fi
}
check 1 0
check 2 2
check 4 4
exit $((failures > 0))
