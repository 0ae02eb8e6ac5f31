#!/bin/bash
# fresh-process BP5 p=7 box 64^3 old vs new, and smaller correctness/perf checks
cd "$(dirname "$0")"
B=.gpu-runtime/bin
big() { FEMINT_TRACE=1 timeout 100 /usr/bin/time -v $B/$1 bp --problem bp5 --mesh box:64,64,64 --where opencl --runs 1 --solves 1 --iterations 100 --order 7 > $OUT/big-$1-$2.txt 2>&1; }
nvidia-smi --query-gpu=name,memory.total --format=csv > $OUT/gpu.txt 2>&1
big femint warm; big femint-old warm
for r in 1 2 3; do big femint $r; big femint-old $r; done
for bin in femint femint-old; do
  for pb in bp1 bp3 bp5; do
    timeout 60 $B/$bin bp --problem $pb --order 3,7 --mesh box:24,24,24 --where opencl --runs 3 --solves 1 > $OUT/small-$bin-$pb.txt 2>&1
  done
  timeout 60 $B/$bin bp --problem elasticity --order 3 --mesh box:16,16,16 --where opencl --runs 3 --solves 1 > $OUT/small-$bin-el.txt 2>&1
  timeout 60 $B/$bin bp --problem bp5 --order 7 --mesh box:24,24,24 --where opencl --precision single --runs 3 --solves 1 > $OUT/small-$bin-single.txt 2>&1
done
