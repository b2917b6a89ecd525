'use strict';
/**
 * ComfyUI API-format graphs (node id -> {class_type, inputs, _meta}) of the seeded deployments, read from
 * fixtures/workflows.json. Each call returns a fresh copy (deployments edit theirs).
 */
const GRAPHS = require('./fixtures/workflows.json');

const graph = (name) => {
	if (!GRAPHS[name]) throw new Error(`sandbox: no workflow '${name}' in fixtures/workflows.json`);
	return JSON.parse(JSON.stringify(GRAPHS[name]));
};

/** Inputs that take a file (URL or data: URI) by node class. */
const FILE_INPUTS = {
	LoadImage: ['image'],
	LoadImageMask: ['image'],
	VHS_LoadVideo: ['video'],
	LoadVideo: ['file'],
	LoadAudio: ['audio'],
};

module.exports = { graph, FILE_INPUTS };
