'use strict';
/**
 * Headless Chromium (Debian's /usr/bin/chromium) driven by playwright-core, for the editor tests.
 * n8n marks its UI with `data-test-id` attributes; `page.getByTestId()` is switched to that attribute.
 */
const fs = require('fs');
const path = require('path');

const { ROOT, DEFAULT_OWNER } = require('./n8n');

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

function chromiumPath() {
	const candidates = [process.env.CHROMIUM_PATH, '/usr/bin/chromium', '/usr/bin/chromium-browser'].filter(Boolean);
	const found = candidates.find((p) => fs.existsSync(p));
	if (!found) {
		throw new Error('Chromium not found (looked at /usr/bin/chromium). Install it: apt-get install -y chromium, or set CHROMIUM_PATH.');
	}
	return found;
}

/** Launches Chromium; resolves with { browser, context, page }. */
async function launch({ viewport = { width: 1440, height: 900 } } = {}) {
	const { chromium, selectors } = require('playwright-core');
	selectors.setTestIdAttribute('data-test-id');
	const browser = await chromium.launch({ executablePath: chromiumPath(), args: CHROMIUM_ARGS });
	const context = await browser.newContext({ viewport });
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

module.exports = { CHROMIUM_ARGS, ARTIFACTS_DIR, chromiumPath, launch, screenshot, signIn, onPage };
