import type { INodeProperties } from 'n8n-workflow';

/** What the model is told about each operation, by resource and operation. */
export type ToolTexts = Record<string, Record<string, string>>;

const FREE = 'Free: nothing is charged.';
const PAID = 'Paid: this spends RunComfy credit.';

/** Sentences an operation's tool text ends with, by what it costs. */
export const costNote = { free: FREE, paid: PAID };

/**
 * The arguments an operation takes, with their types and allowed values, named as docs/ai-agents.md recommends
 * wiring them with `$fromAI`: n8n's tool schema carries neither enums nor the meaning of a value.
 */
const withArguments = (text: string, args: string | undefined) => (args ? `${text} Arguments: ${args}` : text);

/**
 * "Tool Description" of the node's tool form, one per operation: what an AI agent's model is told the tool does
 * and what it costs. Shown only on the tool form (`@tool`); n8n adds its own generic field (built from the action
 * name, which says neither) only to nodes that have none. Ignored by n8n versions without `@tool`, which fall
 * back to the action name.
 */
export function toolDescriptionProperties(texts: ToolTexts, args: ToolTexts = {}): INodeProperties[] {
	return Object.entries(texts).flatMap(([resource, operations]) =>
		Object.entries(operations).map(
			([operation, text]): INodeProperties => ({
				displayName: 'Tool Description',
				name: 'toolDescription',
				type: 'string',
				typeOptions: { rows: 3 },
				default: withArguments(text, args[resource]?.[operation]),
				description: 'What the AI agent is told this tool does and costs; a specific description helps it choose and fill the tool',
				displayOptions: { show: { '@tool': [true], resource: [resource], operation: [operation] } },
			}),
		),
	);
}
