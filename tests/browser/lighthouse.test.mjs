// Lighthouse 12.2.3 (mobile, as pinned in tests/package.json) in Debian's Chromium scores the main pages at 0.95 or more in performance, accessibility, best practices and SEO (issue 27); each report kept under build/lighthouse/, the scores printed.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { promisify } from 'node:util';

import { CHROMIUM } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const run = promisify(execFile);
const LIGHTHOUSE = join(ROOT, 'tests', 'node_modules', '.bin', 'lighthouse');
const OUT = join(process.env.BUILD || join(ROOT, 'build'), 'lighthouse');
const CATEGORIES = ['performance', 'accessibility', 'best-practices', 'seo'];
const MIN = 0.95;
/* Performance is timed on a shared machine: a page below MIN is scored
 * again, up to this many times in all, and its best run counts.  The
 * other three categories do not depend on timing and must pass the
 * first time. */
const TRIES = 3;

let server;
let pages;    // [[name, path]]

before(async () => {
	server = await startServer();
	mkdirSync(OUT, { recursive: true });
	const home = await (await fetch(server.url + '/index.json')).json();
	const top = home.board.rows[0];
	pages = [['home', '/'], ['run', `/r/${top.best_run}`], ['model', `/m/${top.model.slug}`],
		['hardware', `/hw/${top.hardware.slug}`], ['cheatsheet', '/cheatsheet'], ['fit', '/fit'],
		['model-on-hardware', `/m/${top.model.slug}/hw/${top.hardware.slug}`],
		['compare-chooser', '/compare'], ['api', '/api']];
});

after(async () => {
	await server?.stop();
});

/* One Lighthouse run of path: resolves to its report. */
async function score(name, path, n) {
	const file = join(OUT, `${name}${n ? `-${n + 1}` : ''}.json`);
	await run(LIGHTHOUSE, [server.url + path, `--chrome-path=${CHROMIUM}`,
		'--chrome-flags=--headless=new --no-sandbox --disable-gpu --disable-dev-shm-usage',
		`--only-categories=${CATEGORIES.join(',')}`, '--form-factor=mobile',
		'--output=json', `--output-path=${file}`, '--quiet'], { timeout: 240000, maxBuffer: 1 << 24 });
	return JSON.parse(readFileSync(file, 'utf8'));
}

/* The audits of a report that cost a category points: "category audit
 * score (display value)". */
function losses(report) {
	const out = [];
	for (const c of Object.values(report.categories))
		for (const ref of c.auditRefs) {
			const a = report.audits[ref.id];
			if (ref.weight > 0 && a.score !== null && a.score < 1)
				out.push(`${c.id} ${ref.id} ${a.score}${a.displayValue ? ` (${a.displayValue})` : ''}`);
		}
	return out;
}

describe('lighthouse, mobile', () => {
	test('every main page scores 0.95 or more in all four categories', { timeout: 1800000 }, async (t) => {
		for (const [name, path] of pages) {
			await t.test(`${name} ${path}`, async () => {
				let best = null;
				for (let n = 0; n < TRIES; n++) {
					const report = await score(name, path, n);
					const s = Object.fromEntries(CATEGORIES.map((c) => [c, report.categories[c].score]));
					if (!best || s.performance > best.scores.performance)
						best = { scores: s, report };
					for (const c of CATEGORIES.filter((c) => c !== 'performance'))
						assert.ok(s[c] >= MIN, `${path}: ${c} ${s[c]}:\n  ${losses(report).join('\n  ')}`);
					if (s.performance >= MIN)
						break;
				}
				console.log(`lighthouse ${name} ${path}: ${CATEGORIES.map((c) => `${c} ${best.scores[c]}`).join(', ')}`);
				assert.ok(best.scores.performance >= MIN,
					`${path}: performance ${best.scores.performance} at best of ${TRIES}:\n  ${losses(best.report).join('\n  ')}`);
			});
		}
	});
});
