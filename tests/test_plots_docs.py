"""docs/gallery.md shows every figure with the command that drew it; README shows the strategy map."""

from __future__ import annotations

import re
import struct
from pathlib import Path

from dicebase import plots

ROOT = Path(__file__).resolve().parent.parent
GALLERY = (ROOT / "docs" / "gallery.md").read_text()
README = (ROOT / "README.md").read_text()


def gallery_entries() -> list[tuple[str, str, str]]:
    """(command, --out path, image link) for each picture, in page order."""
    commands = re.findall(r"```sh\n(dicebase plot [^\n]*) --out (\S+)\n```\n\n!\[[^\]]*\]\(([^)]+)\)", GALLERY)
    return [(c, out, link) for c, out, link in commands]


def test_gallery_shows_every_figure_with_its_command():
    entries = gallery_entries()
    expected = [f"dicebase plot {name} {extra}".rstrip() for name, spec in plots.FIGURES.items() for extra in spec.gallery]
    assert [c for c, _, _ in entries] == expected, "run: python -m dicebase.plots --db db/dicebase.duckdb"
    for command, out, link in entries:
        png = ROOT / out
        assert png == (ROOT / "docs" / link).resolve() and png.is_file(), out
        data = png.read_bytes()
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and struct.unpack(">I", data[16:20])[0] == 1200


def test_gallery_shows_each_query():
    for name in plots.FIGURES:
        section = GALLERY.split(f"## {name}\n", 1)[1].split("\n## ", 1)[0]
        assert "```sql\nSELECT" in section or "```sql\nWITH" in section, name


def test_readme_shows_the_strategy_map_and_links_the_gallery():
    assert "](docs/gallery/rolled-ones-strategy.png)" in README
    assert "(docs/gallery.md)" in README
    assert (ROOT / "docs" / "gallery" / "rolled-ones-strategy.png").is_file()


def test_docs_use_relative_paths():
    assert "/work/" not in GALLERY and "/tmp/" not in GALLERY
