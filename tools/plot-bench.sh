#!/usr/bin/env bash
# Plots a CSV of femint bench (kernel time per element and GFLOP/s by the seed's count, against
# the order, one line per variant and precision), a task timeline CSV as a Gantt chart, and the
# CSV of femint residual --table2 (seed 002's Table 2) for a GPU host without gnuplot.
#   tools/plot-bench.sh bench BENCH.csv OUT.png
#   tools/plot-bench.sh timeline TIMELINE.csv OUT.png
#   tools/plot-bench.sh table2 TABLE2.csv OUT.png
# Needs gnuplot with its cairo terminal (Debian: gnuplot-nox); the paths are the caller's.
set -euo pipefail
mode=$1 csv=$2 png=$3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
case $mode in
  bench)
    # one data file per (variant, precision): order kernel_us gflops_seed
    awk -F, -v dir="$tmp" '
      NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      $c["status"] == "ok" {
        f = dir "/" $c["variant"] "-" $c["precision"]
        print $c["order"], $c["kernel_us"], $c["gflops_seed"] >> f }' "$csv"
    plots1= plots2=
    for f in "$tmp"/*; do
      t=$(basename "$f")
      plots1="$plots1${plots1:+, }'$f' using 1:2 with linespoints title '$t'"
      plots2="$plots2${plots2:+, }'$f' using 1:3 with linespoints title '$t'"
    done
    gnuplot <<GP
set terminal pngcairo size 1200,500 font ",10" noenhanced
set output '$png'
set multiplot layout 1,2
set logscale y
set grid
set xlabel 'order p'
set key left top
set ylabel 'kernel time per element [us]'
plot $plots1
set ylabel 'GFLOP/s (seed 000 count: 63 NQ NSH^2)'
set key left top
plot $plots2
unset multiplot
GP
    ;;
  timeline)
    awk -F, 'NR > 1 { print $1, $6, $7, ($3 == "integrate" ? 1 : 2) }' "$csv" > "$tmp/t"
    gnuplot <<GP
set terminal pngcairo size 1200,400 font ",10" noenhanced
set output '$png'
set xlabel 'time [s]'
set ylabel 'StarPU worker'
set ytics 1
set yrange [-0.6:*]
set style fill solid 0.8 noborder
set palette defined (1 '#1f77b4', 2 '#ff7f0e')
unset colorbox
set title 'tasks per worker (blue: integrate, orange: assemble)'
plot '$tmp/t' using ((\$2+\$3)/2):1:((\$3-\$2)/2):(0.35):4 with boxxyerror fillcolor palette notitle
GP
    ;;
  table2)
    # femint residual --table2 --csv: the fraction of the copy rate against the cells per batch,
    # one line per batches per work-group; the first row (the kernel of the run) as a level
    awk -F, -v dir="$tmp" '
      NR == 1 { for (i = 1; i <= NF; i++) c[$i] = i; next }
      NR == 2 { print $c["copy_fraction"], $c["kernel"] > (dir "/level"); next }
      $c["kernel"] == "transposed" { print $c["batch"], $c["copy_fraction"] >> (dir "/" $c["batches"]) }' "$csv"
    read -r level kernel <"$tmp/level"
    plots=
    for n in 1 4 16; do
      word=batches; [ "$n" = 1 ] && word=batch
      [ -f "$tmp/$n" ] && plots="$plots'$tmp/$n' using 1:2 with linespoints lw 2 pt 7 title '$n $word per work-group', "
    done
    title=$(awk -F, 'NR == 2 { printf "%s, %s of order %s, aux %s, %s, %s cells", $2, $1, $5, $3, $4, $9 }' "$csv")
    gnuplot <<GP
set terminal pngcairo size 900,550 font ",10" noenhanced
set output '$png'
set title 'femint residual --table2: $title'
set logscale x 2
set grid
set key bottom right
set yrange [0:1.05]
set xlabel 'cells per batch (transposed kernel)'
set ylabel 'fraction of the copy rate'
plot ${plots}$level with lines dt 2 lw 2 title 'the run, --kernel $kernel ($level)'
GP
    ;;
  *) echo "usage: $0 bench|timeline|table2 CSV PNG" >&2; exit 2 ;;
esac
