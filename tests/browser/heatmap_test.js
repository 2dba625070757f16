// SPDX-License-Identifier: Apache-2.0
// heatmap_test.js - the heat map of an SVG with events in a real browser
// (driver.js): the SVG tests/unit_src/t_svg_events.c writes (a worker's
// 2 ms blocks every 100 ms, 80 ms stalls at 1.25, 3.55, 6.05 and 8.45 s,
// each under a stack of its own, stall_one .. stall_four, the third with a
// hostile name).  Checks the hot cells, the tooltip, ?t= ranges with and
// without a stall, drag selection, reset, search and zoom in a range.
// In "capture" mode, the SVG of a real capture of tests/workloads/stall.c
// (tests/t_timeline_views.sh): the worker's 80 ms stalls found in the
// page's own data (fg_heat's blocks), their cells among the hottest, and
// ?t= of a range between two stalls drawn without the stall's stack (its
// distinct functions: the third thread's third_slow, the producer blocked
// in prod_stall), of a range round a stall with them.
//
// Usage: node heatmap_test.js SVG [chromium|firefox] [capture]
// (PASS:/FAIL: lines)
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const driver = require("./driver");

const SVG = process.argv[2];
const BROWSER = process.argv[3] || "chromium";
const SEARCH = "rgb(230,0,230)";
const STALLS = [[1.25, "stall_one"], [3.55, "stall_two"], [6.05, "stall_</script>"], [8.45, "stall_four"]];

function pass(n) { console.log("PASS: heatmap: " + n); }
function fail(n, why) { console.log("FAIL: heatmap: " + n + ": " + why); }
function check(n, ok, why) { if (ok) pass(n); else fail(n, why); return ok; }
const sleep = ms => new Promise(r => setTimeout(r, ms));

let ctx;
const errors = [];	// every page's script errors
async function open(query) {
	const page = await ctx.newPage();
	page.dialogs = 0;
	page.on("pageerror", e => errors.push(String(e.message || e)));
	page.on("dialog", async d => { page.dialogs++; await d.dismiss(); });
	await page.goto("file://" + SVG + (query || ""));
	await page.waitForLoadState("load");
	await ready(page, /./);
	return page;
}

// Wait until the page's URL matches re and its script has run (a range
// chosen on the map loads the page again).
async function ready(page, re) {
	const end = Date.now() + 15000;
	let last = "";
	while (Date.now() < end) {
		try {
			const s = await page.evaluate(() => document.readyState === "complete" &&
				window.offwake_heat && document.getElementById("frames") ? location.href : "");
			last = s || last;
			if (s && re.test(s)) return s;
		} catch (e) {
			// the page is loading again
		}
		await sleep(100);
	}
	throw new Error("the page did not reach " + re + " (at " + last + ")");
}

// The frames' names drawn in #frames, and the root's title.
function drawn(page) {
	return page.evaluate(() => {
		const g = Array.from(document.getElementById("frames").children);
		return g.map(x => x.querySelector("title").textContent);
	});
}
const has = (titles, name) => titles.some(t => t.startsWith(name));
// The time in the frames named name, in the titles' unit (us).
const total = (titles, name) => titles.filter(t => t.startsWith(name + " (")).reduce((s, t) =>
	s + Number(t.slice(name.length + 2).split(" ")[0].replace(/,/g, "")), 0);

// The centre of a cell on the page.
function cellPoint(page, t) {
	return page.evaluate(t => {
		const H = fg_heat, b = document.getElementById("heatgrid").getBoundingClientRect();
		const c = Math.floor(t), r = Math.floor((t - c) * H.rows + 1e-9);
		return { x: b.left + (c + 0.5) * b.width / H.ncols, y: b.top + (r + 0.5) * b.height / H.rows };
	}, t);
}

async function synthetic() {
	let page = await open("");
	// the hot cells: the stalls', and only those
	const cells = await page.evaluate(() => Array.from(document.querySelectorAll("#heatmap rect.cell"))
		.map(r => ({ c: +r.getAttributeNS("urn:x-offwake-svg:frames", "c"),
			r: +r.getAttributeNS("urn:x-offwake-svg:frames", "r"),
			ns: +r.getAttributeNS("urn:x-offwake-svg:frames", "ns"), fill: r.getAttribute("fill") })));
	const hot = cells.filter(c => c.ns >= 40e6);
	const want = STALLS.map(([t]) => [Math.floor(t), Math.floor((t % 1) * 50 + 1e-9)]);
	check("the stalls' cells are the hot ones", hot.length === 4 && want.every(([c, r]) =>
		hot.some(h => h.c === c && h.r === r && h.fill === "rgb(140,0,0)" && h.ns === 80e6)),
		JSON.stringify(hot));
	check("other cells are light", cells.length > 90 && cells.filter(c => c.ns < 40e6)
		.every(c => c.fill !== "rgb(140,0,0)" && c.fill !== "rgb(255,255,255)"), cells.length + " cells");
	const p = await cellPoint(page, 1.25);
	await page.mouse.move(p.x, p.y);
	const tip = await page.textContent("#details");
	check("a cell's tooltip", /1\.24-1\.26 s: 80\.0 ms blocked in 1 block/.test(tip), JSON.stringify(tip));
	const whole = await drawn(page);
	check("the whole graph has every stall", STALLS.every(([, n]) => has(whole, n)) &&
		has(whole, "wait_short"), JSON.stringify(whole));
	await page.close();

	// ?t= without a stall, then with one
	page = await open("?t=2,3");
	let t = await drawn(page);
	check("?t= without a stall: no stall's stack", !t.some(x => x.startsWith("stall_")) &&
		has(t, "io_wait") && !has(t, "wait_short"), JSON.stringify(t));
	check("?t= without a stall: its total", t[0] === "all (20,000 us, 100%)", t[0]);
	check("?t= shows the range", /Range 2-3 s: 10 blocks/.test(await page.textContent("#heatrange")),
		await page.textContent("#heatrange"));
	check("?t= selects its cells", await page.evaluate(() => document.getElementById("heatsel").children.length) === 1,
		"selection rects");
	await page.close();
	page = await open("?t=1,2");
	t = await drawn(page);
	check("?t= with a stall: its stack and only it", has(t, "stall_one") && !has(t, "stall_two") &&
		has(t, "io_wait") && t[0] === "all (100,000 us, 100%)", JSON.stringify(t));

	// search and zoom inside the range
	await page.evaluate(() => offwake_fg.search("^stall_"));
	const lit = await page.evaluate(s => Array.from(document.querySelectorAll("#frames > g"))
		.filter(g => g.querySelector("rect").getAttribute("fill") === s)
		.map(g => g.querySelector("title").textContent), SEARCH);
	check("search in a range highlights", lit.length === 1 && lit[0].startsWith("stall_one"), JSON.stringify(lit));
	check("search in a range: its share", (await page.textContent("#matched")) === "Matched: 80.0%",
		await page.textContent("#matched"));
	const zoomed = await page.evaluate(() => {
		const g = Array.from(document.querySelectorAll("#frames > g"))
			.find(g => g.querySelector("title").textContent.startsWith("stall_one"));
		g.querySelector("rect").dispatchEvent(new MouseEvent("click", { bubbles: true }));
		const s = offwake_fg.shown();
		return s ? s.filter(d => !d.parent).length : Array.from(document.querySelectorAll("#frames > g"))
			.filter(g => !g.classList.contains("hide")).length;
	});
	check("zoom in a range", zoomed >= 5, "shown " + zoomed);
	await page.close();

	// a hostile name stays text
	page = await open("?t=6,7");
	t = await drawn(page);
	check("a hostile name is text", has(t, "stall_</script><script>alert(1)</script>]]>") &&
		page.dialogs === 0 && (await page.evaluate(() => document.querySelectorAll("script").length)) === 1,
		JSON.stringify(t) + " dialogs " + page.dialogs);
	await page.close();

	// drag from 3.40 to 3.70 s: the URL, then the range graph
	page = await open("");
	const a = await cellPoint(page, 3.41), b = await cellPoint(page, 3.71);
	await page.mouse.move(a.x, a.y);
	await page.mouse.down();
	await page.mouse.move((a.x + b.x) / 2, (a.y + b.y) / 2);
	await page.mouse.move(b.x, b.y);
	await page.mouse.up();
	const url = await ready(page, /[?&]t=3\.4(0*)?(%2C|,)3\.72/);
	check("drag selection sets ?t=", true, url);
	t = await drawn(page);
	check("drag selection draws its range", has(t, "stall_two") && !has(t, "stall_one"), JSON.stringify(t));
	// a click outside the selection resets
	const o = await cellPoint(page, 7.5);
	await page.mouse.click(o.x, o.y);
	await ready(page, /^[^?]*(\?(?!.*t=).*)?$/);
	t = await drawn(page);
	check("a click outside the range resets", STALLS.every(([, n]) => has(t, n)), JSON.stringify(t));
	await page.close();
	// the reset control
	page = await open("?t=1,2");
	await page.click("#heatrange");
	await ready(page, /^[^?]*(\?(?!.*t=).*)?$/);
	t = await drawn(page);
	check("Reset Range restores the whole graph", STALLS.every(([, n]) => has(t, n)), JSON.stringify(t));
	check("no script errors", errors.length === 0, errors.join("; "));
	await page.close();
}

// ---- a real capture's SVG ----

// In the page: the worker's blocks of 60 ms or more in fg_heat's data
// (its thread frame first, worker_wait before the waker's "--"), start and
// duration in us from the capture's start, with the cells of the map by
// their blocked time, hottest first.
function capturedStalls() {
	const H = fg_heat, name = i => (H.frames[i] || ["?"])[0], stalls = [];
	for (let i = 0; i + 2 < H.ev.length; i += 3) {
		const st = H.stacks[H.ev[i]].map(name), div = st.indexOf("--");
		if (st[0] === "ow_worker" && st.slice(0, div < 0 ? st.length : div).includes("worker_wait") &&
		    H.ev[i + 2] >= 60000)
			stalls.push({ start: H.ev[i + 1], dur: H.ev[i + 2] });
	}
	stalls.sort((a, b) => a.start - b.start);
	const cells = Array.from(document.querySelectorAll("#heatmap rect.cell")).map(r => ({
		c: +r.getAttributeNS("urn:x-offwake-svg:frames", "c"),
		r: +r.getAttributeNS("urn:x-offwake-svg:frames", "r"),
		ns: +r.getAttributeNS("urn:x-offwake-svg:frames", "ns") }));
	cells.sort((a, b) => b.ns - a.ns);
	return { stalls, cells, rowUs: H.col / H.rows / 1000, rows: H.rows, len: H.len / 1000 };
}

// Whether a frame named name is drawn on the blocked side of a stack (in
// its blocked fill, not in the waker's: the producer's prod_stall is also
// the waker of the third thread's wait for a request).
function blockedIn(page, name) {
	return page.evaluate(name => {
		const f = fg_heat.frames.find(x => x[0] === name);
		return !!f && f[1] !== f[2] && Array.from(document.querySelectorAll("#frames > g")).some(g =>
			g.querySelector("title").textContent.startsWith(name + " (") &&
			g.querySelector("rect").getAttribute("fill") === f[1]);
	}, name);
}

async function captured() {
	let page = await open("");
	const d = await page.evaluate(capturedStalls);
	const S = d.stalls, ms = S.map(s => (s.dur / 1000).toFixed(1) + " ms").join(" ");
	const gaps = S.slice(1).map((s, i) => (s.start - S[i].start) / 1000);
	check("the worker's stalls in the page's data", S.length >= 3 && S.length <= 10 &&
		S.every(s => s.dur <= 200000) && gaps.every(g => g > 350 && g < 650),
		S.length + " stalls (" + ms + "), apart by " + gaps.join(" ") + " ms");
	console.log("  (" + S.length + " stalls: " + ms + "; at " +
		S.map(s => (s.start / 1e6).toFixed(3)).join(" ") + " s of " + (d.len / 1e6).toFixed(3) + " s)");
	// each stall's cell among the 3 per stall hottest (the stall's
	// three 80 ms blocks start there: the worker's, the producer's and
	// the third thread's sleep; the third's ~420 ms wait for the next
	// starts 80 ms later), and holding the stall's time at least
	const K = 3 * S.length, ranks = S.map(s => {
		const k = Math.floor(s.start / d.rowUs), c = Math.floor(k / d.rows), r = k % d.rows;
		const i = d.cells.findIndex(x => x.c === c && x.r === r);
		return i >= 0 && d.cells[i].ns >= s.dur * 1000 - 1000 ? i + 1 : -1;
	});
	check("the stalls' cells are among the hottest", S.length > 0 && ranks.every(i => i > 0 && i <= K),
		"ranks " + ranks.join(" ") + " of " + d.cells.length + " cells (want 1 to " + K + ")");
	const whole = await drawn(page);
	check("the whole graph has the stall's stack", has(whole, "third_slow") &&
		total(whole, "worker_wait") >= 60000 * S.length, JSON.stringify(whole.slice(0, 40)));
	await page.close();
	// between the first stall that has a next one (or the capture's
	// end) 450 ms after it and that: from 50 ms after it, which holds
	// the third thread's wait for its next request (it starts as the
	// stall ends), to 450 ms
	const k = S.findIndex((s, i) => s.start + 450000 < (i + 1 < S.length ? S[i + 1].start : d.len));
	const sec = us => (us / 1e6).toFixed(6).replace(/0+$/, "");
	if (!check("a range without a stall", k >= 0, "no stall with 450 ms after it")) return;
	const a = S[k].start + 50000, b = S[k].start + 450000;
	page = await open("?t=" + sec(a) + "," + sec(b));
	let t = await drawn(page);
	check("?t= without a stall: no stall's stack", t.length > 3 && has(t, "ow_third") &&
		!has(t, "third_slow") && !(await blockedIn(page, "prod_stall")),
		sec(a) + "-" + sec(b) + " s: " + JSON.stringify(t.slice(0, 40)));
	await page.close();
	page = await open("?t=" + sec(S[k].start - 10000) + "," + sec(S[k].start + 30000));
	t = await drawn(page);
	check("?t= with a stall: its stack", has(t, "third_slow") && (await blockedIn(page, "prod_stall")) &&
		total(t, "worker_wait") >= 60000, JSON.stringify(t.slice(0, 40)));
	check("no script errors", errors.length === 0, errors.join("; "));
	await page.close();
}

// One browser (a profile of its own) for the checks of body.
async function session(body) {
	const prof = fs.mkdtempSync(path.join(os.tmpdir(), "offwake-heat-" + BROWSER + "-"));
	try {
		ctx = await driver.launch(BROWSER, prof);
		await body();
	} finally {
		if (ctx) await ctx.close();
		fs.rmSync(prof, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
	}
}

session(process.argv[4] === "capture" ? captured : synthetic).catch(e => { fail("harness", String(e && e.stack || e)); process.exitCode = 1; });
