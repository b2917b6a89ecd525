/**
 * Wait Options → Polling Goal: offered where runs teach how long the next ones take (model runs, deployment
 * requests), read per item and checked before anything is paid, and handed to the wait engine. What the goal does
 * to the schedule: test/shared/wait/planner.test.ts and batch.test.ts.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { RunComfyDeployment } from '../../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../../nodes/RunComfyTraining/RunComfyTraining.node';
import { DATASET_WAIT, INFERENCE_WAIT, TRAINING_WAIT, readWaitOptions } from '../../../nodes/shared/jobs';

/** Just what the option reader asks of an execute context: parameters by dot path, the node, no agent. */
function contextWith(parameters: IDataObject): IExecuteFunctions {
	return {
		getNode: () => ({ id: 'node-1', name: 'Run' }) as INode,
		isToolExecution: () => false,
		getNodeParameter: (path: string, _item: number, fallback: unknown) => {
			const value = path.split('.').reduce<unknown>((at, key) => (at as IDataObject | undefined)?.[key], parameters);
			return value === undefined ? fallback : value;
		},
	} as unknown as IExecuteFunctions;
}

const goalOf = (properties: INodeProperties[], operation: string) =>
	properties
		.filter((p) => p.name === 'waitOptions' && p.displayOptions?.show?.operation?.includes(operation))
		.flatMap((p) => (p.options as INodeProperties[]).filter((o) => o.name === 'pollingGoal'));

describe('Wait Options → Polling Goal', () => {
	it('is offered on Model → Run and Deployment → Run, defaulting to the lowest delay, and not where nothing is learned', () => {
		const [model] = goalOf(new RunComfyModel().description.properties, 'run');
		expect(model.default).toBe('lowestDelay');
		expect((model.options as Array<{ value: string }>).map((o) => o.value).sort()).toEqual(['fewestRequests', 'lowestDelay']);
		expect(goalOf(new RunComfyDeployment().description.properties, 'run')).toHaveLength(1);
		const training = new RunComfyTraining().description.properties.filter((p) => p.name === 'waitOptions');
		expect(training.length).toBeGreaterThan(0);
		expect(training.flatMap((p) => p.options as INodeProperties[]).some((o) => o.name === 'pollingGoal')).toBe(false);
	});

	it('"Fewest Requests" reaches the wait engine; unset or "Lowest Delay" leaves the engine its default', () => {
		const read = (waitOptions: IDataObject) => readWaitOptions(contextWith({ waitOptions }), 0, INFERENCE_WAIT).pollingGoal;
		expect(read({ pollingGoal: 'fewestRequests' })).toBe('fewestRequests');
		expect(read({ pollingGoal: 'lowestDelay' })).toBeUndefined();
		expect(read({})).toBeUndefined();
		expect(read({ pollingGoal: '' })).toBeUndefined();
	});

	it('a value that is not a goal, e.g. from an expression, is refused naming the field, the item and the value', () => {
		for (const bad of ['fastest', 3, { goal: 'x' }, true]) {
			expect(() => readWaitOptions(contextWith({ waitOptions: { pollingGoal: bad } }), 2, INFERENCE_WAIT)).toThrow(
				`"Polling Goal" of item 2 must be one of lowestDelay, fewestRequests, but is ${JSON.stringify(bad)}`,
			);
		}
	});

	it('is ignored where runs teach nothing (training jobs, datasets)', () => {
		for (const defaults of [TRAINING_WAIT, DATASET_WAIT]) {
			const read = readWaitOptions(contextWith({ waitForCompletion: true, waitOptions: { pollingGoal: 'fastest' } }), 0, defaults);
			expect(read.pollingGoal).toBeUndefined();
		}
	});
});
