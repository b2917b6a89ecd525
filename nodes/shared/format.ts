/** Formatting for messages shared by several nodes. */

/** A wait duration for messages: 0.2 s, 45 s, 12.5 min, 8 h. */
export function formatDuration(ms: number): string {
	if (ms >= 3_600_000) return `${Math.round(ms / 360_000) / 10} h`;
	if (ms >= 60_000) return `${Math.round(ms / 6_000) / 10} min`;
	return `${ms < 10_000 ? Math.round(ms / 100) / 10 : Math.round(ms / 1000)} s`;
}
