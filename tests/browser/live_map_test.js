// SPDX-License-Identifier: Apache-2.0
// live_map_test.js - the heat map in the browser live view (offwake-svg
// --serve --timeline) in a real browser (driver.js), while a capture of
// tests/workloads/stall.c runs (its worker waits STALL_MS in worker_wait
// every half second): the map shows above the graph and grows (more
// columns at a later update than at an earlier one); each stall is a hot
// cell; a click on a stall's cell (a real mouse click) draws that range's
// graph, with worker_wait in it and less time than the whole, the range in
// the page's URL; an update keeps the range (the new SVG is loaded with
// it, its graph re-drawn from the newest events) and a zoom in it, while
// the map goes on growing; Reset Range drops the range and the next update
// is of the whole graph; no script error.
//
// Usage: node live_map_test.js URL ARTIFACTS [chromium|firefox] [STALL_MS]
//   URL: the page (http://127.0.0.1:PORT/TOKEN/).  ARTIFACTS receives
//   live_map.png.  Prints PASS:/FAIL: lines.
"use strict";
const fs = require("fs");
const path = require("path");
const { checks, until, openLive } = require("./live_checks");

const [URL_, ARTIFACTS, BROWSER = "chromium", STALL = "80"] = process.argv.slice(2);
const STALL_US = Number(STALL) * 1000;
const { fail, check } = checks("live_map");

// In the page: what the shown frame's SVG holds: its generation, range
// (its URL's t and heatmap.js's), the map's columns and cells, the
// worker's stalls (embedded blocks of worker_wait at least 7/8 of the
// stall long: start in s, the cell's ns and the hottest cell's), the
// graph's frames and root title.  null while nothing (whole) is shown.
function mapState(stallUs) {
	const live = window.offwake_live.state(), f = window.offwake_live.frame();
	if (!f || !live.shown || live.loading) return null;
	let win, doc;
	try {
		win = f.contentWindow;
		doc = f.contentDocument;
	} catch (e) {
		return null;
	}
	if (!doc || doc.readyState !== "complete" || !doc.getElementById("frames")) return null;
	const FGNS = "urn:x-offwake-svg:frames";
	const H = win.fg_heat || null, map = doc.getElementById("heatmap");
	const cells = [...doc.querySelectorAll("#heatmap rect.cell")].map(c => ({
		c: +c.getAttributeNS(FGNS, "c"), r: +c.getAttributeNS(FGNS, "r"),
		ns: +c.getAttributeNS(FGNS, "ns"), fill: c.getAttribute("fill") }));
	const names = [...doc.getElementById("frames").children].map(g => {
		const t = g.querySelector("title");
		return t ? t.textContent : "";
	});
	const out = {
		live, url: win.location.href, page: window.location.href,
		t: new URL(win.location.href).searchParams.get("t"),
		range: win.offwake_heat && win.offwake_heat.state().range,
		hasMap: !!map, ncols: H ? H.ncols : 0, cells: cells.length,
		maxNs: Math.max(0, ...cells.map(c => c.ns)),
		medianNs: cells.map(c => c.ns).sort((a, b) => a - b)[cells.length >> 1] || 0,
		root: names.find(n => /^all \(/.test(n)) || "",
		worker: names.some(n => /^worker_wait /.test(n)),
		stalls: [],
	};
	if (!H) return out;
	const byCell = new Map(cells.map(c => [c.c + "," + c.r, c]));
	const ww = new Set(H.stacks.map((s, i) => s.some(k => H.frames[k] && H.frames[k][0] === "worker_wait") ? i : -1));
	for (let i = 0; i + 2 < H.ev.length; i += 3) {
		if (!ww.has(H.ev[i]) || H.ev[i + 2] < stallUs * 7 / 8) continue;
		const ns = H.ev[i + 1] * 1000, c = Math.floor(ns / H.col), r = Math.floor((ns % H.col) / (H.col / H.rows));
		const cell = byCell.get(c + "," + r);
		out.stalls.push({ s: H.ev[i + 1] / 1e6, c, r, ns: cell ? cell.ns : 0 });
	}
	out.stalls.sort((a, b) => a.s - b.s);
	return out;
}

// In the page: where a stall's cell, or an element of the SVG (by id, or
// the frame named name), is in the page's coordinates, scrolled to.
function aim(what) {
	const f = window.offwake_live.frame(), doc = f.contentDocument;
	let el = null;
	if (what.cell) {
		const FGNS = "urn:x-offwake-svg:frames";
		el = [...doc.querySelectorAll("#heatmap rect.cell")].find(c =>
			+c.getAttributeNS(FGNS, "c") === what.cell.c && +c.getAttributeNS(FGNS, "r") === what.cell.r);
	} else if (what.id) {
		el = doc.getElementById(what.id);
	} else {
		const g = [...doc.getElementById("frames").children].find(g => {
			const t = g.querySelector("title");
			return t && t.textContent.replace(/ \([^()]*\)$/, "") === what.name;
		});
		el = g && g.querySelector("rect");
	}
	if (!el) return null;
	const r0 = el.getBoundingClientRect(), fr0 = f.getBoundingClientRect();
	window.scrollTo(0, Math.max(0, window.scrollY + fr0.top + r0.top - innerHeight / 2));
	const r = el.getBoundingClientRect(), fr = f.getBoundingClientRect();
	return { x: fr.left + r.left + Math.min(r.width / 2, 100), y: fr.top + r.top + r.height / 2 };
}

async function main() {
	const { ctx, page, errors } = await openLive(BROWSER, URL_, 1280, 800);
	page.on("dialog", async d => { await d.dismiss(); });
	await page.evaluate("window.mapState = " + mapState.toString());	// (the page stays: only its frames load)

	// ---- the map shows, with stalls, and grows ----
	const first = await until(page, s => { const m = mapState(s); return m && m.hasMap && m.stalls.length >= 1 && m; }, STALL_US, 20000);
	if (!check("the heat map shows above the graph, with a stall", first,
		"none in 20 s: " + JSON.stringify(await until(page, mapState, STALL_US, 100)).slice(0, 300))) {
		await ctx.close();
		return;
	}
	const grown = await until(page, m0 => { const m = mapState(m0.us); return m && m.live.shown > m0.shown && m.ncols > m0.ncols && m; },
		{ us: STALL_US, shown: first.live.shown, ncols: first.ncols }, 20000);
	check("the map grows: more columns at a later update", grown,
		"generation " + first.live.shown + " had " + first.ncols + " columns; none more in 20 s");
	const m = grown || first;
	// (a loaded machine may make another wait of the worker as long)
	const apart = m.stalls.slice(1).map((s, i) => s.s - m.stalls[i].s);
	check("the stalls are hot cells, every half second (" + m.stalls.length + " stalls, cells of " +
		m.stalls.map(s => (s.ns / 1e6).toFixed(0)).join(",") + " ms; median cell " +
		(m.medianNs / 1e6).toFixed(1) + " ms, hottest " + (m.maxNs / 1e6).toFixed(0) + " ms)",
		m.stalls.length >= 2 && m.stalls.every(s => s.ns >= STALL_US * 7 / 8 * 1000 && s.ns >= 4 * m.medianNs) &&
		apart.filter(d => d > 0.45 && d < 0.55).length >= Math.max(1, apart.length / 2),
		JSON.stringify(m.stalls) + "; apart " + JSON.stringify(apart));

	// ---- a click on a stall's cell: that range's graph ----
	const stall = m.stalls[m.stalls.length - 1];
	const at = await page.evaluate(aim, { cell: { c: stall.c, r: stall.r } });
	if (!check("the stall's cell is on the page", at, JSON.stringify(stall))) { await ctx.close(); return; }
	await page.mouse.click(at.x, at.y);
	const chosen = await until(page, s => { const m = mapState(s); return m && m.live.range && m.t && m.range && m; }, STALL_US, 10000);
	if (!check("a click on a stall's cell chooses its range", chosen,
		JSON.stringify(await until(page, mapState, STALL_US, 100)).slice(0, 300))) {
		await ctx.close();
		return;
	}
	const total = s => Number((/^all \(([0-9,]+)/.exec(s) || [0, "0"])[1].replace(/,/g, ""));
	check("the range's graph has the stall (worker_wait) and less than the whole (" + chosen.root + " < " + m.root + ")",
		chosen.worker && total(chosen.root) > 0 && total(chosen.root) < total(m.root),
		JSON.stringify({ root: chosen.root, whole: m.root, worker: chosen.worker }));
	check("the range is in the page's URL (" + chosen.t + ")",
		new URL(chosen.page).searchParams.get("t") === chosen.t && chosen.live.range === chosen.t &&
		Math.abs(chosen.range[0] - stall.s) < 0.021, JSON.stringify({ page: chosen.page, t: chosen.t, stall }));

	// ---- a zoom in the range, then an update: range and zoom stay ----
	// (aimed and clicked again when an update swapped the frame between
	// the aim and the click: a slow build, ASan's, makes that likelier)
	let z = null, zoomed = null;
	for (let i = 0; i < 4 && !zoomed; i++) {
		z = await page.evaluate(aim, { name: "worker_wait" });
		if (!z)
			break;
		await page.mouse.click(z.x, z.y);
		zoomed = await until(page, () => {
			const f = window.offwake_live.frame(), q = new URL(f.contentWindow.location.href).searchParams;
			return q.get("x") !== null && q.get("y") !== null;
		}, null, 5000);
	}
	check("a click zooms in the range's graph", z && zoomed, z ? "no zoom in the URL" : "no worker_wait frame");
	const kept = await until(page, m0 => { const m = mapState(m0.us); return m && m.live.shown > m0.shown && m.live.swaps > m0.swaps && m; },
		{ us: STALL_US, shown: chosen.live.shown, swaps: chosen.live.swaps }, 20000);
	// (render/script.js writes the zoom into the URL after the next paint)
	const keptZoom = kept && await until(page, () => {
		const f = window.offwake_live.frame(), q = new URL(f.contentWindow.location.href).searchParams;
		const u = f.contentDocument.getElementById("unzoom");
		return q.get("x") !== null && !!u && !u.classList.contains("hide");
	}, null, 5000);
	check("an update keeps the range, its graph re-drawn (generation " + chosen.live.shown + " -> " +
		(kept && kept.live.shown) + ")",
		kept && kept.t === chosen.t && kept.range && kept.range[0] === chosen.range[0] && kept.worker &&
		kept.ncols >= chosen.ncols, JSON.stringify(kept).slice(0, 300));
	check("an update keeps the zoom in the range", keptZoom, JSON.stringify(kept && kept.url));
	const later = await until(page, m0 => { const m = mapState(m0.us); return m && m.ncols > m0.ncols && m.t === m0.t && m; },
		{ us: STALL_US, ncols: chosen.ncols, t: chosen.t }, 20000);
	check("the map goes on growing with a range chosen", later, "still " + chosen.ncols + " columns after 20 s");

	// ---- Reset Range ----
	const reset = await page.evaluate(aim, { id: "heatrange" });
	if (reset) await page.mouse.click(reset.x, reset.y);
	const whole = await until(page, s => { const m = mapState(s); return m && !m.live.range && !m.t && !m.range && m; }, STALL_US, 10000);
	check("Reset Range drops the range", whole && !new URL(whole.page).searchParams.has("t"),
		JSON.stringify(whole || await until(page, mapState, STALL_US, 100)).slice(0, 300));
	const next = whole && await until(page, g => { const m = mapState(g.us); return m && m.live.shown > g.shown && m; },
		{ us: STALL_US, shown: whole.live.shown }, 20000);
	check("after the reset, an update is of the whole graph", next && !next.t && !next.range &&
		total(next.root) > total(chosen.root), JSON.stringify(next).slice(0, 300));

	fs.mkdirSync(ARTIFACTS, { recursive: true });
	await page.evaluate(() => window.scrollTo(0, 0));
	await page.screenshot({ path: path.join(ARTIFACTS, "live_map.png") });
	check("no script errors", errors.length === 0, errors.join(" | ").slice(0, 400));
	await ctx.close();
}

main().catch(e => { fail("harness", String(e && e.stack || e)); process.exitCode = 1; });
