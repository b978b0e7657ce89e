// Paths that end nowhere and the smaller things a phone meets (issue 38, items 14, 15 and 17 to 20), at 390 and 1280 px in both colour schemes: a 404 whose examples are pages that exist, /compare's chooser, /fit's inline errors with model and hardware first, the picker's candidates, /api's contents, the "More" panel, suggestions that push the next field down, tap targets of 24 px, compare's whole legend and one "best"; screenshots kept under build/browser-shots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');
const HEIGHT = 844;

let server;
let browser;
let pair;      // two runs of different models, the first of a long name

before(async () => {
	server = await startServer();
	browser = await launch();
	mkdirSync(SHOTS, { recursive: true });
	const pick = async (q) => (await (await fetch(`${server.url}/compare.json?${q}`)).json()).choose.rows;
	const longRows = await pick('model=qwen3-coder-30b-a3b');
	const other = await pick('model=stable-code-instruct-3b');
	assert.ok(longRows.length && other.length, 'the demo data has runs of both models');
	pair = [longRows[0].best_run, other[other.length - 1].best_run];
});

after(async () => {
	await browser?.close();
	await server?.stop();
});

async function open(path, width, scheme) {
	const context = await browser.newContext({ viewport: { width, height: HEIGHT }, colorScheme: scheme });
	const page = await context.newPage();
	const res = await page.goto(server.url + path, { waitUntil: 'load' });
	return { context, page, status: res.status() };
}

const shot = (page, name, width, scheme) =>
	page.screenshot({ path: join(SHOTS, `dead_ends_${name}_${width}_${scheme}.png`), fullPage: true });

/* The elements matching sel smaller than 24 x 24 px, as "text WxH". */
function tooSmall(sel) {
	return [...document.querySelectorAll(sel)].filter((e) => e.checkVisibility()).map((e) => {
		const r = e.getBoundingClientRect();
		return { t: e.textContent.trim().slice(0, 20), w: r.width, h: r.height };
	}).filter((x) => x.w < 24 || x.h < 24).map((x) => `${x.t} ${x.w.toFixed(0)}x${x.h.toFixed(0)}`);
}

for (const [width, scheme] of [[390, 'light'], [1280, 'light'], [390, 'dark'], [1280, 'dark']]) {
	describe(`${width} px, ${scheme}`, () => {
		test('item 14: a 404 offers pages that exist, never the missing one', async () => {
			const { context, page, status } = await open('/hw/m3-ultra-nope', width, scheme);
			try {
				assert.equal(status, 404);
				const hrefs = await page.$$eval('main ul.examples a', (as) => as.map((a) => a.getAttribute('href')));
				assert.equal(hrefs.length, 4, hrefs.join(' '));
				assert.ok(!hrefs.includes('/hw/m3-ultra-nope'));
				for (const h of hrefs)
					assert.equal((await fetch(server.url + h)).status, 200, h);
				assert.ok(await page.$('main a[href="/search?q=m3-ultra-nope"]'));
				await shot(page, '404', width, scheme);
			} finally {
				await context.close();
			}
		});

		test('item 14: /compare without runs is a form that picks them', async () => {
			const { context, page, status } = await open('/compare', width, scheme);
			try {
				assert.equal(status, 200);
				await page.selectOption('#choose-model', 'qwen3-coder-30b-a3b');
				await Promise.all([page.waitForNavigation(), page.click('form.compare-choose button')]);
				const boxes = await page.$$('input[type=checkbox][name=r]');
				assert.ok(boxes.length >= 2, 'fewer than two runs to tick');
				await boxes[0].check();
				await boxes[1].check();
				await shot(page, 'compare_choose', width, scheme);
				await Promise.all([page.waitForNavigation(), page.click('form[aria-labelledby="choose-runs-h"] button')]);
				assert.equal(new URL(page.url()).searchParams.getAll('r').length, 2);
				assert.equal(await page.$$eval('table.compare-runs tbody tr', (t) => t.length), 2);
			} finally {
				await context.close();
			}
		});

		test('items 14 and 19: /fit says under the field what to fix; model and hardware first', async () => {
			let { context, page, status } = await open('/fit?context=8K&hw=m3-ultra', width, scheme);
			try {
				assert.equal(status, 400);
				const r = await page.evaluate(() => {
					const input = document.querySelector('#fit-context'), err = document.querySelector('#fit-context-error');
					const a = input.getBoundingClientRect(), b = err.getBoundingClientRect();
					return { gap: b.top - a.bottom, visible: b.height > 0, value: input.value, form: !!document.querySelector('form#fit-form') };
				});
				assert.ok(r.form && r.visible && r.value === '8K', JSON.stringify(r));
				assert.ok(r.gap >= 0 && r.gap < 20, `the error is ${r.gap}px from its field`);
				await shot(page, 'fit_error', width, scheme);
				await context.close();
				({ context, page } = await open('/fit', width, scheme));
				const f = await page.evaluate(() => {
					const m = document.querySelector('#fit-model').getBoundingClientRect();
					const h = document.querySelector('#fit-hw').getBoundingClientRect();
					const shown = [...document.querySelectorAll('form#fit-form input, form#fit-form select')]
						.filter((e) => e.checkVisibility()).map((e) => e.name);
					return { mTop: m.top, hTop: h.top, hBottom: h.bottom, shown };
				});
				assert.deepEqual(f.shown, ['model', 'hw'], 'only model and hardware show before the fold-out');
				if (width >= 1280) {
					assert.equal(Math.round(f.mTop), Math.round(f.hTop), 'model and hardware are side by side');
					assert.ok(f.hBottom <= HEIGHT, `the hardware field ends at ${f.hBottom}px, below the first screen`);
				}
				await shot(page, 'fit', width, scheme);
			} finally {
				await context.close();
			}
		});

		test('item 15: the picker offers what search finds, each a link of 24 px', async () => {
			const { context, page, status } = await open('/?model=Llama+3.3+70B+Instruct&hw=GeForce', width, scheme);
			try {
				assert.equal(status, 404);
				const hrefs = await page.$$eval('#pick-hw-candidates a', (as) => as.map((a) => a.getAttribute('href')));
				assert.ok(hrefs.some((h) => h === '/m/llama-3-3-70b/hw/rtx-4090'), hrefs.join(' '));
				assert.deepEqual(await page.evaluate(tooSmall, '#pick-hw-candidates a'), []);
				await shot(page, 'pick_candidates', width, scheme);
			} finally {
				await context.close();
			}
		});

		test('item 17: /api opens with contents and examples, its reference folded', async () => {
			const { context, page } = await open('/api', width, scheme);
			try {
				const r = await page.evaluate(() => ({
					height: document.documentElement.scrollHeight,
					toc: [...document.querySelectorAll('nav.toc a')].map((a) => a.getAttribute('href')),
					curl: [...document.querySelectorAll('#examples ~ pre code')].map((c) => c.textContent).join('\n'),
				}));
				assert.equal(r.toc[0], '#examples');
				assert.match(r.curl, /curl -s '.*\/search\.json\?q=4090'/);
				if (width >= 1280) assert.ok(r.height < 30000, `/api is ${r.height}px tall`);
			} finally {
				await context.close();
			}
		});

		test('item 18: the More panel stands apart, suggestions push the next field, targets are 24 px', async () => {
			const { context, page } = await open('/', width, scheme);
			try {
				assert.deepEqual(await page.evaluate(tooSmall, 'a.gl, a.pair'), []);
				if (width < 1280) {
					await page.click('.nav-menu > summary');
					const m = await page.evaluate(() => {
						const ul = getComputedStyle(document.querySelector('.nav-menu > ul'));
						return { bottom: parseFloat(ul.borderBottomWidth), shadow: ul.boxShadow,
							bg: ul.backgroundColor, page: getComputedStyle(document.body).backgroundColor };
					});
					assert.ok(m.bottom >= 2 && m.shadow !== 'none' && m.bg !== m.page, JSON.stringify(m));
					await page.screenshot({ path: join(SHOTS, `dead_ends_more_${width}_${scheme}.png`) });
					await page.click('.nav-menu > summary');
				}
				await page.fill('#pick-model', 'qwen');
				await page.waitForSelector('.pick-field .suggestions li', { state: 'visible' });
				const o = await page.evaluate(() => {
					const s = document.querySelector('.pick-field .suggestions').getBoundingClientRect();
					const h = document.querySelector('#pick-hw').getBoundingClientRect();
					return { overlap: s.bottom > h.top && s.top < h.bottom && s.right > h.left && s.left < h.right };
				});
				assert.equal(o.overlap, false, "the suggestions cover the hardware field");
				await page.screenshot({ path: join(SHOTS, `dead_ends_suggest_${width}_${scheme}.png`) });
			} finally {
				await context.close();
			}
		});

		test('item 20: compare shows the whole legend and one "best"', async () => {
			const { context, page } = await open(`/compare?r=${pair.join(',')}`, width, scheme);
			try {
				const r = await page.evaluate(() => ({
					legend: [...document.querySelectorAll('figure svg g.legend text')].map((t) => t.textContent),
					labels: [...document.querySelectorAll('table.compare-runs .run-label')].map((t) => t.textContent),
					best: [...document.querySelectorAll('main table span.best')].filter((s) => s.offsetParent).length,
					out: [...document.querySelectorAll('figure svg g.legend text')].filter((t) => {
						const b = t.getBoundingClientRect(), s = t.ownerSVGElement.getBoundingClientRect();
						return b.right > s.right + 1;
					}).length,
				}));
				assert.ok(r.legend.length >= 2, 'no chart legend');
				assert.ok(!r.legend.join('').includes('…'), r.legend.join(' | '));
				assert.equal(r.legend[0], r.labels[0]);
				assert.match(r.labels[0], /Qwen3-Coder 30B-A3B Instruct/);
				assert.equal(r.out, 0, 'a legend line runs out of its chart');
				assert.equal(r.best, 1, `"best" shows ${r.best} times`);
				await shot(page, 'compare', width, scheme);
			} finally {
				await context.close();
			}
		});
	});
}
