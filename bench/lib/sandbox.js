'use strict';
/**
 * The sandbox in its own process (sandbox/cli.js), driven through its HTTP control API (/__sandbox/...).
 * A separate process keeps the service's own CPU time and memory (it serves 4 GiB files and receives 500 MB
 * uploads) out of the figures measured in the benchmark process.
 */
const { spawn } = require('child_process');
const path = require('path');
const readline = require('readline');

const ROOT = path.resolve(__dirname, '..', '..');

async function startSandboxProcess(config = {}) {
	const args = [path.join(ROOT, 'sandbox', 'cli.js'), '--json', `--config=${JSON.stringify(config)}`];
	const child = spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'pipe', 'pipe'] });
	let stderr = '';
	child.stderr.setEncoding('utf8');
	child.stderr.on('data', (d) => {
		stderr += d;
	});
	const exited = new Promise((resolve) => child.once('exit', (code, signal) => resolve({ code, signal })));
	const info = await new Promise((resolve, reject) => {
		const rl = readline.createInterface({ input: child.stdout });
		rl.once('line', (line) => {
			try {
				resolve(JSON.parse(line));
			} catch (error) {
				reject(new Error(`sandbox printed ${line}: ${error.message}`));
			}
		});
		exited.then((e) => reject(new Error(`sandbox exited (${JSON.stringify(e)}): ${stderr}`)));
	});
	child.stdout.resume();
	const control = `${info.urls.modelApi}/__sandbox`;
	const call = async (method, p, body) => {
		const send = () =>
			fetch(`${control}${p}`, {
				method,
				headers: body === undefined ? {} : { 'content-type': 'application/json' },
				body: body === undefined ? undefined : JSON.stringify(body),
			});
		// Once more when the connection drops before an answer (the sandbox closing an idle keep-alive socket as it
		// is reused, on a loaded machine): every control request may be sent twice.
		const res = await send().catch(send);
		const text = await res.text();
		if (!res.ok) throw new Error(`sandbox ${method} ${p} -> ${res.status} ${text.slice(0, 500)}`);
		return text ? JSON.parse(text) : undefined;
	};
	return {
		urls: info.urls,
		token: info.token,
		stable: info.stable,
		pid: child.pid,
		configure: (patch) => call('POST', '/config', patch),
		reset: (patch) => call('POST', '/reset', patch || {}),
		log: (since) => call('GET', `/log${since ? `?since=${since}` : ''}`),
		clearLog: () => call('DELETE', '/log'),
		state: () => call('GET', '/state'),
		async close() {
			if (child.exitCode !== null || child.signalCode !== null) return;
			child.kill('SIGTERM');
			const t = setTimeout(() => child.kill('SIGKILL'), 5000);
			await exited;
			clearTimeout(t);
		},
	};
}

/** Credentials of the runComfyApi type pointing at the sandbox (downloads allowed from its file host). */
function credentialsFor(sb) {
	return {
		accessToken: sb.token,
		modelApiBaseUrl: sb.urls.modelApi,
		serverlessApiBaseUrl: sb.urls.serverless,
		trainerApiBaseUrl: sb.urls.trainer,
		allowedDownloadHosts: new URL(sb.urls.files).hostname,
	};
}

module.exports = { startSandboxProcess, credentialsFor };
