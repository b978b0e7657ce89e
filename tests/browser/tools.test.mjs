// The cheatsheet and "Will it fit?" as a visitor meets them (issue 28, items 7, 8 and 10): no table wider than its container at 1280 px, model names that do not wrap to four lines, the fastest backend marked in words, the model column staying put while a table scrolls, cards on a phone with each filter label beside its select, and /fit's answer above its form; screenshots kept under build/browser-shots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');

let server;
let browser;

before(async () => {
	server = await startServer();
	browser = await launch();
	mkdirSync(SHOTS, { recursive: true });
});

after(async () => {
	await browser?.close();
	await server?.stop();
});

/* A page of a fresh context at width (844 px tall) in scheme; the caller
 * closes the context. */
async function open(path, width, scheme = 'light') {
	const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme });
	const page = await context.newPage();
	await page.goto(server.url + path, { waitUntil: 'load' });
	return { context, page };
}

describe('the cheatsheet', () => {
	for (const scheme of ['light', 'dark']) {
		test(`1280 px ${scheme}: every table fits its container, names wrap to two lines at most, the fastest is said`, async () => {
			const { context, page } = await open('/cheatsheet', 1280, scheme);
			try {
				const r = await page.evaluate(() => {
					const tables = [...document.querySelectorAll('main table.cheatsheet')];
					const wide = tables.filter((t) => {
						const holder = t.closest('.table-wrap') || t.parentElement;
						return t.getBoundingClientRect().width > holder.clientWidth + 1 || holder.scrollWidth > holder.clientWidth + 1;
					}).map((t) => t.querySelector('caption').textContent);
					const lines = [...document.querySelectorAll('main table.cheatsheet tbody th a')].map((a) => {
						const lh = parseFloat(getComputedStyle(a).lineHeight);
						return { name: a.textContent, lines: Math.round(a.getBoundingClientRect().height / lh) };
					});
					const cells = [...document.querySelectorAll('main table.cheatsheet td')];
					const several = cells.filter((td) => td.querySelectorAll('.entry > a[href^="/m/"], .entry > strong > a').length > 1);
					const marked = several.map((td) => [...td.querySelectorAll('.fastest')].map((f) => ({
						words: f.querySelector('.tag')?.textContent, bold: getComputedStyle(f.querySelector('a')).fontWeight,
					})));
					// One line a backend (issue 38): each entry is its own list item,
					// below the one before it, and a backend twice in a cell says why.
					const runOn = cells.filter((td) => {
						const items = [...td.querySelectorAll('ul.cell-lines > li')];
						return items.some((li, i) => i && li.getBoundingClientRect().top < items[i - 1].getBoundingClientRect().bottom - 1);
					}).length;
					const unexplained = cells.filter((td) => {
						const names = [...td.querySelectorAll('ul.cell-lines > li')].map((li) => li.querySelector('a').textContent.split(' ')[0]);
						return names.some((n, i) => names.indexOf(n) !== i) && !td.querySelector('.twice');
					}).length;
					return { tables: tables.length, page: document.documentElement.scrollWidth, wide, lines, marked, runOn, unexplained,
						items: document.querySelectorAll('main table.cheatsheet ul.cell-lines > li').length };
				});
				assert.ok(r.tables >= 2, 'the demo\'s hardware makes two tables');
				assert.equal(r.page, 1280, 'the page scrolls sideways');
				assert.deepEqual(r.wide, [], 'tables wider than their containers');
				assert.ok(r.lines.length > 5);
				for (const l of r.lines)
					assert.ok(l.lines <= 2, `"${l.name}" wraps to ${l.lines} lines`);
				assert.ok(r.marked.length > 5, 'no cell with several backends');
				assert.ok(r.items > 20, 'cells are not lists of backends');
				assert.equal(r.runOn, 0, 'a cell runs two backends into one line');
				assert.equal(r.unexplained, 0, 'a backend twice in a cell without saying why');
				for (const m of r.marked) {
					assert.equal(m.length, 1, 'a cell of several backends marks exactly one fastest');
					assert.equal(m[0].words, 'fastest');
					assert.ok(Number(m[0].bold) >= 600, 'the fastest is not bold');
				}
				await page.screenshot({ path: join(SHOTS, `tools_cheatsheet_1280_${scheme}.png`), fullPage: true });
			} finally {
				await context.close();
			}
		});
	}

	test('a window too narrow for a table scrolls it with the model column in place', async () => {
		const { context, page } = await open('/cheatsheet', 720);
		try {
			const r = await page.evaluate(() => {
				const wrap = [...document.querySelectorAll('main .table-wrap')].find((w) => w.scrollWidth > w.clientWidth + 1);
				if (!wrap) return null;
				const th = wrap.querySelector('tbody th');
				const before = th.getBoundingClientRect().left - wrap.getBoundingClientRect().left;
				wrap.scrollLeft = 200;
				const afterX = th.getBoundingClientRect().left - wrap.getBoundingClientRect().left;
				const cover = document.elementFromPoint(th.getBoundingClientRect().left + 5, th.getBoundingClientRect().top + 5);
				return { before, afterX, scrolled: wrap.scrollLeft, covered: !th.contains(cover) };
			});
			assert.ok(r, 'at 720 px no table scrolls: the check has nothing to check');
			assert.ok(r.scrolled > 0);
			assert.ok(Math.abs(r.afterX - r.before) <= 1, `the model column moved ${r.afterX - r.before}px`);
			assert.ok(!r.covered, 'a figure is drawn over the model column');
			await page.screenshot({ path: join(SHOTS, 'tools_cheatsheet_720_scrolled.png') });
		} finally {
			await context.close();
		}
	});

	for (const scheme of ['light', 'dark']) {
		test(`390 px ${scheme}: models are cards, nothing scrolls sideways, "Memory" sits beside its select`, async () => {
			const { context, page } = await open('/cheatsheet', 390, scheme);
			try {
				const r = await page.evaluate(() => {
					const mid = (e) => { const b = e.getBoundingClientRect(); return (b.top + b.bottom) / 2; };
					const tables = [...document.querySelectorAll('main table.cheatsheet')];
					return {
						page: document.documentElement.scrollWidth,
						cards: tables.every((t) => getComputedStyle(t).display === 'block'),
						wide: tables.filter((t) => (t.closest('.table-wrap') || t.parentElement).scrollWidth > t.parentElement.clientWidth + 1).length,
						labels: [...document.querySelectorAll('main table.cheatsheet td[data-label]')].every((td) => getComputedStyle(td, '::before').content.length > 2),
						memory: Math.abs(mid(document.querySelector('label[for="f-memory"]')) - mid(document.querySelector('#f-memory'))),
						backend: Math.abs(mid(document.querySelector('label[for="f-backend"]')) - mid(document.querySelector('#f-backend'))),
					};
				});
				assert.equal(r.page, 390);
				assert.ok(r.cards, 'a cheatsheet table is not laid out as cards');
				assert.equal(r.wide, 0);
				assert.ok(r.labels, 'a card\'s cell does not name its hardware');
				assert.ok(r.memory <= 4, `"Memory" sits ${r.memory}px off its select's row`);
				assert.ok(r.backend <= 4, `"Backend" sits ${r.backend}px off its select's row`);
				await page.screenshot({ path: join(SHOTS, `tools_cheatsheet_390_${scheme}.png`), fullPage: true });
			} finally {
				await context.close();
			}
		});
	}
});

describe('will it fit', () => {
	for (const scheme of ['light', 'dark']) {
		test(`390 px ${scheme}: the answer is in the first screen, above the form, naming the hardware`, async () => {
			const { context, page } = await open('/fit?hw=rtx-4090', 390, scheme);
			try {
				const r = await page.evaluate(() => {
					const answer = document.querySelector('.fit-answer');
					const form = document.querySelector('form.fit');
					return {
						top: answer.getBoundingClientRect().top, headline: document.querySelector('.fit-answer .headline').getBoundingClientRect().bottom,
						form: form.getBoundingClientRect().top, text: answer.textContent,
						code: [...document.querySelectorAll('main code')].map((c) => c.textContent).filter((t) => t.includes('rtx-4090')),
					};
				});
				assert.ok(r.top < r.form, 'the answer comes after the form');
				assert.ok(r.headline <= 844, `the ceiling ends at ${r.headline}px, below the first screen`);
				assert.match(r.text, /Fits/);
				assert.match(r.text, /NVIDIA GeForce RTX 4090/);
				assert.match(r.text, /\d tok\/s/);
				assert.deepEqual(r.code, [], 'the hardware is named by a slug in code style');
				await page.screenshot({ path: join(SHOTS, `tools_fit_390_${scheme}.png`) });
			} finally {
				await context.close();
			}
		});
	}
});
