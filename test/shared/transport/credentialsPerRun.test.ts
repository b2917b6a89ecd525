/**
 * The credential is read once per node run (n8n decrypts it on every read, and a batch of 10,000 items sends
 * 30,000 requests), but each time in contexts that outlive a run (triggers, the editor), and a failed read is
 * never kept.
 */
import type { ICredentialDataDecryptedObject, IExecuteFunctions, INode, IPollFunctions } from 'n8n-workflow';

import { getCredentials } from '../../../nodes/shared/transport';

const NODE = { name: 'RunComfy', type: 'n8n-nodes-runcomfy.runComfyModel', typeVersion: 1, parameters: {} } as unknown as INode;
const GOOD: ICredentialDataDecryptedObject = { accessToken: 'rc-token-1234', modelApiBaseUrl: 'http://127.0.0.1:1/' };

function context(read: () => Promise<ICredentialDataDecryptedObject>, nodeRun: boolean) {
	const getCredentials = jest.fn(read);
	const ctx = { getNode: () => NODE, getCredentials, ...(nodeRun ? { getInputData: () => [] } : {}) };
	return { ctx: ctx as unknown as IExecuteFunctions & IPollFunctions, getCredentials };
}

describe('reading the RunComfy credential', () => {
	it('reads it once for every request of a node run', async () => {
		const { ctx, getCredentials: read } = context(async () => GOOD, true);
		const all = await Promise.all(Array.from({ length: 50 }, async () => await getCredentials(ctx)));
		await getCredentials(ctx);
		expect(read).toHaveBeenCalledTimes(1);
		expect(all.every((c) => c.accessToken === 'rc-token-1234' && c.modelApiBaseUrl === 'http://127.0.0.1:1')).toBe(true);
	});

	it('reads it again for another node run', async () => {
		const first = context(async () => GOOD, true);
		const second = context(async () => ({ ...GOOD, accessToken: 'rc-token-5678' }), true);
		expect((await getCredentials(first.ctx)).accessToken).toBe('rc-token-1234');
		expect((await getCredentials(second.ctx)).accessToken).toBe('rc-token-5678');
	});

	it('reads it each time in a context that is not a node run (a trigger sees a changed credential at once)', async () => {
		let token = 'rc-token-1234';
		const { ctx, getCredentials: read } = context(async () => ({ ...GOOD, accessToken: token }), false);
		expect((await getCredentials(ctx)).accessToken).toBe('rc-token-1234');
		token = 'rc-token-5678';
		expect((await getCredentials(ctx)).accessToken).toBe('rc-token-5678');
		expect(read).toHaveBeenCalledTimes(2);
	});

	it('does not keep a read that failed', async () => {
		let token = '';
		const { ctx, getCredentials: read } = context(async () => ({ ...GOOD, accessToken: token }), true);
		await expect(getCredentials(ctx)).rejects.toThrow('has no access token');
		token = 'rc-token-1234';
		expect((await getCredentials(ctx)).accessToken).toBe('rc-token-1234');
		expect(read).toHaveBeenCalledTimes(2);
	});
});
