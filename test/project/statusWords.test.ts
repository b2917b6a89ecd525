/* eslint-disable @n8n/community-nodes/no-restricted-imports */
/**
 * Every status list shown to a user or an AI agent says the words the nodes return: each Get Status is run
 * against a loopback service answering every word the spec gives (and the forms the live service also uses),
 * the words the nodes output must be exactly the list in nodes/shared/status.ts, and every text that lists status
 * words (tool descriptions, field and option descriptions, notices) lists exactly one of those lists.
 */
import { once } from 'events';
import http from 'http';
import type { AddressInfo } from 'net';
import type { IDataObject, INodeParameters, INodeType } from 'n8n-workflow';

import { STATUS_WORDS, wordList } from '../../nodes/shared/status';
import { RunComfyDeployment } from '../../nodes/RunComfyDeployment/RunComfyDeployment.node';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { RunComfyTraining } from '../../nodes/RunComfyTraining/RunComfyTraining.node';
import { runNode } from '../helpers/engine';
import { NODE_TEXTS } from './codeTexts';
import type { RunComfyCredentialData } from '../helpers/engine';

/** What the service answers next: the status record and the result record (by path suffix). */
let answer: { status: IDataObject; result: IDataObject } = { status: {}, result: {} };
const server = http.createServer((req, res) => {
	const body = new URL(req.url ?? '/', 'http://x').pathname.endsWith('/result') ? answer.result : answer.status;
	res.setHeader('content-type', 'application/json');
	res.end(JSON.stringify(body));
});
let creds: RunComfyCredentialData;
beforeAll(async () => {
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
	creds = {
		accessToken: 'status-words-token',
		modelApiBaseUrl: base,
		serverlessApiBaseUrl: base,
		trainerApiBaseUrl: base,
		allowedDownloadHosts: '127.0.0.1',
	};
});
afterAll(async () => await new Promise((resolve) => server.close(resolve)));

const REQUEST_ID = '5a0e2f3c-7b7d-4f0a-9d55-2f7e1c1d9a10';

/** The `status` the node outputs for each answer. */
async function statusesOf(node: INodeType, parameters: INodeParameters, answers: Array<typeof answer>): Promise<Set<string>> {
	const seen = new Set<string>();
	for (const a of answers) {
		answer = a;
		const result = await runNode({ node, credentials: creds, parameters });
		expect(result.error).toBeUndefined();
		for (const item of result.items) seen.add(String(item.json.status));
	}
	return seen;
}

/** The spec's request status words (model-api.md, deployments-…md) and the forms service-facts.md adds. */
const REQUEST_STATUS = ['in_queue', 'in_progress', 'completed', 'cancelled', 'canceled', 'failed'].map((status) => ({
	status: { request_id: REQUEST_ID, status },
	result: {},
}));

describe('the status words each Get Status returns are the listed ones', () => {
	it('Model → Get Status', async () => {
		const seen = await statusesOf(
			new RunComfyModel(),
			{ resource: 'model', operation: 'getStatus', requestId: REQUEST_ID },
			REQUEST_STATUS,
		);
		expect([...seen].sort()).toEqual([...STATUS_WORDS.statusCheck].sort());
	});

	it('Deployment → Inference → Get Status', async () => {
		const parameters = {
			resource: 'inference',
			operation: 'getStatus',
			deploymentId: { __rl: true, mode: 'id', value: 'a1b2c3d4-0000-4000-8000-000000000001' },
			requestId: REQUEST_ID,
		};
		const seen = await statusesOf(new RunComfyDeployment(), parameters, REQUEST_STATUS);
		expect([...seen].sort()).toEqual([...STATUS_WORDS.statusCheck].sort());
	});

	it('Model → Get Result of a finished run', async () => {
		const results = [
			{ status: 'succeeded' },
			{ status: 'completed' },
			{ status: 'completed', error: 'boom' },
			{ status: 'failed', error: 'boom' },
			{ status: 'cancelled' },
		];
		const answers = results.map((result) => ({ status: {}, result: { request_id: REQUEST_ID, ...result } }));
		const parameters = { resource: 'model', operation: 'getResult', requestId: REQUEST_ID, downloadOutputs: false };
		const seen = await statusesOf(new RunComfyModel(), { ...parameters, options: {} }, answers);
		expect([...seen].sort()).toEqual([...STATUS_WORDS.finished].sort());
	});

	it('Training → Get Status', async () => {
		const job = (status: string, current = 10, error: string | null = null) => ({
			status: { id: 'job-1', name: 'my_lora', status, progress: { current_step: current, total_steps: 10 }, error },
			result: { status, artifacts: {}, ...(error ? { error } : {}) },
		});
		const answers = [
			job('IN_QUEUE', 0),
			job('RUNNING', 3),
			job('STOPPED'),
			job('STOPPED', 4),
			job('FAILED', 4, 'boom'),
			job('CANCELED', 4),
		];
		const seen = await statusesOf(new RunComfyTraining(), { resource: 'trainingJob', operation: 'getStatus', jobId: 'job-1' }, answers);
		expect([...seen].sort()).toEqual([...STATUS_WORDS.trainingJob].sort());
	});
});

const VOCABULARY = new Set(Object.values(STATUS_WORDS).flat());
const TEXTS = NODE_TEXTS;

describe('every status list a node shows is one of the lists in code', () => {
	it('a run of three or more status words, anywhere, is exactly a list of STATUS_WORDS', () => {
		const lists = new Set(Object.values(STATUS_WORDS).map((w) => wordList(w)));
		const word = `(?:${[...VOCABULARY].join('|')})`;
		const run = new RegExp(`\\b${word}(?:(?:, | or | and )${word}){2,}\\b`, 'g');
		const found = TEXTS.flatMap(({ node, name, text }) => [...text.matchAll(run)].map((m) => ({ where: `${node} ${name}`, list: m[0] })));
		expect(found.length).toBeGreaterThanOrEqual(5);
		expect(found.filter(({ list }) => !lists.has(list))).toEqual([]);
	});

	it('the Get Status tool descriptions list what their node returns', () => {
		const getStatus = (node: string) =>
			TEXTS.filter((t) => t.node === node && t.name === 'toolDescription' && t.text.startsWith('Gets the status')).map((t) => t.text);
		expect(getStatus('runComfyModel')[0]).toContain(`(${wordList(STATUS_WORDS.statusCheck)};`);
		expect(getStatus('runComfyDeployment')[0]).toContain(`(${wordList(STATUS_WORDS.statusCheck)};`);
		expect(getStatus('runComfyTraining')[0]).toContain(`(${wordList(STATUS_WORDS.trainingJob)};`);
	});
});
