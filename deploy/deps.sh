#!/bin/sh
# Installs the Debian 12 packages that building, running and testing need.
# Idempotent and quick when everything is present.
set -e
PKGS="build-essential pkg-config clang libclang-rt-14-dev
libmicrohttpd-dev libjansson-dev libsodium-dev libmbedtls-dev libsqlite3-dev sqlite3
check libsubunit-dev
python3 python3-pytest python3-jwcrypto python3-cryptography python3-lxml python3-requests python3-jsonschema
nginx-light wrk curl e2fsprogs
chromium"
# Node.js (for the HTML validator) may come from Debian or be preinstalled.
command -v npm >/dev/null 2>&1 || PKGS="$PKGS nodejs npm"
missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "ok installed" || missing="$missing $p"
done
if [ -n "$missing" ]; then
	echo "deps: installing$missing"
	SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO=sudo
	$SUDO apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends $missing
fi
# The test tools from npm, pinned in tests/package-lock.json: the HTML
# validator the page tests run (html-validate) and the driver of the browser
# tests (playwright-core; it drives Debian's chromium and downloads nothing).
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/tests/package.json" ] && { [ ! -x "$here/tests/node_modules/.bin/html-validate" ] ||
	[ ! -f "$here/tests/node_modules/playwright-core/package.json" ]; }; then
	echo "deps: installing the npm test tools (html-validate, playwright-core)"
	(cd "$here/tests" && npm ci --no-audit --no-fund --loglevel=error)
fi
exit 0
