/**
 * Model → Run leaves the workflow's static data alone (docs/waiting.md, "Where"): n8n writes it back whole when an
 * execution that changed any of it ends, which would roll back another node's state, such as a polling trigger's
 * cursor. What the node learns stays in the process. A workflow saved while the removed Remember Run Times option
 * was on still carries `rememberRunTimes: true`; it changes nothing.
 */
import type { IDataObject } from 'n8n-workflow';

import { sharedDurations, timingKey } from '../../../nodes/shared/wait';
import { runNode } from '../../helpers/engine';
import { FAST_WAIT, MODELS, credentialsFor, node, runParams, useSandbox } from '../../RunComfyModel/setup';

const key = timingKey('model', MODELS.flash, '');

describe("Model → Run and the workflow's static data", () => {
	const sb = useSandbox({ runDurationMs: 200, queueMs: 0 });
	afterAll(() => sharedDurations.forget(key));

	it('learns in the process and never changes the static data, whatever another node keeps there', async () => {
		sharedDurations.forget(key);
		const gmail: IDataObject = { 'node:Gmail Trigger': { lastTimeChecked: 1_765_000_000, possibleDuplicates: ['m-1'] } };
		const runComfy: IDataObject = { ...gmail, global: { 'runComfyTrigger:node-1': { runs: { cursor: 'abc' } } } };
		const cases = [FAST_WAIT, { ...FAST_WAIT, rememberRunTimes: true }].flatMap((waitOptions) =>
			[gmail, runComfy].map((others) => ({ waitOptions, others })),
		);
		for (const { waitOptions, others } of cases) {
			const result = await runNode({
				node,
				credentials: credentialsFor(sb),
				mode: 'trigger',
				workflowStaticData: structuredClone(others),
				parameters: runParams(MODELS.flash, { prompt: 'a lighthouse at dusk' }, { downloadOutputs: false, waitOptions }),
			});
			expect(result.error).toBeUndefined();
			const staticData = result.workflow.staticData as IDataObject & { __dataChanged?: boolean };
			expect(staticData.__dataChanged).not.toBe(true);
			expect(JSON.parse(JSON.stringify(staticData))).toEqual(others);
		}
		expect(sharedDurations.has(key)).toBe(true);
	});
});
