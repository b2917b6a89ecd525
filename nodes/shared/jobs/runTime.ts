/** A finished run's time from the service's own timestamps, as a window of ms from submission to end. */
import type { IDataObject } from 'n8n-workflow';

import type { DurationSample } from '../wait';

/** Resolution in ms of an ISO timestamp: 1000 without fractional seconds, 1 with milliseconds or finer. */
function resolutionMs(text: string): number {
	const fraction = /T\d{2}:\d{2}:\d{2}\.(\d+)/.exec(text)?.[1];
	return fraction ? 10 ** Math.max(0, 3 - fraction.length) : 1000;
}

function timestamp(value: unknown): { at: number; resolution: number } | undefined {
	if (typeof value !== 'string' || !/^\d{4}-\d{2}-\d{2}T/.test(value)) return undefined;
	const at = Date.parse(value);
	return Number.isFinite(at) ? { at, resolution: resolutionMs(value) } : undefined;
}

/** The window, or undefined when the result lacks either timestamp or they make no sense. */
export function runTimeWindow(result: IDataObject, submittedAt?: number, answeredAt?: number): DurationSample | undefined {
	const created = timestamp(result.created_at);
	const finished = timestamp(result.finished_at);
	if (!created || !finished || submittedAt === undefined || answeredAt === undefined || !(answeredAt >= submittedAt)) return undefined;
	const runTime = finished.at - created.at;
	if (!(runTime >= 0)) return undefined;
	const resolution = Math.max(created.resolution, finished.resolution);
	return { lo: Math.max(0, runTime - resolution), hi: runTime + resolution + (answeredAt - submittedAt) };
}
