'use strict';
/**
 * The sandbox: a local stand-in of the whole RunComfy service on loopback (see index.d.ts and README.md).
 * Imports nothing from nodes/ or credentials/.
 */
const crypto = require('crypto');
const { Router, createServer, listen } = require('./server');
const { RequestLog } = require('./log');
const { FaultInjector, mulberry32 } = require('./faults');
const { buildCatalog, STABLE_MODELS } = require('./catalog');
const { runState, touch } = require('./runs');
const { bellFraction, resetDraws } = require('./timing');
const { Webhooks } = require('./webhooks');
const { WEBHOOK_DEFAULTS } = require('./webhook-delivery');
const modelApi = require('./model-api');
const deployments = require('./deployments');
const inference = require('./inference');
const datasets = require('./datasets');
const training = require('./training');
const filesHost = require('./files-host');

const DEFAULT_TOKEN = 'sandbox-token-0123456789';
/** Every family listens on loopback only; the file host treats this name as allowed and `localhost` as foreign. */
const HOST = '127.0.0.1';

const DEFAULTS = {
	token: DEFAULT_TOKEN,
	walletMicrodollars: 5_000_000,
	runDurationMs: 2000,
	queueMs: 300,
	spread: 0,
	seed: 1,
	drawsPerTarget: false,
	capacity: 0,
	capacities: {},
	workers: 0,
	modelDurations: {},
	queueShare: undefined,
	queueShares: {},
	trainingStepMs: 10,
	trainingLoadMs: 0,
	trainingQueueMs: undefined,
	datasetReadyMs: 300,
	largeOutputBytes: 3 * 1024 ** 3,
	failingModels: {},
	extraModels: 0,
	deploymentPriceMicrodollars: 20_000,
	cancelDelayMs: 100,
	signedUrlTtlMs: 15 * 60 * 1000,
	httpsOutputUrls: false,
	quirks: {
		bareDeploymentList: false,
		wrappedDatasetList: true,
		inferencePaths: 'both',
		deploymentCancelRequested: false,
		resultSaysCompleted: false,
		americanCanceled: false,
		errorsAsHttp200: false,
		statusSaysFailed: false,
		resultNotReady400: false,
		patchRequiresName: false,
	},
	faults: {},
	webhooks: { ...WEBHOOK_DEFAULTS },
};

const MERGED_KEYS = ['quirks', 'faults', 'modelDurations', 'queueShares', 'failingModels', 'capacities', 'webhooks'];

function mergeConfig(base, patch) {
	const out = { ...base };
	for (const [k, v] of Object.entries(patch || {})) {
		if (v === undefined) continue;
		if (MERGED_KEYS.includes(k) && v && typeof v === 'object') out[k] = { ...(base[k] || {}), ...v };
		else out[k] = v;
	}
	return out;
}

/** Parses a `--quirks=a,b,!c` style list into a quirks object (used by the CLI). */
function parseQuirkList(list) {
	const quirks = {};
	for (const raw of String(list || '')
		.split(',')
		.map((s) => s.trim())
		.filter(Boolean)) {
		if (raw === 'live') {
			Object.assign(quirks, LIVE_QUIRKS);
			continue;
		}
		const [name, value] = raw.replace(/^!/, '').split('=');
		if (value !== undefined) quirks[name] = value === 'true' ? true : value === 'false' ? false : value;
		else quirks[name] = !raw.startsWith('!');
	}
	return quirks;
}

/** The quirks that make the sandbox behave like the live service where it differs from the contract. */
const LIVE_QUIRKS = {
	bareDeploymentList: true,
	wrappedDatasetList: true,
	inferencePaths: 'both',
	deploymentCancelRequested: true,
	americanCanceled: false,
	patchRequiresName: true,
};

async function startSandbox(options = {}) {
	const { portBase, ...config } = options;
	const initial = mergeConfig(DEFAULTS, config);
	const sb = {
		host: HOST,
		urls: null,
		log: new RequestLog(),
		faults: new FaultInjector(),
		secret: crypto.randomBytes(32),
		router: new Router([
			...modelApi.routes,
			...deployments.routes,
			...inference.routes,
			...datasets.routes,
			...training.routes,
			...filesHost.routes,
		]),
		stable: null,
	};
	sb.webhooks = new Webhooks(sb);

	function init(cfg) {
		sb.config = cfg;
		sb.token = cfg.token || DEFAULT_TOKEN;
		sb.wallet = Math.round(cfg.walletMicrodollars);
		sb.catalog = buildCatalog(cfg.extraModels);
		sb.faults.configure(cfg.faults);
		resetDraws(sb);
		sb.runs = new Map();
		sb.scheduleVersion = 1;
		sb.scheduleCache = { version: 0, entries: null };
		sb.webhooks.clear();
		sb.datasets = new Map();
		sb.jobs = new Map();
		sb.uploadsInFlight = 0;
		deployments.seedDeployments(sb);
	}

	sb.publicConfig = () => JSON.parse(JSON.stringify({ ...sb.config, walletMicrodollars: sb.wallet }));

	const api = {
		get urls() {
			return sb.urls;
		},
		get token() {
			return sb.token;
		},
		get stable() {
			return sb.stable;
		},
		configure(patch = {}) {
			const prevExtra = sb.config.extraModels;
			sb.config = mergeConfig(sb.config, patch);
			if (patch.token) sb.token = patch.token;
			if (patch.walletMicrodollars !== undefined) sb.wallet = Math.round(patch.walletMicrodollars);
			if (patch.faults) sb.faults.configure(sb.config.faults);
			if (patch.extraModels !== undefined && patch.extraModels !== prevExtra) sb.catalog = buildCatalog(sb.config.extraModels);
			if (patch.seed !== undefined) {
				resetDraws(sb);
				sb.webhooks.sender.reseed(sb.config.seed);
			}
			touch(sb);
		},
		reset(patch) {
			init(mergeConfig(initial, patch || {}));
			sb.log.clear();
		},
		log(sinceSeq) {
			return sb.log.list(sinceSeq);
		},
		clearLog() {
			sb.log.clear();
		},
		state() {
			const now = Date.now();
			return {
				walletMicrodollars: sb.wallet,
				runs: [...sb.runs.values()]
					.filter((r) => !r.deleted)
					.map((r) => {
						const st = runState(sb, r, now);
						return {
							id: r.id,
							kind: r.kind,
							target: r.target,
							status: st.status,
							failed: st.status === 'completed' && !!r.failure,
							body: r.body,
							chargedMicrodollars: r.chargedMicro,
							createdAt: r.createdAt,
							startedAt: st.startedAt,
							finishedAt: st.finishedAt,
							meanMs: r.meanMs,
							durationMs: r.durationMs,
							...(r.webhook ? { webhook: r.webhook } : {}),
						};
					}),
				datasets: [...sb.datasets.values()].map((d) => datasets.snapshot(sb, d, now)),
				jobs: [...sb.jobs.values()].map((j) => training.snapshot(sb, j, now)),
				deployments: [...sb.deployments.values()].map((d) => ({ id: d.id, name: d.name, is_enabled: d.is_enabled })),
			};
		},
		async close() {
			sb.webhooks.close();
			await Promise.all(
				sb.servers.map(
					(s) =>
						new Promise((resolve) => {
							s.close(() => resolve());
							s.closeAllConnections();
						}),
				),
			);
		},
	};
	sb.api = api;
	init(initial);

	const families = ['modelApi', 'serverless', 'trainer', 'files'];
	const familyApi = { modelApi: 'model', serverless: 'serverless', trainer: 'trainer', files: 'files' };
	sb.servers = [];
	const bound = {};
	try {
		for (let i = 0; i < families.length; i++) {
			const f = families[i];
			const server = createServer(sb, familyApi[f]);
			sb.servers.push(server);
			bound[f] = await listen(server, HOST, portBase ? portBase + i : 0);
		}
		// The foreign host name (localhost) may resolve to ::1: serve the files there too when possible.
		const v6 = createServer(sb, 'files');
		try {
			await listen(v6, '::1', bound.files);
			sb.servers.push(v6);
		} catch {
			/* no IPv6 loopback: localhost resolves to 127.0.0.1 anyway */
		}
	} catch (err) {
		await api.close();
		throw err;
	}
	const at = (p, h = HOST) => `http://${h}:${p}`;
	sb.urls = {
		modelApi: at(bound.modelApi),
		serverless: at(bound.serverless),
		trainer: at(bound.trainer),
		files: at(bound.files),
		foreignFiles: at(bound.files, 'localhost'),
	};
	sb.stable = { models: STABLE_MODELS, deployments: deployments.STABLE_DEPLOYMENTS };
	return api;
}

module.exports = {
	startSandbox,
	LIVE_QUIRKS,
	parseQuirkList,
	STABLE_MODELS,
	STABLE_DEPLOYMENTS: deployments.STABLE_DEPLOYMENTS,
	// The sandbox's seeded randomness, for tests and the benchmark that need the same draws (one copy).
	mulberry32,
	bellFraction,
};
