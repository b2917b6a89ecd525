'use strict';
/** The memory section of BENCHMARKS.md (bench/lib/report.js): peak RSS growth against the size of the file moved. */
const { fmtS, fmtBytes, pct, MiB } = require('./measure');

function memRow(label, m, size, note) {
	return [label, fmtBytes(size), `${(m.growth / MiB).toFixed(0)} MiB`, pct(m.growth, size), fmtS(m.ms), note];
}

/** `table` is the report's Markdown table writer. */
function memorySection(m, table) {
	const result = (x, fallback) =>
		x.stored ? `stored ${fmtBytes(x.stored)} on disk` : x.skipped ? `not kept: ${x.skipped.split(';')[0]}` : fallback;
	const rows = [
		...(m.nodeSmall || []).map((x) =>
			memRow('Model node downloads its output (Max Download Size 2048 MB)', x, x.bytes, result(x, 'nothing stored')),
		),
		memRow('Model node downloads its output (Max Download Size 2048 MB)', m.node1g, m.node1g.bytes, result(m.node1g, 'nothing stored')),
		memRow(
			`Model node, ${fmtBytes(m.node4gCapped.bytes)} output (Max Download Size 2048 MB)`,
			m.node4gCapped,
			m.node4gCapped.bytes,
			result(m.node4gCapped, 'nothing stored'),
		),
		memRow(
			`Shared download path, cap ${fmtBytes(m.shared4g.maxBytes)}`,
			m.shared4g,
			m.shared4g.bytes,
			result(m.shared4g, 'nothing stored'),
		),
		memRow(
			`Shared download path, chunked (no Content-Length), cap ${fmtBytes(m.chunkedCap.maxBytes)}`,
			m.chunkedCap,
			Math.min(m.chunkedCap.bytes, m.chunkedCap.maxBytes),
			result(m.chunkedCap, 'nothing stored'),
		),
		memRow(
			'Dataset node uploads a file (signed URL, streamed from the binary store)',
			m.upload,
			m.upload.bytes,
			`${m.upload.method || '?'} upload; the sandbox received ${m.upload.received === undefined ? '?' : `${m.upload.received} bytes`}`,
		),
		...(m.uploadFromUrl
			? [
					memRow(
						'Dataset node uploads from a URL (Content-Length; streamed from the file host to the upload)',
						m.uploadFromUrl,
						m.uploadFromUrl.bytes,
						`${m.uploadFromUrl.method || '?'} upload; the sandbox received ${m.uploadFromUrl.received === undefined ? '?' : `${m.uploadFromUrl.received} bytes`}`,
					),
					memRow(
						'Dataset node uploads from a URL, chunked (no Content-Length), over the 150 MB cap',
						m.uploadFromUrlCapped,
						m.uploadFromUrlCapped.bytes,
						`not kept: ${m.uploadFromUrlCapped.stopped}${m.uploadFromUrlCapped.received ? ` (yet the sandbox kept ${m.uploadFromUrlCapped.received} bytes)` : ''}`,
					),
				]
			: []),
	];
	return [
		'## Memory (n8n binary data mode: filesystem)',
		'',
		"Peak resident memory (RSS) of the process running the engine, above its level when the node started: the kernel's " +
			'peak counter (VmHWM, reset through /proc/self/clear_refs when the node starts) minus the RSS at that moment. ' +
			"The file streams between the sandbox (its own process) and n8n's filesystem binary store. The Model node caps " +
			'downloads at 2 GiB (Max Download Size), so the 4 GiB output is measured twice: through the node (refused at the cap) ' +
			'and through the same download code the node uses (nodes/shared/download, `downloadAll`) with the cap raised, inside a ' +
			"real execution context. A 16 MiB download runs first and is not reported (one-time costs). In the chunked cases the size is only known while streaming, so the cap stops the transfer mid-way; the File column shows the bytes streamed until then. Upload From URL streams the file from the sandbox's file host into the dataset's direct upload (150 MB at most).",
		'',
		table(['Case', 'File', 'Peak RSS growth', 'Growth ÷ file', 'Time', 'Result'], rows),
	].join('\n');
}

module.exports = { memorySection };
