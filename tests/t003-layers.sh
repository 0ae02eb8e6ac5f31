#!/bin/sh
# Test: the layers of the source hold (host <- codelets <- scheduler <- cli): host/ uses neither
# StarPU, OpenCL nor hwloc and includes no other folder, no folder includes one above it, the
# program and the examples use only the public header, and no source file is over 800 lines.

top=$(cd "$(dirname "$0")/.." && pwd)
tests_dir=$top/tests
. "$tests_dir/tap.sh"
cd "$top" || exit 1

# The folder ranks: a file may include only folders of its rank or below.
rank() {
  case $1 in
    host) echo 0 ;;
    codelets) echo 1 ;;
    scheduler) echo 2 ;;
    cli) echo 3 ;;
    *) echo 9 ;;
  esac
}

# The project's folders a file includes ("folder/name.h").
included_folders() { sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([a-z]*\)\/.*/\1/p' "$1" | sort -u; }

for dir in host codelets scheduler cli; do
  bad=
  for f in src/$dir/*.[ch]; do
    [ -e "$f" ] || continue
    for inc in $(included_folders "$f"); do
      [ "$(rank "$inc")" -le "$(rank "$dir")" ] || bad="$bad $f($inc/)"
    done
  done
  [ -z "$bad" ]
  ok $? "src/$dir/ includes no folder above it (host <- codelets <- scheduler <- cli)"
  [ -z "$bad" ] || echo "# upward includes:$bad"
done

# host/: numerics and data only.
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*<(starpu|CL/|hwloc)|starpu_|\bcl_(mem|context|command_queue|kernel)\b|\bclCreate' \
  src/host/*.[ch] 2>/dev/null)
[ -z "$bad" ]
ok $? "src/host/ knows neither StarPU, OpenCL nor hwloc"
[ -z "$bad" ] || echo "# files: $bad"

# codelets/: StarPU and OpenCL, but not the scheduler's hwloc.
bad=$(grep -lE '#[[:space:]]*include[[:space:]]*<hwloc' src/codelets/*.[ch] 2>/dev/null)
[ -z "$bad" ]
ok $? "src/codelets/ does not use hwloc (the division of cores is the scheduler's)"
[ -z "$bad" ] || echo "# files: $bad"

# The program and the examples: the public header only (besides their own headers).
bad=
for f in src/cli/*.[ch] examples/*.c examples/*.h; do
  [ -e "$f" ] || continue
  for inc in $(included_folders "$f"); do bad="$bad $f($inc/)"; done
  if grep -qE '#[[:space:]]*include[[:space:]]*"(host|codelets|scheduler|error|plan|operator|codelets)\.h"' "$f"; then
    bad="$bad $f"
  fi
done
[ -z "$bad" ]
ok $? "src/cli/ and examples/ use only include/femint.h of the library"
[ -z "$bad" ] || echo "# files:$bad"

# No two folders include each other (implied by the ranks, checked directly as well).
pairs=
for a in host codelets scheduler cli; do
  for b in host codelets scheduler cli; do
    [ "$a" \< "$b" ] || continue
    ab=$(cat src/$a/*.[ch] 2>/dev/null | grep -cE "#[[:space:]]*include[[:space:]]*\"$b/")
    ba=$(cat src/$b/*.[ch] 2>/dev/null | grep -cE "#[[:space:]]*include[[:space:]]*\"$a/")
    [ "$ab" -gt 0 ] && [ "$ba" -gt 0 ] && pairs="$pairs $a<->$b"
  done
done
[ -z "$pairs" ]
ok $? "no two folders of src/ include each other"
[ -z "$pairs" ] || echo "# pairs:$pairs"

# Source files stay under 800 lines (the kernels embedded at build time are generated, not
# written).
long=$(find include src kernels tests examples tools -type f \
  \( -name '*.c' -o -name '*.h' -o -name '*.cc' -o -name '*.cl' -o -name '*.clh' -o -name '*.sh' \) \
  ! -name kernels_embedded.c -exec awk 'END { if (NR > 800) print FILENAME " (" NR " lines)" }' {} \;)
[ -z "$long" ]
ok $? "no source file is over 800 lines"
[ -z "$long" ] || echo "$long" | sed 's/^/# /'

echo "1..$n"
[ "$failed" -eq 0 ]
