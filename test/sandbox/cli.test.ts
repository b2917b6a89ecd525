/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals, @n8n/community-nodes/no-dangerous-functions */
import { spawn, spawnSync } from 'child_process';
import path from 'path';

import { LIVE_QUIRKS, parseQuirkList } from '../../sandbox';
import axios from 'axios';

const CLI = path.join(__dirname, '../../sandbox/cli.js');

describe('sandbox CLI', () => {
	it('parses quirk lists', () => {
		expect(parseQuirkList('americanCanceled,!wrappedDatasetList,inferencePaths=v2')).toEqual({
			americanCanceled: true,
			wrappedDatasetList: false,
			inferencePaths: 'v2',
		});
		expect(parseQuirkList('live')).toEqual(LIVE_QUIRKS);
	});

	it('prints help and refuses unknown arguments', () => {
		const help = spawnSync(process.execPath, [CLI, '--help'], { encoding: 'utf8' });
		expect(help.status).toBe(0);
		expect(help.stdout).toContain('--config');
		for (const args of [['oops'], ['--run-ms', '500'], ['--config']]) {
			const bad = spawnSync(process.execPath, [CLI, ...args], { encoding: 'utf8' });
			expect(bad.status).toBe(64);
			expect(bad.stderr).toMatch(/^sandbox: (unknown argument|--config needs a value)/);
		}
	});

	it('starts, prints URLs and token as JSON, and serves with the given quirks until killed', async () => {
		const child = spawn(
			process.execPath,
			[CLI, '--json', '--quirks=live', '--config', '{"token":"cli-token-1234567","walletMicrodollars":777}'],
			{
				stdio: ['ignore', 'pipe', 'pipe'],
			},
		);
		try {
			const line = await new Promise<string>((resolve, reject) => {
				let out = '';
				child.stdout.on('data', (c: Buffer) => {
					out += c.toString();
					if (out.includes('\n')) resolve(out.split('\n')[0]);
				});
				child.on('exit', (code) => reject(new Error(`cli exited with ${code}`)));
			});
			const info = JSON.parse(line);
			expect(info.token).toBe('cli-token-1234567');
			expect(Object.keys(info.urls).sort()).toEqual(['files', 'foreignFiles', 'modelApi', 'serverless', 'trainer']);
			const auth = { headers: { Authorization: 'Bearer cli-token-1234567' } };
			const bal = await axios.get(`${info.urls.serverless}/prod/v2/balance`, auth);
			expect(bal.data.balance_microdollars).toBe(777);
			const deps = await axios.get(`${info.urls.serverless}/prod/v2/deployments`, auth);
			expect(Array.isArray(deps.data)).toBe(true);
		} finally {
			child.kill('SIGTERM');
		}
	});
});
