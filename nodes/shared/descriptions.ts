import type { IDisplayOptions, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { MAX_POLL_INTERVAL_SECONDS, MAX_WAIT_SECONDS, offersLearningSwitch } from './jobs/defaults';
import { DEFAULT_BINARY_FIELD, DEFAULT_MAX_DOWNLOAD_MB, DOWNLOAD_OPTIONS, MAX_LIST_LIMIT, readBoolean, readNumber } from './params';
import type { WaitDefaults } from './jobs/defaults';
import type { TimeoutBehaviour } from './wait';
import { MAX_USD_SETTING } from './money';

const TIMEOUT_OPTIONS: Record<TimeoutBehaviour, { name: string; description?: string }> = {
	fail: {
		name: 'Fail',
		description: 'Stop with an error that names the request ID, so it can be picked up later',
	},
	returnRunning: {
		name: 'Return as Still Running',
		description: 'Output the item with its request ID and current status; use Get Status or Get Result later',
	},
	cancel: {
		name: 'Cancel the Run',
	},
};

/** What the service cancels, as "Cancel the Run" says it (model-api.md: queued only; deployments: queued or running). */
export const CANCELS = {
	modelRun: 'only a queued run is cancelled; a running one keeps running',
	deploymentRequest: 'a queued or running request is cancelled',
} as const;

/**
 * "Wait for Completion" plus its options, shown for one resource/operation; `cancels` says which jobs On Timeout →
 * Cancel the Run can stop (required where that choice is offered).
 */
export function waitProperties(show: IDisplayOptions['show'], defaults: WaitDefaults, cancels?: string): INodeProperties[] {
	const choices = defaults.timeoutChoices ?? (['fail', 'returnRunning', 'cancel'] as TimeoutBehaviour[]);
	const { maxWaitSeconds, onTimeout, pollIntervalSeconds, maxPollIntervalSeconds, concurrency } = defaults;
	const toggle: INodeProperties = {
		displayName: 'Wait for Completion',
		name: 'waitForCompletion',
		type: 'boolean',
		default: true,
		description:
			'Whether to wait until the job finishes and return its result. Off: return the ID at once and use Get Status / Get Result later.',
		displayOptions: { show },
	};
	return [
		// Training waits are off by default (hours); the literal default above is what n8n's lint checks.
		defaults.waitByDefault ? toggle : { ...toggle, default: false },
		{
			displayName: 'Wait Options',
			name: 'waitOptions',
			type: 'collection',
			placeholder: 'Add Option',
			default: {},
			displayOptions: { show: { ...show, waitForCompletion: [true] } },
			options: [
				{
					displayName: 'First Poll Interval (Seconds)',
					name: 'pollIntervalSeconds',
					type: 'number',
					typeOptions: { minValue: 0.05, maxValue: MAX_POLL_INTERVAL_SECONDS, numberPrecision: 2 },
					default: pollIntervalSeconds,
					description: 'Status is checked this often at first, then less often up to the maximum interval',
				},
				// In the order of the names, as n8n lists a collection's options.
				...(offersLearningSwitch(defaults) ? [learningSwitch(defaults)] : []),
				{
					displayName: 'Max Poll Interval (Seconds)',
					name: 'maxPollIntervalSeconds',
					type: 'number',
					typeOptions: { minValue: 0.05, maxValue: MAX_POLL_INTERVAL_SECONDS, numberPrecision: 2 },
					default: maxPollIntervalSeconds,
					description: 'Upper bound of the interval between two status checks of one job',
				},
				{
					displayName: 'Max Wait (Seconds)',
					name: 'maxWaitSeconds',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: MAX_WAIT_SECONDS },
					default: maxWaitSeconds,
					description: 'Longest time to wait for each job, counted from when waiting starts',
				},
				{
					displayName: 'On Timeout',
					name: 'onTimeout',
					type: 'options',
					default: onTimeout,
					options: choices.map((value) => timeoutOption(value, cancels)),
					description: 'What to do with a job that is still running when Max Wait is reached',
				},
				{
					displayName: 'Parallel Status Checks',
					name: 'concurrency',
					type: 'number',
					typeOptions: { minValue: 1, maxValue: 100 },
					default: concurrency,
					description: 'How many status requests may be in flight at once across all items',
				},
				...(defaults.learnsRunTimes ? [POLLING_GOAL] : []),
			],
		},
	];
}

function timeoutOption(value: TimeoutBehaviour, cancels: string | undefined) {
	const option = { value, ...TIMEOUT_OPTIONS[value] };
	if (value !== 'cancel') return option;
	if (cancels === undefined) throw new Error('waitProperties: say which jobs "Cancel the Run" cancels');
	return { ...option, description: `Ask the service to cancel it (${cancels}) and output the outcome` };
}

/** Offered where runs of one model or deployment teach how long the next ones take (../wait/planner). */
const POLLING_GOAL: INodeProperties = {
	displayName: 'Polling Goal',
	name: 'pollingGoal',
	type: 'options',
	default: 'lowestDelay',
	options: [
		{
			name: 'Fewest Requests',
			value: 'fewestRequests',
			description: 'About three status checks per run; the end is seen a few percent of the run time late',
		},
		{
			name: 'Lowest Delay',
			value: 'lowestDelay',
			description: "A run's end is seen within about 0.3 s; long runs take more status checks (still fewer than a 5 s loop)",
		},
	],
	description:
		'Once runs of this model or deployment have been seen to end in this n8n process (from the second run on), status checks are placed around the expected end. This decides what they aim at.',
};

/** The switch back to the plain interval, where learned polling could misbehave (../wait, `learning`). */
const LEARN_RUN_TIMES: INodeProperties = {
	displayName: 'Learn Run Times',
	name: 'learnRunTimes',
	type: 'boolean',
	default: true,
	description:
		'Whether to place status checks around the end that earlier runs of this model or deployment showed (in this n8n process). Off: checks follow First Poll Interval growing to Max Poll Interval, and these runs teach nothing.',
};

const LEARN_STEP_PACE: INodeProperties = {
	...LEARN_RUN_TIMES,
	displayName: 'Learn Step Pace',
	description:
		"Whether to place a status check where the job's last step should end, from the pace of its steps. Off: checks follow First Poll Interval growing to Max Poll Interval.",
};

/** The Wait Options switch back to plain polling: what the kind's polls learn from (run times or step pace). */
export const learningSwitch = (defaults: WaitDefaults): INodeProperties => (defaults.learnsRunTimes ? LEARN_RUN_TIMES : LEARN_STEP_PACE);

/**
 * "Download Outputs" plus its options, shown for one resource/operation: how large a file may be, whether the
 * files share the result's item or get one item each, and the binary field they go to.
 */
export function downloadProperties(
	show: IDisplayOptions['show'],
	defaultOn = true,
	layout: 'fields' | 'collection' = 'fields',
): INodeProperties[] {
	const downloadOutputs: INodeProperties = {
		displayName: 'Download Outputs',
		name: 'downloadOutputs',
		type: 'boolean',
		default: true,
		description:
			"Whether to download generated files into binary data. Only hosts in the credential's Allowed Download Hosts are fetched, without your token. Off: return URLs only. Off by default when an AI agent calls the node.",
		displayOptions: { show },
	};
	const whenDownloading = { show: { ...show, downloadOutputs: [true] } };
	const details = downloadDetails(whenDownloading);
	if (layout === 'collection') {
		const options = details
			.map((detail) => {
				const inCollection = { ...detail };
				delete inCollection.displayOptions;
				return inCollection;
			})
			.sort((a, b) => a.displayName.localeCompare(b.displayName));
		return [
			{ ...downloadOutputs, default: defaultOn },
			{
				displayName: 'Download Options',
				name: DOWNLOAD_OPTIONS,
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				displayOptions: whenDownloading,
				options,
			},
		];
	}
	return [{ ...downloadOutputs, default: defaultOn }, ...details];
}

function downloadDetails(whenDownloading: IDisplayOptions): INodeProperties[] {
	return [
		{
			displayName: 'Output Files',
			name: 'outputFiles',
			type: 'options',
			default: 'allOnOneItem',
			options: [
				{
					name: 'All Files on One Item',
					value: 'allOnOneItem',
					description: 'One output item per input item, with every file on it (data, data_1, ...)',
				},
				{
					name: 'One Item per File',
					value: 'oneItemPerFile',
					description:
						"Every file becomes its own item (in data), with the job's JSON and the file's own file_url: the next node handles each file once",
				},
			],
			description: 'Whether the files stay together on one item or are split into one item each',
			displayOptions: whenDownloading,
		},
		{
			displayName: 'Output Binary Field',
			name: 'outputBinaryField',
			type: 'string',
			default: DEFAULT_BINARY_FIELD,
			placeholder: 'e.g. data',
			hint: 'The name of the output binary field to put the file in',
			description:
				'Binary field of the file (one item per file), or of the first file when all files are on one item; the next ones get _1, _2 and so on added to this name',
			displayOptions: whenDownloading,
		},
		{
			displayName: 'Max Download Size (MB)',
			name: 'maxDownloadSizeMb',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: DEFAULT_MAX_DOWNLOAD_MB },
			default: DEFAULT_MAX_DOWNLOAD_MB,
			description: 'A file larger than this is not kept (the download is aborted); 2048 MB at most',
			displayOptions: whenDownloading,
		},
	];
}

/** "Minimum Balance (USD)" for the Options collection of a paid operation (see shared/jobs/guards.ts). */
export const minimumBalanceOption: INodeProperties = {
	displayName: 'Minimum Balance (USD)',
	name: 'minimumBalanceUsd',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_USD_SETTING, numberPrecision: 2 },
	default: 0,
	description:
		'Stop before submitting anything when the account balance is below this amount. 0 turns the check off; an empty value (or an expression that gives nothing) is refused, never taken as off.',
};

/** "Max Estimated Cost (USD)" for the Options collection of Model → Run (see shared/jobs/guards.ts). */
export const maxEstimatedCostOption: INodeProperties = {
	displayName: 'Max Estimated Cost (USD)',
	name: 'maxEstimatedCostUsd',
	type: 'number',
	typeOptions: { minValue: 0, maxValue: MAX_USD_SETTING, numberPrecision: 2 },
	default: 0,
	description:
		"Refuse the whole batch before submitting anything when its estimated cost (the catalog's base price × the outputs or seconds asked for), added to what this node already submitted in this execution (on an AI agent's or MCP tool call: that call alone), is above this amount. Items whose cost cannot be estimated are refused while a cap is set. 0 turns the cap off; an empty value (or an expression that gives nothing) is refused, never taken as off.",
};

/** "Request ID" of an earlier run (Get Status, Get Result, Cancel, ...); `placeholder` shows an id of the node's kind. */
export function requestIdProperty(placeholder: string): INodeProperties {
	return {
		displayName: 'Request ID',
		name: 'requestId',
		type: 'string',
		required: true,
		default: '',
		placeholder,
		description: 'The request_id returned by Run (also on a timeout or when Wait for Completion is off)',
	};
}

/** n8n's usual "Return All" + "Limit" (50) pair of a list operation (Limit shown while Return All is off). */
export function returnAllProperties(): INodeProperties[] {
	return [
		{
			displayName: 'Return All',
			name: 'returnAll',
			type: 'boolean',
			default: false,
			description: 'Whether to return all results or only up to a given limit',
		},
		{
			displayName: 'Limit',
			name: 'limit',
			type: 'number',
			typeOptions: { minValue: 1, maxValue: MAX_LIST_LIMIT },
			default: 50,
			description: 'Max number of results to return',
			displayOptions: { show: { returnAll: [false] } },
		},
	];
}

/** What "Return All" and "Limit" of a Get Many allow for one item: Infinity, or the checked limit. */
export function readLimit(ctx: IExecuteFunctions, itemIndex: number): number {
	if (readBoolean(ctx, 'returnAll', itemIndex, false, 'Return All')) return Infinity;
	return readNumber(ctx, 'limit', itemIndex, 50, {
		label: 'Limit',
		min: 1,
		max: MAX_LIST_LIMIT,
		integer: true,
		example: `a whole number from 1 to ${MAX_LIST_LIMIT}, e.g. 50, or switch on Return All`,
		outcome: 'Nothing was read.',
	});
}
