/* eslint-disable */
import { createRequire } from 'module';
import { getRuntime, disposeEngine } from '../helpers/engine';
import { getService } from '../helpers/engine-runtime';
import { LoggerProxy } from 'n8n-workflow';
afterAll(async () => { await disposeEngine(); });
it('probe', async () => {
	await getRuntime();
	const requireFromCore = createRequire(require.resolve('n8n-core'));
	const { Logger } = requireFromCore('@n8n/backend-common');
	const l: any = getService(Logger);
	console.log(l.level, Object.getOwnPropertyNames(l), (LoggerProxy as any).getInstance?.() === l);
});
