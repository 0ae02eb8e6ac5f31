# Sourced by tools/run-demo and tools/run-tests (not run by itself): what both do before their
# work. The caller sets `packages` (the Debian packages it needs) and `who` (its name, for
# messages).

say() { echo "$who: $*" >&2; }

# Installs the missing packages with apt-get (as root, or through sudo); installed=1 when it did.
installed=0
install_missing() {
  if ! command -v dpkg-query >/dev/null || ! command -v apt-get >/dev/null; then
    say "not Debian or Ubuntu: make sure these (or their equivalents) are installed: ${packages[*]}"
    return 0
  fi
  local missing=() p
  for p in "${packages[@]}"; do
    dpkg-query -W -f='${Status}\n' "$p" 2>/dev/null | grep -q 'install ok installed' ||
      missing+=("$p")
  done
  [ ${#missing[@]} -eq 0 ] && return 0
  local sudo=()
  if [ "$(id -u)" -ne 0 ]; then
    if ! command -v sudo >/dev/null; then
      say "missing packages: ${missing[*]}; run as root or install sudo"
      exit 1
    fi
    sudo=(sudo)
  fi
  say "installing ${missing[*]}"
  ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get update -q
  ${sudo[@]+"${sudo[@]}"} env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
    --no-install-recommends "${missing[@]}"
  installed=1
}

# ./autogen.sh and ./configure when the tree is not configured yet; once it is, make itself
# reruns automake, autoconf and config.status when their inputs change. Packages installed by
# this run (MPI and PETSc after run-demo configured without them) make configure run again, with
# the arguments it had, so that the build uses them.
configure_tree() {
  if [ ! -f Makefile ] || [ ! -f config.status ]; then
    if [ ! -x configure ] || [ configure.ac -nt configure ] || [ Makefile.am -nt configure ]; then
      ./autogen.sh
    fi
    ./configure
  elif [ "$installed" = 1 ]; then
    say "packages were installed: configuring again"
    ./config.status --recheck && ./config.status
  fi
}

# Without a GPU OpenCL driver, StarPU is told to use PoCL's CPU device so that the OpenCL kernels
# run. With one, it is not: a CPU OpenCL device would compete with the CPU workers for the cores.
setup_opencl() {
  [ -n "${STARPU_OPENCL_ON_CPUS+set}" ] && return 0
  local icd
  for icd in /etc/OpenCL/vendors/*.icd; do
    [ -e "$icd" ] || continue
    case $(basename "$icd") in pocl*) continue ;; esac
    if [ -e /dev/nvidiactl ] || [ -e /dev/kfd ] || compgen -G '/dev/dri/renderD*' >/dev/null; then
      return 0
    fi
  done
  export STARPU_OPENCL_ON_CPUS=1
}
