#!/usr/bin/env bash
# Install Debian's chromium and its chromedriver (the report's browser tests)
# with apt when we can; the tests skip, saying so, without them.  Never a
# browser download: the test machines reach only the package registries.
set -u
command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1 && exit 0
command -v apt-get >/dev/null 2>&1 || exit 1
SUDO=""
[ "$(id -u)" = 0 ] || SUDO="sudo -n"
$SUDO apt-get update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq chromium chromium-driver >/dev/null 2>&1 || exit 1
command -v chromium >/dev/null 2>&1 && command -v chromedriver >/dev/null 2>&1
