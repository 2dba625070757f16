#!/bin/bash
# SPDX-License-Identifier: Apache-2.0
# live-view.sh - the README's picture of the browser live view: a capture
# of tar | gzip with --serve, its page opened in headless Chromium
# (tests/browser/driver.js: the browser tests' driver, installed as they
# install it), zoomed to gzip and searching for "pipe" after a few
# refreshes, saved as live-view.png (1280x720).  Usage (root):
# examples/live-view.sh [--update] (build/examples/, or examples/ with
# --update: see common.sh)
. "$(dirname "$0")/common.sh"
TOP=$(cd .. && pwd)
. "$TOP/tests/browser/setup.sh"
browser_setup || { echo "live-view.sh: $BROWSER_WHY" >&2; exit 1; }
err=$(mktemp)
trap 'kill $cap 2> /dev/null; rm -f "$err"' EXIT
"$BIN" -q --serve 127.0.0.1:0 --interval 1 -o /dev/null \
	--title="Off-Wake Time Flame Graph: tar | gzip" \
	-- sh -c 'for i in 1 2 3; do tar cf - /usr/share 2> /dev/null | gzip -1 > /dev/null; done' 2> "$err" &
cap=$!
for _ in $(seq 200); do
	port=$(sed -n 's|.*live view at http://127\.0\.0\.1:\([0-9]*\)/.*|\1|p' "$err")
	[ -n "$port" ] && break
	sleep 0.1
done
[ -n "$port" ] || { cat "$err" >&2; exit 1; }
URL="http://127.0.0.1:$port/" PNG="$(pwd)/$OUTDIR/live-view.png" CHROMIUM=$CHROMIUM \
	BROWSER_DIR=$BROWSER_DIR node -e '
const driver = require(process.env.BROWSER_DIR + "/driver");
const sleep = ms => new Promise(r => setTimeout(r, ms));
(async () => {
	const ctx = await driver.launch("chromium", require("fs").mkdtempSync("/tmp/ow-shot-"));
	const page = await ctx.newPage();
	await page.setViewportSize({ width: 1280, height: 720 });
	page.on("dialog", d => d.accept("pipe"));
	await page.goto(process.env.URL);
	await sleep(6000);
	const at = await page.evaluate(() => {
		const f = window.offwake_live.frame(), doc = f.contentDocument, fr = f.getBoundingClientRect();
		const g = [...doc.getElementById("frames").children].find(g =>
			/^gzip /.test(g.querySelector("title").textContent));
		const s = doc.getElementById("search").getBoundingClientRect();
		const r = g.querySelector("rect").getBoundingClientRect();
		return { search: [fr.left + s.left + s.width / 2, fr.top + s.top + s.height / 2],
			frame: [fr.left + r.left + Math.min(r.width / 2, 100), fr.top + r.top + r.height / 2] };
	});
	await page.mouse.click(...at.search);
	await page.evaluate(y => window.scrollTo(0, y - 500), at.frame[1]);
	const y = await page.evaluate(() => window.scrollY);
	await page.mouse.click(at.frame[0], at.frame[1] - y);
	await sleep(2500);	// an update or two: the zoom and the search stay
	await page.screenshot({ path: process.env.PNG });
	await ctx.close();
})().catch(e => { console.error(e); process.exit(1); });
'
echo "wrote $SHOWN/live-view.png"
