'use strict';
/**
 * Deployment inference bodies: checks of `workflow_api_json` and `overrides` (422 `detail` items), applying
 * the overrides, and the ComfyUI-shaped `outputs` of a finished request.
 */
const { isPlainObject } = require('./util');
const workflows = require('./workflows');

const DATA_URI = /^data:([a-z]+\/[a-z0-9.+-]+)?(;[a-z0-9-]+=[^;,]+)*;base64,([A-Za-z0-9+/]+={0,2})$/i;

function checkFileValue(value, loc, savedDefault) {
	if (typeof value !== 'string') return { loc, msg: 'A file input takes a public HTTPS URL or a data: URI', type: 'string_type' };
	if (value === savedDefault) return null;
	if (/^data:/i.test(value)) {
		const m = DATA_URI.exec(value.replace(/\s+/g, ''));
		if (!m || !m[1]) return { loc, msg: 'Malformed data URI: expected data:<media type>;base64,<payload>', type: 'value_error.data_uri' };
		return null;
	}
	let url;
	try {
		url = new URL(value);
	} catch {
		return { loc, msg: 'A file input takes a public HTTPS URL or a data: URI', type: 'value_error.url' };
	}
	if (url.protocol !== 'https:')
		return { loc, msg: `URL scheme '${url.protocol.replace(':', '')}' is not accepted; use HTTPS or a data: URI`, type: 'value_error.url' };
	return null;
}

function validateGraph(graph, locPrefix) {
	const detail = [];
	if (!isPlainObject(graph) || Object.keys(graph).length === 0) {
		return [{ loc: locPrefix, msg: 'workflow_api_json must be a non-empty object keyed by node id', type: 'value_error' }];
	}
	for (const [id, node] of Object.entries(graph)) {
		if (!isPlainObject(node) || typeof node.class_type !== 'string' || !isPlainObject(node.inputs)) {
			detail.push({ loc: [...locPrefix, id], msg: 'Each node needs a string class_type and an inputs object', type: 'value_error' });
		}
	}
	return detail;
}

function validateOverrides(graph, overrides) {
	const detail = [];
	if (!isPlainObject(overrides))
		return [{ loc: ['body', 'overrides'], msg: 'overrides must be an object keyed by node id', type: 'dict_type' }];
	for (const [nodeId, patch] of Object.entries(overrides)) {
		const loc = ['body', 'overrides', nodeId];
		const node = graph[nodeId];
		if (!node) {
			detail.push({
				loc,
				msg: `Node '${nodeId}' does not exist in the workflow (node ids: ${Object.keys(graph).join(', ')})`,
				type: 'value_error.unknown_node',
			});
			continue;
		}
		if (!isPlainObject(patch) || !isPlainObject(patch.inputs)) {
			detail.push({ loc, msg: 'Each override must be { "inputs": { <input name>: <value> } }', type: 'value_error' });
			continue;
		}
		const extra = Object.keys(patch).filter((k) => k !== 'inputs');
		for (const k of extra) detail.push({ loc: [...loc, k], msg: 'Only "inputs" can be overridden', type: 'extra_forbidden' });
		const fileInputs = workflows.FILE_INPUTS[node.class_type] || [];
		for (const [name, value] of Object.entries(patch.inputs)) {
			const iloc = [...loc, 'inputs', name];
			if (!(name in node.inputs)) {
				detail.push({
					loc: iloc,
					msg: `Node '${nodeId}' (${node.class_type}) has no input '${name}' (inputs: ${Object.keys(node.inputs).join(', ')})`,
					type: 'value_error.unknown_input',
				});
				continue;
			}
			const saved = node.inputs[name];
			if (fileInputs.includes(name)) {
				const d = checkFileValue(value, iloc, saved);
				if (d) detail.push(d);
				continue;
			}
			if (Array.isArray(saved)) continue; // a link: any literal may replace it
			if (typeof saved === 'number') {
				if (typeof value !== 'number' || !Number.isFinite(value))
					detail.push({ loc: iloc, msg: 'Input should be a number', type: 'type_error' });
				else if (
					Number.isInteger(saved) &&
					!Number.isInteger(value) &&
					['seed', 'steps', 'width', 'height', 'batch_size', 'length'].includes(name)
				) {
					detail.push({ loc: iloc, msg: 'Input should be an integer', type: 'int_type' });
				}
			} else if (typeof saved === 'string' && typeof value !== 'string') {
				detail.push({ loc: iloc, msg: 'Input should be a string', type: 'string_type' });
			} else if (typeof saved === 'boolean' && typeof value !== 'boolean') {
				detail.push({ loc: iloc, msg: 'Input should be a boolean', type: 'bool_type' });
			}
		}
	}
	return detail;
}

function applyOverrides(graph, overrides) {
	const g = JSON.parse(JSON.stringify(graph));
	for (const [id, patch] of Object.entries(overrides || {})) Object.assign(g[id].inputs, patch.inputs);
	return g;
}

function buildOutputs(sb, d, runId, graph) {
	const outputs = {};
	const base = `${sb.urls.files}/files/outputs/${runId}`;
	let counter = 1;
	const latentBatch = () => {
		for (const n of Object.values(graph))
			if (n.class_type === 'EmptyLatentImage' && Number.isInteger(n.inputs.batch_size)) return n.inputs.batch_size;
		return 1;
	};
	for (const [id, node] of Object.entries(graph)) {
		if (node.class_type === 'SaveImage' || node.class_type === 'PreviewImage') {
			const prefix = String(node.inputs.filename_prefix || 'ComfyUI').replace(/[^A-Za-z0-9_-]/g, '_');
			const type = node.class_type === 'SaveImage' ? 'output' : 'temp';
			const n = Math.max(1, Math.min(16, latentBatch()));
			outputs[id] = {
				images: Array.from({ length: n }, () => {
					const filename = `${prefix}_${String(counter++).padStart(5, '0')}_.png`;
					return {
						filename,
						subfolder: '',
						type,
						url: d.large ? `${sb.urls.files}/files/gen/${sb.config.largeOutputBytes}/${runId}_${filename}` : `${base}/${filename}`,
					};
				}),
			};
		} else if (node.class_type === 'VHS_VideoCombine') {
			const prefix = String(node.inputs.filename_prefix || 'AnimateDiff').replace(/[^A-Za-z0-9_-]/g, '_');
			const filename = `${prefix}_${String(counter++).padStart(5, '0')}.mp4`;
			outputs[id] = {
				gifs: [
					{
						filename,
						subfolder: '',
						type: 'output',
						format: 'video/h264-mp4',
						frame_rate: node.inputs.frame_rate,
						url: d.large ? `${sb.urls.files}/files/gen/${sb.config.largeOutputBytes}/${runId}_${filename}` : `${base}/${filename}`,
					},
				],
			};
		} else if (node.class_type === 'ShowText|pysssss') {
			outputs[id] = { text: [['1girl, solo, outdoors, sky, cloud, tree, scenery, watercolor (medium)']] };
		}
	}
	return outputs;
}

module.exports = { validateGraph, validateOverrides, applyOverrides, buildOutputs };
