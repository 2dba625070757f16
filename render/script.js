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
// Speed on big graphs (issue 21; `make bench-browser` measures it).  The
// browser's cost is per layout box it must restyle, lay out, paint or hit
// test, so the script keeps boxes few and never touches the frames a click
// hides:
//   - empty labels (nearly all of a big graph's) and the frames' groups
//     get no layout box (`text:empty`, and display:contents on the
//     groups: rules added before the frames are parsed);
//   - a zoom is drawn on a canvas laid over #frames (an HTML <canvas> in
//     a <foreignObject>): the frames in the clicked frame's span,
//     rescaled, and its ancestors, stretched and dimmed, with the static
//     graph's colours, corners, labels and background.  #frames stays as
//     it is under it, so Reset Zoom only hides the canvas.  Over the
//     canvas, hover, tooltip, outline and click are the script's;
//   - where there is no canvas (or fg_config says "canvas":false), #frames
//     is drawn through a nested <svg> viewport instead, whose viewBox a
//     zoom sets to the span: the browser scales every frame and clips the
//     ones flamegraph.pl hides; only what differs from a plain scaling is
//     written (ancestors, visible labels, corner radii, class `hide` on
//     the few outside frames that would still show), and undone on reset;
//   - the graph is rendered once, after the parser is done; the frame
//     records and the canvas are made after the first paint, when the
//     browser is idle.
// Without the script (or before it runs) the SVG is the static graph.

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

	var fontsize = Number(cfg.fontsize) || 12;
	var SVGNS = "http://www.w3.org/2000/svg";
	var XHTMLNS = "http://www.w3.org/1999/xhtml";

	var frames = [];	// one record per frame, with its original geometry
	var byGroup = new Map();	// frame group element -> record
	var framesEl, details, unzoomBtn, searchBtn, icBtn, matchedEl;
	var view = null;	// the nested <svg> that #frames is drawn through
	var fullWidth = 0;	// width of the drawing area (W - 2 * xpad)
	var fullHeight = 0;	// height of the image (its viewBox)
	var totalWidth = 0;	// width of the widest frame (the root)
	var searchTerm = null;
	var ignoreCase = false;
	var started = false;
	var collected = false;
	var touched = [];	// records that differ from the static graph now
	var rows = [];	// one per frame height (y): { y, fr: its frames by x }
	var labelled = [];	// frames with a label in the static graph
	var stamp = 0;	// zoom count: f.seen === stamp when this zoom set f

	// Classes a frame can carry: none, `parent` (a dimmed ancestor of
	// the zoomed frame) or `hide` (display:none).
	var SHOWN = 0, PARENT = 1, HIDDEN = 2;
	var CLASS = [null, "parent", "hide"];

	function byId(id) { return document.getElementById(id); }
	function setText(el, s) { if (el) el.textContent = s; }

	// Rules the static graph does not need, added to its style sheet
	// before the frames are parsed (so that they cost no restyle):
	//   - an empty label gets no layout box: 44,698 of the 44,841 labels
	//     of the bench's graph are empty, and every box costs at each
	//     paint and hit test (zoom 500 -> 400 ms, load -7%);
	//   - a frame's group gets no box either (display:contents: its rect
	//     and label are drawn in its place, and inherit its style).  That
	//     halves the boxes the browser walks at every paint, pre-paint and
	//     hit test (zoom -20 ms, reset -30 ms at 45k frames).  A dimmed
	//     ancestor keeps its box, since its opacity must apply to rect and
	//     label as one; a hidden frame stays display:none;
	//   - frames and buttons start no text selection: without the group
	//     boxes, Chromium's search for a caret position at a mouse press
	//     walks every frame (300 ms a click);
	// Where display:contents is unknown for SVG groups, that rule is left
	// out: the frames then render as before.
	(function addRules() {
		var rules = ["#frames text:empty { display:none; }",
			"#frames, #unzoom, #search, #ignorecase { -webkit-user-select:none; user-select:none; }"];
		if (groupContents())
			rules.push("#frames > g:not(.parent):not(.hide) { display:contents; }");
		for (var i = 0; i < rules.length; i++) addRule(rules[i]);
	})();

	function addRule(rule) {
		try {
			var st = document.getElementsByTagName("style")[0];
			var sheet = st && st.sheet;
			if (sheet) sheet.insertRule(rule, sheet.cssRules.length);
		} catch (e) {
			// no CSSOM: labels and groups keep their boxes
		}
	}

	// Whether this browser draws the children of an SVG group with
	// display:contents (CSS Display 3 says it does; where it is not
	// implemented the value computes to none or is refused).
	function groupContents() {
		var root = document.documentElement;
		if (!root || root.namespaceURI !== SVGNS || !window.getComputedStyle) return false;
		var g = document.createElementNS(SVGNS, "g");
		var ok = false;
		try {
			g.setAttribute("style", "display:contents");
			root.appendChild(g);
			ok = window.getComputedStyle(g).display === "contents";
		} catch (e) {
			ok = false;
		}
		if (g.parentNode) g.parentNode.removeChild(g);
		return ok;
	}

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
		if (root && root.namespaceURI === SVGNS &&
		    document.readyState === "loading" && root.style && root.style.setProperty) {
			root.style.setProperty("content-visibility", "hidden");
			deferred = root.style.getPropertyValue("content-visibility") === "hidden";
		}
	} catch (e) {
		deferred = false;
	}
	function showFrames() {
		wrapFrames();	// while nothing is laid out yet, it costs nothing
		if (!deferred) return;
		deferred = false;
		root.style.removeProperty("content-visibility");
		if (root.getAttribute("style") === "") root.removeAttribute("style");
	}
	window.addEventListener("DOMContentLoaded", showFrames, false);
	window.addEventListener("load", showFrames, false);

	// #frames moves into a nested <svg>, the view.  Unzoomed it shows the
	// drawing area as it is (the static picture, pixel for pixel) and
	// clips nothing; zoomed, its viewBox is the zoomed frame's span.
	function wrapFrames() {
		if (view) return;
		framesEl = byId("frames");
		if (!framesEl || !framesEl.parentNode || framesEl.namespaceURI !== SVGNS) return;
		var svg = document.documentElement;
		var vb = (svg.getAttribute("viewBox") || "").split(/[\s,]+/);
		fullHeight = parseFloat(vb[3]) || parseFloat(svg.getAttribute("height")) || 0;
		fullWidth = parseFloat(svg.getAttribute("width")) - 2 * xpad;
		if (!(fullWidth > 0) || !(fullHeight > 0)) return;
		view = document.createElementNS(SVGNS, "svg");
		view.setAttribute("x", String(xpad));
		view.setAttribute("y", "0");
		view.setAttribute("width", String(fullWidth));
		view.setAttribute("height", String(fullHeight));
		view.setAttribute("preserveAspectRatio", "none");
		setView(xpad, fullWidth);
		// The view goes in the graph's place, or, when the graph is a
		// child of the root, before the header and the buttons (right
		// after the background): nothing overlaps, so the picture is
		// the same, but a click on a button is found before the browser
		// has tested every frame (hit testing goes from the last
		// element drawn back: 6 ms a click at 45k frames).
		var at = framesEl, bg = backgroundRect();
		if (framesEl.parentNode === svg && bg &&
		    (bg.compareDocumentPosition(framesEl) & Node.DOCUMENT_POSITION_FOLLOWING))
			at = bg.nextElementSibling;
		framesEl.parentNode.insertBefore(view, at);
		view.appendChild(framesEl);
	}

	// The background: the root's first <rect> (spec §11).
	function backgroundRect() {
		for (var el = document.documentElement.firstElementChild; el; el = el.nextElementSibling)
			if (el.localName === "rect") return el;
		return null;
	}

	// The view shows the user-space span [x, x + w] across the drawing
	// area, and clips what is outside it when zoomed.
	var viewNow = "";
	function setView(x, w) {
		if (!view) return;
		var vb = x + " 0 " + w + " " + fullHeight;
		if (vb === viewNow) return;	// (an equal write still lays out every frame)
		viewNow = vb;
		view.setAttribute("viewBox", vb);
		view.setAttribute("overflow", x === xpad && w === fullWidth ? "visible" : "hidden");
	}

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
		wrapFrames();
		framesEl = byId("frames");
		var svg = document.documentElement;
		if (!(fullWidth > 0)) fullWidth = parseFloat(svg.getAttribute("width")) - 2 * xpad;
		if (!framesEl) return;
		var kids = framesEl.children;
		var byY = new Map();
		for (var i = 0; i < kids.length; i++) {
			var g = kids[i];
			var rect = child(g, 1, "rect");
			if (!rect) continue;
			var text = child(g, 2, "text");
			var title = child(g, 0, "title");
			var f = {
				i: frames.length,	// index in #frames
				g: g, rect: rect, text: text,
				tooltip: title ? title.textContent : "",
				xs: rect.getAttribute("x") || "0",
				ws: rect.getAttribute("width") || "0",
				ys: rect.getAttribute("y") || "0",
				fill: rect.getAttribute("fill"),
				tx: text ? parseFloat(text.getAttribute("x")) || 0 : 0,
				ty: text ? parseFloat(text.getAttribute("y")) || 0 : 0,
				h: parseFloat(rect.getAttribute("height")) || 0,
				label: text ? text.textContent : "",
				cls: SHOWN,	// class written now
				stretched: false,	// rect drawn over the zoomed span
				rx: rect.getAttribute("rx"),
				rxNow: null,	// rx written now (null: the original)
				labelNow: null,	// label written now (null: the original)
				tfNow: null,	// label transform written now
				touched: false,	// in touched[]
				seen: 0,	// the zoom that last set it
				lit: false	// painted as a search match
			};
			f.name = frameName(f.tooltip);
			f.x = parseFloat(f.xs);
			f.w = parseFloat(f.ws);
			f.y = parseFloat(f.ys);
			if (f.w > totalWidth) totalWidth = f.w;
			frames.push(f);
			byGroup.set(g, f);
			var row = byY.get(f.y);
			if (!row) {
				row = { y: f.y, fr: [] };
				byY.set(f.y, row);
				rows.push(row);
			}
			row.fr.push(f);
			if (f.label !== "") labelled.push(f);
		}
		for (i = 0; i < rows.length; i++)
			rows[i].fr.sort(function (a, b) { return a.x - b.x; });
		if (!(fullWidth > 0)) fullWidth = totalWidth;
		canvasView();
	}

	// The first index in a row (of records with x, sorted by x) whose x
	// is >= x, or with orEqual, > x.
	function lowerBound(fr, x, orEqual) {
		var lo = 0, hi = fr.length;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (fr[mid].x < x || (orEqual && fr[mid].x === x)) lo = mid + 1;
			else hi = mid;
		}
		return lo;
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

	// The URL is written once the click's frame is painted (replaceState
	// costs Chromium 6-8 ms, a tenth of a zoom at 45k frames); changes
	// made before then are written together.
	var pendingParams = null;
	function setParams(changes) {
		if (pendingParams === null) {
			pendingParams = {};
			if (window.requestAnimationFrame)
				window.requestAnimationFrame(function () { window.setTimeout(writeParams, 0); });
			window.setTimeout(writeParams, 100);	// (no frames in a hidden tab)
		}
		for (var k in changes) pendingParams[k] = changes[k];
	}

	function writeParams() {
		var changes = pendingParams;
		if (changes === null) return;
		pendingParams = null;
		try {
			var url = new URL(window.location.href);
			for (var k in changes) {
				if (changes[k] === null) url.searchParams.delete(k);
				else url.searchParams.set(k, changes[k]);
			}
			if (url.href !== window.location.href) history.replaceState(null, "", url.href);
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
	// Every write below changes one attribute of one frame, and only when
	// its value changes; touched[] lists the frames that differ from the
	// static graph, for the next zoom or Reset Zoom to put back.

	function touch(f) {
		if (!f.touched) {
			f.touched = true;
			touched.push(f);
		}
	}

	function setClass(f, cls) {
		if (f.cls === cls) return;
		var cl = f.g.classList;
		if (f.cls !== SHOWN) cl.remove(CLASS[f.cls]);
		if (cls !== SHOWN) cl.add(CLASS[cls]);
		f.cls = cls;
		touch(f);
	}

	// The rect over [x, x + w] (user space) or where it was drawn.
	function stretch(f, on, x, w) {
		if (on) {
			f.rect.setAttribute("x", x);
			f.rect.setAttribute("width", w);
			f.stretched = true;
			touch(f);
		} else if (f.stretched) {
			f.rect.setAttribute("x", f.xs);
			f.rect.setAttribute("width", f.ws);
			f.stretched = false;
		}
	}

	// Corner radius in user space (null: the original one): the view
	// scales it with the frame, so a visible frame wider than 4 px gets
	// 2 / ratio to keep its 2 px corners.  (As a CSS percentage of the
	// view's width it would need no write here, but every rect would be
	// laid out again at each zoom: 290 against 190 ms.)
	function setRx(f, rx) {
		if (f.rxNow === rx) return;
		if (rx === null) {
			if (f.rx === null) f.rect.removeAttribute("rx");
			else f.rect.setAttribute("rx", f.rx);
		} else {
			f.rect.setAttribute("rx", rx);
			touch(f);
		}
		f.rxNow = rx;
	}

	// The label and the transform that draws it unscaled (null, null:
	// the original ones).
	function setLabel(f, label, tf) {
		if (!f.text) return;
		var now = f.labelNow === null ? f.label : f.labelNow;
		var want = label === null ? f.label : label;
		if (now !== want) f.text.textContent = want;
		f.labelNow = label === null || label === f.label ? null : label;
		if (f.tfNow !== tf) {
			if (tf === null) f.text.removeAttribute("transform");
			else f.text.setAttribute("transform", tf);
			f.tfNow = tf;
		}
		if (f.labelNow !== null || tf !== null) touch(f);
	}

	function restore(f) {
		setClass(f, SHOWN);
		stretch(f, false);
		setRx(f, null);
		setLabel(f, null, null);
		f.touched = false;
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

	// Whether a frame that the zoom hides would still show through the
	// view's clip: its rect overlaps the span (rounding), or its label
	// may run into it (labels are fitted with an average glyph width; a
	// glyph is at most one font size wide).
	function showsThrough(f, z) {
		var end = z.x + z.w;
		if (f.x < end - 1e-6 && f.x + f.w > z.x + 1e-6) return true;
		var n = f.label.length;
		return n > 0 && f.tx < end && f.tx + n * fontsize > z.x;
	}

	// The frames a zoom to z draws, found in their rows by x (the whole
	// graph need not be walked): in each row at or above z, the frames
	// within its span (inside); below it, the one ancestor; and, for
	// edge when given, the frames at the span's edges in every row.
	function walkSpan(z, inside, ancestor, edge) {
		var i, j, k, f, fr, y, lo;
		var zx = z.x, end = z.x + z.w;
		edge = edge || function () {};
		for (i = 0; i < rows.length; i++) {
			fr = rows[i].fr;
			y = rows[i].y;
			if (inverted ? y >= z.y : y <= z.y) {
				lo = lowerBound(fr, zx - EPS);
				for (k = lo; k < fr.length && fr[k].x < end - EPS; k++) {
					f = fr[k];
					if (f === z || isInside(f, z)) inside(f);
				}
				for (j = lo; j < k; j++) edge(fr[j]);
				edge(fr[lo - 1]);
				edge(fr[k]);
				edge(fr[k + 1]);
			} else {
				k = lowerBound(fr, zx + EPS, true) - 1;	// the last at or before
				while (k >= 0 && !isAncestor(fr[k], z) && fr[k].x + fr[k].w >= zx) k--;
				if (k >= 0 && isAncestor(fr[k], z)) ancestor(fr[k]);
				else k = lowerBound(fr, zx);
				edge(fr[k - 1]);
				edge(fr[k]);
				edge(fr[k + 1]);
			}
		}
	}

	// Only the frames a zoom can change are visited, found in their rows
	// by x (the whole graph need not be walked: 15 -> 3 ms of script at
	// 45k frames): in each row at or above the zoomed frame, the frames
	// within its span; below it, the one ancestor; in every row, the
	// neighbours at the span's edges, and the frames with a label, which
	// may show through the view's clip.  Frames the last zoom changed and
	// this one does not set are put back.
	var scaledHover = false;
	function zoomDom(z) {
		if (!view) wrapFrames();
		// a hovered frame's outline stays 0.5 px wide in the scaled view
		// (added at the first such zoom: every hover pays for the rule)
		if (!scaledHover) {
			scaledHover = true;
			addRule("#frames > *:hover > rect { vector-effect:non-scaling-stroke; }");
		}
		var ratio = fullWidth / z.w;
		var parents = 0;
		var i;
		var zx = z.x, zw = z.w;
		var rx = String(2 / ratio);
		var prev = touched;
		touched = [];
		stamp++;
		for (i = 0; i < prev.length; i++) prev[i].touched = false;

		function inside(f) {	// drawn scaled by the view; its label is
			// refitted and drawn at the frame's left edge + 3, unscaled
			f.seen = stamp;
			var w = f.w * ratio;
			setClass(f, SHOWN);
			stretch(f, false);
			setRx(f, w > 4 ? rx : null);
			var label = f.text ? fitLabel(f.name, w) : "";
			if (label === "") {
				setLabel(f, label, null);
			} else {
				var xs = xpad + (f.x - zx) * ratio + 3;
				setLabel(f, label, "matrix(" + (1 / ratio) + ",0,0,1," +
					(zx + (xs - xpad - f.tx) / ratio) + ",0)");
			}
		}
		function ancestor(f) {
			f.seen = stamp;
			setClass(f, PARENT);
			stretch(f, true, z.xs, z.ws);
			setRx(f, rx);
			setLabel(f, f.text ? fitLabel(f.name, fullWidth) : "",
				"matrix(" + (1 / ratio) + ",0,0,1," +
				(zx + (3 - f.tx) / ratio) + ",0)");
			parents++;
		}
		function outside(f) {	// the view's clip hides it, or class hide
			if (!f || f.seen === stamp || !showsThrough(f, z)) return;
			f.seen = stamp;
			if (f.cls !== SHOWN || f.stretched || f.rxNow !== null ||
			    f.labelNow !== null || f.tfNow !== null)
				restore(f);
			setClass(f, HIDDEN);
		}

		walkSpan(z, inside, ancestor, outside);
		for (i = 0; i < labelled.length; i++) outside(labelled[i]);
		for (i = 0; i < prev.length; i++)
			if (prev[i].seen !== stamp) restore(prev[i]);
		if (parents === 0) {	// zooming to the root is a reset
			unzoom();
			return;
		}
		setView(zx, zw);
		if (unzoomBtn) unzoomBtn.classList.remove("hide");
		setParams({ x: z.xs, y: z.ys });
	}

	function unzoomDom() {
		for (var i = 0; i < touched.length; i++) restore(touched[i]);
		touched = [];
		setView(xpad, fullWidth);
		if (unzoomBtn) unzoomBtn.classList.add("hide");
		setParams({ x: null, y: null });
	}


	// ---- the zoomed view, drawn on a canvas ----
	// A zoom draws the frames it shows (the span's frames rescaled, the
	// ancestors stretched and dimmed) on a canvas laid over the graph, in
	// an HTML <canvas> inside a <foreignObject>; #frames itself is left
	// as it is.  The browser then lays out and paints a few thousand
	// canvas rectangles instead of restyling, laying out and painting
	// 45k frames: at the bench's zoom, 5,065 frames and 909 labels
	// drawn in ~15 ms of script, and Reset Zoom only hides the canvas.
	// Hover, tooltip, click and the hover outline over the canvas are
	// the script's (the canvas knows which frame is where).  Where there
	// is no canvas (or fg_config has "canvas":false), the view zooms as
	// above (zoomDom).  The canvas is made with the frame records, when
	// the browser is idle after the first paint, not at the first click.
	var cv = null;	// the canvas view: false when there is none
	var zoomedTo = null;	// the frame the canvas view is zoomed to
	var drawn = [];	// its rows: { y, h, fr: [{ f, x, w, label, parent }] by x }

	function canvasView() {
		if (cv !== null) return cv;
		cv = false;
		if (cfg.canvas === false) return cv;	// asked for the zoom in the SVG
		var svg = document.documentElement;
		if (!framesEl || !rows.length || svg.namespaceURI !== SVGNS) return cv;
		var top = Infinity, bottom = -Infinity, i;
		for (i = 0; i < frames.length; i++) {
			top = Math.min(top, frames[i].y);
			bottom = Math.max(bottom, frames[i].y + frames[i].h);
		}
		if (!(bottom > top) || !(fullWidth > 0)) return cv;
		try {
			var fo = document.createElementNS(SVGNS, "foreignObject");
			var canvas = document.createElementNS(XHTMLNS, "canvas");
			var ctx = canvas.getContext && canvas.getContext("2d");
			if (!ctx || !ctx.fillText) return cv;
			fo.setAttribute("x", String(xpad));
			fo.setAttribute("y", String(top));
			fo.setAttribute("width", String(fullWidth));
			fo.setAttribute("height", String(bottom - top));
			fo.setAttribute("display", "none");
			canvas.setAttribute("style", "display:block; width:" + fullWidth + "px; height:" +
				(bottom - top) + "px;");
			fo.appendChild(canvas);
			svg.appendChild(fo);	// last: drawn over the frames, hit first
			cv = { fo: fo, canvas: canvas, ctx: ctx, top: top, h: bottom - top,
				hover: null };
			styleFromGraph(cv);
			canvas.addEventListener("mousemove", onCanvasMove, false);
			canvas.addEventListener("mouseleave", onCanvasLeave, false);
		} catch (e) {
			cv = false;
		}
		return cv;
	}

	// What the static graph draws with: the background's gradient
	// (stops and extent of #background on the background rect), and
	// the labels' font and colour.
	function styleFromGraph(c) {
		c.bg = { stops: [], y: 0, h: fullHeight, solid: null };
		var bgRect = backgroundRect();
		var grad = byId("background");
		if (bgRect) {
			c.bg.y = parseFloat(bgRect.getAttribute("y")) || 0;
			c.bg.h = parseFloat(bgRect.getAttribute("height")) || fullHeight;
			var fill = bgRect.getAttribute("fill") || "";
			if (!/^url\(/.test(fill)) c.bg.solid = fill || "white";
		}
		if (grad) {
			var stops = grad.getElementsByTagNameNS(SVGNS, "stop");
			for (var i = 0; i < stops.length; i++) {
				var off = stops[i].getAttribute("offset") || "0";
				var v = parseFloat(off);
				if (/%\s*$/.test(off)) v /= 100;
				c.bg.stops.push([Math.min(1, Math.max(0, v || 0)),
					stops[i].getAttribute("stop-color") || "black"]);
			}
		}
		var t = null;
		for (var k = 0; k < frames.length && !t; k++) if (frames[k].label !== "") t = frames[k];
		var te = t ? child(t.g, 2, "text") : framesEl.querySelector("text");
		var cs = te && window.getComputedStyle ? window.getComputedStyle(te) : null;
		c.font = cs ? [cs.fontStyle, cs.fontWeight, cs.fontSize, cs.fontFamily].join(" ") :
			fontsize + "px Verdana";
		c.ink = cs && cs.fill && cs.fill !== "none" ? cs.fill : "rgb(0,0,0)";
	}

	// The rows and positions (user space) of what a zoom to z shows.
	function layoutZoom(z) {
		var ratio = fullWidth / z.w;
		var byRow = new Map();
		var parents = 0;
		function put(f, x, w, parent) {
			var r = byRow.get(f.y);
			if (!r) {
				r = { y: f.y, h: f.h, fr: [] };
				byRow.set(f.y, r);
			}
			r.fr.push({ f: f, x: x, w: w, parent: parent,
				label: fitLabel(f.name, w) });
		}
		walkSpan(z, function (f) {
			put(f, xpad + (f.x - z.x) * ratio, f.w * ratio, false);
		}, function (f) {
			put(f, xpad, fullWidth, true);
			parents++;
		}, null);
		drawn = [];
		byRow.forEach(function (r) { drawn.push(r); });
		drawn.sort(function (a, b) { return a.y - b.y; });
		return parents;
	}

	// The rect of a frame: flamegraph.pl's rx = ry = 2, which the
	// browser clamps to half the width and height on each axis.
	function framePath(ctx, x, y, w, h) {
		ctx.beginPath();
		if (ctx.roundRect)
			ctx.roundRect(x, y, w, h, [{ x: Math.min(2, w / 2), y: Math.min(2, h / 2) }]);
		else
			ctx.rect(x, y, w, h);
	}

	function drawFrame(ctx, d) {
		var f = d.f, c = cv;
		framePath(ctx, d.x, f.y, d.w, f.h);
		ctx.fillStyle = f.lit ? searchcolor : (f.fill || "black");
		ctx.fill();
		var hovered = c.hover === f;
		if (hovered) {	// the static graph's :hover outline
			ctx.lineWidth = 0.5;
			ctx.strokeStyle = "black";
			ctx.stroke();
		}
		if (d.label !== "") {
			ctx.fillStyle = c.ink;
			ctx.fillText(d.label, d.x + 3, f.ty);
			if (hovered) ctx.strokeText(d.label, d.x + 3, f.ty);
		}
	}

	// A canvas's pixels for w x h user units at the device pixel ratio.
	function sizeCanvas(canvas, w, h, dpr) {
		var pw = Math.max(1, Math.round(w * dpr)), ph = Math.max(1, Math.round(h * dpr));
		if (canvas.width !== pw) canvas.width = pw;
		if (canvas.height !== ph) canvas.height = ph;
	}

	function drawCanvas() {
		var c = cv, ctx = c.ctx;
		var dpr = window.devicePixelRatio || 1;
		sizeCanvas(c.canvas, fullWidth, c.h, dpr);
		ctx.setTransform(dpr, 0, 0, dpr, -xpad * dpr, -c.top * dpr);
		ctx.globalAlpha = 1;
		ctx.clearRect(xpad, c.top, fullWidth, c.h);
		ctx.fillStyle = c.bg.solid || "white";
		if (c.bg.solid === null && c.bg.stops.length) {
			var g = ctx.createLinearGradient(0, c.bg.y, 0, c.bg.y + c.bg.h);
			try {
				for (var s = 0; s < c.bg.stops.length; s++)
					g.addColorStop(c.bg.stops[s][0], c.bg.stops[s][1]);
				ctx.fillStyle = g;
			} catch (e) {
				// a colour the canvas does not parse (the SVG
				// drew it as black or not at all): white
			}
		}
		ctx.fillRect(xpad, c.top, fullWidth, c.h);
		ctx.font = c.font;
		ctx.textBaseline = "alphabetic";
		for (var i = 0; i < drawn.length; i++) {
			var r = drawn[i].fr;
			for (var k = 0; k < r.length; k++) {
				if (r[k].parent) drawParent(ctx, r[k], dpr);
				else drawFrame(ctx, r[k]);
			}
		}
	}

	// A dimmed ancestor: rect and label at half opacity as one (the
	// static graph's group opacity), drawn on a scratch canvas and laid
	// on at 50%.
	function drawParent(ctx, d, dpr) {
		var c = cv;
		if (!c.scratch) c.scratch = document.createElementNS(XHTMLNS, "canvas");
		var sc = c.scratch, sx = sc.getContext("2d");
		var y0 = d.f.y - 1;
		sizeCanvas(sc, fullWidth, d.f.h + 2, dpr);
		sx.setTransform(1, 0, 0, 1, 0, 0);
		sx.clearRect(0, 0, sc.width, sc.height);
		sx.setTransform(dpr, 0, 0, dpr, -xpad * dpr, -y0 * dpr);
		sx.font = c.font;
		sx.textBaseline = "alphabetic";
		drawFrame(sx, d);
		ctx.save();
		ctx.setTransform(1, 0, 0, 1, 0, 0);
		ctx.globalAlpha = 0.5;
		ctx.drawImage(sc, 0, Math.round((y0 - c.top) * dpr));
		ctx.restore();
	}

	// The frame drawn under a pointer event on the canvas, or null.
	function canvasFrameAt(e) {
		var c = cv, b = c.canvas.getBoundingClientRect();
		if (!(b.width > 0) || !(b.height > 0)) return null;
		var x = xpad + (e.clientX - b.left) * fullWidth / b.width;
		var y = c.top + (e.clientY - b.top) * c.h / b.height;
		for (var i = 0; i < drawn.length; i++) {
			var r = drawn[i];
			if (y < r.y || y >= r.y + r.h) continue;
			var d = r.fr[lowerBound(r.fr, x, true) - 1];	// the last at or before x
			return d && x < d.x + d.w ? d.f : null;
		}
		return null;
	}

	function setHover(f) {
		var c = cv;
		if (c.hover === f) return;
		c.hover = f;
		if (f) c.canvas.setAttribute("title", f.tooltip);
		else c.canvas.removeAttribute("title");
		c.canvas.style.cursor = f ? "pointer" : "";
		setText(details, f ? nametype + " " + f.tooltip : " ");
		drawCanvas();
	}

	function onCanvasMove(e) {
		if (zoomedTo !== null) setHover(canvasFrameAt(e));
	}

	function onCanvasLeave() {
		if (zoomedTo !== null) setHover(null);
	}

	// A click on the canvas: zoom to the frame there, or follow it when
	// it is a link (--nameattr href) and Ctrl is not held.
	function onCanvasClick(e) {
		var f = canvasFrameAt(e);
		if (!f) return;
		if (f.g.localName === "a" && !e.ctrlKey) {
			f.g.dispatchEvent(new MouseEvent("click", { bubbles: true, cancelable: true,
				view: window, shiftKey: e.shiftKey, altKey: e.altKey, metaKey: e.metaKey,
				button: e.button }));
			return;
		}
		zoom(f);
	}

	function zoomCanvas(z) {
		if (layoutZoom(z) === 0) {	// zooming to the root is a reset
			unzoom();
			return;
		}
		zoomedTo = z;
		cv.hover = null;
		drawCanvas();
		if (cv.fo.getAttribute("display") !== null) cv.fo.removeAttribute("display");
		if (unzoomBtn) unzoomBtn.classList.remove("hide");
		setParams({ x: z.xs, y: z.ys });
	}

	function zoom(z) {
		collect();
		if (canvasView()) zoomCanvas(z);
		else zoomDom(z);
	}

	function unzoom() {
		collect();
		if (zoomedTo !== null) {
			zoomedTo = null;
			drawn = [];
			cv.fo.setAttribute("display", "none");
			cv.hover = null;
			cv.canvas.removeAttribute("title");
		}
		unzoomDom();
	}

	// What the canvas view shows now, for tests and tools: null when it
	// is not shown, else each frame drawn, with its index in #frames,
	// its rect in user space, its label and whether it is dimmed.
	function shown() {
		if (zoomedTo === null) return null;
		var out = [];
		for (var i = 0; i < drawn.length; i++) {
			for (var k = 0; k < drawn[i].fr.length; k++) {
				var d = drawn[i].fr[k];
				out.push({ i: d.f.i, x: d.x, w: d.w, y: d.f.y, h: d.f.h,
					label: d.label, parent: d.parent });
			}
		}
		return out;
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
		if (zoomedTo !== null) drawCanvas();
		if (matchedEl) matchedEl.classList.remove("hide");
		setText(matchedEl, "Matched: " + formatShare(matchedShare(hits)) + "%");
		setParams({ s: term });
	}

	function resetSearch() {
		searchTerm = null;
		clearHighlight();
		if (zoomedTo !== null) drawCanvas();
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
		if (cv && e.target === cv.canvas) {
			onCanvasClick(e);
			return;
		}
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
		// a new device pixel ratio (browser zoom) draws the canvas again
		window.addEventListener("resize", function () {
			if (zoomedTo !== null) drawCanvas();
		}, false);

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

	return { start: start, zoom: zoom, unzoom: unzoom, search: search, shown: shown,
		resetSearch: resetSearch };
})();
