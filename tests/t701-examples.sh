#!/bin/sh
# Test: every example program in examples/ builds (by make check) and runs successfully.
dir=${EXAMPLES_DIR:-examples}
n=0
failed=0
for ex in "$dir"/ex[0-9][0-9]-*; do
  case $ex in *.c|*.o) continue ;; esac
  [ -x "$ex" ] || continue
  n=$((n + 1))
  if out=$("$ex" 2>&1); then
    echo "ok $n - $(basename "$ex"): $(echo "$out" | tail -n 1)"
  else
    failed=$((failed + 1))
    echo "not ok $n - $(basename "$ex") failed"
    echo "$out" | sed 's/^/# /'
  fi
done
[ $n -gt 0 ] || { echo "not ok 1 - no example was built"; n=1; failed=1; }
echo "1..$n"
[ $failed -eq 0 ]
