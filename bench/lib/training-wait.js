'use strict';
/**
 * Training: how soon Training → Submit / Resume with Wait for Completion sees a job end, and how many status
 * requests that takes, with the job's step progress read (the node) against the same polls without it (the
 * plain backoff the node used before: 10 s growing ×1.5 to 60 s, the Training defaults). Simulated like
 * ./detection.js: the BUILT engine waits on a virtual clock, so 4-hour jobs take milliseconds and every figure
 * is reproducible from the seed.
 *
 * Each job, from the submit: queued 0–60 s (status IN_QUEUE, step 0), loading the model 60–180 s (RUNNING at
 * step 0), then its steps, each ±10 % around the job's step time, with a pause of 10–30 s every 250 steps
 * (samples and a checkpoint, the counter standing still), then saving the final model 10–30 s (RUNNING with
 * every step done) before STOPPED. Delay = from STOPPED to the answer that shows it; requests = status requests
 * per job (the result fetch that follows is the same for both).
 */
const path = require('path');

const { mulberry32 } = require('../../sandbox');
const { VirtualClock, delayAndRequests, loadEngine } = require('./detection');

const ROOT = path.resolve(__dirname, '..', '..');

/** The job shapes: about 10 minutes, 1 hour and 4 hours of training. */
const SHAPES = [
	{ label: '10 min', steps: 500, stepMs: 1_000 },
	{ label: '1 h', steps: 2_000, stepMs: 1_650 },
	{ label: '4 h', steps: 4_000, stepMs: 3_500 },
];
const PAUSE_EVERY = 250;

const between = (rnd, lo, hi) => lo + rnd() * (hi - lo);

/** One job's timeline from its submit: when it starts running, when each step ends, when it stops. */
function makeJob(shape, rnd) {
	const queuedUntil = between(rnd, 0, 60_000);
	let t = queuedUntil + between(rnd, 60_000, 180_000);
	const stepEnds = new Float64Array(shape.steps);
	for (let k = 0; k < shape.steps; k++) {
		t += shape.stepMs * between(rnd, 0.9, 1.1);
		stepEnds[k] = t;
		if ((k + 1) % PAUSE_EVERY === 0 && k + 1 < shape.steps) t += between(rnd, 10_000, 30_000);
	}
	const stoppedAt = t + between(rnd, 10_000, 30_000);
	return { queuedUntil, stepEnds, stoppedAt, total: shape.steps };
}

/** Steps done at `t` (binary search over the step ends). */
function stepAt(job, t) {
	let lo = 0;
	let hi = job.stepEnds.length;
	while (lo < hi) {
		const mid = (lo + hi) >> 1;
		if (job.stepEnds[mid] <= t) lo = mid + 1;
		else hi = mid;
	}
	return lo;
}

async function simulate(engine, wait, job, reportSteps, seed) {
	const clock = new VirtualClock(mulberry32(seed));
	let requests = 0;
	const poll = async () => {
		requests++;
		const t = clock.now();
		if (t >= job.stoppedAt) return { state: 'succeeded', record: { status: 'STOPPED' } };
		const queued = t < job.queuedUntil;
		const steps = { current: queued ? 0 : stepAt(job, t), total: job.total };
		return { state: queued ? 'queued' : 'running', record: { status: queued ? 'IN_QUEUE' : 'RUNNING' }, ...(reportSteps ? { steps } : {}) };
	};
	const options = { ...wait, firstPollDelayMs: wait.initialIntervalMs };
	const [outcome] = await clock.run(engine.wait.waitForAll([{ itemIndex: 0, id: 'job', poll }], options, undefined, clock));
	if (outcome.kind !== 'done') throw new Error(`simulated training job ended as ${outcome.kind}`);
	return { delayMs: clock.now() - job.stoppedAt, requests };
}

/** Both ways on the same jobs. Returns { jobs, wait, rows: [{ label, steps, stepMs, backoff, steps }] }. */
async function trainingWait({ jobs = 100, seed = 27, log = () => {}, engine = loadEngine(), distDir = path.join(ROOT, 'dist') } = {}) {
	const { TRAINING_WAIT } = require(path.join(distDir, 'nodes', 'shared', 'jobs', 'defaults.js'));
	const wait = {
		initialIntervalMs: TRAINING_WAIT.pollIntervalSeconds * 1000,
		maxIntervalMs: TRAINING_WAIT.maxPollIntervalSeconds * 1000,
		maxWaitMs: TRAINING_WAIT.maxWaitSeconds * 1000,
		concurrency: 1,
		onTimeout: 'fail',
		cancelOnStop: false,
	};
	const rows = [];
	for (const shape of SHAPES) {
		const rnd = mulberry32(seed ^ shape.steps);
		const plain = [];
		const stepped = [];
		for (let k = 0; k < jobs; k++) {
			const job = makeJob(shape, rnd);
			plain.push(await simulate(engine, wait, job, false, seed + k));
			stepped.push(await simulate(engine, wait, job, true, seed + k));
		}
		const row = {
			label: shape.label,
			steps: shape.steps,
			stepMs: shape.stepMs,
			backoff: delayAndRequests(plain),
			withSteps: delayAndRequests(stepped),
		};
		log(
			`[bench]   training ${shape.label}: backoff ${(row.backoff.medianDelayMs / 1000).toFixed(1)} s / ${row.backoff.medianRequests}, with steps ${(row.withSteps.medianDelayMs / 1000).toFixed(2)} s / ${row.withSteps.medianRequests}`,
		);
		rows.push(row);
	}
	return { jobs, seed, wait: { firstS: TRAINING_WAIT.pollIntervalSeconds, maxS: TRAINING_WAIT.maxPollIntervalSeconds }, rows };
}

const s = (ms) => `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;

function trainingWaitSection(t, table) {
	return [
		'## Training: waiting for a job to finish (simulated)',
		'',
		`Training → Submit with *Wait for Completion*, ${t.jobs} jobs per length, each waited for twice on the same timeline: with the job's step progress read (where the remaining steps end at the pace seen) and without it (the plain backoff, ${t.wait.firstS} s growing ×1.5 to ${t.wait.maxS} s). Jobs are queued, load their model at step 0, pause every ${PAUSE_EVERY} steps for samples and a checkpoint, and save the final model after the last step (bench/lib/training-wait.js). Delay: from the job's end to the status request that shows it; requests: status requests per job.`,
		'',
		table(
			[
				'Job',
				'Steps × step time',
				'Backoff: median / p90 delay',
				'Backoff: requests (median)',
				'With steps: median / p90 delay',
				'With steps: requests (median)',
			],
			t.rows.map((r) => [
				r.label,
				`${r.steps} × ${(r.stepMs / 1000).toFixed(2)} s`,
				`${s(r.backoff.medianDelayMs)} / ${s(r.backoff.p90DelayMs)}`,
				String(r.backoff.medianRequests),
				`${s(r.withSteps.medianDelayMs)} / ${s(r.withSteps.p90DelayMs)}`,
				String(r.withSteps.medianRequests),
			]),
		),
	].join('\n');
}

function trainingWaitSummary(t) {
	const parts = t.rows.map(
		(r) =>
			`${r.label}: ${s(r.withSteps.medianDelayMs)} with ${r.withSteps.medianRequests} status requests (backoff ${s(r.backoff.medianDelayMs)} with ${r.backoff.medianRequests})`,
	);
	return `Training waits (simulated, median delay from a job's end): ${parts.join('; ')}.`;
}

module.exports = { trainingWait, trainingWaitSection, trainingWaitSummary };

if (require.main === module) {
	// Quick look: node bench/lib/training-wait.js [jobs] (uses dist/; build first)
	const simple = (head, rows) =>
		[`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((r) => `| ${r.join(' | ')} |`)].join('\n');
	trainingWait({ jobs: Number(process.argv[2]) || 100, log: (m) => process.stderr.write(`${m}\n`) }).then(
		(t) => console.log(trainingWaitSection(t, simple)),
		(e) => {
			console.error(e);
			process.exit(1);
		},
	);
}
