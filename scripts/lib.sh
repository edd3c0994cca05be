# Shared helpers of the README's commands (sourced, not run).
# Repo root, whatever directory the command was started from.
SWITCHYARD_ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

say() { printf '\033[1m==> %s\033[0m\n' "$*" >&2; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    die "need root to run: $* (install sudo or run as root)"; fi
}

# Installs the Debian packages of scripts/packages.txt that are missing; a no-op when none are.
ensure_packages() {
  local missing=() pkg
  while read -r pkg; do
    case "$pkg" in ''|'#'*) continue ;; esac
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
  done < "$SWITCHYARD_ROOT/scripts/packages.txt"
  if [ ${#missing[@]} -gt 0 ]; then
    say "installing Debian packages: ${missing[*]}"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get update -q
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
  fi
  if ! command -v node >/dev/null; then
    say "installing Node.js and npm (for the SDK tests)"
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm
  fi
}

# configure_build DIR [cmake args...]: configures once (or when args change), then builds.
configure_build() {
  local dir="$1"; shift
  local stamp="$dir/.switchyard-configure-args" args="$*"
  if [ ! -f "$dir/build.ninja" ] || [ "$(cat "$stamp" 2>/dev/null)" != "$args" ]; then
    say "configuring $dir"
    local launcher=()
    command -v ccache >/dev/null && launcher=(-DCMAKE_CXX_COMPILER_LAUNCHER=ccache)
    cmake -S "$SWITCHYARD_ROOT" -B "$dir" -G Ninja "${launcher[@]}" "$@"
    printf '%s' "$args" > "$stamp"
  fi
}

# ccache (when installed) shares compiled objects between checkouts of the repo: paths under it
# are hashed relative to it, and the build directory's own path is left out of the hash. (So
# __FILE__ is relative: tests find source files through SWITCHYARD_SOURCE_DIR instead.)
export CCACHE_BASEDIR="$SWITCHYARD_ROOT" CCACHE_NOHASHDIR=1

build_targets() {
  local dir="$1"; shift
  say "building ${*:-all} in $dir"
  if [ $# -gt 0 ]; then
    cmake --build "$dir" -j "$(nproc)" --target "$@"
  else
    cmake --build "$dir" -j "$(nproc)"
  fi
}
