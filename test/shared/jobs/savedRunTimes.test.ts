/**
 * "Remember Run Times" through n8n-core's engine (nodes/shared/jobs/savedRunTimes.ts): on, a Model → Run leaves a
 * copy of what it learned in the workflow's static data, and a fresh process (nothing in memory) given that static
 * data starts from it; off (the default), or with Learn Run Times off, the static data is left untouched, so n8n
 * has nothing to write back.
 */
import type { IDataObject } from 'n8n-workflow';

import { sharedDurations, timingKey } from '../../../nodes/shared/wait';
import { runNode } from '../../helpers/engine';
import type { RunNodeResult } from '../../helpers/engine';
import { FAST_WAIT, MODELS, credentialsFor, isSubmit, node, runParams, useSandbox } from '../../RunComfyModel/setup';

const PROMPT = 'a lighthouse at dusk';
const key = timingKey('model', MODELS.flash, '');

describe('Remember Run Times', () => {
	const sb = useSandbox({ runDurationMs: 200, queueMs: 0 });
	beforeEach(() => {
		sharedDurations.forget(key);
		sb.configure({ runDurationMs: 200 });
	});
	afterAll(() => sharedDurations.forget(key));

	const run = async (waitOptions: IDataObject, workflowStaticData?: IDataObject): Promise<RunNodeResult> =>
		await runNode({
			node,
			credentials: credentialsFor(sb),
			mode: 'trigger',
			...(workflowStaticData ? { workflowStaticData } : {}),
			parameters: runParams(MODELS.flash, { prompt: PROMPT }, { downloadOutputs: false, waitOptions: { ...FAST_WAIT, ...waitOptions } }),
		});
	const staticDataOf = (result: RunNodeResult) => result.workflow.staticData as IDataObject & { __dataChanged?: boolean };
	const savedCopyOf = (result: RunNodeResult) =>
		Object.entries(staticDataOf(result)).find(([name]) => name.startsWith('node:'))?.[1] as IDataObject | undefined;

	it('on: what the run taught is saved, without ids or inputs, and a fresh process starts from it', async () => {
		const first = await run({ rememberRunTimes: true });
		expect(first.error).toBeUndefined();
		expect(staticDataOf(first).__dataChanged).toBe(true);
		const copy = savedCopyOf(first)?.runTimes as { v: number; k: object };
		expect(copy.v).toBe(1);
		expect(Object.keys(copy.k)).toHaveLength(1);
		const text = JSON.stringify(staticDataOf(first));
		for (const secret of [MODELS.flash, PROMPT, String(first.items[0].json.request_id)]) expect(text).not.toContain(secret);

		// A restart: nothing in process memory, the static data as n8n saved it. The run lasts longer this time, so
		// its first poll (at the lower end of what was saved) sees it going even when a busy machine sends it late;
		// a run found ended by that poll would count as "the runs got faster" and start learning again.
		const saved = JSON.parse(text) as IDataObject;
		sharedDurations.forget(key);
		sb.configure({ runDurationMs: 1000 });
		const second = await run({ rememberRunTimes: true }, saved);
		expect(second.error).toBeUndefined();
		expect(sharedDurations.samples(key, 'total')).toHaveLength(2);

		sharedDurations.forget(key);
		await run({});
		expect(sharedDurations.samples(key, 'total')).toHaveLength(1);
	});

	it('off by default: the static data is neither read nor changed', async () => {
		const first = await run({ rememberRunTimes: true });
		const saved = JSON.parse(JSON.stringify(first.workflow.staticData)) as IDataObject;
		sharedDurations.forget(key);
		const second = await run({}, saved);
		expect(second.error).toBeUndefined();
		expect(staticDataOf(second).__dataChanged).not.toBe(true);
		expect(sharedDurations.samples(key, 'total')).toHaveLength(1);
	});

	it('with Learn Run Times off nothing is read or stored', async () => {
		const first = await run({ rememberRunTimes: true });
		const saved = JSON.parse(JSON.stringify(first.workflow.staticData)) as IDataObject;
		sharedDurations.forget(key);
		const second = await run({ rememberRunTimes: true, learnRunTimes: false }, saved);
		expect(second.error).toBeUndefined();
		expect(staticDataOf(second).__dataChanged).not.toBe(true);
		expect(sharedDurations.has(key)).toBe(false);
	});

	it("nothing is saved while the global static data holds another node's state (a RunComfy trigger's)", async () => {
		const global = { 'runComfyTrigger:node-1': { runs: { cursor: 'abc' } } };
		const result = await run({ rememberRunTimes: true }, { global: structuredClone(global) });
		expect(result.error).toBeUndefined();
		expect(staticDataOf(result).__dataChanged).not.toBe(true);
		expect(savedCopyOf(result)?.runTimes).toBeUndefined();
		expect(JSON.parse(JSON.stringify(staticDataOf(result).global))).toEqual(global);
	});

	it('a value that is not true or false is refused before anything is paid', async () => {
		const before = sb.log().filter(isSubmit).length;
		const result = await run({ rememberRunTimes: 'maybe' });
		expect(result.error?.message).toMatch(/"Remember Run Times" of item 0 must be true or false/);
		expect(sb.log().filter(isSubmit)).toHaveLength(before);
	});
});
