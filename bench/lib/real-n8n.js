'use strict';
/**
 * Benchmarks in the REAL n8n (the pinned version, through scripts/e2e/n8n.js): the same batch run
 *   (a) the way users build it without this package: HTTP Request (submit) -> Wait -> HTTP Request (status)
 *       -> IF completed (else back to Wait) -> HTTP Request (result), with a Header Auth credential; and
 *   (b) with the RunComfy Model node (default wait options),
 * each executed with `n8n execute`; plus the model picker as the editor calls it
 * (POST /rest/dynamic-node-parameters/resource-locator-results on `n8n start`).
 */
const { performance } = require('perf_hooks');

const h = require('../../scripts/e2e/n8n');
const { batchSpan, countRequests, engineRetries, MODEL } = require('./inprocess');
const { median } = require('./measure');

/** N prompts without a Code node (its task runner would add a second of start-up to the first execution). */
function promptsNodes(n) {
	const prompts = Array.from({ length: n }, (_, i) => `bench ${i}`);
	return [
		{
			id: 'b0000000-0000-4000-8000-000000000002',
			name: 'Prompts',
			type: 'n8n-nodes-base.set',
			typeVersion: 3.4,
			position: [220, 0],
			parameters: { mode: 'raw', jsonOutput: JSON.stringify({ prompts }), options: {} },
		},
		{
			id: 'b0000000-0000-4000-8000-000000000012',
			name: 'One Item per Prompt',
			type: 'n8n-nodes-base.splitOut',
			typeVersion: 1,
			position: [330, 0],
			parameters: { fieldToSplitOut: 'prompts', options: { destinationFieldName: 'prompt' } },
		},
	];
}

const trigger = {
	id: 'b0000000-0000-4000-8000-000000000001',
	name: 'Start',
	type: 'n8n-nodes-base.manualTrigger',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};

/** A header credential with the sandbox token, for the loops' HTTP Request nodes. */
const headerCredential = (sb) => ({
	id: h.newId(),
	name: 'RunComfy token (Header Auth)',
	type: 'httpHeaderAuth',
	data: { name: 'Authorization', value: `Bearer ${sb.token}` },
});

function httpNode(id, name, position, method, url, headerCred, extra = {}) {
	return {
		id,
		name,
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position,
		parameters: { method, url, authentication: 'genericCredentialType', genericAuthType: 'httpHeaderAuth', options: {}, ...extra },
		credentials: { httpHeaderAuth: { id: headerCred.id, name: headerCred.name } },
	};
}

/** The HTTP Request + Wait + IF polling loop, as users build it without the package. */
function httpLoopWorkflow({ n, waitSeconds, modelApi, headerCred }) {
	return {
		name: `Bench: HTTP Request + Wait ${waitSeconds} s + IF loop (${n} runs)`,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			...promptsNodes(n),
			httpNode('b0000000-0000-4000-8000-000000000003', 'Submit', [440, 0], 'POST', `${modelApi}/v1/models/${MODEL}`, headerCred, {
				sendBody: true,
				specifyBody: 'json',
				jsonBody: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
			}),
			{
				id: 'b0000000-0000-4000-8000-000000000004',
				name: 'Wait',
				type: 'n8n-nodes-base.wait',
				typeVersion: 1.1,
				position: [660, 0],
				webhookId: 'b0000000-0000-4000-8000-0000000000ff',
				parameters: { resume: 'timeInterval', amount: waitSeconds, unit: 'seconds' },
			},
			httpNode(
				'b0000000-0000-4000-8000-000000000005',
				'Check Status',
				[880, 0],
				'GET',
				`=${modelApi}/v1/requests/{{ $json.request_id }}/status`,
				headerCred,
			),
			{
				id: 'b0000000-0000-4000-8000-000000000006',
				name: 'Completed?',
				type: 'n8n-nodes-base.if',
				typeVersion: 2.2,
				position: [1100, 0],
				parameters: {
					conditions: {
						options: { caseSensitive: true, leftValue: '', typeValidation: 'strict', version: 2 },
						conditions: [
							{
								id: 'b0000000-0000-4000-8000-0000000000c1',
								leftValue: '={{ $json.status }}',
								rightValue: 'completed',
								operator: { type: 'string', operation: 'equals' },
							},
						],
						combinator: 'and',
					},
					options: {},
				},
			},
			httpNode(
				'b0000000-0000-4000-8000-000000000007',
				'Get Result',
				[1320, -100],
				'GET',
				`=${modelApi}/v1/requests/{{ $json.request_id }}/result`,
				headerCred,
			),
		],
		connections: {
			Start: { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
			Prompts: { main: [[{ node: 'One Item per Prompt', type: 'main', index: 0 }]] },
			'One Item per Prompt': { main: [[{ node: 'Submit', type: 'main', index: 0 }]] },
			Submit: { main: [[{ node: 'Wait', type: 'main', index: 0 }]] },
			Wait: { main: [[{ node: 'Check Status', type: 'main', index: 0 }]] },
			'Check Status': { main: [[{ node: 'Completed?', type: 'main', index: 0 }]] },
			'Completed?': {
				main: [[{ node: 'Get Result', type: 'main', index: 0 }], [{ node: 'Wait', type: 'main', index: 0 }]],
			},
		},
	};
}

function nodeWorkflow({ n, credential }) {
	return {
		name: `Bench: RunComfy Model node (${n} runs)`,
		settings: { executionOrder: 'v1' },
		nodes: [
			trigger,
			...promptsNodes(n),
			{
				id: 'b0000000-0000-4000-8000-000000000013',
				name: 'RunComfy Model',
				type: h.NODE_TYPES.model,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'model',
					operation: 'run',
					model: { __rl: true, mode: 'id', value: MODEL },
					inputMode: 'json',
					inputsJson: '={{ JSON.stringify({ prompt: $json.prompt }) }}',
					downloadOutputs: false,
				},
				credentials: { runComfyApi: { id: credential.id, name: credential.name } },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Prompts', type: 'main', index: 0 }]] },
			Prompts: { main: [[{ node: 'One Item per Prompt', type: 'main', index: 0 }]] },
			'One Item per Prompt': { main: [[{ node: 'RunComfy Model', type: 'main', index: 0 }]] },
		},
	};
}

const HEAD = new Set(['Start', 'Prompts', 'One Item per Prompt']);

/**
 * A builder's workflow behind a Webhook (POST { items: [{ model, prompt }] }) instead of the manual trigger and the
 * fixed prompts, the model taken from each item. `id`: two digits that make its node and webhook ids unique;
 * `path`: the webhook path; `waitOptions`: the Model node's Wait Options.
 */
function behindWebhook(wf, { id, path, name, modelApi, waitOptions }) {
	const webhook = {
		id: `d0000000-0000-4000-8000-0000000000${id}`,
		name: 'Webhook',
		type: 'n8n-nodes-base.webhook',
		typeVersion: 2,
		position: [0, 0],
		webhookId: `d0000000-0000-4000-8000-0000000001${id}`,
		parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: {} },
	};
	const items = {
		id: 'd0000000-0000-4000-8000-000000000002',
		name: 'Items',
		type: 'n8n-nodes-base.splitOut',
		typeVersion: 1,
		position: [220, 0],
		parameters: { fieldToSplitOut: 'body.items', options: {} },
	};
	const nodes = wf.nodes
		.filter((n) => !HEAD.has(n.name))
		.map((n) => {
			if (n.name === 'Submit') return { ...n, parameters: { ...n.parameters, url: `=${modelApi}/v1/models/{{ $json.model }}` } };
			if (n.name === 'RunComfy Model') {
				return {
					...n,
					parameters: {
						...n.parameters,
						model: { __rl: true, mode: 'id', value: '={{ $json.model }}' },
						...(waitOptions ? { waitOptions } : {}),
					},
				};
			}
			return n;
		});
	const connections = Object.fromEntries(Object.entries(wf.connections).filter(([from]) => !HEAD.has(from)));
	const first = wf.connections['One Item per Prompt'].main[0][0].node;
	connections.Webhook = { main: [[{ node: 'Items', type: 'main', index: 0 }]] };
	connections.Items = { main: [[{ node: first, type: 'main', index: 0 }]] };
	return { ...wf, name, nodes: [webhook, items, ...nodes], connections };
}

function itemsOfAllRuns(run, nodeName) {
	const tasks = (run && run.data && run.data.resultData.runData[nodeName]) || [];
	return tasks.flatMap((t) => (t.data && t.data.main && t.data.main[0]) || []);
}

async function executeScenario(uf, sb, wf, { runMs, resultNode, succeeded }) {
	let res;
	let cliMs;
	for (let attempt = 1; ; attempt++) {
		await sb.reset({ runDurationMs: runMs, queueMs: 0 });
		const t0 = performance.now();
		res = await h.execute(uf, wf.id, { timeoutMs: 5 * 60 * 1000 });
		cliMs = performance.now() - t0;
		// See engineRetries in ./inprocess.js: n8n's 250 ms regex limit, hit on a busy machine before any node ran.
		const text = `${res.stdout}\n${res.stderr}`;
		if (attempt < 3 && /Regular expression execution timed out/.test(text) && (!res.run || res.run.status !== 'success')) {
			engineRetries.count++;
			continue;
		}
		break;
	}
	if (!res.run)
		throw new Error(`n8n execute printed no execution (exit ${res.code}):\n${res.stdout.slice(-3000)}\n${res.stderr.slice(-3000)}`);
	if (res.run.status !== 'success') {
		throw new Error(
			`execution of "${wf.name}" ended ${res.run.status}: ${JSON.stringify(res.run.data.resultData.error || {}).slice(0, 1000)}`,
		);
	}
	const execMs = Date.parse(res.run.stoppedAt) - Date.parse(res.run.startedAt);
	const results = itemsOfAllRuns(res.run, resultNode).filter(succeeded).length;
	const log = await sb.log();
	const requests = countRequests(log);
	return { execMs, cliMs, results, requests, ...batchSpan(log) };
}

/**
 * Runs the comparison. `scenarios`: [{ runMs, waits: [seconds...] }]. Returns rows per run time.
 */
async function compareInRealN8n(sb, { n, scenarios, pickerRepeats, catalogExtra, log }) {
	const uf = h.createUserFolder();
	try {
		const runComfy = h.sandboxCredential(sb);
		const header = headerCredential(sb);
		await h.importCredential(uf, [runComfy, header]);
		const waits = [...new Set(scenarios.flatMap((s) => s.waits))];
		const loops = waits.map((w) => httpLoopWorkflow({ n, waitSeconds: w, modelApi: sb.urls.modelApi, headerCred: header }));
		const imported = await h.importWorkflow(uf, [...loops, nodeWorkflow({ n, credential: runComfy })]);
		const loopByWait = new Map(waits.map((w, i) => [w, imported[i]]));
		const nodeWf = imported[imported.length - 1];

		const rows = [];
		for (const s of scenarios) {
			const row = { runMs: s.runMs, loops: [] };
			for (const w of s.waits) {
				log(`  real n8n: HTTP + Wait ${w} s loop, ${n} runs of ${s.runMs / 1000} s`);
				const r = await executeScenario(uf, sb, loopByWait.get(w), {
					runMs: s.runMs,
					resultNode: 'Get Result',
					succeeded: (i) => i.json && i.json.status === 'succeeded',
				});
				row.loops.push({ waitSeconds: w, ...r });
			}
			log(`  real n8n: RunComfy Model node, ${n} runs of ${s.runMs / 1000} s`);
			row.node = await executeScenario(uf, sb, nodeWf, {
				runMs: s.runMs,
				resultNode: 'RunComfy Model',
				succeeded: (i) => i.json && i.json.status === 'succeeded',
			});
			rows.push(row);
		}

		// The model picker as the editor calls it.
		log('  real n8n: model picker through the editor REST API');
		await sb.reset({ extraModels: catalogExtra });
		const totalRes = await fetch(`${sb.urls.modelApi}/v1/models?limit=1`, { headers: { authorization: `Bearer ${sb.token}` } });
		const catalogTotal = (await totalRes.json()).total;
		const n8n = await h.startN8n(uf);
		const picker = [];
		try {
			await n8n.rest.setupOwner();
			for (const filter of [undefined, 'flux']) {
				const times = [];
				let results = 0;
				for (let i = 0; i < pickerRepeats; i++) {
					const t0 = performance.now();
					const page = await n8n.rest.resourceLocatorResults({
						nodeType: h.NODE_TYPES.model,
						version: 1,
						path: 'parameters.model',
						methodName: 'searchModels',
						parameters: { resource: 'model', operation: 'run', model: { __rl: true, mode: 'list', value: '' } },
						credential: { id: runComfy.id, name: runComfy.name },
						filter,
					});
					times.push(performance.now() - t0);
					results = page.results.length;
				}
				picker.push({ label: filter ? `search "${filter}"` : 'no search term', first: times[0], median: median(times), results });
			}
		} finally {
			await n8n.stop();
			await sb.reset({});
		}
		return { n, rows, picker, pickerRepeats, catalogTotal };
	} finally {
		uf.cleanup();
	}
}

/** The sandbox catalog's models a bare { prompt } is valid for (one per workflow keeps what the node learns apart). */
async function promptOnlyModels(sb) {
	const response = await fetch(`${sb.urls.modelApi}/v1/models?limit=500`, { headers: { authorization: `Bearer ${sb.token}` } });
	const catalog = await response.json();
	return catalog.models
		.filter((m) => !m.model_id.startsWith('runcomfy/test/') && m.required_inputs.length === 1 && m.required_inputs[0] === 'prompt')
		.map((m) => m.model_id);
}

module.exports = { behindWebhook, compareInRealN8n, headerCredential, httpLoopWorkflow, nodeWorkflow, promptOnlyModels };
