/**
 * Jobs that report step progress (training) are polled where their last step ends (nodes/shared/wait/steps.ts and
 * the schedule): on the virtual clock, against the same job polled with the plain backoff.
 */
import type { PollResult, WaitJob, WaitOptions } from '../../../nodes/shared/wait';
import { StepForecast, stepProgressOf, waitForAll } from '../../../nodes/shared/wait';
import { FINISHING_FIRST_MS } from '../../../nodes/shared/wait/schedule';
import { TRAINING_WAIT } from '../../../nodes/shared/jobs/defaults';
import { VirtualClock, diffs, opts } from './helpers';

/** The Training node's wait: 10 s growing ×1.5 to 60 s, exact intervals. */
const trainingOpts = (o: Partial<WaitOptions> = {}): WaitOptions =>
	opts({
		initialIntervalMs: TRAINING_WAIT.pollIntervalSeconds * 1000,
		maxIntervalMs: TRAINING_WAIT.maxPollIntervalSeconds * 1000,
		maxWaitMs: TRAINING_WAIT.maxWaitSeconds * 1000,
		cancelOnStop: false,
		...o,
	});

interface TrainingShape {
	/** Running at step 0 this long after the submit (queue and model loading). */
	loadMs: number;
	/** ms per step, by step index (constant when a number). */
	stepMs: number | ((step: number) => number);
	steps: number;
	/** Running with every step done this long (saving). */
	saveMs?: number;
	/** Fails at this step. */
	failAtStep?: number;
}

/** When each step ends, from the submit. */
function stepEnds(shape: TrainingShape): number[] {
	const ends: number[] = [];
	let t = shape.loadMs;
	for (let k = 0; k < shape.steps; k++) {
		t += typeof shape.stepMs === 'number' ? shape.stepMs : shape.stepMs(k);
		ends.push(t);
	}
	return ends;
}

/**
 * A training job on the clock. `progress`: 'reported' to the engine, 'hidden' from it (the plain backoff), or
 * 'unusable' (a step count that is not a number, as `stepProgressOf` reads it).
 */
async function waitForTraining(shape: TrainingShape, progress: 'reported' | 'hidden' | 'unusable' = 'reported', options = trainingOpts()) {
	const clock = new VirtualClock();
	const ends = stepEnds(shape);
	const last = shape.failAtStep !== undefined ? ends[shape.failAtStep - 1] : ends[ends.length - 1] + (shape.saveMs ?? 0);
	const pollTimes: number[] = [];
	const stepAt = (t: number) => ends.filter((e) => e <= t).length;
	const job: WaitJob = {
		itemIndex: 0,
		id: 'job1',
		poll: async (): Promise<PollResult> => {
			const t = clock.now();
			pollTimes.push(t);
			const current = Math.min(stepAt(t), shape.failAtStep ?? shape.steps);
			const steps = { current, total: shape.steps };
			if (t >= last) return { state: shape.failAtStep !== undefined ? 'failed' : 'succeeded', record: { status: 'STOPPED' }, steps };
			const seen = { reported: steps, hidden: undefined, unusable: stepProgressOf({ current: NaN, total: shape.steps }) }[progress];
			return { state: 'running', record: { status: 'RUNNING' }, ...(seen ? { steps: seen } : {}) };
		},
	};
	const [outcome] = await clock.run(waitForAll([job], { ...options, firstPollDelayMs: options.initialIntervalMs }, undefined, clock));
	const seenAt = pollTimes[pollTimes.length - 1];
	return { outcome, pollTimes, requests: pollTimes.length, delayMs: seenAt - last, end: last };
}

describe('step progress: where the last step ends', () => {
	it('measures the pace from the first poll that saw the steps advance, not from a job loading at its first step', () => {
		const f = new StepForecast();
		f.observe(10_000, { current: 0, total: 1000 }); // loading the model
		f.observe(100_000, { current: 0, total: 1000 });
		f.observe(110_000, { current: 5, total: 1000 });
		expect(f.forecast()).toBeUndefined(); // only the steps since the first advance count
		f.observe(210_000, { current: 105, total: 1000 });
		const forecast = f.forecast();
		// 1 s per step; 895 steps left; whole steps counted, so the slowest pace they allow: 100 s / 99 steps.
		expect(forecast?.msPerStep).toBe(1000);
		expect(forecast?.latest).toBeCloseTo(210_000 + (895 * 100_000) / 99, 6);
		expect(forecast?.stepsDone).toBe(false);
	});

	it('never forecasts an end before the true one at a steady pace, whatever the phase of the polls', () => {
		for (const phase of [0, 1, 250, 999]) {
			const f = new StepForecast();
			const stepAt = (t: number) => Math.floor((t - phase) / 1000);
			for (const t of [5_000, 20_000, 47_500, 81_250, 131_875]) f.observe(t, { current: stepAt(t), total: 300 });
			const latest = f.forecast()?.latest as number;
			const trueEnd = phase + 300 * 1000;
			expect(latest).toBeGreaterThanOrEqual(trueEnd);
			// A few steps' worth (whole steps counted over 126 steps, 168 left), far below one poll interval (60 s).
			expect(latest - trueEnd).toBeLessThan(5000);
		}
	});

	it('starts again when a job counts fewer steps (resumed) or another total', () => {
		const f = new StepForecast();
		for (const [t, s] of [
			[0, 10],
			[10_000, 20],
			[20_000, 30],
		])
			f.observe(t, { current: s, total: 100 });
		expect(f.forecast()).toBeDefined();
		f.observe(30_000, { current: 5, total: 100 });
		expect(f.forecast()).toBeUndefined();
		f.observe(40_000, { current: 15, total: 100 });
		expect(f.forecast()).toBeUndefined(); // measured again from the first sighting after the restart
		f.observe(50_000, { current: 25, total: 100 });
		expect(f.forecast()?.latest).toBeCloseTo(50_000 + (75 * 10_000) / 9, 6);
		f.observe(60_000, { current: 35, total: 200 });
		expect(f.forecast()).toBeUndefined();
	});

	it('takes only finite, non-negative step counts with a positive total', () => {
		expect(stepProgressOf({ current: 3, total: 10, percent: 30 })).toEqual({ current: 3, total: 10 });
		for (const bad of [
			undefined,
			null,
			'x',
			{},
			{ current: 3 },
			{ current: NaN, total: 10 },
			{ current: 3, total: 0 },
			{ current: -1, total: 5 },
			{ current: '3', total: '10' },
			{ current: 3, total: Infinity },
		]) {
			expect(stepProgressOf(bad)).toBeUndefined();
		}
	});
});

describe('waiting for a training job that reports its steps', () => {
	const hour: TrainingShape = { loadMs: 95_000, stepMs: 1_800, steps: 2000 };

	it('sees an hour-long job within one step of its end, where the backoff sees it up to a minute late, for about as many requests', async () => {
		const plain = await waitForTraining(hour, 'hidden');
		const stepped = await waitForTraining(hour);
		expect(stepped.outcome.kind).toBe('done');
		expect(stepped.delayMs).toBeGreaterThanOrEqual(0);
		expect(stepped.delayMs).toBeLessThanOrEqual(1_800);
		expect(plain.delayMs).toBeGreaterThan(stepped.delayMs);
		expect(stepped.requests).toBeLessThanOrEqual(plain.requests + 1);
		// Never polled less often than the backoff would.
		expect(Math.max(...diffs(stepped.pollTimes))).toBeLessThanOrEqual(60_000);
	});

	it('sees the job as soon at every phase of its steps against the polls', async () => {
		for (const loadMs of [95_000, 95_400, 96_100, 97_777]) {
			const r = await waitForTraining({ ...hour, loadMs });
			expect(r.delayMs).toBeGreaterThanOrEqual(0);
			expect(r.delayMs).toBeLessThanOrEqual(1_800);
		}
	});

	it('a job saving after its last step is polled from 1 s on, growing, never less often than the backoff', async () => {
		const saving = await waitForTraining({ ...hour, saveMs: 40_000 });
		const plain = await waitForTraining({ ...hour, saveMs: 40_000 }, 'hidden');
		const stepsEnd = stepEnds(hour)[hour.steps - 1];
		const gaps = diffs(saving.pollTimes.filter((t) => t >= stepsEnd));
		expect(gaps.slice(0, 3)).toEqual([FINISHING_FIRST_MS, FINISHING_FIRST_MS * 1.5, FINISHING_FIRST_MS * 2.25]);
		for (let k = 1; k < gaps.length; k++) expect(gaps[k]).toBeGreaterThan(gaps[k - 1]);
		// Growing ×1.5, a poll comes at most half the time spent saving after the end.
		expect(saving.delayMs).toBeLessThan(40_000 / 2 + FINISHING_FIRST_MS);
		expect(saving.requests).toBeLessThan(plain.requests + 10);
	});

	it('a pace that slows near the end costs a few polls, no busy loop, and the end is still seen soon', async () => {
		const slowing: TrainingShape = { ...hour, stepMs: (k) => (k < 1900 ? 1_800 : 3_600) };
		const plain = await waitForTraining(slowing, 'hidden');
		const r = await waitForTraining(slowing);
		expect(r.delayMs).toBeLessThan(plain.delayMs);
		expect(r.requests).toBeLessThan(plain.requests + 10);
		expect(Math.min(...diffs(r.pollTimes))).toBeGreaterThan(100);
	});

	it('a job failing midway is seen no later than with the backoff', async () => {
		const failing: TrainingShape = { ...hour, failAtStep: 600 };
		const plain = await waitForTraining(failing, 'hidden');
		const r = await waitForTraining(failing);
		expect(r.outcome).toMatchObject({ kind: 'done', state: 'failed' });
		expect(r.delayMs).toBeLessThanOrEqual(plain.delayMs);
	});

	it('without usable progress the polls are exactly the backoff', async () => {
		const plain = await waitForTraining(hour, 'hidden');
		const unusable = await waitForTraining(hour, 'unusable');
		expect(unusable.pollTimes).toEqual(plain.pollTimes);
	});
});
