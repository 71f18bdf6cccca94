#!/usr/bin/env bash
# Set up everything the tests need, then run them:
#   - a venv without bpy runs the core tests (proof that core/ needs numpy only);
#   - bpy 5.0.1 runs the whole suite, the report pages in Debian's chromium too (installed here when missing and
#     we are root); bpy 4.5 LTS and 4.2 LTS run every other Blender-side test.
# The first run downloads ~1.1 GB and makes ~3.2 GB of venvs in .venv/ (see tools/venv.sh);
# later runs reuse them while their requirements stay the same.
# Extra arguments go to every pytest run (e.g. -k bridge, -x).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/venv.sh

# pytest-blender runs the suite inside a real Blender (see README); without a
# blender executable it would abort pytest, so it is switched off then.
plugin=()
command -v blender >/dev/null || plugin=(-p no:pytest-blender)

# The browser tests (tests/browser) open every command's report page in Debian's chromium, headless.
if ! command -v chromium >/dev/null; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
    echo "installing Debian's chromium for the browser tests (apt-get install chromium)"
    { DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1 ||
      { apt-get update -qq >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null 2>&1; }; } ||
      echo "could not install chromium: the browser tests will skip (and fail in CI)"
  else
    echo "no chromium: the browser tests will skip (and fail in CI); install Debian's chromium (apt-get install chromium) to run them"
  fi
fi

status=0
run() {  # run LABEL PYTHON PYTEST-ARGS...
  local label=$1 py=$2; shift 2
  echo "=== $label"
  "$py" -m pytest tests "${plugin[@]}" "$@" || status=1
}

core=$(core_venv)
run "core tests, no bpy" "$core" -m "not blender" "$@"
for version in 5.0.1 4.5.15 4.2.23; do
  py=$(bpy_venv "$version")
  if [ "$version" = 5.0.1 ]; then
    run "full suite, bpy $version" "$py" "$@"
  else
    run "Blender-side tests, bpy $version" "$py" -m "blender and not browser" "$@"  # the browser tests: with 5.0.1 only
  fi
done
exit $status
