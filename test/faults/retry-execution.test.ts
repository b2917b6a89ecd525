/**
 * n8n's Retry of a failed execution (Executions list → Retry) runs the failed node again in a new execution
 * (mode `retry`) that keeps the failed execution's custom data (n8n execution.service `retry`). Model → Run must
 * pay only for what definitively failed: proven by counting paid submits per prompt in the sandbox log over both
 * executions. The real REST retry is in test/e2e/retry-execution.test.ts.
 */

import { parseRecord } from '../../nodes/shared/jobs/paidRecord';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { MODEL_RUN_PARAMETERS } from '../../scripts/e2e/polling';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import {
	STABLE,
	credentialsFor,
	direct,
	isModelStatus,
	isModelSubmit,
	requestIdIn,
	runsOfPrompt,
	submitsPerPrompt as submitsPerPromptIn,
	untilOrEnded,
	useFaultSandbox,
} from '../helpers/faults-setup';

const WAIT = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05, maxWaitSeconds: 20 };
const sb = useFaultSandbox();

/** Three prompts; item 2 runs on `model`. */
function execution(
	model: string,
	how: { mode?: 'retry'; customData?: Record<string, string>; maxWaitSeconds?: number; continueOnFail?: boolean } = {},
) {
	return runNode({
		node: new RunComfyModel(),
		nodeName: 'Make Images',
		credentials: credentialsFor(sb),
		inputItems: [0, 1, 2].map((i) => ({ json: { prompt: `item ${i}`, model: i === 2 ? model : STABLE.flash } })),
		parameters: {
			...MODEL_RUN_PARAMETERS,
			waitOptions: { ...WAIT, maxWaitSeconds: how.maxWaitSeconds ?? WAIT.maxWaitSeconds, onTimeout: 'fail' },
		},
		...(how.mode ? { mode: how.mode } : {}),
		...(how.customData ? { customData: how.customData } : {}),
		...(how.continueOnFail ? { continueOnFail: true } : {}),
	});
}

/** What n8n's Retry gives the new execution: the failed one's custom data. */
const customDataOf = (result: RunNodeResult) => ({ ...(result.run.data.resultData.metadata ?? {}) }) as Record<string, string>;

const submitsPerPrompt = () => submitsPerPromptIn(sb);
const runsOf = (prompt: string) => runsOfPrompt(sb, prompt);

beforeEach(() => {
	sb.reset({ runDurationMs: 30, queueMs: 0, walletMicrodollars: 10_000_000 });
});

describe("n8n's Retry of a failed execution (Model → Run, 3 items)", () => {
	it('a run that timed out is followed, not paid again: 3 paid runs over both executions', async () => {
		// Item 2 queues behind a run that holds the model's only slot for an hour, so no machine is slow enough
		// for it to end before the first execution's deadline; the slot is freed once the retry has seen it waiting.
		sb.configure({ capacities: { [STABLE.seedream]: 1 }, modelDurations: { [STABLE.seedream]: 3_600_000 } });
		expect((await direct(sb, 'modelApi', 'POST', `/v1/models/${STABLE.seedream}`, { prompt: 'holds the slot' })).status).toBe(200);
		sb.configure({ modelDurations: { [STABLE.seedream]: 30 } });
		const failed = await execution(STABLE.seedream, { maxWaitSeconds: 0.5 });
		expect(failed.status).toBe('error');
		expect(failed.error?.message).toMatch(/did not finish within/);
		const [waiting] = runsOf('item 2');
		expect(waiting.status).toBe('in_queue');

		const before = Math.max(...sb.log().map((e) => e.seq));
		const retrying = execution(STABLE.seedream, { mode: 'retry', customData: customDataOf(failed) });
		const seenWaiting = () => sb.log(before).some((e) => isModelStatus(e) && e.status === 200 && requestIdIn(e) === waiting.id);
		expect(await untilOrEnded(seenWaiting, retrying)).toBe(true);
		sb.configure({ capacities: { [STABLE.seedream]: 0 } });
		const retried = await retrying;
		expect(retried.status).toBe('success');
		for (const i of [0, 1, 2]) {
			expect(submitsPerPrompt().get(`item ${i}`)).toBe(1);
			expect(retried.items[i].json).toMatchObject({ request_id: runsOf(`item ${i}`)[0].id, status: 'succeeded' });
		}
		// The retried execution's record still names every paid run (n8n saves it again).
		expect(parseRecord(customDataOf(retried).runcomfy_Make_Images, 0).items.size).toBe(3);
	});

	it('only the run that definitively failed on RunComfy is paid again', async () => {
		const failed = await execution(STABLE.fails);
		expect(failed.status).toBe('error');

		const retried = await execution(STABLE.fails, { mode: 'retry', customData: customDataOf(failed) });
		expect(retried.status).toBe('error');
		const counts = submitsPerPrompt();
		expect(counts.get('item 0')).toBe(1);
		expect(counts.get('item 1')).toBe(1);
		expect(counts.get('item 2')).toBe(2);
		expect(retried.error?.message).toContain(runsOf('item 2')[1].id);
	});

	it('a submission whose answer was lost is never sent again: the item fails, naming where to find its id', async () => {
		sb.configure({ faults: { rate5xx: 1, paidFaultTiming: 'after', methods: ['POST'], pathPrefixes: [`/v1/models/${STABLE.seedream}`] } });
		const failed = await execution(STABLE.seedream);
		expect(failed.status).toBe('error');
		expect(customDataOf(failed).runcomfy_Make_Images).toMatch(/(^| )2:\?( |$)/);

		sb.configure({ faults: {} });
		const retried = await execution(STABLE.seedream, { mode: 'retry', customData: customDataOf(failed), continueOnFail: true });
		expect(retried.status).toBe('success');
		expect(retried.items[2].json.error).toBe(
			'Item 2 is not submitted again: in the execution this one retries its run may have been accepted (no answer was seen)',
		);
		expect(String(retried.items[2].json.errorDescription ?? retried.items[2].json.description ?? '')).toMatch(/Model → Get Result/);
		for (const i of [0, 1]) expect(retried.items[i].json.request_id).toBe(runsOf(`item ${i}`)[0].id);
		expect(submitsPerPrompt().get('item 2')).toBe(1);
		expect(submitsPerPrompt().get('item 0')).toBe(1);
	});

	it('a record cut short: items it does not list are refused, and nothing new is paid', async () => {
		const retried = await execution(STABLE.flash, { mode: 'retry', customData: { runcomfy_Make_Images: '0:abc +2 more, see the log' } });
		expect(retried.status).toBe('error');
		expect(retried.error?.message).toMatch(
			/^Item 1 is not submitted again: the execution this one retries paid for more runs than its custom data lists/,
		);
		expect(sb.log().filter(isModelSubmit)).toHaveLength(0);
	});

	it('outside a retry the same custom data is not read: every item is paid', async () => {
		const result = await execution(STABLE.flash, { customData: { runcomfy_Make_Images: '0:abc 1:def 2:ghi' } });
		expect(result.status).toBe('success');
		expect(sb.log().filter(isModelSubmit)).toHaveLength(3);
	});
});

describe('the record a retry reads', () => {
	it('takes the entries of its own run (a node in a loop) and the last per item', () => {
		const record = parseRecord('0:a 1:b 1.0:c 1.1:? 1.0:d 2.0:e', 1);
		expect([...record.items]).toEqual([
			[0, 'd'],
			[1, '?'],
		]);
		expect(record.truncated).toBe(false);
		expect(parseRecord('0:a +3 more, see the log', 0)).toEqual({ items: new Map([[0, 'a']]), truncated: true });
		expect(parseRecord(undefined, 0)).toEqual({ items: new Map(), truncated: false });
	});
});
