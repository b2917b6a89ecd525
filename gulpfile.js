// The build's asset step: tsc compiles the code, gulp copies what tsc does not emit (icons and codex files)
// into dist/ with the same relative paths, so `file:` icon references resolve in the published package.
const { src, dest, parallel } = require('gulp');

function copyIcons() {
	return src(['icons/**/*.{svg,png}', 'nodes/**/*.{svg,png}', 'credentials/**/*.{svg,png}'], {
		base: '.',
		encoding: false,
	}).pipe(dest('dist'));
}

function copyCodex() {
	return src('nodes/**/*.node.json', { base: '.' }).pipe(dest('dist'));
}

exports['build:icons'] = parallel(copyIcons, copyCodex);
exports.default = exports['build:icons'];
