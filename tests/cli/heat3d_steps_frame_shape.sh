#!/usr/bin/env bash
# heat3d's frame of 3 steps (docs/k-step-frames.md), written as DOT by `haloflow run --dot DIR` on
# the host executor: every sub-step's cells that depend on no travelling ghost (its interior) run
# one after the other from the self copy on (the second after the pack too) and never wait for the
# halos; the rest of each sub-step, in slabs (as many as the one-step frame: the axes with more
# than one rank), after the unpack and after both parts of the sub-step before.
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
  local found edge
  for s in 1 2 3; do
    found=$(grep -cE "^  \"sub-step\.$s\.boundary\.[0-9]+\" \[" <<<"$plan" || true)
    ((found == slabs)) || problems+=("$found boundary slabs in sub-step $s, expected $slabs")
  done
  for edge in '"halo.self" -> "sub-step.1.interior"' \
    '"sub-step.1.interior" -> "sub-step.2.interior"' \
    '"sub-step.2.interior" -> "sub-step.3.interior"'; do
    grep -qF "$edge" <<<"$plan" || problems+=("no edge $edge")
  done
  # The second sub-step writes the set the pack reads (one rank: the self copy is the pack).
  if ((slabs > 0)) && ! grep -qF '"halo.pack" -> "sub-step.2.interior"' <<<"$plan"; then
    problems+=("no edge halo.pack -> sub-step.2.interior")
  fi
  # The interiors never wait for a halo that travels.
  if grep -qE '"(halo\.exchange|halo\.unpack|sub-step\.[0-9]\.boundary\.[0-9]+)" -> "sub-step\.[0-9]\.interior"' <<<"$plan"; then
    problems+=("an interior after the halos")
  fi
  for ((i = 0; i < slabs; ++i)); do
    for edge in "\"halo.unpack\" -> \"sub-step.1.boundary.$i\"" \
      "\"sub-step.1.interior\" -> \"sub-step.2.boundary.$i\"" \
      "\"sub-step.1.boundary.$i\" -> \"sub-step.2.boundary.0\"" \
      "\"sub-step.2.interior\" -> \"sub-step.3.boundary.$i\"" \
      "\"sub-step.2.boundary.$i\" -> \"sub-step.3.boundary.0\""; do
      grep -qF "$edge" <<<"$plan" || problems+=("no edge $edge")
    done
  done
  # Frames of fewer steps, for the steps before an output, a checkpoint or the end.
  for frame in heat3d_even heat3d_odd heat3d_2_steps_even heat3d_2_steps_odd heat3d_3_steps_odd; do
    [[ -f "$dot/$frame.dot" ]] || problems+=("no frame $frame")
  done
  if ((${#problems[@]} > 0)); then
    echo "heat3d_steps_frame_shape: $ranks ranks: ${problems[*]}"
    echo "$plan"
    failures=$((failures + 1))
  else
    echo "heat3d_steps_frame_shape: $ranks ranks: the interiors of sub-steps 1 to 3 in turn" \
      "from halo.self on, never after a halo; $slabs slabs a sub-step after the unpack and the" \
      "sub-step before: ok"
  fi
}
check 1 0
check 2 2
check 4 4
exit $((failures > 0))
