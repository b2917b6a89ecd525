/**
 * The Simplify switch and the one list of fields each resource keeps: n8n's name, wording and default; never more
 * than 10 fields, the id first; fields a record lacks are left out, the order is the list's.
 */
import { SIMPLE_FIELDS, simplified, simplifyProperty } from '../../nodes/shared/simplify';

describe('Simplify', () => {
	it('is the switch n8n\'s own nodes have: "simple", on by default', () => {
		expect(simplifyProperty).toEqual({
			displayName: 'Simplify',
			name: 'simple',
			type: 'boolean',
			default: true,
			description: 'Whether to return a simplified version of the response instead of the raw data',
		});
	});

	it.each(Object.entries(SIMPLE_FIELDS))('%s keeps at most 10 fields, its id first', (resource, fields) => {
		expect(fields.length).toBeLessThanOrEqual(10);
		expect(new Set(fields).size).toBe(fields.length);
		expect(fields[0]).toBe({ deployment: 'id', model: 'model_id', trainingJob: 'job_id', dataset: 'id' }[resource]);
	});

	it("keeps the listed fields in the list's order and leaves out those the record lacks", () => {
		const record = { hint: 'h', job_id: 'j1', gpu_type: 'ADA_80_PLUS', status: 'running', error: null, progress: { current: 1 } };
		expect(simplified('trainingJob', record)).toEqual({
			job_id: 'j1',
			status: 'running',
			progress: { current: 1 },
			error: null,
			hint: 'h',
		});
		expect(Object.keys(simplified('trainingJob', record))).toEqual(['job_id', 'status', 'progress', 'error', 'hint']);
	});
});
