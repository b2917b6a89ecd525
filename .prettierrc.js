/**
 * Prettier: the n8n community-node starter's settings (@n8n/node-cli's template), with the print width this
 * project was written at. `npm run format` rewrites, `npm run format:check` (CI, release:check) only checks.
 */
module.exports = {
	semi: true,
	trailingComma: 'all',
	bracketSpacing: true,
	useTabs: true,
	tabWidth: 2,
	arrowParens: 'always',
	singleQuote: true,
	quoteProps: 'as-needed',
	endOfLine: 'lf',
	printWidth: 140,
};
