// Every page kind at phone (390 px) and desktop (1280 px) width: no sideways overflow, no text under 11 px, axe-core clean at WCAG 2.1 AA; screenshots kept under build/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { after, before, describe, test } from 'node:test';

import { launch } from './browser.mjs';
import { ROOT, addAccountRun, kindPaths, startServer } from './server.mjs';

const require = createRequire(import.meta.url);
const AXE = require.resolve('axe-core/axe.min.js');
const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');
const MIN_PX = 11;

let server;
let browser;
let paths;

/* One path per page kind of the daemon's table (kindPaths()), its run,
 * model and hardware found from the home page's links, its account
 * account, then the 404 page. */
async function pageKinds(url, account) {
	const home = await (await fetch(url + '/')).text();
	const first = (prefix) => home.match(new RegExp(`href="/${prefix}/([^"?#]+)`))?.[1];
	const run = first('r'), model = first('m'), hw = first('hw');
	assert.ok(run && model && hw, 'the home page links to no run, model or hardware page');
	const runs = [...home.matchAll(/href="\/r\/([^"?#\/]+)"/g)].map((m) => m[1]);
	const pair = [...new Set(runs)].slice(0, 2);
	assert.equal(pair.length, 2, 'the home page links to fewer than two runs to compare');
	// A model on a hardware (a list row's link) is the model-on-hardware
	// kind's page; one nobody measured and the picker's form naming a field
	// to fix are visited as well.
	const pairPage = home.match(/class="pair" href="\/m\/([^"\/]+)\/hw\/([^"?#\/]+)/);
	assert.ok(pairPage, 'the board links to no model-on-hardware page');
	const query = {
		search: `?q=${encodeURIComponent(model.slice(0, 5))}`,
		compare: `?r=${pair.join(',')}`,
		fit: '?hw=m3-ultra',
	};
	const kinds = kindPaths({ run: decodeURIComponent(run), model: decodeURIComponent(model),
		hw: decodeURIComponent(hw), account,
		'model-hw': [decodeURIComponent(pairPage[1]), decodeURIComponent(pairPage[2])] }, query);
	// Issue 38: /compare's chooser with its runs, /fit's form with refused
	// values, the picker's candidates.
	return [...kinds.map((k) => k.path), '/m/llama-3-1-8b-instruct/hw/rtx-4090', '/?model=&hw=m3-ultra', '/no-such-page',
		`/compare?model=${model}`, '/fit?context=8K&hw=m3-ultra', '/?model=Llama+3.3+70B+Instruct&hw=GeForce'];
}

before(async () => {
	server = await startServer();
	browser = await launch();
	paths = await pageKinds(server.url, 'layout-reader');
	await addAccountRun(server, 'layout-reader');
	// A dispute thread, so /disputes has a table to lay out.
	const runPath = paths.find((p) => p.startsWith('/r/'));
	const post = await fetch(`${server.url}/api/v1/runs/${runPath.slice(3)}/disputes`, {
		method: 'POST', headers: { 'Content-Type': 'application/json' },
		body: JSON.stringify({ author: 'a reader with a rather long name', body: 'These figures look too good for this card.' }),
	});
	assert.equal(post.status, 201, await post.text());
	await addChange(server);
	// A visit to a page nobody measured puts a row on /wanted.
	await fetch(server.url + '/m/llama-3-1-8b-instruct/hw/rtx-4090');
	mkdirSync(SHOTS, { recursive: true });
});

/* Uploads eight fresh keys' runs of llama.cpp b6100 near 100 tok/s and
 * eight of b6200 near 120, of a long model name on long hardware, so that
 * /changes has a row (found by the refresh thread: waits for it). */
async function addChange(srv) {
	const bin = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
	for (const [ver, base] of [['b6100', 98], ['b6200', 118]])
		for (let i = 0; i < 8; i++) {
			const jws = execFileSync(bin, ['sample-run', '--model', 'DeepSeek-Coder-V2-Lite-Instruct-Long-Context-Edition',
				'--hardware', 'NVIDIA GeForce RTX 4090 Laptop GPU', '--backend', 'llama.cpp', '--backend-version', ver,
				'--decode', String(base + 0.5 * i)]);
			const res = await fetch(`${srv.url}/api/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/jose' }, body: jws });
			assert.equal(res.status, 201, await res.text());
		}
	const deadline = Date.now() + 30000;
	while (Date.now() < deadline) {
		const j = await (await fetch(srv.url + '/changes.json')).json();
		if (j.changes.length) return;
		await new Promise((ok) => setTimeout(ok, 200));
	}
	assert.fail('no change on /changes.json after the uploads');
}

after(async () => {
	await browser?.close();
	await server?.stop();
});

/* What sticks out of the window sideways, and the text drawn smaller than
 * MIN_PX (an SVG's text at its drawn size, after the drawing is scaled). */
function measure(minPx) {
	const w = window.innerWidth;
	// Inside a box that scrolls sideways itself (the phone's nav row): reachable, not overflow.
	const inScroller = (e) => {
		for (let p = e.parentElement; p && p !== document.body; p = p.parentElement)
			if (['auto', 'scroll'].includes(getComputedStyle(p).overflowX) && p.clientWidth <= w) return true;
		return false;
	};
	const wide = [...document.querySelectorAll('body *')]
		.filter((e) => e.getBoundingClientRect().right > w + 1 && !e.closest('.table-wrap, .skip') && !inScroller(e))
		.slice(0, 5)
		.map((e) => `${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} right=${Math.round(e.getBoundingClientRect().right)}`);
	const small = [];
	for (const e of document.querySelectorAll('body *')) {
		const text = [...e.childNodes].filter((n) => n.nodeType === 3).map((n) => n.textContent).join('').trim();
		if (!text || e.closest('title, style, script, .skip')) continue;
		const r = e.getBoundingClientRect();
		if (!r.width || !r.height) continue;
		let px = parseFloat(getComputedStyle(e).fontSize);
		const svg = e.closest('svg');
		if (svg && e.getScreenCTM) {
			const m = e.getScreenCTM();
			if (m) px *= Math.hypot(m.a, m.b);
		}
		if (px < minPx - 0.05) small.push(`${e.tagName.toLowerCase()} "${text.slice(0, 30)}" ${px.toFixed(1)}px`);
	}
	// Tables that scroll inside their wrapper (fine on a phone, not on a wide screen).
	const scrolled = [...document.querySelectorAll('.table-wrap')]
		.filter((e) => e.scrollWidth > e.clientWidth + 1)
		.map((e) => `${e.querySelector('caption')?.textContent || e.querySelector('th')?.textContent} (${e.scrollWidth}px in ${e.clientWidth}px)`);
	return { scroll: document.documentElement.scrollWidth, inner: w, wide, small: small.slice(0, 8), scrolled };
}

for (const [width, scheme] of [[390, 'light'], [1280, 'light'], [390, 'dark'], [1280, 'dark']]) {
	describe(`${width} px, ${scheme}`, () => {
		let context;
		before(async () => {
			// axe is injected as a script, which the site's CSP rightly refuses.
			context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme, bypassCSP: true });
		});
		after(async () => { await context.close(); });

		test('every page kind: fits, readable, axe-clean', async (t) => {
			for (const path of paths) {
				await t.test(path, async () => {
					const page = await context.newPage();
					try {
						await page.goto(server.url + path, { waitUntil: 'load' });
						await page.screenshot({ path: join(SHOTS, `${path.replace(/[^a-z0-9]+/gi, '_')}_${width}_${scheme}.png`), fullPage: true });
						const m = await page.evaluate(measure, MIN_PX);
						assert.ok(m.scroll <= m.inner + 1,
							`${path}: document is ${m.scroll}px wide in a ${m.inner}px window; sticking out: ${m.wide.join(', ')}`);
						assert.deepEqual(m.small, [], `${path}: text under ${MIN_PX}px`);
						if (width >= 1280)
							assert.deepEqual(m.scrolled, [], `${path}: tables scroll sideways on a wide screen`);
						await page.addScriptTag({ path: AXE });
						const res = await page.evaluate(() => window.axe.run(document, {
							runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] },
						}));
						const found = res.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.slice(0, 3).map((n) => n.target.join(' ')).join('; ')}`);
						assert.deepEqual(found, [], `${path}: axe-core violations`);
					} finally {
						await page.close();
					}
				});
			}
		});
	});
}

describe('the badge is a reasonable width', () => {
	test('at most 340 px for a demo run (390 px before; badge.test.mjs compares it with badge-maker)', async () => {
		const page = await browser.newPage();
		try {
			const run = paths.find((p) => p.startsWith('/r/')).slice(3);
			await page.goto(`${server.url}/badge/${run}.svg`);
			const w = await page.evaluate(() => document.documentElement.getBoundingClientRect().width);
			assert.ok(w > 100 && w <= 340, `badge is ${w}px wide`);
		} finally {
			await page.close();
		}
	});
});

/* Issue 38: what a visitor sees first, and nothing wider than its place. */

/* Every element of main that sticks out of its container (the nearest
 * block ancestor that is not itself scrolled sideways), and every
 * .table-wrap that scrolls; each as "tag.class right/limit". */
function overflowing() {
	const out = [];
	for (const w of document.querySelectorAll('main .table-wrap'))
		if (w.scrollWidth > w.clientWidth + 1)
			out.push(`table-wrap of "${(w.querySelector('caption, th')?.textContent || '').slice(0, 30)}" ${w.scrollWidth}/${w.clientWidth}`);
	for (const e of document.querySelectorAll('main *')) {
		if (e.closest('svg') && e.tagName.toLowerCase() !== 'svg') continue;
		const box = e.parentElement?.closest('td, th, p, li, dd, dt, section, figure, form, div, main');
		if (!box || getComputedStyle(e).position === 'absolute' || e.closest('.visually-hidden, thead')) continue;
		const r = e.getBoundingClientRect(), b = box.getBoundingClientRect();
		if (r.width && r.right > b.right + 1)
			out.push(`${e.tagName.toLowerCase()}.${e.getAttribute('class') || ''} "${e.textContent.trim().slice(0, 30)}" ${Math.round(r.right)}/${Math.round(b.right)}`);
	}
	// On a phone a table of cards has its caption across the page, not
	// squeezed into its first card's column.
	if (innerWidth < 640)
		for (const c of document.querySelectorAll('main .table-wrap caption')) {
			const w = c.closest('.table-wrap').clientWidth, cw = c.getBoundingClientRect().width;
			if (c.checkVisibility() && cw < 0.6 * w)
				out.push(`caption "${c.textContent.trim().slice(0, 30)}" ${Math.round(cw)} px in ${w}`);
		}
	return out.slice(0, 8);
}

/* The page of the first run /outliers lists (the demo data flags some). */
async function flaggedRun() {
	const m = (await (await fetch(server.url + '/outliers')).text()).match(/href="\/r\/([^"#?\/]+)"/);
	assert.ok(m, '/outliers lists no run');
	return '/r/' + m[1];
}

for (const [width, height] of [[390, 844], [1280, 800]]) {
	for (const scheme of ['light', 'dark']) {
		describe(`issue 38 at ${width}x${height}, ${scheme}`, () => {
			let context;
			before(async () => {
				context = await browser.newContext({ viewport: { width, height }, colorScheme: scheme });
			});
			after(async () => { await context.close(); });

			const visit = async (path, fn, ...args) => {
				const page = await context.newPage();
				try {
					const res = await page.goto(server.url + path, { waitUntil: 'load' });
					assert.equal(res.status(), 200, path);
					return await page.evaluate(fn, ...args);
				} finally {
					await page.close();
				}
			};

			test('the home page: one sentence, the picker, then the board\'s first row in the first screen; the tools after the board', async () => {
				const m = await visit('/', () => {
					const row = document.querySelector('table.combos tbody tr:not(.await-head)');
					const fig = row.querySelector('td.fig');
					const picker = document.querySelector('form.picker');
					const tools = document.querySelector('nav.tools');
					const lede = document.querySelector('p.lede').textContent.trim();
					return { top: row.getBoundingClientRect().top, figBottom: fig.getBoundingClientRect().bottom,
						inner: innerHeight, picker: picker.getBoundingClientRect().bottom,
						toolsAfter: !!(row.compareDocumentPosition(tools) & Node.DOCUMENT_POSITION_FOLLOWING),
						sentences: lede.split(/[.!?](\s|$)/).filter((x) => x && x.trim()).length };
				});
				assert.ok(m.figBottom <= m.inner, `the first row's figure ends at ${Math.round(m.figBottom)} px of ${m.inner}`);
				assert.ok(m.picker < m.top, 'the picker comes before the board');
				assert.ok(m.toolsAfter, 'the tool cards come after the board');
				assert.equal(m.sentences, 1, 'the lede is one sentence');
			});

			test('the model page: its numbers (the fastest on each hardware) in the first screen', async () => {
				const m = await visit('/m/qwen2-5-7b', () => {
					const bars = [...document.querySelectorAll('main figure svg text')].filter((t) => /\d tok\/s$/.test(t.textContent.trim()));
					return { n: bars.length, bottom: bars.length ? bars[0].getBoundingClientRect().bottom : Infinity, inner: innerHeight };
				});
				assert.ok(m.n >= 2, `the model page draws ${m.n} figures`);
				assert.ok(m.bottom <= m.inner, `the first figure ends at ${Math.round(m.bottom)} px of ${m.inner}`);
			});

			test('a flagged run: the flag right under the figure, one sentence linking the check', async () => {
				const m = await visit(await flaggedRun(), () => {
					const flag = document.querySelector('main p.flag#flag-line');
					const lede = document.querySelector('main p.lede');
					let between = 0;
					for (let e = lede?.nextElementSibling; e && e !== flag; e = e.nextElementSibling)
						if (!e.matches('.dispute-summary')) between++;
					const text = flag?.textContent.replace(/\s+/g, ' ').trim() || '';
					return { found: !!flag, bottom: flag?.getBoundingClientRect().bottom, inner: innerHeight, between, text,
						href: flag?.querySelector('a[href="#outlier"]') !== null,
						sentences: text.split(/[.!?](\s|$)/).filter((x) => x && x.trim()).length };
				});
				assert.ok(m.found, 'no flag line');
				assert.equal(m.between, 0, 'something other than a dispute banner comes between the figure and the flag');
				assert.ok(m.bottom <= m.inner, `the flag ends at ${Math.round(m.bottom)} px of ${m.inner}`);
				assert.ok(m.href, 'the flag does not link the check');
				assert.equal(m.sentences, 1, m.text);
				assert.ok(m.text.split(' ').length <= 40, `the flag is ${m.text.split(' ').length} words: ${m.text}`);
			});

			test('no table or element wider than its container', async (t) => {
				const run = paths.find((p) => p.startsWith('/r/'));
				const user = paths.find((p) => p.startsWith('/u/'));
				// A flagged run's Status line carries the flag's tag (a tag
				// never breaks, so it must stay short enough for a phone).
				const flagged = await flaggedRun();
				for (const path of ['/', '/outliers', '/changes', '/wanted', '/models', '/hardware', run, flagged, user, '/glossary',
					'/m/qwen2-5-7b', '/hw/rtx-4090', '/fit?model=qwen2-5-7b&hw=rtx-4090']) {
					await t.test(path, async () => {
						assert.deepEqual(await visit(path, overflowing), [], `${path} at ${width} px`);
					});
				}
			});

			test('a mark never breaks inside, on its own line under its figure', async () => {
				for (const path of ['/', paths.find((p) => p.startsWith('/u/')), '/outliers', await flaggedRun()]) {
					const bad = await visit(path, () => [...document.querySelectorAll('main span.flag, main a.flag')]
						.filter((e) => getComputedStyle(e).display !== 'block')
						.filter((e) => e.getClientRects().length > 1 || e.getBoundingClientRect().height > 2 * parseFloat(getComputedStyle(e).fontSize))
						.map((e) => e.textContent.trim()));
					assert.deepEqual(bad, [], `${path}: marks broken across lines`);
				}
			});

			test('/changes: no raw float, p in words, the change first', async () => {
				const m = await visit('/changes', () => ({
					text: document.querySelector('main').innerText,
					first: document.querySelector('table.changes tbody tr td')?.textContent.trim(),
					inputs: document.querySelectorAll('form[action="/changes"] input[type="text"]').length,
					selects: document.querySelectorAll('form[action="/changes"] select').length,
				}));
				const raw = (m.text.match(/\S*(\d\.\d{3,}|\de-\d)\S*/g) || []).filter((w) => w !== '0.001');
				assert.deepEqual(raw, [], 'raw floats on /changes');
				assert.match(m.text, /p (< 0\.001|= \d)/);
				assert.match(m.first || '', /^[+\u2212]\d+\.\d%$/);
				assert.equal(m.inputs, 0, 'a filter is free text');
				assert.equal(m.selects, 2);
			});

			test('the run page: no empty sentence', async () => {
				for (const path of [paths.find((p) => p.startsWith('/r/')), await flaggedRun()]) {
					const bad = await visit(path, () => [...document.querySelectorAll('main p, main dd, main li')]
						.map((e) => e.textContent.replace(/\s+/g, ' ').trim())
						.filter((s) => /:\s*[.)]|\bit \(|,\s*\.|\(\s*\)|\s[.,]$|:$/.test(s) && !/Markdown:$|HTML:$/.test(s)));
					assert.deepEqual(bad, [], `${path}: empty sentences`);
				}
			});

			test('one word for the people who measured: submitters, never a count of keys', async () => {
				for (const path of ['/', '/m/qwen2-5-7b', '/m/qwen2-5-7b/hw/rtx-4090', '/hw/rtx-4090', '/outliers',
					'/cheatsheet', '/models', '/hardware', await flaggedRun()]) {
					const text = await visit(path, () => document.querySelector('main').innerText);
					const bad = text.match(/[^\n]{0,30}\b\d[\d,]* (signing )?keys?\b|\bMean of keys\b|\bhardware class\b/g) || [];
					assert.deepEqual(bad, [], `${path}: people counted as keys`);
				}
			});

			test('the glossary defines median, middle half, submitter, predicted, cluster, combination', async () => {
				const got = await visit('/glossary', () => ['median', 'middle-half', 'submitter', 'predicted', 'cluster', 'combination']
					.map((id) => [id, document.getElementById(id)?.nextElementSibling?.textContent.trim().length || 0]));
				for (const [id, n] of got)
					assert.ok(n > 40, `no glossary entry #${id}`);
			});
		});
	}
}
