'use strict';
/**
 * Detection with few samples and whole batches at once (simulated): what the real-n8n detection section does,
 * repeated over many seeds on the virtual clock, so its single measurement can be read against its spread.
 *
 * Per run time and seed, one fresh learning store (a fresh n8n process): a first execution of `batch` runs
 * submitted together (nothing learned yet: the plain backoff; afterwards the result's timestamps narrow what
 * was learned, as the node does), then one measured execution of `batch` runs together that follow the plan
 * learned from those. Runs queue QUEUE_MS (as the real-n8n section's sandbox) and take mean × (1 + s), s
 * bell-shaped within ±20 %. The loops (Wait 1 s, Wait 5 s) are computed on the same runs. Also shown: the same
 * without the timestamps (only the polls teach), to show what they add.
 *
 * A third variant starts `sideBySide` executions of `batch` runs together after the first one (as the real-n8n
 * section does at 5 minutes), each its own wait on one store: the medians of their runs together count as one
 * measurement. A fourth does the same with Wait Options → Polling Goal "Fewest Requests".
 *
 * "Executions that beat both loops": measured executions whose median delay is below the Wait 1 s loop's on
 * the same runs AND whose median requests (as in ./detection: besides the one result fetch of each run) are
 * below the Wait 5 s loop's. A real-n8n measurement is one
 * such execution per run time.
 */
const { bellFraction, mulberry32 } = require('../../sandbox');
const { GOAL_REQUESTS, loadEngine, VirtualClock, NODE_WAIT, simulateLoop, simulatedPolls } = require('./detection');
const { fmtReq, fmtS, quantile } = require('./measure');

const QUEUE_MS = 300;
const KEY = 'model:batch';

/** Executions of the `groups` of runs, started together (each its own wait, one store, as one n8n process). */
async function execution(engine, clock, durations, groups, { timestamps, pollingGoal }) {
	const { waitForAll, narrowRunTime } = engine.wait;
	const { normaliseStatus } = engine.status;
	const submittedAt = clock.now();
	const waits = groups.map((runs) => {
		const requests = runs.map(() => 0);
		const seenAt = runs.map(() => undefined);
		const jobs = runs.map((run, i) => ({
			itemIndex: i,
			id: `run${i}`,
			submittedAt,
			timingKey: KEY,
			...simulatedPolls(clock, run, submittedAt, normaliseStatus, () => {
				requests[i]++;
				const t = clock.now() - submittedAt;
				if (t >= run.endMs && seenAt[i] === undefined) seenAt[i] = t;
			}),
		}));
		return {
			runs,
			requests,
			seenAt,
			done: waitForAll(jobs, { ...NODE_WAIT, durations, ...(pollingGoal ? { pollingGoal } : {}) }, undefined, clock),
		};
	});
	const ended = await clock.run(Promise.all(waits.map((w) => w.done)));
	const rows = [];
	for (const [g, { runs, requests, seenAt }] of waits.entries()) {
		for (const [i, o] of ended[g].entries()) {
			if (o.kind !== 'done') throw new Error(`simulated run ${i} ended as ${o.kind}`);
			// A result request that saw the end is the run's one result fetch, which every pattern makes: not a poll.
			if (o.result) requests[i]--;
			if (timestamps) narrowRunTime(o.job, { lo: runs[i].endMs - 1, hi: runs[i].endMs + 1 });
		}
		rows.push(...runs.map((run, i) => ({ delayMs: seenAt[i] - run.endMs, requests: requests[i] })));
	}
	clock.t += 60_000;
	return rows;
}

const medianOf = (rows, key) =>
	quantile(
		rows.map((r) => r[key]),
		0.5,
	);

/** { batch, seeds, sideBySide, queueMs, rows: [{ meanMs, variants: { timestamps, pollsOnly, sideBySide, fewest }, loops (on the 10-run variants' runs) }] } */
async function detectionBatch({
	durationsMs = [2000, 20_000, 60_000, 300_000],
	batch = 10,
	seeds = 30,
	sideBySide = 4,
	engine = loadEngine(),
	log = () => {},
} = {}) {
	const rows = [];
	for (const meanMs of durationsMs) {
		log(`[bench] detection (batches): ${seeds} × (${batch} + ${batch}) runs of ${meanMs / 1000} s`);
		const variants = {};
		let loops;
		const variantsRun = [
			['timestamps', true, 1],
			['pollsOnly', false, 1],
			['sideBySide', true, sideBySide],
			['fewest', true, sideBySide, 'fewestRequests'],
		];
		for (const [name, timestamps, together, pollingGoal] of variantsRun) {
			const all = [];
			const perExecution = [];
			const wait1 = [];
			const wait5 = [];
			let beat = 0;
			let withinCount = 0;
			for (let seed = 1; seed <= seeds; seed++) {
				const rnd = mulberry32(seed * 7919 + meanMs);
				const draw = () =>
					Array.from({ length: batch }, () => ({ queueMs: QUEUE_MS, endMs: QUEUE_MS + meanMs * (1 + 0.2 * bellFraction(rnd)) }));
				const clock = new VirtualClock(mulberry32(seed ^ 0x5bd1e995));
				const durations = new engine.wait.DurationStore();
				await execution(engine, clock, durations, [draw()], { timestamps, pollingGoal });
				const groups = Array.from({ length: together }, () => draw());
				const runs = groups.flat();
				const measured = await execution(engine, clock, durations, groups, { timestamps, pollingGoal });
				const one = simulateLoop(runs, 1000);
				const five = simulateLoop(runs, 5000);
				all.push(...measured);
				wait1.push(...one);
				wait5.push(...five);
				const node = { delay: medianOf(measured, 'delayMs'), requests: medianOf(measured, 'requests') };
				perExecution.push(node);
				if (node.delay < medianOf(one, 'delayMs') && node.requests < medianOf(five, 'requests')) beat++;
				if (node.requests <= GOAL_REQUESTS) withinCount++;
			}
			variants[name] = {
				medianDelayMs: medianOf(all, 'delayMs'),
				medianRequests: medianOf(all, 'requests'),
				executionDelayMs: [0.1, 0.5, 0.9].map((q) =>
					quantile(
						perExecution.map((e) => e.delay),
						q,
					),
				),
				executionRequests: [0.1, 0.5, 0.9].map((q) =>
					quantile(
						perExecution.map((e) => e.requests),
						q,
					),
				),
				beat,
				withinCount,
			};
			if (together === 1) loops = { wait1DelayMs: medianOf(wait1, 'delayMs'), wait5Requests: medianOf(wait5, 'requests') };
		}
		rows.push({ meanMs, variants, loops });
	}
	return { batch, seeds, sideBySide, queueMs: QUEUE_MS, rows };
}

function detectionBatchSection(d, table) {
	const label = {
		timestamps: "RunComfy node (learns from the polls and the result's timestamps)",
		pollsOnly: 'the same, learning from the polls only',
		sideBySide: `the node, ${d.sideBySide} executions of ${d.batch} started together (as the real-n8n 5-minute row), medians over their ${d.sideBySide * d.batch} runs`,
		fewest: 'the same with Polling Goal "Fewest Requests"',
	};
	const rows = [];
	for (const row of d.rows) {
		for (const [key, v] of Object.entries(row.variants)) {
			rows.push([
				`${row.meanMs / 1000} s`,
				label[key],
				fmtS(v.medianDelayMs),
				v.executionDelayMs.map(fmtS).join(' / '),
				fmtReq(v.medianRequests),
				v.executionRequests.map(fmtReq).join(' / '),
				`${v.beat}/${d.seeds}`,
				`${v.withinCount}/${d.seeds}`,
			]);
		}
		rows.push([
			`${row.meanMs / 1000} s`,
			'Wait 1 s loop / Wait 5 s loop (same runs)',
			fmtS(row.loops.wait1DelayMs),
			'',
			fmtReq(row.loops.wait5Requests),
			'',
			'',
			'',
		]);
	}
	return [
		'## Detection with few samples, whole batches at once (simulated)',
		'',
		`What the real-n8n section measures once, repeated for ${d.seeds} seeds on the virtual clock (bench/lib/detection-batch.js): a fresh n8n process runs a first execution of ${d.batch} runs together ` +
			`(nothing learned: the plain backoff), then a measured execution of ${d.batch} runs together. Runs queue ${d.queueMs} ms, then take the mean within ±20 % (bell-shaped). ` +
			'Medians over all measured runs, the 10th / 50th / 90th percentile of the per-execution medians, and how many measured executions beat both the Wait 1 s loop on delay and the Wait 5 s loop on requests on the same runs ' +
			'(requests as in the Detection section: besides the one result fetch of each run). ' +
			"The simulated loops lose no time per round (in the real n8n they do), and all runs of one loop execution are checked at the same instants, so the loop's median delay swings from one execution to the next: " +
			"the executions the node loses, it loses mostly on delay against such a loop, while its per-execution request medians stay below the Wait 5 s loop's. " +
			`The last row of each run time measures ${d.sideBySide} executions started together after the same first one, against loops run on the same ${d.sideBySide * d.batch} runs: ` +
			'their runs that end first teach the rest while they run (the plan is made again from every run ended and every run still going, nodes/shared/wait/followedPlan.ts).',
		'',
		table(
			[
				'Run time',
				'Pattern',
				'Median delay',
				'Per execution (p10 / p50 / p90)',
				'Median requests',
				'Per execution (p10 / p50 / p90)',
				'Executions that beat both loops',
				`Executions with median requests ≤ ${GOAL_REQUESTS}`,
			],
			rows,
		),
	].join('\n');
}

module.exports = { detectionBatch, detectionBatchSection };

if (require.main === module) {
	// Quick look: node bench/lib/detection-batch.js [seeds] (uses dist/; run npm run build first)
	const seeds = Number(process.argv[2]) || 30;
	const simple = (head, rows) =>
		[`| ${head.join(' | ')} |`, `| ${head.map(() => '---').join(' | ')} |`, ...rows.map((x) => `| ${x.join(' | ')} |`)].join('\n');
	detectionBatch({ seeds, log: (m) => process.stderr.write(`${m}\n`) })
		.then((d) => console.log(detectionBatchSection(d, simple)))
		.catch((error) => {
			console.error(error);
			process.exit(1);
		});
}
