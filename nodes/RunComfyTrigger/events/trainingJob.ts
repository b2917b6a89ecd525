import type { IDataObject } from 'n8n-workflow';

import { collectUrls } from '../../shared/download';
import { classifyStoppedJob, normaliseStatus, withPublicStatus } from '../../shared/status';
import { checkpointStep, pickLatestCheckpoint } from '../../shared/checkpoints';
import { getTrainingJobResult, getTrainingJobStatus } from '../../shared/transport';
import type { RunState } from '../../shared/types';
import type { Observation, TriggerEvent } from './types';
import { fireForExistingProperty } from './options';
import { observeEach, parseIdList, requireIds } from './types';

const show = { event: ['trainingJob'] };

/** End states of a training job: each entry into one of them is an event. */
const REPORTED: RunState[] = ['stopped_finished', 'stopped_incomplete', 'failed', 'cancelled'];

const EVENT_NAMES: Partial<Record<RunState, string>> = {
	stopped_finished: 'training.finished',
	stopped_incomplete: 'training.stopped_early',
	failed: 'training.failed',
	cancelled: 'training.cancelled',
};

export const trainingJobEvent: TriggerEvent = {
	properties: [
		{
			displayName: 'Training Job IDs',
			name: 'jobIds',
			type: 'string',
			required: true,
			default: '',
			placeholder: 'e.g. 6a1f0c2e-..., 9b2c7d41-...',
			description:
				'Jobs to watch, separated by commas or new lines, or an expression returning a list. Fires once each time a job finishes, stops early (e.g. the server was reclaimed; it can be resumed), fails or is cancelled — again after a resume.',
			displayOptions: { show },
		},
		fireForExistingProperty(show, 'Fire for Already Finished', 'jobs that have already finished, stopped early, failed or been cancelled'),
	],

	async observe(ctx, skip) {
		const ids = requireIds(ctx, parseIdList(ctx.getNodeParameter('jobIds', '')), 'training jobs', 'Training Job IDs');
		const failure = (jobId: string) => ({ prefix: 'training', fields: { job_id: jobId } });
		return await observeEach(
			ids,
			skip,
			async (jobId): Promise<Observation> => {
				const status = await getTrainingJobStatus(ctx, jobId);
				const stopped = String(status.status ?? '').toUpperCase() === 'STOPPED';
				// A STOPPED job is finished or stopped early: the result (its error) tells them apart.
				let result: IDataObject | undefined = stopped ? await getTrainingJobResult(ctx, jobId) : undefined;
				const state: RunState = stopped ? classifyStoppedJob(status, result) : normaliseStatus(status.status);
				const reported = REPORTED.includes(state);
				const progress = (status.progress ?? {}) as IDataObject;
				return {
					id: jobId,
					// finished_at and the step tell a second stop (after a resume) from the first one.
					key: [state, String(status.finished_at ?? ''), String(progress.current_step ?? '')].join('|'),
					reported,
					failure: failure(jobId),
					output: async () => {
						if (reported) result ??= await getTrainingJobResult(ctx, jobId);
						return withPublicStatus(
							{
								...status,
								event: EVENT_NAMES[state] ?? `training.${state}`,
								job_id: jobId,
								...(result ? { result, ...artifactsOf(result) } : {}),
							},
							state,
						);
					},
				};
			},
			failure,
		);
	},
};

/** Artifact URLs flattened (as the tool server's `artifact_urls`), and the latest checkpoint ready as a LoRA. */
function artifactsOf(result: IDataObject): IDataObject {
	const urls = collectUrls(result.artifacts ?? result, 'artifacts');
	const checkpoints = urls.filter((u) => checkpointStep(u.url) !== undefined);
	const latest = pickLatestCheckpoint(checkpoints);
	return {
		artifact_urls: urls.map((u) => ({ path: u.path, url: u.url })),
		checkpoint_urls: checkpoints.map((u) => u.url),
		...(latest ? { latest_checkpoint_url: latest.url, lora: { path: latest.url } } : {}),
	};
}
