/**
 * Wait Options → Learn Run Times: offered where polls follow something learned (model runs and deployment requests:
 * run times; training jobs: the pace of their steps), on by default, read per item and checked before anything is
 * paid, and handed to the wait engine as `learning` (what it does there: test/shared/wait/learningSwitch.test.ts).
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';

import { RunComfyDataset } from '../../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyDeployment } from '../../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../../nodes/RunComfyTraining/RunComfyTraining.node';
import { DATASET_WAIT, INFERENCE_WAIT, TRAINING_WAIT, readWaitOptions } from '../../../nodes/shared/jobs';

/** What the option reader asks of an execute context: parameters by dot path (raw: the expressions), the node, no agent. */
function contextWith(parameters: IDataObject, expressions: IDataObject = {}): IExecuteFunctions {
	const at = (source: IDataObject, path: string) =>
		path.split('.').reduce<unknown>((v, key) => (v as IDataObject | undefined)?.[key], source);
	return {
		getNode: () => ({ id: 'node-1', name: 'Run' }) as INode,
		isToolExecution: () => false,
		getNodeParameter: (path: string, _item: number, fallback: unknown, options?: { rawExpressions?: boolean }) => {
			const value = at(options?.rawExpressions ? { ...parameters, ...expressions } : parameters, path);
			return value === undefined ? fallback : value;
		},
	} as unknown as IExecuteFunctions;
}

const switchesOf = (properties: INodeProperties[]) =>
	properties
		.filter((p) => p.name === 'waitOptions')
		.flatMap((p) => (p.options as INodeProperties[]).filter((o) => o.name === 'learnRunTimes'));

describe('Wait Options → Learn Run Times (Learn Step Pace in Training)', () => {
	it('is offered, on by default, by Model → Run, Deployment → Run and Training; not by Dataset, which learns nothing', () => {
		const labels = { runComfyModel: 'Learn Run Times', runComfyDeployment: 'Learn Run Times', runComfyTraining: 'Learn Step Pace' };
		for (const node of [new RunComfyModel(), new RunComfyDeployment(), new RunComfyTraining()]) {
			const switches = switchesOf(node.description.properties);
			expect(switches.length).toBeGreaterThan(0);
			const displayName = labels[node.description.name as keyof typeof labels];
			for (const s of switches) expect(s).toMatchObject({ displayName, type: 'boolean', default: true });
		}
		expect(switchesOf(new RunComfyDataset().description.properties)).toHaveLength(0);
	});

	it('reaches the wait engine as `learning`: off only when switched off', () => {
		const read = (waitOptions: IDataObject, defaults = INFERENCE_WAIT) =>
			readWaitOptions(contextWith({ waitForCompletion: true, waitOptions }), 0, defaults).learning;
		expect(read({})).toBe(true);
		expect(read({ learnRunTimes: true })).toBe(true);
		expect(read({ learnRunTimes: false })).toBe(false);
		expect(read({ learnRunTimes: 'false' })).toBe(false);
		expect(read({ learnRunTimes: false }, TRAINING_WAIT)).toBe(false);
		// Datasets offer no switch: nothing there is learned either way.
		expect(read({ learnRunTimes: false }, DATASET_WAIT)).toBe(true);
	});

	it('an expression that gives nothing is refused, naming the field, the item and the expression', () => {
		const ctx = contextWith(
			{ waitForCompletion: true, waitOptions: { learnRunTimes: '' } },
			{ waitOptions: { learnRunTimes: '={{ $json.learn }}' } },
		);
		expect(() => readWaitOptions(ctx, 3, INFERENCE_WAIT)).toThrow(
			'"Learn Run Times" of item 3 is empty: its expression {{ $json.learn }} gave ""',
		);
	});

	it('a value that is not true or false is refused naming the field, the item and the value', () => {
		for (const bad of ['yes', 1, { on: true }]) {
			expect(() =>
				readWaitOptions(contextWith({ waitForCompletion: true, waitOptions: { learnRunTimes: bad } }), 2, INFERENCE_WAIT),
			).toThrow(`"Learn Run Times" of item 2 must be true or false, but is ${JSON.stringify(bad)}`);
		}
		// Training's switch is labelled by what it learns from, and its errors say that label.
		expect(() =>
			readWaitOptions(contextWith({ waitForCompletion: true, waitOptions: { learnRunTimes: 'yes' } }), 1, TRAINING_WAIT),
		).toThrow('"Learn Step Pace" of item 1 must be true or false, but is "yes"');
	});
});
