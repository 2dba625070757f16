// SPDX-License-Identifier: Apache-2.0
// script.js - the interactive part of every SVG written by offwake-svg render.
//
// The C writer embeds this file after a one-line `var fg_config = {...};`
// (nametype, fontsize, fontwidth, xpad, inverted, searchcolor).  It gives
// the flame graph the behaviour users know from flamegraph.pl:
//   - hovering a frame shows its tooltip in #details;
//   - clicking a frame zooms to it; "Reset Zoom" (#unzoom) undoes that;
//   - Ctrl-F, F3 or the Search button take a regular expression, paint the
//     matching frames and show the share of samples matched in #matched;
//   - Ctrl-I or the "ic" button toggles case-insensitive matching;
//   - the zoom (x, y) and the search term (s) live in the URL query.
// Frame names come from untrusted input: they are only ever read and
// written as text (textContent), and never parsed as markup or code.
//
// Speed on big graphs (issue 21; `make bench-browser` measures it): the
// graph is rendered once, after the parser is done, not every few chunks;
// the frame records are built after the first paint, when the browser is
// idle (or at the first click that needs them); a zoom, a reset or a search
// writes only to the frames whose state changes.

function init(evt) {
	offwake_fg.start();
}

var offwake_fg = (function () {
	"use strict";
	var cfg = (typeof fg_config === "object" && fg_config) || {};
	var nametype = typeof cfg.nametype === "string" ? cfg.nametype : "Function:";
	var charwidth = (Number(cfg.fontsize) || 12) * (Number(cfg.fontwidth) || 0.59);
	var xpad = Number(cfg.xpad) || 10;
	var inverted = cfg.inverted === true;
	var searchcolor = typeof cfg.searchcolor === "string" ? cfg.searchcolor : "rgb(230,0,230)";
	var EPS = 0.001;	// edges are written with 0.1 px resolution

	var frames = [];	// one record per frame, with its original geometry
	var byGroup = new Map();	// frame group element -> record
	var framesEl, details, unzoomBtn, searchBtn, icBtn, matchedEl;
	var fullWidth = 0;	// width of the drawing area (W - 2 * xpad)
	var totalWidth = 0;	// width of the widest frame (the root)
	var searchTerm = null;
	var ignoreCase = false;
	var started = false;
	var collected = false;

	// Frame states: the script writes to the document only where a
	// frame's state changes, since every write costs the browser a style
	// recalculation, a layout or a repaint of that frame.
	var SHOWN = 0, PARENT = 1, HIDDEN = 2;

	function byId(id) { return document.getElementById(id); }
	function setText(el, s) { if (el) el.textContent = s; }
	function round1(v) { return Math.round(v * 10) / 10; }

	// While the document is parsed, the browser styles, lays out and
	// paints what it has so far every few chunks: about 9 times for a
	// 45k-frame graph, each time styling the frames added since and laying
	// out and painting all of them again.  The graph is usable only once
	// it is whole, so its rendering is skipped until the parser is done
	// (content-visibility), and it is styled, laid out and painted once:
	// 17% less CPU to the first full paint of a 45k-frame graph.  (Where
	// content-visibility is unknown this does nothing.)
	var root = document.documentElement;
	var deferred = false;
	try {
		// only while our own SVG document is being parsed (not when
		// this script is pasted into an HTML page or run later)
		if (root && root.namespaceURI === "http://www.w3.org/2000/svg" &&
		    document.readyState === "loading" && root.style && root.style.setProperty) {
			root.style.setProperty("content-visibility", "hidden");
			deferred = root.style.getPropertyValue("content-visibility") === "hidden";
		}
	} catch (e) {
		deferred = false;
	}
	function showFrames() {
		if (!deferred) return;
		deferred = false;
		root.style.removeProperty("content-visibility");
		if (root.getAttribute("style") === "") root.removeAttribute("style");
	}
	window.addEventListener("DOMContentLoaded", showFrames, false);
	window.addEventListener("load", showFrames, false);

	// The name of a frame: its tooltip without the trailing " (N samples, P%)".
	function frameName(title) {
		return title.replace(/ \([^()]*\)$/, "");
	}

	// Fit a name into a width the way the C writer does: chars =
	// int(width / charwidth) code points, the last two replaced by ".."
	// when the name is longer, nothing when fewer than 3 chars fit.
	function fitLabel(name, width) {
		var chars = Math.floor(width / charwidth);
		if (chars < 3) return "";
		if (name.length <= chars) return name;	// code points <= UTF-16 units
		var cps = Array.from(name);
		if (cps.length <= chars) return name;
		return cps.slice(0, chars - 2).join("") + "..";
	}

	// A frame group holds <title>, <rect>, <text> in this order (spec §11);
	// anything else is looked up.
	function child(g, i, tag) {
		var el = g.children[i];
		return el && el.localName === tag ? el : g.querySelector(tag);
	}

	function collect() {
		if (collected) return;
		collected = true;
		framesEl = byId("frames");
		var svg = document.documentElement;
		fullWidth = parseFloat(svg.getAttribute("width")) - 2 * xpad;
		if (!framesEl) return;
		var kids = framesEl.children;
		for (var i = 0; i < kids.length; i++) {
			var g = kids[i];
			var rect = child(g, 1, "rect");
			if (!rect) continue;
			var text = child(g, 2, "text");
			var title = child(g, 0, "title");
			var f = {
				g: g, rect: rect, text: text,
				tooltip: title ? title.textContent : "",
				xs: rect.getAttribute("x") || "0",
				ws: rect.getAttribute("width") || "0",
				ys: rect.getAttribute("y") || "0",
				fill: rect.getAttribute("fill"),
				tx: text ? text.getAttribute("x") : null,
				label: text ? text.textContent : "",
				state: SHOWN,	// what the document shows now
				moved: false,	// geometry and label differ from the original
				lit: false	// painted as a search match
			};
			f.name = frameName(f.tooltip);
			f.x = parseFloat(f.xs);
			f.w = parseFloat(f.ws);
			f.y = parseFloat(f.ys);
			if (f.w > totalWidth) totalWidth = f.w;
			frames.push(f);
			byGroup.set(g, f);
		}
		if (!(fullWidth > 0)) fullWidth = totalWidth;
	}

	// The frame group of an event target (any element inside a frame).
	function groupOf(node) {
		if (!framesEl) framesEl = byId("frames");
		while (node && node.parentNode !== framesEl) node = node.parentNode;
		return node || null;
	}

	// The frame record for an event target.
	function frameOf(node) {
		var g = groupOf(node);
		if (!g) return undefined;
		collect();
		return byGroup.get(g);
	}

	// ---- URL query (state that survives a reload or a shared link) ----

	function setParams(changes) {
		try {
			var url = new URL(window.location.href);
			for (var k in changes) {
				if (changes[k] === null) url.searchParams.delete(k);
				else url.searchParams.set(k, changes[k]);
			}
			history.replaceState(null, "", url.href);
		} catch (e) {
			// Some embeddings (sandboxed frames, data: URLs) have no history.
		}
	}

	function getParams() {
		try {
			return new URL(window.location.href).searchParams;
		} catch (e) {
			return new URLSearchParams("");
		}
	}

	// ---- zoom ----

	function setState(f, state) {
		if (f.state === state) return;
		var cl = f.g.classList;
		if (f.state !== SHOWN) cl.remove(f.state === HIDDEN ? "hide" : "parent");
		if (state !== SHOWN) cl.add(state === HIDDEN ? "hide" : "parent");
		f.state = state;
	}

	function place(f, x, w, state) {
		var xs = x.toFixed(1), ws = w.toFixed(1);
		var label = f.text ? fitLabel(f.name, w) : "";
		setState(f, state);
		if (f.rect.getAttribute("x") !== xs) f.rect.setAttribute("x", xs);
		if (f.rect.getAttribute("width") !== ws) f.rect.setAttribute("width", ws);
		if (f.text) {
			var tx = (x + 3).toFixed(2);
			if (f.text.getAttribute("x") !== tx) f.text.setAttribute("x", tx);
			if (f.text.textContent !== label) f.text.textContent = label;
		}
		f.moved = xs !== f.xs || ws !== f.ws || label !== f.label ||
			(f.text !== null && f.tx !== (x + 3).toFixed(2));
	}

	function restore(f) {
		setState(f, SHOWN);
		if (!f.moved) return;
		f.rect.setAttribute("x", f.xs);
		f.rect.setAttribute("width", f.ws);
		if (f.text) {
			if (f.tx !== null) f.text.setAttribute("x", f.tx);
			f.text.textContent = f.label;
		}
		f.moved = false;
	}

	function isAncestor(f, z) {
		var above = inverted ? f.y < z.y : f.y > z.y;
		return above && f.x <= z.x + EPS && f.x + f.w >= z.x + z.w - EPS;
	}

	function isInside(f, z) {
		var level = inverted ? f.y >= z.y : f.y <= z.y;
		return level && f.x >= z.x - EPS && f.x < z.x + z.w - EPS &&
			f.x + f.w <= z.x + z.w + EPS;
	}

	function zoom(z) {
		collect();
		var ratio = fullWidth / z.w;
		var parents = 0;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f === z || isInside(f, z)) {
				var left = round1(xpad + (f.x - z.x) * ratio);
				var right = round1(xpad + (f.x + f.w - z.x) * ratio);
				place(f, left, right - left, SHOWN);
			} else if (isAncestor(f, z)) {
				place(f, xpad, fullWidth, PARENT);
				parents++;
			} else {
				setState(f, HIDDEN);	// its geometry does not matter now
			}
		}
		if (parents === 0) {	// zooming to the root is a reset
			unzoom();
			return;
		}
		if (unzoomBtn) unzoomBtn.classList.remove("hide");
		setParams({ x: z.xs, y: z.ys });
	}

	function unzoom() {
		collect();
		for (var i = 0; i < frames.length; i++) restore(frames[i]);
		if (unzoomBtn) unzoomBtn.classList.add("hide");
		setParams({ x: null, y: null });
	}

	// ---- search ----

	// Share of the total width covered by the matched frames; nested and
	// overlapping matches count once (the widest, outermost one).  It uses
	// the original geometry, so the number does not change with the zoom.
	function matchedShare(hits) {
		hits.sort(function (a, b) { return a.x - b.x || b.w - a.w; });
		var covered = 0, end = -Infinity;
		for (var i = 0; i < hits.length; i++) {
			var h = hits[i];
			if (h.x >= end - EPS) {
				covered += h.w;
				end = h.x + h.w;
			} else if (h.x + h.w > end + EPS) {
				covered += h.x + h.w - end;
				end = h.x + h.w;
			}
		}
		return totalWidth > 0 ? 100 * covered / totalWidth : 0;
	}

	function formatShare(pct) {
		return pct === 100 ? "100" : pct.toFixed(1);
	}

	function light(f, on) {
		if (f.lit === on) return;
		if (on) f.rect.setAttribute("fill", searchcolor);
		else if (f.fill === null) f.rect.removeAttribute("fill");
		else f.rect.setAttribute("fill", f.fill);
		f.lit = on;
	}

	function clearHighlight() {
		for (var i = 0; i < frames.length; i++) light(frames[i], false);
	}

	function search(term) {
		var re;
		try {
			re = new RegExp(term, ignoreCase ? "i" : "");
		} catch (e) {
			setText(matchedEl, "Invalid regular expression");
			return;
		}
		collect();
		searchTerm = term;
		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			var hit = re.test(f.name);
			light(f, hit);
			if (hit) hits.push(f);
		}
		if (searchBtn) {
			searchBtn.classList.add("show");
			setText(searchBtn, "Reset Search");
		}
		if (matchedEl) matchedEl.classList.remove("hide");
		setText(matchedEl, "Matched: " + formatShare(matchedShare(hits)) + "%");
		setParams({ s: term });
	}

	function resetSearch() {
		searchTerm = null;
		clearHighlight();
		if (searchBtn) {
			searchBtn.classList.remove("show");
			setText(searchBtn, "Search");
		}
		setText(matchedEl, " ");
		setParams({ s: null });
	}

	// The Search button, Ctrl-F and F3: ask for a term, or reset the
	// search that is active.
	function searchPrompt() {
		if (searchTerm !== null) {
			resetSearch();
			return;
		}
		var term = window.prompt("Search for frames matching a regular " +
			"expression (for example ^ext4_)" +
			(ignoreCase ? ", ignoring case" : "") +
			"\nCtrl-I toggles case sensitivity", "");
		if (term) search(term);
	}

	function toggleIgnoreCase() {
		ignoreCase = !ignoreCase;
		if (icBtn) icBtn.classList.toggle("show", ignoreCase);
		if (searchTerm !== null) search(searchTerm);
	}

	// ---- events ----

	function onClick(e) {
		var f = frameOf(e.target);
		if (f) {
			// A frame that is a link (--nameattr href) follows it,
			// unless Ctrl is held.
			if (f.g.localName === "a") {
				if (!e.ctrlKey) return;
				e.preventDefault();
			}
			zoom(f);
			return;
		}
		var id = e.target && e.target.id;
		if (id === "unzoom") unzoom();
		else if (id === "search") searchPrompt();
		else if (id === "ignorecase") toggleIgnoreCase();
	}

	// (Read from the frame itself: a tooltip needs no collect().)
	function onOver(e) {
		var g = groupOf(e.target);
		var title = g && child(g, 0, "title");
		if (g) setText(details, nametype + " " + (title ? title.textContent : ""));
	}

	function onOut(e) {
		if (groupOf(e.target)) setText(details, " ");
	}

	function onKey(e) {
		var key = (e.key || "").toLowerCase();
		if (key === "f3" || ((e.ctrlKey || e.metaKey) && key === "f")) {
			e.preventDefault();
			searchPrompt();
		} else if (e.ctrlKey && key === "i") {
			e.preventDefault();
			toggleIgnoreCase();
		}
	}

	// After the first paint, when the browser is idle: the records of
	// the frames, so that the first click need not wait for them.
	function collectLater() {
		var later = window.requestIdleCallback ?
			function (fn) { window.requestIdleCallback(fn, { timeout: 2000 }); } :
			function (fn) { window.setTimeout(fn, 0); };
		if (window.requestAnimationFrame)
			window.requestAnimationFrame(function () { later(collect); });
		else
			later(collect);
	}

	function start() {
		if (started) return;
		started = true;
		showFrames();
		framesEl = byId("frames");
		details = byId("details");
		unzoomBtn = byId("unzoom");
		searchBtn = byId("search");
		icBtn = byId("ignorecase");
		matchedEl = byId("matched");
		window.addEventListener("click", onClick, false);
		window.addEventListener("mouseover", onOver, false);
		window.addEventListener("mouseout", onOut, false);
		window.addEventListener("keydown", onKey, false);

		// Restore the state kept in the URL: zoom first, then search.
		var params = getParams();
		var px = params.get("x"), py = params.get("y"), s = params.get("s");
		if ((px === null || py === null) && !s) {
			collectLater();
			return;
		}
		collect();
		if (px !== null && py !== null) {
			for (var i = 0; i < frames.length; i++) {
				if (frames[i].xs === px && frames[i].ys === py) {
					zoom(frames[i]);
					break;
				}
			}
		}
		if (s) search(s);
	}

	return { start: start, zoom: zoom, unzoom: unzoom, search: search,
		resetSearch: resetSearch };
})();
