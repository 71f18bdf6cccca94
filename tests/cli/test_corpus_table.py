"""``tools/corpus_table.py`` runs every command over a folder of BVH files and prints one Markdown row per file with a
column per command, each cell read from the report the command wrote."""

import importlib.util
import json
import subprocess
import sys

import pytest

import bvh_bodies
from core.formats import bvh
from helpers import REPO

pytestmark = [pytest.mark.blender]
bpy = pytest.importorskip("bpy")

CELLS = ("GOOD", "CHECK", "VISIBLE", "ok", "-")


def test_the_table_has_a_row_per_file_and_a_column_per_command(tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    turns, root = bvh_bodies.walk(45, 30, 0.95)
    walk = bvh_bodies.body_info(bvh_bodies.BIPED, bvh_bodies.BIPED_ENDS, bvh_bodies.CM, turns, root, frames=45)
    (corpus / "walk_cm.bvh").write_text(bvh.to_text(walk))
    (corpus / "walk_inches.bvh").write_text(bvh.to_text(bvh_bodies.body_info(
        bvh_bodies.BIPED, bvh_bodies.BIPED_ENDS, bvh_bodies.INCH, turns, root, frames=45)))
    (corpus / "MANIFEST.md").write_text("| file | source | path | licence | exporter |\n|---|---|---|---|---|\n"
                                        "| walk_cm.bvh | synthetic @ 0 | - | - | test walker, cm |\n")
    done = subprocess.run([sys.executable, str(REPO / "tools" / "corpus_table.py"), str(corpus), "--python", sys.executable,
                           "--json", str(tmp_path / "table.json")], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    spec = importlib.util.spec_from_file_location("corpus_table", REPO / "tools" / "corpus_table.py")
    corpus_table = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(corpus_table)
    lines = done.stdout.strip().splitlines()
    header = [cell.strip() for cell in lines[0].strip("|").split("|")]
    assert header == ["file", "source", "exporter", "joints", "fps", "frames", *corpus_table.COLUMNS]
    rows = {cells[0]: cells for cells in ([cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:])}
    assert sorted(rows) == ["walk_cm.bvh", "walk_inches.bvh"]
    assert rows["walk_cm.bvh"][1:6] == ["synthetic", "test walker, cm", "19", "30", "45"]
    for name, cells in rows.items():
        for column, cell in zip(corpus_table.COLUMNS, cells[6:]):
            assert cell in CELLS or cell.startswith("refused: "), (name, column, cell)
        assert cells[6] == "GOOD", (name, cells)  # converting to BVH changes nothing
    results = json.loads((tmp_path / "table.json").read_text())["files"]
    assert results["walk_cm.bvh"]["convert bvh"]["exit"] == 0 and results["walk_cm.bvh"]["frames"] == 45
