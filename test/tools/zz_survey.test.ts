/* eslint-disable */
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyDataset } from '../../nodes/RunComfyDataset/RunComfyDataset.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { callTool, openSandbox, readyDataset, submitJob, jobReaches, submitModelRun, runReaches, submitInference, createDataset, trainingConfig } from './setup';

it('survey', async () => {
	const sb = await openSandbox();
	const ds = await readyDataset(sb, 'dogs');
	const ds2 = await createDataset(sb, 'todelete');
	const job = await submitJob(sb, 'fox', 'dogs', 10);
	const job2 = await submitJob(sb, 'preempt_x', 'dogs', 10);
	await jobReaches(sb, job, (j) => j.status === 'STOPPED');
	await jobReaches(sb, job2, (j) => j.status === 'STOPPED');
	const rid = await submitModelRun(sb);
	await runReaches(sb, rid, 'completed');
	const dep = sb.stable.deployments.textToImage;
	const drid = await submitInference(sb, dep);
	await runReaches(sb, drid, 'completed');
	const D = (v: string) => ({ __rl: true, mode: 'id', value: v });
	const M = new RunComfyModel(), DP = new RunComfyDeployment(), DS = new RunComfyDataset(), T = new RunComfyTraining();
	const W = { pollIntervalSeconds: 0.02, maxPollIntervalSeconds: 0.05 };
	const cases: Array<[string, any, any]> = [
		['model.run', M, { resource: 'model', operation: 'run', model: D('blackforestlabs/flux-2/flash/text-to-image'), inputMode: 'json', inputsJson: '{"prompt":"x"}', waitOptions: W }],
		['model.getStatus', M, { resource: 'model', operation: 'getStatus', requestId: rid }],
		['model.getResult', M, { resource: 'model', operation: 'getResult', requestId: rid }],
		['model.cancel', M, { resource: 'model', operation: 'cancel', requestId: rid }],
		['catalog.listModels', M, { resource: 'catalog', operation: 'listModels', limit: 2 }],
		['catalog.listCategories', M, { resource: 'catalog', operation: 'listCategories' }],
		['catalog.getModel', M, { resource: 'catalog', operation: 'getModel', model: D('blackforestlabs/flux-2/flash/text-to-image') }],
		['account.getBalance', M, { resource: 'account', operation: 'getBalance' }],
		['deployment.list', DP, { resource: 'deployment', operation: 'list' }],
		['deployment.get', DP, { resource: 'deployment', operation: 'get', deploymentId: D(dep) }],
		['deployment.create', DP, { resource: 'deployment', operation: 'create', name: 'n', workflowId: '0b9f7a8e-1c2d-4e3f-8a9b-000000000001', workflowVersion: 'v1' }],
		['deployment.update', DP, { resource: 'deployment', operation: 'update', deploymentId: D(dep), updateFields: { maxInstances: 2 } }],
		['deployment.pause', DP, { resource: 'deployment', operation: 'pause', deploymentId: D(sb.stable.deployments.largeVideo) }],
		['deployment.resume', DP, { resource: 'deployment', operation: 'resume', deploymentId: D(sb.stable.deployments.largeVideo) }],
		['inference.run', DP, { resource: 'inference', operation: 'run', deploymentId: D(dep), inputMode: 'json', overridesJson: '{"6":{"inputs":{"text":"x"}}}', waitOptions: W }],
		['inference.getStatus', DP, { resource: 'inference', operation: 'getStatus', deploymentId: D(dep), requestId: drid }],
		['inference.getResult', DP, { resource: 'inference', operation: 'getResult', deploymentId: D(dep), requestId: drid }],
		['inference.cancel', DP, { resource: 'inference', operation: 'cancel', deploymentId: D(dep), requestId: drid, waitOptions: W }],
		['inference.deleteRequest', DP, { resource: 'inference', operation: 'deleteRequest', deploymentId: D(dep), requestId: drid }],
		['dataset.create', DS, { resource: 'dataset', operation: 'create', name: 'cats' }],
		['dataset.list', DS, { resource: 'dataset', operation: 'list' }],
		['dataset.getStatus', DS, { resource: 'dataset', operation: 'getStatus', dataset: D(ds) }],
		['dataset.uploadCaption', DS, { resource: 'dataset', operation: 'uploadCaption', dataset: D(ds2), fileName: 'a.txt', text: 'hi', waitForCompletion: false }],
		['dataset.uploadFromUrl', DS, { resource: 'dataset', operation: 'uploadFromUrl', dataset: D(ds2), url: `${sb.urls.files}/files/a.jpg`, waitForCompletion: false }],
		['dataset.getUploadUrls', DS, { resource: 'dataset', operation: 'getUploadUrls', dataset: D(ds2), fileSizes: '{"b.jpg": 100}' }],
		['dataset.waitUntilReady', DS, { resource: 'dataset', operation: 'waitUntilReady', dataset: D(ds), waitOptions: W }],
		['dataset.delete', DS, { resource: 'dataset', operation: 'delete', dataset: D(ds2) }],
		['training.submit', T, { resource: 'trainingJob', operation: 'submit', configMode: 'text', configText: trainingConfig({ name: 'y', dataset: 'dogs' }), waitForCompletion: false }],
		['training.getStatus', T, { resource: 'trainingJob', operation: 'getStatus', jobId: job }],
		['training.getResult', T, { resource: 'trainingJob', operation: 'getResult', jobId: job }],
		['training.resume', T, { resource: 'trainingJob', operation: 'resume', jobId: job2, waitForCompletion: false }],
		['training.cancel', T, { resource: 'trainingJob', operation: 'cancel', jobId: job2 }],
		['training.edit', T, { resource: 'trainingJob', operation: 'edit', jobId: job2, configText: trainingConfig({ name: 'preempt_x', dataset: 'dogs' }) }],
	];
	const rows: string[] = [];
	for (const [name, node, parameters] of cases) {
		const r = await callTool(sb, node, parameters);
		const j = r.items[0]?.json ?? {};
		rows.push(`${name}\t${r.status}\t${r.error?.message ?? ''}\titems=${r.items.length}\tsummary=${typeof j.summary === 'string' ? 'yes' : 'NO'}\tbinary=${r.items.some((i) => i.binary)}\tbytes=${JSON.stringify(r.items.map((i) => i.json)).length}\t${String(j.summary ?? '').slice(0, 100)}`);
	}
	console.log(rows.join('\n'));
	await sb.close();
});
