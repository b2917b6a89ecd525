/**
 * Building the inference body of one item: overrides from the form ("Define Below"), from JSON, or a whole
 * workflow; binary inputs as Base64 data URIs; extra_data. Everything is checked here, before any paid call.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeOperationError, jsonParse } from 'n8n-workflow';

import { parseJsonText, refuseEmptyFormInputs } from '../../shared/params';
import type { InferenceBody } from '../../shared/transport';
import type { Deployment, JsonValue } from '../../shared/types';
import type { WorkflowGraph } from './graph';
import {
	describeInputs,
	describeNodes,
	graphOf,
	inputsOf,
	isPlainObject,
	nodeLabel,
	overrideProblems,
	setInput,
	splitFieldId,
} from './graph';

export type InputMode = 'defineBelow' | 'json' | 'fullWorkflow';

const NOTHING_SENT = 'Nothing was submitted.';

function fail(ctx: IExecuteFunctions, itemIndex: number, message: string, description: string): never {
	throw new NodeOperationError(ctx.getNode(), message, { itemIndex, description: `${description} ${NOTHING_SENT}` });
}

/** A JSON object parameter given as text (or an object from an expression). Empty text → undefined. */
export function parseJsonObject(
	ctx: IExecuteFunctions,
	itemIndex: number,
	raw: unknown,
	label: string,
	example: string,
): IDataObject | undefined {
	let value: unknown = raw;
	if (typeof raw === 'string') {
		const text = raw.trim();
		if (!text) return undefined;
		try {
			value = parseJsonText(text);
		} catch (error) {
			fail(
				ctx,
				itemIndex,
				`"${label}" is not valid JSON`,
				`${(error as Error).message}. Enter a JSON object such as ${example}, with double quotes around names and strings.`,
			);
		}
	}
	if (value === undefined || value === null || value === '') return undefined;
	if (!isPlainObject(value)) {
		const kind = Array.isArray(value) ? 'an array' : `a ${typeof value}`;
		fail(ctx, itemIndex, `"${label}" must be a JSON object, not ${kind}`, `Enter a JSON object such as ${example}.`);
	}
	return { ...value };
}

/** Turns a form value into the type of the input's current value in the saved workflow. */
function coerce(ctx: IExecuteFunctions, itemIndex: number, value: unknown, current: JsonValue, label: string): JsonValue {
	if (typeof current === 'number') {
		if (typeof value === 'number' && Number.isFinite(value)) return value;
		const n = typeof value === 'string' && value.trim() !== '' ? Number(value) : NaN;
		if (!Number.isFinite(n)) {
			fail(ctx, itemIndex, `${label} must be a number, got "${String(value)}"`, 'Enter a number (the saved workflow has a number there).');
		}
		return n;
	}
	if (typeof current === 'boolean') {
		if (typeof value === 'boolean') return value;
		const text = String(value).trim().toLowerCase();
		if (text === 'true') return true;
		if (text === 'false') return false;
		fail(ctx, itemIndex, `${label} must be true or false, got "${String(value)}"`, 'Enter true or false.');
	}
	if (Array.isArray(current) || isPlainObject(current)) {
		if (typeof value !== 'string') return value as JsonValue;
		try {
			return jsonParse(value);
		} catch {
			fail(ctx, itemIndex, `${label} must be JSON`, `The saved workflow has a JSON ${Array.isArray(current) ? 'array' : 'object'} there.`);
		}
	}
	if (typeof value === 'string') return value;
	return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** The form's empty inputs are refused as on Model → Run (refuseEmptyFormInputs), typed by the graph's values. */
function refuseEmptyForm(ctx: IExecuteFunctions, itemIndex: number, graph: WorkflowGraph | undefined): void {
	const mapper = ctx.getNodeParameter('inputs', itemIndex, {}, { skipValidation: true }) as IDataObject | null;
	const values = (isPlainObject(mapper?.value) ? mapper?.value : {}) as IDataObject;
	refuseEmptyFormInputs(ctx, itemIndex, values, (id) => {
		const parts = splitFieldId(id);
		const graphNode = parts && graph?.[parts.nodeId];
		const current = parts && graphNode ? inputsOf(graphNode)[parts.input] : undefined;
		return {
			label: parts && graphNode && graph ? `${nodeLabel(graph, parts.nodeId)} → ${parts.input}` : id,
			kind: typeof current === 'boolean' ? 'boolean' : typeof current === 'number' ? 'number' : 'text',
			fallback: current === undefined ? '"…"' : JSON.stringify(current),
		};
	});
}

/** Overrides from the resourceMapper: only inputs the user set (empty fields are not sent). */
function overridesFromForm(ctx: IExecuteFunctions, itemIndex: number, graph: WorkflowGraph | undefined): IDataObject {
	const mapper = ctx.getNodeParameter('inputs', itemIndex, {}) as IDataObject | null;
	const values = (isPlainObject(mapper?.value) ? mapper?.value : {}) as IDataObject;
	const overrides: IDataObject = {};
	const unknown: string[] = [];
	refuseEmptyForm(ctx, itemIndex, graph);
	for (const [id, value] of Object.entries(values)) {
		if (value === null || value === undefined || value === '') continue;
		const parts = splitFieldId(id);
		if (!parts || !graph || !(parts.nodeId in graph) || !(parts.input in inputsOf(graph[parts.nodeId]))) {
			unknown.push(id);
			continue;
		}
		const current = inputsOf(graph[parts.nodeId])[parts.input] as JsonValue;
		const label = `${nodeLabel(graph, parts.nodeId)} → ${parts.input}`;
		setInput(overrides, parts.nodeId, parts.input, coerce(ctx, itemIndex, value, current, label));
	}
	if (unknown.length) {
		fail(
			ctx,
			itemIndex,
			`The overrides name inputs the deployment's workflow does not have: ${unknown.join(', ')}`,
			graph
				? `The saved workflow may have changed since the fields were loaded: open the node and refresh the Overrides fields (its nodes: ${describeNodes(graph)}).`
				: 'The deployment has no saved workflow to check the fields against: use the JSON mode instead.',
		);
	}
	return overrides;
}

interface BinaryInput {
	nodeId?: string;
	inputName?: string;
	binaryPropertyName?: string;
}

/** Binary of the incoming item as `data:<mime>;base64,…`, which the deployment API accepts for file inputs. */
async function binaryInputs(
	ctx: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	target: IDataObject,
	graph: WorkflowGraph | undefined,
	where: string,
): Promise<void> {
	const entries = (ctx.getNodeParameter('binaryInputs.files', itemIndex, []) as BinaryInput[]) ?? [];
	for (const entry of entries) {
		const nodeId = String(entry.nodeId ?? '').trim();
		const input = String(entry.inputName ?? '').trim();
		const property = String(entry.binaryPropertyName ?? '').trim() || 'data';
		if (!nodeId || !input) {
			fail(
				ctx,
				itemIndex,
				'A Binary Input is missing its node ID or input name',
				'Fill in "Node ID" and "Input Name" of every Binary Input (e.g. node 10, input image), or remove the empty entry.',
			);
		}
		if (graph) {
			if (!(nodeId in graph)) {
				fail(ctx, itemIndex, `Binary Input: node "${nodeId}" is not in ${where}`, `Its nodes: ${describeNodes(graph)}.`);
			}
			if (!(input in inputsOf(graph[nodeId]))) {
				fail(
					ctx,
					itemIndex,
					`Binary Input: ${nodeLabel(graph, nodeId)} has no input "${input}"`,
					`Its inputs: ${describeInputs(graph, nodeId)}.`,
				);
			}
		}
		const binary = item.binary?.[property];
		if (!binary) {
			const available = Object.keys(item.binary ?? {});
			fail(
				ctx,
				itemIndex,
				`Binary Input: the item has no binary field "${property}"`,
				available.length
					? `The item's binary fields: ${available.join(', ')}. Set "Input Binary Field" to one of them.`
					: 'The incoming item carries no binary data. Add a node before this one that reads or downloads the file (e.g. Read/Write Files from Disk, HTTP Request).',
			);
		}
		const buffer = await ctx.helpers.getBinaryDataBuffer(itemIndex, property);
		const mime = (binary.mimeType || 'application/octet-stream').split(';')[0].trim();
		setInput(target, nodeId, input, `data:${mime};base64,${buffer.toString('base64')}`);
	}
}

export interface PreparedInference {
	body: InferenceBody;
	webhookUrl?: string;
	webhookIntermediateStatus?: boolean;
}

/**
 * The whole inference request of one item, checked against the deployment (which must exist, be enabled and
 * have every node and input the overrides name). Throws a NodeOperationError naming the problem otherwise.
 */
export async function buildInference(
	ctx: IExecuteFunctions,
	itemIndex: number,
	item: INodeExecutionData,
	deploymentId: string,
	deployment: Deployment,
): Promise<PreparedInference> {
	if (deployment.is_enabled === false) {
		fail(
			ctx,
			itemIndex,
			`The deployment ${deployment.name ? `"${deployment.name}" (${deploymentId})` : `"${deploymentId}"`} is paused`,
			'Resume it first (Deployment → Resume in this node, or in the RunComfy dashboard), then run again.',
		);
	}
	const graph = graphOf(deployment);
	const mode = ctx.getNodeParameter('inputMode', itemIndex, 'defineBelow') as InputMode;
	const body: InferenceBody = {};

	if (mode === 'fullWorkflow') {
		const workflow = parseJsonObject(
			ctx,
			itemIndex,
			ctx.getNodeParameter('workflowJson', itemIndex, ''),
			'Workflow (API JSON)',
			'{"3": {"class_type": "KSampler", "inputs": {…}}}',
		);
		if (!workflow || Object.keys(workflow).length === 0) {
			fail(
				ctx,
				itemIndex,
				'The workflow is empty',
				'Paste a whole workflow exported from ComfyUI with "Export (API)" (workflow_api.json).',
			);
		}
		const broken = Object.entries(workflow)
			.filter(([, node]) => !isPlainObject(node) || typeof node.class_type !== 'string' || !isPlainObject(node.inputs))
			.map(([id]) => id);
		if (broken.length) {
			fail(
				ctx,
				itemIndex,
				`The workflow is not in ComfyUI's API format: node${broken.length > 1 ? 's' : ''} ${broken.slice(0, 10).join(', ')} lack${broken.length > 1 ? '' : 's'} "class_type" or "inputs"`,
				'Export the workflow from ComfyUI with "Export (API)" (workflow_api.json), not the regular "Save": the API format maps node ids to {"class_type", "inputs"}.',
			);
		}
		await binaryInputs(ctx, itemIndex, item, workflow, workflow as WorkflowGraph, 'the workflow given');
		body.workflow_api_json = workflow;
	} else {
		const overrides =
			mode === 'json'
				? (parseJsonObject(
						ctx,
						itemIndex,
						ctx.getNodeParameter('overridesJson', itemIndex, ''),
						'Overrides (JSON)',
						'{"6": {"inputs": {"text": "a red fox"}}}',
					) ?? {})
				: overridesFromForm(ctx, itemIndex, graph);
		await binaryInputs(ctx, itemIndex, item, overrides, graph, "the deployment's workflow");
		const problems = overrideProblems(overrides, graph);
		if (problems.length) {
			const wrapped = 'overrides' in overrides || 'workflow_api_json' in overrides;
			fail(
				ctx,
				itemIndex,
				`The overrides do not match the deployment's workflow: ${problems.join('; ')}`,
				`Overrides are keyed by node id, e.g. {"6": {"inputs": {"text": "a red fox"}}}; only nodes and inputs of the saved workflow can be changed.${wrapped ? ' Enter only the overrides object, without an "overrides" wrapper (use the Full Workflow mode to send a whole workflow).' : ''}`,
			);
		}
		if (Object.keys(overrides).length === 0) {
			fail(
				ctx,
				itemIndex,
				'No overrides to send',
				mode === 'json'
					? 'The service refuses an empty body. Enter at least one override, e.g. {"6": {"inputs": {"text": "a red fox"}}}.'
					: 'The service refuses an empty body. Add at least one input under "Overrides" (e.g. the prompt or the seed), or add a Binary Input.',
			);
		}
		body.overrides = overrides;
	}

	const options = ctx.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const extra = parseJsonObject(ctx, itemIndex, options.extraData, 'Extra Data (JSON)', '{"api_key_comfy_org": "comfyui-…"}');
	if (extra && Object.keys(extra).length) body.extra_data = extra;

	const webhookUrl = String(options.webhookUrl ?? '').trim();
	if (webhookUrl && !/^https?:\/\/[^\s]+$/i.test(webhookUrl)) {
		fail(
			ctx,
			itemIndex,
			`"Deliver Results To" is not a valid http(s) URL`,
			'Enter the full URL RunComfy should POST the result to, e.g. the Production URL of a RunComfy Webhook Trigger.',
		);
	}
	// The intermediate flag also applies to the callback URL of a parked run.
	return { body, ...(webhookUrl ? { webhookUrl } : {}), webhookIntermediateStatus: options.webhookIntermediateStatus === true };
}
