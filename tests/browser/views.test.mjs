// What a visitor sees of the items of issue 38 that were held only over HTTP (items 2, 3, 12, 14, 15, 16 and 17), at 390 and 1280 px in both colour schemes: the model page's best figure per hardware with what ran, whole, under each bar and its weights files named before their hash; the hardware page's memory and bandwidth first and its models' backends fastest first; the cheatsheet's one line per backend; a model's link-preview card counting kinds of hardware with its bars under their texts; known but unmeasured /m/ and /hw/ pages with the command and the /wanted count; search ranked by the typical figure with its submitters; /wanted with names and no row that ends in a 404; /methodology's contents reaching predictions and version changes.  Screenshots under build/browser-shots/.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch, luminance, watch } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');
const HEIGHT = 844;
const MODEL = '/m/qwen2-5-7b';          // demo data: four weights files, the fastest backend differs by hardware
const HW = '/hw/rtx-5090';              // demo data: every model, several backends each
const UNMEASURED_M = 'llama-3-2-3b';    // the reference data knows them; the demo measures neither
const UNMEASURED_HW = 'rtx-3090';

let server;
let browser;

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

before(async () => {
	server = await startServer();
	browser = await launch();
	mkdirSync(SHOTS, { recursive: true });
	// One ask for the unmeasured pair, and one for a hardware nobody knows
	// (it must never reach /wanted); asks are counted once per address, so
	// asking again while waiting counts nothing twice.
	for (let i = 0; i < 100; i++) {
		for (const q of [`model=${UNMEASURED_M}&hw=${UNMEASURED_HW}`, 'model=qwen2-5-7b&hw=visit-spam-example-com'])
			assert.equal((await fetch(`${server.url}/fit?${q}`)).status, 200);
		const rows = (await (await fetch(`${server.url}/wanted.json`)).json()).rows;
		if (rows.some((r) => r.model_slug === UNMEASURED_M && r.hw_slug === UNMEASURED_HW)) return;
		await sleep(100);
	}
	assert.fail('the ask never reached /wanted');
});

after(async () => {
	await browser?.close();
	await server?.stop();
});

async function open(path, width, scheme) {
	const context = await browser.newContext({ viewport: { width, height: HEIGHT }, colorScheme: scheme });
	const page = await context.newPage();
	const problems = watch(page);
	const res = await page.goto(server.url + path, { waitUntil: 'load' });
	return { context, page, status: res.status(), problems };
}

const shot = (page, name, width, scheme) =>
	page.screenshot({ path: join(SHOTS, `views_${name}_${width}_${scheme}.png`), fullPage: true });

for (const [width, scheme] of [[390, 'light'], [1280, 'light'], [390, 'dark'], [1280, 'dark']]) {
	describe(`${width} px, ${scheme}`, () => {
		test('item 2: the model page charts the best per hardware with what ran, whole and inside the drawing', async () => {
			const { context, page, status, problems } = await open(MODEL, width, scheme);
			try {
				assert.equal(status, 200);
				const best = (await (await fetch(`${server.url}${MODEL}.json`)).json()).best_per_hw;
				const r = await page.evaluate(() => {
					const svg = document.querySelector('section.best-per-hw figure svg');
					const box = svg.getBoundingClientRect();
					const rows = [...svg.querySelectorAll('g')].map((g) => {
						const [name, sub] = [g.querySelector('text:not(.sub)'), g.querySelector('text.sub')];
						const bar = g.querySelector('rect').getBoundingClientRect();
						const n = name.getBoundingClientRect(), s = sub?.getBoundingClientRect();
						return {
							name: name.textContent, sub: sub?.textContent ?? null,
							inside: [n, s].every((b) => b && b.left >= box.left - 0.5 && b.right <= box.right + 0.5 && b.width > 0),
							under: s ? s.top >= n.bottom - 2 : false,
							px: sub ? parseFloat(getComputedStyle(sub).fontSize) * box.width / svg.viewBox.baseVal.width : 0,
							beside: bar.left >= Math.max(n.right, s?.right ?? 0),
						};
					});
					return { rows, svgRight: box.right, vw: document.documentElement.clientWidth };
				});
				assert.equal(r.rows.length, best.length, 'a bar per hardware');
				assert.ok(r.svgRight <= r.vw, `the chart ends at ${r.svgRight}px in ${r.vw}`);
				r.rows.forEach((row, i) => {
					const b = best[i];
					const what = `${row.name} / ${row.sub}`;
					assert.ok(b.name.endsWith(row.name), `${what}: not the short name of ${b.name}`);
					assert.ok(row.sub && row.sub.startsWith(`${b.backend} ${b.quantization}`), `${what}: not ${b.backend} ${b.quantization}`);
					assert.ok(!row.name.includes('…') && !row.sub.includes('…'), `${what}: cut`);
					assert.ok(row.inside, `${what}: a label leaves the drawing`);
					assert.ok(row.under, `${what}: what ran is not under the hardware's name`);
					assert.ok(row.beside, `${what}: the bar starts inside the label`);
					assert.ok(row.px >= 10.5, `${what}: what ran is drawn at ${row.px.toFixed(1)}px`);
				});
				// Backends differ by hardware: the chart is across files, not one digest.
				assert.ok(new Set(best.map((b) => b.backend)).size >= 2);
				await shot(page, 'model', width, scheme);
				assert.deepEqual(problems, []);
			} finally {
				await context.close();
			}
		});

		test('item 2: the measured table comes first, then the weights files, each named before its hash', async () => {
			const { context, page } = await open(MODEL, width, scheme);
			try {
				const r = await page.evaluate(() => {
					const seen = (el) => el.innerText.replace(/\s+/g, ' ').trim();
					const top = (e) => e.getBoundingClientRect().top + scrollY;
					const h2 = [...document.querySelectorAll('main h2')];
					const files = h2.find((h) => h.textContent.trim() === 'Weights files');
					const items = [...files.nextElementSibling.querySelectorAll(':scope > li')].map((li) => {
						const text = seen(li), hash = li.querySelector('code.digest');
						return { text, hash: hash.textContent, at: text.indexOf(hash.textContent), visible: hash.checkVisibility() };
					});
					const fold = document.querySelector('details.predicted-fold');
					return {
						bestTable: top(document.querySelector('table.best-hw')), files: top(files),
						runs: top([...document.querySelectorAll('main h3')].find((h) => /Every counted run/.test(h.textContent))),
						fold: fold ? { top: top(fold), open: fold.open, summary: seen(fold.querySelector('summary')) } : null,
						items,
					};
				});
				assert.ok(r.bestTable < r.files && r.files < r.runs, JSON.stringify(r));
				if (r.fold) {
					assert.ok(r.fold.top > r.bestTable && !r.fold.open, 'the predictions fold after the measured table, closed');
					assert.match(r.fold.summary, /^Not measured yet/);
				}
				assert.ok(r.items.length >= 3, 'the demo model has several weights files');
				for (const it of r.items) {
					assert.match(it.text, /^\S+ \(\w+\), run with .+? [0-9a-f]{12}\b/, it.text);
					assert.ok(it.at > 0 && it.visible, `${it.text}: the hash is not second`);
				}
				const names = r.items.map((it) => it.text.slice(0, it.at).trim());
				assert.equal(new Set(names).size, names.length, `two files differ only by hash: ${names.join(' | ')}`);
			} finally {
				await context.close();
			}
		});

		test('item 3: the hardware page says memory and bandwidth first and groups by model, best backend first', async () => {
			const { context, page, status, problems } = await open(HW, width, scheme);
			try {
				assert.equal(status, 200);
				const r = await page.evaluate(() => {
					const m = document.querySelector('main p.machine'), t = document.querySelector('table.hw-groups');
					const groups = [];
					for (const tr of t.querySelectorAll('tbody tr')) {
						if (tr.classList.contains('group-head'))
							groups.push({ model: tr.querySelector('a').textContent, figs: [], waiting: [], visible: tr.checkVisibility() });
						else if (tr.querySelector('td.fig') && tr.querySelector('td.fig').checkVisibility())
							groups.at(-1)[/awaiting confirmation/.test(tr.innerText) ? 'waiting' : 'figs']
								.push(Number(tr.querySelector('td.fig').dataset.value));
					}
					return { machine: m.innerText, mBottom: m.getBoundingClientRect().bottom, table: t.getBoundingClientRect().top, groups };
				});
				assert.match(r.machine, /32 GB of memory/);
				assert.match(r.machine, /1,?792 GB\/s/);
				assert.ok(r.mBottom <= HEIGHT && r.mBottom <= r.table, `memory and bandwidth end at ${r.mBottom}px, the table starts at ${r.table}px`);
				assert.ok(r.groups.length >= 3 && r.groups.every((g) => g.visible && g.figs.length + g.waiting.length), JSON.stringify(r.groups));
				assert.ok(r.groups.some((g) => g.figs.length >= 2), 'a model with several backends');
				// Confirmed backends fastest first, then those awaiting confirmation.
				for (const g of r.groups)
					for (const figs of [g.figs, g.waiting])
						assert.deepEqual(figs, [...figs].sort((a, b) => b - a), `${g.model}: backends not fastest first`);
				const firsts = r.groups.filter((g) => g.figs.length).map((g) => g.figs[0]);
				assert.deepEqual(firsts, [...firsts].sort((a, b) => b - a), 'models not by their best backend');
				await shot(page, 'hw', width, scheme);
				assert.deepEqual(problems, []);
			} finally {
				await context.close();
			}
		});

		test('item 3: the cheatsheet gives each backend its own line', async () => {
			const { context, page, status } = await open('/cheatsheet', width, scheme);
			try {
				assert.equal(status, 200);
				const bad = await page.evaluate(() => {
					const out = [];
					const cells = [...document.querySelectorAll('ul.cell-lines')];
					for (const ul of cells) {
						const lis = [...ul.querySelectorAll(':scope > li')];
						lis.forEach((li, i) => {
							// The entry (backend, typical figure, weights) on one line of
							// its own; its "fastest" and best run may follow on the next.
							const t = li.innerText.replace(/\s+/g, ' ').trim();
							const a = li.querySelector('a').getBoundingClientRect(), q = li.querySelector('.quant')?.getBoundingClientRect();
							if (a.height > 30) out.push(`${t}: its backend and figure break across lines`);
							if (q && (q.top >= a.bottom || q.bottom <= a.top)) out.push(`${t}: its weights are not on its line`);
							if (Math.abs(li.getBoundingClientRect().left - ul.getBoundingClientRect().left) > 1) out.push(`${t}: does not start its line`);
							if (i && li.getBoundingClientRect().top < lis[i - 1].getBoundingClientRect().bottom - 1) out.push(`${t}: on the line of the one before`);
							if (!/^[\w.-]+ [\d,.]+\b/.test(t)) out.push(`${t}: does not open with a backend and its figure`);
						});
					}
					return { out, cells: cells.length };
				});
				assert.ok(bad.cells > 10, 'the cheatsheet has cells');
				assert.deepEqual(bad.out, []);
				await page.screenshot({ path: join(SHOTS, `views_cheatsheet_${width}_${scheme}.png`) });
			} finally {
				await context.close();
			}
		});

		test('item 12: a model\'s link-preview card counts kinds of hardware, its bars strong and under their texts', async () => {
			const { context, page, status } = await open(`/card/m/qwen2-5-7b.svg`, width, scheme);
			try {
				assert.equal(status, 200);
				const kinds = (await (await fetch(`${server.url}${MODEL}.json`)).json()).best_per_hw.length;
				const r = await page.evaluate(() => {
					const svg = document.documentElement;
					const texts = [...svg.querySelectorAll('text')];
					const bg = svg.querySelector('rect').getAttribute('fill');
					const bars = [...svg.querySelectorAll('rect')].filter((e) => Number(e.getAttribute('height')) < 40 && Number(e.getAttribute('y')) > 300);
					const over = [];
					for (const bar of bars) {
						const b = bar.getBBox();
						for (const t of texts) {
							const tb = t.getBBox();
							if (tb.x < b.x + b.width && tb.x + tb.width > b.x && tb.y < b.y + b.height - 0.5 && tb.y + tb.height > b.y + 0.5)
								over.push(`${t.textContent} over a bar`);
						}
					}
					return { text: texts.map((t) => t.textContent).join(' | '), bg, fills: bars.map((b) => b.getAttribute('fill')), over };
				});
				assert.match(r.text, new RegExp(`\\d+ counted runs? on ${kinds} kinds? of hardware`), r.text);
				assert.doesNotMatch(r.text, /machine/);
				assert.ok(r.fills.length >= 2, 'the card has bars');
				const hex = (c) => `rgb(${parseInt(c.slice(1, 3), 16)}, ${parseInt(c.slice(3, 5), 16)}, ${parseInt(c.slice(5, 7), 16)})`;
				const lb = luminance(hex(r.bg));
				for (const f of r.fills) {
					const lf = luminance(hex(f));
					const ratio = (Math.max(lb, lf) + 0.05) / (Math.min(lb, lf) + 0.05);
					assert.ok(ratio >= 3, `bar ${f} on ${r.bg}: contrast ${ratio.toFixed(2)}, pale`);
				}
				assert.deepEqual(r.over, []);
				await page.screenshot({ path: join(SHOTS, `views_card_${width}_${scheme}.png`) });
			} finally {
				await context.close();
			}
		});

		test('item 14: a known but unmeasured model or hardware is a page with the command and its /wanted count', async () => {
			for (const path of [`/m/${UNMEASURED_M}`, `/hw/${UNMEASURED_HW}`]) {
				const { context, page, status, problems } = await open(path, width, scheme);
				try {
					assert.equal(status, 200, path);
					const j = await (await fetch(`${server.url}${path}.json`)).json();
					const r = await page.evaluate(() => {
						const s = document.querySelector('main section.unmeasured');
						const code = [...s.querySelectorAll('code')].find((c) => c.textContent.startsWith('llm-speed bench'));
						const wanted = s.querySelector('a[href="/wanted"]');
						return {
							text: s.innerText.replace(/\s+/g, ' '), code: code?.textContent, codeVisible: code?.checkVisibility(),
							codeBottom: code?.getBoundingClientRect().bottom + scrollY, wanted: wanted?.checkVisibility(),
						};
					});
					assert.equal(r.code, j.unmeasured.command, path);
					assert.ok(r.codeVisible && r.wanted, `${path}: the command or the /wanted link is not shown`);
					assert.ok(r.codeBottom <= HEIGHT * 1.5, `${path}: the command ends at ${r.codeBottom}px`);
					assert.match(r.text, /counts 1 ask for it/, path);
					assert.deepEqual(problems, []);
					await shot(page, path.startsWith('/m/') ? 'unmeasured_model' : 'unmeasured_hw', width, scheme);
				} finally {
					await context.close();
				}
			}
		});

		test('item 15: search ranks by the typical figure and shows its submitters', async () => {
			const { context, page, status } = await open('/search?q=qwen', width, scheme);
			try {
				assert.equal(status, 200);
				const r = await page.evaluate(() => {
					const t = document.querySelector('main table');
					const heads = [...t.querySelectorAll('thead th')].map((th) => th.textContent.trim());
					const fig = heads.indexOf('Typical decode tok/s'), keys = heads.indexOf('Submitters');
					return {
						heads,
						rows: [...t.querySelectorAll('tbody tr')].map((tr) => {
							const td = tr.querySelectorAll('td');
							return { name: td[0].innerText, fig: td[fig]?.innerText, keys: td[keys]?.innerText,
								seen: td[fig]?.checkVisibility() && td[keys]?.checkVisibility() };
						}),
					};
				});
				assert.ok(!r.heads.includes('Best decode tok/s'), r.heads.join(' | '));
				const models = r.rows.filter((x) => x.fig && x.fig.trim() !== '');
				assert.ok(models.length >= 3, JSON.stringify(r.rows));
				assert.ok(models.every((x) => x.seen && /^\d+$/.test(x.keys.trim())), JSON.stringify(models));
				const figs = models.map((x) => Number(x.fig.replace(/[^\d.]/g, '')));
				assert.deepEqual(figs, [...figs].sort((a, b) => b - a), 'not ranked by the typical figure');
				const api = (await (await fetch(`${server.url}/search.json?q=qwen`)).json()).results
					.filter((x) => x.median_decode_tok_s != null).map((x) => x.median_decode_tok_s.toFixed(1));
				assert.deepEqual(figs.map((f) => f.toFixed(1)), api, 'the figures shown are not the typical ones');
				await shot(page, 'search', width, scheme);
			} finally {
				await context.close();
			}
		});

		test('item 16: /wanted names known models and hardware, and no row leads to a 404', async () => {
			const { context, page, status } = await open('/wanted', width, scheme);
			try {
				assert.equal(status, 200);
				const r = await page.evaluate(() => {
					const main = document.querySelector('main');
					return {
						text: main.innerText,
						hrefs: [...main.querySelectorAll('table a, ul a, ol a')].filter((a) => a.checkVisibility())
							.map((a) => a.getAttribute('href')).filter((h) => h.startsWith('/m/') || h.startsWith('/hw/')),
						scroll: document.documentElement.scrollWidth, inner: innerWidth,
					};
				});
				assert.match(r.text, /Llama 3\.2 3B/);
				assert.match(r.text, /NVIDIA GeForce RTX 3090/);
				for (const raw of ['visit-spam', UNMEASURED_M, UNMEASURED_HW])
					assert.ok(!r.text.includes(raw), `/wanted shows "${raw}"`);
				assert.ok(r.hrefs.length >= 1, 'no row links to its page');
				for (const h of r.hrefs)
					assert.equal((await fetch(server.url + h)).status, 200, h);
				assert.ok(r.scroll <= r.inner, `/wanted is ${r.scroll}px wide in ${r.inner}`);
				await shot(page, 'wanted', width, scheme);
			} finally {
				await context.close();
			}
		});

		test('item 17: /methodology\'s contents reach the predictions and the version changes', async () => {
			const { context, page, status } = await open('/methodology', width, scheme);
			try {
				assert.equal(status, 200);
				const toc = await page.$$eval('nav.toc a', (as) => as.filter((a) => a.checkVisibility()).map((a) => a.getAttribute('href')));
				const ids = await page.$$eval('main h2[id]', (hs) => hs.map((h) => '#' + h.id));
				assert.deepEqual(ids.filter((id) => !toc.includes(id)), [], 'sections missing from the contents');
				for (const id of ['#predictions', '#changes']) {
					assert.ok(toc.includes(id), `no ${id} in the contents`);
					await page.click(`nav.toc a[href="${id}"]`);
					const top = await page.evaluate((sel) => document.querySelector(sel).getBoundingClientRect().top, id);
					assert.ok(top >= -1 && top < HEIGHT / 2, `${id} is at ${top}px after following its link`);
				}
				await page.screenshot({ path: join(SHOTS, `views_methodology_${width}_${scheme}.png`) });
			} finally {
				await context.close();
			}
		});
	});
}
