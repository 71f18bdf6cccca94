#!/usr/bin/env bash
# Install what the demo needs (a venv with the bpy module: ~375 MB download, ~1 GB
# in .venv/ the first time) and run the main job on the built-in demo clip.
# Output goes to OUT (default: ./out), resolved against the folder you run this from.
set -euo pipefail
out=${1:-out}
[[ $out = /* ]] || out="$PWD/$out"
cd "$(dirname "$0")/.."
source tools/venv.sh
py=$(bpy_venv 5.0.1)
exec "$py" tools/demo.py "$out"
