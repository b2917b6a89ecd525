/**
 * A batch of 200 Model runs while the sandbox injects faults on every endpoint: 20 % HTTP 500, 10 % 429 with
 * Retry-After, 5 % dropped connections and 10 % slow answers. With Continue on Fail the batch ends with 200
 * items. Proven from the sandbox's request log: no input was submitted twice (a repeat only follows a 429, which
 * means "not accepted"), no input has two runs on the service, every run whose submit answer was lost is an error
 * item saying it may have been accepted (and was not resubmitted), every confirmed run ends with its result and
 * request_id although its status polls and result fetch were hit by the same faults.
 * (A fault applied before the service reads a request leaves no body in the log, so such submits are traced
 * by counting: every submit that was not answered 429 is exactly one input item.)
 * Both fault timings of paid submits: 'before' (refused, nothing created) and 'after' (created, answer lost).
 */
import type { INodeExecutionData } from 'n8n-workflow';

import type { RequestLogEntry, SandboxFaults } from '../../sandbox';
import { RunComfyModel } from '../../nodes/RunComfyModel/RunComfyModel.node';
import { runNode } from '../helpers/engine';
import type { RunNodeResult } from '../helpers/engine';
import {
	STABLE,
	credentialsFor,
	exposedBy,
	flashPromptRun,
	isModelResult,
	isModelStatus,
	isModelSubmit,
	leaksOf,
	requestIdIn,
	useFaultSandbox,
} from '../helpers/faults-setup';

const N = 200;
/** About 15 s alone (mostly Retry-After sleeps); room for a loaded 2-core machine running other suites. */
const BATCH_TIMEOUT_MS = 150_000;
const PRICE_MICRO = 40_000; // flash text-to-image, $0.04 per run
const FAULTS: SandboxFaults = {
	rate5xx: 0.2,
	rate429: 0.1,
	retryAfterSeconds: 1,
	rateDrop: 0.05,
	rateSlow: 0.1,
	slowMs: 60,
};

// Short backoff and enough attempts that reads survive 35 % failures; the rules (what may be retried) are unchanged.
const sb = useFaultSandbox();

const promptOf = (e: RequestLogEntry): string | undefined => (e.body as { prompt?: string } | undefined)?.prompt;

async function runBatch(): Promise<RunNodeResult> {
	return await runNode({
		node: new RunComfyModel(),
		credentials: credentialsFor(sb),
		continueOnFail: true,
		...flashPromptRun(N, { pollIntervalSeconds: 0.05, maxPollIntervalSeconds: 0.2, maxWaitSeconds: 120 }),
	});
}

interface Verdict {
	confirmed: number;
	unconfirmed: number;
	/** Runs created on the service whose submit answer was lost (paidFaultTiming 'after'). */
	lostAnswers: number;
	confirmedWithFaultedPolls: number;
}

/** Every assertion that holds whatever the fault timing; returns counts for timing-specific checks. */
function checkBatch(result: RunNodeResult): Verdict {
	expect(result.status).toBe('success');
	expect(result.error).toBeUndefined();
	expect(result.items).toHaveLength(N);
	expect(result.unpairedItems).toBe(0);

	const log = sb.log();
	const submits = log.filter(isModelSubmit);
	// A fault applied before the service reads the request leaves no body in the log; every other submit
	// carries its input's prompt ("item <i>"), so it can be traced to its input item.
	const byPrompt = new Map<string, RequestLogEntry[]>();
	for (const e of submits) {
		const prompt = promptOf(e);
		if (prompt === undefined) {
			expect(['5xx', '429', 'drop']).toContain(e.fault);
			expect(e.createdId).toBeUndefined();
			continue;
		}
		expect(prompt).toMatch(/^item \d+$/);
		byPrompt.set(prompt, [...(byPrompt.get(prompt) ?? []), e]);
	}
	// The faults really hit the paid submits and the reads. A cold batch reads most runs' ends from the result
	// endpoint itself, so status polls are few: each fault kind must hit the reads, whichever endpoint they use.
	const isRead = (e: RequestLogEntry) => isModelStatus(e) || isModelResult(e);
	for (const kind of ['5xx', '429', 'drop', 'slow']) {
		expect(submits.filter((e) => e.fault === kind).length).toBeGreaterThan(0);
		expect(log.filter((e) => isRead(e) && e.fault === kind).length).toBeGreaterThan(0);
	}
	expect(log.filter(isModelStatus).length).toBeGreaterThan(0);
	expect(log.filter((e) => isModelResult(e) && e.fault && e.fault !== 'slow').length).toBeGreaterThan(0);

	const runsOnService = sb.state().runs;
	const runsByPrompt = new Map<string, number>();
	for (const run of runsOnService) {
		const prompt = (run.body as { prompt?: string }).prompt as string;
		runsByPrompt.set(prompt, (runsByPrompt.get(prompt) ?? 0) + 1);
	}
	// Every created run is in the log exactly once, and the log explains every run on the service.
	const createdIds = submits.map((e) => e.createdId).filter((id): id is string => typeof id === 'string');
	expect(new Set(createdIds).size).toBe(createdIds.length);
	expect(runsOnService.map((r) => r.id).sort()).toEqual([...createdIds].sort());

	const verdict: Verdict = { confirmed: 0, unconfirmed: 0, lostAnswers: 0, confirmedWithFaultedPolls: 0 };
	for (let i = 0; i < N; i++) {
		const prompt = `item ${i}`;
		const seen = byPrompt.get(prompt) ?? [];
		const item: INodeExecutionData = result.items[i];
		expect(item.pairedItem).toEqual({ item: i });
		// An input whose request the service read was never sent again, and never has two runs.
		expect(seen.length).toBeLessThanOrEqual(1);
		expect(runsByPrompt.get(prompt) ?? 0).toBeLessThanOrEqual(1);
		const entry = seen[0];
		const answered = entry !== undefined && entry.status === 200 && (entry.fault === undefined || entry.fault === 'slow');
		if (answered) {
			verdict.confirmed++;
			expect(item.json.error).toBeUndefined();
			expect(item.json.request_id).toBe(entry.createdId);
			expect(item.json.status).toBe('succeeded');
			expect(item.json.model_id).toBe(STABLE.flash);
			const faultedPolls = log.filter(
				(e) => (isModelStatus(e) || isModelResult(e)) && requestIdIn(e) === entry.createdId && e.fault && e.fault !== 'slow',
			);
			if (faultedPolls.length) verdict.confirmedWithFaultedPolls++;
		} else {
			verdict.unconfirmed++;
			if (entry) {
				// Read by the service, then the answer was lost ('after' timing): the run exists.
				expect(['5xx', 'drop']).toContain(entry.fault);
				expect(entry.createdId).toEqual(expect.any(String));
				verdict.lostAnswers++;
			}
			// Reported, not lost and not silently resubmitted: the error says so and what to check.
			expect(item.json.error).toMatch(/may have been accepted/);
			expect(item.json.errorDescription).toMatch(/NOT sent again/);
			expect(item.json.errorDescription).toMatch(/before you resubmit/i);
			expect(item.json.model_id).toBe(STABLE.flash);
			expect(item.json.request_id).toBeUndefined();
		}
	}
	// Counting proof that no input was submitted twice: a paid submit may only be repeated after a 429 (the
	// service did not accept it), so the submits that were not 429s are exactly one per input item.
	const notRateLimited = submits.filter((e) => e.fault !== '429');
	expect(notRateLimited).toHaveLength(N);
	// Every submit whose answer was an error or lost is one "may have been accepted" item.
	expect(submits.filter((e) => e.fault === '5xx' || e.fault === 'drop')).toHaveLength(verdict.unconfirmed);
	expect(verdict.confirmed + verdict.unconfirmed).toBe(N);
	expect(verdict.confirmed).toBeGreaterThan(0);
	expect(verdict.unconfirmed).toBeGreaterThan(0);
	// Polls hit by faults still ended with results.
	expect(verdict.confirmedWithFaultedPolls).toBeGreaterThan(0);
	// Each confirmed run's result was fetched successfully once (no duplicate result fetches after success).
	const okResults = log
		.filter((e) => isModelResult(e) && e.status === 200 && (e.fault === undefined || e.fault === 'slow'))
		.map(requestIdIn);
	expect(new Set(okResults).size).toBe(okResults.length);
	expect(okResults.length).toBe(verdict.confirmed);
	// Money: exactly the created runs were charged.
	expect(sb.state().walletMicrodollars).toBe(100_000_000 - createdIds.length * PRICE_MICRO);
	// No token in anything the user sees.
	expect(leaksOf(exposedBy(result), sb.token)).toEqual([]);
	return verdict;
}

describe('a batch of 200 runs under injected faults, Continue on Fail', () => {
	it(
		"paid faults 'before': refused submits created nothing, are reported as possibly accepted, never resent",
		async () => {
			sb.reset({
				runDurationMs: 30,
				queueMs: 0,
				walletMicrodollars: 100_000_000,
				faults: { ...FAULTS, paidFaultTiming: 'before', seed: 11 },
			});
			const verdict = checkBatch(await runBatch());
			expect(verdict.lostAnswers).toBe(0);
			// Nothing was created by a refused submit.
			expect(sb.log().filter((e) => isModelSubmit(e) && e.fault && e.fault !== 'slow' && e.createdId)).toEqual([]);
		},
		BATCH_TIMEOUT_MS,
	);

	it(
		"paid faults 'after': runs created but unanswered are reported as possibly accepted and not resubmitted",
		async () => {
			sb.reset({
				runDurationMs: 30,
				queueMs: 0,
				walletMicrodollars: 100_000_000,
				// Retry-After: 0 here (1 s in the other test): the 429s are retried at once, the batch stays quick.
				faults: { ...FAULTS, retryAfterSeconds: 0, paidFaultTiming: 'after', seed: 23 },
			});
			const verdict = checkBatch(await runBatch());
			// The service has runs the node never heard of; each of those inputs was submitted exactly once.
			expect(verdict.lostAnswers).toBeGreaterThan(0);
			const lost = sb.log().filter((e) => isModelSubmit(e) && e.createdId && (e.fault === '5xx' || e.fault === 'drop'));
			expect(lost).toHaveLength(verdict.lostAnswers);
			for (const e of lost) {
				expect(sb.log().filter((x) => isModelSubmit(x) && promptOf(x) === promptOf(e))).toHaveLength(1);
			}
		},
		BATCH_TIMEOUT_MS,
	);
});
