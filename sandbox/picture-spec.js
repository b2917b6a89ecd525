'use strict';
/**
 * What a run's pictures show: the prompt, seed and size read from a Model API input body (with the model's
 * schema defaults) or from a ComfyUI graph, the size fitted within MAX_SIDE. Pure data; rendering is picture.js.
 */
const { MAX_SIDE, DEFAULT_SIDE } = require('./picture');

/** The presets the live models take for `image_size`. */
const IMAGE_SIZES = {
	square_hd: [1024, 1024],
	square: [512, 512],
	portrait_4_3: [768, 1024],
	portrait_16_9: [576, 1024],
	landscape_4_3: [1024, 768],
	landscape_16_9: [1024, 576],
};

const positive = (v) => typeof v === 'number' && Number.isFinite(v) && v > 0;

/** `[width, height]` scaled down (aspect kept) so neither side exceeds MAX_SIDE; at least 8 pixels each. */
function fit(width, height) {
	const scale = Math.min(1, MAX_SIDE / Math.max(width, height));
	return [Math.max(8, Math.round(width * scale)), Math.max(8, Math.round(height * scale))];
}

function sizeFrom(inputs) {
	const { width, height, image_size: preset, size, aspect_ratio: ratio } = inputs;
	if (positive(width) && positive(height)) return fit(width, height);
	if (preset && typeof preset === 'object' && positive(preset.width) && positive(preset.height)) return fit(preset.width, preset.height);
	if (typeof preset === 'string' && IMAGE_SIZES[preset]) return IMAGE_SIZES[preset];
	const wxh = typeof size === 'string' && /^(\d+)\s*[x*]\s*(\d+)$/i.exec(size);
	if (wxh && Number(wxh[1]) > 0 && Number(wxh[2]) > 0) return fit(Number(wxh[1]), Number(wxh[2]));
	const ab = typeof ratio === 'string' && /^(\d+(?:\.\d+)?):(\d+(?:\.\d+)?)$/.exec(ratio);
	if (ab && Number(ab[1]) > 0 && Number(ab[2]) > 0) return fit(Number(ab[1]) * MAX_SIDE, Number(ab[2]) * MAX_SIDE);
	return [DEFAULT_SIDE, DEFAULT_SIDE];
}

/** Picture spec of a Model API run: the body's inputs, the schema's defaults for those it leaves out. */
function modelPictureSpec(body, schema) {
	const inputs = {};
	for (const [name, prop] of Object.entries((schema && schema.properties) || {})) {
		if (prop && prop.default !== undefined && prop.default !== null) inputs[name] = prop.default;
	}
	Object.assign(inputs, body && typeof body === 'object' ? body : {});
	const [width, height] = sizeFrom(inputs);
	return {
		prompt: typeof inputs.prompt === 'string' ? inputs.prompt : '',
		seed: Number.isSafeInteger(inputs.seed) ? inputs.seed : null,
		width,
		height,
	};
}

/** Picture spec of a deployment request: the sampler's positive prompt, its seed, the latent's size. */
function graphPictureSpec(graph) {
	const nodes = Object.values(graph || {}).filter((n) => n && typeof n === 'object' && n.inputs);
	const sampler = nodes.find((n) => /KSampler/.test(n.class_type));
	const link = sampler && Array.isArray(sampler.inputs.positive) ? graph[sampler.inputs.positive[0]] : undefined;
	const encoder = link && link.class_type === 'CLIPTextEncode' ? link : nodes.find((n) => n.class_type === 'CLIPTextEncode');
	const latent = nodes.find((n) => positive(n.inputs.width) && positive(n.inputs.height));
	const seed = sampler && (sampler.inputs.seed ?? sampler.inputs.noise_seed);
	const [width, height] = latent ? fit(latent.inputs.width, latent.inputs.height) : [DEFAULT_SIDE, DEFAULT_SIDE];
	return {
		prompt: encoder && typeof encoder.inputs.text === 'string' ? encoder.inputs.text : '',
		seed: Number.isSafeInteger(seed) ? seed : null,
		width,
		height,
	};
}

module.exports = { modelPictureSpec, graphPictureSpec };
