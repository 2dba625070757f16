// SPDX-License-Identifier: Apache-2.0
// browser_bench.js - how fast a flame graph SVG is in a real browser
// (headless Chromium through playwright-core), for `make bench-browser`
// (tests/bench/browser_bench.sh).  For each SVG and each run it measures:
//   load    navigation start until the first paint after the document's
//           load handlers ran (the graph drawn and its script started);
//   zoom    a real click on a mid-size frame until the next paint;
//   reset   a click on "Reset Zoom" until the next paint;
//   search  a click on "Search" (window.prompt answers the term at once)
//           until the next paint; the search is reset (not timed) after.
// "Until the next paint": t0 is the click event's timeStamp (when the
// browser took the input), t1 is taken right after the frame that follows
// the handlers (requestAnimationFrame, then a message: style, layout and
// paint of that frame are done).  Each run loads the graph REPS times
// and clicks REPS times each; a run's figure is the median.
//
// Usage: node browser_bench.js RUNS REPS TERM LABEL=FILE.svg...
// Prints one line per run and label: "LABEL RUN load zoom reset search"
// in milliseconds, for browser_bench.sh to tabulate.
"use strict";
const path = require("path");
const { chromium } = require(path.join(__dirname, "../browser/node_modules/playwright-core"));

const [RUNS, REPS] = process.argv.slice(2, 4).map(Number);
const TERM = process.argv[4];
const GRAPHS = process.argv.slice(5).map(a => {
	const i = a.indexOf("=");
	return { label: a.slice(0, i), file: path.resolve(a.slice(i + 1)) };
});
const TIMEOUT = 300000;	// flamegraph.pl takes seconds per click

// Runs in the page before its own script: marks for the load and for
// every click, and a prompt that answers at once.
function probe(term) {
	window.__bench = { clicks: [], load: null };
	window.prompt = function () { return term; };
	function afterNextPaint(cb) {
		requestAnimationFrame(function () {
			const ch = new MessageChannel();
			ch.port1.onmessage = function () { cb(performance.now()); };
			ch.port2.postMessage(0);
		});
	}
	window.addEventListener("load", function () {
		afterNextPaint(function (t) { window.__bench.load = t; });
	});
	window.addEventListener("click", function (e) {
		const t0 = e.timeStamp;
		afterNextPaint(function (t) { window.__bench.clicks.push(t - t0); });
	}, true);
}

function median(v) {
	const s = v.slice().sort((a, b) => a - b);
	return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
}

async function click(page, sel, box) {
	const n = await page.evaluate(() => window.__bench.clicks.length);
	if (box)
		await page.mouse.click(box.x, box.y);
	else
		await page.click(sel, { timeout: TIMEOUT });
	await page.waitForFunction(n => window.__bench.clicks.length > n, n, { timeout: TIMEOUT, polling: 50 });
	return page.evaluate(() => window.__bench.clicks[window.__bench.clicks.length - 1]);
}

// The frame to zoom to: the one whose width is nearest 12% of the root's
// (then the lowest, then the leftmost), found from the geometry alone so
// that every renderer's graph of the same input gives the same frame.
function pickFrame() {
	let best = null, root = 0;
	const rects = document.querySelectorAll("#frames rect");
	for (const r of rects) root = Math.max(root, parseFloat(r.getAttribute("width")));
	for (const r of rects) {
		const w = parseFloat(r.getAttribute("width")), y = parseFloat(r.getAttribute("y"));
		const x = parseFloat(r.getAttribute("x"));
		const k = [Math.abs(w - 0.12 * root), -y, x];
		if (!best || k[0] < best.k[0] - 1e-9 || (Math.abs(k[0] - best.k[0]) < 1e-9 &&
		    (k[1] < best.k[1] || (k[1] === best.k[1] && k[2] < best.k[2]))))
			best = { k, r };
	}
	const b = best.r.getBoundingClientRect();
	return { x: b.left + b.width / 2, y: b.top + b.height / 2, w: best.r.getAttribute("width") };
}

async function measure(browser, file) {
	const load = [], zoom = [], reset = [], search = [];
	let ctx = null, page = null;
	for (let i = 0; i < REPS; i++) {	// each load in a new browser context
		if (ctx) await ctx.close();
		ctx = await browser.newContext({ viewport: { width: 1280, height: 800 }, deviceScaleFactor: 1 });
		page = await ctx.newPage();
		await page.addInitScript(probe, TERM);
		await page.goto("file://" + file, { timeout: TIMEOUT, waitUntil: "load" });
		await page.waitForFunction(() => window.__bench.load !== null, null, { timeout: TIMEOUT, polling: 50 });
		load.push(await page.evaluate(() => window.__bench.load));
	}
	const size = await page.evaluate(() => [document.documentElement.getAttribute("width"),
		document.documentElement.getAttribute("height")].map(Number));
	await page.setViewportSize({ width: Math.ceil(size[0]), height: Math.ceil(size[1]) });
	// let deferred work, if any, finish before the clicks
	await page.evaluate(() => new Promise(r => (window.requestIdleCallback || setTimeout)(r)));
	await page.waitForTimeout(500);
	const target = await page.evaluate(pickFrame);
	for (let i = 0; i < REPS; i++) {
		zoom.push(await click(page, null, target));
		reset.push(await click(page, "#unzoom"));
	}
	for (let i = 0; i < REPS; i++) {
		search.push(await click(page, "#search"));
		await click(page, "#search");	// Reset Search
	}
	await ctx.close();
	return [load, zoom, reset, search].map(median);
}

async function main() {
	const browser = await chromium.launch({
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run"],
	});
	for (let run = 1; run <= RUNS; run++) {
		for (const g of GRAPHS) {
			const m = await measure(browser, g.file);
			console.log([g.label, run].concat(m.map(v => v.toFixed(1))).join(" "));
		}
	}
	await browser.close();
}

main().catch(e => { console.error("browser_bench: " + (e && e.stack || e)); process.exit(1); });
