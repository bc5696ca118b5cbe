#!/usr/bin/env bash
# Frames of k steps give the bits of one step a frame: runs one case with steps_per_frame 1 to 4
# and auto (whatever k it measures fastest, the same on every rank, said in the header) on 1, 2, 3
# and 4 ranks (the process grids 1 x 1 x 1, 2 x 1 x 1, 3 x 1 x 1: split along one
# axis; 2 x 2 x 1: along two) and requires every dumped global field to be bitwise identical to
# the one of 1 step a frame on 1 rank.
#   compare_frame_steps.sh WORKDIR MPIEXEC NUMPROC_FLAG PROGRAM MODEL [model options...]
# Exit: 0 all identical, 1 a difference or a failed run, 77 the program skipped (no GPU).
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 program=$4
shift 4
model=$1
mkdir -p "$work"
rm -f "$work/$model"-k*.raw "$work/$model"-k*.log

reference=""
failed=0
for ranks in 1 2 3 4; do
  for steps_per_frame in 1 2 3 4 auto; do
    name="$model-k$steps_per_frame-$ranks"
    "$mpiexec" "$numproc_flag" "$ranks" "$program" "$@" \
      --set "$model.steps_per_frame=$steps_per_frame" --dump "$work/$name.raw" \
      >"$work/$name.log" 2>&1
    status=$?
    if ((status == 77)); then
      cat "$work/$name.log"
      exit 77
    fi
    if ((status != 0)); then
      echo "FAILED: k = $steps_per_frame on $ranks ranks exited with $status:"
      cat "$work/$name.log"
      exit 1
    fi
    if [[ $steps_per_frame == auto ]] && ! grep -q "(auto: " "$work/$name.log"; then
      echo "FAILED: k = auto on $ranks ranks: the header does not say what auto chose and why:"
      cat "$work/$name.log"
      exit 1
    fi
    grid=$(grep -m1 -oE "[0-9]+ ranks? as [0-9]+ x [0-9]+ x [0-9]+|1 rank" "$work/$name.log")
    if [[ -z $reference ]]; then
      reference="$work/$name.raw"
      echo "  k = 1 on $grid: the reference"
    elif cmp "$reference" "$work/$name.raw"; then
      chosen=""
      [[ $steps_per_frame == auto ]] &&
        chosen=" ($(grep -m1 -oE "[0-9]+ steps? a frame[^(]*\(auto: [^;]*" "$work/$name.log"))"
      echo "  k = $steps_per_frame on $grid: bitwise identical$chosen"
    else
      echo "  FAILED: k = $steps_per_frame on $grid differs from k = 1 on 1 rank"
      failed=1
    fi
  done
done
exit $failed
