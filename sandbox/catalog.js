'use strict';
/**
 * The model catalog: the curated models in fixtures/models/*.json (read in file-name order) with input
 * schemas shaped like the live catalog (non-standard `"type": "float"`, `"default": null`, `validations`
 * arrays, file inputs marked by `format`), plus `extraModels` generated ones for picker benchmarks.
 *
 * Each fixture entry has public fields (served by the API) and sandbox-only fields under `sim`:
 *   sim.output: 'images' | 'image' | 'video' | 'videos' | 'audio' | 'string'  (shape of the result output)
 *   sim.ext: file extension of generated outputs (default by output shape)
 *   sim.large: outputs are `largeOutputBytes` big
 *   sim.fails: error text; every run fails
 *   sim.foreignThumbnail: the output also carries a `thumbnail` URL on the foreign (not allow-listed) host
 */
const fs = require('fs');
const path = require('path');

const FIXTURES = path.join(__dirname, 'fixtures', 'models');

const CATEGORIES = [
	'audio-to-audio',
	'audio-to-video',
	'edit-video',
	'image-to-image',
	'image-to-video',
	'reference-to-video',
	'speech-to-video',
	'text-to-audio',
	'text-to-image',
	'text-to-video',
	'video-to-video',
];

/** Read once per process: the fixtures never change while the sandbox runs. */
let curated;
function curatedDefs() {
	if (!curated) {
		curated = fs
			.readdirSync(FIXTURES)
			.filter((f) => f.endsWith('.json'))
			.sort()
			.flatMap((f) => JSON.parse(fs.readFileSync(path.join(FIXTURES, f), 'utf8')));
	}
	return curated;
}

const DEFAULT_EXT = { images: 'png', image: 'png', video: 'mp4', videos: 'mp4', audio: 'wav', string: 'png' };

/** A fixture entry as served (public fields plus derived ones) and its sandbox-only `sim` part. */
function entry(def) {
	const { sim, ...pub } = def;
	const props = pub.input_schema.properties;
	const model = {
		model_id: pub.model_id,
		display_name: pub.display_name,
		description: pub.description,
		publisher: pub.model_id.split('/')[0],
		categories: pub.categories,
		kind: pub.kind,
		...(pub.tags ? { tags: pub.tags } : {}),
		...(pub.model_url !== null && !pub.model_id.startsWith('runcomfy/test/')
			? { model_url: pub.model_url || `https://www.runcomfy.com/models/${pub.model_id.split('/').slice(0, -1).join('/') || pub.model_id}` }
			: {}),
		base_price_usd: pub.base_price_usd,
		price_unit: pub.price_unit,
		...(pub.pricing_note ? { pricing_note: pub.pricing_note } : {}),
		supported_batch_size: pub.supported_batch_size || [1],
		inputs: Object.keys(props),
		required_inputs: [...pub.input_schema.required],
		input_schema: pub.input_schema,
	};
	return { model, sim: { ext: DEFAULT_EXT[sim.output], ...sim } };
}

/** Generated models for big-catalog benchmarks: `<publisher>/gen-NNNN/vK/<category>`, built on curated templates. */
function generated(count) {
	const byCategory = {};
	for (const def of curatedDefs()) {
		if (def.model_id.startsWith('runcomfy/test/')) continue;
		const cat = def.categories[0];
		(byCategory[cat] = byCategory[cat] || []).push(def);
	}
	const out = [];
	const publishers = ['synthetic-labs', 'pixelforge', 'motionworks', 'soundsmith', 'dreamcraft', 'vectorize'];
	for (let i = 0; i < count; i++) {
		const cat = CATEGORIES[i % CATEGORIES.length];
		const templates = byCategory[cat];
		const template = templates[Math.floor(i / CATEGORIES.length) % templates.length];
		const n = String(i + 1).padStart(4, '0');
		const publisher = publishers[i % publishers.length];
		out.push(
			entry({
				...template,
				model_id: `${publisher}/gen-${n}/v${(i % 3) + 1}/${cat}`,
				display_name: `${publisher.replace(/-/g, ' ')} Gen ${n} (${cat})`,
				description: `Synthetic ${cat} model number ${n}, generated for catalog-size tests. ${template.description}`,
				tags: ['synthetic'],
				model_url: null,
				pricing_note: undefined,
				base_price_usd: Math.round((0.001 + (i % 50) * 0.002) * 1000) / 1000,
			}),
		);
	}
	return out;
}

/** Builds the catalog: `{ list, byId, sims, categories }`. */
function buildCatalog(extraModels = 0) {
	const items = [...curatedDefs().map(entry), ...generated(Math.max(0, Math.floor(extraModels || 0)))];
	const byId = new Map();
	const sims = new Map();
	for (const { model, sim } of items) {
		byId.set(model.model_id, model);
		sims.set(model.model_id, sim);
	}
	const list = items.map((i) => i.model);
	const categories = [...new Set(list.flatMap((m) => m.categories))].sort();
	return { list, byId, sims, categories };
}

/** Stable ids tests and helpers rely on. */
const STABLE_MODELS = {
	textToImage: 'blackforestlabs/flux-2/flash/text-to-image',
	lora: 'blackforestlabs/flux-1/dev/lora/text-to-image',
	imageToVideo: 'kling/kling-2-1/pro/image-to-video',
	videoToVideo: 'runway/gen4-aleph/video-to-video',
	audioToAudio: 'stability/stable-audio-2-5/audio-to-audio',
	imageEditPlural: 'google/nano-banana/edit',
	largeOutput: 'runcomfy/test/large-output',
	alwaysFails: 'runcomfy/test/always-fails',
	mixedHosts: 'runcomfy/test/mixed-hosts',
};

module.exports = { buildCatalog, STABLE_MODELS };
