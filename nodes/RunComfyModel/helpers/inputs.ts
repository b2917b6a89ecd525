import type { IDataObject, IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mapperValueToBody, propertiesOf, validateBody, valueTypeOf } from './schema';
import type { SchemaProblem } from './schema';
import { parseJsonText, refuseEmptyFormInputs } from '../../shared/params';
import { getModel } from '../../shared/transport';
import type { InputSchema, ModelEntry } from '../../shared/types';

/** One catalog lookup per model id and execution, shared by every item of the batch. */
export class ModelCache {
	private readonly entries = new Map<string, Promise<ModelEntry>>();

	constructor(private readonly ctx: IExecuteFunctions) {}

	async get(modelId: string): Promise<ModelEntry> {
		let entry = this.entries.get(modelId);
		if (!entry) {
			entry = getModel(this.ctx, modelId);
			// A rejected lookup stays cached: every item of that model gets the same error from one call.
			entry.catch(() => undefined);
			this.entries.set(modelId, entry);
		}
		return await entry;
	}
}

export const schemaOf = (model: ModelEntry): InputSchema => model.input_schema ?? { type: 'object', properties: {} };

/** The JSON input mode: a flat JSON object, given as text or produced by an expression. */
export function parseJsonBody(node: INode, raw: unknown, itemIndex: number): IDataObject {
	let value: unknown = raw;
	if (typeof raw === 'string') {
		const text = raw.trim();
		if (!text) return {};
		try {
			value = parseJsonText(text);
		} catch (error) {
			throw new NodeOperationError(node, `Item ${itemIndex}: "Inputs (JSON)" is not valid JSON`, {
				itemIndex,
				description: `${(error as Error).message}. Enter a JSON object such as {"prompt": "a red fox"}, with double quotes around names and strings. Nothing was submitted.`,
			});
		}
	}
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		const kind = Array.isArray(value) ? 'an array' : value === null ? 'null' : `a ${typeof value}`;
		throw new NodeOperationError(node, `Item ${itemIndex}: "Inputs (JSON)" must be a JSON object, not ${kind}`, {
			itemIndex,
			description:
				'Enter the request body as one flat JSON object whose keys are the model\'s input names, e.g. {"prompt": "a red fox"}. Nothing was submitted.',
		});
	}
	return { ...(value as IDataObject) };
}

/** Builds the request body of one item from the input mode and the LoRA field (no validation yet). */
export function buildBody(ctx: IExecuteFunctions, itemIndex: number, model: ModelEntry): IDataObject {
	const node = ctx.getNode();
	const schema = schemaOf(model);
	const mode = ctx.getNodeParameter('inputMode', itemIndex, 'defineBelow') as string;
	let body: IDataObject;
	if (mode === 'json') {
		body = parseJsonBody(node, ctx.getNodeParameter('inputsJson', itemIndex, '{}'), itemIndex);
	} else {
		refuseEmptyMapped(ctx, itemIndex, schema);
		const value = ctx.getNodeParameter('inputs.value', itemIndex, {}) as IDataObject | null;
		body = mapperValueToBody(value ?? {}, schema);
	}
	// Options → LoRA from version 1.1 (Run), the LoRA field before and in Estimate Cost.
	const lora = String(ctx.getNodeParameter('options.lora', itemIndex, '') || ctx.getNodeParameter('lora', itemIndex, '') || '').trim();
	if (lora) {
		if (!acceptsLora(model)) {
			throw new NodeOperationError(node, `Item ${itemIndex}: the model ${model.model_id} does not accept a LoRA`, {
				itemIndex,
				description:
					'Clear "LoRA" (in Options from Model → Run 1.1), or pick a model whose inputs include "lora" (LoRA variants of a base model, e.g. blackforestlabs/flux-1/dev/lora/text-to-image). Nothing was submitted.',
			});
		}
		// The LoRA field wins over a `lora` given in the inputs, keeping its other keys (e.g. `scale`).
		const given = body.lora;
		const rest = typeof given === 'object' && given !== null && !Array.isArray(given) ? (given as IDataObject) : {};
		body.lora = { ...rest, path: lora };
	}
	return body;
}

/** The form's empty inputs are refused as on every form (refuseEmptyFormInputs), typed by the model's schema. */
function refuseEmptyMapped(ctx: IExecuteFunctions, itemIndex: number, schema: InputSchema): void {
	const values = (ctx.getNodeParameter('inputs.value', itemIndex, {}, { skipValidation: true }) ?? {}) as IDataObject;
	const properties = propertiesOf(schema);
	refuseEmptyFormInputs(ctx, itemIndex, values, (name) => {
		const type = valueTypeOf(Object.prototype.hasOwnProperty.call(properties, name) ? properties[name] : undefined);
		const kind = type === 'boolean' ? 'boolean' : type === 'number' || type === 'integer' ? 'number' : 'text';
		return { label: name, kind, fallback: kind === 'boolean' ? 'false' : kind === 'number' ? '1' : '"…"' };
	});
}

export function acceptsLora(model: ModelEntry): boolean {
	return Boolean(schemaOf(model).properties?.lora) || (model.inputs ?? []).includes('lora');
}

export function formatProblem(problem: SchemaProblem): string {
	const message = problem.message.trim().replace(/\.$/, '');
	if (!problem.input || message.startsWith(problem.input)) return message;
	return `${problem.input} ${message}`;
}

/** Checks a body against the model's schema; returns one line naming every problem, or undefined. */
export function describeProblems(body: IDataObject, model: ModelEntry): string | undefined {
	const problems = validateBody(body, schemaOf(model), model.required_inputs);
	if (!problems.length) return undefined;
	return problems.map(formatProblem).join('; ');
}

/** The hint that goes with schema problems; points out the most common mistake (an `input` wrapper). */
export function problemsHint(body: IDataObject, model: ModelEntry): string {
	const wrapped =
		Object.keys(body).length === 1 && 'input' in body && !schemaOf(model).properties?.input
			? ' The body is flat: put the inputs at the top level instead of inside "input".'
			: '';
	return `The inputs do not match the input schema of ${model.model_id}. Fix them in "Inputs" (the field labels state ranges and file formats; Catalog → Get Model shows each input's type and allowed values; file inputs take public HTTPS URLs).${wrapped} Nothing was submitted.`;
}
