import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
} from 'n8n-workflow';
import { NodeOperationError, updateDisplayOptions } from 'n8n-workflow';

import { assertMinimumBalance } from '../../../shared/balanceGuard';
import {
	INFERENCE_WAIT,
	downloadProperties,
	minimumBalanceOption,
	readDownloadOptions,
	readWaitOptions,
	waitProperties,
} from '../../../shared/descriptions';
import { failedItem, toNodeError } from '../../../shared/router';
import { normaliseStatus } from '../../../shared/status';
import {
	cancelModelRequest,
	getModelRequestResult,
	getModelRequestStatus,
	submitModelRun,
} from '../../../shared/transport';
import type { RequestHandle, ResultRecord } from '../../../shared/types';
import { waitForAll } from '../../../shared/wait';
import type { WaitJob, WaitOutcome } from '../../../shared/wait';
import { categoryFilterProperty, modelLocatorProperty } from '../common.descriptions';
import { readModelId } from '../../helpers/ids';
import { ModelCache, buildBody, describeProblems, problemsHint } from '../../helpers/inputs';
import { DownloadHosts, attachDownloads, errorTextOf, outputUrlsOf, resultJson, toolJson } from '../../helpers/outputs';
import { mapPool } from '../../helpers/pool';

/** Paid submissions in flight at once. Small: the service queues runs anyway. */
const SUBMIT_CONCURRENCY = 4;

const show = { resource: ['model'], operation: ['run'] };

const properties: INodeProperties[] = [
	categoryFilterProperty,
	modelLocatorProperty,
	{
		displayName: 'Input Mode',
		name: 'inputMode',
		type: 'options',
		noDataExpression: true,
		default: 'defineBelow',
		options: [
			{
				name: 'Define Below',
				value: 'defineBelow',
				description: "Fill in the model's inputs one by one (fields come from the model's input schema)",
			},
			{
				name: 'JSON',
				value: 'json',
				description: 'Give the whole request body as one flat JSON object (expressions allowed)',
			},
		],
	},
	{
		displayName: 'Inputs',
		name: 'inputs',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		displayOptions: { show: { inputMode: ['defineBelow'] } },
		typeOptions: {
			loadOptionsDependsOn: ['model.value'],
			resourceMapper: {
				resourceMapperMethod: 'getModelInputs',
				mode: 'add',
				fieldWords: { singular: 'input', plural: 'inputs' },
				addAllFields: false,
				multiKeyMatch: false,
				supportAutoMap: false,
				noFieldsError:
					'Pick a model first: its inputs (prompt, sizes, file URLs, ...) are loaded from the catalog.',
			},
		},
	},
	{
		displayName: 'Inputs (JSON)',
		name: 'inputsJson',
		type: 'json',
		default: '{\n  "prompt": ""\n}',
		displayOptions: { show: { inputMode: ['json'] } },
		description:
			'The request body as a flat JSON object whose keys are the model\'s input names, e.g. {"prompt": "a red fox", "seed": 42}. Not wrapped in "input". Checked against the model\'s schema before anything is submitted.',
	},
	{
		displayName: 'LoRA',
		name: 'lora',
		type: 'string',
		default: '',
		placeholder: 'e.g. my_lora.safetensors or https://files.runcomfy.net/…/my_lora.safetensors',
		description:
			'For models that accept a LoRA: the file name of one of your LoRA assets, or a public URL of a LoRA checkpoint (e.g. from the RunComfy Training node). Sent as {"lora": {"path": …}}. Leave empty for none.',
	},
	...waitProperties(show, INFERENCE_WAIT),
	...downloadProperties({ ...show, waitForCompletion: [true] }),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options: [minimumBalanceOption],
	},
];

export const description = updateDisplayOptions({ show }, properties);

interface Prepared {
	itemIndex: number;
	modelId: string;
	body: IDataObject;
}

interface Submitted extends Prepared {
	handle: RequestHandle;
}

type Plan =
	| { itemIndex: number; kind: 'item'; json: IDataObject; download?: boolean }
	| { itemIndex: number; kind: 'error'; error: Error; extra: IDataObject };

/**
 * Model → Run for the whole batch: validate every item (no paid call before that), check the balance once,
 * submit every valid item, then wait for all of them together, fetch each result once and download outputs.
 */
export async function executeBatch(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const node = this.getNode();
	const toolCall = this.isToolExecution?.() ?? false;
	const continueOnFail = this.continueOnFail();
	const signal = this.getExecutionCancelSignal?.();
	const cache = new ModelCache(this);
	const output: Array<INodeExecutionData | undefined> = new Array(items.length);

	// 1. Validate every item before anything is paid for.
	const prepared: Prepared[] = [];
	const invalid: Array<{ itemIndex: number; error: Error; line: string }> = [];
	for (let i = 0; i < items.length; i++) {
		try {
			const modelId = readModelId(this, i);
			const model = await cache.get(modelId);
			const body = buildBody(this, i, model);
			const problems = describeProblems(body, model);
			if (problems) {
				const error = new NodeOperationError(node, `Item ${i}: ${problems}`, {
					itemIndex: i,
					description: problemsHint(body, model),
				});
				invalid.push({ itemIndex: i, error, line: `Item ${i}: ${problems}` });
			} else {
				prepared.push({ itemIndex: i, modelId, body });
			}
		} catch (error) {
			const nodeError = toNodeError(this, error, i);
			const line = /^Item \d+:/.test(nodeError.message) ? nodeError.message : `Item ${i}: ${nodeError.message}`;
			invalid.push({ itemIndex: i, error: nodeError, line });
		}
	}
	if (invalid.length && !continueOnFail) {
		if (invalid.length === 1) throw invalid[0].error;
		throw new NodeOperationError(node, invalid.map((p) => p.line).join('. '), {
			itemIndex: invalid[0].itemIndex,
			description: `${invalid.length} of ${items.length} items have invalid inputs. Fix them in "Inputs" (each field's description states its type, range and allowed values). Nothing was submitted.`,
		});
	}
	for (const bad of invalid) output[bad.itemIndex] = failedItem(this, bad.error, bad.itemIndex);

	// Options that could still be wrong are read now, so nothing fails after money was spent.
	const firstIndex = prepared[0]?.itemIndex ?? 0;
	const wait = readWaitOptions(this, firstIndex, INFERENCE_WAIT);
	const download = readDownloadOptions(this, firstIndex);

	// 2. One balance check per execution, before the first paid call.
	if (prepared.length) {
		const options = this.getNodeParameter('options', prepared[0].itemIndex, {}) as IDataObject;
		try {
			await assertMinimumBalance(this, Number(options.minimumBalanceUsd ?? 0));
		} catch (error) {
			if (!continueOnFail) throw toNodeError(this, error, prepared[0].itemIndex);
			for (const p of prepared) output[p.itemIndex] = failedItem(this, error, p.itemIndex, { model_id: p.modelId });
			prepared.length = 0;
		}
	}

	// 3. Submit every valid item. Never retried here (the transport decides what is provably safe to retry).
	const submitted: Submitted[] = [];
	let submitFailure: { itemIndex: number; error: Error } | undefined;
	await mapPool(prepared, SUBMIT_CONCURRENCY, async (p) => {
		if (submitFailure || signal?.aborted) return;
		try {
			const handle = await submitModelRun(this, p.modelId, p.body, p.itemIndex);
			submitted.push({ ...p, handle });
		} catch (error) {
			if (!continueOnFail) submitFailure ??= { itemIndex: p.itemIndex, error };
			else output[p.itemIndex] = failedItem(this, error, p.itemIndex, { model_id: p.modelId });
		}
	});
	submitted.sort((a, b) => a.itemIndex - b.itemIndex);
	// After Stop a failed submit is just the interrupted one: go on, so the submitted runs get cancelled.
	if (submitFailure && !signal?.aborted) {
		const nodeError = toNodeError(this, submitFailure.error, submitFailure.itemIndex);
		if (submitted.length) {
			const ids = submitted.map((s) => `item ${s.itemIndex}: ${s.handle.request_id}`).join(', ');
			nodeError.description = `${nodeError.description ? `${nodeError.description} ` : ''}Runs already submitted keep going on RunComfy (${ids}); use Get Result with these request IDs.`;
		}
		throw nodeError;
	}

	if (!wait.enabled && !signal?.aborted) {
		for (const s of submitted) {
			const json: IDataObject = { model_id: s.modelId, ...s.handle };
			output[s.itemIndex] = { json: toolCall ? toolJson(json) : json, pairedItem: { item: s.itemIndex } };
		}
		return finish(output);
	}

	// 4. Wait for every run together.
	const jobs: WaitJob[] = submitted.map((s) => ({
		itemIndex: s.itemIndex,
		id: s.handle.request_id,
		poll: async () => {
			const record = await getModelRequestStatus(this, s.handle.request_id);
			return { state: normaliseStatus(record.status), record };
		},
		// The transport sends this cancel even after Stop (it is not bound to the aborted cancel signal).
		cancel: async () => await cancelModelRequest(this, s.handle.request_id),
	}));
	const outcomes = jobs.length ? await waitForAll(jobs, wait, signal) : [];
	const bySubmitted = new Map(submitted.map((s) => [s.itemIndex, s]));

	// Stopped execution: no more calls (the engine already asked the service to cancel queued runs).
	if (signal?.aborted) {
		for (const o of outcomes) {
			const s = bySubmitted.get(o.job.itemIndex) as Submitted;
			const json: IDataObject = { model_id: s.modelId, ...s.handle, stopped: true };
			if (o.kind !== 'error') json.status = o.record.status ?? o.state;
			if ((o.kind === 'stopped' || o.kind === 'timeout') && o.cancel) json.cancel_outcome = o.cancel.outcome ?? o.cancel.status;
			output[o.job.itemIndex] = { json, pairedItem: { item: o.job.itemIndex } };
		}
		return finish(output);
	}

	// 5. One result fetch per finished run.
	const results = await mapPool(outcomes, wait.concurrency, async (o): Promise<ResultRecord | Error | undefined> => {
		if (o.kind !== 'done') return undefined;
		try {
			return await getModelRequestResult(this, o.job.id, { includeCost: true });
		} catch (error) {
			return error as Error;
		}
	});

	const plans: Plan[] = outcomes.map((o, n) => planOutcome(this, o, bySubmitted.get(o.job.itemIndex) as Submitted, results[n], wait));

	// Without Continue on Fail the first error fails the node; timeouts in "fail" mode are reported together.
	if (!continueOnFail) {
		const timeouts = outcomes.filter((o) => o.kind === 'timeout');
		const firstError = plans.find((p) => p.kind === 'error');
		if (firstError && firstError.kind === 'error') {
			if (timeouts.length > 1 && wait.onTimeout === 'fail' && timeouts.some((o) => o.job.itemIndex === firstError.itemIndex)) {
				const ids = timeouts.map((o) => o.job.id).join(', ');
				throw new NodeOperationError(node, `${timeouts.length} runs did not finish within ${wait.maxWaitMs / 1000} s: ${ids}`, {
					itemIndex: firstError.itemIndex,
					description: `They keep running on RunComfy. Fetch them later with Model → Get Result and these request IDs, or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").`,
				});
			}
			throw toNodeError(this, firstError.error, firstError.itemIndex);
		}
	}

	// 6. Downloads (successful runs only), then the items in input order.
	const hosts = new DownloadHosts(this);
	await mapPool(plans, Math.min(wait.concurrency, 4), async (plan) => {
		const i = plan.itemIndex;
		if (plan.kind === 'error') {
			output[i] = failedItem(this, plan.error, i, toolCall ? toolJson(plan.extra) : plan.extra);
			return;
		}
		let item: INodeExecutionData = { json: plan.json, pairedItem: { item: i } };
		if (toolCall) {
			item = { json: toolJson(plan.json), pairedItem: { item: i } };
		} else if (plan.download && download.enabled) {
			try {
				item = await attachDownloads(this, item, outputUrlsOf(plan.json), download.maxBytes, hosts);
			} catch (error) {
				// The run succeeded and was paid for: keep its id and URLs whatever happened to the files.
				const nodeError = toNodeError(this, error, i);
				nodeError.description = `${nodeError.description ? `${nodeError.description} ` : ''}The run ${String(plan.json.request_id)} succeeded; its outputs are listed in output_urls (Get Result fetches them again).`;
				output[i] = failedItem(this, nodeError, i, plan.json);
				return;
			}
		}
		output[i] = item;
	});
	return finish(output);
}

function planOutcome(
	ctx: IExecuteFunctions,
	o: WaitOutcome,
	s: Submitted,
	result: ResultRecord | Error | undefined,
	wait: { maxWaitMs: number; onTimeout: string },
): Plan {
	const node = ctx.getNode();
	const i = o.job.itemIndex;
	const requestId = s.handle.request_id;
	const handle: IDataObject = { model_id: s.modelId, ...s.handle };
	switch (o.kind) {
		case 'error':
			return { itemIndex: i, kind: 'error', error: o.error, extra: handle };
		case 'timeout': {
			const current = { ...handle, status: o.record.status ?? o.state };
			if (o.cancel) {
				const outcome = o.cancel.outcome ?? o.cancel.status;
				return {
					itemIndex: i,
					kind: 'item',
					json: { ...current, timed_out: true, cancel_outcome: outcome, still_running: outcome !== 'cancelled' },
				};
			}
			if (wait.onTimeout === 'returnRunning') {
				return { itemIndex: i, kind: 'item', json: { ...current, still_running: true } };
			}
			const seconds = wait.maxWaitMs / 1000;
			const error = new NodeOperationError(node, `Run ${requestId} did not finish within ${seconds} s (status: ${String(current.status)})`, {
				itemIndex: i,
				description: `The run keeps going on RunComfy. Fetch it later with Model → Get Result and Request ID ${requestId}, or raise "Max Wait (Seconds)" in Wait Options (or set "On Timeout" to "Return as Still Running").`,
			});
			return { itemIndex: i, kind: 'error', error, extra: { ...current, still_running: true } };
		}
		case 'stopped': {
			const json: IDataObject = { ...handle, status: o.record.status ?? o.state, stopped: true };
			if (o.cancel) json.cancel_outcome = o.cancel.outcome ?? o.cancel.status;
			return { itemIndex: i, kind: 'item', json };
		}
		case 'done': {
			if (result instanceof Error || result === undefined) {
				const error = result ?? new NodeOperationError(node, `The result of run ${requestId} could not be fetched`);
				return { itemIndex: i, kind: 'error', error, extra: { ...handle, status: o.record.status ?? o.state } };
			}
			const json = resultJson(s.modelId, requestId, result);
			const state = normaliseStatus(result.status);
			if (state === 'failed' || state === 'cancelled') {
				const text = errorTextOf(result) ?? (state === 'failed' ? 'the service reported no reason' : 'it was cancelled');
				const error = new NodeOperationError(node, `Run ${requestId} of ${s.modelId} ${state === 'failed' ? 'failed' : 'was cancelled'}: ${text}`, {
					itemIndex: i,
					description:
						state === 'failed'
							? 'Check the inputs (for example that file URLs are public and reachable) and run again. Request ID: ' + requestId
							: 'The run was cancelled on RunComfy before it finished. Request ID: ' + requestId,
				});
				return { itemIndex: i, kind: 'error', error, extra: { ...json, ...(text ? { service_error: text } : {}) } };
			}
			return { itemIndex: i, kind: 'item', json, download: state === 'succeeded' };
		}
	}
}

function finish(output: Array<INodeExecutionData | undefined>): INodeExecutionData[] {
	return output.filter((item): item is INodeExecutionData => item !== undefined);
}
