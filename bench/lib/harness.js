'use strict';
/**
 * Loads the in-process engine harness (test/helpers/engine.ts: n8n-core's WorkflowExecute, the isolated-vm
 * expression engine, the binary data service in filesystem mode) without a TypeScript runtime: the harness
 * files are transpiled (ts.transpileModule, no type check) into node_modules/.cache/runcomfy-bench/, and every
 * import of the package's own code (credentials/, nodes/) is pointed at the BUILT package in dist/. So the
 * benchmark runs exactly the JavaScript that n8n loads, inside the same engine code the tests use, and the
 * harness exists once (no JavaScript copy to keep in sync).
 */
const crypto = require('crypto');
const fs = require('fs');
const path = require('path');

const ROOT = path.resolve(__dirname, '..', '..');
// One cache per checkout: node_modules may be shared by several (a symlink), and the transpiled files point at
// this checkout's dist/.
const CACHE = path.join(
	ROOT,
	'node_modules',
	'.cache',
	'runcomfy-bench',
	crypto.createHash('sha1').update(ROOT).digest('hex').slice(0, 12),
);
const ENTRY = path.join(ROOT, 'test', 'helpers', 'engine.ts');
const PACKAGE_DIRS = ['credentials', 'nodes'];

function transpileTree(ts, entry) {
	const done = new Set();
	const queue = [entry];
	while (queue.length) {
		const file = queue.shift();
		if (done.has(file)) continue;
		done.add(file);
		const source = fs.readFileSync(file, 'utf8');
		const out = ts.transpileModule(source, {
			fileName: file,
			compilerOptions: {
				module: ts.ModuleKind.CommonJS,
				target: ts.ScriptTarget.ES2022,
				esModuleInterop: true,
				useUnknownInCatchVariables: false,
				sourceMap: false,
			},
		}).outputText;
		const rel = path.relative(ROOT, file).replace(/\.ts$/, '.js');
		const target = path.join(CACHE, rel);
		fs.mkdirSync(path.dirname(target), { recursive: true });
		// Relative imports: the package's own code comes from dist/, harness files are transpiled too.
		const rewritten = out.replace(/require\("(\.{1,2}\/[^"]+)"\)/g, (match, spec) => {
			const abs = path.resolve(path.dirname(file), spec);
			const relToRoot = path.relative(ROOT, abs);
			const top = relToRoot.split(path.sep)[0];
			if (PACKAGE_DIRS.includes(top)) {
				const built = path.join(ROOT, 'dist', `${relToRoot}.js`);
				if (!fs.existsSync(built)) throw new Error(`The harness imports ${relToRoot}, which dist/ lacks: run npm run build`);
				return `require(${JSON.stringify(built)})`;
			}
			const ts = `${abs}.ts`;
			if (fs.existsSync(ts)) queue.push(ts);
			return match;
		});
		fs.writeFileSync(target, rewritten);
	}
	return path.join(CACHE, path.relative(ROOT, entry).replace(/\.ts$/, '.js'));
}

/**
 * Returns the harness module (runNode, withExecuteContext, listSearch, getRuntime, disposeEngine, ...) and
 * the built node classes.
 */
function loadHarness() {
	const ts = require(require.resolve('typescript', { paths: [ROOT] }));
	fs.rmSync(CACHE, { recursive: true, force: true });
	const engineJs = transpileTree(ts, ENTRY);
	const harness = require(engineJs);
	const dist = (p) => require(path.join(ROOT, 'dist', p));
	return {
		harness,
		nodes: {
			RunComfyModel: dist('nodes/RunComfyModel/RunComfyModel.node.js').RunComfyModel,
			RunComfyDataset: dist('nodes/RunComfyDataset/RunComfyDataset.node.js').RunComfyDataset,
		},
		download: dist('nodes/shared/download/index.js'),
	};
}

module.exports = { loadHarness };
