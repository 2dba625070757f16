// SPDX-License-Identifier: Apache-2.0
// heatmap_test.js - the heat map of an SVG with events in a real browser
// (driver.js): the SVG tests/unit_src/t_svg_events.c writes (a worker's
// 2 ms blocks every 100 ms, 80 ms stalls at 1.25, 3.55, 6.05 and 8.45 s,
// each under a stack of its own, stall_one .. stall_four, the third with a
// hostile name).  Checks the hot cells, the tooltip, ?t= ranges with and
// without a stall, drag selection, reset, search and zoom in a range.
//
// Usage: node heatmap_test.js SVG [chromium|firefox]   (PASS:/FAIL: lines)
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

// The centre of a cell on the page.
function cellPoint(page, t) {
	return page.evaluate(t => {
		const H = fg_heat, b = document.getElementById("heatgrid").getBoundingClientRect();
		const c = Math.floor(t), r = Math.floor((t - c) * H.rows + 1e-9);
		return { x: b.left + (c + 0.5) * b.width / H.ncols, y: b.top + (r + 0.5) * b.height / H.rows };
	}, t);
}

async function main() {
	const prof = fs.mkdtempSync(path.join(os.tmpdir(), "offwake-heat-" + BROWSER + "-"));
	try {
		ctx = await driver.launch(BROWSER, prof);
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
	} finally {
		if (ctx) await ctx.close();
		fs.rmSync(prof, { recursive: true, force: true });
	}
}

main().catch(e => { fail("harness", String(e && e.stack || e)); process.exitCode = 1; });
