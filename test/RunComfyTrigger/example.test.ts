/**
 * examples/trigger-training-finished.json in the in-process engine: the trigger's parameters as the example sets
 * them (with a sandbox job id in place of the placeholder) poll the sandbox, and the example's RunComfy Model node
 * runs on the emitted item, so the example's expressions ($json.latest_checkpoint_url, $json.name) are proven.
 * The real-n8n run of the activated workflow is the e2e suite's (test/e2e/trigger.test.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import example from '../../examples/trigger-training-finished.json';
import type { Sandbox } from '../../sandbox';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { runNode } from '../helpers/engine';
import { credentialsFor, jobReaches, openSandbox, pollOnce, readyDataset, submitJob } from './setup';

const nodeOf = (type: string) => {
	const node = example.nodes.find((n) => n.type === type);
	if (!node) throw new Error(`the example has no ${type} node`);
	return node;
};

describe('examples/trigger-training-finished.json', () => {
	let sb: Sandbox;
	beforeAll(async () => {
		sb = await openSandbox();
	});
	afterAll(async () => await sb.close());

	it('is a trigger → filter → model workflow with the placeholder the e2e suite replaces', () => {
		const trigger = nodeOf('n8n-nodes-runcomfy.runComfyTrigger');
		expect(trigger.name).toBe('RunComfy Trigger');
		expect(trigger.parameters).toMatchObject({ event: 'trainingJob', jobIds: 'YOUR_TRAINING_JOB_ID' });
		expect(nodeOf('n8n-nodes-base.filter').name).toBe('Only Finished Jobs');
		expect(Object.keys(example.connections)).toEqual(['RunComfy Trigger', 'Only Finished Jobs']);
		const filter = nodeOf('n8n-nodes-base.filter').parameters as IDataObject;
		expect(JSON.stringify(filter)).toContain('training.finished');
	});

	it('fires for the finished job and the Model node tries the new checkpoint as LoRA', async () => {
		await readyDataset(sb, 'dogs');
		const jobId = await submitJob(sb, 'sks_dog', 'dogs', 20);
		await jobReaches(sb, jobId, (j) => j.status === 'STOPPED');
		// The job finished before this first poll: "Fire for Already Finished" lets it fire (off in the example).
		const triggerParams = {
			...(nodeOf('n8n-nodes-runcomfy.runComfyTrigger').parameters as INodeParameters),
			jobIds: jobId,
			fireForExisting: true,
		};
		const staticData: IDataObject = {};

		const events = await pollOnce(sb, triggerParams, staticData);
		expect(events?.map((e) => e.event)).toEqual(['training.finished']);
		// What the Filter keeps, the Model node gets.
		const kept = events!.filter((e) => e.event === 'training.finished');
		sb.clearLog();
		const model = nodeOf('n8n-nodes-runcomfy.runComfyModel');
		const result = await runNode({
			node: new RunComfyModel(),
			typeVersion: model.typeVersion,
			parameters: {
				...(model.parameters as INodeParameters),
				waitOptions: { maxWaitSeconds: 20, pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 },
			},
			credentials: credentialsFor(sb),
			inputItems: kept.map((json) => ({ json })),
			nodeName: model.name,
		});
		expect(result.error).toBeUndefined();
		expect(result.items).toHaveLength(1);
		expect(result.items[0].json.status).toBe('succeeded');
		expect(result.items[0].binary?.data).toBeDefined();
		const submit = sb.log().find((e) => e.api === 'model' && e.method === 'POST');
		expect(submit?.body).toEqual({
			prompt: 'a photo of sks dog on the beach, trained LoRA sks_dog',
			lora: { path: `${sb.urls.files}/files/train/${jobId}/sks_dog.safetensors` },
		});

		// The next scheduled poll has nothing new.
		expect(await pollOnce(sb, triggerParams, staticData)).toBeNull();
	});
});
