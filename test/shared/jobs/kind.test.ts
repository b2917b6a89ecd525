/**
 * The shape of a job kind (nodes/shared/jobs/kind.ts): a required core, then either `submit` or `jobId`, then
 * optional groups. The expected type errors below are the test, checked by `npm run typecheck` (jest only
 * transpiles): a kind without either, or with both, must not compile.
 */
import type { IDataObject } from 'n8n-workflow';

import { DATASET_WAIT } from '../../../nodes/shared/jobs';
import type { JobItem, JobKind } from '../../../nodes/shared/jobs';

const core = {
	noun: { one: 'job', many: 'jobs', idField: 'job_id', idLabel: 'Job ID', lookUp: 'Job → Get' },
	wait: DATASET_WAIT,
	paid: false,
	submitConcurrency: 1,
	prepare: async (itemIndex: number) => ({ itemIndex }),
	ids: (): IDataObject => ({}),
	poll: async () => ({ state: 'succeeded' as const, record: {} }),
	current: (): IDataObject => ({}),
	verdict: () => ({ ok: true as const, json: {} }),
	present: async (t: { itemIndex: number }, json: IDataObject) => ({ json, pairedItem: { item: t.itemIndex } }),
};

describe('JobKind', () => {
	it('takes the core with submit, or the core with jobId', () => {
		const submits: JobKind<JobItem> = { ...core, submit: async () => ({ id: 'a', json: {} }) };
		const follows: JobKind<JobItem> = { ...core, jobId: () => 'a' };
		expect(typeof submits.submit).toBe('function');
		expect(typeof follows.jobId).toBe('function');
	});

	it('refuses a kind that neither submits nor names a job, and one that does both', () => {
		// @ts-expect-error neither submit nor jobId
		const neither: JobKind<JobItem> = { ...core };
		// @ts-expect-error both submit and jobId
		const both: JobKind<JobItem> = { ...core, submit: async () => ({ id: 'a', json: {} }), jobId: () => 'a' };
		expect([neither, both]).toHaveLength(2);
	});
});
