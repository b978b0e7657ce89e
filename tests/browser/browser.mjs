// Launches Debian's Chromium through playwright-core and records what a page complains about.
import { chromium } from 'playwright-core';

export const CHROMIUM = process.env.LLMSPEED_CHROMIUM || '/usr/bin/chromium';

/* Launches headless Chromium from CHROMIUM (never a downloaded build). */
export function launch() {
	return chromium.launch({
		executablePath: CHROMIUM,
		headless: true,
		args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
			'--disable-background-networking', '--disable-component-update', '--disable-sync'],
	});
}

/* Starts recording a page's console errors (CSP violations among them:
 * Chromium logs each as an error naming the Content Security Policy),
 * uncaught script errors and failed requests.  Returns the list, filled as
 * they happen; each entry says where it came from (a console error caused
 * by a resource other than the page itself names that resource in
 * parentheses at the end). */
export function watch(page) {
	const problems = [];
	page.on('console', (m) => {
		if (m.type() !== 'error') return;
		const src = m.location()?.url;
		problems.push(`console error at ${page.url()}: ${m.text()}${src && src !== page.url() ? ` (${src})` : ''}`);
	});
	page.on('pageerror', (e) => problems.push(`page error at ${page.url()}: ${e.message}`));
	page.on('requestfailed', (req) => {
		problems.push(`request failed: ${req.url()}: ${req.failure()?.errorText}`);
	});
	return problems;
}

/* Relative luminance (WCAG) of a computed CSS colour "rgb(r, g, b)" or "rgba(...)". */
export function luminance(css) {
	const m = css.match(/rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)/);
	if (!m) throw new Error(`not an rgb() colour: ${css}`);
	const lin = (v) => {
		const c = Number(v) / 255;
		return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
	};
	return 0.2126 * lin(m[1]) + 0.7152 * lin(m[2]) + 0.0722 * lin(m[3]);
}
