/**
 * n8n's "Retry On Fail" (node settings) runs the whole node again when it fails, up to Max Tries times, in the same
 * process and execution (n8n-core workflow-execute.js: the try loop around runNode, and the `checkFailure` loop
 * that also runs it again when the first output item carries `error`). Model → Run must never pay twice for it:
 * proven by counting the paid submits per prompt in the sandbox log over the whole execution.
 *
 * - a run that definitively failed on the service is submitted again on each try (that is what Retry On Fail asks);
 * - every good item is submitted exactly once and picked up again by the later tries;
 * - an item whose submission may have been accepted (answer lost) is never sent again;
 * - the memory of what was submitted is freed when the execution ends.
 */

import { rememberedCount } from '../../nodes/shared/jobs/memory';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { MODEL_RUN_PARAMETERS } from '../../scripts/e2e/polling';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import { STABLE, credentialsFor, runsOfPrompt, submitsPerPrompt as submitsPerPromptIn, useFaultSandbox } from '../helpers/faults-setup';

/** Retry On Fail with 3 tries; n8n turns a wait of 0 into 1000 ms, so 10 ms keeps the test quick. */
const RETRY = { retryOnFail: true, maxTries: 3, waitBetweenTries: 10 };
const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const N = 5;
const SEEDREAM = 'bytedance/seedream-4/text-to-image';

const sb = useFaultSandbox();

/** Five prompts; `special` of them runs on another model (one that fails, or one whose answers are lost). */
function batch(special: number, specialModel: string) {
	return {
		inputItems: Array.from({ length: N }, (_, i) => ({
			json: { prompt: `item ${i}`, model: i === special ? specialModel : STABLE.flash },
		})),
		parameters: {
			...MODEL_RUN_PARAMETERS,
			waitOptions: WAIT,
		},
	};
}

async function run(special: number, specialModel: string, extra: { continueOnFail?: boolean } = {}): Promise<RunNodeResult> {
	return await runNode({
		node: new RunComfyModel(),
		credentials: credentialsFor(sb),
		nodeOverrides: RETRY,
		...batch(special, specialModel),
		...extra,
	});
}

const submitsPerPrompt = () => submitsPerPromptIn(sb);
const runsOf = (prompt: string) => runsOfPrompt(sb, prompt);

beforeEach(() => {
	sb.reset({ runDurationMs: 30, queueMs: 0, walletMicrodollars: 10_000_000 });
});

describe('Model → Run with Retry On Fail (3 tries)', () => {
	it('a run that fails on the service is submitted again on each try; the four good prompts exactly once', async () => {
		const result = await run(2, STABLE.fails);

		// Every try failed on item 2's run, so the node fails after the third.
		expect(result.status).toBe('error');
		const failedIds = runsOf('item 2').map((r) => r.id);
		expect(failedIds).toHaveLength(3);
		expect(result.error?.message).toContain(failedIds[2]);

		const counts = submitsPerPrompt();
		expect(counts.get('item 2')).toBe(3);
		for (const i of [0, 1, 3, 4]) {
			expect(counts.get(`item ${i}`)).toBe(1);
			expect(runsOf(`item ${i}`)).toHaveLength(1);
		}
		// Charged: the four good runs once, the failing one three times.
		expect(sb.state().walletMicrodollars).toBe(10_000_000 - 4 * 40_000 - 3 * 1_000);
		expect(rememberedCount()).toBe(0);
	});

	it('Continue on Fail: n8n runs the node again while the first item is an error; good items are not paid again', async () => {
		const result = await run(0, STABLE.fails, { continueOnFail: true });

		expect(result.status).toBe('success');
		expect(result.items).toHaveLength(N);
		const counts = submitsPerPrompt();
		expect(counts.get('item 0')).toBe(3);
		for (const i of [1, 2, 3, 4]) expect(counts.get(`item ${i}`)).toBe(1);

		// The last try's output: item 0 is its third failed run, the others are the runs of the first try.
		expect(result.items[0].json.error).toEqual(expect.stringContaining(runsOf('item 0')[2].id));
		for (const i of [1, 2, 3, 4]) {
			const item = result.items[i];
			expect(item.pairedItem).toEqual({ item: i });
			expect(item.json.error).toBeUndefined();
			expect(item.json.status).toBe('succeeded');
			expect(item.json.request_id).toBe(runsOf(`item ${i}`)[0].id);
		}
		expect(rememberedCount()).toBe(0);
	});

	it('an item whose submission may have been accepted is never sent again; the good ones exactly once', async () => {
		// Item 4's model answers 500 after creating the run: the node cannot know it was accepted.
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: [`/v1/models/${SEEDREAM}`] } });
		const result = await run(4, SEEDREAM);

		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/Item 4 is not submitted again: on an earlier try of this node its run may have been accepted/);
		// Whatever was accepted is named, so nothing is lost.
		for (const i of [0, 1, 2, 3]) expect(result.error?.description).toContain(runsOf(`item ${i}`)[0].id);

		const counts = submitsPerPrompt();
		expect(counts.get('item 4')).toBe(1);
		expect(runsOf('item 4')).toHaveLength(1);
		for (const i of [0, 1, 2, 3]) expect(counts.get(`item ${i}`)).toBe(1);
		expect(rememberedCount()).toBe(0);
	});

	it('On Timeout = Fail: the runs still running are waited for again on each try, never submitted again', async () => {
		sb.reset({ runDurationMs: 60_000, queueMs: 0, walletMicrodollars: 10_000_000 });
		const slow = batch(-1, STABLE.flash);
		const result = await runNode({
			node: new RunComfyModel(),
			credentials: credentialsFor(sb),
			nodeOverrides: RETRY,
			inputItems: slow.inputItems,
			parameters: { ...slow.parameters, waitOptions: { ...WAIT, maxWaitSeconds: 0.2, onTimeout: 'fail' } },
		});
		expect(result.status).toBe('error');
		expect(result.error?.message).toMatch(/^5 runs did not finish within/);
		const counts = submitsPerPrompt();
		for (let i = 0; i < N; i++) expect(counts.get(`item ${i}`)).toBe(1);
		// Each try polled the same five runs (a poll may be a result request: the earlier tests taught this model's
		// run time, and the poll expected to see the end asks for the result).
		const polled = sb.log().flatMap((e) => /^\/v1\/requests\/([^/]+)\/(status|result)$/.exec(e.path)?.[1] ?? []);
		expect(new Set(polled).size).toBe(N);
		expect(rememberedCount()).toBe(0);
	});

	it('without Retry On Fail nothing is remembered after the node ran', async () => {
		const result = await runNode({ node: new RunComfyModel(), credentials: credentialsFor(sb), ...batch(2, STABLE.fails) });
		expect(result.status).toBe('error');
		expect(submitsPerPrompt().get('item 2')).toBe(1);
		expect(rememberedCount()).toBe(0);
	});
});
