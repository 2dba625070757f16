// SPDX-License-Identifier: Apache-2.0
// heatmap.js - the heat map's part of an SVG with events (render/heatmap.c
// draws the map and writes `var fg_heat = {...};` before this file; it
// comes after script.js, whose offwake_fg it drives, and its init() is the
// one the SVG's onload calls).
//   - hovering the map shows a cell's time and blocked time in #details;
//   - dragging across cells, or shift-clicking two, selects the range of
//     time between them; a click on a cell selects that cell (20 ms);
//     a click outside the selection, or on "Reset Range", drops it;
//   - the range lives in the URL as ?t=START,END (seconds from the
//     capture's start): choosing one loads the page with it, and a page
//     opened with one draws, before script.js starts, the flame graph of
//     the blocks starting in that range in place of the whole graph's
//     frames, so that zoom and search (script.js) work on it as on any.
// Frame names come from the embedded data and are only ever written as
// text (textContent), never parsed as markup.

function init(evt) {
	offwake_heat.start();
}

var offwake_heat = (function () {
	"use strict";
	var H = (typeof fg_heat === "object" && fg_heat) || null;
	var cfg = (typeof fg_config === "object" && fg_config) || {};
	var SVGNS = "http://www.w3.org/2000/svg";
	var FGNS = "urn:x-offwake-svg:frames";
	var xpad = Number(cfg.xpad) || 10;
	var charwidth = (Number(cfg.fontsize) || 12) * (Number(cfg.fontwidth) || 0.59);
	var range = null;	// [t0, t1): seconds from the capture's start
	var anchor = null;	// the first cell of a shift-click selection
	var dragFrom = null, dragTo = null;
	var gridEl, selEl, rangeEl, details, cells = new Map();
	var graph = null;	// what the range graph drew: { frames, total, blocks }

	function byId(id) { return document.getElementById(id); }
	function setText(el, s) { if (el) el.textContent = s; }

	// ---- cells and times ----

	function rowNs() { return H.col / H.rows; }
	function cellStart(k) { return (k.c * H.col + k.r * rowNs()) / 1e9; }
	function cellEnd(k) { return cellStart(k) + rowNs() / 1e9; }
	function fmt(t) { return String(Math.round(t * 1e6) / 1e6); }
	function inRange(k) {
		var t = cellStart(k);
		return range !== null && t >= range[0] - 1e-9 && t < range[1] - 1e-9;
	}

	// The cell under a pointer event, or null outside the grid.
	function cellAt(e) {
		var m = gridEl && gridEl.getScreenCTM();
		if (!m) return null;
		var pt = document.documentElement.createSVGPoint();
		pt.x = e.clientX;
		pt.y = e.clientY;
		var p = pt.matrixTransform(m.inverse()), g = H.grid;
		var c = Math.floor((p.x - g[0]) * H.ncols / g[2]);
		var r = Math.floor((p.y - g[1]) * H.rows / g[3]);
		if (!(c >= 0 && c < H.ncols && r >= 0 && r < H.rows)) return null;
		return { c: c, r: r };
	}

	// "START,END" in seconds, START < END, or null.
	function parseRange(s) {
		var m = /^\s*([0-9]*\.?[0-9]+)\s*,\s*([0-9]*\.?[0-9]+)\s*$/.exec(s || "");
		if (!m) return null;
		var t0 = Number(m[1]), t1 = Number(m[2]);
		return isFinite(t0) && isFinite(t1) && t1 > t0 ? [t0, t1] : null;
	}

	function between(a, b) {
		return [Math.min(cellStart(a), cellStart(b)), Math.max(cellEnd(a), cellEnd(b))];
	}

	// ---- the selection drawn on the map ----

	function drawSelection(sel) {
		if (!selEl) return;
		while (selEl.firstChild) selEl.removeChild(selEl.firstChild);
		if (!sel) return;
		var g = H.grid, cw = g[2] / H.ncols, rh = g[3] / H.rows, rn = rowNs() / 1e9;
		var colS = H.col / 1e9;
		for (var c = 0; c < H.ncols; c++) {
			var c0 = c * colS;
			var r0 = Math.max(0, Math.ceil((sel[0] - c0) / rn - 1e-6));
			var r1 = Math.min(H.rows, Math.ceil((sel[1] - c0) / rn - 1e-6));
			if (r1 <= r0) continue;
			var el = document.createElementNS(SVGNS, "rect");
			el.setAttribute("x", String(g[0] + c * cw));
			el.setAttribute("y", String(g[1] + r0 * rh));
			el.setAttribute("width", String(cw));
			el.setAttribute("height", String((r1 - r0) * rh));
			el.setAttribute("fill", "rgb(0,90,255)");
			el.setAttribute("fill-opacity", "0.25");
			el.setAttribute("stroke", "rgb(0,60,200)");
			el.setAttribute("stroke-width", "0.5");
			el.setAttribute("pointer-events", "none");
			selEl.appendChild(el);
		}
	}

	function showRange() {
		if (range === null) {
			setText(rangeEl, " ");
			return;
		}
		var s = "Range " + fmt(range[0]) + "-" + fmt(range[1]) + " s: ";
		s += graph && graph.blocks ? graph.blocks + (graph.blocks === 1 ? " block" : " blocks") :
			"no blocks";
		if (H.lost) s += " (" + H.lost + " left out)";
		setText(rangeEl, s + " [Reset Range]");
	}

	// ---- the URL ----

	function getParam(k) {
		try {
			return new URL(window.location.href).searchParams.get(k);
		} catch (e) {
			return null;
		}
	}

	// Load the page with the range sel (null: none); the zoom (x, y) was
	// of the other frames, the search (s) stays.
	function go(sel) {
		try {
			var url = new URL(window.location.href);
			if (sel) url.searchParams.set("t", fmt(sel[0]) + "," + fmt(sel[1]));
			else url.searchParams.delete("t");
			url.searchParams.delete("x");
			url.searchParams.delete("y");
			if (url.href !== window.location.href) window.location.assign(url.href);
		} catch (e) {
			// no URL to load (a data: URL, a sandbox)
		}
	}

	// ---- the flame graph of a range ----

	function commas(s) { return s.replace(/\B(?=(\d{3})+$)/g, ","); }
	function countText(v) { return Number.isInteger(v) && v < 1e15 ? String(v) : v.toFixed(0); }

	function fitLabel(name, width) {
		var chars = Math.floor(width / charwidth);
		if (chars < 3) return "";
		var cps = Array.from(name);
		if (cps.length <= chars) return name;
		return cps.slice(0, chars - 2).join("") + "..";
	}

	// The blocks starting in [t0, t1) merged into a tree, root first.
	function merge(t0, t1) {
		var ev = H.ev, fr = H.frames, st = H.stacks;
		var us0 = t0 * 1e6, us1 = t1 * 1e6, sums = new Float64Array(st.length), n = 0;
		for (var i = 0; i + 2 < ev.length; i += 3)
			if (ev[i + 1] >= us0 - 1e-3 && ev[i + 1] < us1 - 1e-3) {
				sums[ev[i]] += ev[i + 2];
				n++;
			}
		var root = { name: "", fill: fr[0] ? fr[0][1] : "rgb(0,0,0)", w: 0, kids: new Map() };
		for (var s = 0; s < st.length; s++) {
			if (!(sums[s] > 0)) continue;
			var v = sums[s] * 1000 / (H.unit || 1000), node = root, waker = false;
			root.w += v;
			for (var k = 0; k < st[s].length; k++) {
				var f = fr[st[s][k]] || ["?", "rgb(0,0,0)"];
				var key = (waker ? "w" : "") + st[s][k];
				var kid = node.kids.get(key);
				if (!kid) {
					kid = { name: f[0], fill: waker && f[2] ? f[2] : f[1], w: 0, kids: new Map() };
					node.kids.set(key, kid);
				}
				kid.w += v;
				node = kid;
				if (H.chain && f[0] === "--") waker = true;
			}
		}
		return { root: root, blocks: n };
	}

	// The frames' groups as render.c writes them: <title>, <rect>, <text>.
	function frameGroup(nd, x1, x2, d, total, tf) {
		var h = H.height, y1, y2;
		if (cfg.inverted === true) {
			y1 = H.ytop + d * h;
			y2 = H.ytop + (d + 1) * h - 1;
		} else {
			y1 = H.ybottom - (d + 1) * h + 1;
			y2 = H.ybottom - d * h;
		}
		var sv = nd.w * (Number(H.factor) || 1), samples = commas(countText(sv));
		var g = document.createElementNS(SVGNS, "g");
		var title = document.createElementNS(SVGNS, "title");
		title.textContent = d === 0 ? "all (" + samples + " " + H.countname + ", 100%)" :
			nd.name + " (" + samples + " " + H.countname + ", " +
			(100 * Number(countText(sv)) / tf).toFixed(2) + "%)";
		var rect = document.createElementNS(SVGNS, "rect");
		var rx1 = x1.toFixed(1), rx2 = x2.toFixed(1);
		rect.setAttribute("x", rx1);
		rect.setAttribute("y", String(y1));
		rect.setAttribute("width", (Number(rx2) - Number(rx1)).toFixed(1));
		rect.setAttribute("height", (y2 - y1).toFixed(1));
		rect.setAttribute("fill", nd.fill);
		rect.setAttribute("rx", "2");
		rect.setAttribute("ry", "2");
		var text = document.createElementNS(SVGNS, "text");
		text.setAttribute("x", (x1 + 3).toFixed(2));
		text.setAttribute("y", String(3 + (y1 + y2) / 2));
		text.textContent = fitLabel(nd.name, x2 - x1);
		g.appendChild(title);
		g.appendChild(rect);
		g.appendChild(text);
		return g;
	}

	// Replace #frames' groups by the range graph's (before script.js has
	// read them).
	function drawRange(t0, t1) {
		var F = byId("frames");
		if (!F) return;
		var m = merge(t0, t1), total = m.root.w;
		graph = { blocks: m.blocks, total: total, frames: 0 };
		while (F.firstChild) F.removeChild(F.firstChild);
		if (!(total > 0)) return;
		var width = H.width - 2 * xpad, wpt = width / total;
		var mwt = H.minpct ? total * H.minwidth / 100 : H.minwidth / wpt;
		var tf = total * (Number(H.factor) || 1);
		var levels = [];
		(function lay(nd, x, d) {
			if (d > 0 && nd.w < mwt) return;
			(levels[d] = levels[d] || []).push(frameGroup(nd, xpad + x * wpt,
				xpad + (x + nd.w) * wpt, d, total, tf));
			var kids = Array.from(nd.kids.values());
			kids.sort(function (a, b) {
				var ka = a.name + ";", kb = b.name + ";";
				return ka < kb ? -1 : ka > kb ? 1 : 0;
			});
			for (var i = 0; i < kids.length; i++) {
				lay(kids[i], x, d + 1);
				x += kids[i].w;
			}
		})(m.root, 0, 0);
		var frag = document.createDocumentFragment();
		for (var d = 0; d < levels.length; d++)
			for (var i = 0; i < levels[d].length; i++) {
				frag.appendChild(levels[d][i]);
				graph.frames++;
			}
		F.appendChild(frag);
	}

	// ---- events ----

	function cellText(k) {
		var el = cells.get(k.c + "," + k.r);
		var ns = el ? Number(el.getAttributeNS(FGNS, "ns")) || 0 : 0;
		var n = el ? Number(el.getAttributeNS(FGNS, "n")) || 0 : 0;
		return fmt(cellStart(k)) + "-" + fmt(cellEnd(k)) + " s: " + (ns / 1e6).toFixed(1) +
			" ms blocked in " + n + (n === 1 ? " block" : " blocks");
	}

	function onDown(e) {
		if (e.button !== 0) return;
		var k = cellAt(e);
		if (!k) return;
		e.preventDefault();
		if (e.shiftKey) {
			if (anchor) {
				go(between(anchor, k));
				anchor = null;
			} else {
				anchor = k;
				drawSelection(between(k, k));
			}
			return;
		}
		dragFrom = dragTo = k;
	}

	function onMove(e) {
		var k = cellAt(e);
		if (k) setText(details, "Blocks: " + cellText(k));
		if (dragFrom && k && (k.c !== dragTo.c || k.r !== dragTo.r)) {
			dragTo = k;
			drawSelection(between(dragFrom, dragTo));
		}
	}

	function onUp(e) {
		if (!dragFrom) return;
		var a = dragFrom, b = cellAt(e) || dragTo;
		dragFrom = dragTo = null;
		if (a.c !== b.c || a.r !== b.r) go(between(a, b));
		else if (range !== null && !inRange(b)) go(null);	// a click outside
		else if (range === null) go(between(b, b));
	}

	function start() {
		if (!H) {
			offwake_fg.start();
			return;
		}
		gridEl = byId("heatgrid");
		selEl = byId("heatsel");
		rangeEl = byId("heatrange");
		details = byId("details");
		var list = document.querySelectorAll("#heatmap rect.cell");
		for (var i = 0; i < list.length; i++)
			cells.set(list[i].getAttributeNS(FGNS, "c") + "," + list[i].getAttributeNS(FGNS, "r"),
				list[i]);
		range = parseRange(getParam("t"));
		if (range) drawRange(range[0], range[1]);
		drawSelection(range);
		showRange();
		offwake_fg.start();
		var map = byId("heatmap");
		if (map) {
			map.addEventListener("mousedown", onDown, false);
			map.addEventListener("mousemove", onMove, false);
			map.addEventListener("mouseleave", function () { setText(details, " "); }, false);
		}
		window.addEventListener("mouseup", onUp, false);
		if (rangeEl) rangeEl.addEventListener("click", function () { go(null); }, false);
	}

	// range: the range drawn, or null; graph: its frames and blocks.
	function state() {
		return { range: range, graph: graph };
	}

	return { start: start, state: state, select: go };
})();
