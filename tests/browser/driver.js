// SPDX-License-Identifier: Apache-2.0
// driver.js - launch the real browser that tests/browser/svg_test.js drives:
// Debian's Chromium through playwright-core, or Debian's firefox-esr through
// puppeteer-core (WebDriver BiDi; playwright-core only drives its own
// patched Firefox).  launch() gives back a context with newPage(); for
// Firefox its pages offer the part of playwright's Page API that
// svg_test.js uses, with playwright's meaning: goto, waitForLoadState,
// evaluate, url, textContent, getAttribute, click(selector),
// locator(selector).nth(i).click/hover (a real mouse event on the
// element's centre or at {position}, after checking that the element is what is hit there),
// mouse (move, click, down, up), keyboard.press("Control+f"), waitForTimeout, setViewportSize,
// screenshot, close, and the console, pageerror and dialog events.
//
// launch(NAME, PROFILE) with NAME "chromium" (binary: $CHROMIUM, default
// /usr/bin/chromium) or "firefox" ($FIREFOX, default /usr/bin/firefox-esr);
// PROFILE is an empty directory for the browser's profile.
"use strict";

const VIEWPORT = { width: 1280, height: 800 };

async function launchChromium(profile) {
	const { chromium } = require("playwright-core");
	return chromium.launchPersistentContext(profile, {
		executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
		headless: true,
		viewport: VIEWPORT,
		deviceScaleFactor: 1,
		args: ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
			"--disable-component-update", "--disable-sync", "--no-first-run"],
	});
}

// ---- Firefox: puppeteer's page behind playwright's names ----

const sleep = ms => new Promise(r => setTimeout(r, ms));

// In the page: the centre of the nth element matching sel (or the point
// pos from its top left corner, like playwright's position), scrolled into
// view, and whether a pointer event there reaches that element (what
// playwright checks before it clicks or hovers).
function aim([sel, nth, pos]) {
	const el = document.querySelectorAll(sel)[nth];
	if (!el) return { why: "no element " + sel + " #" + nth };
	let r = el.getBoundingClientRect();
	if (r.width === 0 || r.height === 0) return { why: sel + " #" + nth + " is not visible" };
	if (r.top < 0 || r.left < 0 || r.bottom > innerHeight || r.right > innerWidth) {
		el.scrollIntoView({ block: "center", inline: "center" });
		r = el.getBoundingClientRect();
	}
	const x = r.left + (pos ? pos.x : r.width / 2), y = r.top + (pos ? pos.y : r.height / 2);
	const hit = document.elementFromPoint(x, y);
	// (a frame's rect may be hit through its label: same frame group)
	const own = el.localName === "rect" && el.parentNode ? el.parentNode : el;
	if (!hit || (hit !== el && !own.contains(hit)))
		return { why: sel + " #" + nth + " is covered at its centre by <" + (hit && hit.localName) + ">" };
	return { x, y };
}

class FirefoxPage {
	constructor(page, timeout) {
		this.p = page;
		this.timeout = timeout;
		this.href = "about:blank";
		page.setDefaultTimeout(timeout);
		const self = this;
		this.mouse = {
			async move(x, y) { await page.mouse.move(x, y); await self.sync(); },
			async click(x, y, opts) { await page.mouse.click(x, y, opts); await self.sync(); },
			async down(opts) { await page.mouse.down(opts); },
			async up(opts) { await page.mouse.up(opts); },
		};
		this.keyboard = {
			// "Control+Shift+f": modifiers down, the key, modifiers up
			async press(combo) {
				const keys = combo.split("+"), key = keys.pop();
				for (const k of keys) await page.keyboard.down(k);
				await page.keyboard.press(key);
				for (const k of keys.reverse()) await page.keyboard.up(k);
				await self.sync();
			},
		};
	}
	// The URL as the page has it now (history.replaceState, #fragment).
	async sync() { this.href = await this.p.evaluate(() => location.href); }
	url() { return this.href; }
	on(event, fn) {
		if (event === "console")	// puppeteer says "warn", playwright "warning"
			this.p.on("console", m => fn({ type: () => (m.type() === "warn" ? "warning" : m.type()),
				text: () => m.text() }));
		else
			this.p.on(event, fn);
	}
	async goto(url) { await this.p.goto(url, { waitUntil: "load" }); await this.sync(); }
	async waitForLoadState(state) {
		if (state && state !== "load") throw new Error("waitForLoadState: only \"load\" is implemented");
		await this.p.waitForFunction(() => document.readyState === "complete");
	}
	async evaluate(fn, arg) { const v = await this.p.evaluate(fn, arg); await this.sync(); return v; }
	async textContent(sel) { return this.p.$eval(sel, e => e.textContent); }
	async getAttribute(sel, name) { return this.p.$eval(sel, (e, n) => e.getAttribute(n), name); }
	async waitForTimeout(ms) { await sleep(ms); }
	async setViewportSize(s) { await this.p.setViewport({ width: s.width, height: s.height, deviceScaleFactor: 1 }); }
	async screenshot(opts) { return Buffer.from(await this.p.screenshot(opts)); }
	async close() { await this.p.close(); }
	// Pointer at the centre of the nth match of sel, retried like
	// playwright's actionability checks until the timeout.
	async act(sel, nth, what, opts) {
		const end = Date.now() + this.timeout;
		let a;
		const pos = (opts && opts.position) || null;
		while ((a = await this.p.evaluate(aim, [sel, nth, pos])).why && Date.now() < end)
			await sleep(100);
		if (a.why) throw new Error(what + ": " + a.why);
		const mods = (opts && opts.modifiers) || [];
		for (const k of mods) await this.p.keyboard.down(k);
		if (what === "hover") await this.p.mouse.move(a.x, a.y);
		else await this.p.mouse.click(a.x, a.y);
		for (const k of mods.slice().reverse()) await this.p.keyboard.up(k);
		await this.sync();
	}
	click(sel, opts) { return this.act(sel, 0, "click", opts); }
	locator(sel) {
		const at = nth => ({
			click: opts => this.act(sel, nth, "click", opts),
			hover: opts => this.act(sel, nth, "hover", opts),
		});
		return { nth: at, first: () => at(0) };
	}
}

async function launchFirefox(profile) {
	const puppeteer = require("puppeteer-core");
	const browser = await puppeteer.launch({
		browser: "firefox",
		executablePath: process.env.FIREFOX || "/usr/bin/firefox-esr",
		headless: true,
		userDataDir: profile,
		defaultViewport: { ...VIEWPORT, deviceScaleFactor: 1 },
	});
	let timeout = 30000;
	return {
		setDefaultTimeout(ms) { timeout = ms; },
		async newPage() { return new FirefoxPage(await browser.newPage(), timeout); },
		close: () => browser.close(),
	};
}

const browsers = { chromium: launchChromium, firefox: launchFirefox };

exports.names = Object.keys(browsers);
exports.launch = function (name, profile) {
	if (!browsers[name]) throw new Error("unknown browser " + JSON.stringify(name) + " (" + exports.names.join(", ") + ")");
	return browsers[name](profile);
};
