// The model-on-hardware page (/m/<model>/hw/<hw>) and the home page's
// picker (issue 22): at 390 and 1280 px, light and dark, the answer sits in
// the first phone screen above any table or list, no table is wider than
// its container, the ceiling's bar is drawn; the picker works without
// JavaScript and with its type-ahead.  Screenshots in build/browser-shots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch, watch } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');
const MEASURED = '/m/qwen2-5-7b/hw/rtx-5090';   // demo data: three weights files, four backends
const EMPTY = '/m/llama-3-3-70b-instruct/hw/rtx-4090';    // demo data: the model elsewhere, nothing here

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

async function open(path, width, scheme = 'light', js = true) {
	const context = await browser.newContext({ viewport: { width, height: 844 }, colorScheme: scheme, javaScriptEnabled: js });
	const page = await context.newPage();
	const problems = watch(page);
	const res = await page.goto(server.url + path, { waitUntil: 'load' });
	return { context, page, res, problems };
}

/* Where the answer sits, and what sticks out. */
function layout() {
	const answer = document.querySelector('p.answer-line');
	const first = document.querySelector('main table, main form, main ul, main ol');
	const tables = [];
	for (const t of document.querySelectorAll('main table')) {
		const holder = t.closest('.table-wrap') || t.parentElement;
		if (t.getBoundingClientRect().width > holder.clientWidth + 1)
			tables.push(`${t.querySelector('caption')?.textContent}: ${Math.round(t.getBoundingClientRect().width)} in ${holder.clientWidth}`);
	}
	const r = answer?.getBoundingClientRect();
	return {
		answer: answer ? { top: r.top + scrollY, bottom: r.bottom + scrollY, text: answer.textContent } : null,
		firstList: first ? first.getBoundingClientRect().top + scrollY : null,
		scroll: document.documentElement.scrollWidth, inner: innerWidth, tables,
		gauges: [...document.querySelectorAll('svg.gauge')].filter((g) => g.getBoundingClientRect().width > 20).length,
	};
}

describe('the model-on-hardware page', () => {
	for (const width of [390, 1280]) {
		for (const scheme of ['light', 'dark']) {
			test(`${width} px, ${scheme}: the answer first, nothing wider than its box`, async () => {
				for (const path of [MEASURED, EMPTY]) {
					const { context, page, res, problems } = await open(path, width, scheme);
					try {
						assert.equal(res.status(), 200);
						const l = await page.evaluate(layout);
						assert.ok(l.answer, `${path}: no answer line`);
						assert.ok(l.answer.bottom <= 844, `${path}: the answer ends at ${l.answer.bottom}px, past the first screen`);
						assert.ok(l.firstList === null || l.answer.bottom <= l.firstList, `${path}: a table or list comes before the answer`);
						assert.ok(l.scroll <= l.inner, `${path}: the page is ${l.scroll}px wide in ${l.inner}`);
						if (width === 1280)
							assert.deepEqual(l.tables, [], `${path}: tables wider than their container`);
						if (path === MEASURED) {
							assert.match(l.answer.text, /Fastest here: exllamav2/);
							assert.ok(l.gauges >= 2, 'the ceiling is drawn against the median');
						} else {
							assert.match(l.answer.text, /Nobody has measured/);
							assert.match(await page.textContent('main'), /llm-speed bench --models 'Llama-3\.3-70B-Instruct' --backends/);
						}
						assert.deepEqual(problems, []);
						const name = `model_hw_${path === MEASURED ? 'measured' : 'empty'}_${width}_${scheme}`;
						await page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
						await page.screenshot({ path: join(SHOTS, `${name}_first_screen.png`) });
					} finally {
						await context.close();
					}
				}
			});
		}
	}
});

describe('the picker', () => {
	test('without JavaScript: a plain GET form lands on the page, and says what to fix', async () => {
		for (const width of [390, 1280]) {
			const { context, page } = await open('/', width, 'light', false);
			try {
				const box = await page.locator('form.picker').boundingBox();
				const board = await page.locator('table.combos').first().boundingBox();
				assert.ok(box.y < board.y, 'the picker sits above the board');
				await page.fill('#pick-model', 'Qwen2.5-7B-Instruct');
				await page.fill('#pick-hw', 'NVIDIA GeForce RTX 5090');
				await Promise.all([page.waitForURL(`**${MEASURED}`), page.click('form.picker button')]);
				assert.match(await page.textContent('h1'), /Qwen2\.5 7B Instruct\s+on\s+NVIDIA GeForce RTX 5090/);   // the reference's name
				await page.goto(server.url + '/');
				await page.fill('#pick-model', 'Qwen2.5-7B-Instruct');
				await page.fill('#pick-hw', 'A toaster');
				await Promise.all([page.waitForLoadState('load'), page.click('form.picker button')]);
				assert.match(await page.textContent('#pick-hw-error'), /No hardware called "A toaster"/);
				assert.equal(await page.getAttribute('#pick-hw', 'aria-invalid'), 'true');
				assert.equal(await page.inputValue('#pick-model'), 'Qwen2.5-7B-Instruct');
				await page.screenshot({ path: join(SHOTS, `model_hw_picker_error_${width}.png`), fullPage: true });
			} finally {
				await context.close();
			}
		}
	});

	test('with JavaScript: the type-ahead of each field fills in its slug', async () => {
		for (const [width, scheme] of [[390, 'dark'], [1280, 'light']]) {
			const { context, page, problems } = await open('/', width, scheme);
			try {
				await page.locator('#pick-model').pressSequentially('qwen2.5-7b');
				const option = page.locator('#pick-model-suggestions [role="option"]').first();
				await option.waitFor();
				const field = await page.locator('#pick-model').boundingBox();
				const list = await page.locator('#pick-model-suggestions').boundingBox();
				assert.ok(Math.abs(list.x - field.x) <= 2 && list.y >= field.y + field.height - 1, 'the list opens under its field');
				assert.doesNotMatch(await page.locator('#pick-model-suggestions').textContent(), /Hardware|Run/);
				await page.screenshot({ path: join(SHOTS, `model_hw_picker_typeahead_${width}_${scheme}.png`) });
				await page.keyboard.press('ArrowDown');
				await page.keyboard.press('Enter');
				assert.equal(await page.inputValue('#pick-model'), 'qwen2-5-7b');
				assert.equal(page.url(), server.url + '/', 'choosing fills the field, it does not leave the page');
				await page.locator('#pick-hw').pressSequentially('RTX 5090');
				await page.locator('#pick-hw-suggestions [role="option"]').first().click();
				assert.equal(await page.inputValue('#pick-hw'), 'rtx-5090');
				await Promise.all([page.waitForURL(`**${MEASURED}`), page.click('form.picker button')]);
				assert.deepEqual(problems, []);
			} finally {
				await context.close();
			}
		}
	});
});

/* Issue 38: what each of the pages below holds at both widths. */
function issue38() {
	const wide = [];
	for (const t of document.querySelectorAll('main table')) {
		const holder = t.closest('.table-wrap') || t.parentElement;
		if (t.getBoundingClientRect().width > holder.clientWidth + 1 || holder.scrollWidth > holder.clientWidth + 1)
			wide.push(`${t.querySelector('caption')?.textContent?.slice(0, 60)}: ${Math.round(t.getBoundingClientRect().width)} in ${holder.clientWidth}`);
	}
	// A sentence that ends on nothing: "..., or ." or a dangling comma.
	const empty = [...document.querySelectorAll('main p, main li, main figcaption')]
		.map((p) => p.textContent.replace(/\s+/g, ' ').trim())
		.filter((t) => /(,|\bor|\band|:)\s*\.$/.test(t) || /\(\s*\)/.test(t) || /,\s*$/.test(t));
	const table = document.querySelector('main table.mhw');
	const rows = table ? [...table.querySelectorAll('tbody tr:not(.await-head)')].map((tr) => ({
		backend: tr.querySelector('td.backend strong')?.textContent,
		file: tr.querySelector('td.backend .weights-name code')?.textContent || null,
		middle: tr.querySelector('.spread')?.textContent.replace(/\s+/g, ' ').trim(),
	})) : [];
	return {
		scroll: document.documentElement.scrollWidth, inner: innerWidth, wide, empty, rows,
		backendTables: document.querySelectorAll('main table.mhw').length,
		heading: document.querySelector('#backends-title')?.textContent,
	};
}

describe('issue 38: one table per model and machine, nothing wider than its place', () => {
	for (const width of [390, 1280]) {
		test(`${width} px: the backends table, and no page of these wider than its box or with an empty sentence`, async () => {
			const pages = [MEASURED, '/m/qwen2-5-7b/hw/rtx-4090', EMPTY, '/m/qwen2-5-7b', '/hw/rtx-4090',
				'/cheatsheet', '/m/llama-3-2-3b', '/hw/rtx-3090'];
			for (const path of pages) {
				for (const scheme of ['light', 'dark']) {
					const { context, page, res, problems } = await open(path, width, scheme);
					try {
						assert.equal(res.status(), 200, path);
						const r = await page.evaluate(issue38);
						assert.ok(r.scroll <= r.inner, `${path}: the page is ${r.scroll}px wide in ${r.inner}`);
						assert.deepEqual(r.wide, [], `${path}: tables wider than their container`);
						assert.deepEqual(r.empty, [], `${path}: sentences that end on nothing`);
						assert.deepEqual(problems, []);
						if (path.includes('/hw/rtx-') && path.startsWith('/m/qwen2-5-7b/')) {
							// llama.cpp and ollama side by side in one table, each
							// from its own weights file (demo: ollama loads its own).
							assert.equal(r.backendTables, 1, `${path}: one backends table`);
							assert.equal(r.heading, 'Backends on this machine, fastest first');
							const lc = r.rows.find((x) => x.backend === 'llama.cpp');
							const ol = r.rows.find((x) => x.backend === 'ollama');
							assert.ok(lc && ol, `${path}: llama.cpp and ollama rows: ${JSON.stringify(r.rows)}`);
							assert.ok(lc.file && ol.file && lc.file !== ol.file, `${path}: the two rows name different weights files`);
							for (const x of r.rows)
								assert.match(x.middle, /^middle half (–|[\d,.]+–[\d,.]+)$/, `${path}: ${x.backend}'s middle half`);
						}
						if (scheme === 'light')
							await page.screenshot({ path: join(SHOTS, `issue38${path.replace(/[^a-z0-9]+/gi, '_')}_${width}.png`), fullPage: true });
					} finally {
						await context.close();
					}
				}
			}
		});
	}
});
