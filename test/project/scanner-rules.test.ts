/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions */
/**
 * n8n's community package scanner (@n8n/scan-community-package, run before n8n verifies a package) passes:
 * its analysis on the source with inline eslint-disable comments ignored (scripts/scan-package.js; the
 * tarball leg runs in `npm run release:check`, after the build), and no such comment hides anything.
 */
import { execFileSync, spawnSync } from 'child_process';
import { readFileSync } from 'fs';
import { join } from 'path';
import type { IHookFunctions } from 'n8n-workflow';

import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { ROOT } from '../../scripts/e2e/n8n';

describe("n8n's community package scanner", () => {
	it('passes its analysis of the source, inline disables ignored', () => {
		const res = spawnSync(process.execPath, [join(ROOT, 'scripts', 'scan-package.js'), '--source'], {
			cwd: ROOT,
			encoding: 'utf8',
		});
		expect(`${res.stdout}${res.stderr}`).toContain('[scan] source: passed');
		expect(res.status).toBe(0);
	});

	it('finds no inline eslint-disable in the shipped sources (the scanner does not honour them)', () => {
		const files = execFileSync('git', ['ls-files', 'nodes', 'credentials'], { cwd: ROOT, encoding: 'utf8' })
			.split('\n')
			.filter((f) => /\.(ts|js|json)$/.test(f));
		expect(files.length).toBeGreaterThan(0);
		const disabled = files.filter((f) => /eslint-disable/.test(readFileSync(join(ROOT, f), 'utf8')));
		expect(disabled).toEqual([]);
	});
});

describe("the Deployment node's webhook lifecycle", () => {
	const node = new RunComfyDeployment();

	it('declares only the restart webhook, which n8n never registers, so the lifecycle is never called', () => {
		expect(node.description.webhooks?.map((w) => w.restartWebhook)).toEqual([true]);
	});

	it('says the webhook exists and that creating or deleting it succeeds, touching nothing', async () => {
		const ctx = new Proxy({} as IHookFunctions, {
			get(_t, key) {
				throw new Error(`the lifecycle touched this.${String(key)}`);
			},
		});
		const methods = node.webhookMethods.default;
		await expect(methods.checkExists.call(ctx)).resolves.toBe(true);
		await expect(methods.create.call(ctx)).resolves.toBe(true);
		await expect(methods.delete.call(ctx)).resolves.toBe(true);
	});
});
