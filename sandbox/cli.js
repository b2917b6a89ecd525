#!/usr/bin/env node
'use strict';
/**
 * `npm run sandbox -- [flags]`: starts the sandbox and prints the base URLs and the token.
 * Serves until SIGINT/SIGTERM.
 */
const fs = require('fs');
const { startSandbox, parseQuirkList } = require('./index');

const HELP = `Usage: npm run sandbox -- [flags]

  --quirks=<list>        comma list: live, bareDeploymentList, !wrappedDatasetList, inferencePaths=v2,
                         deploymentCancelRequested, resultSaysCompleted, americanCanceled, errorsAsHttp200,
                         statusSaysFailed, resultNotReady400, patchRequiresName
  --config=<json|@file>  any SandboxConfig (sandbox/index.d.ts), merged last, e.g. '{"runDurationMs":500,"portBase":18000}';
                         run times spread ±20 % here unless it sets "spread"
  --json                 print one JSON line instead of text
  --help
`;

const FLAGS = { quirks: true, config: true, json: false, help: false };

function parseArgs(argv) {
	const opts = {};
	for (let i = 0; i < argv.length; i++) {
		const [, name, inline] = /^--([^=]+)(?:=(.*))?$/s.exec(argv[i]) || [];
		if (!name || !(name in FLAGS)) throw new Error(`unknown argument '${argv[i]}' (--help lists the flags)`);
		let value = inline;
		if (FLAGS[name] && value === undefined) {
			value = argv[++i];
			if (value === undefined) throw new Error(`--${name} needs a value`);
		}
		opts[name] = FLAGS[name] ? value : true;
	}
	return opts;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	if (a.help) {
		process.stdout.write(HELP);
		return;
	}
	// Realistic by default when started by hand or by the benchmark: run times spread ±20 % around their mean.
	const config = { spread: 0.2 };
	if (a.quirks) config.quirks = parseQuirkList(a.quirks);
	if (a.config) {
		const text = a.config.startsWith('@') ? fs.readFileSync(a.config.slice(1), 'utf8') : a.config;
		Object.assign(config, JSON.parse(text));
	}
	const sb = await startSandbox(config);
	const info = { urls: sb.urls, token: sb.token, control: `${sb.urls.modelApi}/__sandbox/`, stable: sb.stable };
	if (a.json) {
		process.stdout.write(`${JSON.stringify(info)}\n`);
	} else {
		process.stdout.write(
			[
				'RunComfy sandbox is running',
				`  Model API base URL:       ${sb.urls.modelApi}`,
				`  Serverless API base URL:  ${sb.urls.serverless}`,
				`  Trainer API base URL:     ${sb.urls.trainer}`,
				`  File host (allowed):      ${sb.urls.files}`,
				`  File host (foreign):      ${sb.urls.foreignFiles}`,
				`  Token:                    ${sb.token}`,
				`  Control API:              ${info.control}{log,config,reset,state,info}`,
				'',
				`JSON: ${JSON.stringify({ urls: sb.urls, token: sb.token })}`,
				'Ctrl-C to stop.',
				'',
			].join('\n'),
		);
	}
	const stop = async () => {
		await sb.close();
		process.exit(0);
	};
	process.on('SIGINT', stop);
	process.on('SIGTERM', stop);
}

main().catch((err) => {
	process.stderr.write(`sandbox: ${err.message}\n`);
	process.exit(64);
});
