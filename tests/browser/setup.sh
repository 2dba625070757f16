# SPDX-License-Identifier: Apache-2.0
# setup.sh - sourced by tests/t_browser.sh and tests/bench/browser_bench.sh:
# browser_setup installs what driving a real browser needs when it is
# missing (Debian's chromium, node >= 20 with npm, playwright-core by `npm ci`
# in tests/browser), non-interactively.  It returns 0 when everything is
# there, else 1 with the reason in BROWSER_WHY.  Needs TOP; sets CHROMIUM
# (default /usr/bin/chromium) and BROWSER_DIR.
browser_setup() {
	BROWSER_DIR=$TOP/tests/browser
	CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
	BROWSER_WHY=
	if [ ! -x "$CHROMIUM" ] && ! sh "$TOP/tests/deps.sh" chromium >&2; then
		BROWSER_WHY="Debian package chromium could not be installed"
		return 1
	fi
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		sh "$TOP/tests/deps.sh" nodejs npm >&2
	fi
	if ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null; then
		BROWSER_WHY="node >= 20 with npm is needed for playwright-core (have: $(node --version 2>&1))"
		return 1
	fi
	if [ ! -f "$BROWSER_DIR/node_modules/playwright-core/package.json" ]; then
		echo "browser: installing playwright-core (npm ci in tests/browser)" >&2
		if ! (cd "$BROWSER_DIR" && npm ci --no-audit --no-fund --loglevel=error </dev/null >&2); then
			BROWSER_WHY="npm could not install playwright-core"
			return 1
		fi
	fi
	return 0
}
