#!/bin/bash
cd "$(dirname "$0")"
B=.gpu-runtime/bin
mkdir -p /tmp/o
nvidia-smi --query-gpu=name,memory.total --format=csv > /tmp/o/gpu.txt 2>&1
for bin in femint femint-old; do
  for pb in bp1 bp3 bp5; do
    timeout 60 $B/$bin bp --problem $pb --order 3,7 --mesh box:24,24,24 --where opencl --runs 3 --solves 1 > /tmp/o/small-$bin-$pb.txt 2>&1
  done
  timeout 60 $B/$bin bp --problem elasticity --order 3 --mesh box:16,16,16 --where opencl --runs 3 --solves 1 > /tmp/o/small-$bin-el.txt 2>&1
  timeout 60 $B/$bin bp --problem bp5 --order 7 --mesh box:24,24,24 --where opencl --precision single --runs 3 --solves 1 > /tmp/o/small-$bin-single.txt 2>&1
  timeout 60 $B/$bin bp --problem bp3 --order 5 --mesh box:24,24,24 --jacobi --runs 3 --solves 1 > /tmp/o/small-$bin-jacobi.txt 2>&1
done
tar czf $OUT/small.tgz -C /tmp o
