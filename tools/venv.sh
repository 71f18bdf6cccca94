# Sourced by tools/*.sh: pick Python 3.11 and create reusable venvs in .venv/.
python=${PYTHON:-}
for candidate in $python python3.11 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    python=$candidate; break
  fi
done
"$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || {
  echo "$0: the bpy module needs Python 3.11; set PYTHON=/path/to/python3.11" >&2; exit 2; }

venv() {  # venv NAME REQUIREMENT... -> prints the venv's python
  local dir=".venv/$1"; shift
  local wanted="$*"
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.requirements" 2>/dev/null)" != "$wanted" ]; then
    echo "setting up $dir: $wanted" >&2
    rm -rf "$dir"
    "$python" -m venv "$dir"
    if ! "$dir/bin/pip" install --disable-pip-version-check "$@" > "$dir.log" 2>&1; then
      tail -20 "$dir.log" >&2; echo "$0: installing into $dir failed (log: $dir.log)" >&2; exit 2
    fi
    echo "$wanted" > "$dir/.requirements"
  fi
  echo "$dir/bin/python"
}

link_package() {  # link_package PYTHON: make `python -m loopsmith` import this checkout, whatever its folder is called
  local site
  site=$("$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  ln -sfn "$PWD" "$site/loopsmith"
}
