#!/bin/sh
# Test: every example program in examples/ is built (by make check) and runs successfully:
# ex01 (elasticity, a rigid translation in the null space), ex02 (element matrices assembled by
# hand = femint's assembly) and ex03 (Maxwell on curved tetrahedra, the curl-curl matrix zero on
# discrete gradients), and any other exNN program found there.
dir=${EXAMPLES_DIR:-examples}
n=0
failed=0
run_example() {
  n=$((n + 1))
  if [ ! -x "$1" ]; then
    failed=$((failed + 1))
    echo "not ok $n - $(basename "$1") was not built"
  elif out=$("$1" 2>&1); then
    echo "ok $n - $(basename "$1"): $(echo "$out" | tail -n 1)"
  else
    failed=$((failed + 1))
    echo "not ok $n - $(basename "$1") failed"
    echo "$out" | sed 's/^/# /'
  fi
}
expected="ex01-elasticity ex02-element-matrices ex03-maxwell"
for name in $expected; do
  run_example "$dir/$name"
done
for ex in "$dir"/ex[0-9][0-9]-*; do
  case $ex in *.c|*.o) continue ;; esac
  case " $expected " in *" $(basename "$ex") "*) continue ;; esac
  [ -x "$ex" ] && run_example "$ex"
done
echo "1..$n"
[ $failed -eq 0 ]
