#!/usr/bin/env bash
# Install Graphviz's `dot` (for SVG renderings of the trees) with apt when we
# can; the pipeline writes DOT files without it and skips SVG.
set -u
command -v dot >/dev/null 2>&1 && exit 0
command -v apt-get >/dev/null 2>&1 || exit 1
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
$SUDO apt-get update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq graphviz >/dev/null 2>&1 || exit 1
command -v dot >/dev/null 2>&1
