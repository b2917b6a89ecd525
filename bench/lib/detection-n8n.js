'use strict';
/**
 * Detection in the REAL n8n (issue 14's measured goal "Detection"): for runs of 2 s, 20 s, 60 s and 300 s with
 * ±20 % spread, how soon after a run's end each pattern sees it, and how many requests it sends to see it:
 *
 *   node    the RunComfy Model node (Model → Run, default wait options), which learns run times in the n8n
 *           process: one warm-up execution of the same model first, so the figures count from its second run;
 *   wait1   the user's loop: HTTP Request submit → Wait 1 s → HTTP status → IF completed (else back to Wait) →
 *           HTTP result (bench/lib/real-n8n.js's builder);
 *   wait5   the same with Wait 5 s;
 *   fewest  the Model node with Wait Options → Polling Goal "Fewest Requests", its own warm-up first.
 *
 * ONE `n8n start` (the learned timing lives in its process) with the four workflows published behind
 * webhooks; each (run time, pattern) has a model of its own, so runs are told apart in the sandbox and what the
 * node learns for one run time does not leak into another. All run times and patterns run at the same time:
 * per run time the node's warm-up, then the node, the Wait 1 s loop and the Wait 5 s loop side by side.
 *
 * The sandbox draws each run's time around the model's mean (`modelDurations`) within ±20 % (`spread`) and
 * queues it for `queueMs` first (`in_queue`, with `queue_position`). Per run, from its state and request log:
 * delay = first status or result request at or after the run's end (status is computed from timestamps at
 * arrival, so that answer says completed) − the end; requests = the status and result requests for its request
 * id, less the one result fetch every run needs (the node's result request that saw the end is that fetch).
 */
const h = require('../../scripts/e2e/n8n');
const { waitFor } = require('../../scripts/e2e/parking');
const { behindWebhook, headerCredential, httpLoopWorkflow, nodeWorkflow, promptOnlyModels } = require('./real-n8n');
const { GOAL_DELAY_MS, GOAL_REQUESTS } = require('./detection');
const { fmtReq, fmtS, quantile } = require('./measure');

/** `learns`: the node, which gets a warm-up execution first; `id`: the last digits of its webhook's ids. */
const PATTERNS = [
	{ key: 'node', label: 'RunComfy Model node (learned timing)', learns: true, id: '10' },
	{ key: 'wait1', label: 'HTTP Request + Wait 1 s + IF loop', waitSeconds: 1, id: '11' },
	{ key: 'wait5', label: 'HTTP Request + Wait 5 s + IF loop', waitSeconds: 5, id: '15' },
	{
		key: 'fewest',
		label: 'RunComfy Model node, Polling Goal "Fewest Requests" (learned timing)',
		learns: true,
		id: '12',
		waitOptions: { pollingGoal: 'fewestRequests' },
	},
];
const SPREAD = 0.2;
const QUEUE_MS = 300;
const SEED = 14;

// ------------------------------------------------------------------------------------------------------------
// The sandbox seen from outside: its runs and request log, refreshed by one poller for every waiter.

class SandboxView {
	constructor(sb) {
		this.sb = sb;
		this.runs = [];
		this.lastSeq = 0;
		this.byRequest = new Map(); // request id -> { status: [times], result: [times] }
	}

	async refresh() {
		const [state, entries] = await Promise.all([this.sb.state(), this.sb.log(this.lastSeq)]);
		this.runs = state.runs.filter((r) => r.kind === 'model');
		for (const e of entries) {
			this.lastSeq = Math.max(this.lastSeq, e.seq);
			const m = e.api === 'model' && e.method === 'GET' && /^\/v1\/requests\/([^/]+)\/(status|result)$/.exec(e.path);
			if (!m) continue;
			if (!this.byRequest.has(m[1])) this.byRequest.set(m[1], { status: [], result: [] });
			this.byRequest.get(m[1])[m[2]].push(e.time);
		}
	}

	runsOf(model) {
		return this.runs.filter((r) => r.target === model);
	}

	/**
	 * `count` runs of `model` exist and each had its result fetched after its end (the pattern has seen all of
	 * them; the node's result request before the end only found the run going).
	 */
	allFetched(model, count) {
		const runs = this.runsOf(model);
		return (
			runs.length >= count &&
			runs.every((r) => r.finishedAt != null && (this.byRequest.get(r.id)?.result ?? []).some((t) => t >= r.finishedAt))
		);
	}

	/**
	 * Per run: { runMs, delayMs, status } (delay from its end to the first answer showing it finished; `status`:
	 * the requests to see the end, i.e. status and result requests less the run's one result fetch).
	 */
	figures(model) {
		return this.runsOf(model).map((r) => {
			const req = this.byRequest.get(r.id) || { status: [], result: [] };
			const seen = [...req.status, ...req.result].filter((t) => t >= r.finishedAt);
			const polls = req.status.length + Math.max(0, req.result.length - 1);
			// Every request's time from the run's submit, for the raw figures (--json).
			const at = (times) => times.map((t) => t - r.createdAt);
			return {
				runMs: r.durationMs,
				delayMs: seen.length ? Math.min(...seen) - r.finishedAt : NaN,
				status: polls,
				requests: { endMs: r.finishedAt - r.createdAt, status: at(req.status), result: at(req.result) },
			};
		});
	}
}

function summarise(runs) {
	const delays = runs.map((r) => r.delayMs);
	const status = runs.map((r) => r.status);
	return {
		runs: runs.length,
		medianDelayMs: quantile(delays, 0.5),
		p90DelayMs: quantile(delays, 0.9),
		medianStatus: quantile(status, 0.5),
		meanStatus: status.reduce((a, b) => a + b, 0) / Math.max(1, status.length),
		unseen: delays.filter((d) => !Number.isFinite(d)).length,
	};
}

// ------------------------------------------------------------------------------------------------------------

/**
 * The section; `sb` is the benchmark's sandbox process. `lengthsMs`: mean run times; `n`: runs per measured
 * execution; `rounds[meanMs]`: measured executions per pattern, one after the other (short runs fit several
 * while the longest one goes on, for more samples at no extra time); `sideBySide[meanMs]`: executions per pattern
 * started together in each round (the longest runs have time for one round only; one execution of 10 runs
 * decides less than the medians compared, since all runs of one loop execution are checked at the same instants).
 */
async function detectionInN8n(sb, { lengthsMs, n, warmup, rounds = {}, sideBySide = {}, log }) {
	await h.ensureN8n({ log });
	// Models a bare { prompt } is valid for, one per (run time, pattern).
	const usable = await promptOnlyModels(sb);
	const needed = lengthsMs.length * PATTERNS.length;
	if (usable.length < needed) throw new Error(`detection-n8n needs ${needed} prompt-only models, the sandbox has ${usable.length}`);
	const modelFor = new Map();
	const modelDurations = {};
	lengthsMs.forEach((meanMs, i) =>
		PATTERNS.forEach((p, j) => {
			const model = usable[i * PATTERNS.length + j];
			modelFor.set(`${meanMs}:${p.key}`, model);
			modelDurations[model] = meanMs;
		}),
	);
	await sb.reset({ spread: SPREAD, queueMs: QUEUE_MS, seed: SEED, modelDurations });

	const uf = h.createUserFolder();
	let n8n;
	let polling = true;
	const view = new SandboxView(sb);
	try {
		const runComfy = h.sandboxCredential(sb);
		const header = headerCredential(sb);
		await h.importCredential(uf, [runComfy, header]);
		const built = PATTERNS.map((p) =>
			behindWebhook(
				p.learns
					? nodeWorkflow({ n: 1, credential: runComfy })
					: httpLoopWorkflow({ n: 1, waitSeconds: p.waitSeconds, modelApi: sb.urls.modelApi, headerCred: header }),
				{
					id: p.id,
					path: `bench-detect-${p.key}`,
					name: `Bench detection: ${p.label}`,
					modelApi: sb.urls.modelApi,
					waitOptions: p.waitOptions,
				},
			),
		);
		const workflows = await h.importWorkflow(uf, built);
		n8n = await h.startN8n(uf, { readyTimeoutMs: 180_000 });
		await n8n.rest.setupOwner();
		for (const wf of workflows) {
			const activated = await n8n.rest.activateWorkflow(wf.id);
			const st = await n8n.rest.waitForPublication(wf.id, { versionId: activated.versionId });
			if (st.status !== 'published') throw new Error(`publishing "${wf.name}" ended ${st.status}: ${JSON.stringify(st.triggers)}`);
		}

		const poller = (async () => {
			while (polling) {
				// A failed refresh (a busy sandbox) is retried on the next round; the waiters time out if it persists.
				await view.refresh().catch((error) => log(`  detection-n8n: sandbox refresh failed: ${error.message}`));
				await new Promise((resolve) => setTimeout(resolve, 1000));
			}
		})();
		const start = async (key, model, count, tag) => {
			const body = { items: Array.from({ length: count }, (_, i) => ({ model, prompt: `detection ${tag} ${i}` })) };
			const res = await fetch(`${n8n.url}/webhook/bench-detect-${key}`, {
				method: 'POST',
				headers: { 'content-type': 'application/json' },
				body: JSON.stringify(body),
			});
			if (res.status !== 200) throw new Error(`the ${key} webhook answered ${res.status}: ${await res.text()}`);
		};
		const untilFetched = (model, count, meanMs) =>
			waitFor(`${count} runs of ${model} fetched`, async () => view.allFetched(model, count), {
				limitMs: meanMs * 3 + 180_000,
				intervalMs: 500,
			});

		const started = Date.now();
		await Promise.all(
			lengthsMs.map(async (meanMs) => {
				const learning = PATTERNS.filter((p) => p.learns);
				log(`  detection-n8n: ${meanMs / 1000} s runs: warm-up of ${learning.map((p) => p.key).join(' and ')} (${warmup} runs each)`);
				await Promise.all(
					learning.map(async (p) => {
						const model = modelFor.get(`${meanMs}:${p.key}`);
						await start(p.key, model, warmup, 'warm-up');
						await untilFetched(model, warmup, meanMs);
					}),
				);
				const times = rounds[meanMs] || 1;
				const together = sideBySide[meanMs] || 1;
				for (let round = 1; round <= times; round++) {
					log(
						`  detection-n8n: ${meanMs / 1000} s runs: ${PATTERNS.map((p) => p.key).join(', ')}, ${together} × ${n} runs each, side by side (round ${round}/${times})`,
					);
					await Promise.all(
						PATTERNS.flatMap((p) =>
							Array.from({ length: together }, (_, k) => start(p.key, modelFor.get(`${meanMs}:${p.key}`), n, `round ${round}.${k + 1}`)),
						),
					);
					await Promise.all(
						PATTERNS.map((p) => untilFetched(modelFor.get(`${meanMs}:${p.key}`), (p.learns ? warmup : 0) + round * together * n, meanMs)),
					);
				}
				log(`  detection-n8n: ${meanMs / 1000} s runs done after ${((Date.now() - started) / 1000).toFixed(0)} s`);
			}),
		);
		polling = false;
		await poller;
		await view.refresh();

		// Every execution must have ended in success (the figures come from the sandbox; this checks the workflows).
		const measured = lengthsMs.reduce((sum, ms) => sum + (rounds[ms] || 1) * (sideBySide[ms] || 1), 0);
		const expected = Object.fromEntries(PATTERNS.map((p) => [p.key, (p.learns ? lengthsMs.length : 0) + measured]));
		const executions = {};
		for (const [i, p] of PATTERNS.entries()) {
			const list = await waitFor(
				`the ${p.key} executions to end`,
				async () => {
					const l = await n8n.rest.listExecutions({ workflowId: workflows[i].id, limit: 100 });
					return l.length >= expected[p.key] && l.every((e) => !['new', 'running', 'waiting'].includes(e.status)) ? l : undefined;
				},
				{ limitMs: 120_000, intervalMs: 500 },
			);
			executions[p.key] = { total: list.length, succeeded: list.filter((e) => e.status === 'success').length };
		}

		const rows = lengthsMs.map((meanMs) => {
			const patterns = {};
			// The node's requests per run (warm-up first), as raw figures for --json.
			const perRun = {};
			for (const p of PATTERNS) {
				const runs = view.figures(modelFor.get(`${meanMs}:${p.key}`));
				if (p.learns) {
					// Submission order: the warm-up runs come first.
					if (p.key === 'node') patterns.firstRun = summarise(runs.slice(0, warmup));
					patterns[p.key] = summarise(runs.slice(warmup));
					perRun[p.key] = runs.map((r) => r.requests);
				} else patterns[p.key] = summarise(runs);
			}
			return { meanMs, models: Object.fromEntries(PATTERNS.map((p) => [p.key, modelFor.get(`${meanMs}:${p.key}`)])), patterns, perRun };
		});
		return {
			n,
			warmup,
			rounds: Object.fromEntries(lengthsMs.map((ms) => [ms, rounds[ms] || 1])),
			sideBySide: Object.fromEntries(lengthsMs.map((ms) => [ms, sideBySide[ms] || 1])),
			spread: SPREAD,
			queueMs: QUEUE_MS,
			seed: SEED,
			executions,
			sectionMs: Date.now() - started,
			rows,
		};
	} finally {
		polling = false;
		await n8n?.stop();
		uf.cleanup();
		await sb.reset({});
	}
}

// ------------------------------------------------------------------------------------------------------------
// Report

const fmtDelay = (ms) => (Number.isFinite(ms) ? fmtS(ms) : '—');

/** Per run time: does the node beat the Wait 1 s loop on delay and the Wait 5 s loop on requests? */
function verdicts(d) {
	return d.rows.map((row) => {
		const { node, wait1, wait5 } = row.patterns;
		const delay = node.medianDelayMs < wait1.medianDelayMs ? 'beats' : 'does NOT beat';
		const req = node.medianStatus < wait5.medianStatus ? 'beats' : node.medianStatus === wait5.medianStatus ? 'ties' : 'does NOT beat';
		const why =
			req !== 'beats' && wait5.medianStatus <= 1 ? ' — the Wait 5 s loop sends the minimum, one request, and sees the end late' : '';
		return {
			meanMs: row.meanMs,
			delay,
			req,
			text:
				`${row.meanMs / 1000} s: the node ${delay} the Wait 1 s loop on delay (${fmtDelay(node.medianDelayMs)} vs ${fmtDelay(wait1.medianDelayMs)}) ` +
				`and ${req} the Wait 5 s loop on requests (${fmtReq(node.medianStatus)} vs ${fmtReq(wait5.medianStatus)}${why})`,
		};
	});
}

/** Per run time: does "Fewest Requests" keep the median run within GOAL_REQUESTS, and how late does it see the end? */
function fewestVerdicts(d) {
	return d.rows
		.filter((row) => row.patterns.fewest)
		.map((row) => {
			const { fewest, wait5 } = row.patterns;
			const within = fewest.medianStatus <= GOAL_REQUESTS ? '≤' : '>';
			return (
				`${row.meanMs / 1000} s, "Fewest Requests": median requests ${fmtReq(fewest.medianStatus)} (${within} ${GOAL_REQUESTS}; mean ${fewest.meanStatus.toFixed(1)}, the Wait 5 s loop ${fmtReq(wait5.medianStatus)}), ` +
				`median delay ${fmtDelay(fewest.medianDelayMs)} (${fewest.medianDelayMs <= GOAL_DELAY_MS ? '≤' : '>'} 0.5 s)`
			);
		});
}

function detectionN8nSection(d, table) {
	const labels = {
		firstRun: 'RunComfy Model node, warm-up (first runs, nothing learned)',
		...Object.fromEntries(PATTERNS.map((p) => [p.key, p.label])),
	};
	const rows = [];
	for (const row of d.rows) {
		for (const [key, label] of Object.entries(labels)) {
			const p = row.patterns[key];
			if (!p) continue;
			rows.push([
				`${row.meanMs / 1000} s`,
				label,
				String(p.runs),
				fmtDelay(p.medianDelayMs),
				fmtDelay(p.p90DelayMs),
				fmtReq(p.medianStatus),
				p.meanStatus.toFixed(1),
			]);
		}
	}
	const ex = d.executions;
	return [
		"## Detection in the real n8n: from a run's end to the workflow seeing it",
		'',
		`One \`n8n start\` (n8n ${h.N8N_VERSION}, the package installed as a community package; the node's learned run times live in that process), ` +
			'four workflows behind webhooks: the RunComfy Model node (Model → Run, default wait options), the loop users build without the package ' +
			'(HTTP Request submit → Wait 1 s or 5 s → HTTP Request status → IF completed, else back to Wait → HTTP Request result), ' +
			'and the Model node with Wait Options → Polling Goal "Fewest Requests" (a warm-up execution of its own first). ' +
			`The sandbox draws each run's time within ±${d.spread * 100} % of the model's mean (bell-shaped) after ${d.queueMs} ms in the queue (\`in_queue\`, \`queue_position\`). ` +
			`Every (run time, pattern) uses a model of its own, and all of them run at the same time: per run time a warm-up execution of the node (${d.warmup} runs), ` +
			`then the node, the Wait 1 s loop, the Wait 5 s loop and the node with "Fewest Requests" side by side with ${d.n} runs each` +
			(d.rounds && Object.values(d.rounds).some((r) => r > 1)
				? ` (${Object.values(d.rounds)
						.map((r) => `${r}×`)
						.join(' / ')} such executions one after the other for ${Object.keys(d.rounds)
						.map((ms) => `${ms / 1000} s`)
						.join(' / ')}, while the longest runs go on)`
				: '') +
			(d.sideBySide && Object.values(d.sideBySide).some((k) => k > 1)
				? `; ${Object.entries(d.sideBySide)
						.filter(([, k]) => k > 1)
						.map(([ms, k]) => `for the ${ms / 1000} s runs, ${k} executions of each pattern start together`)
						.join(
							', ',
						)} (all runs of one loop execution are checked at the same instants, so one execution of ${d.n} runs says little about the loop's median)`
				: '') +
			"; the node's figures count from its second execution of the model. " +
			"Delay: from the run's end (the sandbox's schedule) to the first status or result request that saw it finished. " +
			'Requests per run, from the sandbox log: what a pattern sent to see the run ended, besides the one result fetch every run needs (status requests, and result requests that found the run still going; ' +
			'where its plan expects the end the node asks for the result directly, so its request that sees the end there is that result fetch). ' +
			`Executions succeeded: node ${ex.node.succeeded}/${ex.node.total}, Wait 1 s ${ex.wait1.succeeded}/${ex.wait1.total}, Wait 5 s ${ex.wait5.succeeded}/${ex.wait5.total}` +
			(ex.fewest ? `, "Fewest Requests" ${ex.fewest.succeeded}/${ex.fewest.total}` : '') +
			'; ' +
			`the section took ${(d.sectionMs / 1000).toFixed(0)} s.`,
		'',
		table(['Run time', 'Pattern', 'Runs', 'Median delay', 'p90 delay', 'Median requests', 'Mean requests'], rows),
		'',
		...verdicts(d).map((v) => `- ${v.text}.`),
		...fewestVerdicts(d).map((text) => `- ${text}.`),
		...(verdicts(d).every((v) => v.delay === 'beats' && v.req === 'beats')
			? []
			: [
					'',
					'Where the node does not win, compare the simulated Detection section (bench/lib/detection.js): its lower bounds say which pairs of median delay and requests any poll schedule ' +
						'can reach for this spread, and a Wait 5 s loop at 2 s sends the minimum (one request) by seeing the end seconds late.',
				]),
	].join('\n');
}

/** The one summary line of the report. */
function detectionN8nSummary(d) {
	const v = verdicts(d);
	return (
		'Detection in the real n8n (median delay after the run ends, requests per run besides its one result fetch): ' +
		d.rows
			.map(
				(r) =>
					`${r.meanMs / 1000} s: node ${fmtDelay(r.patterns.node.medianDelayMs)} / ${fmtReq(r.patterns.node.medianStatus)}, Wait 1 s ${fmtDelay(r.patterns.wait1.medianDelayMs)}, Wait 5 s ${fmtReq(r.patterns.wait5.medianStatus)}` +
					(r.patterns.fewest
						? `, "Fewest Requests" ${fmtDelay(r.patterns.fewest.medianDelayMs)} / ${fmtReq(r.patterns.fewest.medianStatus)}`
						: ''),
			)
			.join('; ') +
		`. Beats Wait 1 s on delay at ${v.filter((x) => x.delay === 'beats').length}/${v.length} run times, Wait 5 s on requests at ${v.filter((x) => x.req === 'beats').length}/${v.length}` +
		(v.some((x) => x.req === 'ties')
			? ` (ties at ${v
					.filter((x) => x.req === 'ties')
					.map((x) => `${x.meanMs / 1000} s`)
					.join(', ')}).`
			: '.')
	);
}

module.exports = { detectionInN8n, detectionN8nSection, detectionN8nSummary, SandboxView };
