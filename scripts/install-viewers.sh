#!/usr/bin/env bash
# Install what opens the SGF in a real viewer for the tests: Debian's
# cgoban on a virtual screen (xvfb), xdotool to click, ImageMagick's import
# for screenshots and tesseract to read them, with apt when we can; the
# test skips, saying so, without them.
set -u
[ -x /usr/games/cgoban ] && command -v Xvfb >/dev/null 2>&1 && command -v xdotool >/dev/null 2>&1 \
  && command -v import >/dev/null 2>&1 && command -v tesseract >/dev/null 2>&1 && exit 0
command -v apt-get >/dev/null 2>&1 || exit 1
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
$SUDO apt-get update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq cgoban xvfb xdotool imagemagick tesseract-ocr \
  >/dev/null 2>&1 || exit 1
