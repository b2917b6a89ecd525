#!/usr/bin/env node
'use strict';
/**
 * `npm run sandbox -- [flags]`: starts the sandbox and prints the base URLs and the token.
 * Serves until SIGINT/SIGTERM.
 */
const fs = require('fs');
const { startSandbox, parseQuirkList } = require('./index');

const HELP = `Usage: npm run sandbox -- [flags]

  --port-base <n>             modelApi=n, serverless=n+1, trainer=n+2, files=n+3 (default: free ports)
  --token <t>                 bearer token (default sandbox-token-0123456789)
  --quirks=<list>             comma list: live, bareDeploymentList, !wrappedDatasetList, inferencePaths=v2,
                              deploymentCancelRequested, resultSaysCompleted, americanCanceled, errorsAsHttp200,
                              statusSaysFailed, resultNotReady400, patchRequiresName, emptyInferenceBodyRunsDefaults
  --run-ms <n>                mean in_progress time of runs, ms (default 2000)
  --queue-ms <n>              time every run spends in_queue before it may start, ms (default 300)
  --queue-share <f>           share of each run's time spent in_queue with queue_position, instead of
                              --queue-ms (0 to 0.95; e.g. 0.4, as on the live service)
  --spread <f>                run times vary by up to ±f of their mean, bell-shaped (default 0.2 here;
                              0 = exact; startSandbox() defaults to 0)
  --seed <n>                  seed of the run-time draws and webhook chaos (default 1)
  --catalog-means             use each model's/deployment's typical run time from the fixtures as its mean
  --mean-scale <f>            factor on those catalog means (default 1; e.g. 0.01 for quick runs)
  --capacity <n>              concurrent runs per model and per deployment; more wait in_queue, FIFO,
                              with queue_position (default unlimited)
  --workers <n>               concurrent runs of all models together, and per deployment (default unlimited)
  --webhook-timeout-ms <n>    reply timeout of webhook deliveries (default 10000)
  --webhook-attempts <n>      attempts per webhook event, the first included (default 5)
  --webhook-base-ms <n>       delay before the first retry; doubles each retry (default 1000)
  --webhook-duplicates <f>    fraction of delivered events sent twice (default 0)
  --webhook-out-of-order <f>  fraction of events held back behind the next one (default 0)
  --webhook-allow-hosts <l>   comma list of non-loopback host names webhooks may go to (default none)
  --webhooks=<json>           any SandboxWebhooks settings, e.g. '{"enabled":false}'
  --training-step-ms <n>      ms per training step (default 10)
  --training-load-ms <n>      ms a training job runs at its first step, loading (default 0)
  --training-save-ms <n>      ms a training job runs with every step done, saving (default 0)
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
		const takesValue = !['json', 'help', 'catalog-means'].includes(arg);
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
	// Realistic by default when started by hand or by the benchmark: run times spread ±20 % around their mean.
	const config = { spread: 0.2 };
	const webhooks = {};
	if (a['port-base']) config.portBase = num(a['port-base'], 'port-base');
	if (a.token) config.token = a.token;
	if (a.quirks) config.quirks = parseQuirkList(a.quirks);
	if (a['run-ms']) config.runDurationMs = num(a['run-ms'], 'run-ms');
	if (a['queue-ms']) config.queueMs = num(a['queue-ms'], 'queue-ms');
	if (a['queue-share'] !== undefined) config.queueShare = num(a['queue-share'], 'queue-share');
	if (a.spread !== undefined) config.spread = num(a.spread, 'spread');
	if (a.seed !== undefined) config.seed = num(a.seed, 'seed');
	if (a['catalog-means']) config.catalogMeans = true;
	if (a['mean-scale'] !== undefined) config.meanScale = num(a['mean-scale'], 'mean-scale');
	if (a.capacity) config.capacity = num(a.capacity, 'capacity');
	if (a.workers) config.workers = num(a.workers, 'workers');
	if (a['webhook-timeout-ms']) webhooks.timeoutMs = num(a['webhook-timeout-ms'], 'webhook-timeout-ms');
	if (a['webhook-attempts']) webhooks.maxAttempts = num(a['webhook-attempts'], 'webhook-attempts');
	if (a['webhook-base-ms'] !== undefined) webhooks.baseDelayMs = num(a['webhook-base-ms'], 'webhook-base-ms');
	if (a['webhook-duplicates'] !== undefined) webhooks.duplicateRate = num(a['webhook-duplicates'], 'webhook-duplicates');
	if (a['webhook-out-of-order'] !== undefined) webhooks.outOfOrderRate = num(a['webhook-out-of-order'], 'webhook-out-of-order');
	if (a['webhook-allow-hosts'])
		webhooks.allowedHosts = a['webhook-allow-hosts']
			.split(',')
			.map((h) => h.trim())
			.filter(Boolean);
	if (a.webhooks) Object.assign(webhooks, JSON.parse(a.webhooks));
	if (Object.keys(webhooks).length) config.webhooks = webhooks;
	if (a['training-step-ms']) config.trainingStepMs = num(a['training-step-ms'], 'training-step-ms');
	if (a['training-load-ms']) config.trainingLoadMs = num(a['training-load-ms'], 'training-load-ms');
	if (a['training-save-ms']) config.trainingSaveMs = num(a['training-save-ms'], 'training-save-ms');
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
