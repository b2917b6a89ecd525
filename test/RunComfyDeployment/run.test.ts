/**
 * RunComfy Deployment node → Inference → Run: waiting (batches, timeouts, Stop cancelling the remote
 * request), results with outputs_flat, downloads, delete after download, failures under Continue on Fail,
 * the AI-tool form, and the live-service quirks switched on and off. Real n8n engine, sandbox on loopback.
 */
import { runNode } from '../helpers/engine';
import {
	FAST,
	credentialsFor,
	deploymentId,
	inferences,
	isCancel,
	isRequestDelete,
	isResult,
	isStatus,
	node,
	runJson,
	until,
	useSandbox,
} from './setup';

const sb = useSandbox();
beforeEach(() => sb.reset(FAST));

const PROMPT = { 6: { inputs: { text: 'a lighthouse at dusk' } } };

describe('Run and wait', () => {
	it('returns the result with outputs_flat (images and text), request and deployment ids, and downloads the files', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, { 10: { inputs: { image: 'https://files.example.com/x.png' } } }, { downloadOutputs: true }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		const requestId = inferences(sb)[0].createdId;
		expect(item.json).toMatchObject({ deployment_id: id, request_id: requestId, status: 'succeeded' });
		expect(item.json.finished_at).toEqual(expect.any(String));
		const flat = item.json.outputs_flat as Array<Record<string, unknown>>;
		expect(flat).toEqual([
			{
				node_id: '9',
				channel: 'images',
				url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/.*img2img_00001_\.png$/),
				filename: 'img2img_00001_.png',
				subfolder: '',
				type: 'output',
			},
			{ node_id: '13', channel: 'text', text: '1girl, solo, outdoors, sky, cloud, tree, scenery, watercolor (medium)' },
		]);
		expect((item.json.outputs as Record<string, unknown>)['9']).toBeDefined();
		expect(Object.keys(item.binary ?? {})).toEqual(['data']);
		expect(item.binary?.data.mimeType).toBe('image/png');
		expect(item.binary?.data.fileName).toBe('img2img_00001_.png');
		const png = await result.readBinary(item, 'data');
		expect(png.subarray(1, 4).toString()).toBe('PNG');
		// the download went to the file host without the token
		const download = sb.log().find((e) => e.api === 'files');
		expect(download?.authorization).toBeUndefined();
		expect(sb.log().filter(isResult)).toHaveLength(1);
		expect(item.pairedItem).toEqual({ item: 0 });
	});

	it('a batch is submitted first, then waited for together; one result per request; pairedItem kept', async () => {
		sb.configure({ runDurationMs: 150 });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const prompts = ['one', 'two', 'three', 'four'];
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: prompts.map((p) => ({ json: { p } })),
			parameters: { ...runJson(id, {}), overridesJson: '={{ JSON.stringify({ "6": { inputs: { text: $json.p } } }) }}' },
		});
		expect(result.error).toBeUndefined();
		const log = sb.log();
		const lastSubmit = Math.max(...log.filter((e) => inferences(sb).includes(e)).map((e) => e.seq));
		const firstStatus = Math.min(...log.filter(isStatus).map((e) => e.seq));
		expect(lastSubmit).toBeLessThan(firstStatus);
		expect(
			inferences(sb).map((e) => (e.body as { overrides: Record<string, { inputs: { text: string } }> }).overrides['6'].inputs.text),
		).toEqual(prompts);
		expect(log.filter(isResult)).toHaveLength(4);
		expect(result.items.map((i) => i.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
		expect(new Set(result.items.map((i) => i.json.request_id)).size).toBe(4);
		expect(result.items.every((i) => i.json.status === 'succeeded')).toBe(true);
	});

	it('Wait for Completion off returns the handle at once, with the request id', async () => {
		sb.configure({ runDurationMs: 5000 });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT, { waitForCompletion: false }) });
		const [call] = inferences(sb);
		expect(result.items[0].json).toMatchObject({
			deployment_id: id,
			request_id: call.createdId,
			status: 'queued',
			service_status: 'in_queue',
			status_url: expect.stringContaining(`/requests/${call.createdId}/status`),
		});
		expect(sb.log().filter(isStatus)).toEqual([]);
	});

	it('Delete Request After Download deletes it once every file is downloaded', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { downloadOutputs: true, options: { deleteRequestAfterDownload: true } }),
		});
		expect(result.items[0].json.request_deleted).toBe(true);
		expect(result.items[0].binary?.data).toBeDefined();
		const requestId = inferences(sb)[0].createdId;
		const deletes = sb.log().filter(isRequestDelete);
		expect(deletes.map((e) => e.path)).toEqual([expect.stringContaining(`/requests/${requestId}`)]);
		// the delete came after the download
		const downloadSeq = sb.log().find((e) => e.api === 'files')?.seq ?? Infinity;
		expect(deletes[0].seq).toBeGreaterThan(downloadSeq);
	});

	it('nothing is deleted when a file was not downloaded (host not allowed)', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb, { allowedDownloadHosts: 'files.runcomfy.net' }),
			parameters: runJson(id, PROMPT, { downloadOutputs: true, options: { deleteRequestAfterDownload: true } }),
		});
		const json = result.items[0].json;
		expect(json.request_deleted).toBe(false);
		expect(json.skipped_downloads).toEqual([
			expect.objectContaining({ path: 'outputs["9"].images[0].url', reason: expect.stringMatching(/not in the allowed download hosts/) }),
		]);
		expect(result.items[0].binary).toBeUndefined();
		expect(sb.log().filter(isRequestDelete)).toEqual([]);
		expect(sb.log().filter((e) => e.api === 'files')).toEqual([]);
	});
});

describe('Failures and Continue on Fail', () => {
	it('a failed request is an error with the service text and the request id; under Continue on Fail an item', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		sb.configure({ failingModels: { [id]: 'CUDA out of memory' } });
		const strict = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT) });
		expect(strict.status).toBe('error');
		const requestId = inferences(sb)[0].createdId as string;
		expect(strict.error?.message).toBe(`Request ${requestId} on deployment ${id} failed: CUDA out of memory`);
		expect(strict.error?.description).toContain(requestId);

		sb.clearLog();
		const lenient = await runNode({
			node,
			credentials: credentialsFor(sb),
			continueOnFail: true,
			inputItems: [{ json: {} }, { json: {} }],
			parameters: runJson(id, PROMPT),
		});
		expect(lenient.status).toBe('success');
		expect(lenient.items).toHaveLength(2);
		for (const [n, item] of lenient.items.entries()) {
			expect(item.pairedItem).toEqual({ item: n });
			expect(item.json).toMatchObject({
				deployment_id: id,
				request_id: inferences(sb)[n].createdId,
				status: 'failed',
				service_error: 'CUDA out of memory',
				error: expect.stringContaining('failed: CUDA out of memory'),
			});
		}
	});

	it('insufficient funds: the service refuses, the error says to top up; the balance guard stops first', async () => {
		sb.configure({ walletMicrodollars: 0 });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const refused = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT) });
		expect(refused.status).toBe('error');
		expect(refused.error?.description).toMatch(/Top up/);

		sb.clearLog();
		const guarded = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { options: { minimumBalanceUsd: 1 } }),
		});
		expect(guarded.error?.message).toMatch(/below the minimum of \$1\.00/);
		expect(inferences(sb)).toEqual([]);
	});

	it('invalid Wait Options are refused before any paid call', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { waitOptions: { maxWaitSeconds: 0 } }),
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toBe('"Max Wait (Seconds)" of item 0 must be above 0, but is 0');
		expect(inferences(sb)).toEqual([]);
	});
});

describe('Timeouts', () => {
	beforeEach(() => sb.configure({ runDurationMs: 60_000 }));
	const slow = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 0.3 };

	it('"Fail" names the request id, which keeps running', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { waitOptions: { ...slow, onTimeout: 'fail' } }),
		});
		const requestId = inferences(sb)[0].createdId as string;
		expect(result.error?.message).toBe(`Request ${requestId} did not finish within 0.3 s (status: in_progress)`);
		expect(result.error?.description).toMatch(/Get Result/);
		expect(sb.log().filter(isCancel)).toEqual([]);
	});

	it('left unset: version 1.1 returns the request as still running; a node saved at version 1 still fails', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const parameters = runJson(id, PROMPT, { waitOptions: slow });
		const current = await runNode({ node, credentials: credentialsFor(sb), parameters });
		expect(current.status).toBe('success');
		expect(current.items[0].json).toMatchObject({ request_id: inferences(sb)[0].createdId, still_running: true });
		const saved = await runNode({ node, credentials: credentialsFor(sb), parameters, typeVersion: 1 });
		expect(saved.error?.message).toBe(`Request ${inferences(sb)[1].createdId as string} did not finish within 0.3 s (status: in_progress)`);
	});

	it('"Return as Still Running" outputs the request id and status', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { waitOptions: { ...slow, onTimeout: 'returnRunning' } }),
		});
		expect(result.items[0].json).toMatchObject({
			deployment_id: id,
			request_id: inferences(sb)[0].createdId,
			status: 'running',
			service_status: 'in_progress',
			still_running: true,
		});
	});

	it('"Cancel the Run" cancels it on the service (contract: cancelled at once)', async () => {
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			parameters: runJson(id, PROMPT, { waitOptions: { ...slow, onTimeout: 'cancel' } }),
		});
		expect(result.items[0].json).toMatchObject({ timed_out: true, cancel_outcome: 'cancelled', still_running: false });
		expect(sb.log().filter(isCancel)).toHaveLength(1);
		expect(sb.state().runs[0].status).toBe('cancelled');
	});

	it.each([false, true])(
		'"Cancel the Run" on the live service (cancellation_requested) keeps polling until it ended (canceled spelling: %s)',
		async (american) => {
			// Cancelled at the second status poll rather than after cancelDelayMs of wall time (see requests.test.ts).
			sb.configure({ cancelDelayMs: 60_000, quirks: { deploymentCancelRequested: true, americanCanceled: american } });
			const id = deploymentId(sb, 'sdxl-text-to-image');
			const result = await runNode({
				node,
				credentials: credentialsFor(sb),
				parameters: runJson(id, PROMPT, { waitOptions: { ...slow, onTimeout: 'cancel' } }),
			});
			expect(result.error).toBeUndefined();
			expect(result.items[0].json).toMatchObject({
				timed_out: true,
				cancel_outcome: 'cancellation_requested',
				status: 'cancelled',
				still_running: false,
			});
			const log = sb.log();
			const cancelSeq = log.filter(isCancel)[0].seq;
			expect(log.filter((e) => isStatus(e) && e.seq > cancelSeq).length).toBeGreaterThanOrEqual(2);
			expect(log.filter(isCancel)).toHaveLength(1);
		},
	);
});

describe('Stop cancels the remote request', () => {
	it.each([
		['contract: cancelled at once', false],
		['live: cancellation_requested, cancelled after a few polls', true],
	])('stop() while waiting sends the cancel to the service (%s)', async (_label, requested) => {
		sb.configure({ runDurationMs: 60_000, quirks: { deploymentCancelRequested: requested } });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: [{ json: {} }, { json: {} }],
			parameters: runJson(id, PROMPT, { waitOptions: { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 60 } }),
			onStart: (stop) => {
				// Stop once the node is waiting: both requests submitted and polled.
				void until(() => sb.log().filter(isStatus).length >= 2, 'both requests polled').then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		expect(result.status).toBe('canceled');
		await until(() => sb.log().filter(isCancel).length >= 2, 'cancel requests after Stop');
		const ids = inferences(sb).map((e) => e.createdId as string);
		const cancels = sb.log().filter(isCancel);
		expect(cancels.map((e) => e.path.split('/')[6]).sort()).toEqual([...ids].sort());
		expect(cancels.every((e) => e.status === 200)).toBe(true);
		// nothing else was fetched after Stop
		expect(sb.log().filter(isResult)).toEqual([]);
		if (!requested) {
			expect(sb.state().runs.map((r) => r.status)).toEqual(['cancelled', 'cancelled']);
		}
	});
});

describe('Live-service quirks', () => {
	it('inference served only under /prod/v1: the node falls back and keeps using v1', async () => {
		sb.configure({ quirks: { inferencePaths: 'v1' } });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT) });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).toBe('succeeded');
		const accepted = inferences(sb).filter((e) => e.status < 300);
		expect(accepted).toHaveLength(1);
		expect(accepted[0].path).toMatch(/^\/prod\/v1\//);
		expect(
			sb
				.log()
				.filter(isResult)
				.every((e) => e.path.startsWith('/prod/v1/')),
		).toBe(true);
		// the refused v2 attempt created nothing
		expect(sb.state().runs).toHaveLength(1);
	});

	it.each([false, true])('results saying "completed" instead of "succeeded" (%s) are a success with downloads', async (completed) => {
		sb.configure({ quirks: { resultSaysCompleted: completed } });
		const id = deploymentId(sb, 'sdxl-text-to-image');
		const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT, { downloadOutputs: true }) });
		expect(result.error).toBeUndefined();
		expect(result.items[0].json.status).toBe('succeeded');
		expect(result.items[0].json.service_status).toBe(completed ? 'completed' : undefined);
		expect(result.items[0].binary?.data).toBeDefined();
	});

	it.each([false, true])(
		'errors as HTTP 200 with error_code (%s) are still errors: the refused inference creates nothing',
		async (http200) => {
			sb.configure({ quirks: { errorsAsHttp200: http200 } });
			const id = deploymentId(sb, 'sdxl-text-to-image');
			sb.configure({ walletMicrodollars: 0 });
			const result = await runNode({ node, credentials: credentialsFor(sb), parameters: runJson(id, PROMPT) });
			expect(result.status).toBe('error');
			expect(result.error?.message).toMatch(/10001|InsufficientFunds/);
			expect(sb.state().runs).toEqual([]);
		},
	);
});

describe('As an AI tool', () => {
	it('returns compact JSON with ids, status, URLs, texts and a summary; no binary', async () => {
		const id = deploymentId(sb, 'flux-image-to-image');
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			asTool: true,
			parameters: runJson(id, { 6: { inputs: { text: 'x' } } }, { downloadOutputs: true }),
		});
		expect(result.error).toBeUndefined();
		const [item] = result.items;
		expect(item.binary).toBeUndefined();
		expect(item.json).toEqual({
			deployment_id: id,
			request_id: inferences(sb)[0].createdId,
			status: 'succeeded',
			output_urls: [expect.stringMatching(/img2img_00001_\.png$/)],
			output_texts: ['1girl, solo, outdoors, sky, cloud, tree, scenery, watercolor (medium)'],
			summary: expect.stringMatching(/^Request .* on deployment .* is succeeded; 1 output file: http.*; 1 text output\.$/),
		});
		expect(sb.log().filter((e) => e.api === 'files')).toEqual([]);
	});
});
