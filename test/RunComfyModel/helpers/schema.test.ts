import type { IDataObject } from 'n8n-workflow';

import {
	formatProblems,
	isMultipleOf,
	mapperValueToBody,
	schemaToFields,
	validateBody,
	type SchemaProblem,
} from '../../../nodes/RunComfyModel/helpers/schema';
import type { InputSchema } from '../../../nodes/shared/types';

// ---------------------------------------------------------------------------------------------------------
// Realistic schemas
// ---------------------------------------------------------------------------------------------------------

/** service-facts §10 (mcp-zapier fixture): `float` type and a null default. */
const flux: InputSchema = {
	type: 'object',
	title: 'Input schema',
	required: ['prompt'],
	properties: {
		prompt: { title: 'Prompt', description: '', type: 'string' },
		guidance_scale: { title: 'Guidance Scale', type: 'float', minimum: 0, maximum: 20, default: 2.5 },
		seed: { title: 'Seed', type: 'integer', default: null },
		image_size: {
			type: 'string',
			enum: ['square_hd', 'square', 'portrait_4_3', 'portrait_16_9', 'landscape_4_3', 'landscape_16_9'],
			default: 'landscape_4_3',
		},
		output_format: { type: 'string', enum: ['jpeg', 'png', 'webp'], default: 'png' },
	},
};

/** An image-to-video model: image_uri input, integer enum, exclusive bounds, maxLength. */
const video: InputSchema = {
	type: 'object',
	required: ['prompt', 'image_url'],
	properties: {
		prompt: { type: 'string', maxLength: 20, minLength: 3 },
		image_url: { type: 'string', format: 'image_uri', description: 'First frame' },
		duration: { type: 'integer', enum: [5, 10], default: 5 },
		cfg_scale: { type: 'number', exclusiveMinimum: 0, exclusiveMaximum: 1, default: 0.5 },
		end_image_url: { type: 'string', format: 'image_uri' },
		generate_audio: { type: 'boolean', default: false },
	},
};

/** An edit model taking several images. */
const edit: InputSchema = {
	type: 'object',
	required: ['prompt', 'image_urls'],
	properties: {
		prompt: { type: 'string' },
		image_urls: {
			type: 'array',
			format: 'image_uris',
			items: { type: 'string' },
			minItems: 1,
			maxItems: 3,
			validations: [
				{ type: 'max_size', value: 10485760 },
				{ type: 'max_count', value: 2, message: 'Pro tier: 2 images.' },
			],
		},
		num_images: { type: 'integer', minimum: 1, maximum: 4, default: 1 },
		sync_mode: { type: 'boolean' },
	},
};

/** A LoRA run on a base model (required from required_inputs only, as some catalog entries do). */
const lora: InputSchema = {
	type: 'object',
	properties: {
		prompt: { type: 'string', 'x-order': 0 },
		lora: {
			type: 'object',
			properties: { path: { type: 'string' }, scale: { type: 'number', minimum: 0, maximum: 2 } },
			required: ['path'],
		},
		steps: { type: 'integer', minimum: 1, maximum: 50, 'x-order': 1 },
		tags: { type: 'array', items: { type: 'string' } },
		extra: { type: 'object' },
	},
};
const loraRequired = ['prompt', 'lora'];

/** multipleOf on integers and floats, plus enums of numbers with and without a type. */
const steps: InputSchema = {
	type: 'object',
	required: [],
	properties: {
		width: { type: 'integer', minimum: 256, maximum: 1440, multipleOf: 32 },
		strength: { type: 'float', minimum: 0, maximum: 1, multipleOf: 0.05 },
		fps: { type: 'integer', enum: [24, 30] },
		speed: { enum: [0.5, 1, 2] },
		audio_url: { type: 'string', format: 'audio_uri' },
		audio_urls: { type: 'array', items: { type: 'string', format: 'audio_uri' } },
	},
};

const inputsOf = (problems: SchemaProblem[]) => problems.map((p) => p.input);
const messageFor = (problems: SchemaProblem[], input: string) => problems.find((p) => p.input === input)?.message ?? '';

// ---------------------------------------------------------------------------------------------------------

describe('schemaToFields', () => {
	it('maps the flux schema: float → number, enum → options, null default skipped, required first', () => {
		const fields = schemaToFields(flux);
		expect(fields.map((f) => f.id)).toEqual(['prompt', 'guidance_scale', 'seed', 'image_size', 'output_format']);
		const [prompt, guidance, seed, size] = fields;
		expect(prompt).toEqual({
			id: 'prompt',
			displayName: 'Prompt',
			required: true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		});
		expect(guidance).toMatchObject({ type: 'number', displayName: 'Guidance Scale (0–20)', defaultValue: 2.5, required: false });
		expect(seed).toMatchObject({ type: 'number', displayName: 'Seed (whole number)' });
		expect(seed).not.toHaveProperty('defaultValue');
		expect(size).toMatchObject({ type: 'options', displayName: 'Image Size', defaultValue: 'landscape_4_3' });
		expect(size.options).toHaveLength(6);
		expect(size.options?.[0]).toEqual({ name: 'square_hd', value: 'square_hd' });
	});

	it('file inputs become text fields labelled as public HTTPS URLs; file arrays stay arrays', () => {
		const v = schemaToFields(video);
		expect(v.find((f) => f.id === 'image_url')).toMatchObject({
			type: 'string',
			required: true,
			displayName: 'Image URL (public HTTPS image URL)',
		});
		expect(v.find((f) => f.id === 'duration')).toMatchObject({
			type: 'options',
			options: [
				{ name: '5', value: 5 },
				{ name: '10', value: 10 },
			],
			defaultValue: 5,
		});
		expect(v.find((f) => f.id === 'cfg_scale')?.displayName).toBe('CFG Scale (>0–<1)');
		expect(v.find((f) => f.id === 'generate_audio')).toMatchObject({ type: 'boolean', defaultValue: false });
		expect(v.find((f) => f.id === 'prompt')?.displayName).toBe('Prompt (3–20 chars)');

		const e = schemaToFields(edit);
		expect(e.find((f) => f.id === 'image_urls')).toMatchObject({
			type: 'array',
			displayName: 'Image URLs (image URLs: JSON array of public HTTPS URLs, 1–3 items)',
		});
		expect(schemaToFields(steps).find((f) => f.id === 'audio_urls')?.displayName).toContain('audio URLs');
	});

	it('falls back to required_inputs, orders by x-order after required, and treats LoRA objects as text', () => {
		const fields = schemaToFields(lora, loraRequired);
		expect(fields.map((f) => [f.id, f.required])).toEqual([
			['prompt', true],
			['lora', true],
			['steps', false],
			['tags', false],
			['extra', false],
		]);
		expect(fields[1]).toMatchObject({ type: 'string', displayName: 'LoRA (LoRA file name or public URL)' });
		expect(fields[2]).toMatchObject({ type: 'number', displayName: 'Steps (1–50)' });
		expect(fields[3]).toMatchObject({ type: 'array', displayName: 'Tags (JSON array)' });
		expect(fields[4]).toMatchObject({ type: 'object', displayName: 'Extra (JSON object)' });
		// schema.required wins over required_inputs when present
		expect(
			schemaToFields(flux, ['seed'])
				.filter((f) => f.required)
				.map((f) => f.id),
		).toEqual(['prompt']);
	});

	it('states steps and numeric enums', () => {
		const fields = schemaToFields(steps);
		expect(fields.find((f) => f.id === 'width')?.displayName).toBe('Width (256–1440, step 32)');
		expect(fields.find((f) => f.id === 'strength')?.displayName).toBe('Strength (0–1, step 0.05)');
		expect(fields.find((f) => f.id === 'speed')).toMatchObject({
			type: 'options',
			options: [
				{ name: '0.5', value: 0.5 },
				{ name: '1', value: 1 },
				{ name: '2', value: 2 },
			],
		});
	});

	it('survives odd schemas', () => {
		expect(schemaToFields({} as InputSchema)).toEqual([]);
		expect(schemaToFields({ properties: { a: 'nonsense' } } as unknown as InputSchema)).toEqual([]);
		const fields = schemaToFields({
			properties: {
				nullable: { type: ['integer', 'null'] },
				anyof: { anyOf: [{ type: 'null' }, { type: 'number' }] },
				arr_default: { type: 'array', default: ['a'] },
				untyped: {},
			},
		});
		expect(fields.map((f) => f.type)).toEqual(['number', 'number', 'array', 'string']);
		expect(fields[2].defaultValue).toBe('["a"]');
	});
});

describe('mapperValueToBody', () => {
	it.each<[string, InputSchema, IDataObject, IDataObject]>([
		[
			'numbers from strings, float and integer',
			flux,
			{ prompt: 'a cat', guidance_scale: '3.5', seed: '42' },
			{ prompt: 'a cat', guidance_scale: 3.5, seed: 42 },
		],
		[
			'drops undefined, null and empty so defaults apply',
			flux,
			{ prompt: 'x', seed: null, guidance_scale: '', image_size: undefined },
			{ prompt: 'x' },
		],
		['booleans from text', video, { generate_audio: 'true', prompt: 'abc' }, { generate_audio: true, prompt: 'abc' }],
		['booleans false', edit, { sync_mode: 'False' }, { sync_mode: false }],
		[
			'file array from a JSON string',
			edit,
			{ image_urls: '["https://a/1.png", "https://a/2.png"]' },
			{ image_urls: ['https://a/1.png', 'https://a/2.png'] },
		],
		['file array from one URL', edit, { image_urls: ' https://a/1.png ' }, { image_urls: ['https://a/1.png'] }],
		[
			'file array from URLs on lines / before commas (commas inside a URL kept)',
			edit,
			{ image_urls: 'https://a/w_1,h_2/1.png,\nhttps://a/2.png https://a/3.png' },
			{ image_urls: ['https://a/w_1,h_2/1.png', 'https://a/2.png', 'https://a/3.png'] },
		],
		['string array from one value', lora, { tags: 'anime' }, { tags: ['anime'] }],
		['lora from a plain path', lora, { lora: ' my_lora.safetensors ' }, { lora: { path: 'my_lora.safetensors' } }],
		[
			'lora from JSON text',
			lora,
			{ lora: '{"path": "https://x/y.safetensors", "scale": 0.8}' },
			{ lora: { path: 'https://x/y.safetensors', scale: 0.8 } },
		],
		['lora object kept', lora, { lora: { path: 'a' } }, { lora: { path: 'a' } }],
		['object from JSON text', lora, { extra: '{"a":1}' }, { extra: { a: 1 } }],
		['number enum from text (untyped enum)', steps, { speed: '0.5', fps: '30' }, { speed: 0.5, fps: 30 }],
		['string field given a number', flux, { prompt: 123 }, { prompt: '123' }],
		['unknown keys passed through for validation to report', flux, { prompt: 'x', nope: 1 }, { prompt: 'x', nope: 1 }],
		[
			'unconvertible values left as they are',
			flux,
			{ prompt: 'x', seed: 'abc', guidance_scale: '1,5' },
			{ prompt: 'x', seed: 'abc', guidance_scale: '1,5' },
		],
		['broken JSON array left as text', edit, { image_urls: '["https://a' }, { image_urls: '["https://a' }],
		['file URL trimmed', video, { image_url: '  https://a/b.png\n' }, { image_url: 'https://a/b.png' }],
	])('%s', (_name, schema, value, expected) => {
		expect(mapperValueToBody(value, schema)).toEqual(expected);
	});

	it('converts array items to the item type', () => {
		const schema: InputSchema = { properties: { sizes: { type: 'array', items: { type: 'integer' } } } };
		expect(mapperValueToBody({ sizes: '["512", 768]' }, schema)).toEqual({ sizes: [512, 768] });
	});
});

describe('validateBody', () => {
	it('accepts good bodies', () => {
		expect(validateBody({ prompt: 'a cat', guidance_scale: 2.5, seed: 7, image_size: 'square' }, flux)).toEqual([]);
		expect(validateBody({ prompt: 'a cat', seed: null }, flux)).toEqual([]); // default null → null allowed
		expect(validateBody({ prompt: 'abcd', image_url: 'https://cdn.example.com/a.png', duration: 10, cfg_scale: 0.3 }, video)).toEqual([]);
		expect(validateBody({ prompt: 'p', image_urls: ['https://a/1.png', 'https://a/2.png'] }, edit)).toEqual([]);
		expect(validateBody({ prompt: 'p', lora: { path: 'x.safetensors', scale: 1 } }, lora, loraRequired)).toEqual([]);
		expect(validateBody({ width: 512, strength: 0.35, fps: 24, speed: 0.5 }, steps)).toEqual([]);
	});

	it('reports every problem at once', () => {
		const problems = validateBody({ guidance_scale: 25, seed: 1.5, image_size: 'huge', output_format: 3, extra_key: true }, flux);
		expect(inputsOf(problems)).toEqual(['prompt', 'guidance_scale', 'seed', 'image_size', 'output_format', 'extra_key']);
		expect(messageFor(problems, 'prompt')).toMatch(/required/);
		expect(messageFor(problems, 'guidance_scale')).toBe('must be at most 20, but got 25.');
		expect(messageFor(problems, 'seed')).toMatch(/whole number.*1\.5/);
		expect(messageFor(problems, 'image_size')).toMatch(/one of "square_hd", "square".*"huge"/);
		expect(messageFor(problems, 'output_format')).toMatch(/must be text.*number 3/);
		expect(messageFor(problems, 'extra_key')).toMatch(/not an input of this model.*Known inputs: prompt, guidance_scale/);
		expect(formatProblems(problems).split('\n')).toHaveLength(6);
	});

	it('rejects a body that is not an object', () => {
		for (const body of [null, [], 'text', 5]) {
			const problems = validateBody(body as unknown as IDataObject, flux);
			expect(problems).toHaveLength(1);
			expect(problems[0].message).toMatch(/must be a JSON object/);
		}
	});

	describe.each<[string, InputSchema, IDataObject, string, RegExp, string[]?]>([
		// [name, schema, body, input, message, requiredInputs]
		['missing required (from required_inputs)', lora, { prompt: 'x' }, 'lora', /is required/, loraRequired],
		['empty string counts as missing', flux, { prompt: '' }, 'prompt', /is required/],
		['integer vs float', flux, { prompt: 'x', seed: 2.5 }, 'seed', /whole number/],
		['float given text', flux, { prompt: 'x', guidance_scale: '2.5' }, 'guidance_scale', /must be a number, but got the text "2\.5"/],
		[
			'boolean given text',
			video,
			{ prompt: 'abcd', image_url: 'https://a/b.png', generate_audio: 'yes' },
			'generate_audio',
			/true or false/,
		],
		['array given text', edit, { prompt: 'x', image_urls: 'https://a/b.png' }, 'image_urls', /must be an array/],
		['object given array', lora, { prompt: 'x', lora: ['a'] }, 'lora', /must be an object/, loraRequired],
		['null where not allowed', edit, { prompt: 'x', image_urls: ['https://a/b.png'], num_images: null }, 'num_images', /is null/],
		['integer enum', video, { prompt: 'abcd', image_url: 'https://a/b.png', duration: 7 }, 'duration', /one of 5, 10/],
		['untyped number enum', steps, { speed: 3 }, 'speed', /one of 0\.5, 1, 2/],
		['minimum', edit, { prompt: 'x', image_urls: ['https://a/b.png'], num_images: 0 }, 'num_images', /at least 1, but got 0/],
		['maximum', edit, { prompt: 'x', image_urls: ['https://a/b.png'], num_images: 5 }, 'num_images', /at most 4, but got 5/],
		['exclusiveMinimum', video, { prompt: 'abcd', image_url: 'https://a/b.png', cfg_scale: 0 }, 'cfg_scale', /greater than 0/],
		['exclusiveMaximum', video, { prompt: 'abcd', image_url: 'https://a/b.png', cfg_scale: 1 }, 'cfg_scale', /less than 1/],
		[
			'draft-4 boolean exclusiveMinimum',
			{ properties: { x: { type: 'number', minimum: 2, exclusiveMinimum: true } } },
			{ x: 2 },
			'x',
			/greater than 2/,
		],
		[
			'maxLength (code points)',
			video,
			{ prompt: '😀'.repeat(21), image_url: 'https://a/b.png' },
			'prompt',
			/too long: at most 20 characters, but has 21/,
		],
		['minLength', video, { prompt: 'ab', image_url: 'https://a/b.png' }, 'prompt', /too short: at least 3/],
		['minItems', edit, { prompt: 'x', image_urls: [] }, 'image_urls', /at least 1 item/],
		[
			'maxItems',
			edit,
			{ prompt: 'x', image_urls: ['https://a/1', 'https://a/2', 'https://a/3', 'https://a/4'] },
			'image_urls',
			/at most 3 item/,
		],
		['multipleOf integer', steps, { width: 500 }, 'width', /multiple of 32, but got 500/],
		['multipleOf float', steps, { strength: 0.33 }, 'strength', /multiple of 0\.05/],
		[
			'data URI',
			video,
			{ prompt: 'abcd', image_url: 'data:image/png;base64,iVBORw0KGgo=' },
			'image_url',
			/Base64 data URI.*does not accept Base64.*upload the file somewhere public.*Deployment node/,
		],
		[
			'local POSIX path',
			video,
			{ prompt: 'abcd', image_url: '/tmp/x.png' },
			'image_url',
			/local file path.*\/tmp\/x\.png.*cannot read files on this machine/,
		],
		['local Windows path', video, { prompt: 'abcd', image_url: 'C:\\Users\\me\\x.png' }, 'image_url', /local file path/],
		['file:// URL', video, { prompt: 'abcd', image_url: 'file:///tmp/x.png' }, 'image_url', /local file path/],
		['relative path', video, { prompt: 'abcd', image_url: './x.png' }, 'image_url', /local file path/],
		['http URL', video, { prompt: 'abcd', image_url: 'http://example.com/x.png' }, 'image_url', /must use https:\/\//],
		['not a URL', video, { prompt: 'abcd', image_url: 'cat.png' }, 'image_url', /public HTTPS URL of the image/],
		['ftp URL', video, { prompt: 'abcd', image_url: 'ftp://example.com/x.png' }, 'image_url', /ftp: URL/],
		[
			'URL with credentials',
			video,
			{ prompt: 'abcd', image_url: 'https://u:p@example.com/x.png' },
			'image_url',
			/without a user name or password/,
		],
		[
			'data URI inside a file array',
			edit,
			{ prompt: 'x', image_urls: ['https://a/1.png', 'data:image/png;base64,AAAA'] },
			'image_urls[1]',
			/Base64/,
		],
		['file array via items.format', steps, { audio_urls: ['http://a/1.wav'] }, 'audio_urls[0]', /https/],
		['file singular audio', steps, { audio_url: '/home/me/a.wav' }, 'audio_url', /local file path/],
		['array item type', lora, { prompt: 'x', lora: { path: 'a' }, tags: ['ok', 3] }, 'tags[1]', /must be text/, loraRequired],
		['nested object required', lora, { prompt: 'x', lora: { scale: 1 } }, 'lora.path', /is required/, loraRequired],
		['nested object range', lora, { prompt: 'x', lora: { path: 'a', scale: 3 } }, 'lora.scale', /at most 2/, loraRequired],
		[
			'validations count entry',
			edit,
			{ prompt: 'x', image_urls: ['https://a/1', 'https://a/2', 'https://a/3'] },
			'image_urls',
			/at most 2 item\(s\), but has 3\. Pro tier: 2 images\./,
		],
		['unknown key with a near match', flux, { prompt: 'x', GuidanceScale: 2 }, 'GuidanceScale', /Did you mean "guidance_scale"\?/],
	])('%s', (_name, schema, body, input, message, required) => {
		it('is reported', () => {
			const problems = validateBody(body, schema, required);
			expect(inputsOf(problems)).toContain(input);
			expect(messageFor(problems, input)).toMatch(message);
		});
	});

	it('allows unknown keys when the schema says additionalProperties: true', () => {
		expect(validateBody({ prompt: 'x', anything: 1 }, { ...flux, additionalProperties: true })).toEqual([]);
		expect(validateBody({ anything: 1 }, { type: 'object' })).toEqual([]); // no properties: nothing to compare with
	});

	it('never crashes on unknown validations shapes', () => {
		const schema: InputSchema = {
			properties: {
				a: {
					type: 'array',
					validations: [{ weird: true }, 'text' as unknown as IDataObject, { type: 'max_size' }, { type: 'min_count', value: 2 }],
				},
				s: {
					type: 'string',
					validations: [
						{ type: 'max_length', value: 3 },
						{ type: 'resolution', max: 5 },
					],
				},
			},
		};
		const problems = validateBody({ a: [1], s: 'abcd' }, schema);
		expect(problems).toEqual([
			{ input: 'a', message: 'needs at least 2 item(s), but has 1.' },
			{ input: 's', message: 'accepts at most 3 characters, but has 4.' },
		]);
	});

	it('accepts a float that is a multiple of a float step despite rounding', () => {
		expect(isMultipleOf(0.3, 0.1)).toBe(true);
		expect(isMultipleOf(0.35, 0.05)).toBe(true);
		expect(isMultipleOf(1.1, 0.1)).toBe(true);
		expect(isMultipleOf(0.33, 0.05)).toBe(false);
		expect(isMultipleOf(64, 32)).toBe(true);
	});

	it('mapped UI values for the flux model validate clean end to end', () => {
		const body = mapperValueToBody(
			{ prompt: 'a red fox', guidance_scale: '4', seed: '', image_size: 'square_hd', output_format: 'webp' },
			flux,
		);
		expect(validateBody(body, flux)).toEqual([]);
		expect(body).toEqual({ prompt: 'a red fox', guidance_scale: 4, image_size: 'square_hd', output_format: 'webp' });
	});
});
