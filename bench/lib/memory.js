'use strict';
/**
 * The memory benchmark: peak RSS while the BUILT nodes download large outputs (through the Model node and the
 * shared download path, with and without the size cap) and upload large files to a dataset (from n8n's binary store,
 * and from a URL), inside n8n-core's
 * engine in this process (filesystem binary mode), against the sandbox in its own process.
 */
const crypto = require('crypto');
const fs = require('fs');
const os = require('os');
const path = require('path');

const { runNodeRetrying, runParams } = require('./inprocess');
const { gc, measurePeak, GiB, MiB } = require('./measure');

const LARGE_MODEL = 'runcomfy/test/large-output';

async function createPatternFile(file, bytes) {
	const chunk = crypto.randomBytes(8 * MiB);
	const fd = fs.openSync(file, 'w');
	try {
		let left = bytes;
		while (left > 0) {
			const n = Math.min(left, chunk.length);
			fs.writeSync(fd, chunk, 0, n);
			left -= n;
		}
	} finally {
		fs.closeSync(fd);
	}
}

async function downloadThroughNode(ctx, bytes, maxMb) {
	const { harness, nodes, creds, sb } = ctx;
	await sb.configure({ largeOutputBytes: bytes, runDurationMs: 50, queueMs: 0 });
	let res;
	const m = await measurePeak(async (reset) => {
		res = await runNodeRetrying(harness, {
			node: new nodes.RunComfyModel(),
			credentials: creds,
			parameters: runParams({
				model: { __rl: true, mode: 'id', value: LARGE_MODEL },
				inputsJson: '{"prompt": "large"}',
				waitOptions: { pollIntervalSeconds: 0.1, maxPollIntervalSeconds: 0.2 },
				downloadOutputs: true,
				maxDownloadSizeMb: maxMb,
			}),
			// The measurement starts when the RunComfy node starts (after the engine set the execution up).
			onStart: () => reset(),
		});
	});
	if (res.error) throw new Error(`download run failed: ${res.error.message}`);
	const item = res.items[0];
	let stored = 0;
	let file;
	if (item.binary && item.binary.data) {
		file = res.binaryPath(item);
		stored = fs.statSync(file).size;
		fs.rmSync(file, { force: true });
	}
	const skipped = item.json.skipped_downloads;
	const reason = Array.isArray(skipped) && skipped.length ? String(skipped[0].reason) : undefined;
	return { ...m, stored, bytes, maxBytes: maxMb * MiB, skipped: reason };
}

async function downloadThroughSharedPath(ctx, url, bytes, maxBytes) {
	const { harness, download, creds } = ctx;
	const runtime = await harness.getRuntime();
	let outcome;
	const m = await measurePeak(async (reset) => {
		outcome = await harness.withExecuteContext({ credentials: creds }, async (ectx) => {
			reset();
			return await download.downloadAll(ectx, [{ path: 'output.video', url }], { maxBytes, allowedHosts: ['127.0.0.1'] });
		});
	});
	let stored = 0;
	const file = outcome.downloaded[0] && outcome.downloaded[0].binary.id;
	if (file) {
		const p = runtime.binaryDataService.getPath(file);
		stored = fs.statSync(p).size;
		fs.rmSync(p, { force: true });
	}
	return { ...m, stored, bytes, maxBytes, skipped: outcome.skipped.map((s) => s.reason).join('; ') || undefined };
}

async function createDataset(sb) {
	await sb.configure({ datasetReadyMs: 100 });
	const created = await fetch(`${sb.urls.trainer}/prod/v1/trainers/datasets`, {
		method: 'POST',
		headers: { authorization: `Bearer ${sb.token}`, 'content-type': 'application/json' },
		body: JSON.stringify({ name: `bench-${Date.now()}` }),
	});
	const dataset = await created.json();
	const datasetId = dataset.id || dataset.dataset_id;
	if (!datasetId) throw new Error(`could not create a dataset: ${JSON.stringify(dataset)}`);
	return datasetId;
}

async function receivedBytes(sb, datasetId, fileName) {
	const state = await sb.state();
	const ds = state.datasets.find((d) => d.id === datasetId);
	return ds ? (ds.files.find((f) => f.filename === fileName) || {}).size_bytes : undefined;
}

async function uploadToDataset(ctx, bytes) {
	const { harness, nodes, creds, sb } = ctx;
	const datasetId = await createDataset(sb);
	const file = path.join(os.tmpdir(), `runcomfy-bench-upload-${process.pid}.mp4`);
	await createPatternFile(file, bytes);
	let res;
	try {
		const m = await measurePeak(async (reset) => {
			res = await runNodeRetrying(harness, {
				node: new nodes.RunComfyDataset(),
				credentials: creds,
				// Streamed into n8n's binary store by the preceding node (not measured), as a file read from disk would be.
				inputItems: [{ json: {}, binary: { data: { data: fs.createReadStream(file), fileName: 'clip_0001.mp4', mimeType: 'video/mp4' } } }],
				parameters: {
					resource: 'dataset',
					operation: 'uploadFile',
					dataset: { __rl: true, mode: 'id', value: datasetId },
					binaryPropertyName: 'data',
				},
				onStart: () => reset(),
			});
		});
		if (res.error) throw new Error(`upload failed: ${res.error.message} ${res.error.description || ''}`);
		const received = await receivedBytes(sb, datasetId, 'clip_0001.mp4');
		const out = res.items[0].json;
		return {
			...m,
			bytes,
			received,
			method: out.upload_method || (out.uploads && out.uploads[0] && out.uploads[0].upload_method),
			output: JSON.stringify(out).slice(0, 300),
		};
	} finally {
		fs.rmSync(file, { force: true });
	}
}

/**
 * Upload From URL: the file streams from the sandbox's file host into the dataset's direct upload. A chunked file
 * over 150 MB is stopped at the cap (`capped`), so that row shows the bytes streamed until then.
 */
async function uploadFromUrlToDataset(ctx, url, bytes, capped) {
	const { harness, nodes, creds, sb } = ctx;
	const datasetId = await createDataset(sb);
	let res;
	const m = await measurePeak(async (reset) => {
		res = await runNodeRetrying(harness, {
			node: new nodes.RunComfyDataset(),
			// the sandbox's file host is on loopback, which Upload From URL refuses unless named
			credentials: { ...creds, allowedDownloadHosts: '127.0.0.1' },
			parameters: {
				resource: 'dataset',
				operation: 'uploadFromUrl',
				dataset: { __rl: true, mode: 'id', value: datasetId },
				url,
			},
			onStart: () => reset(),
		});
	});
	const fileName = url.split('/').pop();
	if (capped) {
		if (!res.error) throw new Error(`the chunked upload over the cap was not stopped: ${JSON.stringify(res.items[0].json).slice(0, 300)}`);
		return { ...m, bytes, received: await receivedBytes(sb, datasetId, fileName), stopped: res.error.message.replace(` at ${url}`, '') };
	}
	if (res.error) throw new Error(`upload from URL failed: ${res.error.message} ${res.error.description || ''}`);
	return { ...m, bytes, received: await receivedBytes(sb, datasetId, fileName), method: res.items[0].json.upload_method };
}

async function memory(ctx, { log, sizes }) {
	const { sb } = ctx;
	await sb.reset({});
	const out = {};
	// One small download first, so one-time costs (code paths compiled, buffers pooled) land on no row.
	await downloadThroughNode(ctx, 16 * MiB, 2048);
	out.nodeSmall = [];
	for (const bytes of sizes.downloadNode) {
		log(`  memory: ${bytes / MiB} MiB output through the Model node`);
		out.nodeSmall.push(await downloadThroughNode(ctx, bytes, 2048));
		gc();
	}
	log('  memory: 1 GiB output through the Model node');
	out.node1g = await downloadThroughNode(ctx, sizes.download1, 2048);
	gc();
	log('  memory: 4 GiB output through the Model node (2 GiB cap)');
	out.node4gCapped = await downloadThroughNode(ctx, sizes.download4, 2048);
	gc();
	log('  memory: 4 GiB through the shared download path, cap raised');
	out.shared4g = await downloadThroughSharedPath(
		ctx,
		`${sb.urls.files}/files/gen/${sizes.download4}/large_4g.mp4`,
		sizes.download4,
		sizes.download4 + GiB,
	);
	gc();
	log('  memory: 4 GiB chunked (no Content-Length) through the shared path with the 2 GiB cap');
	out.chunkedCap = await downloadThroughSharedPath(
		ctx,
		`${sb.urls.files}/files/chunked/${sizes.download4}/large_chunked.mp4`,
		sizes.download4,
		2 * GiB,
	);
	gc();
	log('  memory: upload to a dataset (signed URL)');
	out.upload = await uploadToDataset(ctx, sizes.upload);
	gc();
	log('  memory: upload from a URL to a dataset (Content-Length)');
	out.uploadFromUrl = await uploadFromUrlToDataset(
		ctx,
		`${sb.urls.files}/files/gen/${sizes.uploadFromUrl}/clip_0002.mp4`,
		sizes.uploadFromUrl,
		false,
	);
	gc();
	log('  memory: upload from a URL, chunked, stopped at the 150 MB cap');
	out.uploadFromUrlCapped = await uploadFromUrlToDataset(
		ctx,
		`${sb.urls.files}/files/chunked/${GiB}/clip_0003.mp4`,
		150 * 1000 * 1000,
		true,
	);
	gc();
	return out;
}

module.exports = { memory };
