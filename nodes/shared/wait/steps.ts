/** When a job that reports step progress (training) will end, from the polls that saw it running. */

/** Step progress as a job reports it. */
export interface StepProgress {
	current: number;
	total: number;
}

export interface EndForecast {
	/** The latest time the remaining steps can end at the pace seen. */
	latest: number;
	/** The measured time per step, ms. */
	msPerStep: number;
	/** Every step is counted done: the job is finishing or about to report its end. */
	stepsDone: boolean;
}

interface Sighting {
	at: number;
	step: number;
}

/** Finite, non-negative step counts with a positive total; anything else says nothing. */
export function stepProgressOf(value: unknown): StepProgress | undefined {
	if (typeof value !== 'object' || value === null) return undefined;
	const { current, total } = value as Record<string, unknown>;
	const valid = (n: unknown): n is number => typeof n === 'number' && Number.isFinite(n) && n >= 0;
	return valid(current) && valid(total) && total > 0 ? { current, total } : undefined;
}

export class StepForecast {
	/** The first poll of this measurement that saw the job running. */
	private first: Sighting | undefined;

	/** The first poll that saw the steps advance past `first`: the pace is measured from here. */
	private from: Sighting | undefined;

	private last: Sighting | undefined;

	private total = 0;

	observe(at: number, progress: StepProgress): void {
		if (this.last && (progress.current < this.last.step || progress.total !== this.total || at < this.last.at)) this.reset();
		const sighting = { at, step: progress.current };
		this.total = progress.total;
		this.last = sighting;
		if (!this.first) this.first = sighting;
		else if (!this.from && progress.current > this.first.step) this.from = sighting;
	}

	/** Where the remaining steps end, once two polls have counted at least two steps between them. */
	forecast(): EndForecast | undefined {
		const { from, last, total } = this;
		if (!from || !last) return undefined;
		const steps = last.step - from.step;
		const elapsed = last.at - from.at;
		if (steps < 2 || elapsed <= 0) return undefined;
		const remaining = Math.max(0, total - last.step);
		// Whole steps counted: at most steps + 1 and at least steps - 1 were done between the two polls.
		const slowest = elapsed / (steps - 1);
		return { latest: last.at + remaining * slowest, msPerStep: elapsed / steps, stepsDone: remaining === 0 };
	}

	private reset(): void {
		this.first = undefined;
		this.from = undefined;
		this.last = undefined;
	}
}
