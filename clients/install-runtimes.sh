#!/usr/bin/env bash
# Installs, when missing, what the tests of the Python and Node clients (and the alert rules' unit
# tests) run on, from Debian's packages (Python packages are taken from Debian, not from a package
# index):
#
#   clients/install-runtimes.sh python   /usr/bin/python3 with redis-py and pytest
#                                        (python3, python3-redis, python3-pytest)
#   clients/install-runtimes.sh node     node >= 18.19 (node-redis 5's floor) and npm (nodejs, npm)
#   clients/install-runtimes.sh promtool promtool, for `promtool test rules` (prometheus)
#   clients/install-runtimes.sh chromium Chromium and its WebDriver, for the console's browser test
#                                        (chromium, chromium-driver)
#
# Exits 0 when everything is there (installing nothing), non-zero with the reason when it cannot
# install: the tests then fail, they never skip. Concurrent runs (test forks) take turns.
set -euo pipefail

what=${1:?usage: install-runtimes.sh python|node|promtool|chromium}

missing() {
  case "$what" in
    python) /usr/bin/python3 -c 'import redis, pytest' >/dev/null 2>&1 || echo "python3 python3-redis python3-pytest" ;;
    node)
      if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1 \
          || ! node -e 'const [major, minor] = process.versions.node.split(".").map(Number); process.exit(major > 18 || (major === 18 && minor >= 19) ? 0 : 1)'; then
        echo "nodejs npm"
      fi ;;
    promtool) command -v promtool >/dev/null 2>&1 || echo "prometheus" ;;
    chromium) { command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1; } || echo "chromium chromium-driver" ;;
    *) echo "unknown runtime '$what': python, node, promtool or chromium" >&2; exit 2 ;;
  esac
}

[ -z "$(missing)" ] && exit 0

sudo=""
if [ "$(id -u)" -ne 0 ]; then
  if command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
    sudo="sudo -n"
  else
    echo "install-runtimes: $what's packages ($(missing)) are missing and this user cannot install them;" \
         "install them with apt-get as root" >&2
    exit 1
  fi
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-runtimes: no apt-get; install $(missing) by hand" >&2; exit 1; }

exec 9>"${TMPDIR:-/tmp}/refresher-install-runtimes.lock"
flock 9
packages=$(missing)   # again: another run may have installed them while this one waited
[ -z "$packages" ] && exit 0
echo "install-runtimes: installing $packages from Debian's packages" >&2
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -q >&2 || true
# shellcheck disable=SC2086
$sudo apt-get install -y -q --no-install-recommends $packages >&2
[ -z "$(missing)" ] || { echo "install-runtimes: $what still lacks $(missing) after installing" >&2; exit 1; }
