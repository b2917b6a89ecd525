/* eslint-disable @n8n/community-nodes/no-restricted-imports, @n8n/community-nodes/no-restricted-globals */
/**
 * The planner's results, pinned: a fixed set of learned run times (tight, wide, bimodal, censored, short and
 * long runs; one to 24 samples) is fitted (`endDistribution`) and planned (`planPolls`) with each polling
 * goal and setting, and every number must equal the committed fixture exactly. A change that moves any
 * poll fails here, so a refactoring of wait/ proves it changed nothing; a change meant to move polls updates
 * the fixture on purpose (`WRITE_PLANNER_FIXTURE=1 npm run test:unit -- test/shared/wait/plannerFixture`) and
 * says why in its commit, with the bench's Detection tables (CONTRIBUTING.md).
 * The inputs come from a generator in this file, so nothing outside wait/ can move them.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { endDistribution, planPolls, type DurationSample, type PlanSettings } from '../../../nodes/shared/wait';

const FIXTURE = join(__dirname, 'fixtures', 'planner-plans.json');

/** A seeded generator of numbers in [0, 1) (mulberry32), kept here so the inputs never change. */
function seeded(seed: number): () => number {
	let a = seed >>> 0;
	return () => {
		a = (a + 0x6d2b79f5) >>> 0;
		let t = a;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

/** `count` run ends around `meanMs`, spread evenly within ±`spread` (a fraction), each seen between two polls `gapMs` apart. */
function samples(meanMs: number, spread: number, count: number, gapMs: number, seed: number): DurationSample[] {
	const rnd = seeded(seed);
	return Array.from({ length: count }, () => {
		const end = meanMs * (1 + spread * (rnd() * 2 - 1));
		const lo = end - rnd() * gapMs;
		return { lo, hi: lo + gapMs };
	});
}

interface Case {
	name: string;
	samples: DurationSample[];
	/** Runs still going, ms after their anchor they were last seen going. */
	going?: number[];
}

const CASES: Case[] = [
	...[1, 3, 10, 24].map((n) => ({ name: `tight 20 s ±2 %, n=${n}`, samples: samples(20_000, 0.02, n, 400, n) })),
	...[3, 10, 24].map((n) => ({ name: `wide 60 s ±40 %, n=${n}`, samples: samples(60_000, 0.4, n, 1500, 100 + n) })),
	...[4, 10, 24].map((n) => ({
		name: `bimodal 10 s and 40 s, n=${n}`,
		samples: [...samples(10_000, 0.05, n / 2, 500, 200 + n), ...samples(40_000, 0.05, n / 2, 2000, 300 + n)],
	})),
	{
		// Ends seen only after a blind stretch (16 s to 19.5 s) count as "somewhere in it".
		name: 'censored: blind stretch, n=10',
		samples: [...Array.from({ length: 4 }, () => ({ lo: 16_000, hi: 19_500 })), ...samples(21_000, 0.05, 6, 500, 400)],
	},
	{
		name: 'censored: runs still going, n=3 + 5 going',
		samples: samples(30_000, 0.05, 3, 600, 500),
		going: [29_000, 30_500, 31_000, 31_000, 33_000],
	},
	{
		name: 'censored: runs still going, n=10 + 20 going',
		samples: samples(30_000, 0.1, 10, 600, 600),
		going: Array.from({ length: 20 }, (_, k) => 28_000 + 250 * k),
	},
	{ name: 'short 2 s, n=5', samples: samples(2000, 0.1, 5, 100, 700) },
	...[10, 24].map((n) => ({ name: `long 300 s ±20 %, n=${n}`, samples: samples(300_000, 0.2, n, 600, 800 + n) })),
];

const SETTINGS: Record<string, PlanSettings> = {
	'lowestDelay 300': { targetDelayMs: 300 },
	'lowestDelay 300, no poll at the lower end': { targetDelayMs: 300, pollAtLowerEnd: false },
	'lowestDelay 1000': { targetDelayMs: 1000 },
	fewestRequests: { targetDelayMs: 300, goal: 'fewestRequests' },
	'fewestRequests, no poll at the lower end': { targetDelayMs: 300, goal: 'fewestRequests', pollAtLowerEnd: false },
};

interface Planned {
	name: string;
	distribution: { lo: number; hi: number; median: number };
	plans: Record<string, number[]>;
}

function planAll(): Planned[] {
	return CASES.map(({ name, samples: s, going }) => {
		const dist = endDistribution(s, going);
		if (!dist) throw new Error(`${name}: no distribution`);
		const plans: Record<string, number[]> = {};
		for (const [label, settings] of Object.entries(SETTINGS)) plans[label] = planPolls(dist, settings);
		return { name, distribution: { lo: dist.lo, hi: dist.hi, median: dist.median }, plans };
	});
}

describe('planner fixture: the plans for a fixed set of learned run times', () => {
	const planned = planAll();
	if (process.env.WRITE_PLANNER_FIXTURE === '1') writeFileSync(FIXTURE, `${JSON.stringify(planned, null, '\t')}\n`);
	const fixture = JSON.parse(readFileSync(FIXTURE, 'utf8')) as Planned[];

	it('covers the same cases as the fixture', () => {
		expect(planned.map((p) => p.name)).toEqual(fixture.map((p) => p.name));
	});

	it.each(CASES.map((c, k) => [c.name, k] as const))('%s: every number as in the fixture', (_name, k) => {
		// JSON keeps every double exactly (shortest round-trip form), so equal text is equal numbers.
		expect(JSON.stringify(planned[k])).toBe(JSON.stringify(fixture[k]));
		expect(planned[k]).toEqual(fixture[k]);
	});

	it('the plans are not trivial (each case has polls)', () => {
		for (const p of planned) for (const polls of Object.values(p.plans)) expect(polls.length).toBeGreaterThan(0);
	});
});
