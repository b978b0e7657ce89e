// The site's pages in a real browser (Debian's Chromium): clean loads, phone width, dark mode, the no-JS dispute form, the badge, the keyboard.
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';

import { launch, luminance, watch } from './browser.mjs';
import { addAccountRun, kindPaths, startServer } from './server.mjs';

const HISTORICAL_RUN = 'r_fpsca03u2o_';   // a demo run imported from history: one workload

let server;
let browser;
let site;   // what the home page links to: { run, model, hw }, and an account

/* The first run linked from the home page whose JSON has all five
 * workloads (long-context-decay is the one only full runs carry), and the
 * first model and hardware pages it links to. */
async function discover(url) {
	const home = await (await fetch(url + '/')).text();
	const links = (prefix) => [...home.matchAll(new RegExp(`href="(/${prefix}/[^"?#]+)`, 'g'))].map((m) => m[1]);
	let run = null;
	for (const path of new Set(links('r'))) {
		const res = await fetch(url + path + '.json');
		if (res.status === 200 && (await res.text()).includes('long-context-decay')) {
			run = path.slice(3);
			break;
		}
	}
	assert.ok(run, 'no run on / has the long-context-decay workload');
	const model = links('m')[0];
	const hw = links('hw')[0];
	assert.ok(model && hw, 'the home page links to no model or no hardware page');
	return { run, model, hw };
}

before(async () => {
	server = await startServer();
	browser = await launch();
	site = await discover(server.url);
	site.account = 'browser-reader';
	await addAccountRun(server, site.account);
});

after(async () => {
	await browser?.close();
	await server?.stop();
});

/* One path per page kind of the daemon's table, filled from site. */
function kinds(query) {
	const seg = (p) => decodeURIComponent(p.replace(/^\/[a-z]+\//, ''));
	return kindPaths({ run: site.run, model: seg(site.model), hw: seg(site.hw),
		account: site.account, 'model-hw': [seg(site.model), seg(site.hw)] }, query);
}

/* Opens path in a fresh page of context and returns { page, res, problems }. */
async function open(context, path) {
	const page = await context.newPage();
	const problems = watch(page);
	const res = await page.goto(server.url + path, { waitUntil: 'load' });
	return { page, res, problems };
}

/* Fails with the problems the browser reported, if any. */
function assertClean(problems, what) {
	assert.deepEqual(problems, [], `${what}: the browser reported problems`);
}

/* The page's stylesheet is in effect: its body rules (no margin, the
 * system font stack, line-height 1.55) replace the browser's defaults
 * (8px margin, a serif font, line-height normal). */
async function assertStyled(page) {
	const s = await page.evaluate(() => {
		const cs = getComputedStyle(document.body);
		return { margin: cs.marginTop, font: cs.fontFamily, lineHeight: cs.lineHeight, fontSize: cs.fontSize,
			sheets: [...document.styleSheets].map((x) => x.href) };
	});
	assert.ok(s.sheets.some((h) => h && h.endsWith('/static/style.css')), `stylesheet not loaded: ${JSON.stringify(s.sheets)}`);
	assert.equal(s.margin, '0px', 'body margin is the browser default: style.css not applied');
	assert.match(s.font, /system-ui/, 'body font is the browser default: style.css not applied');
	assert.equal(parseFloat(s.lineHeight), parseFloat(s.fontSize) * 1.55, 'body line-height not from style.css');
}

/* Every inline SVG drawn on the page has a non-zero box and a non-empty
 * <title>.  Returns how many there are. */
async function assertCharts(page) {
	const svgs = await page.$$eval('svg', (els) => els.map((e) => {
		const r = e.getBoundingClientRect();
		const title = e.querySelector(':scope > title');
		return { w: r.width, h: r.height, title: title ? title.textContent.trim() : '',
			label: e.getAttribute('aria-label') };
	}));
	for (const [i, s] of svgs.entries()) {
		assert.ok(s.title, `svg #${i} (${s.label}) has no <title>`);
		assert.ok(s.w > 0 && s.h > 0, `svg "${s.title}" has an empty box ${s.w}x${s.h}`);
	}
	return svgs.length;
}

describe('every page loads clean: status, no console error or CSP violation, styled, charts drawn', () => {
	let context;
	before(async () => { context = await browser.newContext(); });
	after(async () => { await context.close(); });

	// The charts a page kind must draw at least, and the query a visit needs.
	const MIN_CHARTS = { run: 3, model: 1, compare: 2 };
	const QUERY = () => ({ fit: '?hw=m3-ultra', search: '?q=qwen', hardware: '?sort=runs',
		compare: `?r=${site.run},${HISTORICAL_RUN}` });
	/* Every page kind of the daemon's table, then what no kind covers:
	 * a run imported from history, compare's picker, the 404s. */
	const pages = () => [
		...kinds(QUERY()).map((k) => [k.path, 200, MIN_CHARTS[k.name] || 0]),
		[`/r/${HISTORICAL_RUN}`, 200, 0],
		[`/compare?r=${site.run}&with=model`, 200, 0],
		['/no-such-page', 404, 0],
		['/r/r_doesnotexist', 404, 0],
	];

	test('the watcher sees a CSP violation (so a clean page means something)', async () => {
		const { page, problems } = await open(context, '/privacy');
		const reported = page.waitForEvent('console', {
			predicate: (m) => m.type() === 'error' && /Content Security Policy/.test(m.text()),
			timeout: 10000,
		});
		await page.evaluate(() => {
			const st = document.createElement('style');
			st.textContent = 'body { color: red }';
			document.head.append(st);
		});
		await reported;
		assert.ok(problems.some((p) => /Content Security Policy/.test(p)),
			`an inline <style> was not reported: ${JSON.stringify(problems)}`);
		await page.close();
	});

	test('the pages', async (t) => {
		for (const [path, status, minCharts] of pages()) {
			await t.test(path, async () => {
				const { page, res, problems } = await open(context, path);
				assert.equal(res.status(), status);
				assert.match(res.headers()['content-type'], /^text\/html/);
				assert.ok(res.headers()['content-security-policy'], 'no CSP header');
				await assertStyled(page);
				const n = await assertCharts(page);
				assert.ok(n >= minCharts, `${n} charts, expected at least ${minCharts}`);
				// A missing page's own 404 is the one error Chromium logs that is expected.
				const own = `Failed to load resource: the server responded with a status of ${status}`;
				const unexpected = status === 200 ? problems
					: problems.filter((p) => !p.endsWith(own) && !p.endsWith(`${own} (Not Found)`));
				assertClean(unexpected, path);
				await page.close();
			});
		}
	});
});

describe('phone (390x844): the document never scrolls sideways', () => {
	let context;
	before(async () => {
		context = await browser.newContext({ viewport: { width: 390, height: 844 } });
	});
	after(async () => { await context.close(); });

	const paths = () => [...kinds({ fit: '?hw=m3-ultra', search: '?q=qwen',
		compare: `?r=${site.run},${HISTORICAL_RUN}` }).map((k) => k.path), `/r/${HISTORICAL_RUN}`];
	test('no horizontal overflow', async (t) => {
		for (const path of paths()) {
			await t.test(path, async () => {
				const { page, problems } = await open(context, path);
				const m = await page.evaluate(() => {
					const w = window.innerWidth;
					// The widest elements sticking out, to name the culprit.
					const wide = [...document.querySelectorAll('body *')]
						.filter((e) => e.getBoundingClientRect().right > w + 1)
						.slice(0, 5)
						.map((e) => `${e.tagName.toLowerCase()}${e.className && typeof e.className === 'string' ? '.' + e.className : ''} right=${Math.round(e.getBoundingClientRect().right)}`);
					return { scroll: document.documentElement.scrollWidth, inner: w, wide };
				});
				assert.ok(m.scroll <= m.inner + 1,
					`${path}: document is ${m.scroll}px wide in a ${m.inner}px window; sticking out: ${m.wide.join(', ')}`);
				assertClean(problems, path);
				await page.close();
			});
		}
	});
});

describe('colour schemes follow the reader', () => {
	/* Body background and text luminance on path under scheme. */
	async function colours(scheme, path) {
		const context = await browser.newContext({ colorScheme: scheme });
		try {
			const { page, problems } = await open(context, path);
			await page.emulateMedia({ colorScheme: scheme });
			const c = await page.evaluate(() => {
				const cs = getComputedStyle(document.body);
				return { bg: cs.backgroundColor, fg: cs.color };
			});
			assertClean(problems, path);
			return { bg: luminance(c.bg), fg: luminance(c.fg), raw: c };
		} finally {
			await context.close();
		}
	}

	test('dark: dark background, light text', async () => {
		for (const path of ['/', `/r/${site.run}`]) {
			const c = await colours('dark', path);
			assert.ok(c.bg < 0.05, `${path}: dark-mode background too light: ${c.raw.bg}`);
			assert.ok(c.fg > 0.6, `${path}: dark-mode text too dark: ${c.raw.fg}`);
			assert.ok((c.fg + 0.05) / (c.bg + 0.05) >= 7, `${path}: dark-mode contrast below 7:1`);
		}
	});

	test('light: light background, dark text', async () => {
		const c = await colours('light', '/');
		assert.ok(c.bg > 0.9, `light-mode background too dark: ${c.raw.bg}`);
		assert.ok(c.fg < 0.05, `light-mode text too light: ${c.raw.fg}`);
	});
});

describe('dispute form with JavaScript disabled', () => {
	test('posting lands back on the thread, the post shown as plain text with its line break', async () => {
		const context = await browser.newContext({ javaScriptEnabled: false });
		try {
			const { page, res, problems } = await open(context, `/r/${HISTORICAL_RUN}`);
			assert.equal(res.status(), 200);
			await page.fill('#dispute-author', 'Browser <i>tester</i>');
			await page.fill('#dispute-body', '<b>hi</b>\nline two');
			const [nav] = await Promise.all([
				page.waitForNavigation({ waitUntil: 'load' }),
				page.click('form.dispute-form button[type="submit"]'),
			]);
			assert.equal(nav.status(), 200, `after the post the browser got ${nav.status()}`);
			const url = new URL(page.url());
			assert.equal(url.pathname, `/r/${HISTORICAL_RUN}`, `landed on ${page.url()}`);
			assert.match(url.hash, /^#dispute/, `landed on ${page.url()}, not at the thread`);

			// The browser scrolled to the thread (or the post) the fragment names.
			const target = page.locator(url.hash);
			assert.equal(await target.count(), 1, `no element ${url.hash}`);
			const inView = await target.evaluate((e) => {
				const r = e.getBoundingClientRect();
				return r.top < window.innerHeight && r.bottom > 0;
			});
			assert.ok(inView, `the browser did not scroll to ${url.hash}`);

			const post = page.locator('#dispute li[id^="dispute-post-"]', { hasText: 'Browser <i>tester</i>' });
			assert.equal(await post.count(), 1, 'the post is not in the thread');
			assert.ok(await post.isVisible(), 'the post is not visible');
			const text = await post.innerText();
			assert.match(text, /<b>hi<\/b>\nline two/, `body not shown as plain text with its line break: ${JSON.stringify(text)}`);
			assert.equal(await post.locator('b, i').count(), 0, 'markup from the post was rendered as HTML');
			assert.equal(await post.locator('p:last-child br').count(), 1, 'the line break is not kept as one <br>');
			assertClean(problems, 'dispute post');
		} finally {
			await context.close();
		}
	});
});

describe('badge', () => {
	test('the SVG renders on its own and in the run page', async () => {
		const context = await browser.newContext();
		try {
			const svg = await open(context, `/badge/${site.run}.svg`);
			assert.equal(svg.res.status(), 200);
			assert.match(svg.res.headers()['content-type'], /^image\/svg\+xml/);
			const box = await svg.page.locator('svg').first().boundingBox();
			assert.ok(box && box.width > 0 && box.height > 0, 'the badge draws nothing');
			// A bare SVG document cannot name an icon, so Chromium asks for
			// /favicon.ico, which the site does not serve (HTML pages name one).
			assertClean(svg.problems.filter((p) => !p.endsWith(`(${server.url}/favicon.ico)`)), 'badge');

			for (const id of [site.run, HISTORICAL_RUN]) {
				const { page, problems } = await open(context, `/r/${id}`);
				const img = page.locator('#badge img.badge');
				await img.scrollIntoViewIfNeeded();
				const size = await img.evaluate(async (e) => {
					if (!e.complete) await new Promise((ok) => { e.onload = e.onerror = ok; });
					return { w: e.naturalWidth, h: e.naturalHeight, rw: e.getBoundingClientRect().width };
				});
				assert.ok(size.w > 0 && size.h > 0, `${id}: badge image did not load: ${JSON.stringify(size)}`);
				assert.ok(size.rw > 0, `${id}: badge image takes no space`);
				assertClean(problems, `/r/${id}`);
			}
		} finally {
			await context.close();
		}
	});
});

describe('keyboard', () => {
	test('the first Tab reaches the skip link, the second the site navigation, with a visible focus ring', async () => {
		const context = await browser.newContext();
		try {
			const { page } = await open(context, `/r/${site.run}`);
			await page.keyboard.press('Tab');
			const skip = await page.evaluate(() => {
				const e = document.activeElement;
				const r = e.getBoundingClientRect();
				return { href: e.getAttribute('href'), top: r.top, bottom: r.bottom };
			});
			assert.equal(skip.href, '#main', 'the first Tab does not reach the skip link');
			assert.ok(skip.top >= 0 && skip.bottom > skip.top, `the focused skip link is off screen: ${JSON.stringify(skip)}`);
			await page.keyboard.press('Tab');
			const f = await page.evaluate(() => {
				const e = document.activeElement;
				const cs = getComputedStyle(e);
				return { tag: e.tagName, inNav: !!e.closest('header nav'), href: e.getAttribute('href'),
					outline: cs.outlineStyle, width: cs.outlineWidth };
			});
			assert.ok(f.inNav, `first Tab focused ${f.tag} ${f.href}, not the site navigation`);
			assert.notEqual(f.outline, 'none', 'focused link shows no outline');
			assert.notEqual(f.width, '0px', 'focused link shows no outline');
		} finally {
			await context.close();
		}
	});
});

describe('search type-ahead (static/typeahead.js)', () => {
	test('typing suggests matches; the arrows choose one, Escape closes, Enter opens it', async () => {
		const context = await browser.newContext();
		try {
			const { page, problems } = await open(context, '/glossary');
			const box = page.locator('#site-q');
			assert.equal(await box.getAttribute('role'), 'combobox', 'the script did not make the box a combobox');
			assert.equal(await box.getAttribute('aria-expanded'), 'false');
			const listId = await box.getAttribute('aria-controls');
			const list = page.locator(`#${listId}`);
			assert.equal(await list.getAttribute('role'), 'listbox');
			assert.equal(await list.isVisible(), false, 'the list shows before anything is typed');

			await box.pressSequentially('qwen', { delay: 40 });
			const options = list.locator('[role="option"]');
			await options.first().waitFor({ state: 'visible', timeout: 10000 });
			assert.equal(await box.getAttribute('aria-expanded'), 'true');
			const texts = await options.allInnerTexts();
			assert.ok(texts.length >= 2 && texts.length <= 8, `suggestions: ${JSON.stringify(texts)}`);
			assert.ok(texts.every((t) => /qwen/i.test(t)), `a suggestion does not match qwen: ${JSON.stringify(texts)}`);
			assert.equal(await box.getAttribute('aria-activedescendant'), null, 'an option is chosen before an arrow key');

			const ids = await options.evaluateAll((els) => els.map((e) => e.id));
			const chosen = async () => [await box.getAttribute('aria-activedescendant'),
				await list.locator('[aria-selected="true"]').evaluateAll((els) => els.map((e) => e.id))];
			await box.press('ArrowDown');
			assert.deepEqual(await chosen(), [ids[0], [ids[0]]]);
			await box.press('ArrowDown');
			assert.deepEqual(await chosen(), [ids[1], [ids[1]]]);
			await box.press('ArrowUp');
			assert.deepEqual(await chosen(), [ids[0], [ids[0]]]);
			// Focus stays in the box throughout (the options are chosen, not focused).
			assert.equal(await page.evaluate(() => document.activeElement.id), 'site-q');
			await box.press('Escape');
			assert.equal(await box.getAttribute('aria-expanded'), 'false');
			assert.equal(await list.isVisible(), false);
			await box.press('ArrowDown');
			assert.deepEqual(await chosen(), [ids[0], [ids[0]]]);

			const [nav] = await Promise.all([
				page.waitForNavigation({ waitUntil: 'load' }),
				box.press('Enter'),
			]);
			assert.equal(nav.status(), 200);
			assert.match(new URL(page.url()).pathname, /^\/m\/qwen/, `Enter opened ${page.url()}`);
			assertClean(problems, 'type-ahead');
		} finally {
			await context.close();
		}
	});

	test('cut below two letters, the older suggestions are gone: ArrowDown opens nothing', async () => {
		const context = await browser.newContext();
		try {
			const { page, problems } = await open(context, '/glossary');
			const box = page.locator('#site-q');
			await box.pressSequentially('qwen', { delay: 40 });
			await page.locator('#site-q-suggestions [role="option"]').first().waitFor({ state: 'visible', timeout: 10000 });
			await box.fill('q');
			await box.dispatchEvent('input');
			await page.waitForFunction(() => document.querySelectorAll('#site-q-suggestions [role="option"]').length === 0,
				null, { timeout: 10000 });
			await box.press('ArrowDown');
			assert.equal(await box.getAttribute('aria-expanded'), 'false');
			assert.equal(await page.locator('#site-q-suggestions').isVisible(), false);
			assertClean(problems, 'type-ahead cut short');
		} finally {
			await context.close();
		}
	});

	test('Enter with no suggestion chosen searches, as the plain form does', async () => {
		const context = await browser.newContext();
		try {
			const { page, problems } = await open(context, '/glossary');
			await page.locator('#site-q').pressSequentially('qwen', { delay: 40 });
			await page.locator('#site-q-suggestions [role="option"]').first().waitFor({ state: 'visible', timeout: 10000 });
			const [nav] = await Promise.all([
				page.waitForNavigation({ waitUntil: 'load' }),
				page.locator('#site-q').press('Enter'),
			]);
			assert.equal(nav.status(), 200);
			const url = new URL(page.url());
			assert.equal(url.pathname, '/search');
			assert.equal(url.searchParams.get('q'), 'qwen');
			assertClean(problems, 'search');
		} finally {
			await context.close();
		}
	});

	test('without JavaScript the box is a plain search form', async () => {
		const context = await browser.newContext({ javaScriptEnabled: false });
		try {
			const { page, problems } = await open(context, '/glossary');
			const box = page.locator('#site-q');
			assert.equal(await box.getAttribute('role'), null);
			assert.equal(await page.locator('[role="listbox"]').count(), 0);
			await box.fill('qwen');
			const [nav] = await Promise.all([
				page.waitForNavigation({ waitUntil: 'load' }),
				box.press('Enter'),
			]);
			assert.equal(nav.status(), 200);
			assert.equal(new URL(page.url()).pathname, '/search');
			assert.match(await page.locator('main').innerText(), /Qwen/);
			assertClean(problems, 'search without JavaScript');
		} finally {
			await context.close();
		}
	});
});
