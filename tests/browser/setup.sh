# SPDX-License-Identifier: Apache-2.0
# shellcheck shell=bash disable=SC2034  # (BROWSER_WHY, CHROMIUM, FIREFOX are for the caller)
# setup.sh - sourced by tests/t_browser.sh and tests/bench/browser_bench.sh:
# installs what driving a real browser needs when it is missing, non-
# interactively.  browser_setup: Debian's chromium, node >= 20 with npm, and
# the packages of tests/browser/package-lock.json (playwright-core,
# puppeteer-core) by `npm ci`; firefox_setup: that, and Debian's
# firefox-esr.  Each returns 0 when everything is there, else 1 with the
# reason in BROWSER_WHY.  Needs TOP; sets CHROMIUM (default
# /usr/bin/chromium), FIREFOX (default /usr/bin/firefox-esr) and BROWSER_DIR.
BROWSER_DIR=$TOP/tests/browser
CHROMIUM=${CHROMIUM:-/usr/bin/chromium}
FIREFOX=${FIREFOX:-/usr/bin/firefox-esr}

# node >= 20 and the npm packages the drivers need
node_setup() {
	BROWSER_WHY=
	if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
		sh "$TOP/tests/deps.sh" nodejs npm >&2
	fi
	if ! node -e 'process.exit(+process.versions.node.split(".")[0] >= 20 ? 0 : 1)' 2>/dev/null; then
		BROWSER_WHY="node >= 20 with npm is needed for playwright-core and puppeteer-core (have: $(node --version 2>&1))"
		return 1
	fi
	local m
	for m in playwright-core puppeteer-core; do
		[ -f "$BROWSER_DIR/node_modules/$m/package.json" ] && continue
		echo "browser: installing playwright-core and puppeteer-core (npm ci in tests/browser)" >&2
		if ! (cd "$BROWSER_DIR" && npm ci --no-audit --no-fund --loglevel=error </dev/null >&2); then
			BROWSER_WHY="npm could not install playwright-core and puppeteer-core"
			return 1
		fi
		break
	done
	return 0
}

browser_setup() {
	BROWSER_WHY=
	if [ ! -x "$CHROMIUM" ] && ! sh "$TOP/tests/deps.sh" chromium >&2; then
		BROWSER_WHY="Debian package chromium could not be installed"
		return 1
	fi
	node_setup
}

firefox_setup() {
	BROWSER_WHY=
	if [ ! -x "$FIREFOX" ] && ! sh "$TOP/tests/deps.sh" firefox-esr >&2; then
		BROWSER_WHY="Debian package firefox-esr could not be installed"
		return 1
	fi
	node_setup
}

# The browsers there are (installed when missing) into $browsers,
# "chromium firefox" or fewer; each one missing is a skip line named
# "LABEL (BROWSER)".
pick_browsers() {
	browsers=
	if browser_setup; then browsers=chromium; else skip "$1 (chromium)" "$BROWSER_WHY"; fi
	if firefox_setup; then browsers="$browsers firefox"; else skip "$1 (firefox)" "$BROWSER_WHY"; fi
}
