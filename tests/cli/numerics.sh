#!/usr/bin/env bash
# End-to-end checks of the models' numerics that a regular expression on one output cannot make.
# Prints "numerics: ok" when every check holds, "numerics: FAIL: ..." otherwise.
# usage:
#   numerics.sh conservation MPIEXEC NP_FLAG HALOFLOW_MODEL ARGS...
#       euler2d on 1, 2 and 3 ranks (host executor): the printed conservation lines identical.
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
