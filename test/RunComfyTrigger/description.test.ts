import codex from '../../nodes/RunComfyTrigger/RunComfyTrigger.node.json';
import { RunComfyTrigger } from '../../nodes/RunComfyTrigger/RunComfyTrigger.node';

describe('RunComfy Trigger description', () => {
	const { description } = new RunComfyTrigger();

	it("follows n8n's polling-trigger conventions", () => {
		expect(description.name).toBe('runComfyTrigger');
		expect(description.name).toMatch(/Trigger$/);
		expect(description.displayName).toBe('RunComfy Trigger');
		expect(description.polling).toBe(true);
		expect(description.inputs).toEqual([]);
		expect(description.outputs).toEqual(['main']);
		expect(description.group).toEqual(['trigger']);
		expect('usableAsTool' in description).toBe(false);
		expect(description.credentials).toEqual([{ name: 'runComfyApi', required: true }]);
		expect(codex.node).toBe('n8n-nodes-runcomfy.runComfyTrigger');
	});

	it('offers the four events, each with its own fields', () => {
		const event = description.properties.find((p) => p.name === 'event');
		expect(event?.options?.map((o) => (o as { value: string }).value).sort()).toEqual(
			['balanceBelow', 'dataset', 'request', 'trainingJob'].sort(),
		);
		const fieldsOf = (value: string) =>
			description.properties.filter((p) => (p.displayOptions?.show?.event as string[] | undefined)?.includes(value)).map((p) => p.name);
		expect(fieldsOf('trainingJob')).toEqual(['jobIds', 'fireForExisting']);
		expect(fieldsOf('dataset')).toEqual(['watchDatasets', 'dataset', 'moreDatasetIds', 'fireForExisting']);
		expect(fieldsOf('request')).toEqual(['requestType', 'deploymentId', 'requestIds', 'fireForExisting', 'webhookNotice']);
		expect(fieldsOf('balanceBelow')).toEqual(['thresholdUsd', 'fireForExisting']);
	});

	it("reuses the Dataset and Deployment nodes' pickers", async () => {
		const { searchDatasets } = await import('../../nodes/RunComfyDataset/methods/listSearch');
		const { searchDeployments } = await import('../../nodes/RunComfyDeployment/methods/listSearch');
		const trigger = new RunComfyTrigger();
		expect(trigger.methods.listSearch.searchDatasets).toBe(searchDatasets);
		expect(trigger.methods.listSearch.searchDeployments).toBe(searchDeployments);
	});
});
