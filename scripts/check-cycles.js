#!/usr/bin/env node
'use strict';
/**
 * `node scripts/check-cycles.js [dir]`: fails when the TypeScript modules under `dir` (default: nodes/) import
 * each other in a cycle. Reads every `import … from '…'` and `export … from '…'` with a relative path,
 * `import type` included (a type-level cycle still ties the modules together), and prints each cycle found as
 * `a.ts → b.ts → a.ts`. Exit status 1 when there is one. No dependency: a small parser of the import lines.
 */
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..');

function tsFiles(dir) {
	const out = [];
	for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
		const full = path.join(dir, entry.name);
		if (entry.isDirectory()) out.push(...tsFiles(full));
		else if (entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts')) out.push(full);
	}
	return out;
}

/** The relative module paths a file imports or re-exports (`import`, `import type`, `export … from`). */
function specifiersOf(source) {
	const found = [];
	const re = /(?:^|[\s;])(?:import|export)\s+(?:type\s+)?(?:[\w*${}\s,]+?\s+from\s+)?['"](\.{1,2}\/[^'"]*|\.{1,2})['"]/g;
	for (const m of source.matchAll(re)) found.push(m[1]);
	return found;
}

function resolve(fromFile, spec) {
	const base = path.resolve(path.dirname(fromFile), spec);
	for (const candidate of [`${base}.ts`, path.join(base, 'index.ts')]) {
		if (fs.existsSync(candidate)) return candidate;
	}
	return undefined;
}

/** The import graph of the .ts files under `dir`: file → files it imports (under `dir` only). */
function graphOf(dir) {
	const files = tsFiles(dir);
	const inside = new Set(files);
	const graph = new Map();
	for (const file of files) {
		const targets = specifiersOf(fs.readFileSync(file, 'utf8'))
			.map((spec) => resolve(file, spec))
			.filter((target) => target !== undefined && inside.has(target));
		graph.set(file, [...new Set(targets)].sort());
	}
	return graph;
}

/** The strongly connected components of the graph with more than one file, or one file importing itself (Tarjan). */
function tangles(graph) {
	let counter = 0;
	const index = new Map();
	const low = new Map();
	const stack = [];
	const onStack = new Set();
	const found = [];
	const visit = (node) => {
		index.set(node, counter);
		low.set(node, counter);
		counter++;
		stack.push(node);
		onStack.add(node);
		for (const next of graph.get(node) ?? []) {
			if (!index.has(next)) {
				visit(next);
				low.set(node, Math.min(low.get(node), low.get(next)));
			} else if (onStack.has(next)) low.set(node, Math.min(low.get(node), index.get(next)));
		}
		if (low.get(node) !== index.get(node)) return;
		const component = [];
		let member;
		do {
			member = stack.pop();
			onStack.delete(member);
			component.push(member);
		} while (member !== node);
		if (component.length > 1 || (graph.get(node) ?? []).includes(node)) found.push(new Set(component));
	};
	for (const node of [...graph.keys()].sort()) if (!index.has(node)) visit(node);
	return found;
}

/**
 * The elementary cycles, each once (at most `limit` of them): only inside the tangles, by a depth-first search
 * from each file through the files sorted after it. Without a tangle there is nothing to search.
 */
function cyclesOf(graph, limit = 100) {
	const cycles = [];
	for (const component of tangles(graph)) {
		const files = [...component].sort();
		for (const start of files) {
			const stack = [start];
			const onStack = new Set([start]);
			const walk = (node) => {
				for (const next of graph.get(node) ?? []) {
					if (cycles.length >= limit) return;
					if (!component.has(next)) continue;
					if (next === start) cycles.push([...stack, start]);
					else if (!onStack.has(next) && next > start) {
						stack.push(next);
						onStack.add(next);
						walk(next);
						stack.pop();
						onStack.delete(next);
					}
				}
			};
			walk(start);
		}
	}
	return cycles;
}

function main() {
	const dir = path.resolve(process.argv[2] ?? path.join(ROOT, 'nodes'));
	const graph = graphOf(dir);
	const cycles = cyclesOf(graph);
	const rel = (file) => path.relative(dir, file);
	if (cycles.length === 0) {
		console.log(`[check-cycles] no import cycle in ${path.relative(ROOT, dir) || '.'} (${graph.size} files)`);
		return;
	}
	console.error(`[check-cycles] ${cycles.length} import cycle(s) in ${path.relative(ROOT, dir) || dir}:`);
	for (const cycle of cycles) console.error(`  ${cycle.map(rel).join(' → ')}`);
	process.exitCode = 1;
}

if (require.main === module) main();

module.exports = { graphOf };
