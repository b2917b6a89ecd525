import { classifyStoppedJob, isTerminal, normaliseStatus } from '../../nodes/shared/status';

describe('normaliseStatus', () => {
	it.each([
		['completed', 'succeeded'],
		['succeeded', 'succeeded'],
		['SUCCEEDED', 'succeeded'],
		['failed', 'failed'],
		['FAILED', 'failed'],
		['error', 'failed'],
		['cancelled', 'cancelled'],
		['canceled', 'cancelled'],
		['CANCELED', 'cancelled'],
		['cancellation_requested', 'cancelling'],
		['in_queue', 'queued'],
		['IN_QUEUE', 'queued'],
		['queued', 'queued'],
		['in_progress', 'running'],
		['RUNNING', 'running'],
		[' running ', 'running'],
		['STOPPED', 'stopped_incomplete'],
		['not_cancellable', 'unknown'],
		['DRAFT', 'unknown'],
		['UPLOADING', 'unknown'],
		['READY', 'unknown'],
		['something-new', 'unknown'],
		['', 'unknown'],
	])('%j → %s', (raw, expected) => {
		expect(normaliseStatus(raw)).toBe(expected);
	});

	it('treats non-strings as unknown', () => {
		expect(normaliseStatus(undefined)).toBe('unknown');
		expect(normaliseStatus(null)).toBe('unknown');
		expect(normaliseStatus(3)).toBe('unknown');
		expect(normaliseStatus(['completed'])).toBe('unknown');
	});

	it('reads the status of a record', () => {
		expect(normaliseStatus({ status: 'in_queue', queue_position: 2 })).toBe('queued');
		expect(normaliseStatus({ status: 'completed' })).toBe('succeeded');
		expect(normaliseStatus({ outcome: 'cancelled' })).toBe('unknown');
	});

	it('classifies a STOPPED training record by its progress and the result', () => {
		const finished = { status: 'STOPPED', progress: { current_step: 2000, total_steps: 2000 } };
		const partial = { status: 'STOPPED', progress: { current_step: 320, total_steps: 2000 } };
		expect(normaliseStatus(finished)).toBe('stopped_finished');
		expect(normaliseStatus(partial)).toBe('stopped_incomplete');
		expect(normaliseStatus(finished, { error: { message: 'Job failed: server was reclaimed.', code: 'TRAINING_ERROR' } })).toBe(
			'stopped_incomplete',
		);
		// The bare word has no progress: the safe reading is "can be resumed".
		expect(normaliseStatus('STOPPED', { artifacts: {} })).toBe('stopped_incomplete');
	});
});

describe('classifyStoppedJob', () => {
	it('is finished when current_step reached total_steps and the result has no error', () => {
		expect(classifyStoppedJob({ progress: { current_step: 2000, total_steps: 2000 } })).toBe('stopped_finished');
		expect(classifyStoppedJob({ progress: { current_step: 2001, total_steps: 2000 } }, { error: null })).toBe('stopped_finished');
		expect(classifyStoppedJob({ progress: { current_step: '10', total_steps: '10' } }, { error: '' })).toBe('stopped_finished');
	});

	it('is finished when total_steps is absent or 0', () => {
		expect(classifyStoppedJob({ status: 'STOPPED' })).toBe('stopped_finished');
		expect(classifyStoppedJob({ progress: { current_step: 5, total_steps: 0 } })).toBe('stopped_finished');
		expect(classifyStoppedJob({ progress: { current_step: 5 } }, {})).toBe('stopped_finished');
	});

	it('is incomplete when steps are missing', () => {
		expect(classifyStoppedJob({ progress: { current_step: 1999, total_steps: 2000 } })).toBe('stopped_incomplete');
		expect(classifyStoppedJob({ progress: { total_steps: 2000 } })).toBe('stopped_incomplete');
	});

	it('reads top-level current_step/total_steps too', () => {
		expect(classifyStoppedJob({ current_step: 3, total_steps: 10 })).toBe('stopped_incomplete');
		expect(classifyStoppedJob({ current_step: 10, total_steps: 10 })).toBe('stopped_finished');
	});

	it('is incomplete when the result carries an error, even with all steps done', () => {
		const done = { progress: { current_step: 10, total_steps: 10 } };
		expect(classifyStoppedJob(done, { error: { message: 'Job failed: server was reclaimed.', code: 'TRAINING_ERROR' } })).toBe(
			'stopped_incomplete',
		);
		expect(classifyStoppedJob(done, { error: 'preempted' })).toBe('stopped_incomplete');
		expect(classifyStoppedJob(done, { error: {} })).toBe('stopped_finished');
	});
});

describe('isTerminal', () => {
	it('knows which states end a run', () => {
		for (const s of ['succeeded', 'failed', 'cancelled', 'stopped_finished', 'stopped_incomplete'] as const)
			expect(isTerminal(s)).toBe(true);
		for (const s of ['queued', 'running', 'cancelling', 'unknown'] as const) expect(isTerminal(s)).toBe(false);
	});
});
