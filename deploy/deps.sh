#!/bin/sh
# Installs the Debian 12 packages that building, running and testing need.
# Idempotent and quick when everything is present.
set -e
PKGS="build-essential pkg-config clang libclang-rt-14-dev
libmicrohttpd-dev libjansson-dev libsodium-dev libmbedtls-dev libsqlite3-dev sqlite3 zlib1g-dev libicu-dev
check libsubunit-dev
python3 python3-pytest python3-jwcrypto python3-cryptography python3-lxml python3-requests python3-jsonschema
nginx-light wrk curl e2fsprogs trang libxml2-utils prometheus
chromium
golang-go golang-golang-x-mod-dev
librsvg2-bin fonts-dejavu-core"
# libicu-dev: ICU's spoof checker (UTS #39 confusable skeletons and
# restriction levels) tells names that only look alike (util/confusable.c).
# rsvg-convert (librsvg2-bin) draws the link-preview cards (/card/<id>.png)
# from their SVG as a subprocess, in DejaVu Sans (fonts-dejavu-core); without
# it the daemon serves no cards (503) and says so once at start.
# Go and golang.org/x/mod (sumdb/tlog, sumdb/note) from Debian check the
# transparency log independently (tests/tlog_go, built offline with
# GO111MODULE=off GOPATH=/usr/share/gocode; nothing is downloaded).
# prometheus brings promtool, which checks /metrics (tests/http/test_metrics.py).
# The tests never use the Prometheus server it also installs; on a host run
# by systemd Debian starts that server (port 9090): `systemctl disable --now
# prometheus` if you do not want it.
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
# Node.js runs the HTML validator and the browser tests; both need 18 or
# later (Debian 12 ships 18.19+). An older node is an error to fix, not to hide.
if ! node -e 'const [a, b] = process.versions.node.split(".").map(Number); process.exit(a > 18 || (a === 18 && b >= 19) ? 0 : 1)'; then
	echo "deps: node $(node --version 2>/dev/null) is too old: the test tools need Node.js 18.19 or later (Debian 12's nodejs package)" >&2
	exit 1
fi
# The test tools from npm, pinned in tests/package.json and its lock: the HTML
# validator the page tests run (html-validate), the driver of the browser
# tests (playwright-core; it drives Debian's chromium and downloads nothing),
# axe-core, shields' badge-maker, which the badge test compares with, and
# Lighthouse 12.2.3 (the last line that runs on Node 18), which scores the
# main pages in Debian's chromium.
# Each must be installed at exactly its pinned version, so a node_modules left
# from an older pin is refreshed with `npm ci`.
here=$(cd "$(dirname "$0")/.." && pwd)
if [ -f "$here/tests/package.json" ] && ! (cd "$here/tests" && node -e '
	const fs = require("fs");
	const want = JSON.parse(fs.readFileSync("package.json")).devDependencies;
	for (const [name, version] of Object.entries(want)) {
		let got = "(none)";
		try { got = JSON.parse(fs.readFileSync(`node_modules/${name}/package.json`)).version; } catch (e) {}
		if (got !== version) { console.log(`deps: ${name} ${got}, pinned ${version}`); process.exit(1); }
	}'); then
	echo "deps: installing the npm test tools pinned in tests/package-lock.json"
	(cd "$here/tests" && rm -rf node_modules && npm ci --no-audit --no-fund --loglevel=error)
fi
exit 0
