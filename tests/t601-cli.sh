#!/bin/sh
# Test: the femint command gives the reference-element sizes, runs and verifies small jobs of every
# element (a box, a Gmsh file, tetrahedra) with valid JSON of the same fields, Matrix Market output,
# the same matrix by either assembly path and a timeline, benchmarks kernels (a CSV of stage times),
# co-execution and an operator's phases, writes every option of its tables in --help, and rejects
# bad input with one line on stderr.

FEMINT=${FEMINT:-./src/femint}
if [ ! -x "$FEMINT" ]; then
  echo "Bail out! femint program not found at '$FEMINT'"
  exit 1
fi
case $FEMINT in /*) ;; *) FEMINT=$(pwd)/$FEMINT ;; esac

# The folder of this script and of tap.sh (sourced below, after the cd into $tmp), and the sources
# of the program, whose option tables --help must show.
tests_dir=$(cd "$(dirname "$0")" && pwd)
cli_dir=$tests_dir/../src/cli
tmp=$(mktemp -d "${TMPDIR:-/tmp}/femint-t601.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
# femint residual compiles pointwise sources into this run's own cache
export FEMINT_CACHE_DIR="$tmp/cache"

have_python=no
python3 -c 'import json' 2>/dev/null && have_python=yes
. "$tests_dir/tap.sh"
# The value of a top-level integer field of a one-line JSON object.
field() { sed -n "s/.*\"$1\":\([0-9][0-9]*\).*/\1/p" "$2"; }
# The size line of a Matrix Market file: "rows columns entries".
mm_size() { awk '!/^%/ { print; exit }' "$1"; }
# refel: N_sh, N_Q and the degree of the quadrature of the prism for p = 1..7.
set -- "1 6 6" "2 18 18" "3 40 48" "4 75 80" "5 126 150" "6 196 231" "7 288 336"
for row; do
  # shellcheck disable=SC2086 # split "p nsh nq" on purpose
  set -- $row
  "$FEMINT" refel --element prism --order "$1" --json >refel.json 2>refel.err
  st=$?
  got="$(field nsh refel.json) $(field nq refel.json) $(field degree refel.json)"
  want="$2 $3 $(($1 * 2))"
  [ $st -eq 0 ] && [ "$got" = "$want" ]
  r=$?
  ok $r "refel --order $1: nsh nq degree = $want"
  [ $r -eq 0 ] || { echo "# got '$got', exit status $st"; diag refel.err; }
done

# A small run on every worker, mixed orders 1..4, JSON summary.
"$FEMINT" run --mesh box:2,2,2 --json >run.json 2>run.err
st=$?
ok $st "run --mesh box:2,2,2 --json passes verification"
[ $st -eq 0 ] || { diag run.err; diag run.json; }
if [ $have_python = yes ]; then
  python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["pass"] is True and d["elements"] == 16 and d["orders"] == [1, 2, 3, 4], d
assert d["element"] == "prism" and d["space"] == "h1" and d["forms"] == ["elasticity"], d
assert all(v["pass"] for v in d["verification"]) and len(d["verification"]) >= 3
assert d["dofs"] > 0 and d["nnz"] > 0 and d["tasks"] > 0 and len(d["workers"]) > 0
assert d["assembly"] in ("rows", "coo") and d["stages"]["plan_s"] >= 0
' <run.json 2>json.err
  r=$?
  ok $r "the JSON of run parses and says pass"
  [ $r -eq 0 ] || tail -n 1 json.err | diag
else
  skip "the JSON of run parses and says pass" "no python3"
fi

# Quadrilaterals through the same run.
"$FEMINT" run --element quad --mesh rect:3,2 --problem mass --quiet >quad.out 2>quad.err
st=$?
[ $st -eq 0 ] && [ ! -s quad.out ]
ok $? "run --element quad --mesh rect:3,2 --problem mass --quiet passes and prints nothing"
[ $st -eq 0 ] || diag quad.err

# Matrix Market output: header, size line and entry count match the summary.
"$FEMINT" run --mesh box:2,2,2 --order 1-2 --problem laplace --json --output a.mtx >mm.json \
  2>mm.err
st=$?
ok $st "run --output a.mtx"
[ $st -eq 0 ] || diag mm.err
dofs=$(field dofs mm.json)
nnz=$(field nnz mm.json)
awk -v dofs="${dofs:-x}" -v nnz="${nnz:-x}" '
  NR == 1 { if ($0 !~ /^%%MatrixMarket matrix coordinate real (general|symmetric)/) bad = 1; next }
  /^%/ { next }
  !size { size = 1; if ($1 != dofs || $2 != dofs || $3 != nnz) bad = 1; next }
  NF == 3 { entries++ }
  END { exit (bad || !size || entries != nnz) }' a.mtx 2>/dev/null
r=$?
ok $r "a.mtx: header, size $dofs x $dofs and $nnz entries"
[ $r -eq 0 ] || head -3 a.mtx 2>&1 | diag
if [ $have_scipy = yes ]; then
  "$scipy_python" -c '
import sys, scipy.io
dofs, nnz = int(sys.argv[1]), int(sys.argv[2])
A = scipy.io.mmread("a.mtx").tocsr()
assert A.shape == (dofs, dofs), A.shape
assert A.nnz == nnz, (A.nnz, nnz)
assert abs(A - A.T).max() <= 1e-12 * abs(A).max()
' "$dofs" "$nnz" 2>scipy.err
  r=$?
  ok $r "scipy.io.mmread reads a.mtx: shape, nnz, symmetry"
  [ $r -eq 0 ] || diag scipy.err
else
  skip "scipy.io.mmread reads a.mtx" "no scipy"
fi

# Both assembly paths give the same matrix, and the summary says which path ran.
for path in rows coo; do
  "$FEMINT" run --mesh box:2,2,2 --order 1-3 --assembly $path --output $path.mtx --json \
    >$path.json 2>$path.err
  st=$?
  [ $st -eq 0 ] && grep -q "\"assembly\":\"$path\"" $path.json
  r=$?
  ok $r "run --assembly $path passes and assembles by $path"
  [ $r -eq 0 ] || { diag $path.err; diag $path.json; }
done
same_matrix rows.mtx coo.mtx 2>same.err
r=$?
ok $r "--assembly rows and --assembly coo give the same matrix"
[ $r -eq 0 ] || diag same.err

# --phases: the phases are timed apart.
"$FEMINT" run --mesh box:2,2,2 --order 1-2 --phases --json >phases.json 2>phases.err
st=$?
if [ $have_python = yes ]; then
  python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["pass"] is True and d["phases"] is True, d
assert d["stages"]["integrate_s"] > 0, d["stages"]
' <phases.json 2>json.err
  r=$?
else
  grep -q '"phases":true' phases.json
  r=$?
fi
[ $st -eq 0 ] && [ $r -eq 0 ]
ok $? "run --phases passes and times the integration apart"
[ $st -eq 0 ] && [ $r -eq 0 ] || { diag phases.err; diag phases.json; }

# A Gmsh file: the unit cube as 2 prisms, with tagged boundary triangles and quadrangles.
cat >cube.msh <<'EOF_MSH'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
8
1 0 0 0
2 1 0 0
3 1 1 0
4 0 1 0
5 0 0 1
6 1 0 1
7 1 1 1
8 0 1 1
$EndNodes
$Elements
5
1 2 2 10 1 1 3 2
2 2 2 20 2 5 6 7
3 3 2 31 3 1 5 8 4
4 6 2 100 1 1 2 3 5 6 7
5 6 2 100 1 1 3 4 5 7 8
$EndElements
EOF_MSH
"$FEMINT" run --mesh gmsh:cube.msh --json >gmsh.json 2>gmsh.err
st=$?
ok $st "run --mesh gmsh:cube.msh --json passes verification"
[ $st -eq 0 ] || { diag gmsh.err; diag gmsh.json; }
"$FEMINT" run --mesh cube.msh --problem mass --order 3 --json >mass.json 2>mass.err
st=$?
ok $st "run --mesh cube.msh --problem mass (1^T M 1 = the volume of the file's mesh)"
[ $st -eq 0 ] || { diag mass.err; diag mass.json; }
if [ $have_python = yes ]; then
  python3 -c '
import json, sys
d = json.load(sys.stdin)
m = d["mesh"]
assert d["pass"] is True and d["elements"] == 2 and d["vertices"] == 8, d
assert m["type"] == "gmsh" and m["file"] == "cube.msh" and m["cells"] == 2, m
assert abs(m["volume"] - 1) < 1e-12, m
' <gmsh.json 2>json.err
  r=$?
  ok $r "the JSON of a gmsh run names the file, its cells and vertices"
  [ $r -eq 0 ] || tail -n 1 json.err | diag
else
  skip "the JSON of a gmsh run names the file" "no python3"
fi
sed 's/^8 0 1 1$/8 0 1 -1/' cube.msh >tangled.msh

# A Gantt chart of a run: the tasks go to the CSV next to the PNG (the PNG needs gnuplot).
"$FEMINT" run --mesh box:2,2,2 --order 1-2 --quiet --timeline gantt.png >tl.out 2>tl.err
st=$?
ok $st "run --timeline gantt.png"
[ $st -eq 0 ] || diag tl.err
awk -F, 'NR == 1 { bad = $0 != "worker,kind,codelet,order,cells,start_s,end_s,batch,ready_s"; next }
  NF != 9 || ($2 != "cpu" && $2 != "opencl") || $3 !~ /^[a-z_]+$/ ||
  $7 < $6 || $9 > $6 + 1e-6 { bad = 1 }
  $3 == "integrate" { integrate++ }
  END { exit bad || !integrate }' gantt.csv 2>/dev/null
r=$?
ok $r "gantt.csv: a header and one row per task"
[ $r -eq 0 ] || head -3 gantt.csv 2>&1 | diag
if command -v gnuplot >/dev/null 2>&1; then
  [ "$(head -c 4 gantt.png 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]
  ok $? "gantt.png is a PNG"
else
  skip "gantt.png is a PNG" "no gnuplot"
fi

# bench and plan need an OpenCL worker (PoCL's CPU device under make check).
nocl=$("$FEMINT" info --json 2>/dev/null | sed -n 's/.*"opencl_workers":\([0-9]*\).*/\1/p')
if [ "${nocl:-0}" -gt 0 ]; then
  "$FEMINT" bench --order 1,2 --variant reg_nojac --precision double --cells 64 --csv x.csv \
    >bench.out 2>bench.err
  st=$?
  ok $st "bench --order 1,2 --variant reg_nojac --precision double --cells 64 --csv x.csv"
  [ $st -eq 0 ] || { diag bench.err; diag bench.out; }
  # Rows: the CPU codelet and reg_nojac for p = 1 and 2, every one measured, with every column.
  awk -F, '
    NR == 1 { n = NF; for (i = 1; i <= NF; i++) col[$i] = i
              split("order variant precision cells status kernel_us total_us flops_seed " \
                    "gflops_seed gflops_actual bytes_in bytes_out bus_bound_us max_error",
                    want, " ")
              for (k in want) if (!(want[k] in col)) bad = 1
              next }
    NF != n || $col["status"] != "ok" || $col["precision"] != "double" ||
      $col["cells"] != 64 || !($col["kernel_us"] > 0) || !($col["flops_seed"] > 0) { bad = 1 }
    $col["variant"] == "reg_nojac" &&
      !($col["bytes_out"] > 0 && $col["max_error"] < 1e-10) { bad = 1 }
    { got = got " " $col["order"] ":" $col["variant"] }
    END { exit bad || got != " 1:cpu 1:reg_nojac 2:cpu 2:reg_nojac" }' x.csv 2>/dev/null
  r=$?
  ok $r "x.csv: rows 1:cpu 1:reg_nojac 2:cpu 2:reg_nojac, measured, with the expected columns"
  [ $r -eq 0 ] || diag x.csv
  [ "$(grep -c '^ *[12] \(cpu\|reg_nojac\) ' bench.out)" -eq 4 ] && [ "$(wc -l <bench.err)" -eq 4 ]
  r=$?
  ok $r "bench prints a table row and a progress line per measurement"
  [ $r -eq 0 ] || { diag bench.out; diag bench.err; }

  # Every kernel variant, in both precisions and both storages, agrees with the CPU codelet.
  "$FEMINT" bench --order 1 --variant all --precision both --cells 64 --no-cpu --quiet \
    --csv v.csv >/dev/null 2>v.err &&
    "$FEMINT" bench --order 2 --variant all --precision both --cells 16 --no-cpu --quiet \
      --symmetric --csv vs.csv >/dev/null 2>>v.err
  st=$?
  awk -F, '
    FNR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    { rows++
      tol = $col["precision"] == "double" ? 1e-12 : 1e-4
      if ($col["status"] != "ok" || !($col["max_error"] < tol)) bad = 1 }
    END { exit bad || rows != 20 }' v.csv vs.csv 2>/dev/null
  r=$?
  [ $st -eq 0 ] && [ $r -eq 0 ]
  ok $? "bench: the 5 variants x 2 precisions x full/upper storage agree with the CPU codelet"
  [ $st -eq 0 ] && [ $r -eq 0 ] || { diag v.err; diag v.csv; diag vs.csv; }

  "$FEMINT" bench --coexec --mesh box:2,2,2 --runs 2 --quiet >coexec.out 2>coexec.err
  st=$?
  grep -Eq '^efficiency +[0-9]+\.[0-9]+ ' coexec.out && grep -q '^T_ideal ' coexec.out
  r=$?
  [ $st -eq 0 ] && [ $r -eq 0 ]
  ok $? "bench --coexec --mesh box:2,2,2 --runs 2 prints an efficiency"
  [ $st -eq 0 ] && [ $r -eq 0 ] || { diag coexec.err; diag coexec.out; }

  "$FEMINT" plan --order 2 >plan.out 2>plan.err
  st=$?
  [ $st -eq 0 ] && grep -q '^[a-z][^:]*: ' plan.out
  r=$?
  ok $r "plan --order 2 prints key: value lines"
  [ $r -eq 0 ] || { diag plan.err; diag plan.out; }
else
  skip "bench --order 1,2 --variant reg_nojac --csv x.csv" "no OpenCL worker"
  skip "bench: every variant agrees with the CPU codelet" "no OpenCL worker"
  skip "bench --coexec prints an efficiency" "no OpenCL worker"
  skip "plan --order 2" "no OpenCL worker"
fi

# refel of the H(curl) tetrahedron: 6, 20, 45 functions, symmetric rules of degree 2p + 4.
for row in "1 6 24 6" "2 20 46 8" "3 45 79 10"; do
  # shellcheck disable=SC2086 # split "p nsh nq degree" on purpose
  set -- $row
  "$FEMINT" refel --element tet --order "$1" --json >refel.json 2>refel.err
  got="$(field nsh refel.json) $(field nq refel.json) $(field degree refel.json)"
  [ "$got" = "$2 $3 $4" ]
  ok $? "refel --element tet --order $1: nsh nq degree = $2 $3 $4 (got '$got')"
done
# the Lagrange tetrahedron (the residual's and femint run --space h1's): 4, 10, 20 functions
"$FEMINT" refel --element tet --space h1 --order 3 --json >refel.json 2>refel.err
got="$(field nsh refel.json)"
[ "$got" = 20 ] && grep -q '"space":"h1"' refel.json
ok $? "refel --element tet --space h1 --order 3: the Lagrange element's 20 functions (got '$got')"

# Hexahedra through the same run: elasticity of order 2 on every worker, verified (rigid motions
# in the kernel), and the reference element's sizes.
"$FEMINT" run --element hex --order 2 --mesh box:2,2,2 --json >hex.json 2>hex.err
st=$?
ok $st "run --element hex --order 2 --json passes verification"
[ $st -eq 0 ] || { diag hex.err; diag hex.json; }
[ "$(field dofs hex.json)" = 375 ]
ok $? "hexahedra of order 2 on box:2,2,2: 375 DOFs (got $(field dofs hex.json))"
"$FEMINT" run --element hex --order 2 --mesh box:2,2,2 --curved 0.1 --where cpu --json \
  >hexc.json 2>hexc.err && grep -q '"pass":true' hexc.json
st=$?
ok $st "run --element hex --curved 0.1: curved (20-node) hexahedra pass verification"
[ $st -eq 0 ] || { diag hexc.err; diag hexc.json; }
"$FEMINT" refel --element hex --order 10 --json >refel.json 2>refel.err
grep -q '"nsh":1331' refel.json && grep -q '"nq":1728' refel.json
ok $? "refel --element hex --order 10: 1331 functions, 1728 points"

# The bake-off problems: one order of bp3 and of bp2 on a small box, as JSON: the Laplacian's
# boundary DOFs removed, the solves converged.
"$FEMINT" bp --order 2 --mesh box:2,2,2 --runs 2 --json >bp.json 2>bp.err
st=$?
grep -q '"dofs":27,' bp.json && grep -q '"problem":"bp3"' bp.json &&
  grep -q '"converged":1' bp.json && [ "$(field iterations bp.json)" -gt 0 ] &&
  grep -q '"copy_fraction":' bp.json
r=$?
[ $st -eq 0 ] && [ $r -eq 0 ]
ok $? "bp --order 2 --mesh box:2,2,2: bp3 on the 27 interior DOFs, CG converged, the copy rate, as JSON"
[ $st -eq 0 ] || diag bp.err
if [ $have_python = yes ]; then
  "$FEMINT" bp --order 1,2 --mesh box:2,2,2 --runs 1 --solves 1 --json 2>bpj.err | python3 -c '
import json, sys
d = json.load(sys.stdin)
assert isinstance(d, list) and [r["order"] for r in d] == [1, 2], d
assert all(r["problem"] == "bp3" and r["converged"] == 1 and r["apply_s"] > 0 for r in d), d
' 2>bpj.err
  r=$?
  ok $r "the JSON of bp over two orders parses: a list of an object per order"
  [ $r -eq 0 ] || tail -n 1 bpj.err | diag
else
  skip "the JSON of bp over two orders parses" "no python3"
fi
"$FEMINT" bp --problem bp2 --order 1 --mesh box:2,1,1 --runs 1 --solves 1 --iterations 4 \
  >bp2.out 2>bp2.err && grep -q " 36 .* 4 " bp2.out
st=$?
ok $st "bp --problem bp2 --order 1 --iterations 4: 36 DOFs (12 vertices x 3 components), 4 iterations"
[ $st -eq 0 ] || diag bp2.out bp2.err
"$FEMINT" bp --problem elasticity --order 2 --mesh box:2,2,2 --runs 1 --solves 1 --json \
  >bpe.json 2>bpe.err && grep -q '"dofs":81,' bpe.json && grep -q '"converged":1' bpe.json &&
  [ "$(field iterations bpe.json)" -gt 3 ]
st=$?
ok $st "bp --problem elasticity --order 2: 81 DOFs (27 interior nodes x 3 components), CG converged"
[ $st -eq 0 ] || diag bpe.json bpe.err
"$FEMINT" bp --problem bp3 --order 1,2 --mesh box:2,2,2 --runs 1 --solves 1 --plot bp.png \
  --json >bpp.json 2>bpp.err && grep -q '"gflops_per_s":' bpp.json
st=$?
if command -v gnuplot >/dev/null 2>&1; then
  [ $st -eq 0 ] && [ "$(head -c 4 bp.png 2>/dev/null | od -An -c | tr -d ' ')" = '211PNG' ]
  ok $? "bp --plot bp.png: the roofline and throughput chart is a PNG; the JSON has GFLOP/s"
else
  [ $st -eq 0 ] && grep -q "gnuplot" bpp.err
  ok $? "bp --plot without gnuplot: a warning, no chart, the run completes"
fi
[ $st -eq 0 ] || diag bpp.err
# the tasks of the last CG solve: 5 iterations, each an apply, a sum, a dot product and a step
"$FEMINT" bp --problem bp5 --order 2 --mesh box:3,3,3 --runs 1 --solves 1 --iterations 5 \
  --timeline bpt.png >bpt.out 2>bpt.err
st=$?
[ $st -eq 0 ] && awk -F, 'NR == 1 { bad = $0 != "worker,kind,codelet,order,cells,start_s,end_s,batch,ready_s"; next }
  NF != 9 || $7 < $6 { bad = 1 }
  { n[$3]++ }
  END { exit bad || n["vector_cg_step"] != 5 || n["vector_dot"] != 5 || n["vector_cg_start"] != 1 ||
        n["apply"] < 6 || n["vector_sum"] != 6 }' bpt.csv 2>/dev/null
r=$?
ok $r "bp --timeline bpt.png: the solve's tasks in bpt.csv (1 start, 6 applications and sums, 5 dot products and steps)"
[ $r -eq 0 ] || { diag bpt.err; head -5 bpt.csv 2>&1 | diag; }
"$FEMINT" bp --problem bp5 --kernel-only --order 3 --mesh box:2,2,2 --runs 2 --json >bk.json \
  2>bk.err && grep -q '"problem":"bk5"' bk.json && grep -q '"iterations":0,' bk.json &&
  awk -F'"apply_s":' 'NF > 1 { split($2, v, ","); exit !(v[1] > 0) }' bk.json
st=$?
ok $st "bp --problem bp5 --kernel-only: bk5, a time per pass, no solve"
[ $st -eq 0 ] || diag bk.json bk.err
# the quadrature data made by the device that applies them (--where opencl), else by the host
qd() { FEMINT_TRACE=1 "$FEMINT" bp --order 2 --mesh box:2,2,2 --runs 1 --solves 1 --where "$@"; }
[ "${nocl:-0}" -eq 0 ] || {
  qd opencl >/dev/null 2>qd.err && grep -q "data of form 0 on 8 cells made on OpenCL" qd.err &&
    qd cpu >/dev/null 2>qd.err && grep -q "data of form 0 on 8 cells made by the host" qd.err
}
ok $? "bp --where opencl: the quadrature data made on the device (--where cpu: by the host)"
"$FEMINT" bp --order 1,2 --mesh box:2,2,2 --runs 1 --solves 1 --csv bp.csv >/dev/null 2>bp3.err &&
  [ "$(wc -l <bp.csv)" -eq 3 ] && head -n 1 bp.csv | grep -q '^problem,geometry,order,' &&
  grep -q '^bp3,stored,2,8,27,' bp.csv
st=$?
ok $st "bp --csv: a header and a row per order"
[ $st -eq 0 ] || diag bp.csv bp3.err
# --dofs: a box per order, n = round(2000^(1/3) / p): 13^3 cells at p = 1, 6^3 at p = 2 (bp3: the
# interior nodes, 12^3 and 11^3 DOFs)
"$FEMINT" bp --order 1,2 --dofs 2000 --runs 1 --solves 1 --csv bpd.csv >/dev/null 2>bpd.err &&
  grep -q '^bp3,stored,1,2197,1728,' bpd.csv && grep -q '^bp3,stored,2,216,1331,' bpd.csv
st=$?
ok $st "bp --dofs 2000: a box of its own per order, about 2000 DOFs each"
[ $st -eq 0 ] || diag bpd.csv bpd.err
# Tetrahedra through the same run: the Maxwell matrices T and S of a small curved box, written to
# PREFIX-T.mtx and PREFIX-S.mtx and summarized with the fields of every run.
"$FEMINT" run --element tet --space hcurl --problem maxwell --order 2 --mesh box:2,2,2 \
  --curved 0.1 --output mx --json >tet.json 2>tet.err
st=$?
ok $st "run --element tet --order 2 --curved 0.1 --json passes verification"
[ $st -eq 0 ] || { diag tet.err; diag tet.json; }
dofs=$(field dofs tet.json)
nnz=$(field nnz tet.json)
[ -n "$dofs" ] && [ "$(mm_size mx-T.mtx)" = "$dofs $dofs $nnz" ] &&
  [ "$(mm_size mx-S.mtx)" = "$dofs $dofs $nnz" ]
ok $? "mx-T.mtx and mx-S.mtx: $dofs x $dofs with $nnz entries each"
if [ $have_python = yes ]; then
  python3 -c '
import json, sys
t, h = (json.load(open(f)) for f in sys.argv[1:3])
assert set(t) == set(h), set(t) ^ set(h)
assert set(t["mesh"]) == set(h["mesh"]), set(t["mesh"]) ^ set(h["mesh"])
assert t["element"] == "tet" and t["space"] == "hcurl" and t["problem"] == "maxwell", t
assert t["forms"] == ["hcurl_mass", "curlcurl"] and t["orders"] == [2], t
assert t["outputs"] == ["mx-T.mtx", "mx-S.mtx"] and t["pec"] == "all", t
assert t["pass"] is True and len(t["verification"]) == 5, t["verification"]
assert t["mesh"]["nodes"] == 10 and t["removed_dofs"] > 0, t
' tet.json run.json 2>json.err
  r=$?
  ok $r "the JSON of a tet run has the fields of a prism run, with T and S"
  [ $r -eq 0 ] || tail -n 1 json.err | diag
else
  skip "the JSON of a tet run has the fields of a prism run" "no python3"
fi
for path in rows coo; do
  "$FEMINT" run --element tet --order 2 --mesh box:2,2,2 --assembly $path --output t$path \
    --quiet 2>t$path.err
  ok $? "run --element tet --assembly $path --output t$path"
done
same_matrix trows-T.mtx tcoo-T.mtx 2>same.err && same_matrix trows-S.mtx tcoo-S.mtx 2>>same.err
r=$?
ok $r "tetrahedra: --assembly rows and coo give the same T and S"
[ $r -eq 0 ] || diag same.err
"$FEMINT" run --element tet --order 1 --mesh "$tests_dir/data/tets-cube.msh" --pec none \
  --eps 2 --mu 3 --quiet 2>tetf.err
st=$?
ok $st "run --element tet on a Gmsh file, --pec none --eps 2 --mu 3"
[ $st -eq 0 ] || diag tetf.err

# Lagrange simplices: triangles (generated, curved, and from a Gmsh file of 6-node triangles)
# and H1 tetrahedra, each verified (null space, volume).
"$FEMINT" run --element tri --order 3 --problem laplace --mesh rect:4,3 --curved 0.1 --json \
  >tri.json 2>tri.err && grep -q '"element":"tri"' tri.json && grep -q '"pass":true' tri.json
st=$?
ok $st "run --element tri --order 3 --problem laplace --curved 0.1 passes verification"
[ $st -eq 0 ] || { diag tri.err; diag tri.json; }
"$FEMINT" run --element tet --space h1 --order 2 --mesh box:2,2,2 --problem elasticity --json \
  >teth1.json 2>teth1.err && grep -q '"space":"h1"' teth1.json && grep -q '"pass":true' teth1.json
st=$?
ok $st "run --element tet --space h1 --order 2: elasticity on Lagrange tetrahedra passes"
[ $st -eq 0 ] || { diag teth1.err; diag teth1.json; }
cat >tri6.msh <<'EOF'
$MeshFormat
2.2 0 8
$EndMeshFormat
$Nodes
9
1 0 0 0
2 2 0 0
3 2 1 0
4 0 1 0
5 1 0 0
6 2 .5 0
7 1 1 0
8 0 .5 0
9 1.05 .5 0
$EndNodes
$Elements
3
1 9 2 3 1 1 2 3 5 6 9
2 9 2 3 1 1 3 4 9 7 8
3 8 2 5 1 1 2 5
$EndElements
EOF
"$FEMINT" run --element tri --mesh tri6.msh --order 2 --problem mass --quiet 2>trif.err
st=$?
ok $st "run --element tri on a Gmsh file of 6-node triangles"
[ $st -eq 0 ] || diag trif.err

"$FEMINT" bench --element tet --order 1 --mesh box:2,2,2 --runs 1 --json >tetb.json 2>tetb.err
st=$?
[ $st -eq 0 ] && grep -q '"integrate_s"' tetb.json && grep -q '"pattern_s"' tetb.json
ok $? "bench --element tet: per-phase times"
[ $st -eq 0 ] || diag tetb.err
"$FEMINT" bench --operator --mesh box:2,2,2 --order 1,2 --runs 1 --quiet >opb.out 2>opb.err
st=$?
[ $st -eq 0 ] && grep -q '^cpu ' opb.out
ok $? "bench --operator: the phases of a prism operator"
[ $st -eq 0 ] || { diag opb.err; diag opb.out; }
"$FEMINT" bench --operator --overlap --no-cpu --mesh box:2,2,2 --order 2 --runs 2 --json \
  >opo.json 2>opo.err
st=$?
[ $st -eq 0 ] && grep -q '"where":"cpu+opencl"' opo.json && ! grep -q '"where":"cpu"' opo.json &&
  grep -q '"total_median_s"' opo.json
ok $? "bench --operator --overlap --no-cpu: the row of every worker alone, phases overlapping"
[ $st -eq 0 ] || { diag opo.err; diag opo.json; }
"$FEMINT" bench --operator --assembly coo --on-device --no-cpu --mesh box:2,2,2 --order 2 --runs 2 \
  --json >opd.json 2>opd.err
st=$?
[ $st -eq 0 ] && grep -q '"values_on_device":true' opd.json
ok $? "bench --operator --assembly coo --on-device: the values stay on the device"
[ $st -eq 0 ] || { diag opd.err; diag opd.json; }

# femint residual: the gallery's forms and a form of the caller's file, checked (CPU and OpenCL
# residuals agree, repeatable, the sum of F), and timed.
"$FEMINT" residual --mesh rect:8,8 --order 2 --json >res.json 2>res.err &&
  grep -q '"pointwise":"poisson"' res.json && grep -q '"pass":1' res.json
st=$?
ok $st "residual (gallery:poisson on triangles) passes its checks"
[ $st -eq 0 ] || { diag res.err; diag res.json; }
"$FEMINT" residual --element tet --mesh box:2,2,2 --order 2 --pointwise gallery:elasticity \
  --aux cell --bench --runs 2 --csv res.csv >rest.out 2>rest.err && grep -q '^result *PASS' rest.out &&
  [ "$(wc -l <res.csv)" -eq 2 ] && grep -Eq 'against a copy after each: [0-9.]+$' rest.out
st=$?
ok $st "residual --element tet, elasticity with per-cell values, --bench --csv"
[ $st -eq 0 ] || { diag rest.err; diag rest.out; }
# the fraction of a copy after each evaluation, a positive number (tiny for so few cells)
"$FEMINT" residual --element tet --mesh box:2,2,2 --order 1 --bench --runs 2 --json >resp.json \
  2>resp.err && grep -Eq '"copy_fraction_paired":[0-9.]*[1-9][0-9.]*(e-?[0-9]+)?[,}]' resp.json
st=$?
ok $st "residual --bench --json: copy_fraction_paired, the median fraction of a copy after each evaluation"
[ $st -eq 0 ] || { diag resp.err; diag resp.json; }
cat >heat.c <<'EOF'
/* -div(a grad u) + u^3 = x, a the auxiliary field */
FEMINT_POINTWISE void f0(int dim, const REAL *u, const REAL *du, const REAL *a, const REAL *da,
                         const REAL *x, const REAL *k, REAL *f)
{
  f[0] = u[0] * u[0] * u[0] - x[0];
}
FEMINT_POINTWISE void f1(int dim, const REAL *u, const REAL *du, const REAL *a, const REAL *da,
                         const REAL *x, const REAL *k, REAL *f)
{
  for (int d = 0; d < dim; d++) f[d] = a[0] * du[d];
}
EOF
"$FEMINT" residual --mesh rect:6,6 --pointwise heat.c --aux field >resf.out 2>resf.err &&
  grep -q '^result *PASS' resf.out
st=$?
ok $st "residual --pointwise heat.c (the caller's file) --aux field"
[ $st -eq 0 ] || { diag resf.err; diag resf.out; }
"$FEMINT" residual --mesh rect:4,4 --order 1-2 --json >reso.json 2>reso.err &&
  [ "$(grep -o '"order":[0-9]' reso.json | tr '\n' ' ')" = '"order":1 "order":2 ' ] &&
  [ "$(head -c 1 reso.json)" = '[' ] && [ "$(grep -o '"pass":1' reso.json | wc -l)" -eq 2 ]
st=$?
ok $st "residual --order 1-2 --json: an array of the two orders' objects, both passing"
[ $st -eq 0 ] || { diag reso.err; diag reso.json; }
"$FEMINT" residual --mesh rect:4,4 --where opencl --bench --runs 1 --table2 --csv t2.csv \
  >t2.out 2>t2.err && grep -q '^table 2' t2.out && [ "$(wc -l <t2.csv)" -eq 14 ] &&
  [ "$(grep -c ',transposed$' t2.csv)" -eq 12 ]
st=$?
ok $st "residual --table2: seed 002's Table 2, 4 batch sizes x 3 batches per work-group, in the CSV"
[ $st -eq 0 ] || { diag t2.err; diag t2.out; }
sed 's/u\[0\] \* u\[0\] \* u\[0\]/u[0] * u[0] u[0]/' heat.c >broken.c

# --help of each command lists every option of its table (read from the sources) and is the
# text of 'femint help COMMAND'.
for cmd in run bench plan refel info bp residual; do
  case $cmd in
    run | bench) files="$cli_dir/$cmd.c $cli_dir/setup.c" ;;
    *) files="$cli_dir/$cmd.c" ;;
  esac
  # shellcheck disable=SC2086 # a list of files
  names=$(sed -n 's/.*CLI_OPT("\(--[a-z0-9-]*\)".*/\1/p' $files 2>/dev/null)
  if [ -z "$names" ]; then
    skip "$cmd --help lists every option of its table" "no sources in $cli_dir"
    continue
  fi
  "$FEMINT" $cmd --help >help.out 2>help.err
  st=$?
  "$FEMINT" help $cmd >help2.out 2>&1
  missing=
  for name in $names --help; do
    grep -q -- "^  $name\( \|\$\)" help.out || missing="$missing $name"
  done
  [ $st -eq 0 ] && [ -z "$missing" ] && [ ! -s help.err ] && cmp -s help.out help2.out
  r=$?
  ok $r "$cmd --help lists every option of its table ($(echo $names | wc -w) options)"
  [ $r -eq 0 ] || echo "# exit status $st, missing:$missing"
done
"$FEMINT" --version >version.out 2>&1 && grep -q '^femint [0-9]' version.out
ok $? "femint --version"
"$FEMINT" >noarg.out 2>noarg.err
st=$?
[ $st -eq 2 ] && grep -q '^Usage: femint COMMAND' noarg.err
ok $? "femint without a command prints the usage on stderr, exit status 2"

# Bad input: the exit status (2 for usage, 1 for a bad file), one line on stderr starting with
# "femint: " and naming the culprit.
bad() { # bad STATUS CULPRIT ARGS...
  want=$1 culprit=$2
  shift 2
  "$FEMINT" "$@" >bad.out 2>bad.err
  st=$?
  lines=$(wc -l <bad.err)
  [ $st -eq "$want" ] && [ "$lines" -eq 1 ] && grep -q '^femint: ' bad.err &&
    grep -qF -- "$culprit" bad.err
  r=$?
  ok $r "femint $* fails ($want) with one line naming '$culprit'"
  [ $r -eq 0 ] || { echo "# exit status $st, $lines lines on stderr:"; diag bad.err; }
}
bad 2 "8" run --order 8
bad 2 "0" run --order 0
bad 2 "--frobnicate" run --frobnicate
bad 2 "stray" run stray
bad 2 "--order" run --order
bad 2 "--json" run --json=yes
bad 2 "box:0,1,1" run --mesh box:0,1,1
bad 2 "/nonexistent/dir/x.mtx" run --output /nonexistent/dir/x.mtx
bad 2 "0.9" run --perturb 0.9
bad 2 "x" run --batch x
bad 2 "fast" run --assembly fast
bad 2 "pyramid" refel --element pyramid
bad 2 "foo" run --mesh foo
bad 1 "missing.msh" run --mesh gmsh:missing.msh
bad 1 "cell 1" run --mesh tangled.msh
bad 1 "--element tet" run --element prism --mesh "$tests_dir/data/tets-cube.msh"
bad 2 "foo" bench --variant foo
bad 2 "9" bench --order 9
bad 2 "--mesh" bench --mesh box:2,2,2
bad 2 "--csv" bench --coexec --csv x.csv
bad 2 "--no-assembly" bench --no-assembly
bad 2 "both" bench --element tet --precision both
bad 2 "9" plan --order 9
bad 2 "--element tet" plan --element tet
bad 2 "orders 1, 2 and 3" run --element tet --order 4
bad 2 "1,2" run --element tet --order 1-2
bad 2 "rect:2,2" run --element tet --mesh rect:2,2
bad 2 "--space hcurl" run --element tri --space hcurl
bad 2 "not a list" run --element tri --order 1-2
bad 2 "rectangles are 2D" run --element tet --space h1 --mesh rect:2,2
bad 2 "maxwell" run --element tet --space h1 --problem maxwell
bad 2 "--space hcurl" run --element prism --space hcurl
bad 2 "maxwell" run --problem maxwell
bad 2 "--pec" run --pec none
bad 2 "--eps" run --eps 2
bad 2 "--curved" run --curved 0.1
bad 2 "0.7" run --element tet --curved 0.7
bad 2 "--variant gemm" run --element tet --variant gemm
bad 2 "1..3" refel --element tet --order 5
bad 2 "1..3" refel --element tet --order 0
bad 2 "1..3" refel --element tri --order 4
bad 2 "1,2" run --element hex --order 1-2
bad 2 "1..10" run --element hex --order 11
bad 2 "prisms are straight" run --element prism --curved 0.1
bad 2 "--variant reg_jac" run --element hex --variant reg_jac
bad 2 "1..7" refel --element prism --order 8
bad 2 "bp7" bp --problem bp7
bad 2 "rect:2,2" bp --mesh rect:2,2
bad 2 "--dofs and --mesh" bp --dofs 1000 --mesh box:2,2,2
bad 2 "order 1 would take" bp --dofs 1e9 --order 1-3
bad 2 "--local-rank" info --opencl-device 0 --local-rank 1
bad 2 "gallery" residual --pointwise gallery:heat
bad 1 "missing.c" residual --pointwise missing.c
bad 1 "broken.c:5" residual --mesh rect:2,2 --pointwise broken.c
bad 2 "rect:NX,NY" residual --mesh box:2,2,2
bad 2 "--components" residual --components 2
bad 2 "--kernel" residual --kernel fast
bad 2 "hcurl is for tet" refel --element prism --space hcurl
bad 2 "orders 1..3" residual --element tet --order 2,4
bad 2 "--table2" residual --table2
bad 2 "--table2" residual --bench --table2 --batch 16
bad 2 "add --table2" residual --plot t.png
bad 1 "residual_cells = 8" residual --mesh rect:2,2 --kernel cellwise --batch 8
bad 2 "frobnicate" frobnicate
# tets-cube.msh with its interior vertex moved through a face: cells overlap
sed 's/^0.60378376320065 0.39621623679935 0.5711359540008124$/0.9 0.1 0.1/' \
  "$tests_dir/data/tets-cube.msh" >tangled-tets.msh
bad 1 "tangled" run --element tet --mesh tangled-tets.msh
# a coordinate whose products overflow: refused at its line
sed 's/^0.60378376320065 0.39621623679935 0.5711359540008124$/1e150 0.4 0.6/' \
  "$tests_dir/data/tets-cube.msh" >huge.msh
bad 1 "huge.msh:161" run --element tet --mesh huge.msh
bad 1 "not a Gmsh MSH file" run --mesh gmsh:/dev/zero
# element 171 given again as element 172, then a third cell on one of its faces
sed -e '164s/.*/6 172 1 172/' -e '240s/.*/3 1 4 102/' -e '341a 172 43 29 25 5' \
  "$tests_dir/data/tets-cube.msh" >twice.msh
bad 1 "(element 172 at line 342) repeats cell 100 (element 171 at line 341)" run --element tet \
  --mesh twice.msh
sed -e '164s/.*/6 172 1 172/' -e '240s/.*/3 1 4 102/' -e '341a 172 43 29 25 7' \
  "$tests_dir/data/tets-cube.msh" >three.msh
bad 1 "(element 139 at line 309), cell 100 (element 171 at line 341) and cell 101" run \
  --element tet --mesh three.msh
# Without --element, the cells of a Gmsh file choose it
for f in quads tets-cube; do
  "$FEMINT" run --mesh "$tests_dir/data/$f.msh" --order 1 >infer.out 2>infer.err
  st=$?
  want=$([ $f = quads ] && echo quadrilaterals || echo tetrahedra)
  [ $st -eq 0 ] && grep -q "^result *PASS" infer.out && grep -qi "$want" infer.out
  r=$?
  ok $r "run --mesh $f.msh without --element: the file's $want, verified"
  [ $r -eq 0 ] || { echo "# exit status $st"; diag infer.err infer.out; }
done

# A wrong kernel cannot pass the verification: the Lame coefficients swapped in the GEMM kernel
# (through FEMINT_KERNEL_DIR) keep the symmetry, the null space and the diagonal, but not the
# energies nor the element matrices of the sampled cells against the CPU's.
mkdir -p wrong-kernels && cp "$tests_dir"/../kernels/* wrong-kernels/ &&
  sed -i 's/const REAL lambda = c\[0\], mu = c\[1\];/const REAL lambda = c[1], mu = c[0];/' \
    wrong-kernels/volume_gemm.cl
grep -q "lambda = c\[1\], mu = c\[0\]" wrong-kernels/volume_gemm.cl
swapped=$?
FEMINT_KERNEL_DIR=$tmp/wrong-kernels "$FEMINT" run --mesh box:3,3,2 --order 2 --where opencl \
  --variant gemm >wrong.out 2>&1
st=$?
[ $swapped -eq 0 ] && [ $st -eq 1 ] && grep -q "^result *FAIL" wrong.out &&
  grep -q "energy: u = (x, 0, 0) .*FAIL" wrong.out && grep -q "element matrices.*FAIL" wrong.out &&
  grep -q "null space: rotation z .*PASS" wrong.out
r=$?
ok $r "Lame coefficients swapped in the OpenCL kernel: the energy and the sampled element matrices fail, exit 1 (the null space still passes)"
[ $r -eq 0 ] || diag wrong.out

# A write that fails midway (a file size limit, as a full disk would) leaves no partial matrix
# file; an older file of that name stays whole. StarPU's models go to a fresh folder, below the
# limit.
echo "an older file" >cut.mtx
( trap '' XFSZ; ulimit -f 512; STARPU_HOME=$tmp/cut-home exec "$FEMINT" run --mesh box:4,4,4 \
  --order 3 --where cpu --output cut.mtx ) >cut.out 2>cut.err
st=$?
[ $st -eq 1 ] && grep -q "cannot write 'cut.mtx'" cut.err && [ "$(cat cut.mtx)" = "an older file" ] &&
  [ -z "$(ls cut.mtx.part-* 2>/dev/null)" ]
r=$?
ok $r "a matrix file cut short by a full disk (a file size limit): exit 1, the older file whole, no partial file"
[ $r -eq 0 ] || { diag cut.err; ls -la; }

# gnuplot runs with a time limit (FEMINT_CHART_TIMEOUT seconds here, 120 by default): a gnuplot
# that hangs is stopped and reported in one line
mkdir -p slow-bin && printf '#!/bin/sh\nsleep 60\n' >slow-bin/gnuplot && chmod +x slow-bin/gnuplot
start=$(date +%s)
PATH=$tmp/slow-bin:$PATH FEMINT_CHART_TIMEOUT=2 "$FEMINT" run --mesh box:2,2,2 --order 1 \
  --timeline slow.png >slow.out 2>slow.err
took=$(($(date +%s) - start))
grep -q "gnuplot failed: stopped after 2 s" slow.err && [ $took -lt 40 ]
r=$?
ok $r "a gnuplot that hangs is stopped after FEMINT_CHART_TIMEOUT seconds, in one line ($took s)"
[ $r -eq 0 ] || diag slow.err

# StarPU's models shared by processes: 4 runs at once on one fresh STARPU_HOME, one killed (-9)
# while it runs, then a model file of femint's and the bus calibration cut in half (as a process
# killed while StarPU saves them leaves them), on which StarPU would abort: moved aside with a
# warning, and the run passes.
home=$tmp/shared-home
for i in 1 2 3 4; do
  STARPU_HOME=$home "$FEMINT" run --mesh box:3,3,2 --order 1-2 --quiet >par$i.out 2>&1 &
done
STARPU_HOME=$home "$FEMINT" run --mesh box:6,6,4 --order 1-4 --quiet >killed.out 2>&1 &
victim=$!
sleep 2
kill -9 $victim 2>/dev/null
wait
fails=0
for i in 1 2 3 4; do [ -s par$i.out ] && fails=$((fails + 1)); done
model=$(ls "$home"/.starpu/sampling/codelets/*/femint_integrate_volume_*.vm 2>/dev/null | head -n 1)
[ -n "$model" ] && head -c $(($(wc -c <"$model") / 2)) "$model" >half && cat half >"$model"
bus=$(ls "$home"/.starpu/sampling/bus/*.config 2>/dev/null | head -n 1)
[ -n "$bus" ] && head -c $(($(wc -c <"$bus") / 2)) "$bus" >half && cat half >"$bus"
STARPU_HOME=$home "$FEMINT" run --mesh box:3,3,2 --order 1-2 >after.out 2>after.err
st=$?
[ $fails -eq 0 ] && [ -n "$model" ] && [ $st -eq 0 ] && grep -q "^result *PASS" after.out &&
  grep -qF "warning: StarPU's performance model $model is damaged" after.err && [ -f "$model.damaged" ] &&
  grep -qF "warning: StarPU's bus calibration ${bus%.config}.* is damaged" after.err &&
  [ -f "$bus.damaged" ]
r=$?
ok $r "4 runs at once on one STARPU_HOME, one killed, then a model and the bus calibration cut in half: moved aside, the run passes"
[ $r -eq 0 ] || { for i in 1 2 3 4; do diag par$i.out; done; diag after.err; }

# StarPU's environment: a number StarPU would abort on is refused first, naming the variable; a
# folder for its models that cannot be made (STARPU_HOME at a file) is replaced by a private one
# with a warning, and that folder is gone at the end.
for var in STARPU_NCPU=abc STARPU_NOPENCL=-1 STARPU_CALIBRATE=1x; do
  env "$var" "$FEMINT" info >env.out 2>env.err
  st=$?
  [ $st -eq 1 ] && [ "$(wc -l <env.err)" -eq 1 ] && grep -qF "${var%%=*}='${var#*=}'" env.err
  r=$?
  ok $r "$var: femint info fails (1) with one line naming it"
  [ $r -eq 0 ] || diag env.err
done
: >not-a-folder
mkdir -p private
TMPDIR=$tmp/private STARPU_HOME=$tmp/not-a-folder "$FEMINT" run --mesh box:2,2,2 --order 1 \
  >home.out 2>home.err
st=$?
[ $st -eq 0 ] && grep -q "^result *PASS" home.out &&
  grep -qF "warning: StarPU cannot keep its performance models in $tmp/not-a-folder" home.err &&
  [ -z "$(ls private)" ]
r=$?
ok $r "STARPU_HOME at a file: femint run warns, keeps StarPU's models in a private folder and removes it"
[ $r -eq 0 ] || { diag home.err; ls -la private; }

if ls core* >/dev/null 2>&1; then r=1; else r=0; fi
ok $r "no core dump"

echo "1..$n"
exit 0
