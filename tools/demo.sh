#!/usr/bin/env bash
# Install what the demo needs (a venv with the bpy module) and run the main job
# on the built-in demo clip. Output goes to ./out (or the folder given).
set -euo pipefail
cd "$(dirname "$0")/.."
source tools/venv.sh
py=$(venv bpy-5.0.1 "bpy==5.0.1" "numpy<2" "pytest>=8" "hypothesis>=6" pytest-blender)
link_package "$py"
exec "$py" tools/demo.py "${1:-out}"
