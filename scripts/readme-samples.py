#!/usr/bin/env python3
"""Write the README's samples from real runs, so that they cannot drift.

    scripts/readme-samples.py                  mine the demo in a scratch folder, rewrite its samples
    scripts/readme-samples.py --out DIR        the samples of all of ../shared/data too, from a run in DIR
    scripts/readme-samples.py --check [--out DIR]   rewrite nothing: exit 1, naming each sample that differs

A sample is the text between ``<!-- sample NAME -->`` and ``<!-- /sample -->``
in README.md (a fenced block in between):

* ``demo-summary``: the lines ``make mine`` prints at its end, from a run of
  ``joseki mine`` on the demo collection (its seconds aside when checked:
  they are the machine's);
* ``sgf-comment`` (with ``--out``): the comment of the most played first
  move in joseki.sgf of the run in DIR (of all of ../shared/data), its
  example games shortened to the first.

Run from anywhere; it runs the project's code with the Python that runs it.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
README = ROOT / "README.md"
SHOWN_OUT = "data/processed"  # where `make mine` writes: the folder the summary names
SECONDS = re.compile(r"\((\d+(?:\.\d+)?) s\)$", re.M)
FROM_DEMO, FROM_OUT = ("demo-summary",), ("sgf-comment",)


def block(text: str, name: str) -> re.Match:
    """Where sample ``name`` is in the README's ``text`` (its fenced lines: group 2)."""
    found = re.search(rf"(<!-- sample {re.escape(name)} -->\n```\n)(.*?)(```\n<!-- /sample -->)", text, re.S)
    if found is None:
        raise SystemExit(
            f"readme-samples: README.md has no sample {name!r} (<!-- sample {name} --> ... <!-- /sample -->)"
        )
    return found


def joseki(*args: str) -> str:
    """``joseki ARGS``, as this checkout's code runs it: what it prints."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT / "src"), str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    done = subprocess.run(
        [sys.executable, "-m", "pipeline.cli", *args], cwd=ROOT, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"readme-samples: joseki {' '.join(args)} failed: {done.stderr.strip().splitlines()[-1:]}")
    return done.stdout


def demo_summary() -> str:
    """The last lines of ``joseki mine`` on the demo, its folder written as
    ``make mine``'s."""
    with tempfile.TemporaryDirectory(prefix="readme-samples-") as scratch:
        demo, out = Path(scratch) / "demo", Path(scratch) / "processed"
        joseki("demo", "--out", str(demo))
        said = joseki("mine", str(demo), "--work", str(out / "interim"), "--out", str(out), "--quiet")
    lines = said.strip().splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith("games read "))
    return "\n".join(lines[start:]).replace(f"outputs in {out}", f"outputs in {SHOWN_OUT}") + "\n"


def sgf_comment(out: Path) -> str:
    """The comment of the most played first move of ``out``/joseki.sgf (the
    first variation: the tree's children are in order of count), its
    example games shortened to the first."""
    from sgfmill import sgf

    path = out / "joseki.sgf"
    if not path.is_file():
        raise SystemExit(f"readme-samples: no joseki.sgf in {out}: mine ../shared/data there first")
    first = sgf.Sgf_game.from_bytes(path.read_bytes()).get_root()[0]
    lines = first.get("C").splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Games: "):
            lines[i] = line.split("; ")[0].rstrip(".") + "; ... (three example games)"
    return "\n".join(lines) + "\n"


def same(name: str, written: str, made: str) -> bool:
    """Whether the README's sample says what the run made (the demo's
    seconds aside: they are the machine's)."""
    if name == "demo-summary":
        written, made = SECONDS.sub("(s)", written), SECONDS.sub("(s)", made)
    return written == made


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", type=Path, help="the output folder of a run of all of ../shared/data")
    parser.add_argument("--check", action="store_true", help="rewrite nothing; exit 1 where a sample differs")
    parser.add_argument("--readme", type=Path, default=README, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    text = args.readme.read_text(encoding="utf-8")
    made = {"demo-summary": demo_summary()}
    if args.out is not None:
        made["sgf-comment"] = sgf_comment(args.out)
    differ = []
    for name, sample in made.items():
        found = block(text, name)
        if same(name, found.group(2), sample):
            continue
        differ.append(name)
        text = text[: found.start(2)] + sample + text[found.end(2) :]
    if args.check:
        for name in differ:
            print(f"readme-samples: README.md's sample {name!r} is not what a run gives: run scripts/readme-samples.py")
        return 1 if differ else 0
    if differ:
        args.readme.write_text(text, encoding="utf-8")
    print(f"readme-samples: {', '.join(differ) or 'no sample'} rewritten; {', '.join(made)} from runs")
    return 0


if __name__ == "__main__":
    sys.exit(main())
