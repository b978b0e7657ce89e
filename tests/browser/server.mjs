// Starts llm-speedd with demo data on a free loopback port for the browser tests.
import { execFileSync, spawn } from 'node:child_process';
import { mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const MODERATOR_TOKEN = 'browser-moderator-secret-1234567890';

/* Resolves to a TCP port on 127.0.0.1 that was free a moment ago. */
function freePort() {
	return new Promise((ok, fail) => {
		const s = createServer();
		s.once('error', fail);
		s.listen(0, '127.0.0.1', () => {
			const { port } = s.address();
			s.close(() => ok(port));
		});
	});
}

const sleep = (ms) => new Promise((ok) => setTimeout(ok, ms));

/* Starts the daemon (LLMSPEED_BIN, else the repository's llm-speedd) with
 * --demo on its own database in a temporary folder and waits until /healthz
 * answers 200.  Resolves to { url, log(), stop() }; stop() ends the daemon
 * and removes the folder, and is safe to call twice.  A daemon that exits or
 * is not ready within 15 s rejects with its log. */
export async function startServer() {
	const bin = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
	const dir = mkdtempSync(join(tmpdir(), 'llms-browser-'));
	const logPath = join(dir, 'server.log');
	const port = await freePort();
	const url = `http://127.0.0.1:${port}`;
	const out = openSync(logPath, 'a');
	const proc = spawn(bin, [
		'--listen', `127.0.0.1:${port}`, '--db', join(dir, 'llm-speed.db'),
		'--assets', ROOT, '--demo', '--upload-rate', '0', '--dispute-rate', '0',
		'--max-per-ip', '512',
		// Every upload here comes from one address: count its keys as the
		// HTTP tests do (the cap has its own tests there).
		'--keys-per-network', '0',
	], { stdio: ['ignore', out, out], env: { ...process.env, LLMSPEED_MODERATOR_TOKEN: MODERATOR_TOKEN } });
	let exited = null;
	proc.on('exit', (code, sig) => { exited = sig || code; });
	const log = () => { try { return readFileSync(logPath, 'utf8'); } catch { return ''; } };
	const kill = () => { if (exited === null) proc.kill('SIGKILL'); };
	process.on('exit', kill);

	const stop = async () => {
		if (exited === null) {
			const done = new Promise((ok) => proc.once('exit', ok));
			proc.kill('SIGTERM');
			const t = setTimeout(() => proc.kill('SIGKILL'), 10000);
			await done;
			clearTimeout(t);
		}
		process.off('exit', kill);
		rmSync(dir, { recursive: true, force: true });
	};

	const deadline = Date.now() + 15000;
	while (Date.now() < deadline) {
		if (exited !== null) {
			const text = log();
			await stop();
			throw new Error(`llm-speedd (${bin}) exited (${exited}):\n${text}`);
		}
		try {
			const res = await fetch(url + '/healthz');
			if (res.status === 200) return { url, log, stop, db: join(dir, 'llm-speed.db') };
		} catch { /* not listening yet */ }
		await sleep(50);
	}
	const text = log();
	await stop();
	throw new Error(`llm-speedd did not answer /healthz within 15 s:\n${text}`);
}

/* The daemon's table of page kinds (`llm-speedd kinds`, from
 * server/pages/kinds.c): [{name, path, template, nav, json, csv, feed, arg,
 * sitemap}], one per kind. */
export function pageKinds() {
	const bin = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
	return JSON.parse(execFileSync(bin, ['kinds'], { encoding: 'utf8' }));
}

/* One path per page kind, in the table's order: its path with the '*'
 * filled from args (the run id, model slug, hardware slug or account name
 * the kind's "arg" names) and the query string query[name] a visit needs
 * (the calculator's hardware, a search's words), if any.  Returns
 * [{ name, path }]; a kind whose '*' args cannot fill fails the test. */
export function kindPaths(args, query = {}) {
	return pageKinds().map((k) => {
		// A path's stars take the arg's values in order ("model-hw": two).
		const arg = k.arg ? [].concat(args[k.arg] || []) : [];
		if (k.arg && (!arg.length || arg.some((a) => !a)))
			throw new Error(`no ${k.arg} to visit page kind ${k.name} (${k.path}) with`);
		let i = 0;
		return { name: k.name, path: k.path.replace(/\*/g, () => encodeURIComponent(arg[i++])) + (query[k.name] || '') };
	});
}

/* Creates the account name on server's database and uploads one signed
 * sample run (all five workloads) as it, so the account page has a run to
 * show (the demo data has no accounts).  Resolves to the run's id. */
export async function addAccountRun(server, name) {
	const bin = process.env.LLMSPEED_BIN || join(ROOT, 'llm-speedd');
	const token = execFileSync(bin, ['account', 'add', name, '--db', server.db, '--assets', ROOT, '--quiet'], { encoding: 'utf8' }).trim();
	const jws = execFileSync(bin, ['sample-run', '--all'], { encoding: 'utf8' }).trim();
	const res = await fetch(`${server.url}/api/v1/runs`, {
		method: 'POST', body: jws,
		headers: { 'Content-Type': 'application/jose', Authorization: `Bearer ${token}` },
	});
	const body = await res.json();
	if (res.status !== 201) throw new Error(`upload as ${name}: ${res.status} ${JSON.stringify(body)}`);
	return body.id;
}
