/** The small readers of nodes/RunComfyModel/helpers/schema.ts: names, value types and file URL problems. */
import { fileUrlProblem, humanise, valueTypeOf } from '../../../nodes/RunComfyModel/helpers/schema';

describe('helpers', () => {
	it('humanises names', () => {
		expect(humanise('guidance_scale')).toBe('Guidance Scale');
		expect(humanise('imageUrl')).toBe('Image URL');
		expect(humanise('lora')).toBe('LoRA');
	});

	it('reads types leniently', () => {
		expect(valueTypeOf({ type: 'float' })).toBe('number');
		expect(valueTypeOf({ type: ['null', 'integer'] })).toBe('integer');
		expect(valueTypeOf({ format: 'image_uris' })).toBe('array');
		expect(valueTypeOf({ enum: [1, 2] })).toBe('integer');
		expect(valueTypeOf({})).toBeUndefined();
	});

	it('explains file URL problems', () => {
		expect(fileUrlProblem('https://example.com/a.png')).toBeUndefined();
		expect(fileUrlProblem('\\\\server\\share\\a.png')).toMatch(/local file path/);
		expect(fileUrlProblem(42)).toMatch(/public HTTPS URL/);
	});
});
