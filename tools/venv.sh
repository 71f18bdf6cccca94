# Sourced by tools/*.sh from the checkout's root: pick Python 3.11 and create
# reusable venvs in .venv/. Each bpy venv downloads a ~350-375 MB wheel and takes
# ~1 GB on disk. Every venv installs from one folder of downloaded wheels, kept
# per user ($LOOPSMITH_WHEELS, else ~/.cache/loopsmith/wheels), so nothing is
# downloaded twice: not by two venvs, nor by a venv rebuilt after its requirements
# change, nor by a second clone. (pip's own cache would not do: it keeps only what
# the index marks cacheable, and some mirrors mark nothing.)
python=${PYTHON:-}
for candidate in $python python3.11 python3; do
  if command -v "$candidate" >/dev/null && "$candidate" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))'; then
    python=$candidate; break
  fi
done
"$python" -c 'import sys; sys.exit(sys.version_info[:2] != (3, 11))' 2>/dev/null || {
  echo "$0: the bpy module needs Python 3.11; set PYTHON=/path/to/python3.11" >&2; exit 2; }

wheels=${LOOPSMITH_WHEELS:-${XDG_CACHE_HOME:-$HOME/.cache}/loopsmith/wheels}
mkdir -p "$wheels"

common_requirements=("numpy<2" "pytest>=8" "hypothesis>=6" "pytest-xdist>=3.6")
# Dask's client and workers for --scheduler (optional for users; tests/cli/test_cluster.py runs a real cluster on every bpy).
# ~10 MB; this release supports Python 3.11 and numpy 1.26. pipeline/cluster.py names the same pin in its message.
cluster_requirements=("distributed==2026.8.0")

venv() {  # venv NAME REQUIREMENT... -> prints the venv's python
  local dir=".venv/$1"; shift
  local wanted="$*"
  if [ ! -x "$dir/bin/python" ] || [ "$(cat "$dir/.requirements" 2>/dev/null)" != "$wanted" ]; then
    echo "=== setting up $dir: $wanted (full log: $dir.log)" >&2
    rm -rf "$dir" "$dir.log"
    "$python" -m venv "$dir"
    # pip's output and progress go to the terminal, its detailed log to $dir.log;
    # `python -m pip` because a script's #! line cannot hold a folder with a space.
    if ! { "$dir/bin/python" -m pip download --disable-pip-version-check --log "$dir.log" --dest "$wheels" "$@" &&
           "$dir/bin/python" -m pip install --disable-pip-version-check --log "$dir.log" --quiet \
             --no-index --find-links "$wheels" "$@"; } >&2; then
      echo "$0: installing into $dir failed (log: $dir.log)" >&2; exit 2
    fi
    echo "$wanted" > "$dir/.requirements"
  fi
  echo "$dir/bin/python"
}

# Test-only references for the core's beat tracker (tests/core/test_music_beats.py, bench/bench_beats.py): librosa's
# beat_track to compare with and soundfile to decode the shared OGG. Never a dependency of the add-on or of core/.
core_requirements=("librosa==0.11.0" "soundfile==0.14.0")

core_venv() {  # core_venv -> prints the python of the venv without bpy
  venv core "${common_requirements[@]}" "${core_requirements[@]}"
}

bpy_venv() {  # bpy_venv VERSION -> prints the python of the venv with bpy==VERSION and Dask, the checkout linked as `loopsmith`
  local py
  py=$(venv "bpy-$1" "bpy==$1" "${common_requirements[@]}" pytest-blender "${cluster_requirements[@]}") || exit 2
  link_package "$py"
  echo "$py"
}

link_package() {  # link_package PYTHON: make `python -m loopsmith` import this checkout, whatever its folder is called
  local site
  site=$("$1" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  ln -sfn "$PWD" "$site/loopsmith"
}
