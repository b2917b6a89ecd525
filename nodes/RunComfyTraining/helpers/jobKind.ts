/**
 * Submit and Resume as a job kind of the one job flow: both are paid, submitted one by one, optionally waited for
 * (off by default: training takes minutes to hours), never cancelled by a timeout or by Stop (the job keeps
 * running, as with the CLI).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { waitProperties } from '../../shared/descriptions';
import { TRAINING_WAIT } from '../../shared/jobs';
import type { Accepted, JobItem, JobKind } from '../../shared/jobs';
import { getTrainingJobResult, getTrainingJobStatus } from '../../shared/transport';
import { stepProgressOf } from '../../shared/wait';
import type { ArtifactChoice } from './artifacts';
import { artifactDownloadProperties, readArtifactOptions, withArtifacts } from './artifacts';
import type { Progress } from './jobRecords';
import { describeJob, describeResult, errorText, jobState, pickResultFields, progressOf, rawStatus } from './jobRecords';

/** "Wait for Completion" (off by default) with its options, and the artifact downloads. */
export function paidJobWaitProperties(waitDescription: string): INodeProperties[] {
	return [
		...waitProperties({}, TRAINING_WAIT).map((p, index) => (index === 0 ? { ...p, description: waitDescription } : p)),
		...artifactDownloadProperties({ waitForCompletion: [true] }),
	];
}

export interface TrainingItem extends JobItem {
	/** Output fields known before the paid call (name, GPU, config details, warnings). */
	fields: IDataObject;
}

/** The kind for Submit (`submit` sends a new job) and Resume (`submit` re-queues an existing one). */
export function trainingJobKind<P extends TrainingItem>(
	ctx: IExecuteFunctions,
	prepare: (itemIndex: number, extra: IDataObject) => Promise<P>,
	submit: (p: P) => Promise<Accepted>,
): JobKind<P, ArtifactChoice> {
	// A STOPPED job is classified with its result: the poll that sees it fetches it once, for the verdict too.
	const results = new Map<string, IDataObject>();
	const progressText = (record: IDataObject) => {
		const progress = progressOf(record) as Progress;
		return progress.total ? ` (step ${progress.current ?? 0} of ${progress.total})` : '';
	};
	return {
		noun: {
			one: 'training job',
			many: 'training jobs',
			idField: 'job_id',
			idLabel: 'Job ID',
			lookUp: 'Training → Get Status / Get Result',
		},
		wait: TRAINING_WAIT,
		paid: true,
		submitConcurrency: 1,
		prepare,
		readOptions: (p) => readArtifactOptions(ctx, p.itemIndex),
		ids: (p) => p.fields,
		submit,
		poll: async (t, how) => {
			const status = (await getTrainingJobStatus(ctx, t.id, how)) as IDataObject;
			let result: IDataObject | undefined;
			if (rawStatus(status) === 'STOPPED') {
				result = (await getTrainingJobResult(ctx, t.id, how)) as IDataObject;
				results.set(t.id, result);
			}
			// The steps let the wait land a poll where the last one ends (../../shared/wait/steps).
			return { state: jobState(status, result), record: status, steps: stepProgressOf(progressOf(status)) };
		},
		fetch: async (t) => results.get(t.id) ?? ((await getTrainingJobResult(ctx, t.id)) as IDataObject),
		current: (t, record) => describeJob(t.id, record, results.get(t.id)),
		progressNote: progressText,
		verdict: (t, record, result) => {
			const status = describeJob(t.id, record, result);
			const base: IDataObject = { ...t.fields, ...t.accepted, ...status };
			const state = jobState(record, result);
			if (state === 'stopped_finished' || state === 'succeeded') {
				return { ok: true, json: { ...base, ...pickResultFields(describeResult(t.id, result)) } };
			}
			const steps = progressText(record)
				.replace(/^ \(step/, ' at step')
				.replace(/\)$/, '');
			if (state === 'stopped_incomplete') {
				return {
					ok: false,
					json: base,
					message: `Training job ${t.id} stopped early${steps}: ${String(status.stop_reason)}`,
					description: `Resume it with the Resume operation (job ID ${t.id}); it continues from the latest checkpoint. Checkpoints made so far are listed by Get Result.`,
				};
			}
			if (state === 'cancelled') {
				return {
					ok: false,
					json: base,
					message: `Training job ${t.id} was cancelled`,
					description: `Checkpoints made before the cancel remain available through Get Result (job ID ${t.id}). Edit and Resume it to continue.`,
				};
			}
			return {
				ok: false,
				json: base,
				message: `Training job ${t.id} failed: ${errorText(record.error) ?? errorText(result.error) ?? 'no reason given'}`,
				description: `Fix the cause (often the config: use Edit with the same config.name), then Resume the job (job ID ${t.id}).`,
			};
		},
		present: async (t, json, { succeeded, options, hosts, record }) => {
			const item = { json, pairedItem: { item: t.itemIndex } };
			if (!succeeded || !record) return item;
			return await withArtifacts(ctx, item, describeResult(t.id, record), options, hosts);
		},
	};
}
