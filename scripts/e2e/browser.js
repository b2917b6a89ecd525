'use strict';
/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for the editor tests.
 * n8n marks its UI with `data-test-id` attributes; `page.getByTestId()` is switched to that attribute.
 */
const fs = require('fs');
const path = require('path');

const { ROOT, DEFAULT_OWNER, run } = require('./n8n');

const CHROMIUM_ARGS = [
	'--headless',
	'--no-sandbox',
	'--disable-gpu',
	'--disable-background-networking',
	'--disable-component-update',
	'--disable-sync',
	'--no-first-run',
	'--disable-dev-shm-usage',
];

const ARTIFACTS_DIR = path.join(ROOT, 'artifacts', 'e2e');
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost', '[::1]', '::1'];

function findChromium() {
	const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
	return candidates.find((p) => fs.existsSync(p));
}

function chromiumPath() {
	const found = findChromium();
	if (!found) {
		throw new Error('Chromium not found (looked at /usr/bin/chromium). Install it: apt-get install -y chromium, or set CHROMIUM_PATH.');
	}
	return found;
}

/**
 * Chromium's path, installing Debian's `chromium` first when it is missing (as root or with password-less
 * sudo, through scripts/lib/system-packages.sh). Otherwise rejects with the one line naming the command to run.
 */
async function ensureChromium() {
	const found = findChromium();
	if (found) return found;
	const res = await run('bash', [path.join(ROOT, 'scripts', 'lib', 'system-packages.sh'), 'install', 'chromium', 'fonts-liberation'], {
		timeoutMs: 20 * 60 * 1000,
		// Progress only; a failure's one line becomes the error.
		onStderr: (d) => {
			for (const line of d.split('\n')) if (line.startsWith('[setup] installing')) process.stderr.write(`${line}\n`);
		},
	});
	if (res.code !== 0) {
		const line = res.stderr.trim().split('\n').pop() || `system-packages.sh exited with ${res.code}`;
		throw new Error(`Chromium is needed by the editor tests. ${line}`);
	}
	return chromiumPath();
}

/** Launches Chromium (installed first when missing, see ensureChromium); resolves with { browser, context, page }. */
async function launch() {
	const { chromium, selectors } = require('playwright-core');
	selectors.setTestIdAttribute('data-test-id');
	const browser = await chromium.launch({ executablePath: await ensureChromium(), args: CHROMIUM_ARGS });
	const context = await browser.newContext({ viewport: { width: 1440, height: 900 } });
	// Loopback only: the editor would otherwise look the package up on registry.npmjs.org and call api.n8n.io.
	await context.route(
		(url) => !LOOPBACK_HOSTS.includes(url.hostname) && /^(https?|wss?):$/.test(url.protocol),
		(route) => route.abort('blockedbyclient'),
	);
	const page = await context.newPage();
	page.setDefaultTimeout(30000);
	return { browser, context, page };
}

/** Saves a full-window screenshot to artifacts/e2e/<name>.png; returns the path. */
async function screenshot(page, name) {
	fs.mkdirSync(ARTIFACTS_DIR, { recursive: true });
	const file = path.join(ARTIFACTS_DIR, `${name}.png`);
	await page.screenshot({ path: file });
	return file;
}

/** Signs in through n8n's sign-in form. */
async function signIn(page, baseUrl, owner = DEFAULT_OWNER) {
	await page.goto(`${baseUrl}/signin`);
	await page.locator('input[name=emailOrLdapLoginId]').fill(owner.email);
	await page.locator('input[name=password]').fill(owner.password);
	await page.getByTestId('form-submit-button').click();
	await page.waitForURL((u) => !u.pathname.includes('/signin'));
}

/**
 * Runs `fn(page)` on a new page of `context`; on failure saves artifacts/e2e/failure-<name>.png first.
 * The page is closed afterwards.
 */
async function onPage(context, name, fn) {
	const page = await context.newPage();
	try {
		return await fn(page);
	} catch (error) {
		await screenshot(page, `failure-${name}`).catch(() => undefined);
		throw error;
	} finally {
		await page.close().catch(() => undefined);
	}
}

module.exports = { ARTIFACTS_DIR, ensureChromium, launch, screenshot, signIn, onPage };
