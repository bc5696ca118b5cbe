#!/usr/bin/env bash
# heat3d's frame of 3 steps (docs/k-step-frames.md), written as DOT by `haloflow run --dot DIR` on
# the host executor: one deep pass of the 3 steps (kernel "heat deep 3"), its cells that depend on
# no travelling ghost (the interior, 3 cells inside along the axes whose halos travel) in the bulk
# lane from the self copy on, never waiting for the halos; the rest in slabs (as many as the
# one-step frame: the axes with more than one rank), after the unpack.
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
  # One deep pass of 3 steps, cut in two: the interior from the self copy on, the slabs after the
  # unpack.
  found=$(grep -cE '^  "(interior|boundary\.[0-9]+)" \[.*kernel heat deep 3' <<<"$plan" || true)
  ((found == slabs + 1)) || problems+=("$found deep passes of 3 steps, expected $((slabs + 1))")
  found=$(grep -cE '^  "boundary\.[0-9]+" \[' <<<"$plan" || true)
  ((found == slabs)) || problems+=("$found boundary slabs, expected $slabs")
  grep -qF '"halo.self" -> "interior"' <<<"$plan" || problems+=("no edge halo.self -> interior")
  grep -qE '^  "interior" \[.*\(bulk\)' <<<"$plan" || problems+=("the interior not in the bulk lane")
  # The interior never waits for a halo that travels.
  if grep -qE '"(halo\.exchange|halo\.unpack|halo\.pack|boundary\.[0-9]+)" -> "interior"' <<<"$plan"; then
    problems+=("the interior after the halos")
  fi
  for ((i = 0; i < slabs; ++i)); do
    edge="\"halo.unpack\" -> \"boundary.$i\""
    grep -qF "$edge" <<<"$plan" || problems+=("no edge $edge")
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
    echo "heat3d_steps_frame_shape: $ranks ranks: one deep pass of 3 steps, its interior from" \
      "halo.self on in the bulk lane, never after a halo; $slabs slabs after the unpack: ok"
  fi
}
check 1 0
check 2 2
check 4 4
exit $((failures > 0))
