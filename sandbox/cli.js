#!/usr/bin/env node
'use strict';
/**
 * `npm run sandbox -- [flags]`: starts the sandbox and prints the base URLs and the token.
 * Serves until SIGINT/SIGTERM.
 */
const fs = require('fs');
const { startSandbox, parseQuirkList } = require('./index');

const HELP = `Usage: npm run sandbox -- [flags]

  --host <ip>                 interface to bind (default 127.0.0.1)
  --advertise-host <name>     host name used in the printed/returned URLs (default: --host)
  --foreign-host <name>       host name of the foreign file URLs (default localhost)
  --port-base <n>             modelApi=n, serverless=n+1, trainer=n+2, files=n+3 (default: free ports)
  --token <t>                 bearer token (default sandbox-token-0123456789)
  --quirks=<list>             comma list: live, bareDeploymentList, !wrappedDatasetList, inferencePaths=v2,
                              deploymentCancelRequested, resultSaysCompleted, americanCanceled, errorsAsHttp200,
                              statusSaysFailed, resultNotReady400, patchRequiresName, emptyInferenceBodyRunsDefaults
  --run-ms <n>                in_progress duration of runs (default 2000)
  --queue-ms <n>              in_queue duration (default 300)
  --workers <n>               concurrent runs per pool (default unlimited)
  --training-step-ms <n>      ms per training step (default 10)
  --dataset-ready-ms <n>      ms from last upload to READY (default 300)
  --wallet <microdollars>     starting balance (default 5000000)
  --large-bytes <n>           size of large outputs (default 3 GiB)
  --extra-models <n>          generated catalog models on top of the curated ones
  --faults=<json>             SandboxFaults, e.g. '{"rate5xx":0.1,"seed":7}'
  --config=<json|@file>       any SandboxConfig (merged last)
  --json                      print one JSON line instead of text
  --help
`;

function parseArgs(argv) {
	const opts = {};
	for (let i = 0; i < argv.length; i++) {
		let arg = argv[i];
		let value;
		if (!arg.startsWith('--')) throw new Error(`unexpected argument '${arg}'`);
		arg = arg.slice(2);
		const eq = arg.indexOf('=');
		if (eq >= 0) {
			value = arg.slice(eq + 1);
			arg = arg.slice(0, eq);
		}
		const takesValue = !['json', 'help'].includes(arg);
		if (takesValue && value === undefined) {
			value = argv[++i];
			if (value === undefined) throw new Error(`--${arg} needs a value`);
		}
		opts[arg] = takesValue ? value : true;
	}
	return opts;
}

function num(v, name) {
	const n = Number(v);
	if (!Number.isFinite(n) || n < 0) throw new Error(`--${name} must be a non-negative number`);
	return n;
}

async function main() {
	const a = parseArgs(process.argv.slice(2));
	if (a.help) {
		process.stdout.write(HELP);
		return;
	}
	const config = {};
	if (a.host) config.host = a.host;
	if (a['advertise-host']) config.advertiseHost = a['advertise-host'];
	if (a['foreign-host']) config.foreignHost = a['foreign-host'];
	if (a['port-base']) config.portBase = num(a['port-base'], 'port-base');
	if (a.token) config.token = a.token;
	if (a.quirks) config.quirks = parseQuirkList(a.quirks);
	if (a['run-ms']) config.runDurationMs = num(a['run-ms'], 'run-ms');
	if (a['queue-ms']) config.queueMs = num(a['queue-ms'], 'queue-ms');
	if (a.workers) config.workers = num(a.workers, 'workers');
	if (a['training-step-ms']) config.trainingStepMs = num(a['training-step-ms'], 'training-step-ms');
	if (a['dataset-ready-ms']) config.datasetReadyMs = num(a['dataset-ready-ms'], 'dataset-ready-ms');
	if (a.wallet) config.walletMicrodollars = num(a.wallet, 'wallet');
	if (a['large-bytes']) config.largeOutputBytes = num(a['large-bytes'], 'large-bytes');
	if (a['extra-models']) config.extraModels = num(a['extra-models'], 'extra-models');
	if (a.faults) config.faults = JSON.parse(a.faults);
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
