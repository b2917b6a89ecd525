/**
 * A batch's downloads begin as each run is seen ended (nodes/shared/jobs/outcomes.ts `Presenter`), not after the
 * last run: the batch then ends with its last run's files. A batch that fails or is stopped still ends as before.
 */
import { runNode } from '../helpers/engine';
import { FAST_WAIT, MODELS, credentialsFor, isSubmit, node, runParams, until, useSandbox } from './setup';

const QUICK = MODELS.flash;
const SLOW = 'blackforestlabs/flux-2/pro/text-to-image';

const sb = useSandbox();

/** Two items, one per model, the model from each item (`$json.model`). */
const twoModels = (quick: string, slow: string, extra: Record<string, unknown> = {}) => ({
	inputItems: [{ json: { model: quick } }, { json: { model: slow } }],
	parameters: runParams(
		QUICK,
		{ prompt: 'a lighthouse' },
		{ model: { __rl: true, mode: 'id', value: '={{ $json.model }}' }, waitOptions: { ...FAST_WAIT, maxWaitSeconds: 60 }, ...extra },
	),
});

const runOf = (model: string) => {
	const run = sb.state().runs.find((r) => r.target === model);
	if (!run) throw new Error(`no run of ${model}`);
	return run;
};
const downloadsOf = (runId: string) => sb.log().filter((e) => e.api === 'files' && e.path.includes(runId));

describe('downloads begin as each run ends', () => {
	it('Stop while an early download is in flight outputs every run as stopped, with its id', async () => {
		// Every file answer is held back, so the quick run's download is still going when Stop comes. (First in this
		// file: the sandbox finishes the held-back answer while the other tests run.)
		sb.reset({
			queueMs: 0,
			modelDurations: { [QUICK]: 50, [SLOW]: 60_000 },
			faults: { rateSlow: 1, slowMs: 2000, pathPrefixes: ['/files/'] },
		});
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			...twoModels(QUICK, SLOW),
			onStart: (stop) => {
				void until(() => sb.log().some((e) => e.api === 'files'), 'the quick run’s download started').then(stop);
			},
		});
		expect(result.stopped).toBe(true);
		const ids = sb
			.log()
			.filter(isSubmit)
			.map((e) => e.createdId);
		expect(ids).toHaveLength(2);
		expect(downloadsOf(runOf(QUICK).id)).toHaveLength(1);
	});

	it("downloads a run's files while the batch's other runs are still going", async () => {
		sb.reset({ queueMs: 0, modelDurations: { [QUICK]: 50, [SLOW]: 3000 } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoModels(QUICK, SLOW) });
		expect(result.error).toBeUndefined();
		expect(result.items.map((i) => Object.keys(i.binary ?? {}))).toEqual([['data'], ['data']]);
		const quick = runOf(QUICK);
		const slow = runOf(SLOW);
		const [firstDownload] = downloadsOf(quick.id);
		expect(firstDownload).toBeDefined();
		expect(firstDownload.time).toBeLessThan(slow.finishedAt as number);
		// Each file once, and the slow run's after it ended.
		expect(downloadsOf(quick.id)).toHaveLength(1);
		expect(downloadsOf(slow.id)).toHaveLength(1);
		expect(downloadsOf(slow.id)[0].time).toBeGreaterThanOrEqual(slow.finishedAt as number);
	});

	it('a run that fails later still fails the node (without Continue on Fail), with every request id', async () => {
		sb.reset({ queueMs: 0, modelDurations: { [QUICK]: 50, [MODELS.fails]: 1500 } });
		const result = await runNode({ node, credentials: credentialsFor(sb), ...twoModels(QUICK, MODELS.fails) });
		expect(result.status).toBe('error');
		const failed = runOf(MODELS.fails);
		expect(result.error?.message).toContain(failed.id);
		// The good run's file was downloaded early, and is not output: the node failed.
		expect(downloadsOf(runOf(QUICK).id)).toHaveLength(1);
		expect(result.items).toHaveLength(0);
	});

	it('after a run failed (without Continue on Fail), the downloads not begun yet never begin', async () => {
		// Six quick runs: four downloads in flight (held back 3 s by the sandbox), two waiting for a slot when the
		// failed run ends the batch.
		sb.reset({
			queueMs: 0,
			modelDurations: { [QUICK]: 50, [MODELS.fails]: 400 },
			faults: { rateSlow: 1, slowMs: 3000, pathPrefixes: ['/files/'] },
		});
		const models = [...Array(6).fill(QUICK), MODELS.fails] as string[];
		const result = await runNode({
			node,
			credentials: credentialsFor(sb),
			inputItems: models.map((model) => ({ json: { model } })),
			parameters: twoModels(QUICK, MODELS.fails).parameters,
		});
		expect(result.status).toBe('error');
		expect(sb.log().filter(isSubmit)).toHaveLength(7);
		expect(sb.log().filter((e) => e.api === 'files')).toHaveLength(4);
	});

	it('under Continue on Fail the early download is kept beside the failed item', async () => {
		sb.reset({ queueMs: 0, modelDurations: { [QUICK]: 50, [MODELS.fails]: 1500 } });
		const result = await runNode({ node, continueOnFail: true, credentials: credentialsFor(sb), ...twoModels(QUICK, MODELS.fails) });
		expect(result.status).toBe('success');
		const [good, bad] = result.items;
		expect(Object.keys(good.binary ?? {})).toEqual(['data']);
		expect(good.json.request_id).toBe(runOf(QUICK).id);
		expect(bad.json).toMatchObject({ request_id: runOf(MODELS.fails).id, error: expect.any(String) });
	});
});
