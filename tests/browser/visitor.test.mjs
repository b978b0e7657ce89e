// What a visitor meets (issue 28): the phone's nav, the keyboard's focus, chart text, disputes at the top of a run, tables in their containers; screenshots kept under build/browser-shots/.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { launch } from './browser.mjs';
import { MODERATOR_TOKEN, ROOT, startServer } from './server.mjs';

const BIN = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
const SHOTS = join(process.env.BUILD || join(ROOT, 'build'), 'browser-shots');
const TABS = 45;   // Tab presses per page: past the header, the first table and its links

let server;
let browser;
let site;   // { pages, charts, disputed, dismissed, compare, model }

/* POSTs body as JSON (or a JWS) to path; resolves to the parsed answer,
 * failing unless the status is want. */
async function post(path, body, want, headers = {}) {
	const jws = typeof body === 'string';
	const res = await fetch(server.url + path, {
		method: 'POST', body: jws ? body : JSON.stringify(body),
		headers: { 'Content-Type': jws ? 'application/jose' : 'application/json', ...headers },
	});
	const text = await res.text();
	assert.equal(res.status, want, `${path}: ${text}`);
	return JSON.parse(text);
}

/* Stores a signed sample run with all five workloads; resolves to its id. */
async function sampleRun(model, hardware, decode) {
	const jws = execFileSync(BIN, ['sample-run', '--all', '--model', model, '--hardware', hardware,
		'--decode', String(decode)]).toString();
	return (await post('/api/v1/runs', jws, 201)).id;
}

/* The runs, threads and rulings the checks need, over the demo data: one
 * model on three machines with long names (charts, compare, the model's
 * bars), a run with a three-post open thread, a flagged run whose dispute
 * a moderator dismissed. */
async function seed() {
	const model = 'Visitor-Check-Coder-30B-A3B-Instruct';
	const ids = [
		await sampleRun(model, 'AMD Ryzen AI Max+ 395 (Radeon 8060S)', 48.5),
		await sampleRun(model, 'NVIDIA GeForce RTX 4090 Laptop GPU', 1480.2),
		await sampleRun(model, 'Apple M3 Ultra', 96.1),
	];
	for (let i = 1; i <= 3; i++)
		await post(`/api/v1/runs/${ids[0]}/disputes`, { author: `reader ${i}`, body: `Post ${i}: compare with ${ids[1]}.` }, 201);
	const flagged = (await (await fetch(server.url + '/outliers.json')).json()).rows[0].id;
	await post(`/api/v1/runs/${flagged}/disputes`, { body: 'Too fast for this card?' }, 201);
	await post(`/api/v1/runs/${flagged}/disputes/resolve`, { resolution: 'dismissed', note: 'The log checks out.' }, 200,
		{ Authorization: `Bearer ${MODERATOR_TOKEN}` });
	const home = await (await fetch(server.url + '/')).text();
	const first = (prefix) => home.match(new RegExp(`href="(/${prefix}/[^"?#]+)`))[1];
	const slug = '/m/visitor-check-coder-30b-a3b-instruct';
	const compare = `/compare?r=${ids.join(',')}`;
	return {
		disputed: `/r/${ids[0]}`, dismissed: `/r/${flagged}`, compare, model: slug,
		charts: [`/r/${ids[0]}`, `/r/${flagged}`, slug, compare, `/compare?r=${ids[1]},r_fpsca03u2o_`],
		pages: ['/', `/r/${ids[0]}`, `/r/${flagged}`, first('m'), first('hw'), slug, '/models', '/hardware',
			'/outliers', '/disputes', '/disputes?state=dismissed', '/glossary', '/methodology', '/privacy',
			'/cheatsheet', '/cheatsheet?memory=24', '/search?q=qwen', compare, `/compare?r=${ids[0]}&with=hw`, '/log', '/api',
			'/fit?hw=m3-ultra', '/explain/quantization', '/no-such-page'],
	};
}

before(async () => {
	server = await startServer();
	browser = await launch();
	site = await seed();
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

const shot = (page, name) => page.screenshot({ path: join(SHOTS, `visitor_${name}.png`) });
/* A screenshot's name for path, the same from run to run (run ids out). */
const shotName = (path) => path.replace(/r_[a-z0-9_-]{11}/g, 'run').replace(/[^a-z0-9]+/gi, '_').slice(0, 60);

describe('the nav at 390 px', () => {
	/* Every link of the site nav: its href, whether it shows, and whether it
	 * sits in the "More" menu (a <details>) whose summary shows. */
	const links = (page) => page.evaluate(() => [...document.querySelectorAll('header nav a[href]')].map((a) => {
		const shown = (e) => { const r = e.getBoundingClientRect(); return e.checkVisibility() && r.width > 0 && r.height > 0 && r.right <= innerWidth + 1 && r.left >= -1; };
		const menu = a.closest('details');
		return { href: a.getAttribute('href'), shown: shown(a), inMenu: !!menu && shown(menu.querySelector('summary')) };
	}));

	test('every page is shown or one tap away, and the same pages as on a desktop', async () => {
		for (const scheme of ['light', 'dark']) {
			const { context, page } = await open('/', 390, scheme);
			try {
				// Each page the nav names (a page may be named twice: once in
				// the desktop's row, once in the menu) is shown, or in the
				// menu behind its one shown control.
				const phone = await links(page);
				const hrefs = [...new Set(phone.map((l) => l.href))];
				const lost = hrefs.filter((h) => !phone.some((l) => l.href === h && (l.shown || l.inMenu)));
				assert.deepEqual(lost, [], 'nav links neither shown nor in a shown menu');
				// Opened, the menu shows each of them, inside the window.
				await page.click('header nav details > summary');
				const opened = await links(page);
				const hidden = hrefs.filter((h) => !opened.some((l) => l.href === h && l.shown));
				assert.deepEqual(hidden, [], 'nav links not shown once the menu is open');
				await shot(page, `nav_menu_390_${scheme}`);
				const reach = new Set(opened.filter((l) => l.shown).map((l) => l.href));
				const desk = await open('/', 1280, scheme);
				try {
					const wide = await links(desk.page);
					for (const l of wide)
						assert.ok(l.shown || l.inMenu, `${l.href} unreachable at 1280 px`);
					assert.deepEqual([...reach].sort(), [...new Set(wide.map((l) => l.href))].sort());
					assert.ok(reach.has('/explain/quantization'), 'the quantization explainer is not in the nav');
				} finally {
					await desk.context.close();
				}
			} finally {
				await context.close();
			}
		}
	});

	test('the home page shows its tools after the board, and every page links them in its header', async () => {
		// Issue 38: the board's first rows come first; the tool cards
		// follow it, and the header's menu reaches each tool from anywhere.
		const { context, page } = await open('/', 390);
		try {
			const got = await page.evaluate(() => {
				const board = document.querySelector('table.combos');
				const as = [...document.querySelectorAll('main nav.tools a')];
				return { hrefs: as.map((a) => a.getAttribute('href')),
					after: as.every((a) => board.compareDocumentPosition(a) & Node.DOCUMENT_POSITION_FOLLOWING),
					header: [...document.querySelectorAll('header.site a')].map((a) => a.getAttribute('href')) };
			});
			assert.deepEqual(got.hrefs, ['/cheatsheet', '/fit', '/explain/quantization']);
			assert.ok(got.after, 'a tool card comes before the board');
			for (const h of got.hrefs)
				assert.ok(got.header.includes(h), `the header does not link ${h}`);
		} finally {
			await context.close();
		}
	});
});

/* Where the focus is, and whether someone can see it there: on screen, not
 * covered or clipped away (the point at its middle is it or inside it), and
 * drawn with an outline or a shadow. */
function focusState() {
	const e = document.activeElement;
	if (!e || e === document.body) return { done: true };
	const name = `${e.tagName.toLowerCase()}${e.id ? '#' + e.id : ''}${e.getAttribute('href') ? ` href=${e.getAttribute('href')}` : ''} "${(e.textContent || '').trim().slice(0, 30)}"`;
	const cs = getComputedStyle(e);
	const rects = [...e.getClientRects()].filter((r) => r.width >= 1 && r.height >= 1);
	const hit = rects.some((r) => {
		const x = Math.min(Math.max(r.left + r.width / 2, 0), innerWidth - 1);
		const y = Math.min(Math.max(r.top + r.height / 2, 0), innerHeight - 1);
		const at = document.elementFromPoint(x, y);
		return at && (at === e || e.contains(at));
	});
	const ring = (cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0) || cs.boxShadow !== 'none';
	return { name, seen: rects.length > 0 && hit, ring };
}

describe('the keyboard', () => {
	for (const width of [390, 1280]) {
		test(`${width} px: no focusable element is invisible when it has the focus`, async (t) => {
			for (const path of site.pages) {
				await t.test(path, async () => {
					const { context, page } = await open(path, width);
					try {
						const unseen = [];
						for (let i = 0; i < TABS; i++) {
							await page.keyboard.press('Tab');
							const f = await page.evaluate(focusState);
							if (f.done) break;
							if (!f.seen || !f.ring) unseen.push(`Tab ${i + 1}: ${f.name}${f.seen ? ' (no focus ring)' : ''}`);
						}
						assert.deepEqual(unseen, [], `${path}: focus not visible`);
					} finally {
						await context.close();
					}
				});
			}
		});
	}
});

/* The text of every drawing on the page that leaves its drawing's box or
 * runs into another text (boxes as drawn, 1 px of slack). */
function chartText() {
	const bad = [];
	for (const svg of document.querySelectorAll('main svg')) {
		const box = svg.getBoundingClientRect();
		if (!box.width) continue;
		const name = svg.getAttribute('aria-label')?.slice(0, 40);
		const texts = [...svg.querySelectorAll('text')].filter((t) => t.textContent.trim())
			.map((t) => ({ t: t.textContent.trim(), r: t.getBoundingClientRect() }));
		for (const { t, r } of texts)
			if (r.left < box.left - 1 || r.right > box.right + 1 || r.top < box.top - 1 || r.bottom > box.bottom + 1)
				bad.push(`${name}: "${t}" leaves the drawing (${Math.round(r.left - box.left)}..${Math.round(r.right - box.left)} of ${Math.round(box.width)})`);
		for (let i = 0; i < texts.length; i++)
			for (let j = i + 1; j < texts.length; j++) {
				const a = texts[i].r, b = texts[j].r;
				const w = Math.min(a.right, b.right) - Math.max(a.left, b.left);
				const h = Math.min(a.bottom, b.bottom) - Math.max(a.top, b.top);
				if (w > 1 && h > 1) bad.push(`${name}: "${texts[i].t}" runs into "${texts[j].t}"`);
			}
	}
	return bad;
}

describe('charts', () => {
	for (const [width, scheme] of [[390, 'light'], [390, 'dark'], [1280, 'light'], [1280, 'dark']]) {
		test(`${width} px, ${scheme}: no chart text overlaps another or leaves its drawing`, async (t) => {
			for (const [i, path] of site.charts.entries()) {
				await t.test(path, async () => {
					const { context, page } = await open(path, width, scheme);
					try {
						const n = await page.$$eval('main svg', (s) => s.length);
						assert.ok(n > 0, `${path}: no drawing`);
						assert.deepEqual(await page.evaluate(chartText), []);
						await page.screenshot({ path: join(SHOTS, `visitor_charts_${i}_${shotName(path)}_${width}_${scheme}.png`), fullPage: true });
					} finally {
						await context.close();
					}
				});
			}
		});
	}

	test('the rank strip has a scale and a legend, and its bars show on a dark page', async () => {
		const { context, page } = await open(site.disputed, 390, 'dark');
		try {
			const r = await page.evaluate(() => {
				const svg = document.querySelector('svg.rank-strip');
				const fill = (sel) => getComputedStyle(svg.querySelector(sel)).fill;
				return { ticks: svg.querySelectorAll('.axis text').length, legend: document.querySelector('.rank-legend')?.textContent || '',
					all: fill('rect.all'), cluster: fill('rect.cluster'), bg: getComputedStyle(document.body).backgroundColor,
					text: document.querySelector('.rank p').textContent };
			});
			assert.ok(r.ticks >= 2, `${r.ticks} labelled rates`);
			for (const words of ['this machine and backend', 'any hardware', 'this run'])
				assert.ok(r.legend.includes(words), r.legend);
			const { luminance } = await import('./browser.mjs');
			for (const c of [r.all, r.cluster]) {
				const [hi, lo] = [luminance(c), luminance(r.bg)].sort((a, b) => b - a);
				assert.ok((hi + 0.05) / (lo + 0.05) >= 3, `bars ${c} on ${r.bg}`);
			}
			assert.doesNotMatch(r.text, /than 0% of/);
		} finally {
			await context.close();
		}
	});
});

describe('disputes', () => {
	for (const width of [390, 1280]) {
		test(`${width} px: a disputed run says so in its first screen`, async () => {
			const { context, page } = await open(site.disputed, width);
			try {
				const s = await page.evaluate(() => {
					const e = document.querySelector('#dispute-summary');
					return e && { bottom: e.getBoundingClientRect().bottom, text: e.textContent, href: e.querySelector('a')?.getAttribute('href') };
				});
				assert.ok(s, 'no dispute summary');
				assert.ok(s.bottom <= 844, `the summary ends at ${s.bottom}px, below the first screen`);
				assert.match(s.text, /^Disputed: 3 posts, open/);
				assert.equal(s.href, '#dispute');
				assert.equal(await page.locator('nav.toc a[href="#dispute"]').count(), 1, 'the contents do not reach the thread');
				await shot(page, `disputed_run_${width}`);
				const flagged = await open(site.dismissed, width);
				try {
					const box = await flagged.page.locator('p.flag').first().textContent();
					assert.match(box, /moderator dismissed its dispute/);
				} finally {
					await flagged.context.close();
				}
			} finally {
				await context.close();
			}
		});
	}
});

/* Tables wider than what holds them; with cards, also any table that is
 * not laid out as cards. */
function tables(cards) {
	const bad = [];
	for (const t of document.querySelectorAll('main table')) {
		const holder = t.closest('.table-wrap') || t.parentElement;
		const name = t.querySelector('caption')?.textContent.slice(0, 40) || t.querySelector('th')?.textContent.slice(0, 40);
		if (t.getBoundingClientRect().width > holder.clientWidth + 1 || holder.scrollWidth > holder.clientWidth + 1)
			bad.push(`${name}: ${Math.round(t.getBoundingClientRect().width)}px in ${holder.clientWidth}px`);
		if (cards && getComputedStyle(t).display !== 'block')
			bad.push(`${name}: a table, not cards`);
	}
	return bad;
}

describe('tables', () => {
	test('1280 px: no table is wider than its container', async (t) => {
		for (const path of site.pages) {
			await t.test(path, async () => {
				const { context, page } = await open(path, 1280);
				try {
					assert.deepEqual(await page.evaluate(tables, false), []);
				} finally {
					await context.close();
				}
			});
		}
	});

	test('390 px: a table that compares is cards, with nothing to scroll sideways', async (t) => {
		for (const path of [site.compare, `${site.compare.split(',')[0]}&with=hw`, '/explain/quantization', '/methodology',
			'/privacy', '/disputes', '/disputes?state=dismissed', '/cheatsheet']) {
			await t.test(path, async () => {
				const { context, page } = await open(path, 390);
				try {
					assert.deepEqual(await page.evaluate(tables, true), []);
					await page.screenshot({ path: join(SHOTS, `visitor_cards_${shotName(path)}_390.png`), fullPage: true });
				} finally {
					await context.close();
				}
			});
		}
	});
});

describe('alignment', () => {
	test('the type-ahead opens under its box; filters, their labels and Show share a line', async () => {
		for (const width of [390, 1280]) {
			const { context, page } = await open('/glossary', width);
			try {
				await page.locator('#site-q').pressSequentially('qwen', { delay: 40 });
				await page.locator('#site-q-suggestions [role="option"]').first().waitFor({ state: 'visible', timeout: 10000 });
				const r = await page.evaluate(() => {
					const box = document.querySelector('#site-q').getBoundingClientRect();
					const list = document.querySelector('#site-q-suggestions').getBoundingClientRect();
					return { dx: Math.abs(list.left - box.left), gap: list.top - box.bottom };
				});
				assert.ok(r.dx <= 2 && r.gap >= 0 && r.gap <= 8, `${width} px: the list is ${r.dx}px aside and ${r.gap}px under the box`);
			} finally {
				await context.close();
			}
		}
		const { context, page } = await open('/', 1280);
		try {
			await page.click('details.filter-box > summary');
			const f = await page.evaluate(() => {
				const mid = (e) => { const r = e.getBoundingClientRect(); return (r.top + r.bottom) / 2; };
				const sel = document.querySelector('#f-hw'), label = document.querySelector('label[for="f-hw"]');
				const show = document.querySelector('form.filters button');
				const nav = document.querySelector('header nav').getBoundingClientRect();
				const search = document.querySelector('header .site-search').getBoundingClientRect();
				return { label: Math.abs(mid(label) - mid(sel)), show: Math.abs(show.getBoundingClientRect().height - sel.getBoundingClientRect().height),
					search: search.top < nav.bottom && search.bottom > nav.top };
			});
			assert.ok(f.label <= 3, `the label sits ${f.label}px off its select`);
			assert.ok(f.show <= 2, `Show is ${f.show}px taller or shorter than the selects`);
			assert.ok(f.search, 'the search box is not on the nav\'s row');
		} finally {
			await context.close();
		}
	});

	test('390 px: a run card\'s labels start at the same place in every card', async () => {
		const { context, page } = await open('/', 390);
		try {
			const xs = await page.$$eval('table.runs td[data-label="Backend"]', (tds) => tds.map((t) => Math.round(t.getBoundingClientRect().left)));
			assert.ok(xs.length > 5);
			assert.deepEqual([...new Set(xs)], [xs[0]], `"Backend" starts at ${[...new Set(xs)]}`);
		} finally {
			await context.close();
		}
	});
});
