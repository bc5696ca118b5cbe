#!/usr/bin/env bash
# End-to-end checks of the models' numerics that a regular expression on one output cannot make.
# Prints "numerics: ok" when every check holds, "numerics: FAIL: ..." otherwise.
# usage:
#   numerics.sh conservation MPIEXEC NP_FLAG HALOFLOW_MODEL ARGS...
#       euler2d on 1, 2 and 3 ranks (host executor): the printed conservation lines identical.
#   numerics.sh restart WORK_DIR HALOFLOW WRITER_CASE RESTART_CASE
#       20 steps of RESTART_CASE straight; 10 steps of WRITER_CASE with a checkpoint at 10;
#       RESTART_CASE restarted from it to 20: the dumped fields identical (cmp).
#   numerics.sh once REGEX COMMAND...
#       COMMAND exits 0 and prints exactly one line matching REGEX.
set -u
fail() {
  echo "numerics: FAIL: $*"
  exit 1
}
mode=$1
shift
case $mode in
  conservation)
    mpiexec=$1 np=$2
    shift 2
    first=""
    for ranks in 1 2 3; do
      output=$("$mpiexec" "$np" "$ranks" "$@" --executor host 2>&1) ||
        fail "$ranks ranks: exit status $?: $output"
      line=$(printf '%s\n' "$output" | grep '^conservation')
      [ -n "$line" ] || fail "$ranks ranks: no conservation line in: $output"
      echo "$ranks rank(s): $line"
      if [ -z "$first" ]; then
        first=$line
      elif [ "$line" != "$first" ]; then
        fail "$ranks ranks print '$line', 1 rank '$first'"
      fi
    done ;;
  restart)
    work=$1 haloflow=$2 writer=$3 restarter=$4
    rm -rf "$work" && mkdir -p "$work" || exit 2
    "$haloflow" run "$restarter" --executor host --steps 20 --out "$work/straight" \
      --dump "$work/straight.raw" >"$work/straight.txt" 2>&1 || fail "straight run: $(cat "$work/straight.txt")"
    "$haloflow" run "$writer" --executor host --steps 10 --checkpoint-every 10 \
      --out "$work/first_half" >"$work/first_half.txt" 2>&1 || fail "first half: $(cat "$work/first_half.txt")"
    "$haloflow" run "$restarter" --executor host --steps 20 --restart "$work/first_half" \
      --out "$work/restarted" --dump "$work/restarted.raw" >"$work/restarted.txt" 2>&1 ||
      fail "restart: $(cat "$work/restarted.txt")"
    cat "$work/restarted.txt"
    grep -q "restarting from the checkpoint of step 10" "$work/restarted.txt" ||
      fail "the restart did not say it restarted from step 10"
    cmp "$work/straight.raw" "$work/restarted.raw" || fail "the restarted field differs"
    ;;
  once)
    regex=$1
    shift
    output=$("$@" 2>&1)
    got=$?
    printf '%s\n' "$output"
    [ "$got" = 0 ] || fail "exit status $got"
    count=$(printf '%s\n' "$output" | grep -cE -- "$regex")
    [ "$count" = 1 ] || fail "$count lines match '$regex', expected 1"
    ;;
  *) fail "unknown mode $mode" ;;
esac
echo "numerics: ok"
