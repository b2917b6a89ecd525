/** nodes/shared/format.ts: durations in messages (Dataset and Training wait timeouts). */
import { formatDuration } from '../../nodes/shared/format';

describe('formatDuration', () => {
	it.each([
		[200, '0.2 s'],
		[9_999, '10 s'],
		[45_000, '45 s'],
		[60_000, '1 min'],
		[750_000, '12.5 min'],
		[3_600_000, '1 h'],
		[28_800_000, '8 h'],
	])('writes %p ms as %p', (ms, text) => {
		expect(formatDuration(ms)).toBe(text);
	});
});
