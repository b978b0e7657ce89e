// The run badge against shields' own renderer (badge-maker 4.1.0): the same texts make the same box widths and text places, every badge within 340 px, every colour readable.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';

import { luminance } from './browser.mjs';
import { ROOT, startServer } from './server.mjs';

const require = createRequire(import.meta.url);
const { makeBadge } = require('badge-maker');
const BIN = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
const MAX_WIDTH = 340;   // BADGE_MAX_WIDTH: "about 330"

// Names a badge must shorten, and the words it must keep.
const RUNS = [
	{ model: 'Qwen/Qwen3-Coder-30B-A3B-Instruct', hardware: 'Apple M3 Ultra', keep: ['M3 Ultra', 'A3B'], shown: 'Qwen3-Coder 30B-A3B Instruct' },
	{ model: 'Qwen/Qwen3-8B', hardware: 'AMD Ryzen AI Max+ 395 (Radeon 8060S)', keep: ['Ryzen AI Max+ 395', 'Qwen3 8B'], shown: 'Qwen3 8B' },
	// Issue 38: the maker's prefix goes before the size does.
	{ model: 'meta-llama/Meta-Llama-3.1-405B-Instruct-with-a-long-tail', hardware: 'AMD Ryzen AI Max+ 395 (Radeon 8060S)', keep: ['Max+ 395', 'Llama-3.1-405B'] },
	// ... and a name after "w/" before the chip's own words.
	{ model: 'Meta-Llama-3.1-8B-Instruct-Q4_K_M', hardware: 'AMD Ryzen AI Max+ 395 w/ Radeon 8060S', keep: ['8B', 'Max+ 395'], never: ['395 w/', 'Meta-'], decode: 30.5 },
	{ model: 'deepseek-ai/DeepSeek-Coder-V2-Lite-Instruct', hardware: 'NVIDIA GeForce RTX 4090 Laptop GPU', keep: ['RTX 4090'] },
	{ model: 'stabilityai/stable-code-instruct-3b', hardware: 'NVIDIA GeForce RTX 5090', keep: ['stable-code-3b', 'RTX 5090'], decode: 2345.6 },
];

let server;
const badges = [];   // { svg, want }

/* The numbers of the badge's geometry: the whole width, the two boxes, and
 * the x and textLength of the label's and the message's text. */
function geometry(svg) {
	const num = (re) => { const m = svg.match(re); assert.ok(m, `no ${re} in ${svg.slice(0, 200)}`); return Number(m[1]); };
	const texts = [...svg.matchAll(/<text x="(\d+)" y="140"[^>]*textLength="(\d+)"/g)].map((m) => [Number(m[1]), Number(m[2])]);
	return {
		width: num(/<svg[^>]* width="(\d+)"/),
		label: num(/<rect width="(\d+)" height="20" fill="#555"\/>/),
		message: num(/<rect x="\d+" width="(\d+)"/),
		texts,
	};
}

/* label and message from the badge's accessible name ("llm-speed: ..."). */
function texts(svg) {
	const raw = svg.match(/aria-label="([^"]*)"/)[1]
		.replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&quot;/g, '"').replace(/&#39;/g, "'").replace(/&amp;/g, '&');
	const at = raw.indexOf(': ');
	return { label: raw.slice(0, at), message: raw.slice(at + 2) };
}

before(async () => {
	server = await startServer();
	const store = async (model, hardware, decode) => {
		const jws = execFileSync(BIN, ['sample-run', '--model', model, '--hardware', hardware,
			'--decode', String(decode || 112.2)]);
		const up = await fetch(`${server.url}/api/v1/runs`, { method: 'POST', headers: { 'Content-Type': 'application/jose' }, body: jws });
		const body = await up.text();
		assert.equal(up.status, 201, body);
		return JSON.parse(body).id;
	};
	const badgeOf = async (id) => {
		const res = await fetch(`${server.url}/badge/${id}.svg`);
		assert.equal(res.status, 200);
		return res.text();
	};
	// Three keys each: confirmed, so the badge is labelled "llm-speed".
	for (const run of RUNS) {
		const id = await store(run.model, run.hardware, run.decode);
		for (let i = 0; i < 2; i++)
			await store(run.model, run.hardware, run.decode);
		badges.push({ run, svg: await badgeOf(id) });
	}
	// One key: labelled "unconfirmed" (issue 35), in the same geometry.
	const solo = await badgeOf(await store('Solo-Check-7B', 'Apple M3 Ultra', 61.5));
	assert.match(solo, /aria-label="unconfirmed: /);
	badges.push({ run: { keep: ['61.5 tok/s'] }, svg: solo });
	// A demo run's, and a missing run's.
	const home = await (await fetch(server.url + '/')).text();
	const demo = home.match(/href="\/r\/([^"?#\/]+)"/)[1];
	badges.push({ run: { keep: [] }, svg: await (await fetch(`${server.url}/badge/${demo}.svg`)).text() });
	badges.push({ run: { keep: [] }, svg: await (await fetch(`${server.url}/badge/r_zzzzzzzzzzz.svg`)).text() });
});

after(async () => { await server?.stop(); });

describe('badge', () => {
	test('the same texts make the same geometry as badge-maker 4.1.0', () => {
		for (const { svg } of badges) {
			const { label, message } = texts(svg);
			const color = svg.match(/<rect x="\d+" width="\d+" height="20" fill="(#[0-9a-f]+)"\/>/)[1];
			const theirs = geometry(makeBadge({ label, message, color, style: 'flat' }));
			const ours = geometry(svg);
			assert.deepEqual(ours, theirs, `${label}: ${message}`);
		}
	});

	test(`within ${MAX_WIDTH} px, names cut at words, the telling words kept`, () => {
		for (const { run, svg } of badges) {
			const { message } = texts(svg);
			const { width } = geometry(svg);
			assert.ok(width <= MAX_WIDTH, `${message}: ${width} px`);
			for (const words of run.keep)
				assert.ok(message.includes(words), `${message}: lost "${words}"`);
			for (const words of run.never || [])
				assert.ok(!message.includes(words), `${message}: shows "${words}"`);
			// A cut name ends after a whole word, and what follows its
			// ellipsis (the model's size) starts one: no separator or part
			// of a word beside the ellipsis.
			for (const part of message.split(' \u00b7 ').slice(1)) {
				if (!part.includes('\u2026') || !run.model) continue;
				const [kept, tail] = part.split('\u2026');
				assert.ok(!/[-_ \/]$/.test(kept), `${part}: cut after a separator`);
				assert.ok(!/^[-_ \/]/.test(tail), `${part}: resumes at a separator`);
				// A name the reference data knows is shown by the reference's
				// name (shown), else as uploaded.
				const name = run.shown || run.model;
				const at = (n, w) => [w + '-', w + ' ', w + '_'].some((x) => n.includes(x));
				assert.ok(at(name, kept) || at(run.hardware, kept), `${part}: not cut at a word boundary`);
				if (tail)
					assert.ok(['-', ' ', '_'].some((x) => name.includes(x + tail)), `${part}: "${tail}" is not a whole word of ${name}`);
			}
		}
	});

	test('11 px text both sides, every colour at 4.5:1 or more behind white text', () => {
		const rgb = (hex) => {
			const h = hex.length === 4 ? [...hex.slice(1)].map((c) => c + c).join('') : hex.slice(1);
			return `rgb(${parseInt(h.slice(0, 2), 16)}, ${parseInt(h.slice(2, 4), 16)}, ${parseInt(h.slice(4, 6), 16)})`;
		};
		const white = luminance('rgb(255, 255, 255)');
		const seen = new Set();
		for (const { svg } of badges) {
			assert.match(svg, /<g fill="#fff" text-anchor="middle"[^>]*font-size="110">/);
			assert.doesNotMatch(svg, /<text[^>]* font-size="(?!110)/, 'a text of another size');
			for (const [, hex] of svg.matchAll(/<rect [^>]*fill="(#[0-9a-f]{3,6})"\/>/g)) {
				if (hex === '#fff') continue;   // the clip path's
				seen.add(hex);
				const ratio = (white + 0.05) / (luminance(rgb(hex)) + 0.05);
				assert.ok(ratio >= 4.5, `white on ${hex}: ${ratio.toFixed(2)}:1`);
			}
		}
		assert.ok(seen.size >= 3, `colours seen: ${[...seen]}`);
	});
});
