import type { IDataObject } from 'n8n-workflow';

import { classifyStoppedJob, normaliseStatus } from '../../shared/status';
import { getTrainingJobResult, getTrainingJobStatus } from '../../shared/transport';
import type { TriggerEvent } from './types';
import { isNewTransition, parseIdList } from './types';

const show = { event: ['trainingJob'] };

export const trainingJobEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Training Job IDs',
			name: 'jobIds',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 6a1f..., 9b2c...',
			description:
				'Jobs to watch, separated by commas or new lines, or an expression returning a list. Fires once each time a job finishes, fails, is cancelled or stops early.',
			displayOptions: { show },
		},
	],

	async check(ctx, state, manual) {
		const events: IDataObject[] = [];
		for (const jobId of parseIdList(ctx.getNodeParameter('jobIds', ''))) {
			const status = await getTrainingJobStatus(ctx, jobId);
			let runState = normaliseStatus(status.status);
			let result: IDataObject | undefined;
			if (runState === 'stopped_incomplete' || runState === 'stopped_finished' || runState === 'failed') {
				result = await getTrainingJobResult(ctx, jobId);
				if (runState !== 'failed') runState = classifyStoppedJob(status, result);
			}
			const reported = ['stopped_finished', 'stopped_incomplete', 'failed', 'cancelled'].includes(runState);
			if (manual || isNewTransition(state, jobId, runState, reported)) {
				events.push({
					event: eventName(runState),
					job_id: jobId,
					state: runState,
					...status,
					...(result ? { result } : {}),
				});
			}
		}
		return events;
	},
};

function eventName(state: string): string {
	switch (state) {
		case 'stopped_finished':
			return 'training.finished';
		case 'stopped_incomplete':
			return 'training.stopped_early';
		case 'failed':
			return 'training.failed';
		case 'cancelled':
			return 'training.cancelled';
		default:
			return `training.${state}`;
	}
}
