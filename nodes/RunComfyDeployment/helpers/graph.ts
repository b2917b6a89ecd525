/**
 * The deployment's saved ComfyUI workflow (`workflow_api_json`: node id → { class_type, inputs, _meta.title })
 * and what the node derives from it: the overridable inputs (fields of the "Define Below" form) and the
 * check that an override names only node ids and inputs the workflow has.
 */
import type { FieldType, IDataObject, ResourceMapperField } from 'n8n-workflow';
import { jsonParse } from 'n8n-workflow';

import type { Deployment, JsonValue } from '../../shared/types';

export interface GraphNode extends IDataObject {
	class_type?: string;
	inputs?: IDataObject;
	_meta?: IDataObject;
}

export type WorkflowGraph = Record<string, GraphNode>;

/** One literal input of one node: what the user may override. */
export interface WorkflowInput {
	nodeId: string;
	input: string;
	/** "CLIP Text Encode (Prompt) #6" */
	nodeLabel: string;
	value: JsonValue;
	type: FieldType;
}

export const isPlainObject = (value: unknown): value is IDataObject => typeof value === 'object' && value !== null && !Array.isArray(value);

/** A connection to another node's output, e.g. ["4", 0]: not a value the user can override from a form. */
export const isLink = (value: unknown): boolean =>
	Array.isArray(value) &&
	value.length === 2 &&
	(typeof value[0] === 'string' || typeof value[0] === 'number') &&
	typeof value[1] === 'number';

const parseMaybeJson = (value: unknown): unknown => {
	if (typeof value !== 'string') return value;
	try {
		return jsonParse(value);
	} catch {
		return undefined;
	}
};

/**
 * The saved workflow of a deployment read with the payload: the live service nests it as
 * `payload.workflow_api_json`, the contract puts `workflow_api_json` at the top level; both are accepted
 * (also as a JSON string). Undefined when the deployment carries none (e.g. LoRA deployments).
 */
export function graphOf(deployment: Deployment): WorkflowGraph | undefined {
	const candidates = [deployment.payload?.workflow_api_json, deployment.workflow_api_json];
	for (const raw of candidates) {
		const value = parseMaybeJson(raw);
		if (isPlainObject(value) && Object.keys(value).length > 0) return value as WorkflowGraph;
	}
	return undefined;
}

const compareIds = (a: string, b: string) => a.localeCompare(b, 'en', { numeric: true });

export const sortedNodeIds = (graph: WorkflowGraph): string[] => Object.keys(graph).sort(compareIds);

export function nodeTitle(node: GraphNode | undefined): string {
	const title = isPlainObject(node?._meta) ? node?._meta?.title : undefined;
	if (typeof title === 'string' && title.trim()) return title.trim();
	if (typeof node?.class_type === 'string' && node.class_type.trim()) return node.class_type.trim();
	return 'Node';
}

export const nodeLabel = (graph: WorkflowGraph, nodeId: string): string => `${nodeTitle(graph[nodeId])} #${nodeId}`;

export const inputsOf = (node: GraphNode | undefined): IDataObject => (isPlainObject(node?.inputs) ? (node?.inputs as IDataObject) : {});

function fieldTypeOf(value: JsonValue): FieldType {
	if (typeof value === 'number') return 'number';
	if (typeof value === 'boolean') return 'boolean';
	if (Array.isArray(value)) return 'array';
	if (isPlainObject(value)) return 'object';
	return 'string';
}

/** Every literal input of every node, ordered by node id, in the node's own input order. */
export function literalInputs(graph: WorkflowGraph): WorkflowInput[] {
	const out: WorkflowInput[] = [];
	for (const nodeId of sortedNodeIds(graph)) {
		const inputs = inputsOf(graph[nodeId]);
		for (const [input, value] of Object.entries(inputs)) {
			if (isLink(value)) continue;
			out.push({ nodeId, input, nodeLabel: nodeLabel(graph, nodeId), value, type: fieldTypeOf(value) });
		}
	}
	return out;
}

/** Field ids are `<node id>.<input>`; node ids never contain a dot (they are numbers or "38:42"). */
export const fieldId = (nodeId: string, input: string): string => `${nodeId}.${input}`;

export function splitFieldId(id: string): { nodeId: string; input: string } | undefined {
	const dot = id.indexOf('.');
	if (dot <= 0 || dot === id.length - 1) return undefined;
	return { nodeId: id.slice(0, dot), input: id.slice(dot + 1) };
}

const defaultValueOf = (value: JsonValue): string | number | boolean | null => {
	if (value === null || value === undefined) return null;
	if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') return value;
	return JSON.stringify(value);
};

/** resourceMapper fields: one per literal input, "CLIP Text Encode (Prompt) #6 → text", current value as default. */
export function inputsToFields(graph: WorkflowGraph): ResourceMapperField[] {
	return literalInputs(graph).map((entry) => ({
		id: fieldId(entry.nodeId, entry.input),
		displayName: `${entry.nodeLabel} → ${entry.input}`,
		required: false,
		defaultMatch: false,
		canBeUsedToMatch: false,
		display: true,
		type: entry.type,
		readOnly: false,
		removed: true,
		defaultValue: defaultValueOf(entry.value),
	}));
}

const MAX_LISTED = 40;

const listed = (names: string[]): string =>
	names.length > MAX_LISTED ? `${names.slice(0, MAX_LISTED).join(', ')}, … (${names.length} in all)` : names.join(', ');

/** "3 (KSampler), 6 (CLIP Text Encode (Prompt)), …" */
export function describeNodes(graph: WorkflowGraph): string {
	return listed(sortedNodeIds(graph).map((id) => `${id} (${nodeTitle(graph[id])})`));
}

/** "6.text, 3.seed, …": every literal input as it is addressed in an override. */
export function describeInputs(graph: WorkflowGraph, nodeId: string): string {
	const names = Object.keys(inputsOf(graph[nodeId]));
	return names.length ? listed(names) : '(none)';
}

/**
 * Problems with an overrides object against the saved workflow: node ids it lacks, inputs a node lacks, and
 * entries not shaped `{ "inputs": { … } }`. Empty when everything is addressable.
 */
export function overrideProblems(overrides: IDataObject, graph: WorkflowGraph | undefined): string[] {
	const problems: string[] = [];
	for (const [nodeId, entry] of Object.entries(overrides)) {
		if (graph && !(nodeId in graph)) {
			problems.push(`node "${nodeId}" is not in the deployment's workflow (its nodes: ${describeNodes(graph)})`);
			continue;
		}
		if (!isPlainObject(entry) || !isPlainObject(entry.inputs)) {
			problems.push(`the override for node "${nodeId}" must look like {"inputs": {"<input name>": <value>}}`);
			continue;
		}
		if (!graph) continue;
		const known = inputsOf(graph[nodeId]);
		const unknown = Object.keys(entry.inputs as IDataObject).filter((name) => !(name in known));
		if (unknown.length) {
			problems.push(
				`${nodeLabel(graph, nodeId)} has no input ${unknown.map((n) => `"${n}"`).join(', ')} (its inputs: ${describeInputs(graph, nodeId)})`,
			);
		}
	}
	return problems;
}

/** Puts one value into an overrides object (or a whole workflow graph), creating the node entry. */
export function setInput(target: IDataObject, nodeId: string, input: string, value: JsonValue): void {
	const entry = isPlainObject(target[nodeId]) ? (target[nodeId] as IDataObject) : {};
	const inputs = isPlainObject(entry.inputs) ? (entry.inputs as IDataObject) : {};
	target[nodeId] = { ...entry, inputs: { ...inputs, [input]: value } };
}

/**
 * A readable summary of a deployment's saved workflow for the output of Get / List with the workflow:
 * `workflow_nodes`: [{node_id, title, class_type, inputs: names of the literal inputs}].
 */
export function workflowSummary(deployment: Deployment): IDataObject {
	const graph = graphOf(deployment);
	if (!graph) return {};
	return {
		workflow_nodes: sortedNodeIds(graph).map((nodeId) => ({
			node_id: nodeId,
			title: nodeTitle(graph[nodeId]),
			class_type: graph[nodeId]?.class_type ?? null,
			inputs: Object.entries(inputsOf(graph[nodeId]))
				.filter(([, value]) => !isLink(value))
				.map(([name]) => name),
		})),
	};
}
