"""The SGF as a player sees it in a real viewer: CGoban 1.9 (Debian's
``cgoban``) opens joseki.sgf on a virtual screen (Xvfb), a click on its
"next move" button walks the main line, and the comment box is read back
from a screenshot (tesseract's OCR).  CGoban reads comments as Latin-1
whatever CA says, so the SGF's own words must be ASCII: the separator of
the first line once showed as "A-circumflex, middle dot".

Skipped, saying so, where cgoban, Xvfb, xdotool, ImageMagick's import or
tesseract are missing (``make setup`` installs them where apt-get can).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from joseki_miner.runs.config import load
from joseki_miner.runs.catalog import Catalog
from joseki_miner.runs.catalog import STAGES
from pipeline.run import Request, run_stages

CGOBAN = shutil.which("cgoban") or ("/usr/games/cgoban" if os.path.exists("/usr/games/cgoban") else None)
TOOLS = {
    "cgoban": CGOBAN,
    "Xvfb": shutil.which("Xvfb"),
    "xdotool": shutil.which("xdotool"),
    "import": shutil.which("import"),
    "tesseract": shutil.which("tesseract"),
}
# in CGoban 1.9.14's edit window (542 x 542 at the screen's corner): the "next move" button, the comment box
NEXT = (478, 165)
COMMENT = (35, 460, 500, 70)  # x, y, width, height


@pytest.fixture
def screen():
    missing = [name for name, path in TOOLS.items() if not path]
    if missing:
        pytest.skip(f"needs {', '.join(missing)} (Debian: cgoban xvfb xdotool imagemagick tesseract-ocr; make setup)")
    display = f":{90 + os.getpid() % 100}"
    xvfb = subprocess.Popen(
        [TOOLS["Xvfb"], display, "-screen", "0", "1024x768x24"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    env = {**os.environ, "DISPLAY": display}
    try:
        for _ in range(50):
            if subprocess.run([TOOLS["xdotool"], "getdisplaygeometry"], env=env, capture_output=True).returncode == 0:
                break
            time.sleep(0.1)
        yield env
    finally:
        xvfb.terminate()
        xvfb.wait()


def _window(env: dict, title: str, timeout: float = 15) -> str:
    end = time.time() + timeout
    while time.time() < end:
        found = subprocess.run([TOOLS["xdotool"], "search", "--name", title], env=env, capture_output=True, text=True)
        if found.stdout.strip():
            return found.stdout.split()[0]
        time.sleep(0.2)
    raise AssertionError(f"no window titled {title!r}")


def _comment(env: dict, tmp: Path) -> list[str]:
    """The comment box's lines, read from a screenshot."""
    x, y, w, h = COMMENT
    shot = tmp / "comment.png"
    subprocess.run(
        [TOOLS["import"], "-window", "root", "-crop", f"{w}x{h}+{x}+{y}", "-resize", "300%", str(shot)],
        env=env,
        check=True,
    )
    text = subprocess.run([TOOLS["tesseract"], str(shot), "-"], capture_output=True, text=True, check=True).stdout
    return [line.strip() for line in text.splitlines() if line.strip()]


def test_cgoban_shows_what_each_move_is_in_ascii(screen, demo_games, tmp_path):
    catalog = Catalog(work=tmp_path / "interim", out=tmp_path / "out")
    run_stages(catalog, load(None), STAGES, [demo_games], Request(progress=False))
    viewer = subprocess.Popen(
        [CGOBAN, "-edit", str(catalog.sgf)], env=screen, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        _window(screen, "Joseki of 400 games")  # the game's name: CGoban read the file
        # the main line: each node's most played child, down to where the joseki ends
        for _ in range(6):
            subprocess.run([TOOLS["xdotool"], "mousemove", *map(str, NEXT), "click", "1"], env=screen, check=True)
            time.sleep(0.3)
        time.sleep(0.5)
        subprocess.run([TOOLS["import"], "-window", "root", str(tmp_path / "cgoban.png")], env=screen, check=True)
        lines = _comment(screen, tmp_path)
        assert lines[0] == "Joseki ends here.", lines
        assert re.match(r"\d+ games \(\d+% of the moves here\); Black wins \d+% \(\d+-\d+%\); \d{4}-\d{4}", lines[1]), (
            lines
        )
    finally:
        viewer.terminate()
        viewer.wait()
