// SPDX-License-Identifier: Apache-2.0
// live_checks.js - what the live view's drivers (live_test.js,
// live_map_test.js) share: PASS:/FAIL: lines under a prefix, a sleep,
// the page opened in a browser with its script errors collected, and
// waiting in the page until a function of it is truthy.
"use strict";
const fs = require("fs");
const os = require("os");
const path = require("path");
const driver = require("./driver");

const sleep = ms => new Promise(r => setTimeout(r, ms));

// pass(n), fail(n, why), check(n, ok, why) printing "PASS: PREFIX: n" ...
function checks(prefix) {
	const pass = n => console.log("PASS: " + prefix + ": " + n);
	const fail = (n, why) => console.log("FAIL: " + prefix + ": " + n + ": " + why);
	const check = (n, ok, why) => { if (ok) pass(n); else fail(n, why); return ok; };
	return { pass, fail, check };
}

// Wait until fn(arg), evaluated in the page, is truthy (ms at most); its
// last value.  An evaluation cut by a frame loading again counts as null.
async function until(page, fn, arg, ms) {
	const end = Date.now() + ms;
	let v;
	for (;;) {
		try {
			v = await page.evaluate(fn, arg);
		} catch (e) {
			v = null;
		}
		if (v || Date.now() >= end) return v;
		await sleep(100);
	}
}

// The live page at url in browser (driver.js), the viewport width x
// height: { ctx, page, errors } (the console's errors, uncaught ones).
async function openLive(browser, url, width, height) {
	const ctx = await driver.launch(browser, fs.mkdtempSync(path.join(os.tmpdir(), "ow-live-")));
	ctx.setDefaultTimeout(20000);
	const page = await ctx.newPage();
	const errors = [];
	page.on("console", m => { if (m.type() === "error") errors.push(m.text()); });
	page.on("pageerror", e => errors.push("uncaught: " + e.message));
	await page.setViewportSize({ width, height });
	await page.goto(url);
	await page.waitForLoadState("load");
	return { ctx, page, errors };
}

module.exports = { sleep, checks, until, openLive };
