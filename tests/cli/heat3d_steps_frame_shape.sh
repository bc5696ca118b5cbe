#!/usr/bin/env bash
# heat3d's frame of 3 steps (docs/k-step-frames.md), written as DOT by `haloflow run --dot DIR` on
# the host executor: the first sub-step's cells that read no travelling ghost after the self copy,
# the rest of it in slabs after the unpack (as many as the one-step frame: the axes with more than
# one rank), then sub-step 2 after all of sub-step 1, and sub-step 3 after sub-step 2.
#   heat3d_steps_frame_shape.sh MPIEXEC NUMPROC_FLAG HALOFLOW CASE WORK_DIR
# Ranks 1 (1x1x1: no slab), 2 (2x1x1: two), 4 (2x2x1: four).
set -euo pipefail
mpiexec=$1 numproc_flag=$2 haloflow=$3 case_file=$4 work=$5
mkdir -p "$work"
failures=0
check() {
  local ranks=$1 slabs=$2 dot="$work/frames_$1"
  "$mpiexec" "$numproc_flag" "$ranks" "$haloflow" run "$case_file" --executor host --steps 6 \
    --set heat3d.steps_per_frame=3 --out "$work/run_$ranks" --dot "$dot" --force \
    >"$work/log_$ranks.txt" 2>&1 || {
    cat "$work/log_$ranks.txt"
    echo "heat3d_steps_frame_shape: the run on $ranks ranks failed"
    failures=$((failures + 1))
    return
  }
  local plan
  plan=$(cat "$dot/heat3d_3_steps_even.dot")
  local problems=()
  local found
  found=$(grep -cE '^  "sub-step\.1\.boundary\.[0-9]+" \[' <<<"$plan" || true)
  ((found == slabs)) || problems+=("$found boundary slabs, expected $slabs")
  grep -q '"halo.self" -> "sub-step.1.interior"' <<<"$plan" ||
    problems+=("no edge halo.self -> sub-step.1.interior")
  grep -q '"sub-step.1.interior" -> "sub-step.2"' <<<"$plan" ||
    problems+=("no edge sub-step.1.interior -> sub-step.2")
  for ((s = 0; s < slabs; ++s)); do
    grep -q "\"halo.unpack\" -> \"sub-step.1.boundary.$s\"" <<<"$plan" ||
      problems+=("no edge halo.unpack -> sub-step.1.boundary.$s")
    grep -q "\"sub-step.1.boundary.$s\" -> \"sub-step.2\"" <<<"$plan" ||
      problems+=("no edge sub-step.1.boundary.$s -> sub-step.2")
  done
  grep -q '"sub-step.2" -> "sub-step.3"' <<<"$plan" || problems+=("no edge sub-step.2 -> sub-step.3")
  # Frames of fewer steps, for the steps before an output, a checkpoint or the end.
  for frame in heat3d_even heat3d_odd heat3d_2_steps_even heat3d_2_steps_odd heat3d_3_steps_odd; do
    [[ -f "$dot/$frame.dot" ]] || problems+=("no frame $frame")
  done
  if ((${#problems[@]} > 0)); then
    echo "heat3d_steps_frame_shape: $ranks ranks: ${problems[*]}"
    echo "$plan"
    failures=$((failures + 1))
  else
    echo "heat3d_steps_frame_shape: $ranks ranks: $slabs slabs in sub-step 1, its interior after" \
      "halo.self, sub-steps 2 and 3 in turn: ok"
  fi
}
check 1 0
check 2 2
check 4 4
exit $((failures > 0))
