# Sourced by the scripts of tools/gpu (not run by itself). gpu_setup OUTDIR makes the output
# folder (absolute, so that it means what the caller meant), moves to the repository root, and
# checks that the program is there: `femint` on the PATH, which `. .gpu-runtime/env.sh` puts
# there (build here, then ../shared/gpu/pack-runtime src/femint; see ../shared/gpu/README.md).
# FEMINT=PROGRAM runs another build under the name femint, e.g. an older one packed beside it.
gpu_setup() {
  out=${1:-out}
  mkdir -p "$out" && out=$(cd "$out" && pwd) || exit 1
  cd "$(dirname "${BASH_SOURCE[0]}")/../.." || exit 1
  if [ -n "${FEMINT:-}" ]; then
    # a link on the PATH, so that commands that run femint themselves (timeout) run it too
    local bin dir=${TMPDIR:-/tmp}/femint-bin.$$
    bin=$(command -v "$FEMINT") && mkdir -p "$dir" && ln -sf "$bin" "$dir/femint" &&
      PATH="$dir:$PATH"
  fi
  command -v "${FEMINT:-femint}" >/dev/null || {
    echo "$(basename "$0"): no ${FEMINT:-femint} on the PATH; on the GPU host, from the" \
      "repository root: . .gpu-runtime/env.sh (made by ../shared/gpu/pack-runtime src/femint)" >&2
    exit 1
  }
}

# ab_setup OLD: for the scripts that run this build and an older one (OLD, on the PATH)
# alternately: old set, and `sp BUILD ARGS...` running BUILD in a StarPU home of its own (bus
# calibration and performance models: the models one build makes, which workers it calibrates,
# would otherwise steer the other's placement).
ab_setup() {
  old=$1
  command -v "$old" >/dev/null || { echo "$(basename "$0"): no $old on the PATH" >&2; exit 1; }
  ab_home=${STARPU_HOME:-/tmp/starpu-home}
}
sp() { local b=$1; shift; STARPU_HOME="$ab_home-$b" "$b" "$@"; }
