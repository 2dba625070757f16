// SPDX-License-Identifier: Apache-2.0
// live_test.js - drive the browser live view (offwake-svg --serve) in a
// real browser (driver.js: Debian's Chromium or firefox-esr) while a
// capture runs, and check what a user sees: the graph arrives and updates
// without a reload; a zoom (a real mouse click on a frame), a search and
// the scroll position survive an update; Pause stops the updates and
// Resume brings them back; the download links give a valid SVG, folded
// lines and gzipped pprof; without --timeline no heat map; no script
// error.
//
// Usage: node live_test.js URL ARTIFACTS [chromium|firefox] FRAME SEARCH
//   URL: the page (http://127.0.0.1:PORT/); FRAME: the name of a frame to
//   zoom to, a few levels above the root; SEARCH: a regular expression
//   that matches some frames.  ARTIFACTS receives live.png.  Prints
//   PASS:/FAIL: lines.
"use strict";
const fs = require("fs");
const path = require("path");
const { sleep, checks, until, openLive } = require("./live_checks");

const [URL_, ARTIFACTS, BROWSER = "chromium", FRAME = "sleep_loop", SEARCH = "nanosleep"] = process.argv.slice(2);
const { fail, check } = checks("live");

// In the page: the zoomed frame of the shown graph (from its URL's x and
// y, as render/script.js keeps them), as its names from the root; the
// search term; "Matched:" text; whether Reset Zoom shows.
function shownState() {
	const f = window.offwake_live.frame();
	if (!f) return null;
	const win = f.contentWindow, doc = f.contentDocument;
	const q = new URL(win.location.href).searchParams;
	const x = q.get("x"), y = q.get("y");
	const frames = [...doc.getElementById("frames").children].map(g => {
		const r = g.querySelector("rect"), t = g.querySelector("title");
		return r && t && { name: t.textContent.replace(/ \([^()]*\)$/, ""),
			xs: r.getAttribute("x"), ys: r.getAttribute("y"),
			x: +r.getAttribute("x"), w: +r.getAttribute("width"), y: +r.getAttribute("y") };
	}).filter(Boolean);
	const z = frames.find(f => f.xs === x && f.ys === y);
	const path = z ? frames.filter(f => f.y >= z.y && f.x <= z.x + 0.05 && f.x + f.w >= z.x + z.w - 0.05)
		.sort((a, b) => b.y - a.y).map(f => f.name) : null;
	const unzoom = doc.getElementById("unzoom"), matched = doc.getElementById("matched");
	return {
		path, search: q.get("s"), matched: matched ? matched.textContent : "",
		unzoomShown: !!unzoom && !unzoom.classList.contains("hide"),
		src: f.getAttribute("src"), scrollY: window.scrollY,
		live: window.offwake_live.state(),
	};
}

// In the page: where to click to hit the frame named arg (in the page's
// coordinates), after scrolling it into view.
function aimAt(name) {
	const f = window.offwake_live.frame(), doc = f.contentDocument;
	const g = [...doc.getElementById("frames").children].find(g => {
		const t = g.querySelector("title");
		return t && t.textContent.replace(/ \([^()]*\)$/, "") === name;
	});
	if (!g) return null;
	const fr = f.getBoundingClientRect();
	let r = g.querySelector("rect").getBoundingClientRect();
	window.scrollTo(0, Math.max(0, window.scrollY + fr.top + r.top - innerHeight / 2));
	const fr2 = f.getBoundingClientRect();
	return { x: fr2.left + r.left + Math.min(r.width / 2, 200), y: fr2.top + r.top + r.height / 2,
		scrollY: window.scrollY };
}

async function downloads(page) {
	return page.evaluate(async () => {
		const out = {};
		for (const id of ["dl-svg", "dl-folded", "dl-pprof"]) {
			const a = document.getElementById(id);
			const r = await fetch(a.href);
			const b = new Uint8Array(await r.arrayBuffer());
			out[id] = { status: r.status, disp: r.headers.get("Content-Disposition") || "",
				head: Array.from(b.slice(0, 2)), text: new TextDecoder().decode(b.slice(0, 4000)),
				len: b.length, download: a.getAttribute("download") };
		}
		return out;
	});
}

async function main() {
	const { ctx, page, errors } = await openLive(BROWSER, URL_, 1280, 300);

	// ---- the graph arrives, then updates without a reload ----
	const first = await until(page, () => { const s = window.offwake_live.state(); return s.shown > 0 && !s.loading && s; }, null, 15000);
	check("the page shows a graph", first, "no generation shown after 15 s");
	if (!first) { await ctx.close(); return; }
	const noMap = await page.evaluate(() => { const f = window.offwake_live.frame(); return !f.contentDocument.getElementById("heatmap") && typeof f.contentWindow.fg_heat === "undefined"; });
	check("no heat map without --timeline", noMap, "the SVG has one");
	await page.evaluate(() => { window.__same_page = 1; });
	const second = await until(page, g => { const s = window.offwake_live.state(); return s.shown > g && !s.loading && s; }, first.shown, 20000);
	const same = await page.evaluate(() => window.__same_page === 1);
	check("updates arrive without a reload", second && same,
		second ? "the page was reloaded" : "still generation " + first.shown + " after 20 s: " +
		JSON.stringify(await page.evaluate(() => window.offwake_live.state())));

	// ---- a search (the Search button and its prompt, as a user), then a
	// zoom by a real click on a frame further down, which scrolls ----
	page.on("dialog", async d => { if (d.type() === "prompt") await d.accept(SEARCH); else await d.dismiss(); });
	const button = await page.evaluate(() => {
		window.scrollTo(0, 0);
		const f = window.offwake_live.frame(), r = f.contentDocument.getElementById("search").getBoundingClientRect();
		const fr = f.getBoundingClientRect();
		return { x: fr.left + r.left + r.width / 2, y: fr.top + r.top + r.height / 2 };
	});
	await page.mouse.click(button.x, button.y);
	// (the prompt answered and the search made before the next click)
	await until(page, () => /^Matched/.test(window.offwake_live.frame().contentDocument.getElementById("matched").textContent), null, 5000);
	const aim = await page.evaluate(aimAt, FRAME);
	if (!check("the graph has frame " + FRAME, aim, "no frame named " + FRAME)) { await ctx.close(); return; }
	await page.mouse.click(aim.x, aim.y);
	// (render/script.js writes the zoom and the search into the URL after
	// the next paint)
	await page.evaluate("window.__shown = " + shownState.toString());
	const settled = () => { const s = window.__shown(); return s.path && s.search && s.unzoomShown && s; };
	const before = await until(page, settled, null, 5000) || await page.evaluate(shownState);
	check("a click zooms to " + FRAME, before.path && before.path[before.path.length - 1] === FRAME && before.unzoomShown,
		JSON.stringify(before.path) + ", Reset Zoom shown: " + before.unzoomShown);
	check("the search matches", /^Matched: [0-9.]+%$/.test(before.matched), JSON.stringify(before.matched));
	// (an update whose state is written: a lost one never is)
	const updated = await until(page, g => window.offwake_live.state().shown > g, before.live.shown, 10000);
	const after = updated && (await until(page, settled, null, 5000) || await page.evaluate(shownState));
	if (check("an update arrives after the zoom", updated, "none in 10 s")) {
		check("the zoom survives an update", after.src !== before.src && JSON.stringify(after.path) === JSON.stringify(before.path) && after.unzoomShown,
			"before " + JSON.stringify(before.path) + " (" + before.src + "), after " + JSON.stringify(after.path) + " (" + after.src + ")");
		check("the search survives an update", after.search === SEARCH && /^Matched: [0-9.]+%$/.test(after.matched),
			"search " + JSON.stringify(after.search) + ", " + JSON.stringify(after.matched));
		check("the scroll position survives an update", Math.abs(after.scrollY - before.scrollY) <= 1 && before.scrollY > 0,
			"scrollY " + before.scrollY + " -> " + after.scrollY);
	}

	// ---- Pause stops the updates; Resume brings them back ----
	await page.click("#pause");
	const held = (await page.evaluate(shownState)).live;
	await until(page, g => window.offwake_live.state().newest > g + 1, held.shown, 10000);
	await sleep(300);
	const paused = (await page.evaluate(shownState)).live;
	check("pause stops the updates", paused.paused && paused.shown === held.shown && paused.newest > held.shown + 1,
		JSON.stringify({ held, paused }));
	await page.click("#pause");
	const resumed = await until(page, g => { const s = window.offwake_live.state(); return s.shown > g && !s.paused && s; }, paused.shown, 10000);
	check("resume brings the updates back", resumed, "still generation " + paused.shown + " after 10 s");

	// ---- the downloads ----
	const dl = await downloads(page);
	check("download SVG", dl["dl-svg"].status === 200 && /<svg[\s>]/.test(dl["dl-svg"].text) &&
		/attachment; filename="offwake.svg"/.test(dl["dl-svg"].disp), JSON.stringify(dl["dl-svg"]).slice(0, 300));
	const lines = dl["dl-folded"].text.split("\n").slice(0, -1);
	check("download folded", dl["dl-folded"].status === 200 && lines.length > 0 &&
		lines.every(l => /^\S.* \d+$/.test(l)), JSON.stringify(dl["dl-folded"]).slice(0, 300));
	check("download pprof (gzip)", dl["dl-pprof"].status === 200 && dl["dl-pprof"].head[0] === 0x1f &&
		dl["dl-pprof"].head[1] === 0x8b && dl["dl-pprof"].len > 100, JSON.stringify(dl["dl-pprof"]).slice(0, 300));

	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.evaluate(() => window.scrollTo(0, 0));
	await page.screenshot({ path: path.join(ARTIFACTS, "live.png") });
	check("no script errors", errors.length === 0, errors.join(" | ").slice(0, 400));
	await ctx.close();
}

main().catch(e => { fail("harness", String(e && e.stack || e)); process.exitCode = 1; });
