#!/usr/bin/env bash
# Frames of k steps give the bits of one step a frame: runs one case with steps_per_frame 1 to 4
# and auto (whatever k it measures fastest, the same on every rank; the header must say it) on 1,
# 2, 3 and 4 ranks (the process grids 1 x 1 x 1, 2 x 1 x 1, 3 x 1 x 1: split along one
# axis; 2 x 2 x 1: along two) and requires every dumped global field to be bitwise identical to
# the one of 1 step a frame on 1 rank. FRAME_SETTING and FRAME_VALUES name another setting and
# its values, the first the reference (euler2d: euler2d.exchange_every, "stage step").
#   compare_frame_steps.sh WORKDIR MPIEXEC NUMPROC_FLAG PROGRAM MODEL [model options...]
# Exit: 0 all identical, 1 a difference or a failed run, 77 the program skipped (no GPU).
set -uo pipefail
work=$1 mpiexec=$2 numproc_flag=$3 program=$4
shift 4
model=$1
setting=${FRAME_SETTING:-$model.steps_per_frame}
read -r -a values <<<"${FRAME_VALUES:-1 2 3 4 auto}"
mkdir -p "$work"
rm -f "$work/$model"-k*.raw "$work/$model"-k*.log

reference=""
failed=0
for ranks in 1 2 3 4; do
  for value in "${values[@]}"; do
    name="$model-k$value-$ranks"
    "$mpiexec" "$numproc_flag" "$ranks" "$program" "$@" \
      --set "$setting=$value" --dump "$work/$name.raw" >"$work/$name.log" 2>&1
    status=$?
    if ((status == 77)); then
      cat "$work/$name.log"
      exit 77
    fi
    if ((status != 0)); then
      echo "FAILED: $setting=$value on $ranks ranks exited with $status:"
      cat "$work/$name.log"
      exit 1
    fi
    if [[ $value == auto ]] && ! grep -q "auto: " "$work/$name.log"; then
      echo "FAILED: $setting=auto on $ranks ranks: the header does not say what auto chose and why:"
      cat "$work/$name.log"
      exit 1
    fi
    grid=$(grep -m1 -oE "[0-9]+ ranks? as [0-9]+( x [0-9]+)+|1 rank" "$work/$name.log")
    if [[ -z $reference ]]; then
      reference="$work/$name.raw"
      echo "  $setting=$value on $grid: the reference"
    elif cmp "$reference" "$work/$name.raw"; then
      chosen=""
      [[ $value == auto ]] &&
        chosen=" ($(grep -m1 -oE "(steps? a frame|one exchange a [a-z]+)[^;]*; auto: [^;)]*|[0-9]+ steps? a frame[^(]*\(auto: [^;)]*" "$work/$name.log"))"
      echo "  $setting=$value on $grid: bitwise identical$chosen"
    else
      echo "  FAILED: $setting=$value on $grid differs from $setting=${values[0]} on 1 rank"
      failed=1
    fi
  done
done
exit $failed
