/**
 * Early downloads (nodes/shared/jobs/outcomes.ts `Presenter`) and what cannot be undone: with Delete Request After
 * Download a request is deleted only once every item of the node was presented (`afterBatch`), so a node that
 * fails or is stopped deletes nothing it did not output (and Retry On Fail or Get Result can still pick the good
 * request up). Run and Get Result alike.
 */
import { runNode } from '../helpers/engine';
import { FAST_WAIT, credentialsFor, deploymentId, inferences, isRequestDelete, locator, node, runJson, until, useSandbox } from './setup';

const sb = useSandbox();

const GOOD = 'sdxl-text-to-image';
const FAILS = 'flux-image-to-image';

/** Two items, one per deployment (from `$json.d`), Delete Request After Download on. */
const twoDeployments = (first: string, second: string, wait: object = {}) => ({
	inputItems: [{ json: { d: first } }, { json: { d: second } }],
	parameters: {
		...runJson(
			first,
			{ '6': { inputs: { text: 'a lighthouse' } } },
			{ downloadOutputs: true, options: { deleteRequestAfterDownload: true }, waitOptions: { ...FAST_WAIT, maxWaitSeconds: 30, ...wait } },
		),
		deploymentId: { __rl: true, mode: 'id', value: '={{ $json.d }}' },
	},
});

/** The request id of the (one) inference submitted to `deployment`. */
const requestOf = (deployment: string) => String(inferences(sb).find((e) => e.path.includes(`/deployments/${deployment}/`))?.createdId);

const RETRY = { retryOnFail: true, maxTries: 2, waitBetweenTries: 10 };

const isFileOf = (requestId: string) => (e: { api: string; path: string }) => e.api === 'files' && e.path.includes(requestId);

/** Holds back every file answer of one request, so Stop can come while its download is in flight. */
const holdFilesOf = (requestId: string) =>
	sb.configure({ faults: { rateSlow: 1, slowMs: 3000, pathPrefixes: [`/files/outputs/${requestId}/`] } });

describe('Delete Request After Download with early downloads', () => {
	it('a batch that fails deletes none of its requests', async () => {
		const good = deploymentId(sb, GOOD);
		const bad = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [good]: 30, [bad]: 1500 }, failingModels: { [bad]: 'CUDA out of memory' } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoDeployments(good, bad) });
		expect(result.status).toBe('error');
		expect(inferences(sb)).toHaveLength(2);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(0);
	});

	it('a batch that succeeds deletes each request after its files are downloaded', async () => {
		const first = deploymentId(sb, GOOD);
		const second = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [first]: 30, [second]: 600 } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoDeployments(first, second) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => i.json.request_deleted)).toEqual([true, true]);
		const ids = inferences(sb).map((e) => e.createdId);
		expect(
			sb
				.log()
				.filter(isRequestDelete)
				.map((e) => ids.find((id) => e.path.endsWith(`/requests/${id}`))),
		).toEqual(expect.arrayContaining(ids));
	});
	it('Stop during another item’s download deletes nothing, not even the request whose files arrived', async () => {
		const first = deploymentId(sb, GOOD);
		const second = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [first]: 30, [second]: 300 } });
		let secondId = '';
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			// One presentation at a time (Parallel Status Checks 1): the first request's files arrive before the second's begin.
			...twoDeployments(first, second, { concurrency: 1 }),
			onStart: (stop) => {
				void until(() => inferences(sb).length === 2, 'both submitted')
					.then(() => {
						secondId = requestOf(second);
						holdFilesOf(secondId);
						return until(() => sb.log().some(isFileOf(secondId)), 'the second request’s download started');
					})
					.then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		const firstId = requestOf(first);
		expect(sb.log().filter(isFileOf(firstId)).length).toBeGreaterThan(0);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(0);
	});

	it('Retry On Fail with Continue on Fail: a try that n8n runs again deletes nothing; the last one deletes', async () => {
		const good = deploymentId(sb, GOOD);
		const bad = deploymentId(sb, FAILS);
		sb.reset({ queueMs: 0, modelDurations: { [good]: 30, [bad]: 30 }, failingModels: { [bad]: 'CUDA out of memory' } });
		// The failing request is the first item: n8n runs the node again while the first item is an error.
		const result = await runNode({
			node,
			continueOnFail: true,
			nodeOverrides: RETRY,
			credentials: credentialsFor(sb),
			...twoDeployments(bad, good),
		});
		expect(result.status).toBe('success');
		const goodItem = result.items[1];
		expect(goodItem.json).toMatchObject({ deployment_id: good, request_id: requestOf(good), request_deleted: true });
		expect(goodItem.json.error).toBeUndefined();
		// Submitted once (the retries picked it up), deleted once (on the last try).
		expect(inferences(sb).filter((e) => e.path.includes(`/deployments/${good}/`))).toHaveLength(1);
		expect(inferences(sb).filter((e) => e.path.includes(`/deployments/${bad}/`))).toHaveLength(RETRY.maxTries);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(1);
	});
});

describe('Get Result with Delete Request After Download', () => {
	/** Submits one request to `name` without waiting and waits until the sandbox has it completed. */
	async function completed(name: typeof GOOD | typeof FAILS): Promise<{ d: string; r: string }> {
		const d = deploymentId(sb, name);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(d, { '6': { inputs: { text: 'a fox' } } }, { waitForCompletion: false }),
		});
		const r = String(result.items[0].json.request_id);
		await until(() => sb.state().runs.find((run) => run.id === r)?.status === 'completed', `request ${r} completed`);
		return { d, r };
	}

	const getResults = (requests: Array<{ d: string; r: string }>) => ({
		inputItems: requests.map((json) => ({ json })),
		parameters: {
			resource: 'inference',
			operation: 'getResult',
			deploymentId: locator('={{ $json.d }}', 'id'),
			requestId: '={{ $json.r }}',
			downloadOutputs: true,
			options: { deleteRequestAfterDownload: true },
		},
	});

	it('Stop during the second item’s download deletes nothing', async () => {
		// First in this block: the sandbox sends the held-back answer while the other tests run.
		sb.reset({ queueMs: 0, runDurationMs: 30 });
		const first = await completed(GOOD);
		const second = await completed(FAILS);
		holdFilesOf(second.r);
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			...getResults([first, second]),
			onStart: (stop) => {
				void until(() => sb.log().some(isFileOf(second.r)), 'the second request’s download started').then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		expect(sb.log().filter(isFileOf(first.r)).length).toBeGreaterThan(0);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(0);
	});

	it('an item that fails (without Continue on Fail) leaves the good requests on the service', async () => {
		sb.reset({ queueMs: 0, runDurationMs: 30 });
		const good = await completed(GOOD);
		const result = await runNode({ node, credentials: credentialsFor(sb), ...getResults([good, { d: good.d, r: 'not-a-request' }]) });
		expect(result.status).toBe('error');
		expect(sb.log().filter(isFileOf(good.r)).length).toBeGreaterThan(0);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(0);
	});

	it('Retry On Fail with Continue on Fail: deleted only on the last try, and found on every try', async () => {
		sb.reset({ queueMs: 0, runDurationMs: 30 });
		const good = await completed(GOOD);
		const result = await runNode({
			node,
			continueOnFail: true,
			nodeOverrides: RETRY,
			credentials: credentialsFor(sb),
			...getResults([{ d: good.d, r: 'not-a-request' }, good]),
		});
		expect(result.status).toBe('success');
		expect(result.items[1].json).toMatchObject({ request_id: good.r, status: 'succeeded', request_deleted: true });
		expect(sb.log().filter(isFileOf(good.r)).length).toBe(RETRY.maxTries);
		expect(sb.log().filter(isRequestDelete)).toHaveLength(1);
	});

	it('under Continue on Fail the good requests are deleted beside the failed item', async () => {
		sb.reset({ queueMs: 0, runDurationMs: 30 });
		const good = await completed(GOOD);
		const result = await runNode({
			node,
			continueOnFail: true,
			credentials: credentialsFor(sb),
			...getResults([good, { d: good.d, r: 'not-a-request' }]),
		});
		expect(result.status).toBe('success');
		expect(result.items.map((i) => i.json.request_deleted)).toEqual([true, undefined]);
		expect(result.items[1].json.error).toEqual(expect.any(String));
		expect(sb.log().filter(isRequestDelete)).toHaveLength(1);
	});
});
