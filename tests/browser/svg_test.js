// SPDX-License-Identifier: Apache-2.0
// svg_test.js - drive the SVGs written by offwake-svg render in a real
// browser (Debian's Chromium or firefox-esr, launched by driver.js) and
// check what a user sees: tooltips, zoom, reset, search, ignore case, URL
// state, the chain palette's colours, and that hostile frame names run no
// script.
//
// Usage: [SVG_ZOOM=dom] node svg_test.js DIR ARTIFACTS [chromium|firefox]
//   DIR holds NAME.svg (and NAME.folded) written by tests/t_browser.sh;
//   ARTIFACTS receives chain.png.  Prints PASS:/FAIL:/SKIP: lines.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const driver = require("./driver");

const DIR = process.argv[2];
const ARTIFACTS = process.argv[3];
const BROWSER = process.argv[4] || "chromium";
// How the script is to draw a zoom: "canvas" (the default) or "dom" (the
// SVGs in DIR have "canvas":false in fg_config: the fallback, zoomDom).
const ZOOM = process.env.SVG_ZOOM || "canvas";
const SEARCH = "rgb(230,0,230)";

function pass(n) { console.log("PASS: browser: " + n); }
function fail(n, why) { console.log("FAIL: browser: " + n + ": " + why); }
function skip(n, why) { console.log("SKIP: browser: " + n + ": " + why); }
function check(n, ok, why) { if (ok) pass(n); else fail(n, why); return ok; }
function near(a, b, tol) { return Math.abs(a - b) <= tol; }

// ---- folded input: what the numbers should be ----

function readFolded(name) {
	const lines = [];
	for (const l of fs.readFileSync(path.join(DIR, name + ".folded"), "utf8").split("\n")) {
		const m = /^(.*?) (\d+)(?: (\d+))?$/.exec(l);
		if (!m) continue;
		// Differential lines are drawn with the second count.
		lines.push({ frames: m[1].split(";"), count: Number(m[3] !== undefined ? m[3] : m[2]) });
	}
	return lines;
}
function total(lines) { return lines.reduce((s, l) => s + l.count, 0); }
// Share of samples under a frame whose name matches: a line counts once
// however many of its frames match.  Titles drop one trailing annotation.
function expectedShare(lines, re) {
	const strip = s => s.replace(/_\[[kwij]\]$/, "");
	const hit = lines.filter(l => l.frames.some(f => re.test(strip(f))));
	return 100 * total(hit) / total(lines);
}
function matchedValue(text) {
	const m = /^Matched: ([0-9.]+)%$/.exec(text);
	return m ? Number(m[1]) : NaN;
}
function commas(n) { return String(n).replace(/\B(?=(\d{3})+$)/g, ","); }

// ---- browser helpers ----

let ctx;
async function open(name, query) {
	const page = await ctx.newPage();
	const log = { errors: [], dialogs: [], answers: [] };
	page.on("console", m => { if (m.type() === "error" || m.type() === "warning") log.errors.push(m.text()); });
	page.on("pageerror", e => log.errors.push("uncaught: " + e.message));
	page.on("dialog", async d => {
		log.dialogs.push({ type: d.type(), message: d.message() });
		if (d.type() === "prompt" && log.answers.length) await d.accept(log.answers.shift());
		else await d.dismiss();
	});
	page.log = log;
	const url = query && query.startsWith("file:") ? query :
		"file://" + path.join(DIR, name + ".svg") + (query || "");
	await page.goto(url);
	await page.waitForLoadState("load");
	return page;
}

// Every frame as the browser is told to draw it now: x and w where its
// rect lands on the page (the script zooms with the viewBox of a nested
// <svg> that #frames is drawn through, issue 21: the rect's screen CTM
// applied to its x and width, since Firefox's bounding boxes are off by
// up to 1/60 px times the zoom ratio), y, fill and label as written, and
// shown: not display:none (class hide) and not clipped away by that view.
// While the zoomed view is drawn on a canvas over #frames (issue 21's third
// round), the frames drawn are the script's list (offwake_fg.shown()): x and
// w where the canvas puts them on the page, class "parent" for the dimmed
// ancestors, and the label drawn; checkZoom compares the canvas's pixels
// with that list.
function frames(page) {
	return page.evaluate(() => {
		const F = document.getElementById("frames");
		const drawn = window.offwake_fg && offwake_fg.shown ? offwake_fg.shown() : null;
		if (drawn) {
			const cv = document.querySelector("foreignObject > canvas");
			const b = cv.getBoundingClientRect();
			const full = parseFloat(document.documentElement.getAttribute("width")) - 20;
			const k = b.width / full, byI = new Map(drawn.map(d => [d.i, d]));
			return Array.from(F.children).map((g, i) => {
				const r = g.querySelector("rect"), t = g.querySelector("text"), d = byI.get(i);
				return {
					labelIn: false,
					title: g.querySelector("title").textContent,
					cls: d ? (d.parent ? "parent" : "") : (g.getAttribute("class") || ""),
					x: d ? Math.round((b.left + (d.x - 10) * k + window.scrollX) * 1e4) / 1e4 : NaN,
					w: d ? Math.round(d.w * k * 1e4) / 1e4 : NaN,
					y: parseFloat(r.getAttribute("y")), fill: r.getAttribute("fill"),
					label: d ? d.label : (t ? t.textContent : ""),
					shown: !!d
				};
			});
		}
		let clip = null;	// the span [x0, x1] the view lets through (user space)
		const view = F.parentNode;
		if (view && view !== document.documentElement && view.localName === "svg" &&
		    getComputedStyle(view).overflow !== "visible" && view.viewBox.baseVal) {
			const vb = view.viewBox.baseVal;
			clip = [vb.x, vb.x + vb.width];
		}
		return Array.from(F.children).map(g => {
			const r = g.querySelector("rect"), t = g.querySelector("text");
			const rx = parseFloat(r.getAttribute("x")), rw = parseFloat(r.getAttribute("width"));
			const m = r.getScreenCTM();
			// (drawn: half a pixel or more; the browser keeps the viewBox
			// in single precision, 1e-5 of a unit off at x = 500)
			const inClip = !clip || (Math.min(rx + rw, clip[1]) - Math.max(rx, clip[0])) * m.a >= 0.5;
			// a label drawn into the view (a hidden frame's must not be)
			let labelIn = false;
			if (clip && t && t.textContent && getComputedStyle(g).display !== "none") {
				const bb = t.getBBox(), tm = t.getScreenCTM();
				const l = tm.a * bb.x + tm.e, rt = tm.a * (bb.x + bb.width) + tm.e;
				labelIn = Math.min(rt, m.a * clip[1] + m.e) - Math.max(l, m.a * clip[0] + m.e) >= 0.5;
			}
			return {
				labelIn: labelIn,
				title: g.querySelector("title").textContent,
				cls: g.getAttribute("class") || "",
				x: Math.round((m.a * rx + m.e + window.scrollX) * 1e4) / 1e4,
				w: Math.round(m.a * rw * 1e4) / 1e4,
				y: parseFloat(r.getAttribute("y")), fill: r.getAttribute("fill"),
				label: t ? t.textContent : "",
				shown: getComputedStyle(g).display !== "none" && inClip
			};
		});
	});
}
const nameOf = title => title.replace(/ \([^()]*\)$/, "");
function frameIndex(list, name, nth) {
	let seen = 0;
	for (let i = 0; i < list.length; i++)
		if (nameOf(list[i].title) === name && seen++ === (nth || 0)) return i;
	return -1;
}
// A frame: a real click or hover lands on its rect (a frame's group has no
// box of its own where the script gives it display:contents).  Playwright
// wants the rect itself hit: 1 px above its bottom edge, below its label's
// glyph boxes; Firefox's driver takes a hit on the label of the same frame,
// and there the centre is aimed at (Firefox's label boxes reach into the
// next row).  While the zoomed view is on the canvas, the click lands on
// the canvas where the frame is drawn (the same spot of its rect).
function frameLocator(page, i) {
	const firefox = BROWSER === "firefox";
	const at = () => page.evaluate(([i, firefox]) => {
		const drawn = window.offwake_fg && offwake_fg.shown ? offwake_fg.shown() : null;
		if (drawn) {
			const d = drawn.find(d => d.i === i);
			if (!d) return { why: "frame #" + i + " is not drawn on the zoomed canvas" };
			const cv = document.querySelector("foreignObject > canvas"), b = cv.getBoundingClientRect();
			const k = b.width / (parseFloat(document.documentElement.getAttribute("width")) - 20);
			const top = parseFloat(cv.parentNode.getAttribute("y"));
			return { canvas: true, x: (d.x - 10 + d.w / 2) * k,
				y: (d.y - top + (firefox ? d.h / 2 : Math.max(d.h - 1, d.h / 2))) * k };
		}
		const r = document.querySelectorAll("#frames > * > rect")[i].getBoundingClientRect();
		return { x: r.width / 2, y: firefox ? r.height / 2 : Math.max(r.height - 1, r.height / 2) };
	}, [i, firefox]);
	const go = async (what, opts) => {
		const p = await at();
		if (p.why) throw new Error(p.why);
		const loc = p.canvas ? page.locator("foreignObject > canvas").nth(0) :
			page.locator("#frames > * > rect").nth(i);
		return loc[what](Object.assign({ position: { x: p.x, y: p.y } }, opts || {}));
	};
	return { click: opts => go("click", opts), hover: () => go("hover") };
}
async function text(page, id) { return page.textContent("#" + id); }
async function cls(page, id) { return (await page.getAttribute("#" + id, "class")) || ""; }
// The page's URL once the script has written its state there: it does so
// after the next frame is painted (a frame, then a task; or 100 ms).
async function href(page) {
	return page.evaluate(() => new Promise(r => {
		const done = () => r(location.href);
		const t = setTimeout(done, 150);
		requestAnimationFrame(() => setTimeout(() => { clearTimeout(t); setTimeout(done, 0); }, 0));
	}));
}
async function params(page) { return new URL(await href(page)).searchParams; }
async function svgWidth(page) {
	return page.evaluate(() => parseFloat(document.documentElement.getAttribute("width")));
}

// ---- checks shared by all graphs ----

async function checkTooltips(tag, page, lines) {
	const fr = await frames(page);
	const T = total(lines);
	const bad = fr.filter(f => !/ \(\d[\d,]* [^()]*, \d+(\.\d\d)?%(; [+-]?\d+\.\d\d%)?\)$/.test(f.title));
	check(tag + ": every tooltip shows a count and a percentage", bad.length === 0,
		bad.length + " bad, e.g. " + JSON.stringify(bad.slice(0, 2).map(f => f.title)));
	const root = fr.filter(f => /^all \(/.test(f.title));
	check(tag + ": root tooltip is the folded total", root.length === 1 &&
		new RegExp("^all \\(" + commas(T) + " [^()]*, 100%\\)$").test(root[0].title),
		"want all (" + commas(T) + " ..., 100%), got " + JSON.stringify(root.map(f => f.title)));
	return fr;
}

async function checkHover(tag, page, i) {
	const fr = await frames(page);
	await frameLocator(page, i).hover();
	const d = await text(page, "details");
	check(tag + ": mouse-over shows the tooltip in the details line",
		d === "Function: " + fr[i].title, JSON.stringify(d));
	// over the zoomed canvas, the browser's own tooltip is the canvas's title
	const canvasTitle = () => page.evaluate(() => {
		const c = window.offwake_fg && offwake_fg.shown && offwake_fg.shown() &&
			document.querySelector("foreignObject > canvas");
		return c ? c.getAttribute("title") : undefined;
	});
	const t1 = await canvasTitle();
	if (t1 !== undefined)
		check(tag + ": mouse-over on the canvas sets its title (the native tooltip)", t1 === fr[i].title,
			JSON.stringify(t1));
	await page.mouse.move(1, 1);
	const d2 = await text(page, "details");
	check(tag + ": mouse-out clears the details line", d2 === " ", JSON.stringify(d2));
	if (t1 !== undefined)
		check(tag + ": mouse-out clears the canvas's title", (await canvasTitle()) === null,
			JSON.stringify(await canvasTitle()));
}

// When the zoomed view is on the canvas: what the canvas holds is what the
// script's list says.  Each listed frame at least 4 px wide has its fill on
// the pixel 1.5 px in from its left edge, halfway down (inside the rect,
// clear of corners and label; a dimmed ancestor has its fill at half over
// the background, so only its difference from the background is checked);
// where a frame that is not listed was drawn in the static graph, and no
// listed frame covers that spot, its fill is not there.
async function checkCanvasPixels(tag, page) {
	const r = await page.evaluate(() => {
		const drawn = window.offwake_fg && offwake_fg.shown ? offwake_fg.shown() : null;
		if (!drawn) return null;
		const cv = document.querySelector("foreignObject > canvas");
		const top = parseFloat(cv.parentNode.getAttribute("y"));
		const k = cv.width / (parseFloat(document.documentElement.getAttribute("width")) - 20);
		// one read back, from a copy (repeated read backs of one canvas
		// make Chromium print a warning, which checkClean counts)
		const copy = document.createElementNS("http://www.w3.org/1999/xhtml", "canvas");
		copy.width = cv.width;
		copy.height = cv.height;
		const cc = copy.getContext("2d");
		cc.drawImage(cv, 0, 0);
		const all = cc.getImageData(0, 0, cv.width, cv.height).data;
		const px = (x, y) => {
			const o = 4 * (Math.floor((y - top) * k) * cv.width + Math.floor((x - 10) * k));
			return [all[o], all[o + 1], all[o + 2]];
		};
		const rgb = s => ((/rgb\((\d+),(\d+),(\d+)\)/.exec((s || "").replace(/\s/g, "")) || []).slice(1)).map(Number);
		const F = document.getElementById("frames").children;
		const fillOf = i => rgb(F[i].querySelector("rect").getAttribute("fill"));
		const far = (a, b, tol) => a.length !== 3 || b.length !== 3 || a.some((v, j) => Math.abs(v - b[j]) > tol);
		const bad = [];
		let ok = 0, hiddenOk = 0;
		const isDrawn = new Set(drawn.map(d => d.i));
		for (const d of drawn) {
			if (d.w < 4) continue;
			const got = px(d.x + 1.5, d.y + d.h / 2), fill = fillOf(d.i);
			if (d.parent ? !far(got, fill, 2) : far(got, fill, 2))
				bad.push("#" + d.i + (d.parent ? " (parent)" : "") + " " + got + " fill " + fill);
			else ok++;
		}
		for (let i = 0; i < F.length && hiddenOk < 100; i++) {
			if (isDrawn.has(i)) continue;
			const r = F[i].querySelector("rect");
			const x = parseFloat(r.getAttribute("x")), w = parseFloat(r.getAttribute("width"));
			const y = parseFloat(r.getAttribute("y")), h = parseFloat(r.getAttribute("height"));
			if (w < 4) continue;
			const cx = x + 1.5, cy = y + h / 2;
			if (drawn.some(d => cy >= d.y - 1 && cy <= d.y + d.h + 1 && cx >= d.x - 1 && cx <= d.x + d.w + 1)) continue;
			const got = px(cx, cy);
			if (!far(got, fillOf(i), 0)) bad.push("hidden #" + i + " still painted " + got);
			else hiddenOk++;
		}
		return { ok, hiddenOk, bad };
	});
	if (r === null) return;
	check(tag + ": the canvas shows the listed frames in their colours (" + r.ok + ") and not the others (" +
		r.hiddenOk + ")", r.bad.length === 0 && r.ok > 0, r.bad.slice(0, 3).join("; "));
}

// Click frame i for real and check every frame against the original
// geometry: the target fills the width, ancestors are stretched and
// dimmed, descendants rescaled, everything else hidden (clipped away by
// the view or class hide: not drawn either way).
async function checkZoom(tag, page, orig, i, inverted, expectVisible) {
	const full = (await svgWidth(page)) - 20;
	const z = orig[i];
	await frameLocator(page, i).click();
	const now = await frames(page);
	const ratio = full / z.w, eps = 0.001;
	const errs = [];
	for (let k = 0; k < orig.length; k++) {
		const o = orig[k], n = now[k];
		const upward = inverted ? o.y < z.y : o.y > z.y;
		const contains = o.x <= z.x + eps && o.x + o.w >= z.x + z.w - eps;
		const inside = !upward && o.x >= z.x - eps && o.x + o.w <= z.x + z.w + eps;
		let want;
		if (k === i) want = n.cls === "" && n.shown && near(n.x, 10, 0.05) && near(n.w, full, 0.05);
		else if (upward && contains) want = /\bparent\b/.test(n.cls) && n.shown &&
			near(n.x, 10, 0.05) && near(n.w, full, 0.05);
		else if (inside) want = n.shown &&
			near(n.x, 10 + (o.x - z.x) * ratio, 0.15) && near(n.w, o.w * ratio, 0.2);
		else want = !n.shown && !n.labelIn;
		if (!want) errs.push(nameOf(o.title) + " -> class=" + n.cls + " x=" + n.x + " w=" + n.w +
			(n.labelIn ? " label drawn in the view" : ""));
	}
	check(tag + ": click zooms (target full width, ancestors parent, descendants rescaled, others and their labels hidden)",
		errs.length === 0, errs.length + " frames wrong, e.g. " + errs.slice(0, 3).join("; "));
	// Labels are refitted to the new widths (chars = int(w / (12 * 0.59)));
	// w is read back from the drawing, so allow it 0.01 px either way.
	const fit = (name, w) => {
		const chars = Math.floor(w / (12 * 0.59));
		return chars < 3 ? "" : name.length <= chars ? name.join("") : name.slice(0, chars - 2).join("") + "..";
	};
	const lab = now.filter(n => n.shown).filter(n => {
		const name = Array.from(nameOf(n.title));
		return n.label !== fit(name, n.w - 0.01) && n.label !== fit(name, n.w + 0.01);
	});
	check(tag + ": labels are refitted to the zoomed widths", lab.length === 0,
		JSON.stringify(lab.slice(0, 3).map(n => [n.title, n.w, n.label])));
	if (expectVisible) {
		const vis = now.filter(n => n.shown).map(n => nameOf(n.title)).sort();
		check(tag + ": visible frames are the path and the subtree from the folded data",
			JSON.stringify(vis) === JSON.stringify(expectVisible.slice().sort()),
			"got " + JSON.stringify(vis) + " want " + JSON.stringify(expectVisible.slice().sort()));
	}
	const onCanvas = await page.evaluate(() => !!(window.offwake_fg && offwake_fg.shown && offwake_fg.shown()));
	check(tag + ": the zoom is drawn " + (ZOOM === "canvas" ? "on the canvas" : "in the SVG itself"),
		onCanvas === (ZOOM === "canvas"), "canvas: " + onCanvas);
	await checkCanvasPixels(tag, page);
	check(tag + ": Reset Zoom appears", !/hide/.test(await cls(page, "unzoom")), await cls(page, "unzoom"));
	const p = await params(page);
	check(tag + ": zoom is kept in the URL (x, y)", p.get("x") === z.x.toFixed(1) && Number(p.get("y")) === z.y,
		p.toString());
	return now;
}

async function checkReset(tag, page, orig) {
	await page.click("#unzoom");
	const now = await frames(page);
	// (fills are the search's business: compare the geometry and labels)
	const geo = f => JSON.stringify([f.title, f.cls, f.x, f.w, f.y, f.label]);
	const diff = now.filter((n, k) => geo(n) !== geo(orig[k]));
	check(tag + ": Reset Zoom restores every frame", diff.length === 0,
		diff.length + " differ, e.g. " + JSON.stringify(diff.slice(0, 2)));
	check(tag + ": Reset Zoom hides itself", /hide/.test(await cls(page, "unzoom")), await cls(page, "unzoom"));
	const p = await params(page);
	check(tag + ": Reset Zoom clears x, y from the URL", !p.has("x") && !p.has("y"), p.toString());
}

// Search through the prompt (opened by how()) and compare with the data.
async function checkSearch(tag, page, lines, term, icase, how) {
	page.log.answers.push(term);
	const before = page.log.dialogs.length;
	await how();
	const dlg = page.log.dialogs.slice(before);
	check(tag + ": a prompt asks for the regular expression",
		dlg.length === 1 && dlg[0].type === "prompt", JSON.stringify(dlg));
	const re = new RegExp(term, icase ? "i" : "");
	const want = expectedShare(lines, re);
	const got = matchedValue(await text(page, "matched"));
	check(tag + ": matched % for /" + term + "/" + (icase ? "i" : "") + " agrees with the folded data (" +
		want.toFixed(2) + "%)", near(got, want, 0.15), "shown " + JSON.stringify(await text(page, "matched")));
	const fr = await frames(page);
	const wrong = fr.filter(f => (f.fill === SEARCH) !== re.test(nameOf(f.title)));
	check(tag + ": exactly the matching frames are highlighted", wrong.length === 0,
		wrong.length + " wrong, e.g. " + JSON.stringify(wrong.slice(0, 3).map(f => [f.title, f.fill])));
	const p = await params(page);
	check(tag + ": search term is kept in the URL", p.get("s") === term, p.toString());
	check(tag + ": the Search button turns into Reset Search",
		(await text(page, "search")) === "Reset Search" && /show/.test(await cls(page, "search")),
		await text(page, "search"));
	await checkCanvasPixels(tag + " (search while zoomed)", page);	// (when zoomed)
	return got;
}

async function checkSearchReset(tag, page, orig, how) {
	const before = page.log.dialogs.length;
	await how();
	const fr = await frames(page);
	const diff = fr.filter((f, k) => f.fill !== orig[k].fill);
	check(tag + ": pressing Search again resets the highlight", diff.length === 0 &&
		page.log.dialogs.length === before && (await text(page, "search")) === "Search",
		diff.length + " fills differ, dialogs " + (page.log.dialogs.length - before));
	const p = await params(page);
	check(tag + ": reset search clears the matched text and the URL",
		(await text(page, "matched")).trim() === "" && !p.has("s"), p.toString());
}

function checkClean(tag, page) {
	check(tag + ": no console error or warning", page.log.errors.length === 0, JSON.stringify(page.log.errors));
}

// ---- the graphs ----

async function testBasic() {
	const tag = "basic", lines = readFolded(tag);
	const page = await open(tag);
	const orig = await checkTooltips(tag, page, lines);
	const vr = orig[frameIndex(orig, "vfs_read")];
	const T = total(lines), S = 400;
	check(tag + ": a frame's tooltip has its folded count and %",
		vr && vr.title === "vfs_read (" + S + " samples, " + (100 * S / T).toFixed(2) + "%)", vr && vr.title);
	await checkHover(tag, page, frameIndex(orig, "vfs_read"));
	const zi = frameIndex(orig, "sys_read");
	await checkZoom(tag, page, orig, zi, false, ["all", "main", "read", "sys_read", "vfs_read",
		"ext4_file_read_iter", "Read_Cache_Lookup"]);
	await checkHover(tag + " (zoomed)", page, frameIndex(orig, "vfs_read"));
	await checkHover(tag + " (zoomed, a parent)", page, frameIndex(orig, "read"));
	// Clicking a dimmed ancestor zooms out to it.
	const mi = frameIndex(orig, "main");
	await frameLocator(page, mi).click();
	const m = await frames(page);
	check(tag + ": clicking a parent zooms to it", near(m[mi].w, (await svgWidth(page)) - 20, 0.05) && m[mi].cls === "" &&
		m[frameIndex(orig, "write")].shown && !m[frameIndex(orig, "other")].shown,
		JSON.stringify([m[mi], m[frameIndex(orig, "other")]]));
	await checkReset(tag, page, orig);

	await checkSearch(tag + " (Search button)", page, lines, "read", false, () => page.click("#search"));
	const prompt = page.log.dialogs[page.log.dialogs.length - 1];
	check(tag + ": prompt mentions regular expressions", /regular expression|regexp/i.test(prompt.message), prompt.message);
	// Ignore case: the button and Ctrl-I re-run the current search.
	await page.click("#ignorecase");
	const re = /read/i, want = expectedShare(lines, re);
	const got = matchedValue(await text(page, "matched"));
	check(tag + ": ic button makes the search ignore case (" + want.toFixed(2) + "%)",
		near(got, want, 0.15) && /show/.test(await cls(page, "ignorecase")), await text(page, "matched"));
	const fr = await frames(page);
	check(tag + ": ignore case highlights READ_helper too",
		fr[frameIndex(fr, "READ_helper")].fill === SEARCH, fr[frameIndex(fr, "READ_helper")].fill);
	await page.keyboard.press("Control+i");
	check(tag + ": Ctrl-I toggles ignore case back",
		near(matchedValue(await text(page, "matched")), expectedShare(lines, /read/), 0.15) &&
		!/show/.test(await cls(page, "ignorecase")), await text(page, "matched"));
	await checkSearchReset(tag, page, orig, () => page.click("#search"));

	await checkSearch(tag + " (Ctrl-F)", page, lines, "^(main|sys_\\w+)$", false,
		() => page.keyboard.press("Control+f"));
	await checkSearchReset(tag + " (F3)", page, orig, () => page.keyboard.press("F3"));
	await checkSearch(tag + " (F3)", page, lines, "_read$", false, () => page.keyboard.press("F3"));

	// Zoom and search together, then reload from the URL.
	await frameLocator(page, frameIndex(orig, "compute")).click();
	const zoomed = await frames(page), url = await href(page);
	const p2 = await open(tag, url);
	const again = await frames(p2);
	check(tag + ": URL parameters restore zoom and search in a new page",
		JSON.stringify(again) === JSON.stringify(zoomed) &&
		(await text(p2, "matched")) === (await text(page, "matched")) &&
		!/hide/.test(await cls(p2, "unzoom")), url);
	checkClean(tag, page);
	checkClean(tag + " (restored)", p2);
	await p2.close();
	await page.close();
}

async function testInverted() {
	const tag = "inverted", lines = readFolded("basic");
	const page = await open(tag);
	const orig = await checkTooltips(tag, page, lines);
	const root = orig[frameIndex(orig, "all")];
	check(tag + ": root is the top row", orig.every(f => f.y >= root.y), "root y " + root.y);
	await checkHover(tag, page, frameIndex(orig, "inner"));
	await checkZoom(tag, page, orig, frameIndex(orig, "inner"), true,
		["all", "main", "compute", "inner", "READ_helper"]);
	await checkReset(tag, page, orig);
	await checkSearch(tag, page, lines, "comp|help", false, () => page.keyboard.press("Control+f"));
	checkClean(tag, page);
	await page.close();
}

async function testFlamechart() {
	const tag = "flamechart", lines = readFolded(tag);
	const page = await open(tag);
	const orig = await checkTooltips(tag, page, lines);
	// "init" occurs twice in time order; zooming to the second keeps only it.
	const second = frameIndex(orig, "init", 1);
	check(tag + ": repeated frames stay apart in time order", second > 0 &&
		orig[second].x > orig[frameIndex(orig, "run")].x, JSON.stringify(orig.map(f => f.title)));
	await checkZoom(tag, page, orig, second, false, ["all", "main", "init", "load_config"]);
	await checkReset(tag, page, orig);
	await checkSearch(tag, page, lines, "^init$", false, () => page.click("#search"));
	checkClean(tag, page);
	await page.close();
}

async function testDifferential() {
	const tag = "differential", lines = readFolded(tag);
	const page = await open(tag);
	const orig = await checkTooltips(tag, page, lines);
	const grew = orig[frameIndex(orig, "grew")], shrank = orig[frameIndex(orig, "shrank")];
	check(tag + ": tooltips carry the delta", /; \+\d+\.\d\d%\)$/.test(grew.title) &&
		/; -\d+\.\d\d%\)$/.test(shrank.title), grew.title + " / " + shrank.title);
	check(tag + ": grown frames are red, shrunk ones blue",
		/^rgb\(255,/.test(grew.fill) && /,255\)$/.test(shrank.fill), grew.fill + " / " + shrank.fill);
	await checkZoom(tag, page, orig, frameIndex(orig, "work"), false, null);
	await checkReset(tag, page, orig);
	await checkSearch(tag, page, lines, "grew|same", false, () => page.keyboard.press("Control+f"));
	checkClean(tag, page);
	await page.close();
}

async function testBig() {
	const tag = "big", lines = readFolded(tag);
	let t0 = Date.now();
	const page = await open(tag);
	const loadMs = Date.now() - t0;
	const orig = await checkTooltips(tag, page, lines);
	check(tag + ": " + lines.length + "-line input, " + orig.length + " frames, loads in " + loadMs + " ms",
		loadMs < 20000 && orig.length > 1000, loadMs + " ms, " + orig.length + " frames");
	// The widest frame at depth 2.
	const root = orig[frameIndex(orig, "all")];
	const cand = orig.map((f, i) => i).filter(i => orig[i].y === root.y - 32)
		.sort((a, b) => orig[b].w - orig[a].w);
	if (!check(tag + ": has frames at depth 2", cand.length > 0, "none")) return;
	t0 = Date.now();
	await checkZoom(tag, page, orig, cand[0], false, null);
	const zoomMs = Date.now() - t0;
	check(tag + ": zoom takes " + zoomMs + " ms", zoomMs < 10000, zoomMs + " ms");
	// The script writes only to frames whose state changes: zooming on
	// from one zoom to another must give what a zoom from scratch gives.
	// In: the widest frame two levels up inside the zoomed one; out: its
	// ancestor at depth 1; then a sibling of the first under that one.
	const z0 = orig[cand[0]];
	const within = (f, z) => f.x >= z.x - 0.001 && f.x + f.w <= z.x + z.w + 0.001;
	const deeper = orig.map((f, i) => i).filter(i => orig[i].y === z0.y - 32 && within(orig[i], z0))
		.sort((a, b) => orig[b].w - orig[a].w);
	if (check(tag + ": the zoomed frame has frames two levels up", deeper.length > 0, "none")) {
		await checkZoom(tag + " (zoom on, deeper)", page, orig, deeper[0], false, null);
		const up = orig.map((f, i) => i).filter(i => orig[i].y === root.y - 16 && within(z0, orig[i]));
		await checkZoom(tag + " (zoom on, out to depth 1)", page, orig, up[0], false, null);
		const sib = cand.filter(i => i !== cand[0] && within(orig[i], orig[up[0]]));
		if (sib.length)
			await checkZoom(tag + " (zoom on, a sibling)", page, orig, sib[0], false, null);
	}
	await checkReset(tag, page, orig);
	await checkSearch(tag, page, lines, "^svc_[AB]$", false, () => page.keyboard.press("Control+f"));
	await checkSearchReset(tag, page, orig, () => page.keyboard.press("Control+f"));
	await checkSearch(tag + " (ic)", page, lines, "^SVC_C", false, () => page.keyboard.press("F3"));
	await page.keyboard.press("Control+i");
	check(tag + ": ignore case changes the result",
		near(matchedValue(await text(page, "matched")), expectedShare(lines, /^SVC_C/i), 0.15) &&
		expectedShare(lines, /^SVC_C/i) > 1, await text(page, "matched"));
	checkClean(tag, page);
	await page.close();
}

async function testHostile() {
	const tag = "hostile", lines = readFolded(tag);
	const page = await open(tag);
	await page.waitForTimeout(300);
	const orig = await frames(page);
	const names = new Set(orig.map(f => nameOf(f.title)));
	const raw = new Set(lines.flatMap(l => l.frames));
	const lost = [...raw].filter(n => !names.has(n));
	check(tag + ": hostile names are plain text in the tooltips", lost.length === 0, JSON.stringify(lost));
	const dom = await page.evaluate(() => ({
		scripts: document.getElementsByTagName("script").length,
		// (the root, and the view the script draws #frames through)
		svgs: document.getElementsByTagName("svg").length -
			(document.getElementById("frames").parentNode.localName === "svg" ? 1 : 0),
		handlers: Array.from(document.querySelectorAll("*")).filter(e =>
			Array.from(e.attributes).some(a => /^on/i.test(a.name)) && e !== document.documentElement).length,
		title: document.getElementById("title").textContent
	}));
	check(tag + ": no injected elements (one script, one svg, no handlers)",
		dom.scripts === 1 && dom.svgs === 1 && dom.handlers === 0, JSON.stringify(dom));
	check(tag + ": hostile --title is shown as text", dom.title === "<script>alert(1)</script>", dom.title);
	const hi = frameIndex(orig, "</text><script>alert(1)</script>");
	await frameLocator(page, hi).hover();
	const d = await text(page, "details");
	check(tag + ": hostile --nametype and name are shown as text on mouse-over",
		d === "</script><b>]]>: " + orig[hi].title, JSON.stringify(d));
	await frameLocator(page, hi).click();
	await checkSearch(tag, page, lines, "<script>|onload", false, () => page.keyboard.press("Control+f"));
	await checkReset(tag, page, orig);
	await page.waitForTimeout(300);
	const alerts = page.log.dialogs.filter(x => x.type !== "prompt");
	check(tag + ": no dialog opened", alerts.length === 0, JSON.stringify(alerts));
	checkClean(tag, page);
	await page.close();
}

// A label running past its frame's end must not show in a zoom to the
// frame on its right.
async function testWide() {
	const tag = "wide";
	const page = await open(tag);
	const orig = await frames(page);
	const w = orig[frameIndex(orig, "W".repeat(80))];
	const labelRight = await page.evaluate(() => Math.max(...Array.from(
		document.querySelectorAll("#frames text")).map(t => t.getBoundingClientRect().right)));
	check(tag + ": the long label runs past its frame (the case tested)", w && labelRight > w.x + w.w + 20,
		JSON.stringify([w, labelRight]));
	await checkZoom(tag, page, orig, frameIndex(orig, "right"), false, ["all", "main", "right"]);
	await checkReset(tag, page, orig);
	checkClean(tag, page);
	await page.close();
}

// --nameattr: a frame that is a link follows it on a plain click and
// zooms on Ctrl-click.
async function testNameattr() {
	const tag = "nameattr";
	const page = await open(tag);
	const orig = await frames(page);
	const i = frameIndex(orig, "compute");
	const kind = await page.evaluate(i => document.getElementById("frames").children[i].localName, i);
	check(tag + ": frame with href is a link", kind === "a", kind);
	await frameLocator(page, i).click();
	check(tag + ": plain click follows the link, no zoom", new URL(page.url()).hash === "#compute-docs" &&
		/hide/.test(await cls(page, "unzoom")), page.url());
	await frameLocator(page, i).click({ modifiers: ["Control"] });
	const now = await frames(page);
	check(tag + ": Ctrl-click zooms to the linked frame", near(now[i].w, (await svgWidth(page)) - 20, 0.05) &&
		!now[frameIndex(orig, "write")].shown && new URL(page.url()).hash === "#compute-docs", page.url());
	// zoomed: a plain click on the linked frame still follows it
	await page.evaluate(() => history.replaceState(null, "", location.href.replace(/#.*$/, "")));
	await frameLocator(page, i).click();
	await page.waitForTimeout(200);
	check(tag + ": plain click on the zoomed linked frame follows the link, zoom kept",
		new URL(page.url()).hash === "#compute-docs" && !/hide/.test(await cls(page, "unzoom")), page.url());
	checkClean(tag, page);
	await page.close();
}

// Screenshot of the chain-palette graph; check the colours on the pixels.
async function testChain() {
	const tag = "chain";
	const page = await open(tag);
	const W = await svgWidth(page);
	const H = await page.evaluate(() => parseFloat(document.documentElement.getAttribute("height")));
	await page.setViewportSize({ width: Math.ceil(W), height: Math.ceil(H) });
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	const png = path.join(ARTIFACTS, "chain.png");
	const buf = await page.screenshot({ path: png });
	check(tag + ": screenshot kept as " + png, fs.statSync(png).size > 1000, "empty screenshot");
	const fr = await frames(page);
	const rgb = s => (/^rgb\((\d+),(\d+),(\d+)\)$/.exec(s) || []).slice(1).map(Number);
	const kinds = {
		"blue off-CPU frame": c => c[0] >= 80 && c[0] < 141 && c[1] >= 80 && c[1] < 141 && c[2] >= 205,
		"grey -- divider": c => c[0] === 160 && c[1] === 160 && c[2] === 160,
		"aqua waker frame": c => c[0] >= 50 && c[0] < 111 && c[1] >= 165 && c[1] < 221 && c[2] >= 165 && c[2] < 221,
	};
	// The dominant colour inside each frame's box, read back from the PNG.
	const shot = await ctx.newPage();
	for (const kind of Object.keys(kinds)) {
		const f = fr.filter(f => f.w > 20 && kinds[kind](rgb(f.fill)))
			.filter(f => kind !== "blue off-CPU frame" || !/^all \(/.test(f.title))
			.sort((a, b) => b.w - a.w)[0];
		if (!f) { fail(tag + ": " + kind, "no such frame in the SVG"); continue; }
		const box = { x: Math.round(f.x) + 3, y: Math.round(f.y) + 2, w: Math.round(f.w) - 6, h: 11 };
		const px = await shot.evaluate(async ([b64, box]) => {
			const img = new Image();
			img.src = "data:image/png;base64," + b64;
			await img.decode();
			const c = document.createElement("canvas");
			c.width = img.width; c.height = img.height;
			const g = c.getContext("2d");
			g.drawImage(img, 0, 0);
			const d = g.getImageData(box.x, box.y, box.w, box.h).data;
			const n = {};
			for (let i = 0; i < d.length; i += 4) {
				const k = d[i] + "," + d[i + 1] + "," + d[i + 2];
				n[k] = (n[k] || 0) + 1;
			}
			return Object.keys(n).sort((a, b) => n[b] - n[a])[0];
		}, [buf.toString("base64"), box]);
		const c = px.split(",").map(Number), want = rgb(f.fill);
		check(tag + ": " + kind + " (" + nameOf(f.title) + ") is painted " + f.fill,
			kinds[kind](c) && c.every((v, k) => Math.abs(v - want[k]) <= 2), "pixels are rgb(" + px + ")");
	}
	await shot.close();
	checkClean(tag, page);
	await page.close();
}

async function main() {
	const prof = fs.mkdtempSync(path.join(os.tmpdir(), "offwake-" + BROWSER + "-"));
	try {
		ctx = await driver.launch(BROWSER, prof);
	} catch (e) {
		fail("launch " + BROWSER, String(e.message).split("\n")[0]);
		return;
	}
	ctx.setDefaultTimeout(10000);	// a missing element fails fast
	const tests = { basic: testBasic, inverted: testInverted, flamechart: testFlamechart,
		differential: testDifferential, nameattr: testNameattr, big: testBig, wide: testWide, hostile: testHostile, chain: testChain };
	for (const [name, fn] of Object.entries(tests)) {
		if (!fs.existsSync(path.join(DIR, name + ".svg"))) {
			skip(name, "no SVG was rendered");
			continue;
		}
		try {
			await fn();
		} catch (e) {
			fail(name, "exception: " + String(e && e.stack || e).split("\n").slice(0, 3).join(" | "));
		}
	}
	await ctx.close();
	fs.rmSync(prof, { recursive: true, force: true, maxRetries: 10, retryDelay: 100 });
}

main().catch(e => { fail("harness", String(e)); process.exitCode = 1; });
