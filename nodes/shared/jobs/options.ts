/**
 * Reading the options only a job has, before anything is paid: the wait (mode and options), the cost cap and the
 * minimum balance. A spending guard that cannot be read is never taken as off.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MAX_TIMER_MS, POLLING_GOALS } from '../wait';
import type { PollingGoal, TimeoutBehaviour, WaitOptions } from '../wait';
import type { WaitDefaults } from './defaults';
import { MAX_POLL_INTERVAL_SECONDS, MAX_WAIT_SECONDS, TOOL_MAX_WAIT_SECONDS, offersLearningSwitch } from './defaults';
import { learningSwitch } from '../descriptions';
import { isToolCall } from '../items';
import { MAX_USD_SETTING } from '../money';
import { checkNumber, emptyNumber, isEmptyValue, rawExpression, readBoolean, readNumber, refuseEmptyExpression, shown } from '../params';
import type { NumberRule } from '../params';

const TIMEOUT_CHOICES: TimeoutBehaviour[] = ['fail', 'returnRunning', 'cancel'];

/**
 * How a job is waited for: `inProcess` polls in this execution (the wait engine); `park` saves the execution as
 * waiting until the service calls back (./park/park.ts; only kinds with `park`, never for an AI agent).
 */
export type WaitMode = 'inProcess' | 'park';

export type ReadWaitOptions = WaitOptions & { enabled: boolean; mode: WaitMode };

/** "Wait Mode" of one item: `park` only where the kind can park, the wait is on and no agent is calling. */
export function readWaitMode(ctx: IExecuteFunctions, itemIndex: number, parkable: boolean, enabled: boolean): WaitMode {
	if (!parkable || !enabled || isToolCall(ctx)) return 'inProcess';
	const value = ctx.getNodeParameter('waitMode', itemIndex, 'inProcess') as unknown;
	if (value === 'inProcess' || value === 'park') return value;
	throw new NodeOperationError(ctx.getNode(), `"Wait Mode" of item ${itemIndex} must be inProcess or park, but is ${shown(value)}`, {
		itemIndex,
		description: 'Pick a value from the list. Nothing was submitted.',
	});
}

/** Reads the wait options of one item into the engine's options; every number is checked. */
export function readWaitOptions(ctx: IExecuteFunctions, itemIndex: number, defaults: WaitDefaults, parkable = false): ReadWaitOptions {
	const enabled = readBoolean(ctx, 'waitForCompletion', itemIndex, defaults.waitByDefault, 'Wait for Completion');
	const mode = readWaitMode(ctx, itemIndex, parkable, enabled);
	const raw = ctx.getNodeParameter('waitOptions', itemIndex, {}) as IDataObject;
	const toolCall = isToolCall(ctx);
	// An option whose expression gave nothing is refused (read as written only then: most items have none).
	const expressionOf = (name: string) =>
		isEmptyValue(raw[name]) && name in raw ? rawExpression(ctx, `waitOptions.${name}`, itemIndex) : undefined;
	const field = (name: string, fallback: number, rule: NumberRule) =>
		isEmptyValue(raw[name])
			? (emptyNumber(ctx, expressionOf(name), raw[name], rule, itemIndex) ?? fallback)
			: checkNumber(ctx, raw[name], rule, itemIndex);
	const choice = (name: string, label: string, choices: readonly string[]) => {
		const expression = expressionOf(name);
		if (expression !== undefined) {
			throw refuseEmptyExpression(ctx, {
				label,
				itemIndex,
				expression,
				value: raw[name],
				wanted: `one of ${choices.join(', ')}`,
				fallback: `"${choices[0]}"`,
			});
		}
	};
	const seconds = { example: 'seconds, e.g. 600' };
	let maxWaitSeconds = field('maxWaitSeconds', defaults.maxWaitSeconds, {
		label: 'Max Wait (Seconds)',
		min: 0,
		above: true,
		max: MAX_WAIT_SECONDS,
		...seconds,
	});
	if (toolCall) maxWaitSeconds = Math.min(maxWaitSeconds, TOOL_MAX_WAIT_SECONDS);
	const initial = field('pollIntervalSeconds', defaults.pollIntervalSeconds, {
		label: 'First Poll Interval (Seconds)',
		min: 0.01,
		max: MAX_POLL_INTERVAL_SECONDS,
		example: 'seconds, e.g. 1',
	});
	const max = Math.max(
		initial,
		field('maxPollIntervalSeconds', defaults.maxPollIntervalSeconds, {
			label: 'Max Poll Interval (Seconds)',
			min: 0.01,
			max: MAX_POLL_INTERVAL_SECONDS,
			example: 'seconds, e.g. 10',
		}),
	);
	const concurrency = field('concurrency', defaults.concurrency, {
		label: 'Parallel Status Checks',
		min: 1,
		max: 100,
		integer: true,
		example: 'a whole number from 1 to 100, e.g. 10',
	});
	const choices = defaults.timeoutChoices ?? TIMEOUT_CHOICES;
	choice('onTimeout', 'On Timeout', choices);
	let onTimeout = raw.onTimeout as TimeoutBehaviour | undefined;
	if (onTimeout !== undefined && !choices.includes(onTimeout)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"On Timeout" of item ${itemIndex} must be one of ${choices.join(', ')}, but is ${shown(onTimeout)}`,
			{
				itemIndex,
				description: 'Pick a value from the list. Nothing was submitted.',
			},
		);
	}
	// An agent gets the job back as still running (with its id) rather than an error, unless set otherwise.
	const v1 = ctx.getNode().typeVersion < 1.1;
	onTimeout ??= toolCall ? 'returnRunning' : ((v1 ? defaults.onTimeoutV1 : undefined) ?? defaults.onTimeout);
	if (mode === 'park' && onTimeout === 'cancel') {
		throw new NodeOperationError(
			ctx.getNode(),
			`"On Timeout" of item ${itemIndex} cannot be "Cancel the Run" when the execution is parked`,
			{
				itemIndex,
				description:
					'At Max Wait n8n resumes a parked node without running it, so nothing could cancel the run then. Choose "Fail" or "Return as Still Running", or the Wait Mode "Wait in This Execution". Nothing was submitted.',
			},
		);
	}
	const goal = raw.pollingGoal;
	if (defaults.learnsRunTimes) choice('pollingGoal', 'Polling Goal', POLLING_GOALS);
	if (defaults.learnsRunTimes && goal !== undefined && goal !== null && goal !== '' && !POLLING_GOALS.includes(goal as PollingGoal)) {
		throw new NodeOperationError(
			ctx.getNode(),
			`"Polling Goal" of item ${itemIndex} must be one of ${POLLING_GOALS.join(', ')}, but is ${shown(goal)}`,
			{
				itemIndex,
				description: 'Pick "Lowest Delay" or "Fewest Requests" from the list. Nothing was submitted.',
			},
		);
	}
	const learnSwitch: Switch = { name: 'learnRunTimes', label: learningSwitch(defaults).displayName, fallback: true };
	const learning = offersLearningSwitch(defaults) ? readSwitch(ctx, raw, itemIndex, learnSwitch, expressionOf('learnRunTimes')) : true;
	return {
		enabled,
		mode,
		learning,
		...(defaults.learnsRunTimes && goal === 'fewestRequests' ? { pollingGoal: 'fewestRequests' as const } : {}),
		initialIntervalMs: Math.min(MAX_TIMER_MS, Math.round(initial * 1000)),
		maxIntervalMs: Math.min(MAX_TIMER_MS, Math.round(max * 1000)),
		maxWaitMs: Math.round(maxWaitSeconds * 1000),
		concurrency,
		onTimeout,
		cancelOnStop: defaults.cancelOnStop,
	};
}

interface Switch {
	name: 'learnRunTimes';
	label: string;
	fallback: boolean;
}

/** A wait switch of one item: its default when not set; an empty expression or anything but true/false is refused. */
function readSwitch(ctx: IExecuteFunctions, raw: IDataObject, itemIndex: number, which: Switch, expression: string | undefined): boolean {
	const { label, fallback } = which;
	const value = raw[which.name];
	if (expression !== undefined)
		throw refuseEmptyExpression(ctx, { label, itemIndex, expression, value, wanted: 'true or false', fallback: String(fallback) });
	if (isEmptyValue(value)) return fallback;
	if (value === true || value === 'true') return true;
	if (value === false || value === 'false') return false;
	throw new NodeOperationError(ctx.getNode(), `"${label}" of item ${itemIndex} must be true or false, but is ${shown(value)}`, {
		itemIndex,
		description: 'Switch it on or off, or make the expression produce true or false. Nothing was submitted.',
	});
}

/** "Minimum Balance (USD)" in Options; 0 turns the guard off. */
export function readMinimumBalance(ctx: IExecuteFunctions, itemIndex: number): number {
	return readNumber(ctx, 'options.minimumBalanceUsd', itemIndex, 0, {
		label: 'Minimum Balance (USD)',
		min: 0,
		max: MAX_USD_SETTING,
		example: 'US dollars, e.g. 5',
		guard: 'Enter 0 to turn the guard off',
	});
}

/** "Max Estimated Cost (USD)" in Options; 0 turns the cap off. */
export function readCostCap(ctx: IExecuteFunctions, itemIndex: number): number {
	return readNumber(ctx, 'options.maxEstimatedCostUsd', itemIndex, 0, {
		label: 'Max Estimated Cost (USD)',
		min: 0,
		max: MAX_USD_SETTING,
		example: 'US dollars, e.g. 10',
		guard: 'Enter 0 to turn the cap off',
	});
}
