#!/bin/sh
# Copies a run directory's checkpoints, damages one file, and restarts from the copy.
# usage: checkpoint_damage.sh MODE SOURCE_RUN_DIR WORK_DIR COMMAND...
#   MODE: truncate (the last 7 bytes of rank 0's file cut off), truncate_header (rank 0's file cut
#   to 20 bytes), flip (one payload byte of rank 1's file inverted), flip_header (a bit of the rank
#   count in rank 0's header flipped), fifo (rank 0's file replaced by a FIFO nobody writes),
#   device (rank 0's file replaced by a link to /dev/zero), none (as written: the command itself
#   is the mismatch, another case or another rank count), missing (rank 1's file deleted),
#   no_marker (the newest checkpoint's marker deleted), no_markers (every marker deleted). The
#   newest checkpoint is damaged. With COPY_CASE=1 the run directory's case.resolved.json is
#   copied too.
# COMMAND gets "--restart WORK_DIR" appended; its output is shown, then "exit=STATUS".
mode=$1
source=$2
work=$3
shift 3
rm -rf "$work" && mkdir -p "$work" && cp -r "$source/checkpoints" "$work/" || exit 2
if [ "${COPY_CASE:-0}" = 1 ]; then cp "$source/case.resolved.json" "$work/" || exit 2; fi
rank0=$(ls "$work"/checkpoints/*_r0000.ckpt | tail -n 1)
rank1=$(ls "$work"/checkpoints/*_r0001.ckpt | tail -n 1)
case $mode in
  truncate)
    size=$(wc -c < "$rank0")
    head -c $((size - 7)) "$rank0" > "$rank0.cut" && mv "$rank0.cut" "$rank0" ;;
  truncate_header)
    head -c 20 "$rank0" > "$rank0.cut" && mv "$rank0.cut" "$rank0" ;;
  flip)
    # The byte 100 from the end (inside the payload), inverted.
    size=$(wc -c < "$rank1")
    at=$((size - 100))
    byte=$(od -An -tu1 -j "$at" -N1 "$rank1" | tr -d ' ')
    printf "$(printf '\\%03o' $((255 - byte)))" |
      dd of="$rank1" bs=1 seek="$at" conv=notrunc 2>/dev/null ;;
  flip_header)
    # The rank count (a 4-byte field at offset 16): 2 becomes 3.
    byte=$(od -An -tu1 -j 16 -N1 "$rank0" | tr -d ' ')
    printf "$(printf '\\%03o' $((byte ^ 1)))" |
      dd of="$rank0" bs=1 seek=16 conv=notrunc 2>/dev/null ;;
  fifo)
    rm -f "$rank0" && mkfifo "$rank0" ;;
  device)
    rm -f "$rank0" && ln -s /dev/zero "$rank0" ;;
  missing)
    rm -f "$rank1" ;;
  no_marker)
    rm -f "$(ls "$work"/checkpoints/*.complete | tail -n 1)" ;;
  no_markers)
    rm -f "$work"/checkpoints/*.complete ;;
  none) ;;
  *) echo "unknown mode $mode"; exit 2 ;;
esac
"$@" --restart "$work"
echo "exit=$?"
