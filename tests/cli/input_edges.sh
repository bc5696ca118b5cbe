#!/usr/bin/env bash
# Checks of bad input that a regular expression on the output cannot make: how often a message
# appears (once: rank 0 only), the exit status, bytes that must never reach the terminal raw.
# Prints "input_edges: ok" when every check holds, "input_edges: FAIL: ..." otherwise.
# usage:
#   input_edges.sh once STATUS REGEX FORBIDDEN COMMAND...
#       COMMAND exits with STATUS, prints a line matching REGEX exactly once and nothing matching
#       FORBIDDEN (extended regular expressions).
#   input_edges.sh many_keys HALOFLOW WORK_DIR
#       a case with 40000 unknown keys: refused in a message of a few kilobytes.
#   input_edges.sh escapes HALOFLOW WORK_DIR
#       a case file whose path and values hold right-to-left overrides, isolates, marks and
#       escape codes: every message shows them escaped.
#   input_edges.sh memory HALOFLOW CASE
#       a case that needs more memory per rank than this machine gives 4096 ranks sharing it is
#       refused by validate without --memory-gib (skipped, 77, on a machine with a GPU, whose
#       budget is the device's).
set -u
fail() {
  echo "input_edges: FAIL: $*"
  exit 1
}
mode=$1
shift
case $mode in
  once)
    status=$1 regex=$2 forbidden=$3
    shift 3
    output=$("$@" 2>&1)
    got=$?
    printf '%s\n' "$output"
    [ "$got" = "$status" ] || fail "exit status $got, expected $status"
    count=$(printf '%s\n' "$output" | grep -cE -- "$regex")
    [ "$count" = 1 ] || fail "$count lines match '$regex', expected 1"
    if printf '%s\n' "$output" | grep -qE -- "$forbidden"; then
      fail "the output matches '$forbidden'"
    fi ;;
  many_keys)
    haloflow=$1 work=$2
    mkdir -p "$work" || exit 2
    case_file=$work/many_keys.json
    { printf '{"model": "heat3d", "run": {'
      for ((i = 0; i < 40000; ++i)); do printf '"k%d": 0, ' "$i"; done
      printf '"steps": 1}}\n'; } > "$case_file"
    output=$("$haloflow" validate "$case_file" 2>&1)
    got=$?
    printf '%s\n' "$output" | head -c 3000
    echo
    [ "$got" = 1 ] || fail "exit status $got, expected 1"
    bytes=$(printf '%s' "$output" | wc -c)
    [ "$bytes" -lt 10000 ] || fail "the message holds $bytes bytes"
    printf '%s\n' "$output" | grep -q "40000 problems:" || fail "no count of 40000 problems"
    printf '%s\n' "$output" | grep -q '^  \.\.\. and 39980 more problems$' ||
      fail "no '... and 39980 more problems'" ;;
  escapes)
    haloflow=$1 work=$2
    rle=$'\u202e' lri=$'\u2066' lrm=$'\u200e' alm=$'\u061c' esc=$'\x1b'
    dir="$work/dir${rle}gpj.${lri}x${esc}[31m"
    rm -rf "$work" && mkdir -p "$dir" || exit 2
    bad="$dir/case${alm}${lrm}.json"
    printf '{"model": "heat3d", "heat3d": {"precision": "float\\u202e\\u2067\\u001b[2J\\u009b"}, "run": {"executor": "host\\u200f", "k\\u202ey": 1}}\n' > "$bad"
    good="$dir/good${rle}.json"
    printf '{"model": "heat3d", "heat3d": {"nx": 8}}\n' > "$good"
    missing="$dir/missing${rle}.json"
    output=$({ "$haloflow" validate "$bad"; "$haloflow" validate "$good";
               "$haloflow" validate "$missing"; "$haloflow" run "$bad" --out "$dir/out${rle}"; } 2>&1)
    printf '%s\n' "$output"
    for raw in "$rle" "$lri" "$lrm" "$alm" "$esc" $'\u2067' $'\u200f' $'\xc2\x9b'; do
      if printf '%s' "$output" | grep -qF -- "$raw"; then
        fail "a raw $(printf '%s' "$raw" | od -An -tx1 | tr -d ' ') reached the output"
      fi
    done
    for shown in '\u202e' '\u2066' '\u200e' '\u061c' '\u001b' '\u2067' '\u009b' '\u200f'; do
      printf '%s' "$output" | grep -qF -- "$shown" || fail "no $shown in the output"
    done
    printf '%s\n' "$output" | grep -q '^ok: .*good\\u202e\.json: heat3d model' ||
      fail "validate's ok line does not show the path escaped" ;;
  memory)
    haloflow=$1 case_file=$2
    if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
      echo "input_edges: a GPU: the budget is the device's; skipped"
      exit 77
    fi
    output=$("$haloflow" validate "$case_file" --ranks 4096 2>&1)
    got=$?
    printf '%s\n' "$output"
    [ "$got" = 1 ] || fail "exit status $got, expected 1"
    printf '%s\n' "$output" | grep -qE '/heat3d: needs about 0\.2[0-9]* GiB per rank .* on 4096 ranks\); the memory budget is [0-9.e-]+ GiB per rank \(--memory-gib; by default the GPU.s memory or, without a GPU, this machine.s physical memory over the ranks that share it\)' ||
      fail "no refusal naming the need and the budget per rank" ;;
  *)
    echo "input_edges.sh: unknown mode $mode"
    exit 2 ;;
esac
echo "input_edges: ok"
