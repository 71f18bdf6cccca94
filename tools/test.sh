#!/usr/bin/env bash
# Set up everything the tests need, then run each test once, on every core (pytest-xdist), in four tiers:
#   - the venv without bpy runs every test that needs no Blender (proof that core/ needs numpy only);
#   - bpy 5.0.1 runs every Blender-side test, the report pages in Debian's chromium too (installed here when
#     missing and we are root);
#   - bpy 4.5 LTS and 4.2 LTS run what can differ between Blender versions (the `every_blender` marker: the action
#     API, Blender's importers and exporters, the operators and panels).
# The first run downloads ~1.1 GB and makes ~3.2 GB of venvs in .venv/ (see tools/venv.sh);
# later runs reuse them while their requirements stay the same.
#
#   tools/test.sh            the whole suite
#   tools/test.sh --quick    the inner loop: the core tests, then one smoke run of every command and operator (bpy 5.0.1)
#   tools/test.sh --count    the whole suite, counting the asserts that ran too (slower)
# Other arguments go to every pytest run (e.g. -k bridge, -x; -n 0 runs in one process).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/venv.sh

quick=false count=()
while [ $# -gt 0 ]; do
  case $1 in
    --quick) quick=true; shift ;;
    --count) count=(-p assertion_count -o enable_assertion_pass_hook=true); shift ;;
    *) break ;;
  esac
done

# pytest-blender runs the suite inside a real Blender (see README); without a
# blender executable it would abort pytest, so it is switched off then.
plugin=()
command -v blender >/dev/null || plugin=(-p no:pytest-blender)

# The browser tests (tests/browser) open every command's report page in Debian's chromium, headless.
if ! $quick && ! command -v chromium >/dev/null; then
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
  local label=$1 py=$2 started=$SECONDS code=0; shift 2
  echo "=== $label"
  "$py" -m pytest tests "${plugin[@]}" "${count[@]}" -n auto --dist loadfile --durations=30 "$@" || code=$?
  [ $code = 0 ] || [ $code = 5 ] || status=1  # 5: nothing selected (a -k that matches no test of this tier)
  echo "=== $label: $((SECONDS - started)) s"
}

core=$(core_venv)
latest=$(bpy_venv 5.0.1)
if $quick; then
  run "core tests, no bpy" "$core" -m "not blender" "$@"
  run "smoke runs of every command and operator, bpy 5.0.1" "$latest" -m "blender and smoke" "$@"
  exit $status
fi
run "core tests, no bpy" "$core" -m "not blender" "$@"
run "Blender-side tests, bpy 5.0.1" "$latest" -m blender "$@"
for version in 4.5.15 4.2.23; do
  run "what differs between Blender versions, bpy $version" "$(bpy_venv "$version")" -m "every_blender" "$@"
done
exit $status
