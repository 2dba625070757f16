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

	function byId(id) { return document.getElementById(id); }
	function setText(el, s) { if (el) el.textContent = s; }
	function round1(v) { return Math.round(v * 10) / 10; }

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
		var cps = Array.from(name);
		if (cps.length <= chars) return name;
		return cps.slice(0, chars - 2).join("") + "..";
	}

	function collect() {
		framesEl = byId("frames");
		details = byId("details");
		unzoomBtn = byId("unzoom");
		searchBtn = byId("search");
		icBtn = byId("ignorecase");
		matchedEl = byId("matched");
		var svg = document.documentElement;
		fullWidth = parseFloat(svg.getAttribute("width")) - 2 * xpad;
		if (!framesEl) return;
		var kids = framesEl.children;
		for (var i = 0; i < kids.length; i++) {
			var g = kids[i];
			var rect = g.querySelector("rect");
			var text = g.querySelector("text");
			var title = g.querySelector("title");
			if (!rect) continue;
			var f = {
				g: g, rect: rect, text: text,
				tooltip: title ? title.textContent : "",
				xs: rect.getAttribute("x") || "0",
				ws: rect.getAttribute("width") || "0",
				ys: rect.getAttribute("y") || "0",
				fill: rect.getAttribute("fill"),
				tx: text ? text.getAttribute("x") : null,
				label: text ? text.textContent : ""
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

	// The frame record for an event target (any element inside a frame).
	function frameOf(node) {
		while (node && node.parentNode !== framesEl) node = node.parentNode;
		return node ? byGroup.get(node) : undefined;
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

	function place(f, x, w, cls) {
		f.g.classList.remove("hide", "parent");
		if (cls) f.g.classList.add(cls);
		f.rect.setAttribute("x", x.toFixed(1));
		f.rect.setAttribute("width", w.toFixed(1));
		if (f.text) {
			f.text.setAttribute("x", (x + 3).toFixed(2));
			f.text.textContent = fitLabel(f.name, w);
		}
	}

	function restore(f) {
		f.g.classList.remove("hide", "parent");
		f.rect.setAttribute("x", f.xs);
		f.rect.setAttribute("width", f.ws);
		if (f.text) {
			if (f.tx !== null) f.text.setAttribute("x", f.tx);
			f.text.textContent = f.label;
		}
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
		var ratio = fullWidth / z.w;
		var parents = 0;
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f === z || isInside(f, z)) {
				var left = round1(xpad + (f.x - z.x) * ratio);
				var right = round1(xpad + (f.x + f.w - z.x) * ratio);
				place(f, left, right - left, null);
			} else if (isAncestor(f, z)) {
				place(f, xpad, fullWidth, "parent");
				parents++;
			} else {
				f.g.classList.remove("parent");
				f.g.classList.add("hide");
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

	function clearHighlight() {
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (f.fill === null) f.rect.removeAttribute("fill");
			else f.rect.setAttribute("fill", f.fill);
		}
	}

	function search(term) {
		var re;
		try {
			re = new RegExp(term, ignoreCase ? "i" : "");
		} catch (e) {
			setText(matchedEl, "Invalid regular expression");
			return;
		}
		searchTerm = term;
		var hits = [];
		for (var i = 0; i < frames.length; i++) {
			var f = frames[i];
			if (re.test(f.name)) {
				f.rect.setAttribute("fill", searchcolor);
				hits.push(f);
			} else if (f.fill === null) {
				f.rect.removeAttribute("fill");
			} else {
				f.rect.setAttribute("fill", f.fill);
			}
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

	function onOver(e) {
		var f = frameOf(e.target);
		if (f) setText(details, nametype + " " + f.tooltip);
	}

	function onOut(e) {
		if (frameOf(e.target)) setText(details, " ");
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

	function start() {
		if (started) return;
		started = true;
		collect();
		window.addEventListener("click", onClick, false);
		window.addEventListener("mouseover", onOver, false);
		window.addEventListener("mouseout", onOut, false);
		window.addEventListener("keydown", onKey, false);

		// Restore the state kept in the URL: zoom first, then search.
		var params = getParams();
		var px = params.get("x"), py = params.get("y"), s = params.get("s");
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
